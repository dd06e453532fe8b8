"""Playing games through the protocol: the referee shared by the terminal player and
the league.

The referee never knows the rules. It keeps the game as the structured position
the daemon hands back (always seen from the side on roll), asks the daemon for
the legal plays of each roll (`legal_moves`) and to validate a move given as
text (`apply_move`), asks each side's `Player` for its decisions, and rolls
the dice from a `DiceSource`. A game is over when the play just made carries its
`result` (SPEC 5.2: the rules server adds it to every play that ends the game,
with the points by J12, B8 or C4 and the cube): the referee takes the result
from there and applies no scoring rule of its own. What else it must know of a
variant (who starts with which dice, the names of the results) comes from the
server's `hello` (`variant_rules`), and whether a side may double from its
`position` reply (`may_double`).

The dice are client-side and seeded (`SeededDice`) for now. A hosted match,
where the server rolls, only needs another `DiceSource`.
"""

from __future__ import annotations

import abc
import asyncio
import logging
import random
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from jacquetd_protocol.errors import ProtocolError
from jacquetd_protocol.positions import parse_board
from jacquetd_protocol.records import Action, GameRecord, GameResult, MatchRecord
from jacquetd_protocol.seeds import game_seed, move_seed

from .client import JacquetClient
from .errors import EngineError
from .variants import VariantInfo

log = logging.getLogger(__name__)

PositionMap = dict[str, Any]
PlayMap = Mapping[str, Any]
Dice = tuple[int, int]


# -- dice ------------------------------------------------------------------------------


class DiceSource(Protocol):
    """Where the dice come from. `opening()` is the opening roll (seat 0's die, seat 1's
    die, never equal); `roll()` is two dice for the side on roll."""

    async def opening(self) -> Dice: ...

    async def roll(self) -> Dice: ...


class SeededDice:
    """Client-side dice from a seeded generator: the same seed gives the same rolls."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self._rng = random.Random(seed)

    async def opening(self) -> Dice:
        while True:
            a, b = self._rng.randint(1, 6), self._rng.randint(1, 6)
            if a != b:
                return a, b

    async def roll(self) -> Dice:
        return self._rng.randint(1, 6), self._rng.randint(1, 6)


# -- players ---------------------------------------------------------------------------


class EngineFault(Exception):
    """A player failed: `kind` is `crash`, `hang`, `illegal` or `error`. The referee
    scores the game as lost by that player."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(f"{kind}: {message}")
        self.kind = kind
        self.message = message


class Resign(Exception):
    """Raised by a player (the human) to resign the game; `value` 1, 2 or 3."""

    def __init__(self, value: int = 1) -> None:
        super().__init__(f"resigns ({value})")
        self.value = value


@dataclass
class Turn:
    """What a player is asked to decide on: the position (side on roll = the player),
    the dice, the legal plays, the seat and a per-move seed for engines that use
    chance. With a referee that asks for compact plays, the plays are compact records
    (`move`, `position_id`, `board`, and `result` when the play ends the game)."""

    position: PositionMap
    dice: Dice
    plays: Sequence[PlayMap]
    seat: int
    seed: int
    number: int


class Player(abc.ABC):
    """One side of a game."""

    name: str = "player"

    async def start(self) -> None:  # noqa: B027 - optional hook
        """Get ready (spawn a process, connect); called before the first decision."""

    @abc.abstractmethod
    async def choose(self, turn: Turn) -> PlayMap | str:
        """A play of `turn.plays` (or its move text). Raise EngineFault on failure."""

    async def double(self, position: PositionMap) -> bool:
        """Whether to double (position before the roll, the player on roll)."""
        return False

    async def take(self, position: PositionMap) -> bool:
        """Whether to take (position from the doubler's side, `cube.pending` true)."""
        return True

    async def restart(self) -> None:  # noqa: B027 - optional hook
        """Recover after a fault (respawn a crashed or hung process)."""

    async def close(self) -> None:  # noqa: B027 - optional hook
        """Release what `start` took."""


