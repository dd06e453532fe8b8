"""Byte-stream endpoints: the plain TCP protocol server, the gnubg external-player
server, and stdio. No zmq here.

Every connection is an ``asyncio.Protocol``: bytes are cut into messages as
they arrive (``protocol.codec.StreamDecoder`` for the protocol, lines for
gnubg), and replies are written without waiting. A peer that lets more than
``tcp_write_buffer_bytes`` of replies pile up (it does not read) is dropped,
alone. On end of input the connection answers what is in flight, then closes.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import resource
import stat
import threading
import time
import uuid
from collections import deque
from typing import Any

from jacquetd_protocol.codec import StreamDecoder, encode_reply
from jacquetd_protocol.errors import ErrorCode, ProtocolError
from jacquetd_protocol.gnubg_wire import GnubgLineDecoder
from jacquetd_protocol.messages import Encoding, Reply, Request

from jacquetd.daemon import gnubg
from jacquetd.daemon.config import Config, ConfigError, is_loopback_host
from jacquetd.daemon.gnubg_commands import GNUBG_DECIDE, GNUBG_EVALUATE
from jacquetd.daemon.jobs import Done
from jacquetd.daemon.service import Service
from jacquetd.daemon.wire import Outgoing, wire_bytes

log = logging.getLogger(__name__)

_conn_ids = itertools.count(1)
GNUBG_MAX_PENDING_LINES = 256  # lines read ahead of the one being answered; then reading pauses
EOF_POLL_S = 0.01
GNUBG_ERRORS: dict[str, str] = {  # a failed job, as the gnubg endpoint says it
    ErrorCode.BAD_POSITION: gnubg.BAD_BOARD,
    ErrorCode.BUSY: "Error: server busy, try again\n",
    ErrorCode.TIMEOUT: "Error: no answer in time\n",
}
STDIN_PAUSE_CHUNKS = 32  # chunks read from stdin and not yet handled: stop reading
CLOSE_WAIT_S = 0.3  # at shutdown, how long connections get to close
PAUSE_AT = 16  # messages of one connection queued in the front: it is no longer read
RESUME_AT = 4  # ... and read again once this few are left
LINGER_S = 2.0  # an ended session drops what its client still sends for this long at most


FD_RESERVE = 128  # descriptors kept for all but client sockets (files, pipes, ZeroMQ)
REFUSED_LOG_S = 10.0  # sockets refused past the budget: one log line per this long


class SocketBudget:
    """Client sockets open on the asyncio endpoints (TCP, gnubg, WebSocket) together,
    bounded `FD_RESERVE` below the process's descriptor limit (raised to its hard limit
    first): a socket past the budget is closed as soon as it is accepted, so the
    process never runs out of descriptors (then every accept fails, and is logged).
    Refusals are counted and logged once per `REFUSED_LOG_S`."""

    def __init__(self) -> None:
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if hard == resource.RLIM_INFINITY or hard > soft:
            want = 1 << 20 if hard == resource.RLIM_INFINITY else hard
            try:
                resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
                soft = want
            except (ValueError, OSError):
                pass
        self.limit = max(16, soft - FD_RESERVE)
        self.open = 0
        self.refused = 0
        self._logged_at = -REFUSED_LOG_S
        self._logged_refused = 0

    def take(self) -> bool:
        """Count a new socket in; False (and counted refused) when it is past the budget."""
        if self.open < self.limit:
            self.open += 1
            return True
        self.refused += 1
        now = time.monotonic()
        if now - self._logged_at >= REFUSED_LOG_S:
            log.warning("event=connections_refused reason=descriptors open=%d limit=%d "
                        "refused=%d", self.open, self.limit, self.refused - self._logged_refused)
            self._logged_at = now
            self._logged_refused = self.refused
        return False

    def give(self) -> None:
        self.open -= 1


_budget: SocketBudget | None = None


def socket_budget() -> SocketBudget:
    """The process's one `SocketBudget`."""
    global _budget
    if _budget is None:
        _budget = SocketBudget()
    return _budget


