"""The state machine of one hosted match, over the rules core's `Match` and `Game`.

`HostedMatch` knows nothing of tokens, clients or storage: it takes actions
by seat (0 or 1), checks that the seat may take them now, applies them and
returns the events they caused. Everything it does is a function of its
configuration, its seed and the actions applied so far, so the state is
rebuilt exactly by replaying the action log (`MatchStore` keeps that log).

The flow of the games is the engine's (`jacquetd.rules.driver.Flow`): it says
who may do what, applies each action and takes the automatic steps, which are
part of the action that causes them: the opening roll of a new game (seeded
dice), the next game after a game ends, and the pass of a roll that cannot be
played. This module turns the steps into events and records.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from jacquetd_protocol import records
from jacquetd_protocol.errors import ErrorCode

from jacquetd.errors import to_protocol_error
from jacquetd.rules import (
    AmbiguousMoveError,
    Game,
    GameStateError,
    IllegalMoveError,
    Match,
    MoveSyntaxError,
    Position,
    find_variant,
    legal_plays,
)
from jacquetd.rules.driver import Flow, FlowStep
from jacquetd.rules.scoring import RESULT_NAMES

from .errors import MatchError, bad_argument

#: Action kinds of the log. `opening` is the supplied opening roll (both dice).
ACTION_KINDS = ("opening", "roll", "move", "double", "take", "drop", "resign", "accept",
                "reject")


@dataclass(frozen=True)
class Seat:
    """Who plays one side: a client holding the seat's token, or a bot level the daemon
    plays. `name` is shown to people and used by `match_list`'s `player` filter."""

    kind: str = "client"
    level: str | None = None
    name: str = ""

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"player": self.kind, "name": self.name}
        if self.level is not None:
            d["level"] = self.level
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Seat:
        return cls(d["player"], d.get("level"), d.get("name", ""))


@dataclass(frozen=True)
class MatchConfig:
    """What `match_new` fixed: variant, length (0: money play, a single game), cube,
    Crawford rule, dice mode, the two seats and the bots' time per decision."""

    variant: str = "jacquet"
    length: int = 0
    cube: bool = False
    crawford: bool = True
    dice: str = "seeded"
    seats: tuple[Seat, Seat] = (Seat(), Seat())
    bot_time_ms: int = 5000

    def to_dict(self) -> dict[str, Any]:
        return {"variant": self.variant, "length": self.length, "cube": self.cube,
                "crawford": self.crawford, "dice": self.dice,
                "seats": [s.to_dict() for s in self.seats], "bot_time_ms": self.bot_time_ms}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> MatchConfig:
        s0, s1 = (Seat.from_dict(s) for s in d["seats"])
        return cls(d["variant"], d["length"], d["cube"], d["crawford"], d["dice"], (s0, s1),
                   d["bot_time_ms"])


@dataclass(frozen=True)
class Act:
    """One entry of the action log: `side` acted (`opening` has side None), with `dice`
    (opening: side 0's die, side 1's; roll: the dice rolled), `move` (canonical text
    once applied) or `value` (resign: 1-3)."""

    kind: str
    side: int | None = None
    dice: tuple[int, int] | None = None
    move: str | None = None
    value: int | None = None

    def to_dict(self) -> dict[str, Any]:
        given = {"dice": None if self.dice is None else list(self.dice), "move": self.move,
                 "value": self.value}
        return {"kind": self.kind, "side": self.side,
                **{k: v for k, v in given.items() if v is not None}}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Act:
        dice = d.get("dice")
        return cls(d["kind"], d.get("side"), (dice[0], dice[1]) if dice else None,
                   d.get("move"), d.get("value"))


def result_names(variant: str) -> dict[int, str]:
    """1, 2, 3 -> the variant's names of results (single, marcia, ...)."""
    return dict(RESULT_NAMES[find_variant(variant).name])


