"""`cancel` of a search answers with what it has (protocol 1.2), even before it started.

Against a real daemon with one worker: the conformance vectors (65-stop-and-warnings)
cover searches stopped while they run; here an analysis still waiting for the worker is
cancelled, and starts stopped when the worker frees: its 0-ply ranking is the answer.
"""

from __future__ import annotations

from collections.abc import Callable

from jacquetd_protocol.messages import Reply

from tests.conftest import DaemonProcess
from tests.daemon.wire import ZmqClient


def test_a_waiting_analysis_that_is_cancelled_answers_its_first_depth(
        start_jacquetd: Callable[..., DaemonProcess]) -> None:
    daemon = start_jacquetd("--workers", "1", "--test-levels")
    client = ZmqClient(daemon.zmq)
    try:
        busy = client.send("best_move", position="start", dice=[6, 5], level="test-sleep",
                           time_ms=1500)  # holds the only worker for 1.5 s
        waiting = client.send("analyze", position="start:backgammon", dice=[3, 1], plies=4,
                              max_plays=2)
        cancel = client.send("cancel", target=waiting)
        finals: dict[object, Reply] = {}
        partials = 0
        while len(finals) < 3:
            msg = client.recv(timeout=60)
            if isinstance(msg, Reply):
                finals[msg.id] = msg
            elif msg.id == waiting:
                partials += 1
        assert finals[cancel].ok and finals[cancel].result == {"target": waiting}
        assert finals[busy].ok and "stopped" not in (finals[busy].result or {})
        stopped = finals[waiting]
        assert stopped.ok, stopped.error
        result = stopped.result or {}
        assert result["stopped"] is True and result["plies"] == 0
        assert 1 <= len(result["plays"]) <= 2 and partials <= 1
        # the worker is free again at once: a 4-ply search was never started
        assert client.call("best_move", position="start", dice=[6, 5],
                           level="random").ok
    finally:
        client.close()


def test_a_search_cancelled_while_its_worker_starts_still_answers(
        start_jacquetd: Callable[..., DaemonProcess]) -> None:
    # the worker takes longer to start than a stop's grace (workers.STOP_GRACE_S, 5 s): the
    # grace counts from when it is ready, so it is not replaced for being slow to start,
    # and the stopped search answers with its first depth, not `cancelled`
    daemon = start_jacquetd("--workers", "1", "--test-levels", "--test-worker-start-s=7")
    client = ZmqClient(daemon.zmq)
    try:
        search = client.send("best_move", position="start:backgammon", dice=[3, 1],
                             level="neural", plies=4, time_ms=600000)
        cancel = client.send("cancel", target=search)
        finals: dict[object, Reply] = {}
        while len(finals) < 2:
            msg = client.recv(timeout=120)
            if isinstance(msg, Reply):
                finals[msg.id] = msg
        assert finals[cancel].ok
        stopped = finals[search]
        assert stopped.ok, stopped.error
        assert (stopped.result or {})["stopped"] is True
        assert (stopped.result or {})["play"]["move"]
        stats = client.call("stats")
        assert stats.ok and stats.result["worker_restarts"] == 0, stats.result
    finally:
        client.close()
