"""The daemon's process: the ZeroMQ endpoint, the other endpoints, signals,
start-up banner and shutdown. This is the only module of jacquetd that
imports zmq.

ZeroMQ envelope (ROUTER socket; clients use DEALER, one frame per message):

    [identity, body]          from a DEALER
    [identity, b"", body]     from a REQ (its empty delimiter is kept and echoed)

The socket has ROUTER_MANDATORY set and every send is non-blocking, so a
client that does not read only loses its own replies (once its high-water
mark is reached); it can never stall replies to others.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import os
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import zmq
import zmq.asyncio
import zmq.auth
from jacquetd_protocol.codec import decode_request, detect_encoding, split_envelope
from jacquetd_protocol.commands import COMMANDS, check_id
from jacquetd_protocol.errors import ErrorCode, ProtocolError
from jacquetd_protocol.messages import Encoding, Request
from jacquetd_protocol.msgpack_wire import peek_map, starts_msgpack
from zmq.auth.asyncio import AsyncioAuthenticator
from zmq.utils.monitor import recv_monitor_message

from jacquetd.bots import bearoff
from jacquetd.daemon import hosted, ports, registry, streams
from jacquetd.daemon.config import Config, ConfigError, Heartbeat, zmq_endpoint_is_loopback
from jacquetd.daemon.replicas import ReplicaPool
from jacquetd.daemon.service import Service
from jacquetd.daemon.stats import Stats
from jacquetd.daemon.warmup import warm_up
from jacquetd.daemon.wire import Outgoing, wire_bytes
from jacquetd.daemon.workers import WorkerPool
from jacquetd.daemon.zmq_links import ZmqLinks

log = logging.getLogger(__name__)

SOCKET_LINGER_MS = 250  # at shutdown, queued replies get this long to leave
MONITOR_BATCH = 16  # socket monitor events handled per turn of the event loop
SHED_CLIENT = ProtocolError(ErrorCode.BUSY, "too many requests of this client are queued or "
                            "in flight", limit="max_inflight_per_client")
SHED_FULL = ProtocolError(ErrorCode.BUSY, "the server's queue is full")
# Admitted past the client's in-flight limit and a full queue: they free what the client
# holds or cost only their answer (see `_control`).
CONTROL_COMMANDS = frozenset(registry.BYPASSES_LIMITS)
_CONTROL_WORDS = tuple(name.encode() for name in CONTROL_COMMANDS)
POOL_CLOSE_S = 0.5  # at shutdown, workers get this long to exit before they are killed
SNDHWM = 1_000  # replies queued per peer before that peer is dropped (see _send_failed)
RCVHWM = 1_000  # requests libzmq reads ahead per peer (then the peer's sends wait)
DROP_S = 5.0  # a dropped ZeroMQ peer's requests are ignored this long
# Each of these drains and stops the daemon (SIGHUP too: a closed terminal or a service
# manager's reload must not kill requests in flight; nothing is reloaded in place).
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


def create_keys(directory: str | Path, name: str) -> tuple[Path, Path]:
    """Write a CurveZMQ key pair ``NAME.key`` (public) and ``NAME.key_secret``."""
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    public, secret = zmq.auth.create_certificates(str(folder), name)
    os.chmod(secret, 0o600)
    return Path(public), Path(secret)


def load_server_secret(path: str) -> tuple[bytes, bytes]:
    try:
        public, secret = zmq.auth.load_certificate(path)
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot read the CurveZMQ secret key {path}: {exc}") from None
    if not secret:
        raise ConfigError(f"{path} holds no secret key (give the .key_secret file)")
    return public, secret


def set_liveness(sock: zmq.Socket[Any], hb: Heartbeat) -> None:
    """Find peers that are gone without closing: kernel TCP keepalive probes after `ivl_ms`
    of silence, every `ivl_ms`, the peer dropped after `timeout_ms` without an answer (or
    with replies unacknowledged that long).

    Not ZMTP heartbeats: libzmq 4.3.5 aborts the whole process (`Assertion failed:
    !_io_error (src/stream_engine_base.cpp:310)`) when a heartbeat falls while a peer
    that filled its receive queue (1000 messages sent without waiting) has gone and its
    queued messages are being read; any client could stop the daemon that way."""
    if hb.ivl_ms <= 0:
        return
    every = max(1, round(hb.ivl_ms / 1000))
    sock.setsockopt(zmq.TCP_KEEPALIVE, 1)
    sock.setsockopt(zmq.TCP_KEEPALIVE_IDLE, every)
    sock.setsockopt(zmq.TCP_KEEPALIVE_INTVL, every)
    sock.setsockopt(zmq.TCP_KEEPALIVE_CNT, max(1, hb.timeout_ms // max(1, hb.ivl_ms)))
    if hb.timeout_ms > 0:
        sock.setsockopt(zmq.TCP_MAXRT, hb.timeout_ms)


# Plain ints: pyzmq's `send_multipart`/`recv_multipart` combine enum flags in Python for
# every frame, a few microseconds a message in the front's one serial loop.
_NOBLOCK = int(zmq.NOBLOCK)
_MORE = int(zmq.SNDMORE | zmq.NOBLOCK)


def _recv_message(raw: zmq.Socket[bytes]) -> list[zmq.Frame]:
    """The frames of the next message (zmq.Again if none waits): a whole message is
    queued atomically, so once its first frame is read the others are there."""
    part = raw.recv(_NOBLOCK, copy=False)
    parts = [part]
    while part.more:
        part = raw.recv(_NOBLOCK, copy=False)
        parts.append(part)
    return parts


@dataclass(eq=False)
class _ZmqPeer:
    """One DEALER (or REQ) client, keyed by its routing identity."""

    endpoint: ZmqEndpoint
    identity: bytes
    delimiter: bool
    key: str = field(init=False)
    partials: bool = field(init=False)

    def __post_init__(self) -> None:
        self.key = "zmq:" + self.identity.hex()
        self.partials = not self.delimiter  # a REQ socket takes one message per request

    def deliver(self, message: Outgoing, encoding: Encoding) -> None:
        self.endpoint.send(self, wire_bytes(message, encoding))

    def end_session(self) -> None:
        pass  # nothing to close: the service has already forgotten its requests


class ZmqEndpoint:
    def __init__(self, cfg: Config, service: Service) -> None:
        self.cfg = cfg
        self.service = service
        self.ctx = zmq.asyncio.Context()
        self.auth: AsyncioAuthenticator | None = None
        self.sock: zmq.asyncio.Socket | None = None
        self.address = ""
        self._task: asyncio.Task[None] | None = None
        self._monitor_task: asyncio.Task[None] | None = None
        self.monitor: zmq.asyncio.Socket | None = None
        self.links = ZmqLinks()  # which routing id each connection carries
        self.dropped: dict[bytes, float] = {}  # identity -> until when it is ignored
        self.max_frame = cfg.limits.max_frame_bytes
        self.max_inflight = cfg.limits.max_inflight_per_client
        self.raw: zmq.Socket[bytes] | None = None  # the socket's plain view (start)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._read_pending = False
        self.codec_limits = cfg.limits.codec_limits()

    def bind(self, endpoint: str) -> str:
        cfg = self.cfg
        sock = self.ctx.socket(zmq.ROUTER)
        sock.setsockopt(zmq.LINGER, SOCKET_LINGER_MS)
        sock.setsockopt(zmq.ROUTER_MANDATORY, 1)
        sock.setsockopt(zmq.SNDHWM, SNDHWM)
        sock.setsockopt(zmq.RCVHWM, RCVHWM)
        sock.setsockopt(zmq.MAXMSGSIZE, cfg.limits.zmq_max_msg_bytes)
        set_liveness(sock, cfg.heartbeat)
        if cfg.curve_secret is not None and cfg.curve_clients is not None:
            if not Path(cfg.curve_clients).is_dir():
                raise ConfigError(f"--curve-clients {cfg.curve_clients}: not a folder")
            public, secret = load_server_secret(cfg.curve_secret)
            self.auth = AsyncioAuthenticator(self.ctx)
            self.auth.start()
            self.auth.configure_curve(domain="*", location=cfg.curve_clients)
            sock.curve_secretkey = secret
            sock.curve_publickey = public
            sock.curve_server = True
        try:
            sock.bind(endpoint)
        except zmq.ZMQError as exc:
            sock.close(0)
            raise ConfigError(f"cannot bind {endpoint}: {exc}") from None
        self.sock = sock
        self.address = sock.getsockopt_string(zmq.LAST_ENDPOINT)
        # disconnects cancel the peer's work (the monitor names the connection's file
        # descriptor, and each message carries it: see zmq_links)
        self.monitor = sock.get_monitor_socket(zmq.EVENT_ACCEPTED | zmq.EVENT_DISCONNECTED)
        if not zmq_endpoint_is_loopback(self.address):
            log.warning("event=exposed endpoint=%s curve=%s", self.address, cfg.curve)
        return self.address

    def start(self) -> None:
        sock = self.sock
        if sock is None:
            return
        # Reads and sends go through a plain (blocking-API) view of the socket, never
        # awaiting: the asyncio wrapper's future per message cost more than the rest of
        # a cheap request. ZMQ_FD is edge-triggered, so the socket's state is checked
        # again on the loop's next turn after a batch and after every send (`_read_soon`).
        self.raw = zmq.Socket.shadow(sock.underlying)
        self._loop = asyncio.get_running_loop()
        self._loop.add_reader(self.raw.FD, self._readable)
        self._read_soon()
        if self.monitor is not None:
            self._monitor_task = asyncio.create_task(self._watch_links(), name="zmq-monitor")

    async def _watch_links(self) -> None:
        monitor = self.monitor
        assert monitor is not None
        taken = 0
        while True:
            try:
                event = await recv_monitor_message(monitor)
            except asyncio.CancelledError:
                raise
            except zmq.ZMQError as exc:
                if exc.errno in (zmq.ETERM, zmq.ENOTSOCK):
                    return
                continue
            taken += 1
            if taken % MONITOR_BATCH == 0:
                # an event already waiting is taken without a turn of the loop: hundreds
                # of peers connecting or leaving at once (each departure stops its work)
                # would otherwise be handled in one long turn that every client waits out
                await asyncio.sleep(0)
            fd = int(event["value"])
            if event["event"] == zmq.EVENT_ACCEPTED:
                self.links.accepted(fd)
                continue
            identity = self.links.disconnected(fd)
            if identity is None:
                continue
            peer = _ZmqPeer(self, identity, False)
            if self.service.pending_count(peer.key):
                log.info("event=zmq_peer_left peer=%s", peer.key)
                self.service.peer_gone(peer)

    def _read_soon(self) -> None:
        if not self._read_pending and self._loop is not None:
            self._read_pending = True
            self._loop.call_soon(self._readable)

    def _readable(self) -> None:
        """Read at most `zmq_read_batch` messages (the setting; reading only queues them:
        front.py); if more wait, the next batch comes on the loop's next turn, after the
        other endpoints, the queue's slice, worker replies and timers. libzmq fair-queues
        the peers, so a batch holds a message of every active peer.

        The batch bounds how long one turn of the loop spends on ZeroMQ: a message past
        its client's share is answered `busy` right here and a flooder resends at once,
        so every message a batch reads past the others' needs lengthens the turn the TCP,
        gnubg and WebSocket endpoints wait for. What is not read waits in libzmq's
        per-peer pipes, which pushes back on the flooder and not on the others."""
        self._read_pending = False
        raw = self.raw
        if raw is None or raw.closed:
            return
        for _ in range(self.cfg.zmq_read_batch):
            try:
                parts = _recv_message(raw)
            except zmq.Again:
                return
            except zmq.ZMQError as exc:
                if exc.errno in (zmq.ETERM, zmq.ENOTSOCK):
                    return
                log.warning("event=zmq_recv_error error=%s", exc)
                continue
            self._arrived(parts)
        self._read_soon()

    def _arrived(self, parts: list[zmq.Frame]) -> None:
        """One message read: answered at once if it is a `ping` (with nothing of its peer
        queued before it: one peer's replies keep their order), refused at once (`busy`)
        past the peer's share of the front's queue, else queued (front.py)."""
        frames = [part.bytes for part in parts]
        fd = -1
        with contextlib.suppress(zmq.ZMQError):
            fd = parts[0].get(zmq.SRCFD)
        if fd >= 0:
            if self.links.stale(fd, frames[0]):  # its sender has left: nobody to answer
                self.service.stats.requests_ignored += 1
                return
            self.links.message(fd, frames[0])
        try:
            envelope, body = split_envelope(frames)
        except ProtocolError as err:
            peer = _ZmqPeer(self, frames[0], len(frames) > 2 and frames[1] == b"")
            self.service.reject(peer, err, detect_encoding(frames[-1]))
            return
        if self.dropped and self.ignored(envelope[0]):
            return
        peer = _ZmqPeer(self, envelope[0], len(envelope) == 2)
        service = self.service
        front = service.front
        shed = (SHED_CLIENT if service.pending_count(peer.key) >= self.max_inflight
                else SHED_FULL if front.full(len(body)) else None)
        if shed is not None:
            if not self._control(peer, body):
                self._shed(peer, body, shed)
            return
        service.queue_message(peer, body, len(body), self._answer, service.decode,
                              b"ping" in body)

    def _control(self, peer: _ZmqPeer, body: bytes) -> bool:
        """Admit a `cancel`, `ping` or `quit` of a peer at its in-flight limit (or with the
        queue full): answered at once when nothing of the peer is queued before it, else
        queued behind the peer's messages while fewer than twice its limit wait there (a
        flood of them is bounded too). False when `body` is not one of them, or past
        that bound: the caller answers `busy`."""
        if starts_msgpack(body):
            obj = peek_map(body) if len(body) <= self.max_frame else None
            if obj is None or obj.get("cmd") not in CONTROL_COMMANDS:
                return False
        elif not any(word in body for word in _CONTROL_WORDS):
            return False
        try:
            request = decode_request(body, self.codec_limits, table=registry.TABLE)
        except ProtocolError:
            return False  # the caller's answer names what is wrong
        if request.cmd not in CONTROL_COMMANDS:
            return False
        front = self.service.front
        if not front.waiting(peer.key):
            self.service.handle(peer, request)
        elif front.queued(peer.key) < 2 * self.max_inflight and not front.full():
            front.put(peer.key, self.service.handle, peer, request, len(body))
        else:
            return False
        return True

    def _shed(self, peer: _ZmqPeer, body: bytes, error: ProtocolError) -> None:
        """Answer `busy` to a message without queueing it, as cheaply as can be: a msgpack
        map is only unpacked for its id (the full decode would cost more than the answer);
        anything else, or a map that does not unpack, goes the full way."""
        if starts_msgpack(body) and len(body) <= self.max_frame:
            obj = peek_map(body)
            try:
                rid = check_id(obj.get("id")) if obj is not None else None
            except ProtocolError:  # not a usable id: the full decode names what is wrong
                obj = None
            if obj is not None:
                cmd = obj.get("cmd")
                name = cmd if isinstance(cmd, str) and cmd in COMMANDS else "-"
                self.service.shed(peer, rid, name, "msgpack", error)
                return
        request = self.service.decode(peer, body)
        if request is not None:
            self.service.shed(peer, request.id, request.cmd, request.encoding, error)

    def _answer(self, peer: _ZmqPeer, item: bytes | Request) -> None:
        """Queued work: decode (unless done) and answer one message."""
        request = item if isinstance(item, Request) else self.service.decode(peer, item)
        if request is not None:
            self.service.handle(peer, request)

    def send(self, peer: _ZmqPeer, body: bytes) -> None:
        raw = self.raw
        if raw is None or raw.closed:
            return
        try:
            raw.send(peer.identity, _MORE)
            if peer.delimiter:
                raw.send(b"", _MORE)
            raw.send(body, _NOBLOCK, copy=len(body) < 65536)
        except zmq.ZMQError as exc:
            self._send_failed(peer, exc)
        self._read_soon()  # a send may have taken the edge of ZMQ_FD: look again

    def _send_failed(self, peer: _ZmqPeer, exc: zmq.ZMQError) -> None:
        # EAGAIN: the peer does not read and SNDHWM replies wait for it: it is dropped (as
        # a TCP peer that does not read is): what it has in flight is stopped and its
        # requests are ignored for DROP_S seconds. EHOSTUNREACH: it left, so what it
        # still has in flight (a match_watch that never ends) is stopped.
        self.service.stats.replies_dropped += 1
        log.debug("event=zmq_reply_dropped peer=%s error=%s", peer.key, exc)
        loop = asyncio.get_running_loop()
        if exc.errno == zmq.EAGAIN:
            if peer.identity not in self.dropped:
                self.service.stats.clients_dropped += 1
                log.warning("event=client_dropped peer=%s reason=not_reading", peer.key)
            self.dropped[peer.identity] = loop.time() + DROP_S
        if self.service.pending_count(peer.key):
            loop.call_soon(self.service.peer_gone, peer)

    def ignored(self, identity: bytes) -> bool:
        """Whether a request of this peer is ignored (it was dropped not long ago)."""
        until = self.dropped.get(identity)
        if until is None:
            return False
        if asyncio.get_running_loop().time() < until:
            self.service.stats.requests_ignored += 1
            return True
        del self.dropped[identity]
        return False

    async def close(self) -> None:
        if self.raw is not None and self._loop is not None:
            with contextlib.suppress(ValueError, OSError, zmq.ZMQError):
                self._loop.remove_reader(self.raw.FD)
        self._read_pending = True  # no more reads
        for task in (self._task, self._monitor_task):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        if self.sock is not None:
            if self.monitor is not None:
                self.sock.disable_monitor()
                self.monitor.close(0)
            self.sock.close(SOCKET_LINGER_MS)
        if self.auth is not None:
            self.auth.stop()
        self.ctx.term()


# ---- the process ---------------------------------------------------------------------------


class Daemon:
    """Starts the pool and the endpoints, prints the banner, waits for a signal, drains."""

    def __init__(self, cfg: Config) -> None:
        self.cfg = cfg
        self.stats = Stats()
        log_level = logging.getLogger().getEffectiveLevel()
        self.pool = WorkerPool(cfg.worker_count, cfg.limits.max_queue,
                               cancel_grace_s=cfg.cancel_grace_s, seed=cfg.seed,
                               log_level=log_level, on_restart=self._on_restart,
                               max_rss_mb=cfg.limits.worker_max_rss_mb,
                               cheap_share_percent=cfg.limits.cheap_share_percent,
                               search=cfg.search_settings)
        self.endpoints: dict[str, str] = {}
        self.service = Service(cfg, self.pool, endpoints=self.endpoints, stats=self.stats)
        if cfg.replica_count > 0:
            self.service.replicas = ReplicaPool(cfg.replica_count, log_level=log_level,
                                                deep_s=cfg.replica_deep_us / 1e6)
        self.zmq: ZmqEndpoint | None = None
        self.tcp: streams.StreamServer | None = None
        self.gnubg: streams.StreamServer | None = None
        self.ws: Any = None  # jacquetd.daemon.ws.WsEndpoint (imported only when on)
        self._stop = asyncio.Event()
        self.table_builder: subprocess.Popen[bytes] | None = None

    def _on_restart(self, reason: str) -> None:
        if reason == "died":
            self.stats.worker_restarts += 1
        else:
            self.stats.worker_recycled += 1

    def request_stop(self, signame: str) -> None:
        log.info("event=signal signal=%s", signame)
        self._stop.set()

    def build_tables(self) -> None:
        """Start building the missing bear-off tables in a background process (once, under
        a file lock, saved atomically), apart from any request and its deadline."""
        missing = bearoff.missing_tables()
        if not missing:
            return
        self.table_builder = subprocess.Popen(
            [sys.executable, "-m", bearoff.__name__], stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
            preexec_fn=lambda: os.nice(10))
        log.info("event=bearoff_build_started tables=%s pid=%d", ",".join(missing),
                 self.table_builder.pid)

    def stop_table_builder(self) -> None:
        """The builder outlives the daemon (its own session: a Ctrl-C does not reach it)
        until its tables are saved, so that no build is cut short; only forget it here."""
        self.table_builder = None

    async def start(self) -> None:
        cfg = self.cfg
        ports.check_ports(cfg)  # a taken port is told before the first (slow) compile
        log.info("event=fastgen_ready seconds=%.3f", warm_up())
        self.build_tables()
        self.pool.start()
        self.service.matches = await hosted.open_matches(cfg, self.pool)
        if cfg.zmq_bind is not None:
            self.zmq = ZmqEndpoint(cfg, self.service)
            self.endpoints["zmq"] = self.zmq.bind(cfg.zmq_bind)
        counts = streams.ConnectionCounts()  # max_connections: both endpoints together
        if cfg.tcp is not None:
            self.tcp = streams.StreamServer(cfg, self.service, streams.ProtocolConnection,
                                            "tcp", counts)
            self.endpoints["tcp"] = await self.tcp.start(*cfg.tcp)
        if cfg.gnubg is not None:
            self.gnubg = streams.StreamServer(cfg, self.service, streams.GnubgConnection,
                                              "gnubg", counts)
            self.endpoints["gnubg"] = await self.gnubg.start(*cfg.gnubg)
        if cfg.ws is not None:
            from jacquetd.daemon.ws import WsEndpoint

            self.ws = WsEndpoint(cfg, self.service)
            self.endpoints["ws"] = await self.ws.start(*cfg.ws)
            self.endpoints["web"] = self.ws.web_url
        if self.zmq is not None:
            self.zmq.start()
        # What start-up built (modules, compiled kernels, tables) lives as long as the
        # process: moved out of the collector's reach, a full collection no longer walks
        # it, and its pause (every client waits through it) is that much shorter.
        gc.collect()
        gc.freeze()

    def banner(self) -> str:
        parts = [f"{name}={addr}" for name, addr in self.endpoints.items()]
        return (f"jacquetd listening {' '.join(parts)} workers={self.pool.size} "
                f"curve={'on' if self.cfg.curve else 'off'} pid={os.getpid()}")

    async def run(self) -> int:
        loop = asyncio.get_running_loop()
        loop.set_exception_handler(_quiet_accept_failures)
        streams.socket_budget()  # the descriptor limit raised before any socket opens
        for sig in STOP_SIGNALS:
            loop.add_signal_handler(sig, self.request_stop, sig.name)
        try:
            await self.start()
        except ConfigError:
            await self.close()
            raise
        line = self.banner()
        log.info("event=listening %s", line.removeprefix("jacquetd listening "))
        print(line, flush=True)
        await self._stop.wait()
        return await self.shutdown()

    def listeners(self) -> list[Any]:
        """The endpoints that accept connections (TCP, gnubg, WebSocket) that are on."""
        return [e for e in (self.tcp, self.gnubg, self.ws) if e is not None]

    async def shutdown(self) -> int:
        # Stop accepting connections and stop the bot seats (at their next decision: a
        # decision in a worker is abandoned), finish what is in flight (bounded by the drain
        # timeout), then close, each step bounded, within about a second.
        for endpoint in self.listeners():
            endpoint.stop_accepting()
        self.service.draining = True
        await hosted.stop_bots(self.service.matches)
        in_flight = self.service.in_flight
        cut = await self.service.drain(self.cfg.drain_timeout_s)
        log.info("event=drained in_flight=%d cut_short=%d", in_flight, cut)
        await self.close()
        return 0

    async def close(self) -> None:
        for endpoint in (*self.listeners(), self.zmq):
            if endpoint is not None:
                await endpoint.close()
        await hosted.close_matches(self.service.matches)
        self.service.matches = None
        self.stop_table_builder()
        if self.service.replicas is not None:
            await self.service.replicas.close()
        await self.pool.close(timeout=POOL_CLOSE_S)


_accept_failures = {"logged_at": -60.0, "count": 0}


def _quiet_accept_failures(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """The loop's exception handler: a failed accept (out of descriptors, which the
    socket budget keeps from happening, unless something else takes them) is logged
    once a minute in one line with how many failed, not once per attempt with its
    traceback; everything else as the default handler does."""
    if str(context.get("message", "")).startswith("socket.accept() out of system resource"):
        _accept_failures["count"] += 1
        now = loop.time()
        if now - _accept_failures["logged_at"] >= 60.0:
            log.warning("event=accept_failed error=%s failed=%d", context.get("exception"),
                        _accept_failures["count"])
            _accept_failures["logged_at"] = now
            _accept_failures["count"] = 0
        return
    loop.default_exception_handler(context)


def serve(cfg: Config) -> int:
    """``jacquetd serve``: run until SIGTERM, SIGINT or SIGHUP; 0 after a clean drain."""
    return asyncio.run(Daemon(cfg).run())


def run_stdio(cfg: Config) -> int:
    """``jacquetd stdio``: one client on standard input and output."""
    return asyncio.run(_stdio_main(cfg))


async def _stdio_main(cfg: Config) -> int:
    daemon = Daemon(cfg)  # the configuration of `stdio` opens no endpoint
    loop = asyncio.get_running_loop()
    for sig in STOP_SIGNALS:
        loop.add_signal_handler(sig, daemon.request_stop, sig.name)
    await daemon.start()
    session = asyncio.create_task(streams.serve_stdio(cfg, daemon.service))
    stopper = asyncio.create_task(daemon._stop.wait())
    await asyncio.wait({session, stopper}, return_when=asyncio.FIRST_COMPLETED)
    stopper.cancel()
    await daemon.shutdown()
    session.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await session
    sys.stdout.flush()
    return 0