class CubeAdvisedPlayer(Player):
    """A player that follows an engine's `cube` answer: it doubles when the answer's
    `action` is `double` and takes unless its `take` is `drop`; without an answer
    (None) it does not double and takes."""

    @abc.abstractmethod
    async def _cube(self, position: PositionMap) -> Mapping[str, Any] | None:
        """The engine's `cube` result for `position` (before the roll), or None."""

    async def double(self, position: PositionMap) -> bool:
        decision = await self._cube(position)
        return bool(decision and decision.get("action") == "double")

    async def take(self, position: PositionMap) -> bool:
        decision = await self._cube(position)
        return not (decision and decision.get("take") == "drop")


class Observer:
    """Hooks the referee calls as the game goes (the terminal shows the game through
    them); every method is optional."""

    async def game_started(self, state: GameState) -> None: ...

    async def rolled(self, state: GameState, seat: int, dice: Dice) -> None: ...

    async def moved(self, state: GameState, seat: int, dice: Dice, play: PlayMap) -> None: ...

    async def cube_action(self, state: GameState, seat: int, action: str) -> None: ...

    async def game_over(self, state: GameState, outcome: GameOutcome) -> None: ...


# -- game state and outcome ------------------------------------------------------------


@dataclass
class GameState:
    """The game in progress: `position` is seen from `turn` (the seat on roll)."""

    variant: str
    position: PositionMap
    turn: int
    names: tuple[str, str]
    rules: VariantInfo                      # what the rules server says of the variant
    score: tuple[int, int] = (0, 0)         # match score before this game, by seat
    match_length: int = 0
    crawford: bool = False
    moves: int = 0
    opening: Dice | None = None             # the opening roll (seat 0's die, seat 1's)


@dataclass
class GameOutcome:
    winner: int                 # seat
    points: int                 # the cube included
    result: int                 # 1-3 before the cube; 1 for a drop, resignation or forfeit
    reason: str                 # bear-off, drop, resign, forfeit
    name: str
    moves: int
    cube: int
    fault: str | None = None    # for a forfeit: crash, hang, illegal, error
    fault_message: str | None = None
    luck: tuple[float, float] | None = None   # per seat, summed, in points (equity x cube)
    record: GameRecord | None = None


