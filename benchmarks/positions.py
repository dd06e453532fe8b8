"""Fixed, seeded suites of positions with dice, and the adapters that feed them to gnubg.

The benchmarks (`benchmarks/bench_rules.py`) and the GNU Backgammon differential
test (`tests/rules/test_gnubg_differential.py`) use the same suites, so that a
figure and a check always speak of the same positions.

A suite is every position met, dice rolled, in seeded random games of one
variant: the game flow of `jacquetd.rules.Game` (opening roll, turns) with dice
from a seeded `DiceSource` and a legal play picked at random by a second seeded
generator, game after game until the suite is full. The same `(variant, count,
seed)` always gives the same positions, and a longer suite starts with the
shorter one. Random play hits often, so the suites are rich in checkers on the
bar; they also hold doubles, bear-offs and the occasional roll that cannot be
played.

The second half of the module speaks to the PyPI package `gnubg` (imported
lazily): boards in its format and a binding to its own move generator.
"""

from __future__ import annotations

import ctypes
import functools
import random
from collections.abc import Sequence
from typing import Any

from jacquetd.rules import DiceSource, Game, Position, legal_plays

DEFAULT_SEED = 20_240_601
"""The seed of every standard suite; each variant derives its own from it."""

VARIANT_NAMES = ("jacquet", "jacquet-be", "backgammon", "long-nardy")


def _variant_seed(variant: str, seed: int) -> int:
    return seed * 8 + VARIANT_NAMES.index(variant)


def game_positions(variant: str, count: int, seed: int = DEFAULT_SEED) -> list[Position]:
    """`count` positions with dice from seeded random games of `variant`.

    The cube is left out (it changes no legal play); each position is the one
    the side on roll sees after rolling.
    """
    if variant not in VARIANT_NAMES:
        raise ValueError(f"unknown variant {variant!r}")
    base = _variant_seed(variant, seed)
    dice = DiceSource(base)
    choice = random.Random(base ^ 0x5EED)
    out: list[Position] = []
    while len(out) < count:
        game = Game(variant, cube_enabled=False, dice=dice)
        game.start()
        while game.result is None and len(out) < count:
            if game.phase == "roll":
                game.roll()
            pos = game.position()
            out.append(pos)
            game.play(choice.choice(legal_plays(pos)))
    return out


@functools.lru_cache(maxsize=16)
def suite(variant: str, count: int = 2000, seed: int = DEFAULT_SEED) -> tuple[Position, ...]:
    """The standard suite of `variant` (cached; positions are immutable)."""
    return tuple(game_positions(variant, count, seed))


def describe(positions: Sequence[Position]) -> dict[str, int]:
    """How many positions of a suite have the mover on the bar, doubles, checkers off."""
    return {
        "positions": len(positions),
        "on the bar": sum(1 for p in positions if p.me[25]),
        "doubles": sum(1 for p in positions if p.dice[0] == p.dice[1]),
        "all home": sum(1 for p in positions if not any(p.me[7:26])),
        "checkers off": sum(1 for p in positions if p.me[0]),
    }


# -- GNU Backgammon (the PyPI package `gnubg`) ---------------------------------------------

GnubgBoard = tuple[tuple[int, ...], tuple[int, ...]]


def gnubg_board(me: Sequence[int], opp: Sequence[int]) -> GnubgBoard:
    """Our two sides (26 counts each, own numbering: 0 off, 1-24, 25 bar) as a gnubg board.

    gnubg's board is `(not_on_roll, on_roll)`, 25 counts each in that side's own
    numbering: index 0-23 are points 1-24, index 24 is the bar; borne-off
    checkers are not listed. Our indexes 1..25 are exactly its 0..24.
    """
    return (tuple(opp[1:26]), tuple(me[1:26]))


def side_from_gnubg(counts: Sequence[int]) -> tuple[int, ...]:
    """One gnubg side (25 counts) back to our 26 counts (index 0: the borne-off ones)."""
    return (15 - sum(counts), *counts)


def gnubg_evalcontext() -> dict[str, Any]:
    """0-ply, cubeless, deterministic, no pruning, no noise: the cheapest full ranking."""
    import gnubg

    return gnubg.evalcontext(0, 0, 1, 0, 0.0)  # type: ignore[no-any-return]


