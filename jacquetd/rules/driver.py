"""Playing games and matches: the one game loop of the engine, step by step and whole.

A `Game` (and a `Match`, for matches) holds the state and enforces the rules of
each action: the opening roll (J2, B2), rolls, the cube (C2, C5), resignations,
the result of a game (J12, B8, C4) and the match score (C3). `Flow` is the loop
over them, one step at a time: it says which decision is pending and who may
take which (`pending`, `to_act`, `may`), applies one decision (`apply`) and
takes the steps the rules fix without a decision (`advance`): the opening roll
of a game with seeded dice, a roll that leaves one play, the score of an ended
game, the next game (the Crawford game by C5) and the end of the match.

`play_game` and `play_match` run a `Flow` to the end, asking the side to act's
`Player` for each decision; the engine's non-interactive players (`bot_match`,
self-play, the league's games next to the bots) play through them. Hosted
matches, whose decisions come from clients one request at a time, apply each
request to their `Flow` and report its steps.

Players are small objects (`Player`) that see the game read-only. Hooks
(`on_turn`, `on_move`) let a caller record the game, judge the luck of each roll
or stop a game: an exception raised by a player or a hook ends the loop.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from .dice import DiceSource
from .errors import GameStateError
from .game import Game, GameResult, Match
from .movegen import Play, RawPlay, generate_raw
from .position import Position

#: The longest game `play_game` plays by default: a game still running after this
#: many moves is stopped with GameStateError (backgammon has positions where both
#: sides pass for ever: two closed boards with a checker on each bar).
MAX_MOVES = 2000

#: The decisions of a game, as `Flow.may` names them.
DECISIONS = ("roll", "double", "take", "drop", "move", "resign", "accept", "reject")


@dataclass(frozen=True, slots=True)
class FlowStep:
    """One thing that happened in a game or match, decided or automatic.

    `kind` is a decision (`DECISIONS`; `roll` of a supplied opening is `opening`) or
    an automatic step: `game_start`, `opening`, `move` (with `forced`), `game_over`,
    `match_over`. `side` is the side that acted (`opening`: the side that starts;
    `game_over`, `match_over`: the winner); `dice` the dice rolled (`opening`: side 0's
    die, side 1's; `move`: the roll played); `play` the play made; `value` the cube
    offered (`double`), the cube after the answer (`take`, `drop`) or the result
    offered (`resign`)."""

    kind: str
    side: int | None = None
    dice: tuple[int, int] | None = None
    play: Play | None = None
    value: int | None = None
    forced: bool = False


class Flow:
    """The loop of one game, or of a match game after game, taken one step at a time.

    `autoplay` says which rolls are played without a decision: `forced`, every roll
    with one legal play (the engine's players); `pass`, only a roll that cannot be
    played at all (hosted matches ask their clients for every other move).
    `supplied`: the dice come with the decisions (`apply(..., dice=)`), the opening
    roll included, which is then a decision nobody in particular owes (`pending`
    is `("opening", None)`)."""

    def __init__(self, match: Match | None = None, game: Game | None = None, *,
                 autoplay: str = "forced", supplied: bool = False) -> None:
        if (match is None) == (game is None):
            raise ValueError("a flow runs a match or a single game")
        if autoplay not in ("forced", "pass"):
            raise ValueError(f"autoplay is 'forced' or 'pass', not {autoplay!r}")
        self.match = match
        self._single = game
        self.autoplay = autoplay
        self.supplied = supplied
        self._scored = 0 if match is None else len(match.games)  # games already scored
        self._done = False
        self._plays: list[RawPlay] | None = None

    # -- reading -----------------------------------------------------------------------

    @property
    def game(self) -> Game:
        """The game in play (in a match, the latest one)."""
        if self._single is not None:
            return self._single
        assert self.match is not None
        if not self.match.games:
            raise GameStateError("the match has not begun")
        return self.match.games[-1]

    @property
    def over(self) -> bool:
        if self.match is not None:
            return self.match.over
        return self.game.result is not None

    @property
    def phase(self) -> str:
        """`over`, or the game's phase: `opening`, `roll`, `double`, `move`, `resign`."""
        if self.over:
            return "over"
        if self.match is not None and not self.match.games:
            return "opening"
        return self.game.phase

    def pending(self) -> tuple[str, int | None] | None:
        """The decision awaited, as (kind, side): `opening` (supplied dice, side None),
        `roll` (the side on turn rolls, or first doubles or resigns), `move`, `take` (a
        double awaits take or drop), `accept` (a resignation awaits its answer). None when
        the match is over or an automatic step is due (`advance`)."""
        ph = self.phase
        if ph == "over":
            return None
        if ph == "opening":
            return ("opening", None) if self.supplied else None
        g = self.game
        if ph == "double":
            return "take", 1 - g.turn
        if ph == "resign":
            assert g.pending_resign is not None
            return "accept", 1 - g.pending_resign[0]
        if ph == "move" and len(self.plays()) == 1 and self._auto(self.plays()[0]):
            return None
        return ph, g.turn

    def to_act(self) -> int | None:
        """The side that must act now; None when over or awaiting a supplied opening roll."""
        ph = self.phase
        if ph in ("over", "opening"):
            return None
        g = self.game
        if ph == "double":
            return 1 - g.turn
        if ph == "resign":
            assert g.pending_resign is not None
            return 1 - g.pending_resign[0]
        return g.turn

    def may(self, side: int) -> list[str]:
        """What `side` may decide now, as `DECISIONS` names (either side may offer to
        resign while the game is under way; only the side on turn doubles, C2, C5)."""
        ph = self.phase
        if ph == "over":
            return []
        if ph == "opening":
            return ["roll"] if self.supplied else []
        g = self.game
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

    def refusal(self, side: int, kind: str) -> GameStateError:
        """Why `side`, whose turn it is (or nobody's), may not decide `kind` now (with
        the rule, if one forbids it)."""
        ph = self.phase
        if ph == "over":
            return GameStateError("the match is over")
        if ph == "resign":
            return GameStateError("a resignation awaits its answer")
        if ph == "double":
            return GameStateError("a double awaits the answer: take or drop", "C2")
        g = self.game
        if kind == "double":
            if not g.cube_enabled:
                return GameStateError("the cube is off in this match", "C1")
            if g.match is not None and g.match.crawford:
                return GameStateError("no doubling in the Crawford game", "C5")
            if ph == "move":
                return GameStateError("a double is offered before rolling", "C2")
            if g.cube_owner is not None and g.cube_owner != side:
                return GameStateError("the opponent owns the cube", "C2")
        if kind in ("take", "drop"):
            return GameStateError("no double awaits an answer", "C2")
        if kind in ("accept", "reject"):
            return GameStateError("no resignation awaits an answer")
        if ph == "opening":
            return GameStateError("the game awaits its opening roll")
        return GameStateError(f"cannot {kind} now (phase {ph})")

    def plays(self) -> list[RawPlay]:
        """The legal plays of the roll to play (phase `move`), in generation order."""
        if self._plays is None:
            g = self.game
            if g.phase != "move" or g.rolled is None:
                raise GameStateError(f"no move to make now (phase {g.phase})")
            self._plays = generate_raw(g.rules, g.sides[g.turn], g.sides[1 - g.turn],
                                       g.rolled)
        return self._plays

    # -- acting ------------------------------------------------------------------------

    def apply(self, side: int | None, kind: str, *, dice: tuple[int, int] | None = None,
              move: str | Play | None = None, value: int | None = None) -> FlowStep:
        """Apply one decision of `side` (None: the supplied opening roll, `kind` `roll`).
        `move` is text in any legal spelling or a `Play` made from the game's position
        with its dice (not looked up again); `dice` the supplied roll; `value` the result
        offered by `resign`. Raises GameStateError when `side` may not decide `kind`
        now, and the rules' errors for a bad move or result; nothing changes then."""
        if side is None:
            if kind != "roll" or self.pending() != ("opening", None):
                raise GameStateError("only a seat may do this")
            return self._opening(dice)
        if not self._turn_step(side, kind) and kind not in self.may(side):
            raise self.refusal(side, kind)
        g = self.game
        if kind == "roll":
            if self.supplied and dice is None:
                raise GameStateError("this game's dice are supplied", "G6")
            step = FlowStep("roll", side, dice=g.roll(dice if self.supplied else None))
        elif kind == "move":
            if move is None:
                raise GameStateError("a move needs a play")
            rolled = g.rolled
            play = g.make(move) if isinstance(move, Play) else g.play(move)
            step = FlowStep("move", side, dice=rolled, play=play)
        elif kind == "double":
            g.double()
            step = FlowStep("double", side, value=g.cube_value * 2)
        elif kind == "take":
            g.take()
            step = FlowStep("take", side, value=g.cube_value)
        elif kind == "drop":
            g.drop()
            step = FlowStep("drop", side, value=g.cube_value)
        elif kind == "resign":
            if value is None:
                raise GameStateError("a resignation offers a result")
            g.resign(side, value)
            step = FlowStep("resign", side, value=value)
        else:
            g.answer_resign(kind == "accept")
            step = FlowStep(kind, side)
        self._plays = None
        return step

    def advance(self) -> FlowStep | None:
        """Take the next step the rules fix without a decision, if one is due: the score
        of an ended game, the end of the match or the next game, a seeded opening roll,
        a roll played without a decision (`autoplay`). None when a decision is awaited or
        the match is over."""
        if self.match is not None and not self.match.games:
            self.match.new_game()
            return FlowStep("game_start")
        g = self.game
        if g.result is not None:
            return self._ended(g.result)
        if g.phase == "opening":
            if self.supplied:
                return None
            d0, d1 = g.start()
            return FlowStep("opening", g.turn, dice=(d0, d1))
        if g.phase == "move":
            plays = self.plays()
            if len(plays) == 1 and self._auto(plays[0]):
                side, rolled = g.turn, g.rolled
                play = g.make(Play(g.position(), plays[0]))
                self._plays = None
                return FlowStep("move", side, dice=rolled, play=play, forced=True)
        return None

    def make(self, play: Play) -> Play:
        """Play `play`, made from one of `plays()` for the side on turn, without the
        checks of `apply` (the game loop's own move)."""
        self._plays = None
        return self.game.make(play)

    # -- internals ---------------------------------------------------------------------

    def _turn_step(self, side: int, kind: str) -> bool:
        """Whether `kind` is the roll or the move the side on turn owes now: the steps of
        every turn, allowed without working out all that `may` lists."""
        if kind not in ("roll", "move"):
            return False
        g = self._single
        if g is None:
            assert self.match is not None
            if not self.match.games:
                return False
            g = self.match.games[-1]
        return side == g.turn and g.phase == kind

    def _auto(self, raw: RawPlay) -> bool:
        return self.autoplay == "forced" or not raw.steps

    def _opening(self, dice: tuple[int, int] | None) -> FlowStep:
        if dice is None:
            raise GameStateError("the opening roll needs both dice", "J2")
        if dice[0] == dice[1]:
            raise GameStateError("a tied opening roll is rolled again; supply the roll that "
                                 "decided", "J2")
        g = self.game
        g.dice = DiceSource(script=[(dice[0], dice[1])])
        d0, d1 = g.start()
        self._plays = None
        return FlowStep("opening", g.turn, dice=(d0, d1))

    def _ended(self, result: GameResult) -> FlowStep | None:
        """The step after a game ended: its score, then the end of the match or the next
        game."""
        if self.match is None:
            if self._done:
                return None
            self._done = True
            return FlowStep("game_over", result.winner)
        m = self.match
        if self._scored < len(m.games):
            m.record_result()
            self._scored = len(m.games)
            return FlowStep("game_over", result.winner)
        if m.over:
            if self._done:
                return None
            self._done = True
            return FlowStep("match_over", m.winner)
        m.new_game()
        return FlowStep("game_start")


class Player(Protocol):
    """One side's decisions. `choose` is asked only when a roll has more than one legal
    play; the other four are asked only where the rules allow the decision."""

    def choose(self, rolled: Position, plays: Sequence[RawPlay], number: int) -> RawPlay:
        """One of `plays` (the legal plays of `rolled`, the player on roll with its dice);
        `number` counts the moves of this game before this one."""
        ...

    def double(self, game: Game, side: int) -> bool:
        """Whether `side`, on turn and allowed to double (C2, C5), doubles now."""
        ...

    def take(self, game: Game, side: int) -> bool:
        """Whether `side` takes the double its opponent offers (the game in phase `double`)."""
        ...

    def resigns(self, game: Game, side: int) -> int:
        """0 to play on, else the result (1-3) `side`, on turn before its roll, offers to
        resign (J12, B8, C4 bound it)."""
        ...

    def accepts(self, game: Game, side: int, result: int) -> bool:
        """Whether `side` accepts its opponent's offer to resign `result` times the cube."""
        ...


class Chooser:
    """A `Player` that only chooses plays: it never doubles nor resigns, takes every double
    and accepts every resignation. Subclasses give `choose`."""

    def choose(self, rolled: Position, plays: Sequence[RawPlay], number: int) -> RawPlay:
        raise NotImplementedError

    def double(self, game: Game, side: int) -> bool:
        return False

    def take(self, game: Game, side: int) -> bool:
        return True

    def resigns(self, game: Game, side: int) -> int:
        return 0

    def accepts(self, game: Game, side: int, result: int) -> bool:
        return True


#: on_turn(game, side, rolled, thrown): the side on turn has its dice (`rolled` is its
#: position with them); `thrown` is False for the opening throw's dice played as the first
#: turn (B2, backgammon), True for a roll of its own.
TurnHook = Callable[[Game, int, Position, bool], None]
#: on_move(game, side, play, forced): `side` played `play` (`forced`: its only legal play).
MoveHook = Callable[[Game, int, Play, bool], None]


def play_game(game: Game, players: tuple[Player, Player], *, max_moves: int = MAX_MOVES,
              on_turn: TurnHook | None = None, on_move: MoveHook | None = None) -> GameResult:
    """Play `game` to its end (from the opening roll if it has not started); its result.

    Side 0 is `players[0]`. The dice are the game's `DiceSource`."""
    _run(Flow(game=game), players, max_moves, on_turn, on_move, None)
    assert game.result is not None
    return game.result


def play_match(match: Match, players: tuple[Player, Player], *, max_moves: int = MAX_MOVES,
               on_turn: TurnHook | None = None, on_move: MoveHook | None = None,
               on_game: Callable[[Game], None] | None = None) -> int | None:
    """Play `match` to its end, game after game (scored by C3, the Crawford game by C5);
    its winner. `on_game(game)` is called when a game starts."""
    if match.games and match.games[-1].result is None:
        raise GameStateError("the current game is not over")
    _run(Flow(match), players, max_moves, on_turn, on_move, on_game)
    return match.winner


def _run(flow: Flow, players: tuple[Player, Player], max_moves: int,
         on_turn: TurnHook | None, on_move: MoveHook | None,
         on_game: Callable[[Game], None] | None) -> None:
    """Run `flow` to its end, asking `players`. Each turn the side on turn is asked
    once whether it resigns, then whether it doubles (where it may), before its roll;
    the roll's play follows at once (without a decision when it is the only one)."""
    moves = 0
    asked = -1  # the move number at which the side on turn was last asked to resign

    def play(g: Game, side: int, rolled: Position, thrown: bool | None) -> None:
        """The play of `side`, whose dice are in `rolled`, after the turn's hook (`thrown`:
        its argument; None, no hook: the turn has had it)."""
        nonlocal moves
        if on_turn is not None and thrown is not None:
            on_turn(g, side, rolled, thrown)
        plays = generate_raw(rolled.rules, rolled.me, rolled.opp, rolled.dice)
        forced = len(plays) == 1
        made = flow.make(Play(rolled, plays[0] if forced
                              else players[side].choose(rolled, plays, moves)))
        moves += 1
        if on_move is not None:
            on_move(g, side, made, forced)
        if g.result is None and moves >= max_moves:
            raise GameStateError(f"a game passed {max_moves} moves")

    if flow.match is None and flow.game.phase == "move":
        g = flow.game
        play(g, g.turn, g.position(), False)
    pending: tuple[str, int | None] | None = None  # the next decision, when known already
    while True:
        if pending is None:
            step = flow.advance()
            if step is not None:
                kind = step.kind
                g = flow.game
                if kind == "opening":
                    if g.phase == "move":
                        play(g, g.turn, g.position(), False)
                elif kind == "game_start":
                    moves, asked = 0, -1
                    if on_game is not None:
                        on_game(g)
                elif kind == "match_over" or (kind == "game_over" and flow.match is None):
                    return
                continue
            pending = flow.pending()
            if pending is None:
                return
        kind, side = pending
        pending = None
        assert side is not None
        g = flow.game
        player = players[side]
        if kind == "roll":
            if asked != moves:  # once a turn (after a rejected offer, it rolls)
                asked = moves
                offered = player.resigns(g, side)
                if offered:
                    flow.apply(side, "resign", value=offered)
                    continue
            if g.cube_enabled and g.may_double() and player.double(g, side):
                flow.apply(side, "double")
                continue
            g.roll()
            play(g, side, g.position(), True)
            if g.result is None:  # no step of the flow's comes between two turns
                pending = ("roll", g.turn)
        elif kind == "move":  # a resignation offered before a move was rejected
            play(g, side, g.position(), None)
        elif kind == "take":
            flow.apply(side, "take" if player.take(g, side) else "drop")
        elif kind == "accept":
            assert g.pending_resign is not None
            result = g.pending_resign[1]
            flow.apply(side, "accept" if player.accepts(g, side, result) else "reject")
        else:  # pragma: no cover - a flow without supplied dice awaits no opening
            raise GameStateError(f"cannot play on from phase {flow.phase}")
