"""A compiled legal-play generator: the same plays as `jacquetd.rules.generate`, faster.

The kernel (`jacquetd.fastgen.kernel`, numba) follows
`jacquetd.rules.movegen.generate_raw` step for step, for every variant: it
finds the same plays (G8: distinct resulting positions), in the same order,
with the same first-found spellings. The pure generator stays the reference
and the source of canonical spellings; the tests compare the two on thousands
of positions per variant.

    available() -> bool                      # numba importable (and not disabled)
    warm_up()                                # compile, or load the cached compilation
    generate_arrays(variant, me, opp, dice)  # -> (positions n x 52, steps n x 4 x 3), int8
    generate_all_rolls(variant, me, opp)     # -> (positions of the 21 rolls, 22 bounds)
    generate(pos) -> list[RawPlay]           # as jacquetd.rules.generate(pos)
    spelled(pos) -> [(move, me, opp)]        # the same plays, spelled, for replies

`generate_arrays` is for callers that want arrays (a neural net's input):
each row of `positions` is the mover's 26 counts then the opponent's 26, each
in its own numbering, after the play; `steps[i, j]` is (src, dst, hit) of the
j-th step of play i (25 the bar, 0 off, hit 0 or 1), -1 after the last step.
A roll that cannot be played gives one row, the position unchanged, no steps.

Without numba (or with the environment variable JACQUETD_FASTGEN=0) every
function falls back on the pure generator and `available()` is False.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from jacquetd.rules import Position, RawPlay, Step, find_variant
from jacquetd.rules import generate as _pure_generate
from jacquetd.rules import generate_raw as _pure_generate_raw
from jacquetd.rules.movegen import format_steps
from jacquetd.rules.variants import Variant

__all__ = ["available", "flags_of", "generate", "generate_arrays", "spelled", "unavailable_reason",
           "warm_up"]

_kernel: Any = None
_IMPORT_ERROR: str | None = None
if os.environ.get("JACQUETD_FASTGEN", "1").strip().lower() in ("0", "off", "no", "false"):
    _IMPORT_ERROR = "disabled by JACQUETD_FASTGEN"
else:
    try:
        from . import kernel as _kernel
    except ImportError as exc:  # numba (or llvmlite) missing or broken
        _IMPORT_ERROR = f"numba not importable: {exc}"


def available() -> bool:
    """Whether the compiled generator is in use (else everything uses the pure one)."""
    return _kernel is not None


def unavailable_reason() -> str | None:
    """Why the compiled generator is not in use, or None when it is."""
    return _IMPORT_ERROR


def flags_of(variant: Variant) -> int:
    """The kernel's variant flags (an int of F_* bits) for `variant`."""
    if _kernel is None:
        raise RuntimeError(_IMPORT_ERROR or "fastgen unavailable")
    k = _kernel
    return ((k.F_HITTING if variant.hitting else 0)
            | (k.F_COURIER if variant.courier else 0)
            | (k.F_START_LIMIT if variant.start_limit else 0)
            | (k.F_MID_LIMIT if variant.midpoint_limit else 0)
            | (k.F_CLOSURES if variant.closures else 0)
            | (k.F_REARMOST if variant.bear_off == "rearmost" else 0)
            | (k.F_MOST_OFF if variant.most_borne_off else 0)
            | (k.F_SAME_DIRECTION if variant.same_direction else 0)
            | (k.F_HEAD if variant.head_rule else 0)
            | (k.F_BLOCK if variant.six_block else 0))


_FLAGS: dict[str, int] = {}


def _flags_by_name(name: str) -> int:
    f = _FLAGS.get(name)
    if f is None:
        f = flags_of(find_variant(name))
        _FLAGS[name] = f
    return f


class _Local(threading.local):
    def __init__(self) -> None:
        self.w8: np.ndarray | None = None
        self.w64: np.ndarray | None = None
        self.entries = 4096


_local = _Local()


def _run(kernel: Any, me: bytes, opp: bytes, d1: int, d2: int, flags: int
         ) -> tuple[np.ndarray, np.ndarray]:
    loc = _local
    w8 = loc.w8
    if w8 is None:
        loc.w8, loc.w64 = w8, _ = _kernel.new_workspace(loc.entries)
    first, second = kernel(me, opp, d1, d2, flags, w8, loc.w64)
    while not len(first):  # more plays than the workspace holds: grow it and start again
        loc.entries *= 2
        loc.w8, loc.w64 = _kernel.new_workspace(loc.entries)
        first, second = kernel(me, opp, d1, d2, flags, loc.w8, loc.w64)
    return first, second