class _Connection(asyncio.Protocol):
    """What both TCP endpoints share: accounting, bounded writes, drop on overflow."""

    kind = "tcp"

    def __init__(self, server: StreamServer) -> None:
        self.server = server
        self.service = server.service
        self.cfg = server.cfg
        self.transport: asyncio.Transport | None = None
        self.key = ""
        self.source = "?"
        self.closed = False
        self.counted = False
        self.last_input = time.monotonic()
        self.message_started: float | None = None  # when the unfinished message began
        self.in_budget = False  # counted in the socket budget

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)  # stream servers give Transports
        self.transport = transport
        if not socket_budget().take():  # near the descriptor limit: closed at once
            self.service.stats.connections_refused += 1
            self.closed = True
            transport.abort()
            return
        self.in_budget = True
        peer = transport.get_extra_info("peername") or ("?", 0)
        self.source = str(peer[0])
        self.key = f"{self.kind}:{peer[0]}:{peer[1]}#{next(_conn_ids)}"
        self.server.connections.add(self)
        log.debug("event=connect peer=%s", self.key)
        limits = self.cfg.limits
        counts = self.server.counts
        if counts.total >= limits.max_connections:
            refused = ("too many connections", "max_connections")
        elif counts.by_source.get(self.source, 0) >= limits.max_connections_per_source:
            refused = ("too many connections from this address", "max_connections_per_source")
        else:
            counts.add(self.source)
            self.counted = True
            return
        self.service.stats.connections_refused += 1
        self.refuse(*refused)

    def refuse(self, reason: str, limit: str) -> None:
        self.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if self.in_budget:
            self.in_budget = False
            socket_budget().give()
        self.server.connections.discard(self)
        if self.counted:
            self.counted = False
            self.server.counts.remove(self.source)
        log.debug("event=disconnect peer=%s", self.key)

    def input_seen(self, in_message: bool, progressed: bool) -> None:
        """Bytes arrived; `in_message`: a message is now begun and unfinished;
        `progressed`: they began or ended a message. Only that keeps the connection from
        its idle timeout: blank lines (or NULs) between messages do not."""
        now = time.monotonic()
        if progressed or in_message:
            self.last_input = now
        if not in_message:
            self.message_started = None
        elif self.message_started is None:
            self.message_started = now

    def busy(self) -> bool:
        """Whether the connection has work in flight (then it is not idle)."""
        return self.service.pending_count(self.key) > 0

    def check_timeouts(self, now: float) -> None:
        """Close the connection if it is idle too long or trickles a message too slowly."""
        if self.closed or self.counted is False:
            return
        limits = self.cfg.limits
        if (self.message_started is not None
                and now - self.message_started > limits.message_timeout_ms / 1000.0):
            reason = "message_timeout"
        elif (not self.busy() and self.message_started is None
              and now - self.last_input > limits.idle_timeout_ms / 1000.0):
            reason = "idle_timeout"
        else:
            return
        log.info("event=client_dropped peer=%s reason=%s", self.key, reason)
        self.service.stats.clients_dropped += 1
        self.closed = True
        if self.transport is not None:
            self.transport.abort()

    def write(self, data: bytes) -> None:
        transport = self.transport
        if self.closed or transport is None or transport.is_closing():
            return
        transport.write(data)
        size = transport.get_write_buffer_size()
        if size > self.cfg.limits.tcp_write_buffer_bytes:
            log.warning("event=client_dropped peer=%s reason=write_buffer bytes=%d",
                        self.key, size)
            self.service.stats.clients_dropped += 1
            self.closed = True
            transport.abort()

    def close(self) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.close()


