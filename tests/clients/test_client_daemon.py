"""The client library against a real daemon (the shared `jacquetd serve` of conftest.py),
over ZeroMQ and over the plain TCP byte stream."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import pytest
from jacquetd_clients import (
    EngineTimeoutError,
    IllegalMoveError,
    JacquetClient,
    NotFoundError,
    SimpleClient,
)
from jacquetd_protocol.errors import ErrorCode

T = TypeVar("T")


def both(daemon: Any, body: Callable[[JacquetClient], Awaitable[T]]) -> None:
    """Run `body` over ZeroMQ, then over the TCP byte stream."""
    async def go() -> None:
        host, port = daemon.tcp
        for opener in (lambda: JacquetClient.connect(daemon.zmq, timeout=30),
                       lambda: JacquetClient.open(f"socket://{host}:{port}", timeout=30)):
            async with await opener() as client:
                await body(client)
    asyncio.run(asyncio.wait_for(go(), 120))


def test_rules_calls_and_errors(jacquetd_server: Any) -> None:
    async def body(engine: JacquetClient) -> None:
        assert engine.server["protocol"].startswith("1.")
        assert {"legal_moves", "apply_move", "best_move"} <= set(engine.server["commands"])
        plays = await engine.legal_moves("start:backgammon", dice=(3, 1))
        assert "8/5 6/5" in {p["move"] for p in plays}
        play = await engine.apply_move("start:backgammon", "6/5 8/5", dice=(3, 1))
        assert play["position_id"] in {p["position_id"] for p in plays}
        with pytest.raises(IllegalMoveError) as info:
            await engine.apply_move("start", "24/18 24/19", dice=(6, 5))
        assert info.value.code is ErrorCode.ILLEGAL_MOVE and info.value.rule == "J6"
        a = await engine.best_move("start:backgammon", dice=(3, 1), level="random", seed=4)
        b = await engine.best_move("start:backgammon", dice=(3, 1), level="random", seed=4)
        assert a["play"]["position_id"] == b["play"]["position_id"]
        many = await asyncio.gather(*(engine.legal_moves("start", dice=(d, 1))
                                      for d in range(1, 7)))
        assert all(len(x) >= 1 for x in many)
    both(jacquetd_server, body)


def test_timeout_cancels_on_the_server_too(jacquetd_server: Any) -> None:
    async def body(engine: JacquetClient) -> None:
        started = time.monotonic()
        with pytest.raises(EngineTimeoutError):
            await engine.request("best_move", position="start:backgammon", dice=[3, 1],
                                 level="test-sleep", time_ms=20_000, timeout=0.3)
        assert time.monotonic() - started < 5
        await engine.ping()  # the session goes on
        with pytest.raises(NotFoundError):
            await engine.cancel(123456)
    both(jacquetd_server, body)


def test_analyze_streams_when_the_daemon_has_an_evaluator(jacquetd_server: Any) -> None:
    async def body(engine: JacquetClient) -> None:
        if "analyze" not in engine.server["commands"]:
            pytest.skip("no analyze")
        try:
            analysis = await engine.analyze("start:backgammon", dice=(3, 1), plies=1)
            rankings = [r async for r in analysis]
        except Exception as exc:  # an evaluator-less daemon refuses analyze
            pytest.skip(f"analyze unavailable: {exc}")
        assert rankings[-1].final and all(not r.final for r in rankings[:-1])
        assert rankings[-1].best is not None and "equity" in rankings[-1].best
    both(jacquetd_server, body)


def test_sync_client_over_zmq(jacquetd_server: Any) -> None:
    with SimpleClient.connect(jacquetd_server.zmq, timeout=30) as engine:
        assert engine.server["engine"] == "jacquetd"
        assert engine.legal_moves("start:jacquet", dice=(6, 5))[0]["move"] == "24/18 18/13"
        stats = engine.stats()
        assert stats["served"] >= 1
