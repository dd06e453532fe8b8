"""A league's unit of work: one dice stream's pair of games (seats swapped), played.

`play_unit` plays the jobs of one pair (both, or the one a resumed journal
still lacks) and returns their journal entries and the fault events. Between
two of the daemon's own levels (cube off, no extra options, same budget) it
sends one `bot_match` request for the pair, which plays next to the bots what
the referee would have played through the protocol, and turns the reply into
the same entries; otherwise the referee plays each game move by move.

The same function runs in the league process (`concurrency` at once) and on
Dask workers (`cluster.py`), so a pair's entries do not depend on where it ran.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jacquetd_protocol.records import Action, GameRecord, GameResult, MatchRecord, format_record

from ..client import JacquetClient
from ..errors import EngineError
from ..game import EngineFault, GameOutcome, Player, Referee, SeededDice, play_match
from .config import LeagueConfig
from .engines import make_player
from .schedule import Job

log = logging.getLogger(__name__)


@dataclass
class UnitResult:
    """What a pair produced: journal entries of its matches, then fault events."""

    pair: str
    entries: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)


def game_entry(g: GameOutcome) -> dict[str, Any]:
    return {"winner": g.winner, "points": g.points, "result": g.result, "reason": g.reason,
            "name": g.name, "moves": g.moves, "cube": g.cube, "fault": g.fault,
            "fault_message": g.fault_message,
            "luck": [round(v, 6) for v in g.luck] if g.luck is not None else None}


def headers(config: LeagueConfig, job: Job) -> dict[str, str]:
    return {"Match": job.id, "Event": config.name, "Pair": job.pair}


def match_entry(job: Job, outcome: Any, games: list[dict[str, Any]], record: MatchRecord,
                started: float) -> dict[str, Any]:
    return {"type": "match", "job": job.id, "pair": job.pair, "seed": job.seed,
            "players": list(job.players), "score": list(outcome[0]), "winner": outcome[1],
            "elapsed_s": round(time.monotonic() - started, 3), "games": games,
            "record": format_record(record)}


def server_loop_allowed(config: LeagueConfig, names: tuple[str, str], luck: bool,
                        daemon: JacquetClient) -> bool:
    """Whether the pair's games can be played by `bot_match`: both engines daemon levels
    with no extra options, the cube off, and a daemon that has the command."""
    if config.cube or not daemon.supports("bot_match"):
        return False
    if luck and not daemon.supports("luck"):
        return False
    return all(_plain_level(config, n) for n in names)


#: The search depth of the levels that search; `plies` other than these goes move by move.
LEVEL_PLIES = {"neural": 0, "neural-1": 1, "neural-2": 2}


def _plain_level(config: LeagueConfig, name: str) -> bool:
    """A daemon level played as `bot_match` plays it: no extra options, and `plies`
    absent or the level's own depth (`best_move` honours `plies` for the searching
    levels; `bot_match` plays each level at its own)."""
    e = config.engine(name)
    if e.kind != "level" or e.options or e.level is None:
        return False
    return e.plies is None or e.level not in LEVEL_PLIES or e.plies == LEVEL_PLIES[e.level]


def _engines_same_budget(config: LeagueConfig, names: tuple[str, str]) -> int | None:
    a, b = (config.engine(n) for n in names)
    ta, tb = a.time_ms or config.time_ms, b.time_ms or config.time_ms
    return ta if ta == tb else None


def _record(config: LeagueConfig, job: Job, reply: dict[str, Any]) -> MatchRecord:
    """The match record the referee writes (`game.play_match`), from a bot_match match."""
    record = MatchRecord(headers={
        "Variant": config.variant, "Length": str(config.match_length), "Cube": "off",
        "Crawford": "on", "Dice": "client", "Seed": str(job.seed),
        "Player0": job.players[0], "Player1": job.players[1], **headers(config, job)})
    score = [0, 0]
    for n, g in enumerate(reply["games"], 1):
        game = GameRecord(n, (score[0], score[1]), False, (g["opening"][0], g["opening"][1]))
        for seat, kind, value in g["actions"]:
            if kind == "roll":
                game.actions.append(Action(seat, "roll", dice=(value[0], value[1])))
            else:
                game.actions.append(Action(seat, "move", move=value))
        game.result = GameResult(g["winner"], g["points"], g["reason"], g["name"])
        record.games.append(game)
        score[g["winner"]] += g["points"]
    record.headers["Status"] = "finished"
    record.headers["Result"] = str(reply["winner"])
    record.headers["Score"] = f"{score[0]} {score[1]}"
    return record


def _bot_game(g: dict[str, Any]) -> dict[str, Any]:
    """The journal entry of a game of a `bot_match` reply, as `game_entry` writes it."""
    return game_entry(GameOutcome(g["winner"], g["points"], g["result"], g["reason"],
                                  g["name"], g["moves"], g["cube"], luck=g.get("luck")))


async def _server_pair(config: LeagueConfig, jobs: list[Job], daemon: JacquetClient,
                       luck: bool, time_ms: int, timeout: float | None) -> list[dict[str, Any]]:
    first = jobs[0]
    levels = [config.engine(n).level for n in first.players]
    swap = len(jobs) == 2
    started = time.monotonic()
    reply = await daemon.request("bot_match", levels=levels, seed=first.seed,
                                 variant=config.variant, length=config.match_length,
                                 swap=swap, luck=luck, time_ms=time_ms, timeout=timeout)
    entries = []
    for job, match in zip(jobs, reply["matches"], strict=True):
        record = _record(config, job, match)
        games = [_bot_game(g) for g in match["games"]]
        entry = match_entry(job, (match["score"], match["winner"]), games, record, started)
        entries.append(entry)
    return entries


@dataclass
class Seats:
    """What plays a unit: the daemon, a referee on it, and one player per engine (kept
    across units, restarted after a fault)."""

    daemon: JacquetClient
    referee: Referee
    players: dict[str, Player]
    make: Callable[[str], Player]
    luck: bool = True
    move_timeout: float | None = None

    @classmethod
    def of_league(cls, config: LeagueConfig, daemon: JacquetClient, *, luck: bool,
                  move_timeout: float, log_dir: Path | None = None) -> Seats:
        """The seats of `config`'s engines on `daemon`; luck is judged when `luck` is
        asked for and the daemon can."""
        luck = luck and daemon.supports("luck")
        referee = Referee(daemon, move_timeout=move_timeout, luck=luck, compact=True)
        return cls(daemon, referee, {},
                   lambda name: make_player(config.engine(name), time_ms=config.time_ms,
                                            daemon=daemon, cwd=config.base_dir,
                                            log_dir=log_dir),
                   luck=luck, move_timeout=move_timeout)

    def player(self, name: str) -> Player:
        if name not in self.players:
            self.players[name] = self.make(name)
        return self.players[name]

    async def close_players(self) -> None:
        for player in self.players.values():
            with contextlib.suppress(Exception):
                await player.close()


async def _referee_job(config: LeagueConfig, job: Job, seats: Seats,
                       events: list[dict[str, Any]],
                       on_fault: Callable[[], None] | None) -> dict[str, Any]:
    players = (seats.player(job.players[0]), seats.player(job.players[1]))

    async def after_game(game: GameOutcome) -> None:
        if game.fault is None:
            return
        loser = players[1 - game.winner]
        if on_fault is not None:
            on_fault()
        log.warning("%s lost a game of %s by %s: %s; restarting it", loser.name, job.id,
                    game.fault, game.fault_message)
        events.append({"type": "event", "what": "fault", "job": job.id, "engine": loser.name,
                       "fault": game.fault, "message": game.fault_message})
        try:
            await loser.restart()
        except (EngineFault, EngineError, OSError) as exc:  # the next game retries
            log.warning("%s: restart failed: %s", loser.name, exc)

    started = time.monotonic()
    outcome = await play_match(
        seats.referee, players, SeededDice(job.seed), variant=config.variant,
        length=config.match_length, cube=config.cube, seed=job.seed,
        headers=headers(config, job), after_game=after_game)
    return match_entry(job, (outcome.score, outcome.winner),
                       [game_entry(g) for g in outcome.games], outcome.record, started)


async def play_unit(config: LeagueConfig, jobs: list[Job], seats: Seats, *,
                    server_loop: bool = True,
                    on_fault: Callable[[], None] | None = None,
                    on_entry: Callable[[dict[str, Any]], Awaitable[bool]] | None = None,
                    result: UnitResult | None = None) -> UnitResult:
    """Play the jobs of one pair (in order) into `result` (a new one by default);
    `on_entry` (the local league) may take each entry as soon as it is played and answer
    False to stop (an SPRT decision)."""
    result = result if result is not None else UnitResult(jobs[0].pair)
    budget = _engines_same_budget(config, jobs[0].players)
    if server_loop and budget is not None and server_loop_allowed(
            config, jobs[0].players, seats.luck, seats.daemon):
        result.entries = await _server_pair(config, jobs, seats.daemon, seats.luck, budget,
                                            None)
        if on_entry is not None:
            for entry in result.entries:
                if not await on_entry(entry):
                    break
        return result
    for job in jobs:
        entry = await _referee_job(config, job, seats, result.events, on_fault)
        result.entries.append(entry)
        if on_entry is not None and not await on_entry(entry):
            break
    return result
