"""The WebSocket endpoint, and the web app's static files served on the same port.

One WebSocket message is one protocol message: a text frame holds JSON (or a
line of the text encoding, when it does not start with ``{``), a binary frame
holds msgpack. Each reply goes back in its request's encoding, in a frame of
the same kind. Requests go through ``Service`` as on every other endpoint, so
ids, partials, the one final reply, ``cancel``, ``match_watch`` and the
in-flight and queue limits are the same.

A port a browser can reach needs more care than a ZeroMQ socket:

- the ``Origin`` of a handshake must be a loopback origin or one given with
  ``--ws-origin`` (a handshake without ``Origin`` comes from a program, not a
  page, and is allowed), so a site the user visits cannot drive the daemon;
- with ``--ws-token-file`` the handshake must carry the token, as
  ``Authorization: Bearer TOKEN`` or ``?token=TOKEN`` (browsers cannot set
  headers on a WebSocket): a program without it gets 401. The token is
  required when the endpoint is bound beyond loopback;
- a page refused for its origin or its token is told why in the close frame
  (4403 ``origin_not_allowed``, 4401 ``token_required``/``token_refused``):
  the handshake completes and the connection is closed at once, none of its
  messages read;
- ``max_connections`` (503 past it), frames above ``zmq_max_msg_bytes`` close
  the connection (1009), larger than ``max_frame_bytes`` get ``too_large``;
  a peer that lets more than ``tcp_write_buffer_bytes`` of replies pile up
  is dropped (1008). WebSocket ping/pong are the heartbeats (``[heartbeat]``
  ivl_ms and timeout_ms).

Plain HTTP GETs (no upgrade) are answered from ``jacquetd/web/``: the web app.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import http
import itertools
import logging
import mimetypes
import re
import weakref
from collections import deque
from importlib import resources
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from jacquetd_protocol.errors import ErrorCode, ProtocolError
from jacquetd_protocol.messages import Encoding
from jacquetd_protocol.messages import Request as ProtocolRequest
from jacquetd_protocol.msgpack_wire import starts_msgpack
from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.datastructures import Headers, MultipleValuesError
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from jacquetd.daemon.config import Config, ConfigError, is_loopback_host
from jacquetd.daemon.service import Service
from jacquetd.daemon.streams import PAUSE_AT, RESUME_AT, ConnectionCounts, socket_budget
from jacquetd.daemon.wire import Outgoing, wire_bytes

log = logging.getLogger(__name__)

MIN_TOKEN_CHARS = 16
BATCH = 4  # messages of one connection handled per turn of the event loop
CLOSE_POLICY = 1008  # a peer that does not read its replies
# A page's handshake refused for its origin or its token is accepted and closed at once
# with one of these codes (RFC 6455 leaves 4000-4999 to applications) and the reason as
# `CODE: explanation`: a browser shows a page the close frame, never an HTTP answer.
CLOSE_ORIGIN = 4403
CLOSE_TOKEN = 4401
MAX_CLOSE_REASON = 123  # bytes: RFC 6455's limit
# The transport's write buffer pauses the sender past this (the library's default is
# 32 KiB); a reply that fits below it is written by the request's own task at once.
WRITE_LIMIT = 256 * 1024
_conn_ids = itertools.count(1)
# Read once from a handshake: a request that repeats one is answered 400 (which of its
# values would hold is not guessed).
SINGLE_HEADERS = ("Host", "Origin", "Authorization", "Upgrade")
_SECRET_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie"})
_TOKEN_IN_QUERY = re.compile(r"(?i)([?&;]token=)[^&;#\s]*")
REDACTED = "[redacted]"
_TYPES = {".js": "text/javascript", ".mjs": "text/javascript", ".css": "text/css",
          ".html": "text/html", ".svg": "image/svg+xml", ".json": "application/json",
          ".ico": "image/x-icon", ".png": "image/png"}


def web_root() -> Path:
    """The folder of the web app's static files (inside the package)."""
    return Path(str(resources.files("jacquetd") / "web"))


def read_token(path: str) -> str:
    """The bearer token in `path` (first line, stripped); ConfigError if unusable."""
    try:
        token = Path(path).read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise ConfigError(f"--ws-token-file {path}: {exc.strerror}") from None
    if len(token) < MIN_TOKEN_CHARS or any(c.isspace() for c in token):
        raise ConfigError(f"--ws-token-file {path}: the token must be one word of at least "
                          f"{MIN_TOKEN_CHARS} characters")
    return token


