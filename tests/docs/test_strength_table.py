"""The README's strength table is the rendering of the recorded matches, with today's levels.

`benchmarks/strength_table.py` keeps one record per match with the
fingerprint of both levels (their network files, move filters, pruning
network, heuristic source). A record whose levels have changed since must
leave the table: these tests check the README against the records, and that
a changed fingerprint does take a figure out.
"""

from __future__ import annotations

import copy
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[2]
START, END = "<!-- strength-table -->", "<!-- /strength-table -->"


def _module(name: str) -> ModuleType:
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        spec = importlib.util.spec_from_file_location(f"benchmarks_{name}",
                                                      REPO / "benchmarks" / f"{name}.py")
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # its dataclasses look their module up
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(REPO / "benchmarks"))


@pytest.fixture(scope="module")
def table() -> ModuleType:
    return _module("strength_table")


def test_readme_holds_the_rendered_table(table: ModuleType) -> None:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    assert text.count(START) == 1 and text.count(END) == 1
    block = text.split(START, 1)[1].split(END, 1)[0].strip("\n") + "\n"
    assert block == table.markdown(table.load_records()), (
        "README's strength table differs from `python benchmarks/strength_table.py "
        "--markdown`: paste its output between the markers")


def test_every_record_is_one_of_the_tables_matches(table: ModuleType) -> None:
    records = table.load_records()
    assert records
    matches = set(table.MATCHES)
    for r in records:
        m = table.Match(r["variant"], r["a"], r["b"], r["games"], r["seed"])
        assert m in matches, m
        assert r["command"].startswith(m.command())
        assert r["ci95_adjusted"] > 0


def test_a_changed_level_or_judge_takes_its_figures_out(table: ModuleType) -> None:
    records = table.load_records()
    now = table.current(records)
    assert now, "no record is current: run `strength_table.py --run`"
    key, record = next(iter(now.items()))
    stale = copy.deepcopy(record)
    stale["fingerprint_a"] = dict(stale["fingerprint_a"], level_changed="yes")
    assert key not in table.current([stale])
    judged = dict(record, judge=dict(record["judge"], net="another network"))
    assert key not in table.current([judged])
    assert table.current([record])[key] == record
    other = dict(record, seed=record["seed"] + 1)  # not the table's match: ignored
    assert key not in table.current([other])
    assert table._cell(record) in table.markdown([record])
    assert table._cell(record) not in table.markdown([stale])


def test_fingerprints_follow_what_a_level_plays_with(table: ModuleType) -> None:
    neural = table.fingerprint("backgammon", "neural")
    searching = table.fingerprint("backgammon", "neural-2")
    assert neural["net"] and neural["net-crashed"]
    assert searching["prune"] and searching["filters"]
    assert searching["net"] == neural["net"]
    assert table.fingerprint("jacquet", "neural")["net"] != neural["net"]
    assert table.fingerprint("jacquet", "heuristic")["source"]


def test_every_match_is_a_valid_strength_command(table: ModuleType) -> None:
    strength = _module("bench_strength")
    for m in table.MATCHES:
        args = strength.parser().parse_args(m.command().split()[2:])
        assert (args.variant, args.a, args.b, args.games, args.seed) == (
            m.variant, m.a, m.b, m.games, m.seed)
    assert len({m.key() for m in table.MATCHES}) == len(table.MATCHES)
    assert len({(m.variant, m.seed) for m in table.MATCHES}) == len(table.MATCHES)
