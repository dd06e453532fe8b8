"""Requests that survive a lost connection and a daemon restart: `ReconnectingClient`.

A hosted match lives in the daemon's database, so it outlives a connection and
even the daemon process. What a client must not lose is the answer to an action
it sent just before the connection broke: was the move played, and (for
`match_new`) what are the secret tokens? The protocol's answer (SPEC 12.5) is
a session key that `hello` hands out and that the client presents again: a match
action retried with the same request id in the same session gets the reply the
daemon stored when it first applied the action, tokens included, with
`replayed: true`, even after a restart. Nobody else can present the key, so
nobody else gets the tokens.

`ReconnectingClient` does that for any `JacquetClient`: every request gets an id
that is unique in the session (a string, so that ids never repeat across
reconnections); when the connection breaks or a reply does not come in time, it
opens a new connection to the same engine (`JacquetClient.reopen`, in the same
session), and sends the same request again with the same id, a bounded number of
times with growing pauses.

    link = ReconnectingClient(await JacquetClient.open("socket://127.0.0.1:7781"))
    new = await link.request("match_new", variant="backgammon", seat1="neural")
    await link.request("match_roll", match_id=new["match_id"], token=new["tokens"][0])
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import secrets
from typing import Any

from jacquetd_protocol.results import CubeResult

from .client import Analysis, JacquetClient
from .errors import EngineError, EngineTerminatedError, EngineTimeoutError

log = logging.getLogger(__name__)

#: Failures after which a request is sent again on a new connection: the connection
#: broke, or no reply came in time (a ZeroMQ peer never sees a daemon go away).
RETRYABLE = (EngineTerminatedError, EngineTimeoutError)


class ReconnectingClient:
    """A `JacquetClient` that reconnects and resends (see the module docstring).

    `client` is the connection in use now; it changes after a reconnection. Retries are
    bounded by `attempts` (sends of one request, the first included); between them the
    client waits `pause_s`, doubled each time up to `max_pause_s`, while it reconnects.
    """

    def __init__(self, client: JacquetClient, *, attempts: int = 8, pause_s: float = 0.25,
                 max_pause_s: float = 4.0) -> None:
        self.client = client
        self.attempts = max(1, attempts)
        self.pause_s = pause_s
        self.max_pause_s = max_pause_s
        self.reconnections = 0
        self._prefix = secrets.token_hex(4)
        self._ids = itertools.count(1)
        self._opened: list[JacquetClient] = []  # clients this object opened (and closes)

    @property
    def session(self) -> str | None:
        """The session key the retries present (from the first `hello`)."""
        return self.client.session

    @property
    def server(self) -> dict[str, Any]:
        """The `hello` result of the connection in use."""
        return self.client.server

    def new_id(self) -> str:
        """A request id no other request of this object has used (nor will)."""
        return f"r-{self._prefix}-{next(self._ids)}"

    async def request(self, cmd: str, *, request_id: int | str | None = None,
                      timeout: float | None = None, **args: Any) -> dict[str, Any]:
        """`JacquetClient.request`, sent again with the same id on a new connection when
        the connection breaks or the reply does not come within `timeout`. Raises the
        last failure after `attempts` sends, and every other EngineError at once."""
        rid = request_id if request_id is not None else self.new_id()
        pause = self.pause_s
        for attempt in range(1, self.attempts + 1):
            try:
                return await self.client.request(cmd, timeout=timeout, request_id=rid, **args)
            except RETRYABLE as exc:
                if attempt == self.attempts:
                    raise
                log.info("%s %s: %s; reconnecting (attempt %d of %d)", cmd, rid, exc,
                         attempt + 1, self.attempts)
            pause = await self._reconnect(pause)
        raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises

    async def _reconnect(self, pause: float) -> float:
        """Replace the connection (waiting `pause` first); returns the next pause. A
        reconnection that fails is left to the next attempt of the request."""
        await asyncio.sleep(pause)
        old = self.client
        try:
            new = await old.reopen()
        except EngineError as exc:
            log.info("cannot reconnect yet: %s", exc)
        else:
            self.client = new
            self._opened.append(new)
            self.reconnections += 1
            with contextlib.suppress(EngineError, OSError):
                await old.close()
        return min(self.max_pause_s, pause * 2)

    async def analyze(self, *args: Any, **kwargs: Any) -> Analysis:
        """`JacquetClient.analyze` on the connection in use (not retried: a stream)."""
        return await self.client.analyze(*args, **kwargs)

    async def cube(self, *args: Any, **kwargs: Any) -> CubeResult:
        """`JacquetClient.cube` on the connection in use (advice: not retried)."""
        return await self.client.cube(*args, **kwargs)

    async def close(self) -> None:
        """Close the connections this object opened (the one it was given stays its
        owner's to close)."""
        for client in self._opened:
            with contextlib.suppress(EngineError, OSError):
                await client.close()
        self._opened.clear()
