"""Game and match flow: opening rolls, turns, the cube, resignations and match scores.

`Game` keeps the state of one game with absolute sides 0 and 1 and hands out
`Position` values relative to the side to act. `Match` chains games, scores
them (C3) and applies the Crawford rule (C5). Every action is recorded, so a
game replays exactly from its seed (or its recorded dice).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from .dice import DiceSource
from .errors import GameStateError, IllegalMoveError
from .geometry import has_prime
from .movegen import Play, format_steps, legal_plays
from .notation import apply_move
from .position import Cube, CubeOwner, MatchState, Position
from .scoring import game_result, result_name
from .variants import Variant, find_variant


class Dice(Protocol):
    """Where a game's dice come from (a `DiceSource`, or any generator of the same shape)."""

    def opening(self) -> tuple[int, int]:
        """The opening throw: (side 0's die, side 1's die), never equal."""
        ...

    def roll(self) -> tuple[int, int]:
        """Two dice for the side on roll."""
        ...


@dataclass(frozen=True, slots=True)
class GameResult:
    """How a game ended: the winner (0/1), the points it scores (C3) and why."""

    winner: int
    points: int
    result: int
    """1, 2 or 3 before the cube (J12, B8, C4); 1 after a drop."""
    reason: str
    """'bear-off', 'drop' or 'resign'."""
    name: str


