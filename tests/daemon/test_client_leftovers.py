"""What a client leaves behind is freed, and `cancel`, `ping` and `quit` are admitted past
its in-flight limit on every transport (issue 51, items 3 and 5).

Every test talks to a real `jacquetd serve` over real sockets.
"""

from __future__ import annotations

import json
import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgpack
import zmq
from jacquetd_protocol.codec import ReplyStreamDecoder, decode_reply
from jacquetd_protocol.messages import Reply
from websockets.sync.client import connect

from tests.conftest import DaemonProcess
from tests.daemon.wire import TcpClient, ZmqClient

Start = Callable[..., DaemonProcess]
NEW = {"variant": "jacquet", "seat1": "random", "name0": "ann"}


def _hosted(start: Start, tmp_path: Path, *extra: str) -> tuple[DaemonProcess, str]:
    """A daemon with hosted matches and one match waiting for its human seat (so that
    a watch of it has no news and sends nothing after its first events)."""
    daemon = start("--workers", "1", "--db", str(tmp_path / "m.sqlite3"), *extra)
    client = ZmqClient(daemon.zmq)
    mid = client.call("match_new", **NEW).result["match_id"]
    client.close()
    return daemon, mid


def _stats(daemon: DaemonProcess) -> dict[str, Any]:
    probe = ZmqClient(daemon.zmq)
    try:
        return probe.call("stats").result
    finally:
        probe.close()


def _watches_settle(daemon: DaemonProcess, within: float = 10.0) -> int:
    """The daemon's open watches once they stop falling (or `within` has passed)."""
    deadline = time.monotonic() + within
    count = _stats(daemon)["watches"]
    while count and time.monotonic() < deadline:
        time.sleep(0.2)
        count = _stats(daemon)["watches"]
    return count


def _close_wait(port: int) -> int:
    out = subprocess.run(["ss", "-tan"], capture_output=True, text=True, check=True).stdout
    return sum(1 for line in out.splitlines()
               if line.startswith("CLOSE-WAIT") and f":{port} " in line)


def _read_all(sock: socket.socket, decoder: ReplyStreamDecoder, within: float) -> list[Any]:
    """Every message until the daemon closes the connection (or `within` passes)."""
    got: list[Any] = []
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            data = sock.recv(1 << 20)
        except TimeoutError:
            break
        if not data:
            return [*got, "EOF"]
        got.extend(decode_reply(item) for item in decoder.feed(data))
    return got


# ---- item 3: watches of a closed TCP connection ----------------------------------------------


def test_watches_end_when_a_tcp_client_closes_its_side(start_jacquetd: Start,
                                                       tmp_path: Path) -> None:
    daemon, mid = _hosted(start_jacquetd, tmp_path, "--limit", "max_watches=64")
    conns = []
    for _ in range(4):
        sock = socket.create_connection(daemon.tcp, timeout=10)
        sock.sendall(b"".join(msgpack.packb({"id": i, "cmd": "match_watch", "match_id": mid})
                              for i in range(16)))
        conns.append(sock)
    time.sleep(1.0)
    assert _stats(daemon)["watches"] == 64
    finals: list[Reply] = []
    for sock in conns:  # a normal close: everything read, then the client's FIN
        decoder = ReplyStreamDecoder()
        _read_all(sock, decoder, 0.5)
        sock.shutdown(socket.SHUT_WR)
        rest = _read_all(sock, decoder, 10.0)
        assert rest and rest[-1] == "EOF", "the daemon kept the connection open"
        finals += [m for m in rest if isinstance(m, Reply)]
        sock.close()
    # each watch got its one final reply, and the daemon closed every connection
    assert len(finals) == 64 and {r.id for r in finals} == set(range(16))
    assert all(r.error and r.error["code"] == "cancelled" for r in finals)
    assert _watches_settle(daemon) == 0
    assert _close_wait(daemon.tcp[1]) == 0
    # the cap is free again for a new watcher
    watcher = TcpClient(daemon.tcp)
    watcher.send_bytes(msgpack.packb({"id": "w", "cmd": "match_watch", "match_id": mid}))
    first = watcher.recv()
    assert not isinstance(first, Reply), first  # a partial: the stream runs
    watcher.close()
    daemon.stop()


def test_max_watches_holds_under_a_burst(start_jacquetd: Start, tmp_path: Path) -> None:
    daemon, mid = _hosted(start_jacquetd, tmp_path, "--limit", "max_watches=10")
    client = TcpClient(daemon.tcp)
    client.send_bytes(b"".join(msgpack.packb({"id": i, "cmd": "match_watch", "match_id": mid})
                               for i in range(30)))
    busy = 0
    while busy < 20:
        msg = client.recv()
        if isinstance(msg, Reply):
            assert msg.error is not None and msg.error["code"] == "busy", msg
            assert msg.error["limit"] == "max_watches"
            busy += 1
    assert _stats(daemon)["watches"] == 10
    client.close()
    daemon.stop()


# ---- item 3: watches of a departed ZeroMQ client ---------------------------------------------


