"""The truth sets can be regenerated: same decisions, same figures within their errors.

For each variant, the first decisions of `benchmarks/truth/<variant>.jsonl`
are sampled again from the recorded seed and settings (the seeded games are
replayed), and their candidate plays are rolled out again with fewer trials
(the same dice streams). The positions, dice, candidates and the 0/1/2-ply
choices must be identical, and every candidate's equity must agree with the
recorded one within four combined standard errors.

Under a slow budget (`JACQUETD_SLOW_BUDGET` seconds, as in CI) the slice ends when the
budget is spent (after its first decision), and with a budget under `REPLAY_S` only
backgammon replays its seeded game: the Jacquet variants rebuild their decisions from the
recorded positions and dice (same plays, same 0/1/2-ply choices, same rollouts), which
leaves out the 2-ply self-play of each first game (`long-nardy` as the Jacquet variants).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from typing import Any

import pytest

from benchmarks.make_truth import (
    TRUTH_DIR,
    TRUTH_SEARCH,
    Decision,
    choose_candidates,
    decisions,
    read_truth,
    roll_out,
    truth_evaluator,
)
from jacquetd.bots.evaluator import neural_evaluator
from jacquetd.bots.fastrollout import TruncatedRollout
from jacquetd.bots.search import Searcher, State
from jacquetd.rules import Variant, find_variant, generate_raw
from tests.bots.truth_checks import JUDGES, SECOND_TRUTHS
from tests.conftest import slow_budget_s, slow_deadline, within

SLICE = 10
TRIALS = 36
#: The seconds of 2-ply self-play a Jacquet variant's first sampled game takes, about:
#: a smaller slow budget rebuilds the decisions from the records instead of replaying.
REPLAY_S = 30.0


def replays(variant: str) -> bool:
    budget = slow_budget_s()
    return variant == "backgammon" or budget is None or budget >= REPLAY_S


def recorded_decisions(v: Variant, records: list[dict[str, Any]], extra: int
                       ) -> Iterator[Decision]:
    """The decisions of `records` rebuilt from their recorded positions and dice (plays
    generated, candidates chosen by the same 0/1/2-ply searches) without replaying the
    seeded games that sampled them: the bounded form's shortcut for the Jacquet variants,
    whose first sampled game alone takes half a minute of 2-ply self-play."""
    searcher = Searcher(truth_evaluator(v.name), TRUTH_SEARCH)
    for rec in records:
        state = State(list(rec["me"]), list(rec["opp"]), rec["me_flag"], rec["opp_flag"])
        dice = (rec["dice"][0], rec["dice"][1])
        raws = tuple(generate_raw(v, state.me, state.opp, dice))
        cands, choices, ply_eq = choose_candidates(searcher, state, raws, extra)
        yield Decision(rec["id"], rec["game"], rec["turn"], rec["source"], state, dice, raws,
                       cands, choices, ply_eq)


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["backgammon", "jacquet", "jacquet-be", "long-nardy"])
def test_truth_slice_regenerates(variant: str) -> None:
    path = TRUTH_DIR / f"{variant}.jsonl"
    header, records = read_truth(path)
    assert header is not None, f"missing truth set {path.name}"
    s = header["settings"]
    assert header["decisions_done"] == len(records) > 0
    v = find_variant(variant)
    roller = TruncatedRollout(truth_evaluator(v.name))
    deadline = slow_deadline()
    n = min(SLICE, len(records))
    if replays(variant):
        stream = decisions(v, s["seed"], s["rate"], s["extra"])
    else:
        stream = recorded_decisions(v, records[:n], s["extra"])
    pairs = zip(records[:n], itertools.islice(stream, n), strict=True)
    for rec, d in within(deadline, pairs):
        assert rec["id"] == d.index
        assert (rec["me"], rec["opp"], rec["dice"]) == (list(d.state.me), list(d.state.opp),
                                                         list(d.dice))
        again = roll_out(v, roller, d, s["seed"], TRIALS, s["horizon"])
        assert again["choices"] == rec["choices"]
        assert again["phase"] == rec["phase"]
        for old, new in zip(rec["candidates"], again["candidates"], strict=True):
            assert (old["after_me"], old["after_opp"]) == (new["after_me"], new["after_opp"])
            tolerance = 4 * math.hypot(old["se"], new["se"]) + 1e-4
            assert abs(old["equity"] - new["equity"]) <= tolerance, (rec["id"], old, new)


def test_rollout_of_one_turn_is_the_one_ply_value() -> None:
    # truncated after one turn, luck subtraction leaves the 1-ply value, to the float32
    # rounding of the evaluations (BLAS may round a row differently in a batch of
    # another size, and the two paths batch the same plays differently)
    from jacquetd.bots.net import equity
    from jacquetd.bots.search import Searcher
    from jacquetd.bots.selfplay import start_side

    for name in ("backgammon", "jacquet"):
        v = find_variant(name)
        ev = neural_evaluator(name)
        side = start_side(v)
        state = State(side, side)
        res = TruncatedRollout(ev).run(state, trials=40, seed=[1, 2], horizon=1)
        one_ply = float(equity(Searcher(ev).evaluate_states([state], 1)[0]))
        assert res.equity == pytest.approx(one_ply, abs=1e-6)
        assert res.std_error == pytest.approx(0.0, abs=1e-9)
        assert res.std_error_raw > 0.0


def test_rollout_is_reproducible_and_seed_dependent() -> None:
    from jacquetd.bots.selfplay import start_side

    v = find_variant("backgammon")
    ev = neural_evaluator(v.name)
    side = start_side(v)
    state = State(side, side)
    a = TruncatedRollout(ev).run(state, trials=36, seed=[5], horizon=3)
    b = TruncatedRollout(ev).run(state, trials=36, seed=[5], horizon=3)
    c = TruncatedRollout(ev).run(state, trials=36, seed=[6], horizon=3)
    assert list(a.values) == list(b.values)
    assert list(a.values) != list(c.values)
    with pytest.raises(ValueError, match="horizon"):
        TruncatedRollout(ev).run(state, trials=36, seed=[5], horizon=0)


def test_network_rolls_out_the_decisions_of_the_truth_set_again(tmp_path: Any) -> None:
    """`--network` keeps the source's decisions and candidates, names its player in the
    header, rolls out with that network (not the truth network) and resumes."""
    from benchmarks.make_truth import main, network_tag, rollout_evaluator
    from tests.bots.truth_checks import assert_same_decisions

    out = tmp_path / "jacquet.n256.jsonl"
    argv = ["--variant", "jacquet", "--network", "jacquet-n256.npz", "--decisions", "1",
            "--trials", "36", "--out", str(out)]
    assert main(argv) == 0
    header, records = read_truth(out)
    _src_header, source = read_truth(TRUTH_DIR / "jacquet.jsonl")
    assert header is not None and header["complete"]
    assert header["settings"]["network"] == "jacquet-n256.npz"
    assert header["candidates_from"] == "jacquet.jsonl"
    assert "networks/jacquet-n256.npz" in header["rollout"]["player"]
    assert "--network jacquet-n256.npz" in header["command"]
    assert len(records) == 1
    assert_same_decisions(records, source[:1])
    assert rollout_evaluator("jacquet", "jacquet-n256.npz").net is not (
        truth_evaluator("jacquet").net)
    assert main(argv) == 0  # complete: resumes with nothing to do
    assert read_truth(out)[1] == records
    with pytest.raises(SystemExit, match="rerun with the same settings"):
        main([*argv[:-2], "--trials", "72", "--out", str(out)])
    with pytest.raises(SystemExit, match=r"jacquet-<tag>\.npz"):
        network_tag("jacquet", "n256.npz")
    with pytest.raises(SystemExit, match="no network"):
        main(["--variant", "jacquet", "--network", "jacquet-missing.npz", "--out",
              str(tmp_path / "x.jsonl")])


@pytest.mark.slow
@pytest.mark.parametrize("variant,tag", SECOND_TRUTHS)
def test_second_truth_matches_its_source_and_regenerates(variant: str, tag: str) -> None:
    """`<variant>.<tag>.jsonl`: the decisions and candidates of `<variant>.jsonl`, rolled
    out again by the network `truth/networks/<variant>-<tag>.npz` (`jacquet`: the 256-unit
    network; `jacquet-be`: its second round on its own 1-ply labels); a slice rolled out
    again agrees within the errors."""
    from benchmarks.make_truth import make_roller
    from tests.bots.truth_checks import check_rolled_out_again

    network = f"{variant}-{tag}.npz"
    roller = make_roller(variant, "neural", network)
    header = check_rolled_out_again(f"{variant}.{tag}.jsonl", f"{variant}.jsonl", roller,
                                    SLICE, deadline=slow_deadline())
    assert header["settings"]["network"] == network


@pytest.mark.slow
@pytest.mark.parametrize("variant,plies", JUDGES)
def test_judge_matches_its_source_and_regenerates(variant: str, plies: int) -> None:
    """`<variant>.ply<N>.jsonl`, the stronger judge: the first 100 decisions of
    `<variant>.jsonl` and their candidates, rolled out again by the shipped network at N
    plies with more trials than the set it judges; a slice rolled out again agrees
    within the errors."""
    from benchmarks.make_truth import make_roller
    from tests.bots.truth_checks import check_rolled_out_again

    roller = make_roller(variant, "neural", None, plies=plies)
    header = check_rolled_out_again(f"{variant}.ply{plies}.jsonl", f"{variant}.jsonl", roller,
                                    1, deadline=slow_deadline(), wanted=100)
    source_header, _ = read_truth(TRUTH_DIR / f"{variant}.jsonl")
    assert source_header is not None
    assert header["settings"]["plies"] == plies
    assert header["settings"]["trials"] > source_header["settings"]["trials"]
    assert header["rollout"]["player"].startswith(f"neural-{plies} (the shipped network")
