"""Match records read back through the rules core: replay, checks, positions for analysis.

`protocol.records` reads and writes the text; this module gives it meaning:
`replay(record)` plays every action of every game on `jacquetd.rules` and
yields each step with the position it was taken in, raising `ReplayError`
(with the game and action) at the first action the rules refuse or the first
result that disagrees. `audit_dice(record)` checks that a seeded record's dice
are exactly those its revealed seed rolls.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from jacquetd_protocol.records import Action, MatchRecord

from jacquetd.rules import DiceSource, Game, Match, Position, RulesError


class ReplayError(ValueError):
    """A record the rules do not accept: `game` (1-based) and `index` (of the action in
    that game, -1 for the game itself) say where."""

    def __init__(self, message: str, game: int, index: int = -1) -> None:
        self.game = game
        self.index = index
        where = f"game {game}" + (f", action {index + 1}" if index >= 0 else "")
        super().__init__(f"{where}: {message}")


@dataclass(frozen=True)
class Step:
    """One action of a record, with the position before it, seen by the side acting (for
    a move: the side on roll with its dice)."""

    game: int
    index: int
    action: Action
    position: Position


def _match_of(record: MatchRecord) -> Match:
    return Match(record.variant, record.length, record.cube, record.crawford, seed=0)


def _actor(g: Game, kind: str) -> int | None:
    """The side whose turn it is to take an action of `kind` (C2: the doubler's opponent
    takes or drops; the resigner's opponent answers a resignation), None for a
    resignation, which either side may offer."""
    if kind in ("take", "drop"):
        return 1 - g.turn
    if kind in ("accept", "reject"):
        return None if g.pending_resign is None else 1 - g.pending_resign[0]
    return None if kind == "resign" else g.turn


def _apply(g: Game, a: Action) -> None:
    """Apply `a` to `g`; RulesError when the rules refuse it or it is not `a.side`'s
    to take (checked after the rules' checks, but before a move is read)."""
    actor = _actor(g, a.kind)
    if a.kind == "move" and a.side != actor:
        raise RulesError(f"side {a.side} moves on side {actor}'s turn")
    if a.kind == "roll":
        assert a.dice is not None
        g.roll(a.dice)
    elif a.kind == "move":
        assert a.move is not None
        g.play(a.move)
    elif a.kind == "double":
        g.double()
        if g.cube_value * 2 != a.value:
            raise RulesError(f"the double raises the cube to {g.cube_value * 2}, not {a.value}")
    elif a.kind == "take":
        g.take()
    elif a.kind == "drop":
        g.drop()
    elif a.kind == "resign":
        assert a.value is not None
        g.resign(a.side, a.value)
    else:
        g.answer_resign(a.kind == "accept")
    if actor is not None and a.side != actor:
        raise RulesError(f"side {a.side} acts ({a.kind}) on side {actor}'s turn")


def replay(record: MatchRecord) -> Iterator[Step]:
    """Play the record on the rules core, yielding each step before it is applied."""
    return _replay(record, _match_of(record))


def _replay(record: MatchRecord, match: Match) -> Iterator[Step]:
    for rec in record.games:
        n = rec.number
        try:
            g = match.new_game()
        except RulesError as exc:
            raise ReplayError(exc.message, n) from None
        if (match.score[0], match.score[1]) != tuple(rec.score):
            raise ReplayError(f"score before the game is {match.score}, record says "
                              f"{list(rec.score)}", n)
        if bool(g.match is not None and g.match.crawford) != rec.crawford:
            raise ReplayError("the Crawford flag disagrees with the rules (C5)", n)
        if rec.opening is None:
            if rec.actions or rec.result:
                raise ReplayError("a game with actions needs its opening roll", n)
            return
        g.dice = DiceSource(script=[rec.opening])
        g.start()
        for i, a in enumerate(rec.actions):
            if g.phase == "over":
                raise ReplayError("the game is already over", n, i)
            yield Step(n, i, a, g.position(a.side))
            try:
                _apply(g, a)
            except RulesError as exc:
                raise ReplayError(str(exc), n, i) from None
        if rec.result is None:
            if g.result is not None:
                raise ReplayError("the game is over but the record gives no result", n)
            return
        r = g.result
        if r is None:
            raise ReplayError("the record gives a result but the game is not over", n)
        if (r.winner, r.points, r.reason) != (rec.result.winner, rec.result.points,
                                              rec.result.reason):
            raise ReplayError(f"the game ends {r.winner} wins {r.points} {r.reason}, the record "
                              f"says {rec.result.winner} wins {rec.result.points} "
                              f"{rec.result.reason}", n)
        match.record_result()
    if record.winner is not None and match.winner != record.winner:
        raise ReplayError(f"the match winner is {match.winner}, the record says "
                          f"{record.winner}", len(record.games))


def check(record: MatchRecord) -> Match:
    """Replay the whole record; returns the rules' match at its end (raises ReplayError)."""
    match = _match_of(record)
    for _ in _replay(record, match):
        pass
    return match


def positions(record: MatchRecord) -> Iterator[tuple[Step, str]]:
    """(step, move played) for every move of the record: what the analysis commands rank."""
    for step in replay(record):
        if step.action.kind == "move":
            yield step, step.action.move or ""


def audit_dice(record: MatchRecord) -> None:
    """Check that a seeded record's dice are the ones its `Seed` rolls (raises
    ReplayError); tied opening rolls are rolled again as the rules core does."""
    if record.seed is None:
        raise ReplayError("the record reveals no seed", 0)
    dice = DiceSource(record.seed)
    for rec in record.games:
        if rec.opening is None:
            return
        got = dice.opening()
        if got != rec.opening:
            raise ReplayError(f"the seed opens {got}, the record {rec.opening}", rec.number)
        for i, a in enumerate(rec.actions):
            if a.kind == "roll":
                got = dice.roll()
                if got != a.dice:
                    raise ReplayError(f"the seed rolls {got}, the record {a.dice}",
                                      rec.number, i)