class Referee:
    """Plays games between two players through a rules server (any protocol v1 server
    with `position`, `legal_moves` and `apply_move`; `luck` is used when offered).

    `move_timeout` bounds each decision (seconds); a player that exceeds it, crashes
    or answers an illegal move loses the game (`EngineFault`).

    `compact` asks the rules server for compact play records (`legal_moves` with
    `compact`, protocol 1.2): the plays are matched by `position_id` and only the
    chosen one's position is read (from its board literal); the next request names
    the position by that id (unless a cube action changed it), which keeps the
    league's cost per decision small. For players that do not look at `Turn.plays`
    (engines); a server without the option sends full records, which work the same."""

    def __init__(self, rules: JacquetClient, *, move_timeout: float | None = None,
                 luck: bool = True, observer: Observer | None = None,
                 compact: bool = False) -> None:
        self.rules = rules
        self.move_timeout = move_timeout
        self.use_luck = luck and rules.supports("luck")
        self.observer = observer or Observer()
        self.compact = compact

    async def start_position(self, variant: str, *, cube: bool, score: tuple[int, int] = (0, 0),
                             match_length: int = 0, crawford: bool = False) -> PositionMap:
        """The initial position (from the daemon) with the cube and match state set,
        seen by the side whose score is `score[0]`."""
        pos = dict((await self.rules.position(f"start:{variant}"))["position"])
        pos.pop("cube", None)
        pos.pop("match", None)
        if cube:
            pos["cube"] = {"value": 1, "owner": "centre", "pending": False}
        if match_length > 0:
            pos["match"] = {"length": match_length, "score": list(score), "crawford": crawford}
        return pos

    async def _luck(self, pos: PositionMap, dice: Dice) -> float:
        if not self.use_luck:
            return 0.0
        before = dict(pos, dice=[])
        try:
            return await self.rules.luck(before, dice)
        except EngineError as exc:
            log.warning("luck unavailable (%s); reporting raw figures only", exc)
            self.use_luck = False
            return 0.0

    async def play_game(self, players: tuple[Player, Player], dice: DiceSource, *,
                        variant: str, cube: bool = False, score: tuple[int, int] = (0, 0),
                        match_length: int = 0, crawford: bool = False, seed: int = 0,
                        number: int = 1, max_moves: int = 2000,
                        start: PositionMap | None = None) -> GameOutcome:
        """Play one game; seat 0 is `players[0]`. With `start` (a structured position, no
        double pending) the game goes on from there instead of the opening roll, seat 0
        on roll with the position's dice if it has any; its record has no opening."""
        info = self.rules.variant(variant)
        pending: Dice | None
        opening: Dice | None
        if start is not None:
            opening, first = None, 0
            pos = {k: v for k, v in start.items() if k != "dice"}
            rolled = start.get("dice") or []
            pending = (int(rolled[0]), int(rolled[1])) if rolled else None
        else:
            opening = await dice.opening()
            first = 0 if opening[0] > opening[1] else 1
            view = (score[first], score[1 - first])
            pos = await self.start_position(variant, cube=cube, score=view,
                                            match_length=match_length, crawford=crawford)
            pending = (max(opening), min(opening)) if info.opening_plays_opening_dice else None
        state = GameState(variant, pos, first, (players[0].name, players[1].name), info, score,
                          match_length, crawford, opening=opening)
        record = GameRecord(number, score, crawford, opening)
        luck = [0.0, 0.0]
        # the last play's position and its id: while the game stands there (no cube
        # action since), the rules server is sent the id, not the structured position
        known: tuple[PositionMap, str] | None = None
        await self.observer.game_started(state)
        while True:
            seat = state.turn
            player = players[seat]
            try:
                if pending is None and cube and await self._may_double(state):
                    outcome = await self._cube_turn(state, players, record)
                    if outcome is not None:
                        return await self._finish(state, outcome, luck)
                if pending is not None:
                    roll, pending = pending, None
                else:
                    roll = await dice.roll()
                    record.actions.append(Action(seat, "roll", dice=roll))
                await self.observer.rolled(state, seat, roll)
                cube_value = int(state.position.get("cube", {}).get("value", 1))
                luck[seat] += cube_value * await self._luck(state.position, roll)
                position = dict(state.position, dice=list(roll))
                turn = Turn(position, roll, [], seat,
                            move_seed(seed, state.moves), state.moves)
                # a pipelined player (an engine) is asked while the rules server lists the
                # plays; its answer is checked against them once they are in. Its request
                # goes out first (one pass of the event loop): it is the longer wait.
                early = (asyncio.ensure_future(self._ask(player, turn))
                         if getattr(player, "pipelined", False) else None)
                try:
                    if early is not None:
                        await asyncio.sleep(0)
                    if self.compact and known is not None and known[0] is state.position:
                        turn.plays = await self.rules.legal_moves_compact(known[1], roll)
                    elif self.compact:
                        turn.plays = await self.rules.legal_moves_compact(position)
                    else:
                        turn.plays = await self.rules.legal_moves(position)
                except BaseException:
                    _drop(early)
                    raise
                if len(turn.plays) == 1:
                    _drop(early)  # forced: the play is made without the player
                    play: PlayMap = dict(turn.plays[0], forced=True)
                elif early is not None:
                    play = await self._check(await early, turn)
                else:
                    play = await self._decide(player, turn)
            except Resign as resign:
                return await self._finish(state, self._resigned(state, seat, resign.value,
                                                                 record), luck)
            except EngineFault as fault:
                log.warning("%s (seat %d) forfeits game %d: %s", player.name, seat, number,
                            fault)
                return await self._finish(state, self._forfeit(state, seat, fault, record),
                                          luck)
            record.actions.append(Action(seat, "move", move=play["move"]))
            state.moves += 1
            play = _with_position(play)
            after = play["position"]
            state.position = after
            known = (after, str(play["position_id"]))
            await self.observer.moved(state, seat, roll, play)
            if "result" not in play and after["opponent"][0] >= 15:
                raise EngineError("the rules server's play ends the game without its "
                                  "`result` (SPEC 5.2)")
            if "result" in play:
                state.turn = 1 - seat  # the position is seen from the loser now
                result, name = _result_of(play)
                value = int(after.get("cube", {}).get("value", 1))
                outcome = GameOutcome(seat, result * value, result, "bear-off", name,
                                      state.moves, value)
                record.result = GameResult(seat, result * value, "bear-off", name)
                outcome.record = record
                return await self._finish(state, outcome, luck)
            if state.moves >= max_moves:
                raise EngineError(f"game {number} passed {max_moves} moves")
            state.turn = 1 - seat

    async def _finish(self, state: GameState, outcome: GameOutcome, luck: list[float]
                      ) -> GameOutcome:
        if self.use_luck:
            outcome.luck = (luck[0], luck[1])
        await self.observer.game_over(state, outcome)
        return outcome

    async def _ask(self, player: Player, turn: Turn) -> PlayMap | str:
        try:
            # a deadline on this task, not a task per move as `wait_for` makes (3.11)
            async with asyncio.timeout(self.move_timeout):
                return await player.choose(turn)
        except TimeoutError:
            raise EngineFault("hang", f"no move within {self.move_timeout} s") from None

    async def _decide(self, player: Player, turn: Turn) -> PlayMap:
        return await self._check(await self._ask(player, turn), turn)

    async def _check(self, answer: PlayMap | str, turn: Turn) -> PlayMap:
        """The legal play of `turn.plays` that `answer` names; EngineFault otherwise."""
        # Plays are compared by the position they produce (SPEC.md 5.2): an engine's
        # play record by its position_id; a move text is matched to the canonical
        # spellings, else validated by the rules server (`apply_move`).
        # A play record's move text must be a spelling of the play its position_id names.
        by_id = {play["position_id"]: play for play in turn.plays}
        claimed = answer.get("position_id") if isinstance(answer, dict) else None
        text = answer if isinstance(answer, str) else answer.get("move")
        if not isinstance(text, str):
            if claimed in by_id:
                return by_id[claimed]
            raise EngineFault("illegal", f"answered {answer!r}, not a move")
        play = next((p for p in turn.plays if p["move"] == text), None)
        if play is None:
            try:
                applied = await self.rules.apply_move(turn.position, text)
            except EngineError as exc:
                raise EngineFault("illegal", f"{text!r}: {exc}") from None
            play = by_id.get(applied.get("position_id", ""))
        if play is None:
            raise EngineFault("illegal", f"{text!r} is not among the legal plays")
        if claimed is not None and claimed != play["position_id"]:
            raise EngineFault("illegal", f"{text!r} does not lead to the position it claims")
        return play

    async def _may_double(self, state: GameState) -> bool:
        """Whether the side on roll may double now (C2, C5), as the rules server says of
        the position (`position`'s `may_double`, protocol 1.4)."""
        reply = await self.rules.position(state.position)
        if "may_double" not in reply:
            raise EngineError("the rules server's `position` reply has no `may_double` "
                              "(protocol 1.4)")
        return bool(reply["may_double"])

    async def _cube_turn(self, state: GameState, players: tuple[Player, Player],
                         record: GameRecord) -> GameOutcome | None:
        seat = state.turn
        if not await players[seat].double(state.position):
            return None
        cube = dict(state.position["cube"])
        value = int(cube["value"])
        record.actions.append(Action(seat, "double", value=value * 2))
        await self.observer.cube_action(state, seat, "double")
        offered = dict(state.position, cube=dict(cube, pending=True))
        taker = players[1 - seat]
        if await taker.take(offered):
            record.actions.append(Action(1 - seat, "take"))
            await self.observer.cube_action(state, 1 - seat, "take")
            state.position = dict(state.position, cube={"value": value * 2, "owner": "opponent",
                                                        "pending": False})
            return None
        record.actions.append(Action(1 - seat, "drop"))
        await self.observer.cube_action(state, 1 - seat, "drop")
        record.result = GameResult(seat, value, "drop", "drop")
        return GameOutcome(seat, value, 1, "drop", "drop", state.moves, value, record=record)

    def _resigned(self, state: GameState, seat: int, value: int, record: GameRecord
                  ) -> GameOutcome:
        cube = int(state.position.get("cube", {}).get("value", 1))
        record.actions.append(Action(seat, "resign", value=value))
        record.actions.append(Action(1 - seat, "accept"))
        name = state.rules.result_name(value)
        record.result = GameResult(1 - seat, value * cube, "resign", name)
        return GameOutcome(1 - seat, value * cube, value, "resign", name, state.moves, cube,
                           record=record)

    def _forfeit(self, state: GameState, seat: int, fault: EngineFault, record: GameRecord
                 ) -> GameOutcome:
        outcome = self._resigned(state, seat, 1, record)
        assert record.result is not None
        record.result = GameResult(record.result.winner, record.result.points, "resign",
                                   f"forfeit {fault.kind}")
        outcome.reason, outcome.name = "forfeit", f"forfeit {fault.kind}"
        outcome.fault, outcome.fault_message = fault.kind, fault.message
        return outcome


