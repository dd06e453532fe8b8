"""Match files in any of the formats the project reads: its own records (RECORDS.md),
Jellyfish `.mat` and GNU Backgammon's SGF, told apart by their first lines.

    >>> record = parse_match_file(text)            # whichever of the three
    >>> format_match_file(record, "mat")           # backgammon only for mat and sgf
"""

from __future__ import annotations

import re

from .mat import MatchFileError, format_mat, parse_mat
from .records import (
    FORMAT,
    MatchRecord,
    RecordError,
    check_games,
    check_header,
    format_record,
    parse_record,
)
from .sgf import format_sgf, parse_sgf

JACQUET_MATCH = "jacquet-match"
MAT = "mat"
SGF = "sgf"
FORMATS = (JACQUET_MATCH, MAT, SGF)
"""The names `match_export` takes in `format`."""
# one line (re.M), spaces within it only: `\s` would let every blank line start a scan
# across the lines after it (quadratic in a record's blank lines)
_MAT_RE = re.compile(r"^[ \t]*\d+[ \t]+point[ \t]+match[ \t\r]*$", re.I | re.M)


def detect(text: str) -> str:
    """`sgf` for text opening a game tree, `mat` for text with an `N point match` line and
    no RECORDS.md `game` lines, `jacquet-match` otherwise."""
    if text.lstrip().startswith("(;"):
        return SGF
    if _MAT_RE.search(text) and not re.search(r"^game \d+ score ", text, re.M):
        return MAT
    return JACQUET_MATCH


def parse_match_file(text: str) -> MatchRecord:
    """Read a record, a `.mat` or an SGF match; RecordError (line numbered where known)."""
    kind = detect(text)
    try:
        if kind == SGF:
            return parse_sgf(text)
        if kind == MAT:
            return parse_mat(text)
    except MatchFileError as exc:
        raise RecordError(f"{kind}: {exc.message}", exc.line) from None
    return parse_record(text)


MAX_RECORD_LINES = 20_000
"""The most lines (and, in an SGF, nodes) a record read for analysis may have: real
matches, a 25-point one included, have a few thousand. Bounds the work of reading one
before anything is checked line by line."""


class RecordTooLarge(RecordError):
    """A record over MAX_RECORD_LINES lines or SGF nodes."""


def read_match_file(text: str) -> MatchRecord:
    """`parse_match_file` for a record a peer sent: its size is checked first, at the
    speed of a byte count (RecordTooLarge), then every line is read and the games'
    scores checked (`records.check_games`): RecordError names the line or the header.
    Whether the rules accept the moves is for `jacquetd.matches.records` to say."""
    lines = text.count("\n") + 1
    nodes = text.count(";") if detect(text) == SGF else 0
    if max(lines, nodes) > MAX_RECORD_LINES:
        what = "nodes" if nodes > lines else "lines"
        raise RecordTooLarge(f"{max(lines, nodes)} {what}, more than the {MAX_RECORD_LINES} "
                             "a record may have")
    record = parse_match_file(text)
    for key, value in record.headers.items():  # a .mat or SGF's too: MI[length:999]
        check_header(key, value)
    check_games(record)
    return record


def format_match_file(record: MatchRecord, fmt: str) -> str:
    """The record in `fmt` (one of FORMATS); MatchFileError when the format cannot hold it
    (`mat` and `sgf` hold backgammon matches only)."""
    if fmt == MAT:
        return format_mat(record)
    if fmt == SGF:
        return format_sgf(record)
    if fmt in (JACQUET_MATCH, FORMAT):
        return format_record(record)
    raise MatchFileError(f"unknown match file format {fmt!r} (known: {', '.join(FORMATS)})")
