"""Differential test: our `backgammon` legal plays against GNU Backgammon's (section 4).

For every (position, dice) pair of a seeded suite, the set of positions our
`generate` reaches must equal the set GNU Backgammon's move generator reaches,
as run in-process by the PyPI package `gnubg`. Plays are compared by the
position they produce (G8), never by their spelling.

How gnubg is asked (checked on `gnubg` 1.1.0a16):

- `gnubg.findbestmoves(board, cubeinfo, evalcontext, dice)` lists every
  legal move, each scored by the net: at 0 ply no move filter applies, so the
  list is complete (it is empty when the roll cannot be played). Its board is
  `(not_on_roll, on_roll)`, 25 counts per side in that side's own numbering,
  index 0-23 the points 1-24, index 24 the bar. A move is a flat tuple of
  1-based from/to numbers, one pair per die (25 = the bar), hits unmarked;
  the tuple ends at the first bear-off, whose "to" (0) it cannot tell from
  its terminator: `6/off 5/off` comes back as `(6,)`. Bearing-off moves
  therefore cannot be applied from these tuples alone.
- The module has no Python function listing moves without evaluation, but its
  extension exports the C function `GenerateMoves` that `findbestmoves`
  calls; `benchmarks.positions.GnubgMoveGenerator` reaches it through ctypes
  and reads the complete from/to pairs (-1 = off). Every pair of the suite
  checks that these moves, cut the way the Python binding cuts them, are
  exactly `findbestmoves`' tuples; the positions compared are those of the
  complete moves, applied here checker by checker (hits included). If the C
  function cannot be reached, the test falls back on `findbestmoves` alone
  and compares bearing-off pairs by their number of plays only (it says so).

The suite: the first 2,000 positions of the standard seeded `backgammon`
suite (random games, see `benchmarks/positions.py`), plus every one of the 21
rolls in the suite's positions where the side on roll has all its checkers
home (bear-offs), plus every roll where the mover's last one or two checkers
can hit an opponent's blot on their way off (G7: a play that wins with one
die is not legal where a hit lets both be played). Checkers on the bar,
doubles, bear-offs and rolls that cannot be played all occur; the test asserts
they do.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator, Sequence

import pytest

from benchmarks.positions import (
    GnubgBoard,
    GnubgMoveGenerator,
    gnubg_board,
    gnubg_evalcontext,
    side_from_gnubg,
    suite,
)
from jacquetd.rules import Position, generate, render_board
from tests.rules.helpers import last_checkers_with_a_blot

gnubg = pytest.importorskip(
    "gnubg", reason="the PyPI package gnubg (GNU Backgammon in-process) is not importable")

SUITE_SIZE = 2000
ALL_ROLLS = [(a, b) for a in range(1, 7) for b in range(1, a + 1)]
MAX_REPORTED = 8

Key = tuple[tuple[int, ...], tuple[int, ...]]
Pairs = tuple[tuple[int, int], ...]


def differential_pairs() -> Iterator[Position]:
    base = suite("backgammon", SUITE_SIZE)
    yield from base
    yield from last_checkers_with_a_blot()
    seen = {(p.me, p.opp, p.dice) for p in base}
    for p in base:
        if any(p.me[7:26]):
            continue
        for roll in ALL_ROLLS:
            if (p.me, p.opp, roll) not in seen:
                seen.add((p.me, p.opp, roll))
                yield p.with_dice(roll)


def apply_gnubg_move(board: GnubgBoard, pairs: Pairs) -> tuple[Key, str]:
    """Play gnubg's from/to pairs (0-based: 24 the bar, -1 off) on its board.

    Returns both sides after the move in our numbering (mover first) and the
    move in the usual notation. A step gnubg could not have made (no checker
    to move, a landing point held by two or more) means a conversion error
    here, so it raises.
    """
    opp, me = list(board[0]), list(board[1])
    text = []
    for src, dst in pairs:
        if not 0 <= src <= 24 or not me[src] or not -1 <= dst <= 23:
            raise AssertionError(f"gnubg step {src}->{dst} impossible on {board}")
        me[src] -= 1
        hit = False
        if dst >= 0:
            o = 23 - dst  # our point dst+1 is the opponent's point 24-dst
            if opp[o] >= 2:
                raise AssertionError(f"gnubg step {src}->{dst} lands on a held point, {board}")
            if opp[o] == 1:
                opp[o] = 0
                opp[24] += 1
                hit = True
            me[dst] += 1
        text.append(f"{'bar' if src == 24 else src + 1}/{'off' if dst < 0 else dst + 1}"
                    f"{'*' if hit else ''}")
    return (side_from_gnubg(me), side_from_gnubg(opp)), " ".join(text)


def tuple_to_pairs(flat: Sequence[int]) -> Pairs:
    """A complete `findbestmoves` tuple as 0-based pairs."""
    return tuple((flat[i] - 1, flat[i + 1] - 1) for i in range(0, len(flat), 2))


def describe_key(key: Key) -> str:
    def side(counts: Sequence[int]) -> str:
        pts = " ".join(f"{'bar' if q == 25 else q}:{counts[q]}" for q in range(25, 0, -1)
                       if counts[q])
        return f"[{pts}; off {counts[0]}]"

    return f"mover {side(key[0])} opponent {side(key[1])}"


def mismatch_report(p: Position, ours: dict[Key, str], theirs: dict[Key, str],
                    note: str = "") -> str:
    lines = [f"position {p.to_id()} dice {p.dice[0]}-{p.dice[1]}{note}",
             render_board(p),
             f"ours: {len(ours)} plays, gnubg: {len(theirs)}"]
    for key in sorted(set(ours) - set(theirs)):
        lines.append(f"  only ours:  {ours[key] or '(pass)'}  ->  {describe_key(key)}")
    for key in sorted(set(theirs) - set(ours)):
        lines.append(f"  only gnubg: {theirs[key] or '(pass)'}  ->  {describe_key(key)}")
    return "\n".join(lines)


def test_backgammon_plays_equal_gnubg_plays() -> None:
    started = time.perf_counter()
    try:
        cgen: GnubgMoveGenerator | None = GnubgMoveGenerator()
        mode = "complete moves from gnubg's GenerateMoves, checked against findbestmoves"
    except (RuntimeError, OSError) as exc:
        cgen = None
        mode = f"findbestmoves only ({exc}); bearing-off pairs compared by count"
    cubeinfo = gnubg.cubeinfo()
    evalcontext = gnubg_evalcontext()
    stats: Counter[str] = Counter()
    failures: list[str] = []

    for p in differential_pairs():
        stats["pairs"] += 1
        stats["doubles"] += p.dice[0] == p.dice[1]
        stats["on the bar"] += bool(p.me[25])
        ours = {(r.me, r.opp): " ".join(str(s) for s in r.steps) for r in generate(p)}
        stats["ours more than one play"] += len(ours) > 1
        board = gnubg_board(p.me, p.opp)
        listed = [m["move"] for m in gnubg.findbestmoves(board, cubeinfo, evalcontext, p.dice)]

        if cgen is not None:
            moves = cgen.moves(board, *p.dice)
            cut = sorted(cgen.python_tuple(m) for m in moves)
            if cut != sorted(listed):
                failures.append(f"position {p.to_id()} dice {p.dice}: GenerateMoves {cut} "
                                f"but findbestmoves {sorted(listed)}")
                continue
        else:
            if any(len(t) % 2 for t in listed):
                stats["compared by count only"] += 1
                if len(listed) != len(ours) and not (not listed and len(ours) == 1):
                    failures.append(mismatch_report(p, ours, {}, f" (gnubg: {len(listed)} "
                                                                 "bearing-off moves)"))
                continue
            moves = [tuple_to_pairs(t) for t in listed]

        theirs: dict[Key, str] = {}
        for pairs in moves:
            key, text = apply_gnubg_move(board, pairs)
            if key in theirs:
                failures.append(f"position {p.to_id()} dice {p.dice}: gnubg lists two moves "
                                f"to one position ({theirs[key]}, {text})")
            theirs[key] = text
            stats["bear-off moves"] += any(dst < 0 for _, dst in pairs)
        if not theirs:
            stats["cannot move"] += 1
            theirs[(p.me, p.opp)] = ""
        stats["pairs with a bear-off"] += any("off" in t for t in theirs.values())
        stats["pairs with a hit"] += any("*" in t for t in theirs.values())
        stats["plays compared"] += len(theirs)
        if set(ours) != set(theirs):
            failures.append(mismatch_report(p, ours, theirs))

    elapsed = time.perf_counter() - started
    summary = ", ".join(f"{k} {v}" for k, v in stats.items())
    print(f"\ngnubg differential ({mode}): {summary}; {len(failures)} mismatches; "
          f"{elapsed:.1f} s")
    assert not failures, (f"{len(failures)} of {stats['pairs']} pairs differ from gnubg "
                          f"({mode}); first ones:\n\n" + "\n\n".join(failures[:MAX_REPORTED]))
    assert stats["pairs"] >= SUITE_SIZE
    assert stats["on the bar"] >= 100
    assert stats["doubles"] >= 200
    assert stats["pairs with a hit"] >= 100
    if cgen is not None:
        assert stats["pairs with a bear-off"] >= 100
        assert stats["cannot move"] >= 1
