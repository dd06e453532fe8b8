"""A scripted fake engine for the client tests: a ROUTER socket answering canned replies.

`FakeServer(handler)` binds a ROUTER on an `inproc://` endpoint of the shared
context; for each request it calls `handler(request)` which returns the
messages to send back (maps, sent in order, each optionally preceded by a
pause: `(seconds, map)`). Every request seen is kept in `received`.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from typing import Any

import msgpack
import zmq
import zmq.asyncio

Message = dict[str, Any] | tuple[float, dict[str, Any]]
Handler = Callable[[dict[str, Any]], list[Message]]

_endpoints = itertools.count(1)


def ok(req: dict[str, Any], result: dict[str, Any]) -> dict[str, Any]:
    return {"id": req.get("id"), "ok": True, "result": result}


def error(req: dict[str, Any], code: str, message: str, **extra: Any) -> dict[str, Any]:
    return {"id": req.get("id"), "ok": False, "error": {"code": code, "message": message, **extra}}


def partial(req: dict[str, Any], result: dict[str, Any]) -> dict[str, Any]:
    return {"id": req.get("id"), "partial": True, "result": result}


HELLO = {"protocol": "1.0", "engine": "fake", "version": "0", "variants": ["jacquet"],
         "commands": ["hello", "ping", "legal_moves", "best_move", "analyze", "cancel"],
         "planned": [], "encodings": ["msgpack"], "levels": ["random"], "limits": {}}


class FakeServer:
    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.endpoint = f"inproc://fake-engine-{next(_endpoints)}"
        self.sock = zmq.asyncio.Context.instance().socket(zmq.ROUTER)
        self.sock.setsockopt(zmq.LINGER, 0)
        self.sock.bind(self.endpoint)
        self.received: list[dict[str, Any]] = []
        self._task: asyncio.Task[None] | None = None
        self._sends: set[asyncio.Task[None]] = set()

    async def __aenter__(self) -> FakeServer:
        self._task = asyncio.get_running_loop().create_task(self._serve())
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._task is not None
        self._task.cancel()
        for t in self._sends:
            t.cancel()
        await asyncio.gather(self._task, *self._sends, return_exceptions=True)
        self.sock.close(linger=0)

    async def _serve(self) -> None:
        while True:
            identity, body = await self.sock.recv_multipart()  # DEALER: [identity, body]
            req = msgpack.unpackb(body)
            self.received.append(req)
            replies = [ok(req, HELLO)] if req.get("cmd") == "hello" else self.handler(req)
            task = asyncio.get_running_loop().create_task(self._send(identity, replies))
            self._sends.add(task)
            task.add_done_callback(self._sends.discard)

    async def _send(self, identity: bytes, replies: list[Message]) -> None:
        for item in replies:
            if isinstance(item, tuple):
                await asyncio.sleep(item[0])
                item = item[1]
            await self.sock.send_multipart([identity, msgpack.packb(item)])

    def commands(self) -> list[str]:
        return [r.get("cmd", "") for r in self.received]