@dataclass
class Game:
    """One game between sides 0 and 1.

    Phases: `opening` (nobody has rolled), `roll` (the side on turn may double
    or roll), `double` (a double awaits take or drop), `move` (dice rolled),
    `resign` (a resignation awaits acceptance or rejection), `over`.
    """

    variant: str = "jacquet"
    cube_enabled: bool | None = None
    match: MatchState | None = None
    """The match state seen from side 0 (None: money play)."""
    dice: Dice = field(default_factory=DiceSource)
    sides: list[tuple[int, ...]] = field(init=False)
    """Each side's checkers (26 counts: borne off, points 1-24, the bar), side 0 first."""
    primed: list[bool] = field(init=False)
    turn: int = field(init=False, default=0)
    rolled: tuple[int, int] | None = field(init=False, default=None)
    cube_value: int = field(init=False, default=1)
    cube_owner: int | None = field(init=False, default=None)
    pending_double: bool = field(init=False, default=False)
    pending_resign: tuple[int, int] | None = field(init=False, default=None)
    result: GameResult | None = field(init=False, default=None)
    rules: Variant = field(init=False, repr=False)
    """The variant's rules (`find_variant(variant)`)."""
    _log: list[tuple[object, ...]] = field(init=False, default_factory=list, repr=False)
    """The actions so far, formatted by `history` when it is read."""
    opening_roll: tuple[int, int] | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        v = self.rules = find_variant(self.variant)
        self.variant = v.name
        if self.cube_enabled is None:
            self.cube_enabled = v.cube_default
        start = Position.initial(v.name)
        self.sides = [start.me, start.opp]
        self.primed = [False, False]

    # -- state -------------------------------------------------------------------------

    @property
    def phase(self) -> str:
        if self.result is not None:
            return "over"
        if self.pending_resign is not None:
            return "resign"
        if self.opening_roll is None:
            return "opening"
        if self.pending_double:
            return "double"
        if self.rolled is not None:
            return "move"
        return "roll"

    @property
    def history(self) -> list[str]:
        """Every action so far, one line each: `opening 52`, `0 roll 64`, `1 move 24/18
        13/11` (`pass` for a roll that cannot be played), `0 double`, `1 take`, `1 drop`,
        `0 resign 2`, `1 accept`, `1 reject`, `0 wins 2`."""
        lines = []
        for entry in self._log:
            if entry[0] == "opening":
                lines.append(f"opening {entry[1]}{entry[2]}")
            elif entry[1] == "roll":
                lines.append(f"{entry[0]} roll {entry[2]}{entry[3]}")
            elif entry[1] == "move":  # the play's steps
                assert isinstance(entry[2], tuple)
                lines.append(f"{entry[0]} move {format_steps(entry[2]) or 'pass'}")
            else:
                lines.append(" ".join(str(e) for e in entry))
        return lines

    def position(self, side: int | None = None) -> Position:
        """The position seen by `side` (default: the side on turn), with the dice if rolled."""
        me = self.turn if side is None else side
        other = 1 - me
        cube = None
        if self.cube_enabled:
            owner = (CubeOwner.CENTRE if self.cube_owner is None
                     else CubeOwner.ON_ROLL if self.cube_owner == me else CubeOwner.OPPONENT)
            cube = Cube(self.cube_value, owner, self.pending_double and me == self.turn)
        match = None
        if self.match is not None:
            match = self.match if me == 0 else self.match.swapped()
        dice = self.rolled if (self.rolled and me == self.turn) else ()
        return Position(self.variant, self.sides[me], self.sides[other],
                        dice or (), (self.primed[me], self.primed[other]), cube, match,
                        self.rules)

    def may_double(self) -> bool:
        """C2/C5: the side on turn may double now (before rolling)."""
        return (self.phase == "roll" and bool(self.cube_enabled)
                and (self.cube_owner is None or self.cube_owner == self.turn)
                and not (self.match is not None and self.match.crawford))

    # -- actions -----------------------------------------------------------------------

    def start(self) -> tuple[int, int]:
        """The opening roll (J2/B2): returns (side 0's die, side 1's die)."""
        if self.phase != "opening":
            raise GameStateError("the game has already started")
        d0, d1 = self.dice.opening()
        self.opening_roll = (d0, d1)
        self.turn = 0 if d0 > d1 else 1
        self._log.append(("opening", d0, d1))
        if self.rules.opening_plays_opening_dice:
            self.rolled = (max(d0, d1), min(d0, d1))
        return d0, d1

    def roll(self, dice: tuple[int, int] | None = None) -> tuple[int, int]:
        """Roll for the side on turn (or use `dice`, for supplied-dice play)."""
        if self.phase != "roll":
            raise GameStateError(f"cannot roll now (phase {self.phase})")
        if dice is None:
            rolled = self.dice.roll()
        elif len(dice) != 2 or not all(1 <= d <= 6 for d in dice):
            raise GameStateError(f"bad dice {dice}", "G6")
        else:
            rolled = dice
        self.rolled = (rolled[0], rolled[1])
        self._log.append((self.turn, "roll", rolled[0], rolled[1]))
        return self.rolled

    def legal_plays(self) -> list[Play]:
        if self.phase != "move":
            raise GameStateError(f"no move to make now (phase {self.phase})")
        return legal_plays(self.position())

    def play(self, move: str | Play) -> Play:
        """Play a move given as text or as one of `legal_plays()`; raises IllegalMoveError."""
        if self.phase != "move":
            raise GameStateError(f"no move to make now (phase {self.phase})")
        pos = self.position()
        if isinstance(move, Play):
            chosen = next((p for p in legal_plays(pos) if p == move), None)
            if chosen is None:
                raise IllegalMoveError(f"{move.move!r} is not a legal play here")
        else:
            chosen = apply_move(pos, move)
        return self.make(chosen)

    def make(self, chosen: Play) -> Play:
        """Play `chosen`, a play generated from this game's `position()` with its dice (one
        of `legal_plays()`, or a `generate_raw` play of that position): unlike `play`, the
        play is not looked up among the legal plays again."""
        if self.phase != "move":
            raise GameStateError(f"no move to make now (phase {self.phase})")
        me, other = self.turn, 1 - self.turn
        self.sides[me] = chosen.raw.me
        self.sides[other] = chosen.raw.opp
        v = self.rules
        if v.tracks_primes and has_prime(self.sides[me]):
            self.primed[me] = True
        self._log.append((me, "move", chosen.raw.steps))
        self.rolled = None
        if self.sides[me][0] == 15:
            res = game_result(v, self.sides[me], self.sides[other], self.primed[me])
            self._finish(me, res, "bear-off", result_name(v, res))
        else:
            self.turn = other
        return chosen

    def double(self) -> None:
        if not self.may_double():
            raise GameStateError("the side on turn may not double now", "C2")
        self.pending_double = True
        self._log.append((self.turn, "double"))

    def take(self) -> None:
        if self.phase != "double":
            raise GameStateError("no double to take", "C2")
        self.pending_double = False
        self.cube_value *= 2
        self.cube_owner = 1 - self.turn
        self._log.append((1 - self.turn, "take"))

    def drop(self) -> None:
        if self.phase != "double":
            raise GameStateError("no double to drop", "C2")
        self.pending_double = False
        self._log.append((1 - self.turn, "drop"))
        self._finish(self.turn, 1, "drop", "drop")

    def resign(self, side: int, result: int) -> None:
        """`side` offers to resign a game worth `result` times the cube.

        Either side may offer while the game is under way (phases roll and
        move); `result` is 1, 2 or 3 (2 at most in jacquet-be, B8, and long-nardy, N9).
        """
        if self.phase not in ("roll", "move"):
            raise GameStateError(f"cannot resign now (phase {self.phase})")
        if side not in (0, 1):
            raise GameStateError("side must be 0 or 1")
        most = self.rules.max_result
        if not 1 <= result <= most:
            raise GameStateError(f"a resignation in {self.variant} is worth 1 to {most}",
                                 self.rules.cite("B8") if most == 2 else "J12")
        self.pending_resign = (side, result)
        self._log.append((side, "resign", result))

    def answer_resign(self, accept: bool) -> None:
        if self.pending_resign is None:
            raise GameStateError("no resignation to answer")
        side, result = self.pending_resign
        self.pending_resign = None
        self._log.append((1 - side, "accept" if accept else "reject"))
        if accept:
            self._finish(1 - side, result, "resign", result_name(self.rules, result))

    def _finish(self, winner: int, result: int, reason: str, name: str) -> None:
        self.result = GameResult(winner, result * self.cube_value, result, reason, name)
        self._log.append((winner, "wins", self.result.points))