@dataclass
class HostedMatch:
    """One match in play. `seed` is None in supplied-dice mode."""

    config: MatchConfig
    seed: int | None
    rules: Match = field(init=False)
    flow: Flow = field(init=False)
    acts: list[Act] = field(init=False, default_factory=list)
    games: list[records.GameRecord] = field(init=False, default_factory=list)

    def __post_init__(self) -> None:
        c = self.config
        if (self.seed is None) != (c.dice == "supplied"):
            raise ValueError("a seeded match needs a seed; a supplied-dice match has none")
        self.rules = Match(c.variant, c.length, c.cube, c.crawford,
                           seed=self.seed if self.seed is not None else 0)
        self.flow = Flow(self.rules, autoplay="pass", supplied=c.dice == "supplied")

    # -- reading -----------------------------------------------------------------------

    @property
    def game(self) -> Game:
        return self.rules.games[-1]

    @property
    def over(self) -> bool:
        return self.rules.over

    @property
    def phase(self) -> str:
        return self.flow.phase

    def to_act(self) -> int | None:
        """The side that must act now; None when over or awaiting a supplied opening roll
        (then either side may roll)."""
        return self.flow.to_act()

    def may(self, side: int) -> list[str]:
        """What `side` may do now, as action names: roll, double, move, take, drop,
        resign, accept, reject."""
        return self.flow.may(side)

    def position(self, side: int | None = None) -> Position:
        """The position seen by `side` (default: the side on turn)."""
        return self.game.position(side)

    def legal_moves(self) -> list[str]:
        """Canonical texts of the legal plays, when a move is due."""
        if self.phase != "move":
            return []
        return [p.move for p in legal_plays(self.game.position())]

    def score(self) -> tuple[int, int]:
        return self.rules.score[0], self.rules.score[1]

    def winner(self) -> int | None:
        return self.rules.winner

    # -- checking ----------------------------------------------------------------------

    def check(self, side: int | None, kind: str) -> None:
        """Raise MatchError unless `side` may do `kind` (a `may` name) now.

        `out_of_turn` when another side must act now; `bad_state` when it is this
        side's turn (or nobody's) but `kind` is not possible (with the rule, if one).
        """
        if self.over:
            raise MatchError("match_over", "the match is over")
        if side is None:
            if kind == "roll" and self.flow.pending() == ("opening", None):
                return
            raise MatchError("forbidden", "only a seat may do this")
        if kind in self.may(side):
            return
        actor = self.to_act()
        if actor is not None and actor != side:
            raise MatchError("out_of_turn", f"side {actor} must act now ({self.phase})")
        refused = self.flow.refusal(side, kind)
        raise MatchError("bad_state", refused.message, rule=refused.rule)

    # -- acting ------------------------------------------------------------------------

    def begin(self) -> list[dict[str, Any]]:
        """Start the first game; returns its events."""
        if self.rules.games:
            raise RuntimeError("the match has begun")
        return self._advance()

    def apply(self, act: Act) -> tuple[Act, list[dict[str, Any]]]:
        """Check and apply one action; returns the action as logged (dice rolled,
        canonical move) and its events. Nothing changes when MatchError is raised."""
        kind = act.kind
        self.check(act.side, "roll" if kind == "opening" else kind)
        if kind not in ACTION_KINDS:
            raise bad_argument("kind", f"unknown action {kind!r}")
        supplied = self.config.dice == "supplied"
        if kind == "opening" and (not supplied or act.dice is None):
            raise bad_argument("dice", "the opening roll needs both dice")
        if kind == "opening" and act.dice is not None and act.dice[0] == act.dice[1]:
            raise bad_argument("dice", "a tied opening roll is rolled again; "
                               "supply the roll that decided")
        if kind == "roll" and supplied and act.dice is None:
            raise bad_argument("dice", "this match's dice are supplied")
        if kind == "resign":
            names = result_names(self.config.variant)
            if act.value not in names:
                raise bad_argument("points", f"this variant's results are "
                                   f"{', '.join(f'{k} ({v})' for k, v in names.items())}")
        try:
            step = self.flow.apply(act.side, "roll" if kind == "opening" else kind,
                                   dice=act.dice if supplied else None, move=act.move,
                                   value=act.value)
        except (MoveSyntaxError, AmbiguousMoveError, IllegalMoveError, GameStateError) as exc:
            # a game-state error here means check() missed it: the rules disagree
            raise MatchError.of(to_protocol_error(exc, game_state=ErrorCode.BAD_STATE)) from None
        if kind == "roll" and not supplied and act.dice is not None and act.dice != step.dice:
            raise RuntimeError(f"replay diverged: rolled {step.dice}, logged {act.dice}")
        logged = act
        if kind == "roll":
            logged = replace(act, dice=step.dice)
        elif kind == "move":
            assert step.play is not None
            logged = replace(act, move=step.play.move)
        self.acts.append(logged)
        return logged, [*self._report(step), *self._advance()]

    # -- internals ---------------------------------------------------------------------

    def _event(self, kind: str, **fields: Any) -> dict[str, Any]:
        return {"type": kind, "game": len(self.rules.games), **fields}

    def _advance(self) -> list[dict[str, Any]]:
        """The automatic steps that follow (an unplayable roll passed, the end of a game,
        the next game, its seeded opening roll, the end of the match), reported."""
        events = []
        while (step := self.flow.advance()) is not None:
            events.extend(self._report(step))
        return events

    def _report(self, step: FlowStep) -> list[dict[str, Any]]:
        """The events of `step`, and its entry in the game's record."""
        kind, side = step.kind, step.side
        if kind == "game_start":
            g = self.game
            crawford = bool(g.match is not None and g.match.crawford)
            self.games.append(records.GameRecord(len(self.rules.games), self.score(),
                                                 crawford))
            return [self._event("game_start", score=list(self.score()), crawford=crawford)]
        if kind == "match_over":
            over = self._event("match_over", winner=self.rules.winner,
                               score=list(self.score()))
            if self.seed is not None:
                over["seed"] = self.seed
            return [over]
        rec = self.games[-1]
        if kind == "game_over":
            r = self.game.result
            assert r is not None
            rec.result = records.GameResult(r.winner, r.points, r.reason, r.name)
            return [self._event("game_over", winner=r.winner, points=r.points,
                                result=r.result, reason=r.reason, name=r.name,
                                score=list(self.score()))]
        if kind == "opening":
            assert step.dice is not None
            rec.opening = step.dice
            return [self._event("opening", dice=list(step.dice), side=side)]
        assert side is not None
        if kind == "roll":
            assert step.dice is not None
            rec.actions.append(records.Action(side, "roll", dice=step.dice))
            return [self._event("roll", side=side, dice=list(step.dice))]
        if kind == "move":
            assert step.play is not None
            move = step.play.move
            rec.actions.append(records.Action(side, "move", move=move))
            extra = {"forced": True} if step.forced else {}
            return [self._event("move", side=side, move=move, dice=list(step.dice or ()),
                                **extra)]
        if kind == "double":
            rec.actions.append(records.Action(side, "double", value=step.value))
            return [self._event("double", side=side, value=step.value)]
        if kind in ("take", "drop"):
            rec.actions.append(records.Action(side, kind))
            return [self._event(kind, side=side, value=step.value)]
        if kind == "resign":
            assert step.value is not None
            rec.actions.append(records.Action(side, "resign", value=step.value))
            return [self._event("resign", side=side, points=step.value,
                                name=result_names(self.config.variant)[step.value],
                                value=step.value * self.game.cube_value)]
        rec.actions.append(records.Action(side, kind))
        return [self._event(kind, side=side)]
