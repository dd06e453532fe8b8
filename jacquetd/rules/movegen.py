"""Legal play generation (RULES.md G6-G8, J3-J11, B3-B7, section 4, N3-N8).

The generator works on plain lists of 26 counts per side (the side to move in
its own numbering, the opponent in its own) and explores every order of the
dice, one die at a time, checking every rule after every die (G6). Plays are
distinct by the position they produce (G8): the first legal order found for a
resulting position gives its canonical spelling. Doubles are explored
depth-first with a memo of the positions already expanded at each depth, so
that the many orders of four equal dice cost one visit per distinct position.

`generate` returns raw results for speed (bots call it in their inner loop);
`legal_plays` wraps them into `Play` values.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from .errors import GameStateError
from .geometry import block_breach, closure_breach, has_prime, head_floor, lowest_opposing
from .position import CHECKERS, Position
from .variants import Variant, opponent_point_map


class Step(NamedTuple):
    """One die's move of one checker: from `src` to `dst` (25 = bar, 0 = off)."""

    src: int
    dst: int
    die: int
    hit: bool

    def __str__(self) -> str:
        return format_step(self)


def format_point(p: int) -> str:
    return "bar" if p == 25 else "off" if p == 0 else str(p)


def format_step(step: Step) -> str:
    return f"{format_point(step.src)}/{format_point(step.dst)}{'*' if step.hit else ''}"


_SPELLINGS: dict[tuple[Step, ...], str] = {}
_SPELLINGS_MAX = 1 << 16


def format_steps(steps: Sequence[Step]) -> str:
    """The canonical spelling of a play: one `from/to` per die, in play order (G8)."""
    key = tuple(steps)
    text = _SPELLINGS.get(key)
    if text is None:
        if len(_SPELLINGS) >= _SPELLINGS_MAX:
            _SPELLINGS.clear()
        text = " ".join(format_step(s) for s in key)
        _SPELLINGS[key] = text
    return text


class RawPlay(NamedTuple):
    """A legal play as the generator finds it: its steps and both sides after it.

    `me` and `opp` are still in the mover's frame: `me` is the side that
    moved, `opp` its opponent, each in its own numbering.
    """

    steps: tuple[Step, ...]
    me: tuple[int, ...]
    opp: tuple[int, ...]


class _Rules(NamedTuple):
    hitting: bool
    courier: bool
    start_limit: bool
    mid_limit: bool
    closures: bool
    rearmost: bool
    table: tuple[int, ...]
    head: bool
    block: bool


_RULES_CACHE: dict[str, _Rules] = {}


def _rules_of(v: Variant) -> _Rules:
    r = _RULES_CACHE.get(v.name)
    if r is None:
        r = _Rules(v.hitting, v.courier, v.start_limit, v.midpoint_limit, v.closures,
                   v.bear_off == "rearmost", opponent_point_map(v), v.head_rule, v.six_block)
        _RULES_CACHE[v.name] = r
    return r