@dataclass
class Match:
    """A match to `length` points (0: a single money game), scored by C3 and C5."""

    variant: str = "jacquet"
    length: int = 0
    cube_enabled: bool | None = None
    crawford_rule: bool = True
    seed: int | None = None
    score: list[int] = field(default_factory=lambda: [0, 0])
    games: list[Game] = field(default_factory=list)
    crawford_done: bool = False
    dice: DiceSource = field(init=False)

    def __post_init__(self) -> None:
        self.variant = find_variant(self.variant).name
        self.dice = DiceSource(self.seed)
        self.seed = self.dice.seed

    @property
    def over(self) -> bool:
        if self.length == 0:
            return bool(self.games) and self.games[-1].result is not None
        return max(self.score) >= self.length

    @property
    def winner(self) -> int | None:
        if not self.over:
            return None
        if self.length == 0:
            result = self.games[-1].result
            return result.winner if result else None
        return 0 if self.score[0] >= self.length else 1

    def new_game(self) -> Game:
        """Start the next game (after the previous one ended)."""
        if self.games and self.games[-1].result is None:
            raise GameStateError("the current game is not over")
        if self.over:
            raise GameStateError("the match is over")
        state = None
        if self.length:
            crawford = False
            if self.crawford_rule and not self.crawford_done and self.length - 1 in self.score:
                crawford = True
                self.crawford_done = True
            state = MatchState(self.length, (self.score[0], self.score[1]), crawford)
        game = Game(self.variant, self.cube_enabled, state, self.dice)
        self.games.append(game)
        return game

    def record_result(self) -> None:
        """Add the finished current game's points to the score (C3)."""
        game = self.games[-1]
        if game.result is None:
            raise GameStateError("the current game is not over")
        self.score[game.result.winner] += game.result.points
