"""Checks shared by the truth sets that roll out another set's decisions again
(`make_truth.py --player gnubg`, `--network` and `--plies`)."""

from __future__ import annotations

import math
from typing import Any

from benchmarks.make_truth import TRUTH_DIR, Roller, read_truth, recorded, roll_out
from jacquetd.rules import find_variant
from tests.conftest import within

TRIALS = 36

SECOND_TRUTHS = [("jacquet", "n256"), ("jacquet-be", "jbe2")]
"""(variant, tag) of each truth set rolled out again by a stronger network of ours,
`truth/networks/<variant>-<tag>.npz`: `<variant>.<tag>.jsonl` for checker play and
`<variant>.cube.<tag>.jsonl` for the cube."""


def assert_same_decisions(records: list[dict[str, Any]], source: list[dict[str, Any]]
                          ) -> None:
    """`records` hold the decisions of `source`, in order: the same positions, dice,
    0/1/2-ply choices and candidate plays."""
    for rec, src in zip(records, source, strict=True):
        assert (rec["id"], rec["me"], rec["opp"], rec["dice"], rec["choices"]) == (
            src["id"], src["me"], src["opp"], src["dice"], src["choices"])
        assert [(c["after_me"], c["after_opp"]) for c in rec["candidates"]] == [
            (c["after_me"], c["after_opp"]) for c in src["candidates"]]


JUDGES = [("jacquet", 1), ("jacquet-be", 1)]
"""(variant, plies) of each judge set: the first decisions of `<variant>.jsonl` rolled
out again by the shipped network searching `plies` deep, `<variant>.ply<plies>.jsonl`
(`make_truth.py --plies`)."""


def check_rolled_out_again(name: str, source_name: str, roller: Roller, slice_size: int,
                           *, deadline: float = math.inf, wanted: int | None = None
                           ) -> dict[str, Any]:
    """Truth file `name` holds the decisions and candidates of `source_name` in order (all
    of them, or its first `wanted`; a set still being made holds a prefix of those), and
    its first `slice_size` decisions, rolled out again by `roller` with fewer trials (the
    same dice), agree within four combined standard errors; none is started after
    `deadline` (a `time.monotonic()`) but the first. Returns the header, for the caller's
    own checks of how the set was made."""
    header, records = read_truth(TRUTH_DIR / name)
    _src_header, source = read_truth(TRUTH_DIR / source_name)
    assert header is not None and header["candidates_from"] == source_name
    if wanted is None:
        assert header["complete"]
        assert len(records) == len(source) >= 300
    else:
        assert header["decisions_wanted"] == wanted
        assert len(records) == header["decisions_done"] <= wanted
        assert header["complete"] == (len(records) == wanted)
        source = source[:len(records)]
    assert_same_decisions(records, source)
    s = header["settings"]
    v = find_variant(s["variant"])
    n = slice_size
    for rec, d in within(deadline, zip(records[:n], recorded(v, source[:n]), strict=True)):
        again = roll_out(v, roller, d, s["seed"], TRIALS, s["horizon"])
        for old, new in zip(rec["candidates"], again["candidates"], strict=True):
            tolerance = 4 * math.hypot(old["se"], new["se"]) + 1e-4
            assert abs(old["equity"] - new["equity"]) <= tolerance, (rec["id"], old, new)
    return header
