"""Plays conformance vectors against a live endpoint and reports pass/fail per vector.

    python -m jacquetd_protocol.conformance --connect tcp://HOST:PORT   ZeroMQ endpoint
    python -m jacquetd_protocol.conformance --tcp HOST:PORT             plain TCP endpoint
    python -m jacquetd_protocol.conformance --spawn "jacquetd stdio"    a subprocess on stdio
    python -m jacquetd_protocol.conformance --gnubg HOST:PORT           the gnubg endpoint
    python -m jacquetd_protocol.conformance --ws ws://HOST:PORT/        WebSocket (JSON)

Give one protocol endpoint and/or the gnubg endpoint. The runner first asks
the protocol endpoint `hello` to learn its limits, levels and variants
(`${server.…}` in vectors; `requires` skips a vector the server cannot run).
It prints PASS, FAIL (with the reason) or SKIP per vector, and ends with the
line `N passed, M failed`; the exit status is 1 if anything failed.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from ..codec import decode_reply
from ..errors import ProtocolError
from ..messages import Partial, Reply
from ..msgpack_wire import pack
from .matchers import match
from .transports import (
    Closed,
    Connection,
    Spawner,
    TcpConnection,
    WsConnection,
    ZmqConnection,
)
from .vectors import VECTORS_DIR, Vector, load_vectors, lookup, substitute

_TEXT_ID_RE = re.compile(r"^\s*(\d{1,19})\s")


class StepFailure(Exception):
    """A step did not get what the vector expects."""


@dataclass
class Session:
    """The state of one vector's connection: replies by id, variables, what was sent."""

    conn: Connection
    timeout: float
    variables: dict[str, Any]
    finals: dict[Any, list[tuple[Reply, bytes]]] = field(default_factory=lambda: defaultdict(list))
    partials: dict[Any, list[dict[str, Any]]] = field(
        default_factory=lambda: defaultdict(list))
    sent: dict[Any, int] = field(default_factory=lambda: defaultdict(int))
    answered: dict[Any, int] = field(default_factory=lambda: defaultdict(int))

    def send(self, data: bytes, rid: Any) -> None:
        """Send a request and count it: each gets exactly one final reply."""
        self.sent[_key(rid)] += 1
        self.conn.send(data)

    def read_one(self, timeout: float) -> bool:
        """Read and file one reply; False on timeout."""
        frame = self.conn.receive(timeout)
        if frame is None:
            return False
        try:
            msg = decode_reply(frame)
        except ProtocolError as exc:
            raise StepFailure(f"unreadable reply {frame[:80]!r}: {exc}") from None
        key = _key(msg.id)
        if msg.id is not None and self.answered[key] >= self.sent[key]:
            what = "partial" if isinstance(msg, Partial) else "final reply"
            raise StepFailure(f"a {what} for id {msg.id!r} after every request with that id "
                              "was answered")
        if isinstance(msg, Partial):
            self.partials[key].append(msg.result)
            return True
        self.answered[key] += 1
        self.finals[key].append((msg, frame))
        return True

    def final(self, rid: Any) -> tuple[Reply, bytes]:
        """Wait for the final reply to request `rid`."""
        key = _key(rid)
        while not self.finals[key]:
            if not self.read_one(self.timeout):
                raise StepFailure(f"no final reply for id {rid!r} within {self.timeout:g} s")
        return self.finals[key].pop(0)


def _key(rid: Any) -> Any:
    return ("id", type(rid).__name__, rid)


def _as_dict(reply: Reply) -> dict[str, Any]:
    if reply.ok:
        return {"id": reply.id, "ok": True, "result": reply.result}
    return {"id": reply.id, "ok": False, "error": reply.error}


def _encoder(conn: Connection) -> Callable[[dict[str, Any]], bytes]:
    """How the connection sends a request map: msgpack, or its own encoding (WebSocket)."""
    encode: Callable[[dict[str, Any]], bytes] = getattr(conn, "encode_map", pack)
    return encode