def _single_steps(me: list[int], opp: list[int], d: int, r: _Rules, floor: int,
                  lowest: int) -> list[tuple[Step, list[int], list[int]]]:
    """Every legal move of one checker by die `d` (the rules of one die, checked after it).

    With N5 and N6 (`long-nardy`), `floor` is the turn's `geometry.head_floor` and
    `lowest` the opponent's `geometry.lowest_opposing` (other variants: any values).
    """
    out: list[tuple[Step, list[int], list[int]]] = []
    table = r.table
    if me[25]:
        # J5: entering comes before anything else
        dst = 25 - d
        oq = table[dst]
        n = opp[oq]
        if n and (n >= 2 or not r.hitting):
            return out
        if r.start_limit and me[dst] == 1 and (
                (me[19] >= 2) + (me[20] >= 2) + (me[21] >= 2) + (me[22] >= 2)
                + (me[23] >= 2) + (me[24] >= 2)) >= 2:
            return out  # J7
        me2 = me.copy()
        me2[25] -= 1
        me2[dst] += 1
        if n:
            opp2 = opp.copy()
            opp2[oq] = 0
            opp2[25] += 1
            out.append((Step(25, dst, d, True), me2, opp2))
        else:
            out.append((Step(25, dst, d, False), me2, opp))
        return out

    # J6/B4: in the courier phase only the courier moves
    if r.courier and me[24] >= 14 and me[0] == 0 and not (
            me[1] or me[2] or me[3] or me[4] or me[5] or me[6]):
        if me[24] == 15:
            sources: Sequence[int] = (24,)
        else:
            sources = tuple(q for q in range(23, 0, -1) if me[q])
    else:
        sources = [q for q in range(24, 0, -1) if me[q]]

    all_home = not any(me[7:26])
    highest = 0
    if all_home:
        for q in range(6, 0, -1):
            if me[q]:
                highest = q
                break

    head_closed = r.head and me[24] <= floor  # N5: the turn's checkers have left the head
    hitting, mid_limit, start_limit, closures, block = (r.hitting, r.mid_limit, r.start_limit,
                                                        r.closures, r.block)
    for src in sources:
        if head_closed and src == 24:
            continue
        dst = src - d
        if dst <= 0:
            if not all_home:
                continue
            # J9: only the rearmost checker, with a die at least its point;
            # B7: a larger die bears off from the highest point only
            if (dst < 0 or r.rearmost) and src != highest:
                continue
            me2 = me.copy()
            me2[src] -= 1
            me2[0] += 1
            if closures and me2[src] == 0 and closure_breach(me2, src, 0, False):
                continue
            out.append((Step(src, 0, d, False), me2, opp))
            continue
        oq = table[dst]
        n = opp[oq]
        if n and (n >= 2 or not hitting):
            continue  # J3 / B3
        if mid_limit and dst == 13 and me[13] >= 2:
            continue  # J8
        if start_limit and dst >= 19 and me[dst] == 1:
            closed = ((me[19] >= 2) + (me[20] >= 2) + (me[21] >= 2) + (me[22] >= 2)
                      + (me[23] >= 2) + (me[24] >= 2))
            if src >= 19 and me[src] == 2:
                closed -= 1
            if closed >= 2:
                continue  # J7
        me2 = me.copy()
        me2[src] -= 1
        me2[dst] += 1
        if closures and (me[dst] == 0 or me2[src] == 0) and closure_breach(
                me2, src, dst, me[dst] == 0):
            continue  # B5
        if block and me[dst] == 0 and (dst + 12 if dst <= 12 else dst - 12) < lowest \
                and block_breach(me2, dst, lowest):
            continue  # N6: only a point below the opponent's lowest checker can close a block
        if n:
            opp2 = opp.copy()
            opp2[oq] = 0
            opp2[25] += 1
            out.append((Step(src, dst, d, True), me2, opp2))
        else:
            out.append((Step(src, dst, d, False), me2, opp))
    return out


def generate_raw(variant: Variant, me: Sequence[int], opp: Sequence[int],
                 dice: Sequence[int]) -> list[RawPlay]:
    """Every distinct legal play (G8) for the side `me` with `dice`.

    Applies G7 (as many dice as possible, else the higher die) and, where the
    variant has it, J10 (bear off the most checkers). A roll that cannot be
    played at all yields one play with no steps (the pass).

    A play that bears off the last checker ends the game and counts the dice it
    played: one that wins with one die is not legal where another plays both
    (in backgammon, `2/1* 1/off` against `2/off` with 4-1). A resulting position
    is recorded with the route found first; where one position is reached by
    routes of different lengths (the last checker borne off directly, or moved
    and then borne off without a hit), no other position uses more dice, so G7
    keeps it either way.
    """
    r = _rules_of(variant)
    d1, d2 = dice
    me_l = list(me)
    opp_l = list(opp)
    floor = head_floor(me, dice) if r.head else -1
    lowest = lowest_opposing(opp) if r.block else 0
    found: dict[bytes, tuple[tuple[Step, ...], list[int], list[int], int]] = {}

    if d1 == d2:
        seen: list[set[bytes]] = [set(), set(), set(), set(), set()]

        def walk(m: list[int], o: list[int], depth: int, steps: tuple[Step, ...]) -> None:
            if depth == 4 or m[0] == CHECKERS:
                key = bytes(m) + bytes(o)
                if key not in found:
                    found[key] = (steps, m, o, depth)
                return
            succ = _single_steps(m, o, d1, r, floor, lowest)
            if not succ:
                key = bytes(m) + bytes(o)
                if key not in found:
                    found[key] = (steps, m, o, depth)
                return
            nxt = seen[depth + 1]
            for step, m2, o2 in succ:
                k2 = bytes(m2) + bytes(o2)
                if k2 in nxt:
                    continue
                nxt.add(k2)
                walk(m2, o2, depth + 1, (*steps, step))

        walk(me_l, opp_l, 0, ())
    else:
        hi, lo = (d1, d2) if d1 > d2 else (d2, d1)
        for first, second in ((hi, lo), (lo, hi)):
            for step, m1, o1 in _single_steps(me_l, opp_l, first, r, floor, lowest):
                if m1[0] == CHECKERS:  # won with one die: the other is not played
                    key = bytes(m1) + bytes(o1)
                    if key not in found:
                        found[key] = ((step,), m1, o1, 1)
                    continue
                succ = _single_steps(m1, o1, second, r, floor, lowest)
                if not succ:
                    key = bytes(m1) + bytes(o1)
                    if key not in found:
                        found[key] = ((step,), m1, o1, 1)
                    continue
                for step2, m2, o2 in succ:
                    key = bytes(m2) + bytes(o2)
                    if key not in found:
                        found[key] = ((step, step2), m2, o2, 2)
        if not found:
            found[bytes(me_l) + bytes(opp_l)] = ((), me_l, opp_l, 0)

    entries = list(found.values())
    most = max(e[3] for e in entries)
    entries = [e for e in entries if e[3] == most]
    if most == 1 and d1 != d2:
        higher = [e for e in entries if e[0][0].die == max(d1, d2)]
        if higher:
            entries = higher  # G7: the higher die when only one can be played
    if variant.most_borne_off and len(entries) > 1:
        off = max(e[1][0] for e in entries)
        entries = [e for e in entries if e[1][0] == off]  # J10
    return [RawPlay(e[0], tuple(e[1]), tuple(e[2])) for e in entries]