class _MoveList(ctypes.Structure):
    # gnubg's `movelist` (eval.h): cMoves, cMaxMoves, cMaxPips, iMoveBest, rBestScore, amMoves
    _fields_ = (
        ("cMoves", ctypes.c_uint),
        ("cMaxMoves", ctypes.c_uint),
        ("cMaxPips", ctypes.c_uint),
        ("iMoveBest", ctypes.c_int),
        ("rBestScore", ctypes.c_float),
        ("amMoves", ctypes.c_void_p),
    )


_TanBoard = (ctypes.c_uint * 25) * 2


class GnubgMoveGenerator:
    """gnubg's bare C move generator `GenerateMoves`, reached through ctypes.

    The Python module has no function that lists legal moves without
    evaluating them (`findbestmoves` generates, then scores every move with
    the neural net), but its extension exports the C function
    `GenerateMoves(movelist *, const TanBoard, int, int, int fPartial)` that
    `findbestmoves` itself calls. It fills a scratch array of `move` records
    whose first field is `int anMove[8]`: from/to pairs of 0-based indexes
    (24 = the bar, -1 = off), -1 after the last pair. Unlike the Python move
    tuples (which end at the first -1, so at the first bear-off), these
    pairs are complete.

    The size of a `move` record depends on the build, so the constructor
    finds it by comparing the scratch array with `findbestmoves` on fixed
    positions, and raises RuntimeError when that fails (symbol missing,
    layout changed): callers then fall back on `findbestmoves` alone.
    """

    def __init__(self) -> None:
        import gnubg

        self._gnubg = gnubg
        lib = ctypes.CDLL(gnubg._gnubg_ext.__file__)
        try:
            fn = lib.GenerateMoves
        except AttributeError:
            raise RuntimeError("the gnubg extension does not export GenerateMoves") from None
        fn.restype = ctypes.c_uint
        fn.argtypes = (ctypes.POINTER(_MoveList), ctypes.c_void_p, ctypes.c_int,
                       ctypes.c_int, ctypes.c_int)
        self._fn = fn
        self._ml = _MoveList()
        self._ml_ref = ctypes.byref(self._ml)
        self.stride = self._calibrate()

    @staticmethod
    def c_board(board: GnubgBoard) -> Any:
        """A gnubg board as the C `TanBoard` (keep it alive while it is used)."""
        return _TanBoard(*((ctypes.c_uint * 25)(*side) for side in board))

    def count(self, c_board: Any, d1: int, d2: int) -> int:
        """The number of distinct legal moves (0 when the roll cannot be played)."""
        return int(self._fn(self._ml_ref, ctypes.addressof(c_board), d1, d2, 0))

    def moves(self, board: GnubgBoard, d1: int, d2: int) -> list[tuple[tuple[int, int], ...]]:
        """Every legal move as (from, to) pairs, gnubg's 0-based indexes (24 bar, -1 off)."""
        cb = self.c_board(board)
        n = self.count(cb, d1, d2)
        return [self._pairs(self._ml.amMoves + k * self.stride) for k in range(n)]

    @staticmethod
    def _pairs(address: int) -> tuple[tuple[int, int], ...]:
        raw = list((ctypes.c_int * 8).from_address(address))
        out = []
        for i in range(0, 8, 2):
            if raw[i] < 0:
                break
            out.append((raw[i], raw[i + 1]))
        return tuple(out)

    @staticmethod
    def python_tuple(pairs: Sequence[tuple[int, int]]) -> tuple[int, ...]:
        """The tuple `findbestmoves` gives for a move: 1-based, cut at the first bear-off."""
        flat: list[int] = []
        for f, t in pairs:
            flat.append(f + 1)
            if t < 0:
                break
            flat.append(t + 1)
        return tuple(flat)

    def _calibrate(self) -> int:
        gnubg = self._gnubg
        start = Position.initial("backgammon")
        board = gnubg_board(start.me, start.opp)
        cb = self.c_board(board)
        checks = []
        for dice in ((1, 1), (2, 1), (6, 6), (5, 3)):
            expected = {m["move"] for m in gnubg.findbestmoves(
                board, gnubg.cubeinfo(), gnubg_evalcontext(), dice)}
            checks.append((dice, expected))
        found = []
        for stride in range(64, 4096, 4):
            ok = True
            for (d1, d2), expected in checks:
                n = self.count(cb, d1, d2)
                got = {self.python_tuple(self._pairs(self._ml.amMoves + k * stride))
                       for k in range(n)}
                if n != len(expected) or got != expected:
                    ok = False
                    break
            if ok:
                found.append(stride)
        if len(found) != 1:
            raise RuntimeError(f"could not find the size of gnubg's move record ({found})")
        return found[0]
