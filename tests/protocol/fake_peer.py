"""A scripted peer for testing the conformance runner: a few commands answered through
the codec, over stdio (`python -m tests.protocol.fake_peer`), TCP or ZeroMQ."""

from __future__ import annotations

import os
import socket
import sys
import threading
from typing import Any

from jacquetd_protocol import (
    Limits,
    Partial,
    ProtocolError,
    Reply,
    StreamDecoder,
    decode_request,
    describe,
    detect_encoding,
    encode_reply,
)
from jacquetd_protocol.errors import ErrorCode


def answer(frame: bytes) -> tuple[list[bytes], bool]:
    """The reply frames to one request frame, and whether the session ends."""
    encoding = detect_encoding(frame)
    try:
        req = decode_request(frame)
    except ProtocolError as exc:
        return [encode_reply(Reply.failure(exc.id, exc), encoding)], False
    out: list[Reply | Partial] = []
    if req.cmd == "hello":
        out.append(Reply.success(req.id, describe(Limits()) | {
            "engine": "fake", "version": "0", "variants": ["jacquet"], "levels": ["random"]}))
    elif req.cmd == "analyze":
        out += [Partial(req.id, {"plies": 0}), Partial(req.id, {"plies": 1}),
                Reply.success(req.id, {"plies": 1, "plays": []})]
    elif req.cmd in ("ping", "quit"):
        out.append(Reply.success(req.id, {"echo": req.args.get("timeout_ms")}))
    else:
        out.append(Reply.failure(req.id, ProtocolError(ErrorCode.NOT_FOUND, "not here")))
    return [encode_reply(m, req.encoding) for m in out], req.cmd == "quit"


def serve_stream(read: Any, write: Any) -> None:
    """Serve one byte stream until its end or `quit`."""
    decoder = StreamDecoder()
    while True:
        data = read()
        items = decoder.feed(data) if data else decoder.finish()
        for item in items:
            if isinstance(item, ProtocolError):
                write(encode_reply(Reply.failure(None, item), "msgpack"))
                if decoder.broken:
                    return
                continue
            frames, done = answer(item)
            for f in frames:
                write(f)
            if done:
                return
        if not data:
            return


def serve_tcp(server: socket.socket) -> None:
    """Accept connections forever, one thread each."""
    while True:
        conn, _ = server.accept()
        threading.Thread(target=_serve_conn, args=(conn,), daemon=True).start()


def _serve_conn(conn: socket.socket) -> None:
    with conn:
        serve_stream(lambda: conn.recv(65536), conn.sendall)


def serve_zmq(url: str, ready: threading.Event, stop: threading.Event) -> None:
    import zmq

    sock = zmq.Context.instance().socket(zmq.ROUTER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.bind(url)
    ready.set()
    try:
        while not stop.is_set():
            if not sock.poll(50):
                continue
            identity, body = sock.recv_multipart()
            for frame in answer(body)[0]:
                sock.send_multipart([identity, frame])
    finally:
        sock.close()


if __name__ == "__main__":
    stdin, stdout = sys.stdin.buffer.raw, sys.stdout.buffer  # type: ignore[attr-defined]

    def _write(data: bytes) -> None:
        stdout.write(data)
        stdout.flush()

    serve_stream(lambda: os.read(stdin.fileno(), 65536), _write)
