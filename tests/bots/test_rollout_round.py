"""A round of training on rollouts, and the test a candidate network must pass to ship
(`benchmarks/rollout_round.py`, `bench_truth.py --versus-shipped`)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from benchmarks import bench_truth, rollout_round
from jacquetd.bots.evaluator import WEIGHTS_DIR


def _paired(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict[str, Any]:
    assert bench_truth.main(argv) == 0
    out = capsys.readouterr().out
    return json.loads([line for line in out.splitlines() if line.startswith("{")][-1])


def test_the_shipped_network_against_itself_differs_by_nothing(
        capsys: pytest.CaptureFixture[str]) -> None:
    figures = _paired(capsys, [
        "--variant", "jacquet-be", "--level", "neural", "--limit", "12", "--no-extra",
        "--weights", str(WEIGHTS_DIR / "jacquet-be.npz"), "--versus-shipped", "--json"])
    pair = figures["paired"]["neural - neural/shipped"]
    assert pair["n"] == figures["levels"]["neural"]["all"]["n"] > 0
    assert pair["mean_mp"] == 0.0


def test_each_side_of_the_pair_plays_its_own_network(
        capsys: pytest.CaptureFixture[str]) -> None:
    # an earlier jacquet network, kept beside the truth sets it rolled out
    older = Path(bench_truth.TRUTH_DIR) / "networks" / "jacquet-n256.npz"
    common = ["--variant", "jacquet", "--level", "neural", "--limit", "40", "--no-extra",
              "--json"]
    both = _paired(capsys, [*common, "--weights", str(older), "--versus-shipped"])
    alone = _paired(capsys, [*common, "--weights", str(older)])
    shipped = _paired(capsys, common)
    assert both["levels"]["neural"]["all"] == alone["levels"]["neural"]["all"]
    assert both["levels"]["neural/shipped"]["all"] == shipped["levels"]["neural"]["all"]
    # the two networks choose differently here: the pair is not one network twice
    assert both["levels"]["neural"]["all"] != both["levels"]["neural/shipped"]["all"]
    assert both["paired"]["neural - neural/shipped"]["n"] > 0


def test_versus_shipped_needs_a_candidate() -> None:
    with pytest.raises(SystemExit) as exc:
        bench_truth.main(["--variant", "jacquet-be", "--level", "neural", "--versus-shipped"])
    assert exc.value.code == 2


def _h2h(ppg: float, ci: float) -> dict[str, Any]:
    return {"ppg_adjusted": ppg, "ci95_adjusted": ci}


def _truth(*diffs: float) -> dict[str, Any]:
    return {"paired": {f"neural{i} - neural{i}/shipped": {"n": 100, "mean_mp": d,
                                                          "ci95_mp": 1.0}
                       for i, d in enumerate(diffs)}}


@pytest.mark.parametrize(("h2h", "truths", "ships"), [
    (_h2h(0.05, 0.03), {"a": _truth(-0.5), "b": _truth(-0.1, -2.0)}, True),
    (_h2h(0.05, 0.05), {"a": _truth(-0.5)}, False),   # the interval reaches 0
    (_h2h(-0.05, 0.03), {"a": _truth(-0.5)}, False),  # loses
    (_h2h(0.05, 0.03), {"a": _truth(-0.5), "b": _truth(0.0)}, False),  # no better on b
    (_h2h(0.05, 0.03), {"a": _truth(-0.5, 0.3)}, False),  # worse at one level
])
def test_the_verdict_needs_a_win_and_less_error_everywhere(
        h2h: dict[str, Any], truths: dict[str, Any], ships: bool) -> None:
    got, reasons = rollout_round.verdict(h2h, truths)
    assert got is ships
    assert len(reasons) == 1 + sum(len(t["paired"]) for t in truths.values())


def test_round_two_needs_round_one(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="run round 1 first"):
        rollout_round.main(["--variant", "jacquet-be", "--round", "2", "--work",
                            str(tmp_path)])


@pytest.mark.slow
def test_a_small_round_fits_judges_records_and_resumes(tmp_path: Path) -> None:
    records = tmp_path / "rounds.jsonl"
    argv = ["--variant", "jacquet-be", "--round", "1", "--work", str(tmp_path / "work"),
            "--games", "1", "--seed", "3", "--trials", "2", "--horizon", "1",
            "--per-turn", "1", "--epochs", "1", "--h2h-games", "2",
            "--truth", str(bench_truth.TRUTH_DIR / "jacquet-be.jsonl"), "--truth-limit", "4",
            "--levels", "neural,neural-1", "--prune-states", "20", "--records", str(records)]
    assert rollout_round.main(argv) == 0
    candidate = tmp_path / "work" / "jacquet-be-round-1" / "jacquet-be.npz"
    labelled = tmp_path / "work" / "jacquet-be-round-1.npz"
    assert candidate.exists() and labelled.exists()
    meta = json.loads(candidate.with_suffix(".json").read_text())
    assert meta["teacher"] == "rollout-2x1" and meta["started_from"] == "shipped"
    (rec,) = [json.loads(line) for line in records.read_text().splitlines()]
    assert rec["round"] == 1 and rec["positions"] == meta["positions"] > 0
    assert rec["head_to_head"]["games"] == 2
    assert set(rec["truth"]) == {"jacquet-be.jsonl"}
    # the searching level plays the candidate with a pruning network fitted to it
    assert set(rec["truth"]["jacquet-be.jsonl"]) == {"neural - neural/shipped",
                                                     "neural-1 - neural-1/shipped"}
    prune_meta = json.loads((candidate.parent / "jacquet-be-prune.json").read_text())
    assert prune_meta["network_sha256"] == hashlib.sha256(
        candidate.read_bytes()).hexdigest()[:16]
    assert rec["prune"]["command"] == ("jacquetd train-prune --variant jacquet-be "
                                       "--states 20 --seed 3")
    assert rec["prune"]["network_sha256"] == prune_meta["network_sha256"]
    assert isinstance(rec["ships"], bool)
    made = candidate.stat().st_mtime_ns
    assert rollout_round.main(argv) == 0  # resumes: the network is not fitted again
    assert candidate.stat().st_mtime_ns == made
    assert len(records.read_text().splitlines()) == 2


def test_the_default_truth_sets_are_the_variant_set_and_its_second_judge() -> None:
    for variant in ("jacquet", "jacquet-be", "backgammon"):
        names = [Path(t).name for t in rollout_round.default_truths(variant)]
        assert names[0] == f"{variant}.jsonl" and len(names) == 2
        assert all(Path(t).exists() for t in rollout_round.default_truths(variant))