def _side_bytes(side: Sequence[int] | np.ndarray) -> bytes:
    if isinstance(side, np.ndarray):
        return np.asarray(side, dtype=np.uint8).tobytes()
    return bytes(side)


def _pure_arrays(variant: Variant, me: Sequence[int] | np.ndarray,
                 opp: Sequence[int] | np.ndarray, dice: Sequence[int]
                 ) -> tuple[np.ndarray, np.ndarray]:
    raws = _pure_generate_raw(variant, list(me), list(opp), tuple(dice))
    positions = np.array([r.me + r.opp for r in raws], dtype=np.int8).reshape(len(raws), 52)
    steps = np.full((len(raws), 4, 3), -1, dtype=np.int8)
    for i, r in enumerate(raws):
        for j, s in enumerate(r.steps):
            steps[i, j] = (s.src, s.dst, int(s.hit))
    return positions, steps


def generate_arrays(variant_name: str, me: Sequence[int] | np.ndarray,
                    opp: Sequence[int] | np.ndarray, dice: Sequence[int]
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Every distinct legal play (G8) as arrays: (positions n x 52, steps n x 4 x 3), int8.

    `me` and `opp` are 26 counts each (own numbering: 0 off, 1..24, 25 bar),
    the side to move first; `dice` two values 1..6. The rows come in the pure
    generator's order. The position itself is trusted (validate it with
    `Position` first: a position no game can reach gives meaningless plays);
    only the shapes and the dice are checked (ValueError), so that no input
    makes the kernel read outside its arrays.
    """
    if _kernel is None:
        return _pure_arrays(find_variant(variant_name), me, opp, dice)
    mb = _side_bytes(me)
    ob = _side_bytes(opp)
    d1, d2 = dice
    if len(mb) != 26 or len(ob) != 26 or not (0 < d1 < 7 and 0 < d2 < 7):
        raise ValueError("generate_arrays needs 26 counts per side and two dice 1-6")
    return _run(_kernel.arrays_kernel, mb, ob, int(d1), int(d2), _flags_by_name(variant_name))


def generate_all_rolls(variant_name: str, me: Sequence[int] | np.ndarray,
                       opp: Sequence[int] | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`generate_arrays`' positions for each of the 21 rolls in turn (1-1, 1-2, .., 6-6),
    in one call: (positions m x 52 int8, the 22 bounds of each roll's rows)."""
    if _kernel is None:
        variant = find_variant(variant_name)
        blocks = [_pure_arrays(variant, me, opp, (a, b))[0]
                  for a in range(1, 7) for b in range(a, 7)]
        return (np.concatenate(blocks),
                np.cumsum([0] + [len(b) for b in blocks], dtype=np.int64))
    mb = _side_bytes(me)
    ob = _side_bytes(opp)
    if len(mb) != 26 or len(ob) != 26:
        raise ValueError("generate_all_rolls needs 26 counts per side")
    flags = _flags_by_name(variant_name)
    loc = _local
    if loc.w8 is None:
        loc.w8, loc.w64 = _kernel.new_workspace(loc.entries)
    positions, bounds = _kernel.rolls_kernel(mb, ob, flags, loc.w8, loc.w64)
    while not len(positions):  # more plays than the workspace holds: grow it and start again
        loc.entries *= 2
        loc.w8, loc.w64 = _kernel.new_workspace(loc.entries)
        positions, bounds = _kernel.rolls_kernel(mb, ob, flags, loc.w8, loc.w64)
    return positions, bounds


# -- RawPlay objects ----------------------------------------------------------------------

_STEPS_CACHE: dict[int, tuple[Step, ...]] = {}
_STEPS_CACHE_MAX = 1 << 18
_new_raw = tuple.__new__
_HIT_FLAG = _kernel.HIT_FLAG if _kernel is not None else 0


