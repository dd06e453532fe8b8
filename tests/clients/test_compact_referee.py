"""The referee with compact play records (`legal_moves` with `compact`) against a real
`jacquetd stdio` and the trivial external engine: the same games as with full records."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
from jacquetd_clients.client import JacquetClient
from jacquetd_clients.game import Observer, Referee, SeededDice
from jacquetd_clients.league.config import EngineSpec
from jacquetd_clients.league.engines import CommandPlayer

HERE = Path(__file__).parent
ENGINE = [sys.executable, str(HERE / "first_engine.py"), "--random", "5"]
DAEMON = [sys.executable, "-m", "jacquetd", "stdio", "--workers", "1"]


class _Kinds(Observer):
    """Which play records the referee got: compact ones carry `board`."""

    def __init__(self) -> None:
        self.kinds: set[str] = set()

    async def moved(self, state: object, seat: int, dice: object, play: dict[str, object]
                    ) -> None:
        self.kinds.add("compact" if "board" in play else "full")


async def _games(compact: bool) -> list[tuple[object, ...]]:
    """Two games per variant with full or compact records (one daemon, two engines)."""
    daemon = await JacquetClient.spawn(DAEMON, timeout=60)
    players = (CommandPlayer(EngineSpec(name="a", command=tuple(ENGINE)), 50, str(HERE)),
               CommandPlayer(EngineSpec(name="b", command=tuple(ENGINE)), 50, str(HERE)))
    try:
        for p in players:
            await p.start()
        kinds = _Kinds()
        referee = Referee(daemon, luck=False, compact=compact, observer=kinds)
        out = []
        for variant in ("jacquet", "backgammon"):
            for seed in range(2):
                g = await referee.play_game(players, SeededDice(seed), variant=variant,
                                            seed=seed)
                assert g.record is not None
                out.append((g.winner, g.points, g.result, g.name, g.moves, g.fault,
                            [(a.side, a.kind, a.move, a.dice) for a in g.record.actions]))
        assert kinds.kinds == {"compact" if compact else "full"}
        return out
    finally:
        for p in players:
            await p.close()
        await daemon.close()


def test_compact_plays_give_the_same_games() -> None:
    full, compact = asyncio.run(_games(False)), asyncio.run(_games(True))
    assert [g[5] for g in compact] == [None] * 4  # no forfeits
    assert compact == full


def test_a_play_without_a_readable_board_is_the_servers_fault() -> None:
    from jacquetd_clients.errors import EngineError
    from jacquetd_clients.game import _with_position

    assert _with_position({"move": "", "position": {"x": 1}}) == {"move": "", "position": {"x": 1}}
    with pytest.raises(EngineError, match="readable position"):
        _with_position({"move": "24/18", "position_id": "x", "board": "not a board"})
