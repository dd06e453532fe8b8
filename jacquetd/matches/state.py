"""The state machine of one hosted match, over the rules core's `Match` and `Game`.

`HostedMatch` knows nothing of tokens, clients or storage: it takes actions
by seat (0 or 1), checks that the seat may take them now, applies them and
returns the events they caused. Everything it does is a function of its
configuration, its seed and the actions applied so far, so the state is
rebuilt exactly by replaying the action log (`MatchStore` keeps that log).

Automatic steps are part of the action that causes them: the opening roll of
a new game (seeded dice), the next game after a game ends, and the pass of a
roll that cannot be played.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from jacquetd_protocol import records
from jacquetd_protocol.errors import ErrorCode

from jacquetd.errors import to_protocol_error
from jacquetd.rules import (
    AmbiguousMoveError,
    DiceSource,
    Game,
    GameStateError,
    IllegalMoveError,
    Match,
    MoveSyntaxError,
    Position,
    find_variant,
    legal_plays,
)
from jacquetd.rules.scoring import RESULT_NAMES

from .errors import MatchError, bad_argument

DICE_MODES = ("seeded", "supplied")
SEAT_KINDS = ("client", "bot")
#: Action kinds of the log. `opening` is the supplied opening roll (both dice).
ACTION_KINDS = ("opening", "roll", "move", "double", "take", "drop", "resign", "accept",
                "reject")
PHASES = ("opening", "roll", "double", "move", "resign", "over")


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
        d: dict[str, Any] = {"kind": self.kind, "side": self.side}
        if self.dice is not None:
            d["dice"] = list(self.dice)
        if self.move is not None:
            d["move"] = self.move
        if self.value is not None:
            d["value"] = self.value
        return d

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
    acts: list[Act] = field(init=False, default_factory=list)
    games: list[records.GameRecord] = field(init=False, default_factory=list)

    def __post_init__(self) -> None:
        c = self.config
        if (self.seed is None) != (c.dice == "supplied"):
            raise ValueError("a seeded match needs a seed; a supplied-dice match has none")
        self.rules = Match(c.variant, c.length, c.cube, c.crawford,
                           seed=self.seed if self.seed is not None else 0)

    # -- reading -----------------------------------------------------------------------

    @property
    def game(self) -> Game:
        return self.rules.games[-1]

    @property
    def over(self) -> bool:
        return self.rules.over

    @property
    def phase(self) -> str:
        if not self.rules.games or self.over:
            return "over" if self.over else "opening"
        g = self.game
        if g.phase not in ("over", "opening") and g.pending_resign is not None:
            return "resign"
        return g.phase

    def to_act(self) -> int | None:
        """The side that must act now; None when over or awaiting a supplied opening roll
        (then either side may roll)."""
        ph = self.phase
        g = self.game if self.rules.games else None
        if g is None or ph in ("over", "opening"):
            return None
        if ph == "double":
            return 1 - g.turn
        if ph == "resign":
            assert g.pending_resign is not None
            return 1 - g.pending_resign[0]
        return g.turn

    def may(self, side: int) -> list[str]:
        """What `side` may do now, as action names: roll, double, move, take, drop,
        resign, accept, reject."""
        ph = self.phase
        if ph == "over":
            return []
        g = self.game
        if ph == "opening":
            return ["roll"] if self.config.dice == "supplied" else []
        if ph == "double":
            return ["take", "drop"] if side != g.turn else []
        if ph == "resign":
            assert g.pending_resign is not None
            return ["accept", "reject"] if side != g.pending_resign[0] else []
        if side != g.turn:
            return ["resign"]
        if ph == "roll":
            return ["roll", "double", "resign"] if g.may_double() else ["roll", "resign"]
        return ["move", "resign"]

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
        ph = self.phase
        if side is None:
            if ph == "opening" and kind == "roll" and self.config.dice == "supplied":
                return
            raise MatchError("forbidden", "only a seat may do this")
        if kind in self.may(side):
            return
        g = self.game
        actor = self.to_act()
        if actor is not None and actor != side:
            raise MatchError("out_of_turn", f"side {actor} must act now ({ph})")
        if ph == "resign":
            raise MatchError("bad_state", "a resignation awaits its answer")
        if ph == "double":
            raise MatchError("bad_state", "a double awaits the answer: take or drop",
                             rule="C2")
        if kind == "double":
            if not g.cube_enabled:
                raise MatchError("bad_state", "the cube is off in this match", rule="C1")
            if g.match is not None and g.match.crawford:
                raise MatchError("bad_state", "no doubling in the Crawford game", rule="C5")
            if ph == "move":
                raise MatchError("bad_state", "a double is offered before rolling", rule="C2")
            if g.cube_owner is not None and g.cube_owner != side:
                raise MatchError("bad_state", "the opponent owns the cube", rule="C2")
        if kind in ("take", "drop"):
            raise MatchError("bad_state", "no double awaits an answer", rule="C2")
        if kind in ("accept", "reject"):
            raise MatchError("bad_state", "no resignation awaits an answer")
        if ph == "opening":
            raise MatchError("bad_state", "the game awaits its opening roll")
        raise MatchError("bad_state", f"cannot {kind} now (phase {ph})")

    # -- acting ------------------------------------------------------------------------

    def begin(self) -> list[dict[str, Any]]:
        """Start the first game; returns its events."""
        if self.rules.games:
            raise RuntimeError("the match has begun")
        return self._next_game()

    def apply(self, act: Act) -> tuple[Act, list[dict[str, Any]]]:
        """Check and apply one action; returns the action as logged (dice rolled,
        canonical move) and its events. Nothing changes when MatchError is raised."""
        kind = act.kind
        self.check(act.side, "roll" if kind == "opening" else kind)
        g = self.game
        rec = self.games[-1]
        events: list[dict[str, Any]] = []
        side = act.side
        try:
            if kind == "opening":
                if self.config.dice != "supplied" or act.dice is None:
                    raise bad_argument("dice", "the opening roll needs both dice")
                d0, d1 = act.dice
                if d0 == d1:
                    raise bad_argument("dice", "a tied opening roll is rolled again; "
                                       "supply the roll that decided")
                g.dice = DiceSource(script=[(d0, d1)])
                g.start()
                rec.opening = (d0, d1)
                events.append(self._event("opening", dice=[d0, d1], side=g.turn))
                logged = act
            elif kind == "roll":
                assert side is not None
                if self.config.dice == "supplied":
                    if act.dice is None:
                        raise bad_argument("dice", "this match's dice are supplied")
                    dice = g.roll(act.dice)
                else:
                    dice = g.roll()
                    if act.dice is not None and tuple(act.dice) != dice:
                        raise RuntimeError(f"replay diverged: rolled {dice}, logged {act.dice}")
                logged = replace(act, dice=dice)
                rec.actions.append(records.Action(side, "roll", dice=dice))
                events.append(self._event("roll", side=side, dice=list(dice)))
            elif kind == "move":
                assert side is not None and act.move is not None
                move_dice = g.rolled
                play = g.play(act.move)
                logged = replace(act, move=play.move)
                rec.actions.append(records.Action(side, "move", move=play.move))
                events.append(self._event("move", side=side, move=play.move,
                                          dice=list(move_dice or ())))
            elif kind == "double":
                assert side is not None
                g.double()
                logged = act
                rec.actions.append(records.Action(side, "double", value=g.cube_value * 2))
                events.append(self._event("double", side=side, value=g.cube_value * 2))
            elif kind in ("take", "drop"):
                assert side is not None
                if kind == "take":
                    g.take()
                else:
                    g.drop()
                logged = act
                rec.actions.append(records.Action(side, kind))
                events.append(self._event(kind, side=side, value=g.cube_value))
            elif kind == "resign":
                assert side is not None
                names = result_names(self.config.variant)
                if act.value not in names:
                    raise bad_argument("points", f"this variant's results are "
                                       f"{', '.join(f'{k} ({v})' for k, v in names.items())}")
                g.resign(side, act.value)
                logged = act
                rec.actions.append(records.Action(side, "resign", value=act.value))
                events.append(self._event("resign", side=side, points=act.value,
                                          name=names[act.value],
                                          value=act.value * g.cube_value))
            elif kind in ("accept", "reject"):
                assert side is not None
                g.answer_resign(kind == "accept")
                logged = act
                rec.actions.append(records.Action(side, kind))
                events.append(self._event(kind, side=side))
            else:
                raise bad_argument("kind", f"unknown action {kind!r}")
        except (MoveSyntaxError, AmbiguousMoveError, IllegalMoveError, GameStateError) as exc:
            # a game-state error here means check() missed it: the rules disagree
            raise MatchError.of(to_protocol_error(exc, game_state=ErrorCode.BAD_STATE)) from None
        self.acts.append(logged)
        events.extend(self._after())
        return logged, events

    # -- internals ---------------------------------------------------------------------

    def _event(self, kind: str, **fields: Any) -> dict[str, Any]:
        return {"type": kind, "game": len(self.rules.games), **fields}

    def _after(self) -> list[dict[str, Any]]:
        """Automatic steps: the pass of an unplayable roll, the end of a game, the next
        game."""
        g = self.game
        events: list[dict[str, Any]] = []
        if g.phase == "move" and g.pending_resign is None:
            plays = legal_plays(g.position())
            if len(plays) == 1 and plays[0].is_pass:
                side = g.turn
                dice = g.rolled
                g.play(plays[0])
                self.games[-1].actions.append(records.Action(side, "move", move=""))
                events.append(self._event("move", side=side, move="", dice=list(dice or ()),
                                          forced=True))
        if g.result is None:
            return events
        r = g.result
        self.rules.record_result()
        self.games[-1].result = records.GameResult(r.winner, r.points, r.reason, r.name)
        events.append(self._event("game_over", winner=r.winner, points=r.points,
                                  result=r.result, reason=r.reason, name=r.name,
                                  score=list(self.score())))
        if self.rules.over:
            over = self._event("match_over", winner=self.rules.winner, score=list(self.score()))
            if self.seed is not None:
                over["seed"] = self.seed
            events.append(over)
            return events
        return events + self._next_game()

    def _next_game(self) -> list[dict[str, Any]]:
        g = self.rules.new_game()
        crawford = bool(g.match is not None and g.match.crawford)
        self.games.append(records.GameRecord(len(self.rules.games), self.score(), crawford))
        events = [self._event("game_start", score=list(self.score()), crawford=crawford)]
        if self.config.dice == "seeded":
            d0, d1 = g.start()
            self.games[-1].opening = (d0, d1)
            events.append(self._event("opening", dice=[d0, d1], side=g.turn))
            events.extend(self._after())
        return events