class ProtocolConnection(_Connection):
    """One client of the plain TCP endpoint: protocol v1, text lines or msgpack."""

    kind = "tcp"
    partials = True

    def __init__(self, server: StreamServer) -> None:
        super().__init__(server)
        self.decoder = StreamDecoder(self.cfg.limits.codec_limits())
        self.ending = False
        self.eof_written = False  # our side half-closed: nothing more is written
        self.paused = False  # not read while its queue is long

    def refuse(self, reason: str, limit: str) -> None:
        err = ProtocolError(ErrorCode.BUSY, reason, limit=limit)
        self.write(encode_reply(Reply.failure(None, err), "text"))
        self.close()

    # Peer protocol (service.Peer)
    def deliver(self, message: Outgoing, encoding: Encoding) -> None:
        self.write(wire_bytes(message, encoding))

    def end_session(self) -> None:
        """End the session once its last reply is out. A client may still be sending (the
        rest of a message refused whole): closing with its bytes unread would reset the
        connection and lose the reply, so our side is half-closed and what arrives is
        read and dropped until the client closes, for at most `LINGER_S`."""
        self.ending = True
        transport = self.transport
        if transport is None or transport.is_closing() or not transport.can_write_eof():
            self.close()
            return
        transport.write_eof()
        self.eof_written = True
        if self.paused:
            self.paused = False
            transport.resume_reading()
        asyncio.get_running_loop().call_later(LINGER_S, self.close)

    def write(self, data: bytes) -> None:
        if not self.eof_written:
            super().write(data)

    def data_received(self, data: bytes) -> None:
        if self.ending:
            return  # the session ended: what the client still sends is dropped
        items = self.decoder.feed(data)
        self.input_seen(self.decoder.in_message, bool(items))
        self.queue(items)

    def queue(self, items: list[bytes | ProtocolError]) -> None:
        """Hand the messages read to the front's queue (front.py), which answers them in
        turn with every other client's; a `ping` with nothing of its connection queued
        before it is answered at once (one connection's replies keep their order). While this
        connection has `PAUSE_AT` messages queued it is not read (the peer waits)."""
        front = self.service.front
        for item in items:
            size = len(item) if isinstance(item, bytes) else 0
            self.service.queue_message(self, item, size, self.answer, decode_stream_item,
                                       isinstance(item, bytes) and b"ping" in item)
        transport = self.transport
        if (not self.paused and front.queued(self.key) >= PAUSE_AT and transport is not None
                and not transport.is_closing()):
            self.paused = True
            transport.pause_reading()

    def answer(self, peer: Any, item: bytes | ProtocolError | Request) -> None:
        """Queued work: decode and answer one message; read again once few are left."""
        request = item if isinstance(item, Request) else decode_stream_item(self, item)
        if request is not None and not (self.closed or self.ending):
            self.service.handle(self, request)
        if self.paused and self.service.front.queued(self.key) <= RESUME_AT:
            self.paused = False
            transport = self.transport
            if transport is not None and not transport.is_closing() and not self.closed:
                transport.resume_reading()

    def eof_received(self) -> bool:
        if self.ending:
            self.close()
            return False
        self.queue(self.decoder.finish())
        asyncio.get_running_loop().create_task(close_when_idle(self))
        return True  # keep our half open to answer what is in flight

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        self.service.peer_gone(self)


def decode_stream_item(peer: Any, item: bytes | ProtocolError) -> Request | None:
    """The request in one frame cut from a byte stream, or None once its error reply went
    out (a broken msgpack stream also ends the session: it cannot be resynchronised)."""
    if peer.closed or peer.ending:
        return None
    if isinstance(item, ProtocolError):
        encoding: Encoding = "msgpack" if peer.decoder.broken else "text"
        peer.service.reject(peer, item, encoding)
        if peer.decoder.broken:
            peer.end_session()
        return None
    service: Service = peer.service
    return service.decode(peer, item, scanned=True)  # cut by peer.decoder


def feed_protocol(peer: Any, items: list[bytes | ProtocolError]) -> None:
    """Handle frames cut from a byte stream at once, in order (stdio: its one client)."""
    for item in items:
        if peer.closed or peer.ending:
            return
        request = decode_stream_item(peer, item)
        if request is not None:
            peer.service.handle(peer, request)


INPUT_ENDED = "the client's input ended; a match_watch stream ends with it"


async def close_when_idle(peer: Any) -> None:
    """After end of input: wait for the peer's requests in flight, then close. Its
    `match_watch` streams never end by themselves: each ends at once with `cancelled`
    (and so does one started by a request read before the end, when its turn comes), so a
    client that closes its side leaves nothing open."""
    service = peer.service
    while not peer.closed:
        service.end_streams(peer, INPUT_ENDED)
        if not service.pending_count(peer.key):
            break
        await asyncio.sleep(EOF_POLL_S)
    peer.end_session()