def _with_position(play: PlayMap) -> PlayMap:
    """The play with its structured `position`: a compact record's is read from its
    `board` literal (the rules server wrote it; only the chosen play's is read)."""
    if "position" in play:
        return play
    try:
        return dict(play, position=parse_board(str(play.get("board", ""))))
    except ProtocolError as exc:
        raise EngineError(f"the rules server sent a play without a readable position: {exc}"
                          ) from None


def _drop(task: asyncio.Future[Any] | None) -> None:
    """Give up an answer asked for early (its failure, if any, is of no consequence)."""
    if task is not None:
        task.cancel()
        task.add_done_callback(lambda t: t.cancelled() or t.exception())


def _result_of(play: PlayMap) -> tuple[int, str]:
    """The result (1-3, before the cube) and its name of a game-ending play, as the rules
    server gives it (`result` in the play; its points include the cube, SPEC 5.2)."""
    given = play["result"]
    if not (isinstance(given, dict) and isinstance(given.get("points"), int)):
        raise EngineError(f"the rules server sent a game-ending play without its points: "
                          f"{given!r}")
    cube = int(play["position"].get("cube", {}).get("value", 1))
    return int(given["points"]) // cube, str(given.get("name", ""))


# -- matches ---------------------------------------------------------------------------


@dataclass
class MatchOutcome:
    games: list[GameOutcome]
    score: tuple[int, int]
    winner: int | None
    record: MatchRecord = field(default_factory=MatchRecord)


