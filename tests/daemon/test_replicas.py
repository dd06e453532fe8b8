"""Front replicas (jacquetd/daemon/replicas.py): stateless front commands answered on
other cores once requests wait in the front, with the same replies, and nothing lost
when a replica dies."""

from __future__ import annotations

import itertools
import json
import os
import signal
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

import zmq
from hypothesis import given
from hypothesis import strategies as st
from websockets.sync.client import connect

from jacquetd.daemon import process_pool, replicas
from tests.conftest import DaemonProcess
from tests.daemon.wire import TcpClient, ZmqClient

Start = Callable[..., DaemonProcess]

# (command, arguments): plays of three variants, a bad request, a play and a position
ASKS: list[tuple[str, dict[str, Any]]] = [
    ("legal_moves", {"position": "start:backgammon", "dice": [3, 1]}),
    ("legal_moves", {"position": "start:jacquet", "dice": [6, 6]}),
    ("legal_moves", {"position": "start:jacquet-be", "dice": [5, 2], "compact": True}),
    ("legal_moves", {"position": "start:backgammon"}),  # no dice: bad_argument
    ("apply_move", {"position": "start:backgammon", "dice": [6, 5], "move": "24/13"}),
    ("apply_move", {"position": "start:jacquet", "dice": [3, 1], "move": "9/1"}),  # illegal
    ("position", {"position": "start:jacquet-be"}),
]


def _send(client: ZmqClient, rounds: int) -> dict[Any, tuple[int, int]]:
    """Send every ask `rounds` times without waiting (at most 8 rounds: 56 requests, within
    max_inflight_per_client); request id -> (round, ask)."""
    assert rounds <= 8
    return {client.send(cmd, **args): (r, i)
            for r in range(rounds) for i, (cmd, args) in enumerate(ASKS)}


def _collect(client: ZmqClient, ids: dict[Any, tuple[int, int]]) -> list[tuple[str, Any]]:
    """The replies to `ids`, keyed back to the asks, in the order asked."""
    got: dict[tuple[int, int], Any] = {}
    while len(got) < len(ids):
        reply = client.recv_final(timeout=60)
        got[ids[reply.id]] = (reply.ok, reply.result if reply.ok else reply.error)
    return [got[key] for key in sorted(got)]


def _answers(client: ZmqClient, rounds: int, *others: ZmqClient) -> list[tuple[str, Any]]:
    """`client`'s replies to every ask sent `rounds` times, while `others` send the same
    at the same time (several clients waiting: the replicas' work)."""
    theirs = [(other, _send(other, rounds)) for other in others]
    mine = _collect(client, _send(client, rounds))
    for other, ids in theirs:
        _collect(other, ids)
    return mine


def _wait_replicas(client: ZmqClient, count: int) -> dict[str, Any]:
    other = ZmqClient(client.sock.getsockopt_string(zmq.LAST_ENDPOINT))
    deadline = time.monotonic() + 120
    try:
        while True:
            _answers(client, 2, other)  # two clients' requests waiting start them
            stats = client.call("stats").raise_for_error()
            if len(stats["replica_pids"]) == count:
                return stats
            assert time.monotonic() < deadline, stats
            time.sleep(0.2)
    finally:
        other.close()


def test_replicas_start_under_load_and_answer_as_the_front_does(start_jacquetd: Start) -> None:
    daemon = start_jacquetd("--workers", "1", "--db", "off", "--replicas", "2")
    client = ZmqClient(daemon.zmq)
    try:
        one_by_one = []
        for cmd, args in ASKS:  # one at a time: the front answers, no replica starts
            reply = client.call(cmd, **args)
            one_by_one.append((reply.ok, reply.result if reply.ok else reply.error))
        assert client.call("stats").raise_for_error()["replica_pids"] == []
        assert [ok for ok, _ in one_by_one] == [True, True, True, False, True, False, True]
        stats = _wait_replicas(client, 2)
        before = stats["replica_answered"]
        other = ZmqClient(daemon.zmq)
        for _ in range(3):
            assert _answers(client, 8, other) == one_by_one * 8
        assert client.call("stats").raise_for_error()["replica_answered"] > before
        # `position` costs the front less than the hop: answered there, replicas up or not
        before = client.call("stats").raise_for_error()["replica_answered"]
        for _ in range(8):
            client.send("position", position="start:jacquet")
            other.send("position", position="start:jacquet")
        assert all(r.ok for r in [client.recv_final(timeout=60) for _ in range(8)])
        assert all(r.ok for r in [other.recv_final(timeout=60) for _ in range(8)])
        assert client.call("stats").raise_for_error()["replica_answered"] == before
        other.close()
        # the text encoding over TCP, written by the replicas while another client keeps
        # them busy; one connection's replies come in the order of its requests
        busy = ZmqClient(daemon.zmq)
        stop = threading.Event()

        def keep_busy() -> None:
            while not stop.is_set():
                _answers(busy, 4)

        thread = threading.Thread(target=keep_busy)
        thread.start()
        try:
            answered = client.call("stats").raise_for_error()["replica_answered"]
            for _ in range(20):  # until the replicas answered meanwhile (timing: a few rounds)
                tcp = TcpClient(daemon.tcp, timeout=60)
                for i in range(40):
                    tcp.send_line(f"{i} ping" if i % 4 == 3
                                  else f"{i} legal_moves start:backgammon 31")
                replies = [tcp.recv_final() for _ in range(40)]
                assert [r.id for r in replies] == list(range(40))
                assert all(r.ok for r in replies)
                assert all(r.result["count"] == 16 for r in replies if r.id % 4 != 3)
                tcp.close()
                if client.call("stats").raise_for_error()["replica_answered"] > answered:
                    break
            assert client.call("stats").raise_for_error()["replica_answered"] > answered
        finally:
            stop.set()
            thread.join(60)
            busy.close()
        # WebSocket clients alone: their messages go through the front's queue too, so
        # the front sees them wait and hands them to the replicas, each connection's
        # replies in the order of its requests
        url = f"ws://{daemon.endpoints['ws']}/ws"
        answered = client.call("stats").raise_for_error()["replica_answered"]
        for _ in range(20):  # until the front has seen them wait (timing: a few rounds)
            with connect(url) as one, connect(url) as two:
                for i in range(40):
                    cmd = "ping" if i % 4 == 3 else "legal_moves"
                    args = ({} if cmd == "ping"
                            else {"position": "start:backgammon", "dice": [3, 1]})
                    for ws in (one, two):
                        ws.send(json.dumps({"id": i, "cmd": cmd, **args}))
                for ws in (one, two):
                    replies = [json.loads(ws.recv(timeout=60)) for _ in range(40)]
                    assert [r["id"] for r in replies] == list(range(40))
                    assert all(r["ok"] for r in replies)
                    assert all(r["result"]["count"] == 16 for r in replies if r["id"] % 4 != 3)
            if client.call("stats").raise_for_error()["replica_answered"] > answered:
                break
        assert client.call("stats").raise_for_error()["replica_answered"] > answered
    finally:
        client.close()