def test_watches_of_departed_zeromq_clients_are_freed(start_jacquetd: Start,
                                                      tmp_path: Path) -> None:
    daemon, mid = _hosted(start_jacquetd, tmp_path)
    probe = ZmqClient(daemon.zmq)
    seen = probe.call("match_watch", match_id=mid, follow=False).result["events"][-1]["n"]
    probe.close()
    ctx = zmq.Context()
    # after the last event: a watch with no news sends nothing (no failed send tells the
    # daemon that its client is gone)
    body = [msgpack.packb({"id": i, "cmd": "match_watch", "match_id": mid, "after": seen})
            for i in range(2048)]
    for _ in range(16):
        # each sends far past its share, reads nothing and leaves as soon as its messages
        # are out: libzmq still hands the daemon hundreds of them after the monitor has
        # reported the peer gone
        sock = ctx.socket(zmq.DEALER)
        sock.setsockopt(zmq.LINGER, 10_000)
        sock.setsockopt(zmq.SNDHWM, 0)
        sock.connect(daemon.zmq)
        for frame in body:
            sock.send(frame)
        sock.close()
    ctx.term()
    assert _watches_settle(daemon) == 0
    stats = _stats(daemon)
    assert stats["clients"] == 0, stats
    # a client that leaves and comes back under its own routing id is served again
    named = ZmqClient(daemon.zmq, identity=b"comes-back")
    assert named.call("ping").ok
    named.close()
    time.sleep(0.3)
    again = ZmqClient(daemon.zmq, identity=b"comes-back")
    assert again.call("ping").ok
    again.close()
    daemon.stop()


# ---- item 5: cancel, ping and quit past the in-flight limit -----------------------------------


def _limit(daemon: DaemonProcess) -> int:
    probe = ZmqClient(daemon.zmq)
    limit = int(probe.call("hello").result["limits"]["max_inflight_per_client"])
    probe.close()
    return limit


def test_cancel_ping_and_quit_pass_the_in_flight_limit_over_zeromq(start_jacquetd: Start,
                                                                   tmp_path: Path) -> None:
    daemon, mid = _hosted(start_jacquetd, tmp_path)
    limit = _limit(daemon)
    client = ZmqClient(daemon.zmq)
    for i in range(limit):
        client.send("match_watch", id=i, match_id=mid)
    time.sleep(1.0)
    while client.sock.poll(200):
        client.sock.recv()  # the watches' first events
    over = client.call("legal_moves", position="start:backgammon", dice=[3, 1])
    assert over.error is not None and over.error["code"] == "busy"
    assert over.error["limit"] == "max_inflight_per_client"
    assert client.call("ping").ok
    rid = client.send("cancel", target=3)
    finals = {r.id: r for r in (client.recv_final() for _ in range(2))}
    assert finals[rid].ok and finals[3].error["code"] == "cancelled"
    # text and JSON bodies are admitted as msgpack ones are
    client.sock.send(b"91 ping\n")
    assert decode_reply(client.sock.recv()).ok  # type: ignore[union-attr]
    client.sock.send(json.dumps({"id": 92, "cmd": "cancel", "target": 4}).encode())
    got = {r.id: r for r in (client.recv_final() for _ in range(2))}
    assert got[92].ok and got[4].error["code"] == "cancelled"
    quit_id = client.send("quit")
    assert client.recv_final().id == quit_id
    client.close()
    daemon.stop()


def test_cancel_ping_and_quit_pass_the_in_flight_limit_over_tcp_and_websocket(
        start_jacquetd: Start, tmp_path: Path) -> None:
    daemon, mid = _hosted(start_jacquetd, tmp_path)
    limit = _limit(daemon)
    tcp = TcpClient(daemon.tcp)
    tcp.send_bytes(b"".join(msgpack.packb({"id": i, "cmd": "match_watch", "match_id": mid})
                            for i in range(limit)))
    time.sleep(1.0)
    tcp.send_bytes(msgpack.packb({"id": "p", "cmd": "ping"}))
    assert tcp.recv_final().id == "p"
    tcp.send_bytes(msgpack.packb({"id": "c", "cmd": "cancel", "target": 5}))
    finals = {r.id: r for r in (tcp.recv_final() for _ in range(2))}
    assert finals["c"].ok and finals[5].error["code"] == "cancelled"
    tcp.send_bytes(msgpack.packb({"id": "q", "cmd": "quit"}))
    assert tcp.recv_final().id == "q"
    tcp.close()
    with connect(f"ws://{daemon.endpoints['ws']}/ws", open_timeout=10) as ws:
        for i in range(limit):
            ws.send(json.dumps({"id": i, "cmd": "match_watch", "match_id": mid}))
        time.sleep(1.0)

        def final(within: float = 10.0) -> dict[str, Any]:
            while True:
                msg = json.loads(ws.recv(timeout=within))
                if not msg.get("partial"):
                    return dict(msg)

        ws.send(json.dumps({"id": "p", "cmd": "ping"}))
        assert final()["id"] == "p"
        ws.send(json.dumps({"id": "c", "cmd": "cancel", "target": 7}))
        got = {m["id"]: m for m in (final(), final())}
        assert got["c"]["ok"] and got[7]["error"]["code"] == "cancelled"
        ws.send(json.dumps({"id": "q", "cmd": "quit"}))
        assert final()["id"] == "q"
    assert _watches_settle(daemon) == 0
    daemon.stop()
