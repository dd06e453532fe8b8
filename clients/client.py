"""The asyncio client of protocol v1: `JacquetClient`.

One client talks to one engine over any transport (transport.py): the
daemon's ZeroMQ endpoint, a process spawned with `stdio`, or a TCP byte
stream. Requests get increasing integer ids; replies are matched by id in
whatever order they come, so many calls may be in flight at once. Partial
results of a streaming request (`analyze`) are delivered through `Analysis`,
an async iterator. A call that takes longer than its timeout raises
`EngineTimeoutError` after the client has sent `cancel` for it; an error reply
raises the `EngineError` subclass for its code (errors.py).

    async with await JacquetClient.connect("tcp://127.0.0.1:5555") as engine:
        plays = await engine.legal_moves("start:jacquet", dice=(6, 5))
        best = await engine.best_move("start:jacquet", dice=(6, 5), level="heuristic")
        async with await engine.analyze(position, dice=(6, 5), plies=2) as analysis:
            async for ranking in analysis:
                print(ranking.plies, ranking.plays[0]["move"])
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import IO, Any, cast

from jacquetd_protocol.commands import MATCH_ACTIONS
from jacquetd_protocol.errors import ProtocolError
from jacquetd_protocol.messages import Partial, Reply
from jacquetd_protocol.results import (
    AnalyzeResult,
    ApplyMoveResult,
    BestMoveResult,
    CancelResult,
    CompactPlay,
    CubeResult,
    EvaluateResult,
    HelloResult,
    Play,
    PositionResult,
    RankedPlay,
    StatsResult,
)

from . import wire
from .about import distribution_version
from .errors import (
    BadArgumentError,
    EngineError,
    EngineProtocolError,
    EngineTerminatedError,
    EngineTimeoutError,
    error_from_reply,
)
from .transport import (
    STREAM_SCHEME,
    ZMQ_SCHEMES,
    ProcessTransport,
    StreamTransport,
    Transport,
    ZmqTransport,
)
from .variants import VariantInfo, variant_infos

log = logging.getLogger(__name__)

#: Seconds a call may take when the caller gives no timeout. A search's own
#: budget (`movetime_ms`) is added to it.
DEFAULT_TIMEOUT = 30.0
#: With an explicit timeout the server is told too; the client waits this much longer
#: for the server's own `timeout` reply before it gives up on its side.
SERVER_TIMEOUT_SLACK_S = 0.25
CLIENT_NAME = f"jacquet-clients/{distribution_version()}"
PROTOCOL_VERSIONS = ("1.0",)

Position = Mapping[str, Any] | str
Dice = Sequence[int]


@dataclass(frozen=True)
class Ranking:
    """One result of `analyze`: the plays best first (each a ranked-play map: `move`,
    `position`, `position_id`, probabilities, `equity`, `plies`), the depth reached,
    and whether this is the final reply (`final`) or a partial one."""

    plays: list[RankedPlay]
    plies: int
    elapsed_ms: float
    final: bool
    raw: AnalyzeResult = field(repr=False, default_factory=lambda: cast(AnalyzeResult, {}))

    @classmethod
    def from_result(cls, result: Mapping[str, Any], final: bool) -> Ranking:
        plays = result.get("plays")
        return cls(list(plays) if isinstance(plays, list) else [], int(result.get("plies", 0)),
                   float(result.get("elapsed_ms", 0.0)), final,
                   cast(AnalyzeResult, dict(result)))

    @property
    def best(self) -> RankedPlay | None:
        return self.plays[0] if self.plays else None


class _Call:
    """A request in flight: the future of its final reply and, for streams, its partials."""

    __slots__ = ("cmd", "final", "partials")

    def __init__(self, cmd: str, streaming: bool) -> None:
        self.cmd = cmd
        self.final: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        # The caller may have stopped waiting (its timeout, a cancel): mark the error as
        # seen, so that asyncio does not log it as never retrieved. Awaiting still raises.
        self.final.add_done_callback(_mark_retrieved)
        self.partials: asyncio.Queue[dict[str, Any]] | None = (
            asyncio.Queue() if streaming else None)


def _mark_retrieved(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()


class Analysis:
    """The stream of an `analyze` request: partial rankings, then the final one.

    `async for ranking in analysis` yields each partial `Ranking` as it arrives and
    the final ranking last (`ranking.final`), then stops. `await analysis.wait()`
    skips to the final ranking. `await analysis.stop()` sends `cancel`: the
    engine then ends the request with its best ranking so far (or `cancelled`).
    Used as `async with`, leaving the block stops an unfinished analysis.
    """

    def __init__(self, client: JacquetClient, rid: int | str, call: _Call,
                 timeout: float | None) -> None:
        self._client = client
        self.id = rid
        self._call = call
        self._deadline = (asyncio.get_running_loop().time() + timeout) if timeout else None
        self.final: Ranking | None = None

    def _remaining(self) -> float | None:
        if self._deadline is None:
            return None
        return max(0.0, self._deadline - asyncio.get_running_loop().time())

    def __aiter__(self) -> AsyncIterator[Ranking]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[Ranking]:
        call = self._call
        assert call.partials is not None
        while True:
            if call.partials.empty() and call.final.done():
                break
            getter = asyncio.ensure_future(call.partials.get())
            try:
                done, _ = await asyncio.wait({getter, call.final}, timeout=self._remaining(),
                                             return_when=asyncio.FIRST_COMPLETED)
            finally:
                if not getter.done():
                    getter.cancel()
            if getter in done:
                yield Ranking.from_result(getter.result(), final=False)
            elif not done:
                await self._timed_out()
        yield await self.wait()

    async def wait(self) -> Ranking:
        """The final ranking (raises the request's EngineError if it failed)."""
        if self.final is None:
            try:
                result = await asyncio.wait_for(asyncio.shield(self._call.final),
                                                self._remaining())
            except TimeoutError:
                await self._timed_out()
            self.final = Ranking.from_result(result, final=True)
        return self.final

    async def _timed_out(self) -> None:
        await self._client._cancel_quietly(self.id)
        raise EngineTimeoutError("analyze did not finish in time", id=self.id)

    async def stop(self) -> None:
        """Ask the engine to stop; the final reply still comes (see `wait`)."""
        if not self._call.final.done():
            await self._client._cancel_quietly(self.id)

    @property
    def done(self) -> bool:
        return self._call.final.done()

    async def __aenter__(self) -> Analysis:
        return self

    async def __aexit__(self, et: type[BaseException] | None, ev: BaseException | None,
                        tb: TracebackType | None) -> None:
        if not self.done:
            await self.stop()
            with contextlib.suppress(EngineError, TimeoutError):
                await asyncio.wait_for(asyncio.shield(self._call.final), 5.0)


class JacquetClient:
    """An asyncio client for any engine that speaks protocol v1.

    Make one with `connect` (ZeroMQ endpoint), `spawn` (a process speaking over its
    stdio), `open_stream` (a TCP byte stream) or `open` (any of those from one
    string), use it as `async with`, and call the typed methods or `request`.
    Every method raises an `EngineError` subclass on failure (errors.py).
    """

    def __init__(self, transport: Transport, *, timeout: float | None = DEFAULT_TIMEOUT,
                 session: str | None = None) -> None:
        self.transport = transport
        self.timeout = timeout
        self.server: dict[str, Any] = {}   # the `hello` result, once `hello()` was called
        #: The session key (SPEC 12.5): the one given, else the one `hello` got. Match
        #: actions present it, so that a retry gets its stored reply, tokens included.
        self.session = session
        #: How to open another client to the same engine (set by the constructors).
        self.reopener: Callable[[str | None], Awaitable[JacquetClient]] | None = None
        self._ids = itertools.count(1)
        self._calls: dict[int | str | None, _Call] = {}
        self._closed: EngineError | None = None
        self._reader = asyncio.get_running_loop().create_task(self._read_loop())

    # -- construction -------------------------------------------------------------------

    @classmethod
    async def connect(cls, endpoint: str, *, hello: bool = True,
                      timeout: float | None = DEFAULT_TIMEOUT,
                      curve: Mapping[str, bytes] | None = None,
                      session: str | None = None) -> JacquetClient:
        """A client of the daemon's ZeroMQ endpoint (`tcp://`, `ipc://`, `inproc://`).
        ZeroMQ connects lazily: `hello` (on by default) proves the daemon is there."""
        client = cls(ZmqTransport(endpoint, curve=curve), timeout=timeout, session=session)
        client.reopener = lambda key: cls.connect(endpoint, hello=hello, timeout=timeout,
                                                  curve=curve, session=key)
        return await client._start(hello)

    @classmethod
    async def spawn(cls, argv: Sequence[str], *, hello: bool = True,
                    timeout: float | None = DEFAULT_TIMEOUT,
                    cwd: str | os.PathLike[str] | None = None,
                    env: Mapping[str, str] | None = None,
                    stderr: int | IO[Any] | None = None,
                    session: str | None = None) -> JacquetClient:
        """Start an engine process (`["jacquetd", "stdio"]`, any protocol v1 program)
        and speak to it over its stdin and stdout."""
        transport = await ProcessTransport.spawn(argv, cwd=cwd, env=env, stderr=stderr)
        client = cls(transport, timeout=timeout, session=session)
        client.reopener = lambda key: cls.spawn(argv, hello=hello, timeout=timeout, cwd=cwd,
                                                env=env, stderr=stderr, session=key)
        return await client._start(hello)

    @classmethod
    async def open_stream(cls, host: str, port: int, *, hello: bool = True,
                          timeout: float | None = DEFAULT_TIMEOUT,
                          session: str | None = None) -> JacquetClient:
        """A client over a plain TCP byte stream (the daemon's `--tcp` endpoint)."""
        client = cls(await StreamTransport.connect(host, port), timeout=timeout,
                     session=session)
        client.reopener = lambda key: cls.open_stream(host, port, hello=hello,
                                                      timeout=timeout, session=key)
        return await client._start(hello)

    @classmethod
    async def open(cls, target: str | Sequence[str], **kwargs: Any) -> JacquetClient:
        """`tcp://`/`ipc://`/`inproc://` -> `connect`; `socket://HOST:PORT` ->
        `open_stream`; a list of words, or any other string (split on spaces), ->
        `spawn`."""
        if isinstance(target, str):
            if target.startswith(ZMQ_SCHEMES):
                return await cls.connect(target, **kwargs)
            if target.startswith(STREAM_SCHEME):
                host, _, port = target[len(STREAM_SCHEME):].rpartition(":")
                return await cls.open_stream(host or "127.0.0.1", int(port), **kwargs)
            target = target.split()
        return await cls.spawn(list(target), **kwargs)

    async def reopen(self) -> JacquetClient:
        """Another client to the same engine (the same address, or a new process of the
        same command), in the same session. This one is left as it is."""
        if self.reopener is None:
            raise EngineTerminatedError(f"{self.transport.description}: no way to reconnect")
        return await self.reopener(self.session)

    async def _start(self, hello: bool) -> JacquetClient:
        if hello:
            try:
                await self.hello()
            except BaseException:
                await self.close()
                raise
        return self

    async def __aenter__(self) -> JacquetClient:
        return self

    async def __aexit__(self, et: type[BaseException] | None, ev: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.close()

    # -- the machinery --------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        return self._closed is not None

    async def _read_loop(self) -> None:
        reason: EngineError = EngineTerminatedError(f"{self.transport.description} went away")
        try:
            while True:
                frame = await self.transport.recv()
                if isinstance(frame, ProtocolError):
                    log.warning("%s: unreadable reply stream: %s", self.transport.description,
                                frame)
                    continue
                try:
                    msg = wire.decode(frame, scanned=self.transport.frames_scanned)
                except ProtocolError as exc:
                    log.warning("%s: dropped an unreadable reply: %s", self.transport.description,
                                exc)
                    continue
                self._dispatch(msg)
        except EngineError as exc:
            reason = exc
        except asyncio.CancelledError:
            reason = EngineTerminatedError("the client was closed")
            raise
        finally:
            self._fail_all(reason)

    def _dispatch(self, msg: Reply | Partial) -> None:
        call = self._calls.get(msg.id)
        if call is None:
            log.debug("%s: reply to unknown request %r dropped", self.transport.description,
                      msg.id)
            return
        if isinstance(msg, Partial):
            if call.partials is not None:
                call.partials.put_nowait(msg.result)
            return
        del self._calls[msg.id]
        if call.final.done():
            return
        if msg.ok and msg.result is not None:
            call.final.set_result(msg.result)
        else:
            call.final.set_exception(error_from_reply(msg.error or {}, msg.id))

    def _fail_all(self, reason: EngineError) -> None:
        if self._closed is None:
            self._closed = reason
        for call in self._calls.values():
            if not call.final.done():
                call.final.set_exception(EngineTerminatedError(reason.message))
        self._calls.clear()

    async def _send(self, cmd: str, args: Mapping[str, Any], streaming: bool,
                    rid: int | str | None = None) -> tuple[int | str, _Call]:
        if self._closed is not None:
            raise EngineTerminatedError(self._closed.message)
        if rid is None:
            rid = next(self._ids)
        elif rid in self._calls:
            raise EngineProtocolError(f"request id {rid!r} is already in flight")
        if cmd in MATCH_ACTIONS and self.session is not None and "session" not in args:
            args = {**args, "session": self.session}  # a retry then gets its stored reply
        try:
            frame = wire.encode(rid, cmd, dict(args))
        except (ValueError, TypeError, OverflowError) as exc:
            raise EngineProtocolError(f"cannot encode {cmd}: {exc}") from None
        call = _Call(cmd, streaming)
        self._calls[rid] = call
        log.debug("%s << %s %s", self.transport.description, rid, cmd)
        try:
            await self.transport.send(frame)
        except BaseException:
            self._calls.pop(rid, None)
            raise
        return rid, call

    def _timeout(self, timeout: float | None, extra_ms: int | None = None) -> float | None:
        base = self.timeout if timeout is None else timeout
        if base is None or base <= 0:
            return None
        return base + (extra_ms or 0) / 1000.0

    async def _cancel_quietly(self, target: int | str) -> None:
        if target in self._calls and self._closed is None:
            with contextlib.suppress(EngineError, ProtocolError):
                await self._send("cancel", {"target": target}, False)

    async def request(self, cmd: str, *, timeout: float | None = None,
                      budget_ms: int | None = None, request_id: int | str | None = None,
                      **args: Any) -> dict[str, Any]:
        """Send any command with its arguments (None values are left out) and return the
        result map of its final reply. `timeout` (seconds; default `self.timeout`)
        plus `budget_ms` bounds the wait: when it passes, the client cancels the
        request and raises EngineTimeoutError. An explicit `timeout` is also sent as
        the request's `timeout_ms`, so the server stops the work at the same moment
        (its `timeout` error reply raises EngineTimeoutError too). Partial results
        are ignored here. `request_id` sends the request with that id (a string, unique
        among this session's requests: see `ReconnectingClient`) instead of the next
        number."""
        limit = self._timeout(timeout, budget_ms)
        if timeout is not None and limit is not None and "timeout_ms" not in args:
            args["timeout_ms"] = max(1, int(limit * 1000))
            limit += SERVER_TIMEOUT_SLACK_S
        rid, call = await self._send(cmd, args, False, request_id)
        try:
            # a deadline on this task: no task and no shield per request, as `wait_for`
            # makes (3.11). Only this call waits on `final`, so it may be cancelled with it
            # (a late reply is then dropped by `_dispatch`).
            async with asyncio.timeout(limit):
                return await call.final
        except TimeoutError:
            await self._cancel_quietly(rid)
            raise EngineTimeoutError(f"{cmd} did not answer within {limit:.3g} s", id=rid
                                     ) from None
        except asyncio.CancelledError:
            await self._cancel_quietly(rid)
            raise

    async def stream(self, cmd: str, *, timeout: float | None = None,
                     budget_ms: int | None = None, **args: Any) -> Analysis:
        """Send a streaming command; the returned `Analysis` yields its results."""
        rid, call = await self._send(cmd, args, True)
        return Analysis(self, rid, call, self._timeout(timeout, budget_ms))

    async def close(self) -> None:
        """Fail the calls still in flight, say `quit` on a byte stream, release the
        transport (a spawned engine is waited for, then killed if it lingers)."""
        if self._closed is None and self.transport.is_byte_stream:
            with contextlib.suppress(EngineError, ProtocolError, OSError):
                _rid, call = await self._send("quit", {}, False)
                with contextlib.suppress(EngineError, TimeoutError):
                    await asyncio.wait_for(asyncio.shield(call.final), 1.0)
        self._reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._reader
        await self.transport.close()

    # -- the typed commands ----------------------------------------------------------------

    async def hello(self, versions: Sequence[str] = PROTOCOL_VERSIONS, *,
                    client: str = CLIENT_NAME, timeout: float | None = None) -> HelloResult:
        """Negotiate the version; the result (commands, levels, variants, limits) is kept
        in `self.server`. The client presents its session key, if it has one, and keeps
        the one the server answers (SPEC 12.5)."""
        try:
            self.server = await self.request("hello", versions=list(versions), client=client,
                                             session=self.session, timeout=timeout)
        except BadArgumentError as exc:
            if self.session is None or exc.field != "session":
                raise
            # not a key of this server (another database): a new session, no replays
            log.warning("%s: the server does not know our session; starting a new one",
                        self.transport.description)
            self.session = None
            self.server = await self.request("hello", versions=list(versions), client=client,
                                             timeout=timeout)
        session = self.server.get("session")
        if isinstance(session, str) and session:
            self.session = session
        return cast(HelloResult, self.server)

    def supports(self, cmd: str) -> bool:
        """Whether `hello` listed `cmd` among the server's commands."""
        return cmd in self.server.get("commands", ())

    def variant(self, name: str) -> VariantInfo:
        """What the server's `hello` says of the variant `name` (`variant_rules`).
        EngineError when `hello` was not called, when the server does not describe its
        variants, or when it does not play `name`."""
        infos = variant_infos(self.server)
        if name not in infos:
            raise EngineError(f"the rules server plays no variant {name!r} (it plays "
                              f"{', '.join(infos) or 'none'})")
        return infos[name]

    async def ping(self, *, timeout: float | None = None) -> None:
        await self.request("ping", timeout=timeout)

    async def position(self, position: Position, *, timeout: float | None = None
                       ) -> PositionResult:
        """`{"position_id", "position"}`: the position checked and in both forms."""
        return cast(PositionResult, await self.request("position", position=_pos(position),
                                                       timeout=timeout))

    async def legal_moves(self, position: Position, dice: Dice | None = None, *,
                          timeout: float | None = None) -> list[Play]:
        """The legal plays (maps: `move`, `position`, `position_id`, `hits`, `borne_off`)."""
        result = await self.request("legal_moves", position=_pos(position), dice=_dice(dice),
                                    timeout=timeout)
        return cast(list[Play], list(result.get("plays", [])))

    async def legal_moves_compact(self, position: Position, dice: Dice | None = None, *,
                                  timeout: float | None = None
                                  ) -> list[Play | CompactPlay]:
        """The legal plays as compact records (`move`, `position_id`, `board`, and
        `result` when the play ends the game: `legal_moves` with `compact`, protocol 1.2);
        a server without the option ignores it and sends full records."""
        result = await self.request("legal_moves", position=_pos(position), dice=_dice(dice),
                                    compact=True, timeout=timeout)
        return cast(list[Play | CompactPlay], list(result.get("plays", [])))

    async def apply_move(self, position: Position, move: str, dice: Dice | None = None, *,
                         timeout: float | None = None) -> ApplyMoveResult:
        """The play `move` makes (a play map); IllegalMoveError if the rules forbid it."""
        return cast(ApplyMoveResult, await self.request(
            "apply_move", position=_pos(position), move=move, dice=_dice(dice),
            timeout=timeout))

    async def best_move(self, position: Position, level: str | None = None,
                        plies: int | None = None, movetime_ms: int | None = None, *,
                        dice: Dice | None = None, seed: int | None = None,
                        timeout: float | None = None) -> BestMoveResult:
        """The bot's choice: `{"play": {...}, "level", "elapsed_ms"}`. `movetime_ms` is the
        search budget (the protocol's `time_ms`); it is added to the timeout."""
        return cast(BestMoveResult, await self.request(
            "best_move", position=_pos(position), dice=_dice(dice), level=level, plies=plies,
            time_ms=movetime_ms, seed=seed, timeout=timeout, budget_ms=movetime_ms))

    async def analyze(self, position: Position, plies: int | None = None,
                      movetime_ms: int | None = None, *, dice: Dice | None = None,
                      max_plays: int | None = None, partials: bool = True,
                      timeout: float | None = None) -> Analysis:
        """Start an analysis; iterate the returned `Analysis` for its rankings."""
        return await self.stream("analyze", position=_pos(position), dice=_dice(dice),
                                 plies=plies, time_ms=movetime_ms, max_plays=max_plays,
                                 partials=partials, timeout=timeout, budget_ms=movetime_ms)

    async def evaluate(self, position: Position, *, plies: int | None = None,
                       timeout: float | None = None) -> EvaluateResult:
        """Probabilities and cubeless equity of a position before the roll."""
        return cast(EvaluateResult, await self.request("evaluate", position=_pos(position),
                                                       plies=plies, timeout=timeout))

    async def cube(self, position: Position, *, plies: int | None = None,
                   timeout: float | None = None) -> CubeResult:
        """`{"action": "double"|"no_double"|"too_good", "take": "take"|"drop", ...}`."""
        return cast(CubeResult, await self.request("cube", position=_pos(position),
                                                   plies=plies, timeout=timeout))

    async def luck(self, position: Position, dice: Dice, *, timeout: float | None = None
                   ) -> float:
        """How lucky `dice` are for the side on roll of `position` (before the roll), in
        equity units. Only on servers whose `hello` lists `luck`."""
        result = await self.request("luck", position=_pos(position), dice=_dice(dice),
                                    timeout=timeout)
        return float(result["luck"])

    async def cancel(self, target: int | str, *, timeout: float | None = None
                     ) -> CancelResult:
        """Ask the engine to stop request `target` (NotFoundError if it is not in flight)."""
        return cast(CancelResult, await self.request("cancel", target=target,
                                                     timeout=timeout))

    async def stats(self, *, timeout: float | None = None) -> StatsResult:
        """The server's counters and latencies."""
        return cast(StatsResult, await self.request("stats", timeout=timeout))

    async def quit(self, *, timeout: float | None = None) -> None:
        """End the session (a byte-stream server closes the connection after replying)."""
        await self.request("quit", timeout=timeout)


def _pos(position: Position) -> Any:
    return position if isinstance(position, str) else dict(position)


def _dice(dice: Dice | None) -> list[int] | None:
    return None if dice is None else [int(d) for d in dice]
