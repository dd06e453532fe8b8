"""The annotated match (`analyze_record` with `annotate`; `protocol/annotate.py`): a
hosted match of bots that use the cube, analysed, written back as our record with the
analysis and, for backgammon, as gnubg's SGF with its analysis properties; both read
back as the same match, and the real GNU Backgammon loads the SGF and keeps the
analysis."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from jacquetd_protocol.records import parse_record
from jacquetd_protocol.sgf import parse_sgf

from tests.conftest import DaemonProcess
from tests.daemon.test_match_review import _client, _finished_match
from tests.interchange.gnubg_cli import NO_GNUBG, find_gnubg, run_gnubg

DATA = Path(__file__).resolve().parent.parent / "interchange" / "data" / "gnubg"
MOVE_ANALYSIS = re.compile(r"(?<![A-Z])A\[\d+\]")


def _story(record: Any) -> list[Any]:
    return [(g.number, g.score, g.opening, [(a.side, a.kind, a.dice, a.move, a.value)
                                            for a in g.actions], g.result)
            for g in record.games]


def _reviewed(daemon: DaemonProcess, variant: str, length: int, seed: int
              ) -> tuple[str, dict[str, Any]]:
    client = _client(daemon)
    mid = _finished_match(client, variant, length, seed)
    plain = str(client.call("match_export", match_id=mid)["record"])
    return plain, client.call("analyze_record", match_id=mid, annotate=True)


@pytest.mark.parametrize(("variant", "length"), [("jacquet", 3), ("backgammon", 0)])
def test_the_annotated_record_reads_back_as_the_same_match(
        jacquetd_server: DaemonProcess, variant: str, length: int) -> None:
    plain, r = _reviewed(jacquetd_server, variant, length, seed=7)
    text = r["annotated"]["record"]
    assert ("sgf" in r["annotated"]) == (variant == "backgammon")
    # the same match, the analysis in comment lines and headers
    assert _story(parse_record(text)) == _story(parse_record(plain))
    notes = [line for line in text.splitlines() if line.startswith(";@ ")]
    assert len([n for n in notes if n.startswith(";@ move ")]) == len(r["moves"])
    assert len([n for n in notes if n.startswith(";@ cube ")]) == len(r["cube"])
    assert r["cube"], "these bots double: there are cube decisions to annotate"
    for move, note in zip(r["moves"], [n for n in notes if n.startswith(";@ move ")],
                          strict=True):
        assert f"loss={move['loss']!r}" in note and f"side={move['side']}" in note
        assert f"mark={move['mark'] or '-'}" in note
    for entry in r["summary"]:
        header = re.search(rf'^; \[Summary{entry["side"]} "([^"]*)"\]$', text, re.M)
        assert header and f"pr={entry['pr']!r}" in header.group(1)
    # analysed again from the annotated text: the same analysis
    client = _client(jacquetd_server)
    again = client.call("analyze_record", record=text)
    assert again["summary"] == r["summary"]
    assert again["moves"] == [{k: v for k, v in m.items() if k != "play_chances"}
                              for m in r["moves"]]


def test_a_gnubg_match_annotated_and_annotated_again(jacquetd_server: DaemonProcess) -> None:
    sgf = (DATA / "analysed-7.sgf").read_text()
    client = _client(jacquetd_server)
    first = client.call("analyze_record", record=sgf, annotate=True)
    text = first["annotated"]["record"]
    assert text.startswith('; [Format "jacquet-match/1"]\n')
    assert _story(parse_record(text)) == _story(parse_sgf(sgf))
    again = client.call("analyze_record", record=text, annotate=True, blunder=0.5)
    def unmarked(moves: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{k: v for k, v in m.items() if k != "mark"} for m in moves]

    assert unmarked(again["moves"]) == unmarked(first["moves"])  # the same match
    # annotated again: the new analysis' headers replace the old ones, once each
    headers = re.findall(r"^; \[(\w+) ", again["annotated"]["record"], re.M)
    assert sorted(set(headers)) == sorted(headers)
    assert '; [Analysis "plies=0 doubtful=0.04 error=0.08 blunder=0.5"]' in \
        again["annotated"]["record"]


def test_the_annotated_sgf_holds_gnubg_analysis_and_gnubg_loads_it(
        jacquetd_server: DaemonProcess, tmp_path: Path) -> None:
    plain, r = _reviewed(jacquetd_server, "backgammon", 0, seed=5)
    sgf = r["annotated"]["sgf"]
    assert _story(parse_sgf(sgf)) == _story(parse_record(plain))
    assert len(MOVE_ANALYSIS.findall(sgf)) == len(r["moves"])
    # each candidate play with its evaluation: the best play first, its equity the entry's
    assert all(len(m["play_chances"]) == 2 for m in r["moves"])
    evaluated = re.findall(r"(?<![A-Z])A\[\d+\]\[[a-z]* E ver 3 (?:\S+ ){5}(\S+) ", sgf)
    assert [float(x) for x in evaluated] == [round(m["best_equity"], 6) for m in r["moves"]]
    assert sgf.count("BM[2]") == sum(m["mark"] == "blunder" for m in r["moves"])
    assert sgf.count("DO[]") == sum(m["mark"] == "doubtful" for m in r["moves"])
    judged = [c for c in r["cube"] if c["action"] in ("double", "no_double")]
    assert judged and sgf.count("DA[") == len(judged)
    assert sgf.count("LU[") == len(r["moves"])
    if find_gnubg() is None:
        pytest.skip(NO_GNUBG)
    (tmp_path / "ours.sgf").write_text(sgf)
    out = run_gnubg([f"load match {tmp_path / 'ours.sgf'}",
                     f"save match {tmp_path / 'again.sgf'}"], tmp_path / "home")
    saved = tmp_path / "again.sgf"
    assert saved.exists(), out[-2000:]
    again = saved.read_text()
    # gnubg kept the match, every move's candidate list, every cube analysis and luck
    assert _story(parse_sgf(again)) == _story(parse_record(plain))
    assert len(MOVE_ANALYSIS.findall(again)) == len(r["moves"])
    assert again.count(" E ver 3 ") >= sgf.count(" E ver 3 ") - len(judged)
    assert again.count("LU[") == len(r["moves"])
    assert again.count("DA[") >= len(judged)
    assert "jacquetd 0-ply" in again
