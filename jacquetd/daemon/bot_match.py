"""`bot_match`: games between two of the daemon's own levels, played in one worker.

A league between two daemon levels spends most of its time between the league
and the bots when every decision is a round trip (`legal_moves`, `best_move`,
`luck`). This command plays a whole match next to the bots instead and sends
back its record in one reply. It plays exactly what the referee of
`jacquetd_clients.game` would have played through the protocol with the same
seed, so a league's journal is the same whichever way its games went:

- the dice are `random.Random(seed)` drawn as the referee's `SeededDice`:
  the opening throw (two different dice; the higher one opens), then two
  `randint(1, 6)` per roll; one stream serves every game of the match;
- J2 rolls again after the opening throw; B2 and backgammon play it;
- a roll with one legal play is played without asking the bot; otherwise the
  bot gets the per-move seed `(game_seed * 100003 + moves) % (2**63 - 1)`,
  where `game_seed` is the match seed plus the number of games before;
- each roll's luck is `luck` rounded to 6 decimals, as that command answers.

With `swap` the same dice stream is played a second time with the seats
swapped (the league's pair of games). Only money games and matches without the
cube are played here; the league uses the referee for the rest.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from jacquetd.bots.interface import ENGINE
from jacquetd.bots.players import NeuralBot, state_of, stop_function
from jacquetd.errors import SearchTimedOut
from jacquetd.rules import Play, Position, find_variant, generate_raw
from jacquetd.rules.position import CHECKERS, MatchState
from jacquetd.rules.scoring import game_result, result_name

MAX_SEED = (1 << 63) - 1
MAX_MOVES = 2000  # the referee's bound on one game


class _Dice:
    """The referee's `SeededDice`, synchronously."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def opening(self) -> tuple[int, int]:
        while True:
            a, b = self._rng.randint(1, 6), self._rng.randint(1, 6)
            if a != b:
                return a, b

    def roll(self) -> tuple[int, int]:
        return self._rng.randint(1, 6), self._rng.randint(1, 6)


class _Seat:
    """A daemon level playing one seat. The shipped levels choose among the raw plays
    exactly as their `choose` does (`jacquetd.bots.players`), without generating the
    plays a second time; any other level is asked through its `choose`."""

    def __init__(self, level: str, variant: str, time_ms: int | None) -> None:
        self.level = level
        self.variant = variant
        self.time_ms = time_ms
        self._bot = None if level == "random" else ENGINE.bot(level, variant)

    def choose(self, rolled: Position, raws: list[Any], seed: int, stop: Any) -> Any:
        """The chosen play of `raws` (the legal plays of `rolled`, more than one)."""
        if self.level == "random":
            return Play(rolled, raws[random.Random(seed).randrange(len(raws))])
        if self.level == "heuristic":
            from jacquetd.bots import heuristic

            return Play(rolled, raws[int(np.argmax(heuristic.scores(rolled.rules, raws)))])
        if isinstance(self._bot, NeuralBot):
            k = self._bot.searcher.best(state_of(rolled), raws, self._bot.plies,
                                        stop_function(self.time_ms, stop))
            return Play(rolled, raws[k])
        assert self._bot is not None
        return self._bot.choose(rolled, movetime_ms=self.time_ms, should_stop=stop)


def _start(variant: str, score: tuple[int, int], length: int, crawford: bool) -> Position:
    v = find_variant(variant)
    side = [0] * 26
    for point, count in v.start_setup:
        side[point] = count
    match = MatchState(length, score, crawford) if length > 0 else None
    return Position(v.name, tuple(side), tuple(side), (), (False, False), None, match, v)


def play_game(seats: tuple[_Seat, _Seat], dice: _Dice, *, variant: str, score: tuple[int, int],
              length: int, seed: int, luck: bool, stop: Any) -> dict[str, Any]:
    """One game as the referee plays it; the game's entry of the reply."""
    v = find_variant(variant)
    opening = dice.opening()
    turn = 0 if opening[0] > opening[1] else 1
    pos = _start(v.name, (score[turn], score[1 - turn]), length, False)
    pending = (max(opening), min(opening)) if v.opening_plays_opening_dice else None
    actions: list[list[Any]] = []
    lucks = [0.0, 0.0]
    moves = 0
    while True:
        if stop():
            raise SearchTimedOut()
        if pending is not None:
            roll, pending = pending, None
        else:
            roll = dice.roll()
            actions.append([turn, "roll", [roll[0], roll[1]]])
        if luck:
            lucks[turn] += round(ENGINE.luck(pos, roll), 6)
        rolled = pos.with_dice(roll)
        raws = generate_raw(rolled.rules, rolled.me, rolled.opp, roll)
        if len(raws) == 1:
            play = Play(rolled, raws[0])
        else:
            play = seats[turn].choose(rolled, raws, (seed * 100_003 + moves) % MAX_SEED, stop)
        actions.append([turn, "move", play.move])
        moves += 1
        if play.raw.me[0] == CHECKERS:
            after = play.after
            points = game_result(after.rules, play.raw.me, play.raw.opp, after.primed[1])
            return {"opening": list(opening), "actions": actions, "winner": turn,
                    "points": points, "result": points, "reason": "bear-off",
                    "name": result_name(after.rules, points), "moves": moves, "cube": 1,
                    "luck": [lucks[0], lucks[1]] if luck else None}
        if moves >= MAX_MOVES:
            raise RuntimeError(f"a game passed {MAX_MOVES} moves")
        pos = play.after
        turn = 1 - turn


def play_match(seats: tuple[_Seat, _Seat], seed: int, *, variant: str, length: int,
               luck: bool, stop: Any) -> dict[str, Any]:
    """A match to `length` points (0: one money game) on the dice stream `seed`."""
    dice = _Dice(seed)
    score = [0, 0]
    games: list[dict[str, Any]] = []
    while True:
        game = play_game(seats, dice, variant=variant, score=(score[0], score[1]),
                         length=length, seed=seed + len(games), luck=luck, stop=stop)
        games.append(game)
        score[game["winner"]] += game["points"]
        if length == 0 or max(score) >= length:
            break
    return {"levels": [seats[0].level, seats[1].level], "score": score,
            "winner": 0 if score[0] > score[1] else 1, "games": games}


def run_bot_match(args: dict[str, Any], call: Any) -> dict[str, Any]:
    """The worker job: `levels` [seat 0, seat 1], `variant`, `seed`, `length`, `swap`,
    `luck`, `time_ms` (each bot's budget per move)."""
    variant = find_variant(args["variant"]).name
    levels = list(args["levels"])
    time_ms = args.get("time_ms")
    seats = {name: _Seat(name, variant, time_ms) for name in set(levels)}
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