async def play_match(referee: Referee, players: tuple[Player, Player], dice: DiceSource, *,
                     variant: str, length: int = 0, cube: bool = False, seed: int = 0,
                     headers: dict[str, str] | None = None,
                     after_game: Callable[[GameOutcome], Awaitable[None]] | None = None,
                     ) -> MatchOutcome:
    """A match to `length` points (0: one money game) between seat 0 and seat 1.
    `after_game` is awaited after each game (the league restarts a faulty engine)."""
    record = MatchRecord(headers={
        "Variant": variant, "Length": str(length), "Cube": "on" if cube else "off",
        "Crawford": "on", "Dice": "client", "Seed": str(seed),
        "Player0": players[0].name, "Player1": players[1].name, **(headers or {})})
    score = [0, 0]
    games: list[GameOutcome] = []
    crawford_done = False
    while True:
        crawford = (cube and length > 0 and not crawford_done
                    and max(score) == length - 1)
        crawford_done = crawford_done or crawford
        outcome = await referee.play_game(players, dice, variant=variant, cube=cube,
                                          score=(score[0], score[1]), match_length=length,
                                          crawford=crawford, seed=game_seed(seed, len(games)),
                                          number=len(games) + 1)
        games.append(outcome)
        if after_game is not None:
            await after_game(outcome)
        if outcome.record is not None:
            record.games.append(outcome.record)
        score[outcome.winner] += outcome.points
        if length == 0 or max(score) >= length:
            break
    winner = None if not games else (0 if score[0] > score[1] else 1)
    record.headers["Status"] = "finished"
    if winner is not None:
        record.headers["Result"] = str(winner)
    record.headers["Score"] = f"{score[0]} {score[1]}"
    return MatchOutcome(games, (score[0], score[1]), winner, record)
