"""The backgammon truth rolled out by GNU Backgammon (benchmarks/gnubg_rollout.py).

The rollout loop is checked against gnubg itself: truncated after one turn,
with the 36 first rolls each seen once, it must give gnubg's own 1-ply
evaluation (the mean over the rolls of its best 0-ply play), and the luck our
network subtracts must cancel exactly. The truth file is checked as the other
truth sets are: the same decisions and candidates as `backgammon.jsonl`, and a
slice rolled out again with fewer trials agrees within the standard errors.
"""

from __future__ import annotations

import pytest

from benchmarks.make_truth import TRUTH_DIR, read_truth, truth_evaluator
from benchmarks.positions import gnubg_board
from jacquetd.bots.search import State
from tests.bots.truth_checks import check_rolled_out_again

gnubg = pytest.importorskip("gnubg")
from benchmarks.gnubg_rollout import GnubgRollout  # noqa: E402  (needs gnubg)


@pytest.fixture(scope="module")
def roller() -> GnubgRollout:
    return GnubgRollout(truth_evaluator("backgammon"))


def _states(n: int) -> list[State]:
    _header, records = read_truth(TRUTH_DIR / "backgammon.jsonl")
    return [State(tuple(r["me"]), tuple(r["opp"])) for r in records[:n]]


def test_one_turn_is_gnubgs_one_ply_evaluation(roller: GnubgRollout) -> None:
    ci = gnubg.cubeinfo(1, -1, 0, 0, (0, 0), 0, 0)
    one_ply = gnubg.evalcontext(0, 1, 1, 0, 0.0)
    for s in _states(4):
        res = roller.run(s, trials=36, seed=[3], horizon=1)
        board = gnubg_board(s.me, s.opp)
        assert res.equity == pytest.approx(gnubg.evaluate(board, ci, one_ply)[5], abs=2e-6)
        assert res.equity == pytest.approx(float(res.raw.mean()), abs=1e-9)  # luck sums to 0


def test_reproducible_seed_dependent_and_variance_reduced(roller: GnubgRollout) -> None:
    s = _states(1)[0]
    a = roller.run(s, trials=72, seed=[5], horizon=3)
    b = GnubgRollout(truth_evaluator("backgammon")).run(s, trials=72, seed=[5], horizon=3)
    c = roller.run(s, trials=72, seed=[6], horizon=3)
    assert list(a.values) == list(b.values)
    assert list(a.values) != list(c.values)
    assert a.std_error < a.std_error_raw / 2


def test_only_backgammon() -> None:
    with pytest.raises(ValueError, match="backgammon only"):
        GnubgRollout(truth_evaluator("jacquet"))


def test_gnubg_truth_matches_its_source_and_regenerates(roller: GnubgRollout) -> None:
    header = check_rolled_out_again("backgammon.gnubg.jsonl", "backgammon.jsonl", roller, 3)
    assert header["settings"]["player"] == "gnubg"


def test_bench_truth_pairs_our_levels_with_gnubgs(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from benchmarks.bench_truth import main

    main(["--variant", "backgammon", "--truth", str(TRUTH_DIR / "backgammon.gnubg.jsonl"),
          "--limit", "6", "--level", "neural", "--no-extra", "--json"])
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert out["truth"] == "backgammon.gnubg.jsonl"
    assert set(out["levels"]) == {"neural", "gnubg", "gnubg-1", "gnubg-2"}
    pair = out["paired"]["neural - gnubg"]
    ours, theirs = out["levels"]["neural"]["all"], out["levels"]["gnubg"]["all"]
    assert pair["n"] == ours["n"] == theirs["n"]  # none skipped, so the means subtract
    assert pair["mean_mp"] == pytest.approx(ours["mean_mp"] - theirs["mean_mp"])


def test_bench_gnubg_errors_splits_the_disagreements_by_phase(
        capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from benchmarks.bench_gnubg_errors import main

    def run(*args: str) -> dict[str, dict[str, float]]:
        main(["--games", "3", "--seed", "5", "--json", *args])
        return json.loads(capsys.readouterr().out.strip().splitlines()[-1])["phases"]

    ours = run()
    phases = ("contact", "race", "bear-off")
    assert sum(ours[p]["turns"] for p in phases) == ours["all"]["turns"] > 0
    assert sum(ours[p]["differ"] for p in phases) == ours["all"]["differ"]
    assert 0 < ours["all"]["differ"] < ours["all"]["turns"]
    same = run("--level", "gnubg")  # gnubg against itself never differs
    assert same["all"]["turns"] > 0 and same["all"]["differ"] == 0
    # a candidate network in our level's place: the shipped file itself plays the same
    from jacquetd.bots.evaluator import WEIGHTS_DIR

    shipped = str(WEIGHTS_DIR / "backgammon.npz")
    assert run("--weights", shipped) == ours
