"""`bot_match`: games between two of the daemon's own levels, played in one worker.

A league between two daemon levels spends most of its time between the league
and the bots when every decision is a round trip (`legal_moves`, `best_move`,
`luck`). This command plays a whole match next to the bots instead and sends
back its record in one reply. It plays exactly what the referee of
`jacquetd_clients.game` would have played through the protocol with the same
seed, so a league's journal is the same whichever way its games went:

- the games are played by the rules core's driver (`jacquetd.rules.driver`) on
  a `Match` seeded with the match seed: one dice stream serves every game, drawn
  as `jacquetd_protocol.seeds` describes it (the referee's `SeededDice`);
- a roll with one legal play is played without asking the bot; otherwise the
  bot gets `seeds.move_seed(game seed, moves)`, the game seed being
  `seeds.game_seed(match seed, games before)`;
- each roll's luck is `luck` rounded to 6 decimals, as that command answers.

With `swap` the same dice stream is played a second time with the seats
swapped (the league's pair of games). Only money games and matches without the
cube are played here (so without the Crawford rule, which only bars doubling);
the league uses the referee for the rest.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from jacquetd_protocol.seeds import game_seed, move_seed

from jacquetd.bots import heuristic
from jacquetd.bots.interface import ENGINE, Unsupported
from jacquetd.bots.players import NeuralBot, state_of, stop_function
from jacquetd.errors import SearchTimedOut
from jacquetd.rules import Game, GameStateError, Match, Play, Position, RawPlay, find_variant
from jacquetd.rules.driver import Chooser
from jacquetd.rules.driver import play_match as drive_match


class _Seat(Chooser):
    """A daemon level playing one seat. The shipped levels choose among the raw plays
    exactly as their `choose` does (`jacquetd.bots.players`), without generating the
    plays a second time; any other level is asked through its `choose`. `seed` is the
    seed of the game in play (the moves' seeds derive from it)."""

    def __init__(self, level: str, variant: str, time_ms: int | None,
                 stop: Callable[[], bool]) -> None:
        self.level = level
        self.variant = variant
        self.time_ms = time_ms
        self.stop = stop
        self.seed = 0
        self._bot = None if level == "random" else ENGINE.bot(level, variant)

    def choose(self, rolled: Position, plays: Sequence[RawPlay], number: int) -> RawPlay:
        """The chosen play of `plays` (the legal plays of `rolled`, more than one)."""
        if self.level == "heuristic":
            return plays[int(heuristic.scores(rolled.rules, plays).argmax())]
        if self.level == "random":
            return plays[random.Random(move_seed(self.seed, number)).randrange(len(plays))]
        if isinstance(self._bot, NeuralBot):
            return plays[self._bot.searcher.best(state_of(rolled), plays, self._bot.plies,
                                                 stop_function(self.time_ms, self.stop))]
        assert self._bot is not None
        return self._bot.choose(rolled, movetime_ms=self.time_ms, should_stop=self.stop).raw


def play_match(seats: tuple[_Seat, _Seat], seed: int, *, variant: str, length: int,
               luck: bool, stop: Callable[[], bool]) -> dict[str, Any]:
    """A match to `length` points (0: one money game) on the dice stream `seed`."""
    match = Match(variant, length, cube_enabled=False, crawford_rule=False, seed=seed)
    played: list[tuple[list[list[Any]], list[float]]] = []  # per game: actions, luck
    judged = [luck]  # whether the luck is judged (not when the variant has no network)

    def on_game(game: Game) -> None:
        for s in seats:
            s.seed = game_seed(seed, len(played))
        played.append(([], [0.0, 0.0]))

    def on_turn(game: Game, side: int, rolled: Position, thrown: bool) -> None:
        if stop():
            raise SearchTimedOut()
        actions, lucks = played[-1]
        dice = (rolled.dice[0], rolled.dice[1])
        if thrown:
            actions.append([side, "roll", [dice[0], dice[1]]])
        if judged[0]:
            try:
                lucks[side] += round(ENGINE.luck(rolled.without_dice(), dice), 6)
            except Unsupported:  # no network judges this variant's luck: results only
                judged[0] = False

    def on_move(game: Game, side: int, play: Play, forced: bool) -> None:
        played[-1][0].append([side, "move", play.move])

    try:
        drive_match(match, seats, on_turn=on_turn, on_move=on_move, on_game=on_game)
    except GameStateError as exc:  # a game that never ends (both sides pass for ever)
        raise RuntimeError(str(exc)) from None
    games = [_entry(game, actions, lucks if judged[0] else None)
             for game, (actions, lucks) in zip(match.games, played, strict=True)]
    return {"levels": [seats[0].level, seats[1].level], "score": list(match.score),
            "winner": match.winner, "games": games}


def _entry(game: Game, actions: list[list[Any]], luck: list[float] | None) -> dict[str, Any]:
    """A finished game's entry of the reply."""
    r = game.result
    assert r is not None and game.opening_roll is not None
    return {"opening": list(game.opening_roll), "actions": actions, "winner": r.winner,
            "points": r.points, "result": r.result, "reason": r.reason, "name": r.name,
            "moves": sum(1 for a in actions if a[1] == "move"), "cube": 1, "luck": luck}


def run_bot_match(args: dict[str, Any], call: Any) -> dict[str, Any]:
    """The worker job: `levels` [seat 0, seat 1], `variant`, `seed`, `length`, `swap`,
    `luck`, `time_ms` (each bot's budget per move)."""
    variant = find_variant(args["variant"]).name
    levels = list(args["levels"])
    time_ms = args.get("time_ms")
    seats = {name: _Seat(name, variant, time_ms, call.should_stop)
             for name in set(levels)}
    order = [(levels[0], levels[1])]
    if args.get("swap", False):
        order.append((levels[1], levels[0]))
    luck = bool(args.get("luck", True))
    matches = [play_match((seats[a], seats[b]), int(args["seed"]), variant=variant,
                          length=int(args.get("length") or 0), luck=luck,
                          stop=call.should_stop)
               for a, b in order]
    return {"matches": matches}


def check(args: dict[str, Any], levels: list[str]) -> dict[str, Any]:
    """Refuse in the front what a worker could not play (unknown variant or level)."""
    from jacquetd_protocol.errors import ErrorCode, ProtocolError

    from jacquetd.rules import VARIANTS

    if args["variant"] not in VARIANTS:
        raise ProtocolError(ErrorCode.BAD_ARGUMENT, f"variant: no variant {args['variant']!r} "
                            f"(variants: {', '.join(VARIANTS)})", field="variant")
    if len(args["levels"]) != 2:
        raise ProtocolError(ErrorCode.BAD_ARGUMENT, "levels: two bot levels, seat 0 first",
                            field="levels")
    for level in args["levels"]:
        if level not in levels:
            raise ProtocolError(ErrorCode.BAD_ARGUMENT, f"levels: no bot level {level!r} "
                                f"(levels: {', '.join(levels)})", field="levels")
    return dict(args)
