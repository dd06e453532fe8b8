"""One seed, one match: the referee's dice and seeds are the engine's, so a match played
through the protocol by the referee is the match `bot_match` plays next to the bots."""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import pytest
from jacquetd_clients.client import JacquetClient
from jacquetd_clients.game import Player, PlayMap, Referee, SeededDice, Turn, play_match
from jacquetd_protocol.seeds import MAX_SEED, game_seed, job_seed, move_seed

from jacquetd.rules import DiceSource

DAEMON = [sys.executable, "-m", "jacquetd", "stdio", "--workers", "1"]


@pytest.mark.parametrize("seed", [0, 1, 2024, MAX_SEED])
def test_the_referee_rolls_the_engines_dice(seed: int) -> None:
    async def referee() -> list[tuple[int, int]]:
        dice = SeededDice(seed)
        return [await dice.opening()] + [await dice.roll() for _ in range(200)]

    engine = DiceSource(seed)
    assert asyncio.run(referee()) == [engine.opening()] + [engine.roll() for _ in range(200)]


def test_seeds_stay_protocol_integers() -> None:
    assert 0 <= move_seed(game_seed(MAX_SEED, 9), 1999) <= MAX_SEED
    assert 0 <= job_seed(7, "a", "b", 3) <= MAX_SEED
    assert job_seed(7, "a", "b", 3) != job_seed(7, "b", "a", 3)


class _Level(Player):
    """A daemon level asked through `best_move` with the referee's per-move seed."""

    def __init__(self, client: JacquetClient, level: str) -> None:
        self.client = client
        self.level = level
        self.name = level

    async def choose(self, turn: Turn) -> PlayMap | str:
        result = await self.client.best_move(turn.position, level=self.level, seed=turn.seed)
        play: dict[str, Any] = result["play"]
        return play


@pytest.mark.parametrize("variant", ["jacquet", "jacquet-be", "backgammon"])
def test_a_refereed_match_is_the_match_bot_match_plays(variant: str) -> None:
    seed, length = job_seed(5, variant), 3

    async def main() -> None:
        async with await JacquetClient.spawn(DAEMON, timeout=120) as client:
            reply = await client.request("bot_match", levels=["random", "heuristic"],
                                         seed=seed, variant=variant, length=length,
                                         luck=False)
            served = reply["matches"][0]
            players = (_Level(client, "random"), _Level(client, "heuristic"))
            refereed = await play_match(Referee(client, luck=False), players,
                                        SeededDice(seed), variant=variant, length=length,
                                        seed=seed)
        assert served["score"] == list(refereed.score)
        assert served["winner"] == refereed.winner
        assert len(served["games"]) == len(refereed.games) >= 1
        for game, outcome in zip(served["games"], refereed.games, strict=True):
            record = outcome.record
            assert record is not None and record.opening is not None
            assert game["opening"] == list(record.opening)
            actions = [[a.side, a.kind, list(a.dice) if a.kind == "roll" else a.move]
                       for a in record.actions]
            assert game["actions"] == actions
            assert (game["winner"], game["points"], game["name"]) == (
                outcome.winner, outcome.points, outcome.name)

    asyncio.run(main())