def _decode_steps(key: int) -> tuple[Step, ...]:
    out = []
    code = key & (_HIT_FLAG - 1)
    while code:
        c = code & 0x3FFF
        code >>= 15
        hit = c & 1
        c >>= 1
        die = c & 7
        c >>= 3
        out.append(Step(c >> 5, c & 31, die, bool(hit)))
    steps = tuple(out)
    if len(_STEPS_CACHE) >= _STEPS_CACHE_MAX:
        _STEPS_CACHE.clear()
    _STEPS_CACHE[key] = steps
    return steps


def generate(pos: Position) -> list[RawPlay]:
    """Raw legal plays of the side on roll, as `jacquetd.rules.generate(pos)` gives them.

    Same plays, same order, same spellings; the `me`/`opp` tuples are equal
    (not always the same objects: an opponent untouched by the play is
    `pos.opp` itself). Raises as the pure generator does for a position
    without dice or a finished game.
    """
    if _kernel is None or not pos.dice or pos.game_over():
        return _pure_generate(pos)
    me = pos.me
    opp = pos.opp
    d1, d2 = pos.dice
    positions, codes = _run(_kernel.plays_kernel, bytes(me), bytes(opp), d1, d2,
                            _flags_by_name(pos.variant))
    buf = positions.tobytes()
    cache = _STEPS_CACHE
    hit_flag = _HIT_FLAG
    new = _new_raw
    out: list[RawPlay] = []
    append = out.append
    o = 0
    for code in codes.tolist():
        steps = cache.get(code)
        if steps is None:
            steps = _decode_steps(code)
        # an opponent the play did not hit is pos.opp itself
        append(new(RawPlay, (steps, tuple(buf[o:o + 26]),
                             opp if code < hit_flag else tuple(buf[o + 26:o + 52]))))
        o += 52
    return out


_SPELLED: dict[int, str] = {}


def spelled(pos: Position) -> list[tuple[str, tuple[int, ...], tuple[int, ...]]]:
    """Each legal play of `pos` as (canonical spelling, me, opp): the `move` text and the
    `me`/`opp` of `generate(pos)`, in its order, without building `RawPlay`s or steps
    (what a reply's play records need). Raises as `generate` does."""
    if _kernel is None or not pos.dice or pos.game_over():
        return [(format_steps(raw.steps), raw.me, raw.opp) for raw in _pure_generate(pos)]
    opp = pos.opp
    d1, d2 = pos.dice
    positions, codes = _run(_kernel.plays_kernel, bytes(pos.me), bytes(opp), d1, d2,
                            _flags_by_name(pos.variant))
    buf = positions.tobytes()
    texts = _SPELLED
    hit_flag = _HIT_FLAG
    out: list[tuple[str, tuple[int, ...], tuple[int, ...]]] = []
    append = out.append
    o = 0
    for code in codes.tolist():
        text = texts.get(code)
        if text is None:
            if len(texts) >= _STEPS_CACHE_MAX:
                texts.clear()
            text = texts[code] = format_steps(_STEPS_CACHE.get(code) or _decode_steps(code))
        append((text, tuple(buf[o:o + 26]),
                opp if code < hit_flag else tuple(buf[o + 26:o + 52])))
        o += 52
    return out


def warm_up() -> float:
    """Compile the kernel (or load its cached compilation); returns the seconds it took.

    Also checks one position of each variant against the pure generator and
    raises RuntimeError if they differ. Without numba it returns 0.0 at once.
    """
    if _kernel is None:
        return 0.0
    import time

    t0 = time.perf_counter()
    for name in ("jacquet", "jacquet-be", "backgammon", "long-nardy"):
        for dice in ((6, 5), (3, 3)):
            p = Position.initial(name).with_dice(dice)
            want = _pure_generate(p)
            positions, _ = generate_arrays(name, p.me, p.opp, dice)
            if generate(p) != want or positions.tolist() != [list(r.me + r.opp) for r in want]:
                raise RuntimeError(f"fastgen differs from the pure generator on {p.to_id()}")
        p = Position.initial(name)
        everything, bounds = generate_all_rolls(name, p.me, p.opp)
        if everything[bounds[20]:].tolist() != generate_arrays(name, p.me, p.opp,
                                                               (6, 6))[0].tolist():
            raise RuntimeError(f"fastgen's 21 rolls differ from its single roll on {p.to_id()}")
    return time.perf_counter() - t0