def _request_bytes(request: Any, conn: Connection) -> tuple[bytes, Any]:
    """The bytes to send for a `send` value, and the request id it carries."""
    if isinstance(request, dict):
        return _encoder(conn)(request), request.get("id")
    m = _TEXT_ID_RE.match(request + " ")
    return (request + "\n").encode("utf-8"), int(m[1]) if m else None


def _raw_bytes(step: dict[str, Any], variables: dict[str, Any]) -> bytes:
    if "send_hex" in step:
        body = bytes.fromhex(str(substitute(step["send_hex"], variables)))
    else:
        body = str(substitute(step["send_raw"], variables)).encode("utf-8")
    repeat = int(substitute(step.get("repeat", 1), variables))
    then = str(substitute(step.get("then", ""), variables)).encode("utf-8")
    before = str(substitute(step.get("before", ""), variables)).encode("utf-8")
    return before + body * repeat + then


def _check(expected: Any, actual: Any, what: str) -> None:
    problems = match(expected, actual)
    if problems:
        raise StepFailure(f"{what}: " + "; ".join(problems[:3]))


def run_protocol_step(session: Session, step: dict[str, Any]) -> None:
    """One step of a protocol-endpoint vector."""
    v = session.variables
    rid: Any = None
    if "send" in step:
        data, rid = _request_bytes(substitute(step["send"], v), session.conn)
        session.send(data, rid)
    elif "send_raw" in step or "send_hex" in step:
        session.send(_raw_bytes(step, v), substitute(step.get("id"), v))
    elif "burst" in step:
        _burst(session, step)
        return
    rid = substitute(step["id"], v) if "id" in step else rid
    if "wait_partials" in step:
        _wait_partials(session, rid, int(substitute(step["wait_partials"], v)))
    if "expect" in step:
        reply, frame = session.final(rid)
        got = _as_dict(reply)
        _check(substitute(step["expect"], v), got, "reply")
        if "partials" in step:
            _check(substitute(step["partials"], v), session.partials.pop(_key(rid), []),
                   "partials")
        if "text" in step:
            lines = frame.decode("utf-8", "replace").rstrip("\n").split("\n")
            _check(substitute(step["text"], v), lines, "text")
        for name, path in step.get("capture", {}).items():
            try:
                v[name] = lookup(got, path)
            except KeyError as exc:
                raise StepFailure(f"capture {name}: {exc}") from None
    if step.get("expect_closed"):
        _expect_closed(session)


def _wait_partials(session: Session, rid: Any, count: int) -> None:
    """Read until `count` partials of request `rid` have come (they stay filed for a later
    `partials` check); a final reply before them fails the step."""
    key = _key(rid)
    while len(session.partials[key]) < count:
        if session.finals[key]:
            raise StepFailure(f"the final reply of {rid!r} came before {count} partial(s)")
        if not session.read_one(session.timeout):
            raise StepFailure(f"no {count} partial(s) for id {rid!r} within "
                              f"{session.timeout:g} s")


def _burst(session: Session, step: dict[str, Any]) -> None:
    burst = substitute(step["burst"], session.variables)
    first = int(burst.get("first_id", 1000))
    count = int(burst["count"]) + int(burst.get("plus", 0))
    ids = list(range(first, first + count))
    for rid in ids:
        request = burst["request"]
        if isinstance(request, dict):
            session.send(_encoder(session.conn)(request | {"id": rid}), rid)
        else:
            session.send(f"{rid} {request}\n".encode(), rid)
    replies = [_as_dict(session.final(rid)[0]) for rid in ids]
    for i, got in enumerate(replies):
        _check(step["expect_each"], got, f"burst reply {i + 1}")
    if "expect_some" in step and all(match(step["expect_some"], got) for got in replies):
        raise StepFailure("burst: no reply matches expect_some "
                          f"{json.dumps(step['expect_some'])}")


def _expect_closed(session: Session) -> None:
    try:
        while session.read_one(session.timeout):
            pass
    except Closed:
        return
    raise StepFailure(f"the connection stayed open {session.timeout:g} s")


