"""The front's queue (jacquetd/daemon/front.py) over real sockets: one answer per request
under a burst, `busy` for a ZeroMQ peer past its share, one client's order kept, and a
ZeroMQ peer that fills its queue and leaves does not stop the daemon."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import msgpack
import zmq

from jacquetd.daemon.front import FrontQueue
from tests.conftest import DaemonProcess
from tests.daemon.wire import TcpClient, ZmqClient

Start = Callable[..., DaemonProcess]
LEGAL = {"cmd": "legal_moves", "position": "start:backgammon", "dice": [3, 1]}


def test_a_zmq_burst_past_the_clients_share_is_answered_busy_and_once_each(
        start_jacquetd: Start) -> None:
    daemon = start_jacquetd("--workers", "1", "--db", "off", "--limit",
                            "max_inflight_per_client=8")
    ctx = zmq.Context()
    sock = ctx.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.connect(daemon.zmq)
    for n in range(300):  # sent at once: most arrive while 8 are still queued
        sock.send(msgpack.packb({"id": n, **LEGAL}))
    answers: dict[int, int] = {}
    busy = 0
    deadline = time.monotonic() + 60
    while len(answers) < 300 and time.monotonic() < deadline:
        if sock.poll(1000):
            reply = msgpack.unpackb(sock.recv())
            answers[reply["id"]] = answers.get(reply["id"], 0) + 1
            if not reply["ok"]:
                assert reply["error"]["code"] == "busy", reply
                assert reply["error"]["limit"] == "max_inflight_per_client", reply
                busy += 1
    assert sorted(answers) == list(range(300))
    assert set(answers.values()) == {1}
    assert 0 < busy < 300
    probe = ZmqClient(daemon.zmq)
    stats = probe.call("stats").result
    assert stats["errors"].get("busy") == busy
    probe.close()
    sock.close(0)
    ctx.term()


def test_one_tcp_clients_pipelined_replies_keep_their_order(start_jacquetd: Start) -> None:
    daemon = start_jacquetd("--workers", "1", "--db", "off")
    client = TcpClient(daemon.tcp, timeout=30.0)
    lines = b"".join(f"{n} {'ping' if n % 3 == 0 else 'legal_moves start:backgammon 31'}\n"
                     .encode() for n in range(1, 61))
    client.send_bytes(lines)
    ids = [client.recv_final().id for _ in range(60)]
    assert ids == list(range(1, 61))
    client.close()


def test_a_zmq_peer_that_fills_its_queue_and_leaves_does_not_stop_the_daemon(
        start_jacquetd: Start) -> None:
    # libzmq 4.3.5 aborted the process here when ZMTP heartbeats were on (short ones make
    # it likely): the daemon reads the gone peer's queue while a heartbeat falls
    daemon = start_jacquetd("--workers", "1", "--db", "off", "--heartbeat", "ivl_ms=100",
                            "--heartbeat", "timeout_ms=300")
    ctx = zmq.Context()
    body = msgpack.packb({"id": 1, **LEGAL})
    for _ in range(3):
        sock = ctx.socket(zmq.DEALER)
        sock.setsockopt(zmq.SNDHWM, 0)
        sock.setsockopt(zmq.RCVHWM, 10)
        sock.setsockopt(zmq.LINGER, 0)
        sock.connect(daemon.zmq)
        for _ in range(30_000):
            sock.send(body)
        time.sleep(1.0)
        sock.close(0)
        time.sleep(1.5)
    ctx.term()
    assert daemon.alive(), daemon.log_text()[-2000:]
    probe = ZmqClient(daemon.zmq)
    assert probe.call("ping", timeout=30).ok
    probe.close()


def test_work_the_daemon_queues_runs_in_its_clients_turn_and_is_not_a_message() -> None:
    """`in_turn` (a match_watch stream's next events) runs after what the client queued
    before it, gives back a result or an exception, waits behind a new client's request,
    and a client that leaves with such work queued is not counted as having left
    messages unanswered."""

    async def scenario() -> None:
        front = FrontQueue()
        order: list[str] = []

        def message(peer: Any, item: Any) -> None:
            order.append(item)

        front.put("a", message, None, "a1")
        front.put("b", message, None, "b1")
        first = front.in_turn("a", lambda: order.append("a-own") or 7)

        def fails() -> int:
            raise ValueError("no")

        second = front.in_turn("b", fails)
        assert await first == 7
        try:
            await second
        except ValueError:
            pass
        else:
            raise AssertionError("the exception was not passed on")
        assert order.index("a1") < order.index("a-own")
        # a new client's request goes before the daemon's own work for other clients
        watches = [front.in_turn(f"w{i}", lambda i=i: order.append(f"w{i}")) for i in range(3)]
        front.put("p", message, None, "p1")
        await asyncio.gather(*watches)
        assert order[-4:] == ["p1", "w0", "w1", "w2"]
        front.put("c", message, None, "c1")
        front.in_turn("c", lambda: 0)
        front.in_turn("c", lambda: 0)
        assert front.queued("c") == 3 and front.forget("c") == 1 and len(front) == 0

    asyncio.run(scenario())
