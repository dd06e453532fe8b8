"""The league's gnubg player answers a double from the taker's side: gnubg reads the side
on turn of a board with a double pending as the doubler (SPEC.md section 11.3), so the
board it is sent has the doubler on turn."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from jacquetd_clients.league.config import EngineSpec
from jacquetd_clients.league.engines import GnubgPlayer, find_gnubg


@pytest.mark.skipif(not Path(find_gnubg(None)).exists(), reason="gnubg is not installed")
def test_gnubg_drops_a_sure_winners_double_and_takes_a_sure_losers() -> None:
    last_checker = [14] + [0] * 25
    last_checker[1] = 1  # borne off next roll
    far = [0] * 26
    far[13], far[12] = 8, 7  # fifteen checkers far from home

    def offered(doubler: list[int], taker: list[int]) -> dict[str, object]:
        # from the doubler's side, as the referee asks `take`
        return {"variant": "backgammon", "on_roll": doubler, "opponent": taker, "dice": [],
                "primed": [False, False],
                "cube": {"value": 1, "owner": "centre", "pending": True},
                "match": {"length": 5, "score": [0, 0], "crawford": False}}

    async def go() -> tuple[bool, bool]:
        gnubg = GnubgPlayer(EngineSpec("gnubg", gnubg=find_gnubg(None), plies=0))
        await gnubg.start()
        try:
            return (await gnubg.take(offered(last_checker, far)),
                    await gnubg.take(offered(far, last_checker)))
        finally:
            await gnubg.close()

    takes_sure_loss, takes_sure_win = asyncio.run(go())
    assert not takes_sure_loss
    assert takes_sure_win
