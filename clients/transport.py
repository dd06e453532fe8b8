"""How a client reaches an engine: ZeroMQ, a spawned process's stdio, or a TCP byte stream.

A transport moves whole frames: `send(frame)` and `recv() -> frame`. Over
ZeroMQ a frame is one ZeroMQ message (a DEALER socket, LINGER 0, so closing
never blocks). Over a byte stream (a subprocess's stdin/stdout, or a TCP
connection) msgpack objects follow each other and `ReplyStreamDecoder` cuts
the replies apart. `recv` raises `EngineTerminatedError` once the peer is gone.
"""

from __future__ import annotations

import abc
import asyncio
import contextlib
import logging
import os
from collections import deque
from collections.abc import Mapping, Sequence
from typing import IO, Any

import zmq
import zmq.asyncio
from jacquetd_protocol.codec import ReplyStreamDecoder
from jacquetd_protocol.errors import ProtocolError

from .errors import EngineStartError, EngineTerminatedError

log = logging.getLogger(__name__)

#: Seconds a spawned engine gets to exit by itself after `quit` and the end of its stdin.
EXIT_GRACE_S = 2.0
READ_CHUNK = 1 << 16
ZMQ_SCHEMES = ("tcp://", "ipc://", "inproc://")
STREAM_SCHEME = "socket://"


class Transport(abc.ABC):
    """A bidirectional channel of whole frames to one engine."""

    description: str = "engine"

    @abc.abstractmethod
    async def send(self, frame: bytes) -> None:
        """Send one request frame; EngineTerminatedError if the peer is gone."""

    @abc.abstractmethod
    async def recv(self) -> bytes | ProtocolError:
        """The next reply frame (or the decoding problem in its place);
        EngineTerminatedError at the end of the stream."""

    @abc.abstractmethod
    async def close(self) -> None:
        """Release the channel (and end a spawned process). Idempotent."""

    @property
    def is_byte_stream(self) -> bool:
        """True for stdio and TCP streams (where `quit` ends the connection)."""
        return False

    @property
    def frames_scanned(self) -> bool:
        """True when `recv` hands out frames a `ReplyStreamDecoder` has cut, so their
        shape and limits are already checked (they are not scanned twice)."""
        return False


class ZmqTransport(Transport):
    """A DEALER socket connected to the daemon's ROUTER: one request per message."""

    def __init__(self, endpoint: str, *, context: zmq.asyncio.Context | None = None,
                 curve: Mapping[str, bytes] | None = None) -> None:
        self.description = endpoint
        self._ctx = context or zmq.asyncio.Context.instance()
        self._sock = self._ctx.socket(zmq.DEALER)
        self._sock.setsockopt(zmq.LINGER, 0)
        if curve:  # {"serverkey", "publickey", "secretkey"} for a CurveZMQ endpoint
            self._sock.curve_serverkey = curve["serverkey"]
            self._sock.curve_publickey = curve["publickey"]
            self._sock.curve_secretkey = curve["secretkey"]
        self._sock.connect(endpoint)
        self._closed = False

    async def send(self, frame: bytes) -> None:
        if self._closed:
            raise EngineTerminatedError(f"connection to {self.description} is closed")
        await self._sock.send(frame)

    async def recv(self) -> bytes | ProtocolError:
        while True:
            if self._closed:
                raise EngineTerminatedError(f"connection to {self.description} is closed")
            try:
                frames = await self._sock.recv_multipart()
            except zmq.ZMQError as exc:
                raise EngineTerminatedError(f"{self.description}: {exc}") from None
            if len(frames) == 1:
                return bytes(frames[0])
            log.warning("%s: dropped a reply of %d frames (expected one)", self.description,
                        len(frames))

    async def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._sock.close(linger=0)


class StreamTransport(Transport):
    """Frames over an asyncio byte stream (a TCP connection or a process's pipes)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter | Any,
                 description: str) -> None:
        self.description = description
        self._reader = reader
        self._writer = writer
        self._decoder = ReplyStreamDecoder()
        self._ready: deque[bytes | ProtocolError] = deque()
        self._eof = False

    @property
    def is_byte_stream(self) -> bool:
        return True

    @property
    def frames_scanned(self) -> bool:
        return True

    async def send(self, frame: bytes) -> None:
        if self._writer.is_closing():
            raise EngineTerminatedError(f"{self.description} is closed")
        try:
            self._writer.write(frame)
            await self._writer.drain()
        except (ConnectionError, BrokenPipeError) as exc:
            raise EngineTerminatedError(f"{self.description}: {exc}") from None

    async def recv(self) -> bytes | ProtocolError:
        while not self._ready:
            if self._eof:
                raise EngineTerminatedError(f"{self.description} closed the connection")
            try:
                data = await self._reader.read(READ_CHUNK)
            except (ConnectionError, OSError) as exc:
                raise EngineTerminatedError(f"{self.description}: {exc}") from None
            if data:
                self._ready.extend(self._decoder.feed(data))
            else:
                self._eof = True
                self._ready.extend(self._decoder.finish())
        return self._ready.popleft()

    async def close(self) -> None:
        if not self._writer.is_closing():
            self._writer.close()
        with contextlib.suppress(ConnectionError, OSError, BrokenPipeError):
            await self._writer.wait_closed()

    @classmethod
    async def connect(cls, host: str, port: int) -> StreamTransport:
        """A TCP connection to an engine's byte-stream endpoint."""
        try:
            reader, writer = await asyncio.open_connection(host, port)
        except OSError as exc:
            raise EngineTerminatedError(f"cannot connect to {host}:{port}: {exc}") from None
        return cls(reader, writer, f"{STREAM_SCHEME}{host}:{port}")


class ProcessTransport(StreamTransport):
    """An engine spawned as a subprocess, spoken to over its stdin and stdout."""

    def __init__(self, process: asyncio.subprocess.Process, description: str) -> None:
        assert process.stdout is not None and process.stdin is not None
        super().__init__(process.stdout, process.stdin, description)
        self.process = process

    @classmethod
    async def spawn(cls, argv: Sequence[str], *, cwd: str | os.PathLike[str] | None = None,
                    env: Mapping[str, str] | None = None,
                    stderr: int | IO[Any] | None = None,
                    start_new_session: bool = False) -> ProcessTransport:
        """Start `argv` with pipes for stdin and stdout (stderr: inherited unless given);
        `start_new_session`: in a session of its own, out of reach of the terminal's
        Ctrl-C."""
        try:
            process = await asyncio.create_subprocess_exec(
                *argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                stderr=stderr, cwd=cwd, env=dict(env) if env is not None else None,
                limit=READ_CHUNK, start_new_session=start_new_session)
        except OSError as exc:
            raise EngineStartError(f"cannot start {argv[0]!r}: {exc}") from None
        return cls(process, " ".join(argv))

    @property
    def pid(self) -> int:
        return self.process.pid

    async def close(self) -> None:
        await super().close()
        if self.process.returncode is None:
            try:
                await asyncio.wait_for(self.process.wait(), EXIT_GRACE_S)
            except TimeoutError:
                self.kill()
                await self.process.wait()

    def kill(self) -> None:
        """End the process at once (a hung engine)."""
        if self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()