class Play:
    """A legal play: its canonical text, its steps and the position it leads to.

    Two plays are equal when they lead to the same position (G8). `after` is
    the resulting position with the turn passed to the other side.
    """

    __slots__ = ("_after", "_before", "_move", "dice_used", "raw")

    def __init__(self, before: Position, raw: RawPlay) -> None:
        self._before = before
        self.raw = raw
        self.dice_used = len(raw.steps)
        self._move: str | None = None
        self._after: Position | None = None

    @property
    def before(self) -> Position:
        """The position the play is made in."""
        return self._before

    @property
    def steps(self) -> tuple[Step, ...]:
        return self.raw.steps

    @property
    def move(self) -> str:
        """The canonical spelling (empty for a pass)."""
        if self._move is None:
            self._move = format_steps(self.raw.steps)
        return self._move

    @property
    def after(self) -> Position:
        """The position after the play, the opponent on roll, no dice."""
        if self._after is None:
            self._after = position_after(self._before, self.raw.me, self.raw.opp)
        return self._after

    @property
    def hits(self) -> int:
        return sum(1 for s in self.raw.steps if s.hit)

    @property
    def borne_off(self) -> int:
        return self.raw.me[0] - self._before.me[0]

    @property
    def is_pass(self) -> bool:
        return not self.raw.steps

    def _key(self) -> tuple[str, tuple[int, ...], tuple[int, ...]]:
        return (self._before.variant, self.raw.me, self.raw.opp)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Play) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __str__(self) -> str:
        return self.move

    def __repr__(self) -> str:
        return f"Play({self.move!r})"


def position_after(before: Position, me: tuple[int, ...], opp: tuple[int, ...]) -> Position:
    """The position after the side on roll in `before` ends its turn with `me`/`opp`.

    The turn passes; the mover's J12 flag is set if it now holds a prime.
    """
    return Position(
        before.variant, opp, me, (), primed_after(before, me),
        before.cube.swapped() if before.cube else None,
        before.match.swapped() if before.match else None,
        before.rules,
    )


def primed_after(before: Position, me: tuple[int, ...]) -> tuple[bool, bool]:
    """The primed flags of the position after the side on roll in `before` ends its turn
    with `me` (its flag is set if it now holds a prime, J12), the new side on roll first."""
    primed_me = before.primed[0]
    if before.rules.tracks_primes and not primed_me and has_prime(me):
        primed_me = True
    return (before.primed[1], primed_me)


def generate(pos: Position) -> list[RawPlay]:
    """Raw legal plays of the side on roll in `pos` (which must have dice)."""
    if not pos.dice:
        raise GameStateError("the position has no dice: roll first", "G6")
    if pos.game_over():
        raise GameStateError("the game is over")
    return generate_raw(pos.rules, pos.me, pos.opp, pos.dice)


def legal_plays(pos: Position) -> list[Play]:
    """Every distinct legal play (G8) of the side on roll, in generation order.

    A roll that cannot be played yields one play, the pass (move text '').
    Raises GameStateError when `pos` has no dice or the game is over.
    """
    return [Play(pos, raw) for raw in generate(pos)]


_ALL_ROLLS = tuple((a, b) for a in range(1, 7) for b in range(a, 7))


def is_deadlocked(pos: Position) -> bool:
    """True when neither side can play any roll, ever again (RULES.md is silent on it).

    Such a position never changes: every turn is a pass. It can arise when
    both sides have a checker on the bar and neither can enter (and, in
    principle, in other blocked positions). See docs/RULES-READINGS.md.
    """
    if pos.game_over():
        return False
    v = pos.rules
    for me, opp in ((pos.me, pos.opp), (pos.opp, pos.me)):
        for dice in _ALL_ROLLS:
            plays = generate_raw(v, me, opp, dice)
            if plays[0].steps:
                return False
    return True