class GnubgConnection(_Connection):
    """One client of the gnubg endpoint. Lines are answered one at a time, in order."""

    kind = "gnubg"

    def __init__(self, server: StreamServer) -> None:
        super().__init__(server)
        self.decoder = GnubgLineDecoder(self.cfg.limits.gnubg_max_line_bytes)
        # None: end of input; ProtocolError: a line over gnubg_max_line_bytes
        self.lines: deque[bytes | ProtocolError | None] = deque()
        self.wakeup = asyncio.Event()
        self.paused = False
        self.answering = False  # a line is being answered
        self.task: asyncio.Task[None] | None = None

    def refuse(self, reason: str, limit: str) -> None:
        self.write(f"Error: {reason}\n".encode())
        self.close()

    def busy(self) -> bool:
        return bool(self.lines) or self.answering

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self.task = asyncio.get_running_loop().create_task(self.answer_lines())

    def data_received(self, data: bytes) -> None:
        self.lines.extend(self.decoder.feed(data))
        self.input_seen(self.decoder.in_line, bool(data.replace(b"\0", b"").strip()))
        self.wakeup.set()
        if len(self.lines) > GNUBG_MAX_PENDING_LINES and self.transport is not None:
            self.transport.pause_reading()
            self.paused = True

    def eof_received(self) -> bool:
        # end of input ends the session, as in gnubg: nothing more is answered, and
        # connection_lost stops the work of the line being answered
        self.lines.clear()
        self.close()
        return True

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        self.wakeup.set()
        if self.task is not None:
            self.task.cancel()  # nobody is left to answer: stop the line's work too

    async def answer_lines(self) -> None:
        while not self.closed:
            if not self.lines:
                self.wakeup.clear()
                await self.wakeup.wait()
                continue
            line = self.lines.popleft()
            if self.paused and len(self.lines) < GNUBG_MAX_PENDING_LINES // 2:
                self.paused = False
                if self.transport is not None and not self.transport.is_closing():
                    self.transport.resume_reading()
            if line is None:
                self.close()
                return
            if isinstance(line, ProtocolError):
                limit = self.cfg.limits.gnubg_max_line_bytes
                self.write(f"Error: line longer than {limit} bytes\n".encode())
                continue
            action = gnubg.parse_line(line)
            if isinstance(action, gnubg.Close):
                self.close()
                return
            if isinstance(action, gnubg.Ignore):
                continue
            if isinstance(action, gnubg.Immediate):
                self.write(action.text.encode("latin-1"))
                continue
            self.answering = True
            try:
                reply = await self.decide(action)
            finally:
                self.answering = False
            log.debug("event=gnubg_answer peer=%s request=%s reply=%r", self.key,
                      line.replace(b"\0", b"").decode("latin-1").strip(), reply)
            self.write(reply.encode("latin-1"))

    async def decide(self, action: gnubg.Decide | gnubg.Evaluate) -> str:
        args: dict[str, Any] = {"board": action.board, "options": action.options}
        if isinstance(action, gnubg.Decide):
            cmd = GNUBG_DECIDE
            args["level"] = self.cfg.gnubg_level
        else:
            cmd = GNUBG_EVALUATE
            plies = action.options.get("plies")
            limit = self.cfg.limits.max_plies
            if isinstance(plies, int) and plies > limit:
                return f"Error: plies {plies} is more than this server serves ({limit})\n"
        outcome = await self.service.run_job(cmd, args, owner=self.key)
        if isinstance(outcome, Done):
            return str(outcome.result["reply"])
        if outcome.code in (ErrorCode.BAD_ARGUMENT, ErrorCode.TOO_LARGE):
            return f"Error: {outcome.message}\n"
        return GNUBG_ERRORS.get(outcome.code, "Error: internal error\n")


class ConnectionCounts:
    """Open connections (of the byte-stream endpoints together, or of the WebSocket
    endpoint), and per source address: `max_connections` and
    `max_connections_per_source` bound them."""

    def __init__(self) -> None:
        self.total = 0
        self.by_source: dict[str, int] = {}

    def add(self, source: str) -> None:
        self.total += 1
        self.by_source[source] = self.by_source.get(source, 0) + 1

    def remove(self, source: str) -> None:
        self.total -= 1
        left = self.by_source.get(source, 1) - 1
        if left:
            self.by_source[source] = left
        else:
            self.by_source.pop(source, None)


TIMEOUT_SCAN_S = 0.25  # how often connections are checked for the idle and message timeouts


