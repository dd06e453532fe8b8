"""Connections the runner plays vectors over: ZeroMQ DEALER, plain TCP, a subprocess,
a WebSocket.

Each yields frames: for the protocol endpoints a whole reply (a msgpack map or a
text block/partial line, cut by `ReplyStreamDecoder` on byte streams); for the
gnubg endpoint one line. zmq (websockets) is imported only when a ZeroMQ
(WebSocket) endpoint is used.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import shlex
import socket
import subprocess
import time
import uuid
from typing import Any, Protocol

from ..errors import ProtocolError
from ..framing import ReplyStreamDecoder
from ..gnubg_wire import GnubgLineDecoder
from ..msgpack_wire import MAP_FIRST_BYTES


class Closed(Exception):
    """The peer closed the connection."""


class Connection(Protocol):
    """What the runner needs of a connection."""

    transport: str

    def send(self, data: bytes) -> None: ...

    def receive(self, timeout: float) -> bytes | None:
        """The next frame, None on timeout; raises Closed once the peer has closed."""

    def close(self) -> None: ...


class ZmqConnection:
    """A DEALER socket: one frame per message, no empty delimiter."""

    transport = "zmq"

    def __init__(self, url: str) -> None:
        import zmq  # the runner is a tool: zmq only when asked for

        self._zmq = zmq
        self._sock: Any = zmq.Context.instance().socket(zmq.DEALER)
        self._sock.setsockopt(zmq.LINGER, 0)
        self._sock.setsockopt(zmq.IDENTITY, f"conformance-{uuid.uuid4().hex[:12]}".encode())
        self._sock.connect(url)

    def send(self, data: bytes) -> None:
        self._sock.send(data)

    def receive(self, timeout: float) -> bytes | None:
        if self._sock.poll(int(timeout * 1000), self._zmq.POLLIN):
            frame: bytes = self._sock.recv()
            return frame
        return None

    def close(self) -> None:
        self._sock.close(linger=0)


class _FdStream:
    """Frames cut from a readable file descriptor by a decoder."""

    transport = "tcp"

    def __init__(self, read_fd: int, gnubg: bool) -> None:
        self._fd = read_fd
        self._decoder: ReplyStreamDecoder | GnubgLineDecoder = (
            GnubgLineDecoder(1 << 24) if gnubg else ReplyStreamDecoder())
        self._frames: list[bytes] = []
        self._eof = False
        self._selector = selectors.DefaultSelector()
        self._selector.register(read_fd, selectors.EVENT_READ)

    def _take(self, items: list[bytes | ProtocolError]) -> None:
        for item in items:
            if isinstance(item, ProtocolError):
                raise item
            self._frames.append(item)

    def receive(self, timeout: float) -> bytes | None:
        deadline = time.monotonic() + timeout
        while not self._frames:
            if self._eof:
                raise Closed()
            left = deadline - time.monotonic()
            if left <= 0 or not self._selector.select(left):
                return None
            data = self._read()
            if not data:
                self._eof = True
                self._take(self._decoder.finish())
            else:
                self._take(self._decoder.feed(data))
        return self._frames.pop(0)

    def _read(self) -> bytes:
        try:
            return os.read(self._fd, 65536)
        except ConnectionError:
            return b""

    def close(self) -> None:
        self._selector.close()


class TcpConnection(_FdStream):
    """A plain TCP connection (the text/msgpack stream endpoint, or the gnubg one)."""

    def __init__(self, address: str, gnubg: bool = False) -> None:
        host, _, port = address.rpartition(":")
        self._sock = socket.create_connection((host or "127.0.0.1", int(port)), timeout=10)
        self._sock.settimeout(None)
        super().__init__(self._sock.fileno(), gnubg)

    def send(self, data: bytes) -> None:
        self._sock.sendall(data)

    def close(self) -> None:
        super().close()
        self._sock.close()


class SpawnConnection(_FdStream):
    """A subprocess speaking the protocol on its standard input and output.

    `close` ends its input and waits for it to exit, unless `reaped` is given: then the
    process is left to exit on its own and added to that list (see `Spawner`)."""

    transport = "stdio"

    def __init__(self, command: str, reaped: list[subprocess.Popen[bytes]] | None = None,
                 ) -> None:
        self._proc: subprocess.Popen[bytes] = subprocess.Popen(
            shlex.split(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL)
        if self._proc.stdout is None:  # pragma: no cover - stdout=PIPE was given
            raise RuntimeError("no pipe to the subprocess")
        self._reaped = reaped
        super().__init__(self._proc.stdout.fileno(), gnubg=False)

    def send(self, data: bytes) -> None:
        stdin: Any = self._proc.stdin
        try:
            stdin.write(data)
            stdin.flush()
        except BrokenPipeError:
            raise Closed() from None

    def close(self) -> None:
        super().close()
        if self._proc.stdin is not None and not self._proc.stdin.closed:
            with contextlib.suppress(BrokenPipeError):
                self._proc.stdin.close()
        if self._reaped is not None:
            self._reaped.append(self._proc)
        else:
            _wait_or_kill(self._proc)
        if self._proc.stdout is not None:
            self._proc.stdout.close()


def _wait_or_kill(proc: subprocess.Popen[bytes], timeout: float = 5.0) -> None:
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()  # only a process this runner started
        proc.wait()


class Spawner:
    """Starts a subprocess for each connection of `--spawn COMMAND`.

    If COMMAND holds `{n}`, each process gets its own number there (say, its own database
    file), and no process waits for another: the next one is started while a vector runs
    (its start-up overlaps that vector), and a closed one exits on its own while the next
    vector runs. `finish` waits for them all. Without `{n}`, one process runs at a time."""

    def __init__(self, command: str) -> None:
        self.command = command
        self.ahead = "{n}" in command
        self._count = 0
        self._spare: SpawnConnection | None = None
        self._reaped: list[subprocess.Popen[bytes]] = []

    def _start(self) -> SpawnConnection:
        self._count += 1
        return SpawnConnection(self.command.replace("{n}", str(self._count)),
                               self._reaped if self.ahead else None)

    def __call__(self) -> SpawnConnection:
        conn = self._spare or self._start()
        self._spare = self._start() if self.ahead else None
        return conn

    def finish(self) -> None:
        """Close the spare process and wait for every process to exit."""
        if self._spare is not None:
            self._spare.close()
            self._spare = None
        while self._reaped:
            _wait_or_kill(self._reaped.pop())


class WsConnection:
    """A WebSocket: one message per frame. Request maps go as JSON text frames (or as
    msgpack binary frames with `msgpack=True`); text lines as text frames; raw bytes that
    are not UTF-8, or start a msgpack map, as binary frames."""

    transport = "ws"

    def __init__(self, url: str, msgpack: bool = False, token: str | None = None,
                 origin: str | None = None) -> None:
        from websockets.exceptions import InvalidHandshake
        from websockets.sync.client import connect  # the runner is a tool: only when asked
        from websockets.typing import Origin

        headers = {"Authorization": f"Bearer {token}"} if token else None
        self._stack = contextlib.ExitStack()
        try:
            self._ws: Any = self._stack.enter_context(connect(
                url, additional_headers=headers, origin=Origin(origin) if origin else None,
                max_size=None, compression=None, open_timeout=10))
        except (InvalidHandshake, TimeoutError) as exc:
            raise OSError(f"WebSocket handshake refused: {exc}") from None
        self._msgpack = msgpack

    def encode_map(self, obj: dict[str, Any]) -> bytes:
        """The frame for a request map, in this connection's encoding."""
        if self._msgpack:
            from ..msgpack_wire import pack

            return pack(obj)
        from ..json_wire import dump_json

        return dump_json(obj)

    def send(self, data: bytes) -> None:
        from websockets.exceptions import ConnectionClosed

        frame: str | bytes = data
        if not (data and data[0] in MAP_FIRST_BYTES):
            with contextlib.suppress(UnicodeDecodeError):
                frame = data.decode("utf-8")
        try:
            self._ws.send(frame)
        except ConnectionClosed:
            raise Closed() from None

    def receive(self, timeout: float) -> bytes | None:
        from websockets.exceptions import ConnectionClosed

        try:
            message = self._ws.recv(timeout=timeout)
        except TimeoutError:
            return None
        except ConnectionClosed:
            raise Closed() from None
        return message.encode("utf-8") if isinstance(message, str) else bytes(message)

    def close(self) -> None:
        self._stack.close()
