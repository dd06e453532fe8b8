"""Move notation: reading any legal spelling of a play, and applying it.

Output uses one canonical spelling per play (see `movegen.format_steps`):
one `from/to` per die in play order, `bar` for 25, `off` for 0, `*` after a
hitting step, e.g. `24/18 18/13`, `bar/22*`, `6/off`.

Input accepts any legal spelling (G8): chains (`24/18/13`), combined
segments (`24/13`), either order of the dice, repetitions (`13/7(2)`),
optional hit marks (`*`), `25`/`bar`, `0`/`off`, and `pass` (or nothing) for
a roll that cannot be played. A spelling is matched by simulating it die by
die under every rule, so an illegal one is refused with the rule it breaks.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Sequence
from itertools import pairwise, permutations
from typing import NamedTuple

from .errors import AmbiguousMoveError, IllegalMoveError, MoveSyntaxError
from .explain import Violation, step_violation
from .geometry import head_floor
from .movegen import Play, legal_plays
from .position import Position
from .variants import Variant, opponent_point_map

MAX_MOVE_TEXT = 200


class Segment(NamedTuple):
    """One written `from/to` part of a move; `hit` when the writer marked it with `*`."""

    src: int
    dst: int
    hit: bool


_POINT_RE = re.compile(r"^(bar|b|off|o|[0-9]{1,2})(\*?)\Z")
_REPEAT_RE = re.compile(r"^(.*?)\(([0-9])\)\Z")


def _point(text: str, token: str) -> int:
    if text in ("bar", "b"):
        return 25
    if text in ("off", "o"):
        return 0
    value = int(text)
    if value > 25:
        raise MoveSyntaxError(f"point {value} in {token!r} is not 0-25")
    return value


def parse_move(text: str) -> list[Segment]:
    """Read move text into written segments; raise MoveSyntaxError if it is not notation.

    The result is empty for a pass (`pass`, `-` or an empty string).
    """
    if not isinstance(text, str):
        raise MoveSyntaxError("a move must be text")
    if len(text) > MAX_MOVE_TEXT:
        raise MoveSyntaxError(f"move text longer than {MAX_MOVE_TEXT} characters")
    cleaned = text.strip().lower().replace(",", " ")
    if cleaned in ("", "pass", "-", "none"):
        return []
    segments: list[Segment] = []
    for token in cleaned.split():
        repeat = 1
        m = _REPEAT_RE.match(token)
        body = token
        if m:
            body, repeat = m.group(1), int(m.group(2))
            if not 1 <= repeat <= 4:
                raise MoveSyntaxError(f"repetition in {token!r} must be 1-4")
        parts = body.split("/")
        if len(parts) < 2:
            raise MoveSyntaxError(f"{token!r} is not of the form from/to")
        points: list[tuple[int, bool]] = []
        for part in parts:
            pm = _POINT_RE.match(part)
            if not pm:
                raise MoveSyntaxError(f"{part!r} in {token!r} is not a point, 'bar' or 'off'")
            points.append((_point(pm.group(1), token), bool(pm.group(2))))
        for (src, _), (dst, hit) in pairwise(points):
            if src <= dst:
                raise MoveSyntaxError(f"{token!r} moves backwards or nowhere ({src} to {dst})")
            segments.extend([Segment(src, dst, hit)] * repeat)
        if len(segments) > 4 * 4:
            raise MoveSyntaxError("too many moves in one play")
    return segments


def _decompositions(segments: Sequence[Segment], dice: list[int]
                    ) -> Iterator[list[list[tuple[int, int]]]]:
    """Ways to assign dice to the segments: per segment, its (src, die) steps in order."""
    if not segments:
        yield []
        return
    seg, rest = segments[0], segments[1:]

    def split(src: int, remaining: list[int]) -> Iterator[tuple[list[tuple[int, int]], list[int]]]:
        # a sequence of dice from `remaining` that carries a checker from src to seg.dst
        tried: set[int] = set()
        for i, die in enumerate(remaining):
            if die in tried:
                continue
            tried.add(die)
            to = src - die
            left = remaining[:i] + remaining[i + 1:]
            if to == seg.dst or (seg.dst == 0 and to < 0):
                yield [(src, die)], left
            elif to > seg.dst and to > 0:
                for more, left2 in split(to, left):
                    yield [(src, die), *more], left2

    for steps, left in split(seg.src, dice):
        for tail in _decompositions(rest, left):
            yield [steps, *tail]


def _interleavings(chains: list[list[tuple[int, int]]]) -> Iterator[list[tuple[int, int]]]:
    """Every order of all steps that keeps each chain's own steps in order."""
    labels = [i for i, chain in enumerate(chains) for _ in chain]
    seen: set[tuple[int, ...]] = set()
    for order in permutations(labels):
        if order in seen:
            continue
        seen.add(order)
        cursor = [0] * len(chains)
        out = []
        for i in order:
            out.append(chains[i][cursor[i]])
            cursor[i] += 1
        yield out


