"""The client library against a scripted fake server (ZeroMQ) and a stdio test engine."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest
from jacquetd_clients import (
    BadPositionError,
    EngineError,
    EngineTerminatedError,
    EngineTimeoutError,
    IllegalMoveError,
    JacquetClient,
    SimpleClient,
)
from jacquetd_protocol.errors import ErrorCode

from .fakes import FakeServer, error, ok, partial

T = TypeVar("T")
ENGINE = [sys.executable, str(Path(__file__).with_name("first_engine.py"))]


def run(coro: Awaitable[T]) -> T:
    return asyncio.run(asyncio.wait_for(coro, 20))  # type: ignore[arg-type]


def with_server(handler: Callable[[dict[str, Any]], list[Any]],
                body: Callable[[FakeServer, JacquetClient], Awaitable[T]]) -> T:
    async def go() -> T:
        async with FakeServer(handler) as server:
            client = await JacquetClient.connect(server.endpoint, timeout=5)
            try:
                return await body(server, client)
            finally:
                await client.close()
    return run(go())


PLAY = {"move": "24/18 18/13", "position_id": "x", "position": {}, "hits": 0, "borne_off": 0}


def test_hello_then_typed_call() -> None:
    def handler(req: dict[str, Any]) -> list[Any]:
        assert req["cmd"] == "legal_moves"
        assert req["position"] == "start:jacquet" and req["dice"] == [6, 5]
        assert "level" not in req  # None arguments are left out
        return [ok(req, {"count": 1, "plays": [PLAY]})]

    async def body(server: FakeServer, client: JacquetClient) -> None:
        assert client.server["engine"] == "fake"
        assert client.supports("analyze") and not client.supports("luck")
        plays = await client.legal_moves("start:jacquet", dice=(6, 5))
        assert plays == [PLAY]
        assert server.commands() == ["hello", "legal_moves"]
        assert server.received[0]["versions"] == ["1.0"]
    with_server(handler, body)


def test_replies_matched_out_of_order() -> None:
    def handler(req: dict[str, Any]) -> list[Any]:
        delay = 0.2 if req["cmd"] == "best_move" else 0.0
        return [(delay, ok(req, {"cmd": req["cmd"]}))]

    async def body(server: FakeServer, client: JacquetClient) -> None:
        slow = asyncio.ensure_future(client.request("best_move", position="start"))
        await asyncio.sleep(0.02)
        fast = await client.request("stats")
        assert fast == {"cmd": "stats"} and not slow.done()
        assert await slow == {"cmd": "best_move"}
        ids = [r["id"] for r in server.received]
        assert ids == sorted(set(ids))  # increasing, unique
    with_server(handler, body)


def test_error_reply_becomes_typed_exception() -> None:
    def handler(req: dict[str, Any]) -> list[Any]:
        if req["cmd"] == "apply_move":
            return [error(req, "illegal_move", "J7: a third closed point", field="move",
                          rule="J7")]
        if req["cmd"] == "position":
            return [error(req, "bad_position", "not 15 checkers", field="position.on_roll")]
        return [error(req, "brand_new_code", "from a newer server", hint=1)]

    async def body(server: FakeServer, client: JacquetClient) -> None:
        with pytest.raises(IllegalMoveError) as info:
            await client.apply_move("start", "24/18", dice=(6, 5))
        exc = info.value
        assert exc.code is ErrorCode.ILLEGAL_MOVE and exc.rule == "J7" and exc.field == "move"
        assert isinstance(exc, RuntimeError) and exc.id == server.received[-1]["id"]
        with pytest.raises(BadPositionError) as info2:
            await client.position({"variant": "jacquet"})
        assert info2.value.field == "position.on_roll"
        with pytest.raises(EngineError) as info3:
            await client.request("future_cmd")
        assert info3.value.code == "brand_new_code" and info3.value.extra == {"hint": 1}
    with_server(handler, body)


def ranking(plies: int, move: str) -> dict[str, Any]:
    return {"plays": [{**PLAY, "move": move, "equity": 0.1 * plies}], "plies": plies,
            "elapsed_ms": 1.0}


def test_analyze_streams_partials_then_final() -> None:
    def handler(req: dict[str, Any]) -> list[Any]:
        return [partial(req, ranking(0, "a")), (0.05, partial(req, ranking(1, "b"))),
                (0.05, ok(req, ranking(2, "c")))]

    async def body(server: FakeServer, client: JacquetClient) -> None:
        analysis = await client.analyze("start", dice=(6, 5), plies=2)
        seen = [(r.plies, r.best["move"] if r.best else None, r.final)
                async for r in analysis]
        assert seen == [(0, "a", False), (1, "b", False), (2, "c", True)]
        assert (await analysis.wait()).plies == 2
        assert server.received[-1]["plies"] == 2
    with_server(handler, body)


def test_analysis_stop_sends_cancel_and_gets_final() -> None:
    stream: dict[str, Any] = {}

    def handler(req: dict[str, Any]) -> list[Any]:
        if req["cmd"] == "analyze":
            stream["req"] = req
            return [partial(req, ranking(0, "a"))]
        if req["cmd"] == "cancel":
            target = {"id": req["target"]}
            return [ok(req, {"target": req["target"]}), ok(target, ranking(1, "b"))]
        return []

    async def body(server: FakeServer, client: JacquetClient) -> None:
        async with await client.analyze("start", dice=(6, 5)) as analysis:
            async for r in analysis:
                assert not r.final
                break
        assert "cancel" in server.commands()
        assert server.received[-1]["target"] == stream["req"]["id"]
        assert (await analysis.wait()).best["move"] == "b"  # type: ignore[index]
    with_server(handler, body)


def test_timeout_cancels_the_request() -> None:
    def handler(req: dict[str, Any]) -> list[Any]:
        if req["cmd"] == "cancel":
            return [ok(req, {"target": req["target"]}),
                    error({"id": req["target"]}, "cancelled", "cancelled")]
        return []  # never answers best_move

    async def body(server: FakeServer, client: JacquetClient) -> None:
        with pytest.raises(EngineTimeoutError) as info:
            await client.best_move("start", dice=(6, 5), timeout=0.1)
        assert isinstance(info.value, TimeoutError) and info.value.code is ErrorCode.TIMEOUT
        await asyncio.sleep(0.05)
        assert server.commands()[-1] == "cancel"
        assert server.received[-1]["target"] == server.received[-2]["id"]
        # a late reply to the timed-out request is dropped; the client still works
        assert await client.request("cancel", target=99) == {"target": 99}
    with_server(handler, body)


def test_best_move_budget_extends_timeout_and_maps_movetime() -> None:
    def handler(req: dict[str, Any]) -> list[Any]:
        return [(0.15, ok(req, {"play": PLAY, "level": req.get("level"), "elapsed_ms": 150}))]

    async def body(server: FakeServer, client: JacquetClient) -> None:
        result = await client.best_move("start", dice=(6, 5), level="random", movetime_ms=300,
                                        timeout=0.05)
        assert result["play"]["move"] == PLAY["move"]
        assert server.received[-1]["time_ms"] == 300
    with_server(handler, body)


def test_spawned_stdio_engine() -> None:
    async def go() -> None:
        async with await JacquetClient.spawn(ENGINE, timeout=10) as engine:
            assert engine.server["engine"] == "first-engine"
            plays = await engine.legal_moves("start:jacquet", dice=(6, 5))
            best = await engine.best_move("start:jacquet", dice=(6, 5))
            assert best["play"]["move"] == plays[0]["move"]
            # pipelined requests on one stream, answered in order
            results = await asyncio.gather(*(engine.ping() for _ in range(20)))
            assert results == [None] * 20
            with pytest.raises(EngineError):
                await engine.apply_move("start:jacquet", "24/10", dice=(6, 5))
    run(go())


def test_engine_exit_fails_pending_calls() -> None:
    async def go() -> None:
        engine = await JacquetClient.spawn([*ENGINE, "--crash-after", "1"], timeout=10)
        try:
            with pytest.raises(EngineTerminatedError):
                await engine.best_move("start:jacquet", dice=(6, 5))
            with pytest.raises(EngineTerminatedError):
                await engine.ping()
        finally:
            await engine.close()
    run(go())


def test_sync_client_same_methods() -> None:
    with SimpleClient.spawn(ENGINE, timeout=10) as engine:
        assert engine.server["engine"] == "first-engine"
        plays = engine.legal_moves("start:backgammon", dice=(3, 1))
        assert any(p["move"] == "8/5 6/5" for p in plays)
        assert engine.apply_move("start:backgammon", "8/5 6/5", dice=(3, 1))["hits"] == 0
        assert engine.best_move("start:backgammon", dice=(3, 1))["play"] == plays[0]
        with pytest.raises(IllegalMoveError):
            engine.apply_move("start:backgammon", "8/2", dice=(3, 1))
        engine.ping()


def test_sync_client_analyze_over_zmq() -> None:
    # The fake runs on the test thread's loop, the client on its own thread: use tcp.
    import threading

    import zmq

    ctx = zmq.Context.instance()
    sock = ctx.socket(zmq.ROUTER)
    sock.setsockopt(zmq.LINGER, 0)
    port = sock.bind_to_random_port("tcp://127.0.0.1")
    done = threading.Event()

    def serve_thread() -> None:
        import msgpack
        poller = zmq.Poller()
        poller.register(sock, zmq.POLLIN)
        while not done.is_set():
            if not poller.poll(50):
                continue
            ident, body = sock.recv_multipart()
            req = msgpack.unpackb(body)
            if req["cmd"] == "hello":
                out = [ok(req, {"engine": "fake-sync"})]
            else:
                out = [partial(req, ranking(0, "a")), ok(req, ranking(1, "b"))]
            for m in out:
                sock.send_multipart([ident, msgpack.packb(m)])

    thread = threading.Thread(target=serve_thread)
    thread.start()
    try:
        with SimpleClient.connect(f"tcp://127.0.0.1:{port}", timeout=5) as engine:
            assert engine.server["engine"] == "fake-sync"
            got = [(r.plies, r.final) for r in engine.analyze("start", dice=(6, 5))]
            assert got == [(0, False), (1, True)]
    finally:
        done.set()
        thread.join()
        sock.close(linger=0)