class StreamServer:
    """An asyncio TCP server for one kind of connection."""

    def __init__(self, cfg: Config, service: Service, factory: type[_Connection],
                 name: str, counts: ConnectionCounts | None = None) -> None:
        self.cfg = cfg
        self.service = service
        self.factory = factory
        self.name = name
        self.server: asyncio.Server | None = None
        self.connections: set[_Connection] = set()
        self.counts = counts if counts is not None else ConnectionCounts()
        self._scanner: asyncio.Task[None] | None = None

    async def _scan_timeouts(self) -> None:
        while True:
            await asyncio.sleep(TIMEOUT_SCAN_S)
            now = time.monotonic()
            for conn in list(self.connections):
                conn.check_timeouts(now)

    async def start(self, host: str, port: int) -> str:
        loop = asyncio.get_running_loop()
        try:
            self.server = await loop.create_server(lambda: self.factory(self), host, port,
                                                   reuse_address=True)
        except OSError as exc:
            raise ConfigError(f"cannot listen on {host}:{port} ({self.name}): "
                              f"{exc.strerror}") from None
        self._scanner = loop.create_task(self._scan_timeouts(), name=f"{self.name}-timeouts")
        bound = self.server.sockets[0].getsockname()
        if not is_loopback_host(bound[0]):
            log.warning("event=exposed endpoint=%s address=%s:%s", self.name, bound[0],
                        bound[1])
        return f"{bound[0]}:{bound[1]}"

    def stop_accepting(self) -> None:
        if self.server is not None:
            self.server.close()

    async def close(self) -> None:
        self.stop_accepting()
        if self._scanner is not None:
            self._scanner.cancel()
        for conn in list(self.connections):
            conn.close()
        if self.server is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.server.wait_closed(), CLOSE_WAIT_S)


# ---- stdio -------------------------------------------------------------------------------


class StdioPeer:
    """The one client of ``jacquetd stdio``: requests on stdin, replies on stdout."""

    def __init__(self, cfg: Config, service: Service) -> None:
        self.cfg = cfg
        self.service = service
        # unique per process: a later `jacquetd stdio` on the same match database is another
        # client unless it names itself in `hello` (retries are keyed by client and id)
        self.key = f"stdio:{uuid.uuid4().hex}"
        self.partials = True
        self.closed = False
        self.ending = False
        self.decoder = StreamDecoder(cfg.limits.codec_limits())
        self.out_fd = 1

    def deliver(self, message: Outgoing, encoding: Encoding) -> None:
        if self.closed:
            return
        data = wire_bytes(message, encoding)
        try:
            while data:
                written = os.write(self.out_fd, data)
                data = data[written:]
        except OSError:
            self.closed = True  # the harness went away

    def end_session(self) -> None:
        self.ending = True


async def serve_stdio(cfg: Config, service: Service) -> None:
    loop = asyncio.get_running_loop()
    peer = StdioPeer(cfg, service)
    chunks: asyncio.Queue[bytes] = asyncio.Queue(maxsize=64)

    def reader() -> None:
        while True:
            try:
                data = os.read(0, 65536)
            except OSError:
                data = b""
            fut = asyncio.run_coroutine_threadsafe(chunks.put(data), loop)
            try:
                fut.result()
            except (RuntimeError, asyncio.CancelledError):
                return
            if not data:
                return

    paused = False

    def readable() -> None:
        nonlocal paused
        try:
            data = os.read(0, 65536)  # a pipe or socket said it is ready: this does not block
        except OSError:
            data = b""
        chunks.put_nowait(data)  # never full: reading pauses at STDIN_PAUSE_CHUNKS
        if not data or chunks.qsize() >= STDIN_PAUSE_CHUNKS:
            loop.remove_reader(0)
            paused = bool(data)

    # A pipe or a socket (how a league or an editor spawns us) is watched by the event loop
    # itself: no thread hand-off per request. Anything else (a file, a terminal the loop
    # cannot poll) is read by a thread.
    watched = False
    with contextlib.suppress(OSError, ValueError, NotImplementedError):
        if stat.S_ISFIFO(os.fstat(0).st_mode) or stat.S_ISSOCK(os.fstat(0).st_mode):
            loop.add_reader(0, readable)
            watched = True
    if not watched:
        threading.Thread(target=reader, name="stdin-reader", daemon=True).start()
    started = time.monotonic()
    try:
        while not peer.ending and not peer.closed:
            data = await chunks.get()
            if paused and chunks.qsize() < STDIN_PAUSE_CHUNKS:
                paused = False
                loop.add_reader(0, readable)
            if not data:
                feed_protocol(peer, peer.decoder.finish())
                break
            feed_protocol(peer, peer.decoder.feed(data))
    finally:  # cancelled too: nothing may read stdin for a session that ended
        if watched:
            loop.remove_reader(0)
    while not peer.closed and service.pending_count(peer.key):
        await asyncio.sleep(EOF_POLL_S)
    log.debug("event=stdio_done seconds=%.3f", time.monotonic() - started)