def run_gnubg_step(session: Session, step: dict[str, Any]) -> None:
    """One step of a gnubg-endpoint vector: send a line (or raw bytes), read lines."""
    v = session.variables
    if "send" in step:
        session.conn.send((str(substitute(step["send"], v)) + "\n").encode("latin-1"))
    elif "send_raw" in step or "send_hex" in step:
        session.conn.send(_raw_bytes(step, v))
    for i, expected in enumerate(step.get("lines", []), 1):
        try:
            frame = session.conn.receive(session.timeout)
        except Closed:
            raise StepFailure(f"line {i}: the connection closed") from None
        if frame is None:
            raise StepFailure(f"line {i}: nothing within {session.timeout:g} s")
        _check(substitute(expected, v), frame.decode("latin-1"), f"line {i}")
    if step.get("expect_closed"):
        try:
            extra = session.conn.receive(session.timeout)
        except Closed:
            return
        raise StepFailure(f"expected the connection closed, got {extra!r}")


@dataclass
class Target:
    """Where to play the vectors."""

    protocol: Callable[[], Connection] | None = None
    transport: str | None = None   # of the protocol endpoint: zmq, tcp or stdio
    gnubg: Callable[[], Connection] | None = None


def probe(open_connection: Callable[[], Connection], timeout: float) -> dict[str, Any]:
    """The server's `hello` result (empty if it has none)."""
    conn = open_connection()
    try:
        conn.send(_encoder(conn)({"id": "conformance-probe", "cmd": "hello"}))
        frame = conn.receive(timeout)
        if frame is None:
            return {}
        reply = decode_reply(frame)
        return reply.result or {} if isinstance(reply, Reply) and reply.ok else {}
    except (Closed, ProtocolError, OSError):
        return {}
    finally:
        conn.close()


def skip_reason(vector: Vector, target: Target, server: dict[str, Any]) -> str | None:
    """Why `vector` cannot run here, or None."""
    if vector.endpoint == "gnubg":
        return None if target.gnubg else "no --gnubg endpoint given"
    if target.protocol is None:
        return "no protocol endpoint given"
    if target.transport not in vector.transports:
        return f"not for the {target.transport} transport"
    for need in vector.requires:
        kind, _, name = need.partition(":")
        have = {"command": server.get("commands", []), "level": server.get("levels", []),
                "variant": server.get("variants", []),
                "encoding": server.get("encodings", [])}.get(kind)
        if have is None or name not in have:
            return f"the server lacks {need}"
    return None


def run_vector(vector: Vector, target: Target, server: dict[str, Any],
               timeout: float) -> str | None:
    """Play one vector; None if it passes, else the reason it fails."""
    opener = target.gnubg if vector.endpoint == "gnubg" else target.protocol
    if opener is None:
        return "no endpoint for it"
    try:
        conn = opener()
    except OSError as exc:
        return f"cannot connect: {exc}"
    session = Session(conn, timeout, {"server": server})
    try:
        for i, step in enumerate(vector.steps, 1):
            if conn.transport not in step.get("transports", (conn.transport,)):
                continue
            try:
                if vector.endpoint == "gnubg":
                    run_gnubg_step(session, step)
                else:
                    run_protocol_step(session, step)
            except (StepFailure, Closed, ProtocolError, OSError, KeyError) as exc:
                what = step.get("about") or _describe(step)
                reason = "the connection closed" if isinstance(exc, Closed) else str(exc)
                return f"step {i} ({what}): {reason}"
        return None
    finally:
        conn.close()


def _describe(step: dict[str, Any]) -> str:
    for key in ("send", "burst", "send_raw", "send_hex"):
        if key in step:
            text = json.dumps(step[key]) if not isinstance(step[key], str) else step[key]
            return text if len(text) <= 60 else text[:60] + "…"
    return "expect"