def close_reason(text: str) -> str:
    """`text` cut to what a close frame can carry (whole UTF-8 characters)."""
    return text.encode("utf-8")[:MAX_CLOSE_REASON].decode("utf-8", errors="ignore")


def content_security_policy(host: str, port: int) -> str:
    """The web app's Content-Security-Policy for the endpoint bound on `host`:`port`.

    Built from the bound address only, never from a request's headers. `'self'` allows
    the page's own origin, and WebSockets to it (CSP level 3); the endpoint's own
    names are spelled out as ws:// and wss:// sources as well (127.0.0.1 and localhost
    when it is bound on loopback). An IPv6 address cannot be a CSP source: 'self'
    stands for it."""
    hosts = [host]
    if is_loopback_host(host):
        hosts = ["127.0.0.1", "localhost"]
    elif host in ("0.0.0.0", "") or ":" in host:
        hosts = []  # any address of the machine, or IPv6: 'self' is the page's own one
    sockets = " ".join(f"{scheme}://{h}:{port}" for h in hosts for scheme in ("ws", "wss"))
    return (f"default-src 'self'; connect-src 'self'{' ' + sockets if sockets else ''}; "
            "img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; "
            "frame-ancestors 'none'")


class RedactSecrets(logging.Filter):
    """Keeps the bearer token out of the handshake's debug lines: the query's `token=`
    value and the `Authorization` (and cookie) header values are written as
    `[redacted]`."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and args:
            if (len(args) == 2 and isinstance(args[0], str)
                    and args[0].lower() in _SECRET_HEADERS):
                record.args = (args[0], REDACTED)
            else:
                record.args = tuple(_TOKEN_IN_QUERY.sub(r"\g<1>" + REDACTED, a)
                                    if isinstance(a, str) else a for a in args)
        elif isinstance(record.msg, str):
            record.msg = _TOKEN_IN_QUERY.sub(r"\g<1>" + REDACTED, record.msg)
        return True


def origin_is_loopback(origin: str) -> bool:
    """Whether a page origin (``scheme://host[:port]``) is on this machine's loopback."""
    try:
        parts = urlsplit(origin)
        host = parts.hostname
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and host is not None and is_loopback_host(host)


READ_SLICE = 1024  # bytes of one connection handed to the WebSocket library per turn


class _SlicedConnection(ServerConnection):
    """A connection whose bytes go to the WebSocket library at most `READ_SLICE` a turn
    of the event loop, the rest on the next turns (the socket is not read meanwhile).
    The library answers every ping frame by itself as it parses it, so a flood of pings
    (or of any frames) costs its own connection turns: it is read no faster than it is
    handled, and every other client is served between its slices."""

    _rest = b""
    _in_budget = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        """Counted in the process's socket budget (streams.SocketBudget); a socket past
        it is closed at once, before its handshake is read."""
        super().connection_made(transport)
        if socket_budget().take():
            self._in_budget = True
        else:
            self.transport.abort()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._in_budget:
            self._in_budget = False
            socket_budget().give()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._rest:  # read before the pause took effect: after what waits
            self._rest += data
            self.transport.pause_reading()
            return
        self._feed(data)

    def _feed(self, data: bytes) -> None:
        super().data_received(data[:READ_SLICE])
        self._rest = data[READ_SLICE:]
        if self._rest:
            self.transport.pause_reading()
            self.loop.call_soon(self._next_slice)

    def _next_slice(self) -> None:
        data, self._rest = self._rest, b""
        if self.transport.is_closing():
            return
        self._feed(data)
        if not self._rest and not self.recv_messages.paused:  # the library's own pause
            self.transport.resume_reading()


class _WsPeer:
    """One WebSocket client as the service sees it: replies are queued here, so `deliver`
    never blocks, and sent in order by one sender at a time: the connection's reading
    task right after a `ping` it answered at once (no turn of the event loop in
    between), else (queued requests, worker replies, partials, events) the writer task.

    Its messages go through the front's queue (front.py) as a TCP connection's do: the
    queue keeps one client's replies in order while a front replica answers one of its
    requests, and shows the front that other clients wait (then requests go to the
    replicas). While `PAUSE_AT` messages of it are queued it is not read."""

    partials = True

    def __init__(self, endpoint: WsEndpoint, conn: ServerConnection) -> None:
        self.endpoint = endpoint
        self.conn = conn
        host, port = (conn.remote_address or ("?", 0))[:2]
        self.key = f"ws:{host}:{port}#{next(_conn_ids)}"
        self.queue: deque[tuple[bytes, bool]] = deque()  # frames, and whether each is text
        self.queued_bytes = 0
        self.wakeup = asyncio.Event()
        self.closed = False
        self.ending = False
        self.feeding = False  # the reading task is handling a request (and sends after)
        self.writing = False  # a sender is in `flush`
        self.readable = asyncio.Event()  # cleared while too many of its messages are queued
        self.readable.set()

    def deliver(self, message: Outgoing, encoding: Encoding) -> None:
        if self.closed:
            return
        body = wire_bytes(message, encoding)
        # sent as it is, in a text frame unless msgpack (no decoding to str and back)
        self.queue.append((body, encoding != "msgpack"))
        self.queued_bytes += len(body)
        limit = self.endpoint.cfg.limits.tcp_write_buffer_bytes
        if self.queued_bytes > limit:
            log.warning("event=client_dropped peer=%s reason=write_buffer bytes=%d",
                        self.key, self.queued_bytes)
            self.endpoint.service.stats.clients_dropped += 1
            self.closed = True
            self.queue.clear()
            asyncio.get_running_loop().create_task(
                self.conn.close(CLOSE_POLICY, "replies not read"))
        if not self.feeding:
            self.wakeup.set()

    def end_session(self) -> None:
        self.ending = True
        self.wakeup.set()

    def _fits(self, frame: bytes) -> bool:
        """Whether `frame` can be written without waiting for the peer to read."""
        transport = self.conn.transport
        return transport.get_write_buffer_size() + len(frame) + 14 <= WRITE_LIMIT

    async def flush(self, inline: bool = False) -> None:
        """Send the queued replies in order; returns at once if another sender is at it
        (that one sends what is queued meanwhile too). `inline` (the reading task): only
        what can be written without waiting; the rest is left to the writer task, so a
        peer that does not read is never waited for while its requests keep coming (its
        queue grows until it is dropped)."""
        if self.writing:
            return
        self.writing = True
        try:
            while self.queue and not self.closed:
                frame, text = self.queue[0]
                if inline and not self._fits(frame):
                    self.wakeup.set()
                    return
                self.queue.popleft()
                self.queued_bytes -= len(frame)
                await self.conn.send(frame, text=text)
        finally:
            self.writing = False
            if self.ending:
                self.wakeup.set()  # the writer closes once everything is out

    async def write_loop(self) -> None:
        """Send what is queued outside a request's turn; after `quit`, close once the
        replies are out."""
        try:
            while not self.closed:
                await self.flush()
                if self.ending and not self.writing and not self.queue:
                    await self.conn.close(1000, "quit")
                    return
                self.wakeup.clear()
                await self.wakeup.wait()
        except ConnectionClosed:
            self.closed = True


class WsEndpoint:
    """The WebSocket server: handshake checks, the web app's files, one peer per socket."""

    def __init__(self, cfg: Config, service: Service) -> None:
        self.cfg = cfg
        self.service = service
        self.server: Server | None = None
        self.address = ""
        self.token: str | None = None
        self.origins = frozenset(cfg.ws_origins)
        self.connections = ConnectionCounts()  # open WebSockets, by source address
        self.root = web_root()
        self.csp = ""
        # handshakes of pages accepted only to be closed with a reason: code, reason
        self._refused: weakref.WeakKeyDictionary[ServerConnection, tuple[int, str]] = \
            weakref.WeakKeyDictionary()

    async def start(self, host: str, port: int) -> str:
        """Bind and listen; the address as HOST:PORT. ConfigError if it cannot."""
        cfg = self.cfg
        if cfg.ws_token_file is not None:
            self.token = read_token(cfg.ws_token_file)
        if not is_loopback_host(host) and self.token is None:
            raise ConfigError(f"--ws {host}:{port} is beyond loopback: a browser anywhere "
                              "could reach it; give --ws-token-file")
        hb = cfg.heartbeat
        # the library logs every connection and every HTTP answer at info: keep them for
        # debug; the endpoint logs its own events (refusals, drops) in key=value form
        http_log = logging.getLogger("jacquetd.daemon.ws.http")
        if not log.isEnabledFor(logging.DEBUG):
            http_log.setLevel(logging.WARNING)
        if not any(isinstance(f, RedactSecrets) for f in http_log.filters):
            http_log.addFilter(RedactSecrets())
        try:
            self.server = await serve(
                self._session, host, port, process_request=self._checked_request,
                max_size=cfg.limits.zmq_max_msg_bytes, compression=None,
                write_limit=WRITE_LIMIT, create_connection=_SlicedConnection,
                ping_interval=hb.ivl_ms / 1000 if hb.ivl_ms else None,
                ping_timeout=hb.timeout_ms / 1000 if hb.timeout_ms else None,
                server_header=None, logger=http_log)
        except OSError as exc:
            raise ConfigError(f"cannot bind --ws {host}:{port}: {exc.strerror}") from None
        sock = next(iter(self.server.sockets))
        bound = sock.getsockname()
        shown = f"[{bound[0]}]" if ":" in bound[0] else bound[0]
        self.address = f"{shown}:{bound[1]}"
        self.csp = content_security_policy(bound[0], bound[1])
        if not is_loopback_host(host):
            log.warning("event=exposed endpoint=ws:%s token=on", self.address)
        return self.address

    @property
    def web_url(self) -> str:
        return f"http://{self.address}/"

    # ---- the handshake ------------------------------------------------------------------

    def _refuse(self, status: http.HTTPStatus, why: str, peer: str) -> Response:
        self.service.stats.connections_refused += 1
        log.info("event=ws_refused peer=%s status=%d reason=%s", peer, status.value,
                 why.replace(" ", "_"))
        headers = Headers([("Content-Type", "text/plain; charset=utf-8"),
                           ("Cache-Control", "no-store")])
        return Response(status.value, status.phrase, headers, (why + "\n").encode())

    def token_ok(self, request: Request) -> bool:
        """Whether the request carries the bearer token (or none is needed)."""
        if self.token is None:
            return True
        given = ""
        auth = request.headers.get("Authorization", "")
        if auth.lower().startswith("bearer "):
            given = auth[7:].strip()
        else:
            given = (parse_qs(urlsplit(request.path).query).get("token") or [""])[0]
        return hmac.compare_digest(given.encode(), self.token.encode())

    def origin_ok(self, origin: str | None) -> bool:
        if origin is None:
            return True  # not a page: a program, which no web site can make a user run
        return origin_is_loopback(origin) or origin.rstrip("/") in self.origins

    def _checked_request(self, conn: ServerConnection, request: Request) -> Response | None:
        """`_process_request` for a request with each of `SINGLE_HEADERS` at most once;
        one that repeats a header (or any header read once) is answered 400."""
        repeated = next((name for name in SINGLE_HEADERS
                         if len(request.headers.get_all(name)) > 1), None)
        if repeated is None:
            try:
                return self._process_request(conn, request)
            except MultipleValuesError as exc:
                repeated = str(exc).strip("'\"") or "a"
        peer = str((conn.remote_address or ("?",))[0])
        return self._refuse(http.HTTPStatus.BAD_REQUEST, f"duplicate {repeated} header", peer)

    def _process_request(self, conn: ServerConnection, request: Request) -> Response | None:
        peer = str((conn.remote_address or ("?",))[0])
        upgrade = "websocket" in request.headers.get("Upgrade", "").lower()
        if not upgrade:
            return self._static(request, peer)
        origin = request.headers.get("Origin")
        refusal: tuple[int, str] | None = None
        if not self.origin_ok(origin):
            refusal = (CLOSE_ORIGIN, close_reason(
                f"origin_not_allowed: serve the page from loopback or allow its origin "
                f"with --ws-origin: {origin}"))
        elif not self.token_ok(request):
            if origin is None:  # a program: it reads the HTTP status
                return self._refuse(http.HTTPStatus.UNAUTHORIZED,
                                    "missing or wrong bearer token", peer)
            given = "token=" in request.path or "Authorization" in request.headers
            refusal = (CLOSE_TOKEN, "token_refused: the access token is wrong" if given else
                       "token_required: this server needs its access token")
        limits = self.cfg.limits
        if self.connections.total >= limits.max_connections:
            return self._refuse(http.HTTPStatus.SERVICE_UNAVAILABLE, "too many connections",
                                peer)
        if self.connections.by_source.get(peer, 0) >= limits.max_connections_per_source:
            return self._refuse(http.HTTPStatus.SERVICE_UNAVAILABLE,
                                "too many connections from this address", peer)
        if refusal is not None:
            self.service.stats.connections_refused += 1
            log.info("event=ws_refused peer=%s close=%d reason=%s", peer, refusal[0],
                     refusal[1].partition(":")[0])
            self._refused[conn] = refusal
        return None

    def _static(self, request: Request, peer: str) -> Response:
        """The web app's files: GET only, names inside jacquetd/web/ only."""
        path = urlsplit(request.path).path
        if path == "/auth":
            # lets the page tell a wrong token from a server that is down
            if self.token_ok(request):
                return Response(204, "No Content", Headers([("Cache-Control", "no-store")]))
            return self._refuse(http.HTTPStatus.UNAUTHORIZED, "missing or wrong bearer token",
                                peer)
        name = "index.html" if path in ("/", "") else path.lstrip("/")
        target = (self.root / name).resolve()
        if (self.root.resolve() not in target.parents or not target.is_file()
                or target.name.startswith(".")):
            headers = Headers([("Content-Type", "text/plain; charset=utf-8")])
            return Response(404, "Not Found", headers, b"not found\n")
        body = target.read_bytes()
        kind = _TYPES.get(target.suffix) or mimetypes.guess_type(target.name)[0] or \
            "application/octet-stream"
        if kind.startswith("text/") or kind.endswith(("json", "xml")):
            kind += "; charset=utf-8"
        headers = Headers([
            ("Content-Type", kind),
            ("Cache-Control", "no-cache"),
            ("X-Content-Type-Options", "nosniff"),
            ("Referrer-Policy", "no-referrer"),
            ("Content-Security-Policy", self.csp),
        ])
        return Response(200, "OK", headers, body)

    # ---- a connection -------------------------------------------------------------------

    async def _session(self, conn: ServerConnection) -> None:
        source = str((conn.remote_address or ("?",))[0])
        self.connections.add(source)
        refused = self._refused.pop(conn, None)
        if refused is not None:  # no message of it is read: closed with the reason
            try:
                with contextlib.suppress(ConnectionClosed):
                    await conn.close(*refused)
            finally:
                self.connections.remove(source)
            return
        peer = _WsPeer(self, conn)
        log.debug("event=connect peer=%s", peer.key)
        writer = asyncio.create_task(peer.write_loop(), name=f"ws-writer-{peer.key}")
        try:
            taken = 0
            front = self.service.front
            async for message in conn:
                if peer.closed or peer.ending:
                    break
                ping = "ping" in message if isinstance(message, str) else b"ping" in message
                peer.feeding = True  # a reply made now is sent by this task right after
                try:
                    self.service.queue_message(peer, message, len(message), self._answer,
                                               self._decode, ping)
                finally:
                    peer.feeding = False
                if peer.queue:
                    await peer.flush(inline=True)  # at once, not after a turn of the loop
                if front.queued(peer.key) >= PAUSE_AT:
                    peer.readable.clear()
                    await peer.readable.wait()  # its queued messages are answered first
                taken += 1
                if taken >= BATCH:
                    # fairness: a flood of buffered frames cannot hold the loop; other
                    # connections, endpoints and worker replies get their turn
                    taken = 0
                    await asyncio.sleep(0)
        except ConnectionClosed:
            pass
        finally:
            self.connections.remove(source)
            self.service.peer_gone(peer)
            if peer.ending and not writer.done():
                with contextlib.suppress(asyncio.TimeoutError, ConnectionClosed):
                    await asyncio.wait_for(asyncio.shield(writer), 1.0)
            peer.closed = True
            peer.wakeup.set()
            writer.cancel()
            with contextlib.suppress(asyncio.CancelledError, ConnectionClosed):
                await writer
            log.debug("event=disconnect peer=%s", peer.key)

    def _answer(self, peer: _WsPeer, item: str | bytes | ProtocolRequest) -> None:
        """Queued work: decode (unless done) and answer one message; read the connection
        again once few of its messages are left queued."""
        if not (peer.closed or peer.ending):
            request = item if isinstance(item, ProtocolRequest) else self._decode(peer, item)
            if request is not None:
                self.service.handle(peer, request)
        if not peer.readable.is_set() and self.service.front.queued(peer.key) <= RESUME_AT:
            peer.readable.set()

    def _decode(self, peer: _WsPeer, message: str | bytes) -> ProtocolRequest | None:
        """The request in one message, or None once its error reply went out."""
        if isinstance(message, str):
            frame = message.encode("utf-8")
            encoding: Encoding = "json" if frame.startswith(b"{") else "text"
        else:
            frame = message
            encoding = "msgpack"
            if not starts_msgpack(frame):
                self.service.reject(peer, ProtocolError(
                    ErrorCode.BAD_FRAME, "a binary frame holds one msgpack map; send JSON "
                    "or text in a text frame"), "msgpack")
                return None
        return self.service.decode(peer, frame, encoding)

    # ---- shutdown -----------------------------------------------------------------------

    def stop_accepting(self) -> None:
        if self.server is not None:
            self.server.server.close()  # the listening socket; open connections stay

    async def close(self) -> None:
        if self.server is not None:
            self.server.close(close_connections=True)
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.server.wait_closed(), 2.0)
