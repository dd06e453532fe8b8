"""Small blocking clients for the daemon's tests: ZeroMQ DEALER, TCP and gnubg."""

from __future__ import annotations

import itertools
import socket
import time
from typing import Any

import zmq
from jacquetd_protocol.codec import ReplyStreamDecoder, decode_reply, encode_request
from jacquetd_protocol.errors import ProtocolError
from jacquetd_protocol.messages import Partial, Reply, Request

_ids = itertools.count(1)


class ZmqClient:
    def __init__(self, endpoint: str, ctx: zmq.Context[Any] | None = None, *,
                 identity: bytes | None = None, curve: tuple[bytes, bytes, bytes] | None = None
                 ) -> None:
        self.ctx = ctx or zmq.Context.instance()
        self.sock = self.ctx.socket(zmq.DEALER)
        self.sock.setsockopt(zmq.LINGER, 0)
        self.sock.setsockopt(zmq.SNDTIMEO, 5000)  # no peer (refused handshake): never hang
        if identity is not None:
            self.sock.setsockopt(zmq.IDENTITY, identity)
        if curve is not None:
            public, secret, server_public = curve
            self.sock.curve_publickey = public
            self.sock.curve_secretkey = secret
            self.sock.curve_serverkey = server_public
        self.sock.connect(endpoint)

    def send(self, cmd: str, id: Any = "auto", encoding: str = "msgpack",
             **args: Any) -> Any:
        rid = next(_ids) if id == "auto" else id
        self.sock.send(encode_request(Request(rid, cmd, args, encoding)))  # type: ignore[arg-type]
        return rid

    def send_raw(self, *frames: bytes) -> None:
        self.sock.send_multipart(list(frames))

    def recv(self, timeout: float = 10.0) -> Reply | Partial:
        if not self.sock.poll(int(timeout * 1000)):
            raise TimeoutError("no reply")
        return decode_reply(self.sock.recv())

    def recv_final(self, timeout: float = 10.0) -> Reply:
        deadline = time.monotonic() + timeout
        while True:
            msg = self.recv(max(0.01, deadline - time.monotonic()))
            if isinstance(msg, Reply):
                return msg

    def call(self, cmd: str, timeout: float = 10.0, **args: Any) -> Reply:
        rid = self.send(cmd, **args)
        reply = self.recv_final(timeout)
        assert reply.id == rid, (reply, rid)
        return reply

    def close(self) -> None:
        self.sock.close(0)


class TcpClient:
    def __init__(self, addr: tuple[str, int], timeout: float = 10.0) -> None:
        self.sock = socket.create_connection(addr, timeout=timeout)
        self.decoder = ReplyStreamDecoder()
        self.pending: list[Reply | Partial] = []

    def send_bytes(self, data: bytes) -> None:
        self.sock.sendall(data)

    def send_line(self, line: str) -> None:
        self.sock.sendall(line.encode() + b"\n")

    def recv(self) -> Reply | Partial:
        while not self.pending:
            data = self.sock.recv(65536)
            if not data:
                raise ConnectionError("closed by the daemon")
            for item in self.decoder.feed(data):
                if isinstance(item, ProtocolError):
                    raise item
                self.pending.append(decode_reply(item))
        return self.pending.pop(0)

    def recv_final(self) -> Reply:
        while True:
            msg = self.recv()
            if isinstance(msg, Reply):
                return msg

    def close(self) -> None:
        self.sock.close()


class GnubgClient:
    """Talks to the gnubg endpoint the way gnubg's clients do: a line, then its reply."""

    def __init__(self, addr: tuple[str, int], timeout: float = 10.0) -> None:
        self.sock = socket.create_connection(addr, timeout=timeout)
        self.buf = b""

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def read_lines(self, n: int) -> list[str]:
        while self.buf.count(b"\n") < n:
            data = self.sock.recv(65536)
            if not data:
                raise ConnectionError(f"closed; had {self.buf!r}")
            self.buf += data
        lines = []
        for _ in range(n):
            line, _, self.buf = self.buf.partition(b"\n")
            lines.append(line.decode("latin-1") + "\n")
        return lines

    def ask(self, line: str, lines: int = 1) -> str:
        self.send(line.encode("latin-1") + b"\n")
        return "".join(self.read_lines(lines))

    def closed_by_peer(self, timeout: float = 5.0) -> bool:
        self.sock.settimeout(timeout)
        try:
            return self.sock.recv(1) == b""
        except (TimeoutError, ConnectionResetError):
            return False

    def close(self) -> None:
        self.sock.close()