def run(vectors: Sequence[Vector], target: Target, timeout: float, out: TextIO) -> int:
    """Play `vectors`, print a line for each and the closing count; return the failures."""
    server = probe(target.protocol, timeout) if target.protocol else {}
    passed = failed = skipped = 0
    for vector in vectors:
        reason = skip_reason(vector, target, server)
        if reason is not None:
            skipped += 1
            print(f"SKIP {vector.name} ({reason})", file=out)
            continue
        failure = run_vector(vector, target, server, timeout)
        if failure is None:
            passed += 1
            print(f"PASS {vector.name}", file=out)
        else:
            failed += 1
            print(f"FAIL {vector.name}: {failure}", file=out)
        out.flush()
    if skipped:
        print(f"{skipped} skipped", file=out)
    print(f"{passed} passed, {failed} failed", file=out)
    return failed


def _shard(parser: argparse.ArgumentParser, text: str) -> tuple[int, int]:
    """`K/N` as (K, N), 0 <= K < N; a usage error otherwise."""
    k, _, n = text.partition("/")
    if not (k.isdigit() and n.isdigit()) or not 0 <= int(k) < int(n):
        parser.error(f"--shard {text}: give K/N with 0 <= K < N, such as 1/3")
    return int(k), int(n)


def main(argv: list[str] | None = None) -> int:
    """Command line entry point (`python -m jacquetd_protocol.conformance`)."""
    parser = argparse.ArgumentParser(
        prog="python -m jacquetd_protocol.conformance", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--connect", metavar="URL", help="ZeroMQ endpoint, e.g. tcp://HOST:PORT")
    where.add_argument("--tcp", metavar="HOST:PORT", help="plain TCP endpoint")
    where.add_argument("--spawn", metavar="COMMAND",
                       help='subprocess, e.g. "jacquetd stdio"; a {n} in it is replaced by '
                            'a number of its own for each process, which lets the next '
                            'process start while a vector runs (say --db m{n}.sqlite3)')
    where.add_argument("--ws", metavar="URL",
                       help="WebSocket endpoint, e.g. ws://127.0.0.1:7783/ (requests in JSON)")
    parser.add_argument("--ws-msgpack", action="store_true",
                        help="over --ws, send request maps as msgpack binary frames")
    parser.add_argument("--ws-token", metavar="TOKEN",
                        help="over --ws, the bearer token the server requires")
    parser.add_argument("--gnubg", metavar="HOST:PORT", help="the gnubg endpoint")
    parser.add_argument("--vectors", type=Path, default=VECTORS_DIR, metavar="DIR",
                        help="directory of vector files (default: the protocol's own)")
    parser.add_argument("-k", metavar="TEXT", default="",
                        help="only vectors whose name contains TEXT")
    parser.add_argument("--timeout", type=float, default=10.0,
                        help="seconds to wait for each expected reply (default 10)")
    parser.add_argument("--list", action="store_true", help="list the vectors and exit")
    parser.add_argument("--shard", metavar="K/N", default="0/1",
                        help="only every Nth vector, from the Kth (0-based): N runs with "
                        "K = 0..N-1 together play every vector once (default 0/1: all)")
    args = parser.parse_args(argv)
    vectors = [v for v in load_vectors(args.vectors) if args.k in v.name]
    shard = _shard(parser, args.shard)
    vectors = vectors[shard[0]::shard[1]]
    if args.list:
        for v in vectors:
            print(f"{v.name}  [{v.endpoint}] {v.about}")
        return 0
    target = Target()
    spawner: Spawner | None = None
    if args.connect:
        target.protocol, target.transport = (lambda: ZmqConnection(args.connect)), "zmq"
    elif args.tcp:
        target.protocol, target.transport = (lambda: TcpConnection(args.tcp)), "tcp"
    elif args.ws:
        target.protocol, target.transport = (lambda: WsConnection(
            args.ws, msgpack=args.ws_msgpack, token=args.ws_token)), "ws"
    elif args.spawn:
        spawner = Spawner(args.spawn)
        target.protocol, target.transport = spawner, "stdio"
    if args.gnubg:
        target.gnubg = lambda: TcpConnection(args.gnubg, gnubg=True)
    if target.protocol is None and target.gnubg is None:
        parser.error("give an endpoint: --connect, --tcp, --spawn, --ws and/or --gnubg")
    try:
        return 1 if run(vectors, target, args.timeout, sys.stdout) else 0
    finally:
        if spawner is not None:
            spawner.finish()