class _Trial(NamedTuple):
    key: tuple[tuple[int, ...], tuple[int, ...]] | None
    hits: frozenset[int]
    used: int
    violation: Violation | None
    depth: int


def _simulate(v: Variant, pos: Position, order: list[tuple[int, int]]) -> _Trial:
    me = list(pos.me)
    opp = list(pos.opp)
    table = opponent_point_map(v)
    floor = head_floor(pos.me, pos.dice) if v.head_rule else None
    hits: set[int] = set()
    for depth, (src, die) in enumerate(order):
        bad = step_violation(v, me, opp, src, die, floor)
        if bad is not None:
            return _Trial(None, frozenset(), depth, bad, depth)
        dst = max(src - die, 0)
        me[src] -= 1
        me[dst] += 1
        if dst and opp[table[dst]]:
            opp[table[dst]] -= 1
            opp[25] += 1
            hits.add(dst)
    return _Trial((tuple(me), tuple(opp)), frozenset(hits), len(order), None, len(order))


def apply_move(pos: Position, text: str) -> Play:
    """Find the legal play that `text` spells in `pos` (which must have dice).

    Raises MoveSyntaxError (not notation), IllegalMoveError (with the rule it
    breaks where one rule does) or AmbiguousMoveError (several plays fit;
    hit marks or intermediate points tell them apart).
    """
    segments = parse_move(text)
    plays = legal_plays(pos)
    by_key = {(p.raw.me, p.raw.opp): p for p in plays}
    v = pos.rules
    if not segments:
        if len(plays) == 1 and plays[0].is_pass:
            return plays[0]
        raise IllegalMoveError(f"the roll {_dice(pos)} can be played; passing is not allowed",
                               v.cite("G7"))
    if len(plays) == 1 and plays[0].is_pass:
        raise IllegalMoveError(f"no die of {_dice(pos)} can be played: the only play is 'pass'",
                               v.cite("G7"))
    dice = list(pos.dice) * (2 if pos.dice[0] == pos.dice[1] else 1)
    marks = frozenset(s.dst for s in segments if s.hit)
    matches: dict[tuple[tuple[int, ...], tuple[int, ...]], frozenset[int]] = {}
    trials: list[_Trial] = []
    fitted = False
    for chains in _decompositions(segments, dice):
        fitted = True
        for order in _interleavings(chains):
            trial = _simulate(v, pos, order)
            trials.append(trial)
            if trial.key is not None and trial.key in by_key:
                matches.setdefault(trial.key, trial.hits)
    if not fitted:
        raise IllegalMoveError(f"{text.strip()!r} does not fit the dice {_dice(pos)}", "G6")
    if marks:
        marked = {k: h for k, h in matches.items() if marks <= h}
        if not marked and matches:
            raise IllegalMoveError(f"{text.strip()!r} marks a hit where none happens",
                                   v.cite("J4"))
        matches = marked
    if len(matches) > 1:
        exact = {k: h for k, h in matches.items() if h == marks}
        if len(exact) == 1:
            matches = exact
    if len(matches) == 1:
        return by_key[next(iter(matches))]
    if len(matches) > 1:
        candidates = sorted(by_key[k].move for k in matches)
        raise AmbiguousMoveError(
            f"{text.strip()!r} fits several plays: {'; '.join(candidates)}", candidates)
    raise _explain_failure(pos, text.strip(), trials, plays)


def _dice(pos: Position) -> str:
    return f"{pos.dice[0]}-{pos.dice[1]}"


def _explain_failure(pos: Position, text: str, trials: list[_Trial], plays: list[Play]
                     ) -> IllegalMoveError:
    """Name the rule an unmatched spelling breaks: a step rule, G7 or J10."""
    legal_steps = [t for t in trials if t.violation is None]
    g7 = pos.rules.cite("G7")
    if legal_steps:
        most = max(p.dice_used for p in plays)
        used = max(t.used for t in legal_steps)
        if used < most:
            return IllegalMoveError(f"{text!r} plays {used} of the dice but {most} can be played",
                                    g7)
        if most == 1 and pos.dice[0] != pos.dice[1]:
            return IllegalMoveError(
                f"only one die can be played, and the higher ({max(pos.dice)}) must be", g7)
        if pos.rules.most_borne_off:
            off = max(p.borne_off for p in plays)
            return IllegalMoveError(
                f"{text!r} wastes pips: a play that bears off {off} checker(s) must be chosen",
                "J10")
        return IllegalMoveError(f"{text!r} is not a legal play", g7)
    deepest = max(t.depth for t in trials)
    reasons = Counter(t.violation for t in trials if t.depth == deepest and t.violation)
    violation = reasons.most_common(1)[0][0]
    return IllegalMoveError(violation.message, violation.rule)
