"""Playing games and matches to the end: the one loop of the engine.

A `Game` (and a `Match`, for matches) holds the state and enforces the rules of
flow: the opening roll (J2, B2), rolls, the cube (C2, C5), resignations, the
result of a game (J12, B8, C4) and the match score (C3). `play_game` and
`play_match` drive them: each turn they ask the side on turn's `Player` for its
decisions and apply them, and they play a roll that has one legal play without
asking. The engine's non-interactive players (`bot_match`, self-play) play
through them; hosted matches, whose decisions come from clients one request at
a time, drive the same `Game` and `Match` action by action.

Players are small objects (`Player`) that see the game read-only. Hooks
(`on_turn`, `on_move`) let a caller record the game, judge the luck of each roll
or stop a game: an exception raised by a player or a hook ends the loop.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from .errors import GameStateError
from .game import Game, GameResult, Match
from .movegen import Play, RawPlay, generate_raw
from .position import Position
from .variants import find_variant

#: The longest game `play_game` plays by default: a game still running after this
#: many moves is stopped with GameStateError (backgammon has positions where both
#: sides pass for ever: two closed boards with a checker on each bar).
MAX_MOVES = 2000


class Player(Protocol):
    """One side's decisions. `choose` is asked only when a roll has more than one legal
    play; the other three are asked only where the rules allow the decision."""

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
    if game.phase == "opening":
        game.start()
    v = find_variant(game.variant)
    moves = 0
    while game.result is None:
        side = game.turn
        thrown = False
        if game.phase == "roll":
            offered = players[side].resigns(game, side)
            if offered:
                game.resign(side, offered)
                game.answer_resign(players[1 - side].accepts(game, 1 - side, offered))
                if game.result is not None:
                    break
            if game.cube_enabled and game.may_double() and players[side].double(game, side):
                game.double()
                if players[1 - side].take(game, 1 - side):
                    game.take()
                else:
                    game.drop()
                    break
            game.roll()
            thrown = True
        elif game.phase != "move":
            raise GameStateError(f"cannot play on from phase {game.phase}")
        rolled = game.position()
        if on_turn is not None:
            on_turn(game, side, rolled, thrown)
        raws = generate_raw(v, rolled.me, rolled.opp, rolled.dice)
        forced = len(raws) == 1
        raw = raws[0] if forced else players[side].choose(rolled, raws, moves)
        play = game.make(Play(rolled, raw))
        moves += 1
        if on_move is not None:
            on_move(game, side, play, forced)
        if game.result is None and moves >= max_moves:
            raise GameStateError(f"a game passed {max_moves} moves")
    assert game.result is not None
    return game.result


def play_match(match: Match, players: tuple[Player, Player], *, max_moves: int = MAX_MOVES,
               on_turn: TurnHook | None = None, on_move: MoveHook | None = None,
               on_game: Callable[[Game], None] | None = None) -> int | None:
    """Play `match` to its end, game after game (scored by C3, the Crawford game by C5);
    its winner. `on_game(game)` is called when a game starts."""
    while not match.over:
        game = match.new_game()
        if on_game is not None:
            on_game(game)
        play_game(game, players, max_moves=max_moves, on_turn=on_turn, on_move=on_move)
        match.record_result()
    return match.winner