def test_a_killed_replica_is_replaced_and_no_request_is_lost(start_jacquetd: Start) -> None:
    daemon = start_jacquetd("--workers", "1", "--db", "off", "--replicas", "2")
    client = ZmqClient(daemon.zmq)
    try:
        stats = _wait_replicas(client, 2)
        victim = stats["replica_pids"][0]
        others = [ZmqClient(daemon.zmq) for _ in range(3)]
        sent = [(one, _send(one, 8)) for one in [client, *others]]
        os.kill(victim, signal.SIGKILL)
        for one, ids in sent:  # every request answered, and as before
            replies = _collect(one, ids)
            assert [ok for ok, _ in replies] == [True, True, True, False, True, False, True] * 8
            if one is not client:
                one.close()
        stats = _wait_replicas(client, 2)
        assert stats["replica_restarts"] == 1 and victim not in stats["replica_pids"]
    finally:
        client.close()


def test_stdio_engines_start_no_replicas() -> None:
    from jacquetd.cli import build_parser, load_config

    args = build_parser().parse_args(["stdio"])
    assert load_config(args, stdio=True, environ={}).replica_count == 0
    args = build_parser().parse_args(["stdio", "--replicas", "3"])
    assert load_config(args, stdio=True, environ={}).replica_count == 3


@given(st.lists(st.tuples(st.integers(0, 2**40), st.none() | st.text(max_size=12),
                          st.binary(max_size=300)), max_size=6),
       st.lists(st.integers(1, 64), min_size=1, max_size=8))
def test_the_pipe_framing_gives_back_every_whole_message_in_any_split(
        messages: list[tuple[int, str | None, bytes]], cuts: list[int]) -> None:
    """The front reads a child's messages in whatever pieces the socket gives: each read
    yields the whole messages so far, in order, and keeps a partial one for the next."""
    stream = b"".join(process_pool.frame(m) for m in messages)
    buffer = bytearray()
    got: list[Any] = []
    at = 0
    for cut in itertools.cycle(cuts):
        if at >= len(stream):
            break
        buffer += stream[at:at + cut]
        at += cut
        got.extend(process_pool.unframe(buffer))
    assert got == messages and not buffer


def test_a_replica_holds_a_second_request_only_while_answers_are_dear() -> None:
    """Work sharing (replicas.py): a cheap request queued in a replica behind another
    waits longer than in the front, so a replica takes one request at a time until the
    replicas' recent answers took `DEEP_S` on average; then `DEPTH`."""
    pool = replicas.ReplicaPool(1)
    mine, theirs = socket.socketpair()
    mine.setblocking(False)
    replica = replicas._Replica(0, None, mine, ready=True)
    pool._procs.children.append(replica)

    def ask() -> bool:
        return pool.submit("legal_moves", {"position": "start:backgammon", "dice": [3, 1]},
                           1, "msgpack", lambda code, body: None)

    try:
        assert ask() and not ask()  # cheap answers (none yet): one at a time
        pool.answer_s = replicas.DEEP_S
        assert [ask() for _ in range(replicas.DEPTH)] == [True] * (replicas.DEPTH - 1) + [False]
        # the replica's answers bring the mean down again: its next request waits its turn
        held = list(replica.held)
        for token in held:
            theirs.sendall(process_pool.frame((token, None, b"x", 0.0)))
        deadline = time.monotonic() + 10
        while replica.held and time.monotonic() < deadline:
            pool._procs._readable(replica)
        assert pool.answered == len(held) and pool.answer_s < replicas.DEEP_S
        assert ask() and not ask()
    finally:
        mine.close()
        theirs.close()
