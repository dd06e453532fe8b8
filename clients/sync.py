"""`SimpleClient`: the same calls as `JacquetClient`, blocking, for scripts and REPLs.

As python-chess's SimpleEngine does, it runs an event loop on a background
thread and hands each call to it (`run_coroutine_threadsafe`), waiting at most
the call's timeout (plus a little, so the async side's own timeout, which
also cancels the request on the engine, fires first).

    with SimpleClient.connect("tcp://127.0.0.1:5555") as engine:
        print(engine.best_move("start:jacquet", dice=(6, 5))["play"]["move"])
        for ranking in engine.analyze(position, dice=(6, 5), plies=2):
            print(ranking.plies, ranking.best)
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Coroutine, Iterator, Sequence
from types import TracebackType
from typing import Any, TypeVar

from jacquetd_protocol.results import (
    ApplyMoveResult,
    BestMoveResult,
    CancelResult,
    CubeResult,
    EvaluateResult,
    HelloResult,
    Play,
    PositionResult,
    StatsResult,
)

from .client import DEFAULT_TIMEOUT, Analysis, Dice, JacquetClient, Position, Ranking
from .errors import EngineTimeoutError

T = TypeVar("T")
#: Seconds the blocking side waits beyond the async side's own timeout.
SYNC_SLACK_S = 2.0


class SimpleClient:
    """A blocking client over a background event loop. Make one with `connect`, `spawn`,
    `open_stream` or `open` (the same arguments as JacquetClient's), and `close()` it
    (or use `with`)."""

    def __init__(self, client: JacquetClient, loop: asyncio.AbstractEventLoop,
                 thread: threading.Thread) -> None:
        self.client = client
        self._loop = loop
        self._thread = thread

    @classmethod
    def _make(cls, factory: Any, *args: Any, **kwargs: Any) -> SimpleClient:
        loop = asyncio.new_event_loop()
        thread = threading.Thread(target=loop.run_forever, name="jacquet-client", daemon=True)
        thread.start()
        try:
            client = asyncio.run_coroutine_threadsafe(factory(*args, **kwargs), loop).result()
        except BaseException:
            loop.call_soon_threadsafe(loop.stop)
            thread.join()
            loop.close()
            raise
        return cls(client, loop, thread)

    @classmethod
    def connect(cls, endpoint: str, **kwargs: Any) -> SimpleClient:
        return cls._make(JacquetClient.connect, endpoint, **kwargs)

    @classmethod
    def spawn(cls, argv: Sequence[str], **kwargs: Any) -> SimpleClient:
        return cls._make(JacquetClient.spawn, argv, **kwargs)

    @classmethod
    def open_stream(cls, host: str, port: int, **kwargs: Any) -> SimpleClient:
        return cls._make(JacquetClient.open_stream, host, port, **kwargs)

    @classmethod
    def open(cls, target: str | Sequence[str], **kwargs: Any) -> SimpleClient:
        return cls._make(JacquetClient.open, target, **kwargs)

    def _run(self, coro: Coroutine[Any, Any, T], timeout: float | None,
             budget_ms: int | None = None) -> T:
        future = asyncio.run_coroutine_threadsafe(coro, self._loop)
        base = self.client.timeout if timeout is None else timeout
        limit = None if base is None else base + (budget_ms or 0) / 1000.0 + SYNC_SLACK_S
        try:
            return future.result(limit)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise EngineTimeoutError(f"no answer within {limit:.3g} s") from None

    @property
    def server(self) -> dict[str, Any]:
        return self.client.server

    def request(self, cmd: str, *, timeout: float | None = None, **args: Any) -> dict[str, Any]:
        return self._run(self.client.request(cmd, timeout=timeout, **args), timeout)

    def hello(self, versions: Sequence[str] = ("1.0",), *, timeout: float | None = None
              ) -> HelloResult:
        return self._run(self.client.hello(versions, timeout=timeout), timeout)

    def ping(self, *, timeout: float | None = None) -> None:
        self._run(self.client.ping(timeout=timeout), timeout)

    def position(self, position: Position, *, timeout: float | None = None) -> PositionResult:
        return self._run(self.client.position(position, timeout=timeout), timeout)

    def legal_moves(self, position: Position, dice: Dice | None = None, *,
                    timeout: float | None = None) -> list[Play]:
        return self._run(self.client.legal_moves(position, dice, timeout=timeout), timeout)

    def apply_move(self, position: Position, move: str, dice: Dice | None = None, *,
                   timeout: float | None = None) -> ApplyMoveResult:
        return self._run(self.client.apply_move(position, move, dice, timeout=timeout), timeout)

    def best_move(self, position: Position, level: str | None = None,
                  plies: int | None = None, movetime_ms: int | None = None, *,
                  dice: Dice | None = None, seed: int | None = None,
                  timeout: float | None = None) -> BestMoveResult:
        return self._run(self.client.best_move(position, level, plies, movetime_ms, dice=dice,
                                               seed=seed, timeout=timeout),
                         timeout, movetime_ms)

    def analyze(self, position: Position, plies: int | None = None,
                movetime_ms: int | None = None, *, dice: Dice | None = None,
                max_plays: int | None = None, partials: bool = True,
                timeout: float | None = None) -> Iterator[Ranking]:
        """Each partial ranking, then the final one. Leaving the loop early (break, an
        exception) cancels the analysis."""
        analysis: Analysis = self._run(self.client.analyze(
            position, plies, movetime_ms, dice=dice, max_plays=max_plays, partials=partials,
            timeout=timeout), timeout)
        iterator = analysis.__aiter__()
        try:
            while True:
                try:
                    ranking = self._run(_anext(iterator), timeout, movetime_ms)
                except StopAsyncIteration:
                    return
                yield ranking
        finally:
            if not analysis.done:
                self._run(analysis.stop(), timeout)

    def evaluate(self, position: Position, *, plies: int | None = None,
                 timeout: float | None = None) -> EvaluateResult:
        return self._run(self.client.evaluate(position, plies=plies, timeout=timeout), timeout)

    def cube(self, position: Position, *, plies: int | None = None,
             timeout: float | None = None) -> CubeResult:
        return self._run(self.client.cube(position, plies=plies, timeout=timeout), timeout)

    def luck(self, position: Position, dice: Dice, *, timeout: float | None = None) -> float:
        return self._run(self.client.luck(position, dice, timeout=timeout), timeout)

    def cancel(self, target: int | str, *, timeout: float | None = None) -> CancelResult:
        return self._run(self.client.cancel(target, timeout=timeout), timeout)

    def stats(self, *, timeout: float | None = None) -> StatsResult:
        return self._run(self.client.stats(timeout=timeout), timeout)

    def quit(self, *, timeout: float | None = None) -> None:
        self._run(self.client.quit(timeout=timeout), timeout)

    def close(self) -> None:
        """Close the client, then stop the background loop. Idempotent."""
        if self._loop.is_closed():
            return
        try:
            self._run(self.client.close(), DEFAULT_TIMEOUT)
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join()
            self._loop.close()

    def __enter__(self) -> SimpleClient:
        return self

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


async def _anext(iterator: Any) -> Ranking:
    result: Ranking = await iterator.__anext__()
    return result


__all__ = ["SimpleClient"]
