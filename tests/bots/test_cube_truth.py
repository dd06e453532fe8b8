"""The Jacquet cube truth sets can be regenerated: same positions, same figures.

`benchmarks/truth/<variant>.cube.jsonl` (and the earlier `.cube-x0.68.jsonl`) hold
cubeful rollouts of money cube decisions (`benchmarks/bench_cube_rollout.py`). From
the recorded seed and settings, the first positions are sampled again (the seeded
self-play is replayed) and must be the recorded ones, in order; the first of them
are rolled out again with fewer trials (the same dice streams: trial t of a line
has its own seeded generator), and the no-double and double/take equities must
agree with the recorded ones within four combined standard errors.

`jacquet.cube.n256.jsonl` holds the same positions as `jacquet.cube.jsonl`, rolled out
by the 256-unit network (`--network jacquet-n256.npz`), and `jacquet-be.cube.jbe2.jsonl`
those of `jacquet-be.cube.jsonl`, rolled out by the shipped jacquet-be network
(`--network jacquet-be-jbe2.npz`), and `jacquet.cube.j2.jsonl` those of
`jacquet.cube.jsonl`, rolled out by the shipped jacquet network (`--network
jacquet-j2.npz`); each slice is rolled out again by its own network (the 256-unit
network's set is kept as a record, its positions checked, no longer rolled out again).
`jacquet.cube.j2h.jsonl` holds `jacquet.cube.j2.jsonl`'s positions rolled out again with
unbiased leaves (each trial the mean of its values cut after 10 and 11 turns), and
`jacquet.cube.j2h-s18.jsonl` 100 other positions (seed 18) rolled out the same way, and
`jacquet.cube.j2h-g19.jsonl` 200 positions drawn one a game (`--one-a-game`, seed 19);
`jacquet-be.cube.jbe2h-g29.jsonl` 100 `jacquet-be` positions drawn the same way (seed 29).

Under a slow budget (`JACQUETD_SLOW_BUDGET` seconds, as in CI) no position is rolled out
again once the budget is spent, the first one always.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from benchmarks.bench_cube_rollout import roll_out, sample
from tests.bots.truth_checks import SECOND_TRUTHS
from tests.conftest import slow_deadline, within

TRUTH = Path(__file__).resolve().parents[2] / "benchmarks" / "truth"
TRIALS = 72  # per line, two rounds of the 36 stratified first rolls


def read(name: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    lines = (TRUTH / name).read_text().splitlines()
    return json.loads(lines[0]), [json.loads(line) for line in lines[1:]]


@pytest.mark.slow
@pytest.mark.parametrize("name", ["jacquet.cube.jsonl", "jacquet-be.cube.jsonl",
                                  "jacquet.cube-x0.68.jsonl", "jacquet-be.cube-x0.68.jsonl",
                                  "jacquet.cube.j2.jsonl", "jacquet-be.cube.jbe2.jsonl",
                                  "jacquet.cube.j2h.jsonl", "jacquet.cube.j2h-s18.jsonl",
                                  "jacquet.cube.j2h-g19.jsonl",
                                  "jacquet-be.cube.jbe2h-g29.jsonl"])
def test_cube_truth_regenerates(name: str) -> None:
    settings, rows = read(name)
    assert len(rows) == settings["positions"]
    assert "--seed" in settings["command"] and settings["code_version"]
    deadline = slow_deadline()
    count = 10
    positions = sample(settings["variant"], count, settings["seed"], settings["rate"],
                       tuple(settings["window"]), settings.get("one_a_game", False))
    assert [p.to_id() for p in positions] == [r["position_id"] for r in rows[:count]]
    for index in within(deadline, range(2)):
        row = rows[index]
        again = roll_out((settings["variant"], row["position_id"], TRIALS,
                          settings["horizon"], settings["seed"], index,
                          settings.get("efficiency", 0.68), settings.get("network")))
        for line in ("nd", "dt"):
            se = math.hypot(again[f"{line}_se"], row[f"{line}_se"])
            assert abs(again[line] - row[line]) <= 4 * se, (name, index, line, again, row)


@pytest.mark.parametrize("variant,tag", [*SECOND_TRUTHS, ("jacquet", "j2")])
def test_second_cube_truth_has_the_first_ones_positions(variant: str, tag: str) -> None:
    first, rows = read(f"{variant}.cube.jsonl")
    second, again = read(f"{variant}.cube.{tag}.jsonl")
    assert second["network"] == f"{variant}-{tag}.npz"
    assert [r["position_id"] for r in again] == [r["position_id"] for r in rows]
    assert {k: second[k] for k in ("trials", "horizon", "seed", "efficiency", "window")} == {
        k: first[k] for k in ("trials", "horizon", "seed", "efficiency", "window")}


def test_the_unbiased_cube_truth_has_the_shipped_sets_positions() -> None:
    first, rows = read("jacquet.cube.j2.jsonl")
    second, again = read("jacquet.cube.j2h.jsonl")
    assert second["network"] == first["network"] and second["horizon"] == [10, 11]
    assert [r["position_id"] for r in again] == [r["position_id"] for r in rows]
    assert {k: second[k] for k in ("trials", "seed", "efficiency", "window")} == {
        k: first[k] for k in ("trials", "seed", "efficiency", "window")}


def test_sets_judged_as_one_must_be_rolled_out_alike(capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    """`bench_cube_rollout.py --load A B` refuses sets whose rollouts differ, naming how."""
    from benchmarks.bench_cube_rollout import main

    with pytest.raises(SystemExit):
        main(["--load", str(TRUTH / "jacquet.cube.j2h.jsonl"),
              str(TRUTH / "jacquet.cube.j2.jsonl")])
    assert "differ in horizon (10 against [10, 11])" in capsys.readouterr().err
