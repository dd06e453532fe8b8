"""Fair shares of the heavy workers (jacquetd/daemon/workers.py): one client's endless
rollout at plies 2 does not keep another client's small rollout waiting; its chunk is
paused while the other's runs, and goes on afterwards."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from jacquetd_protocol.messages import Partial, Reply

from tests.conftest import DaemonProcess
from tests.daemon.wire import ZmqClient


def final_of(client: ZmqClient, rid: int, timeout: float) -> Reply:
    deadline = time.monotonic() + timeout
    while True:
        msg = client.recv(max(0.01, deadline - time.monotonic()))
        if isinstance(msg, Reply) and msg.id == rid:
            return msg


def test_a_big_rollout_does_not_hold_the_heavy_worker_from_a_small_one(
        start_jacquetd: Callable[..., DaemonProcess]) -> None:
    # two workers: one heavy slot, one kept for cheap requests
    daemon = start_jacquetd("--workers", "2")
    big, small = ZmqClient(daemon.zmq), ZmqClient(daemon.zmq)
    try:
        # full games at 2 plies: one chunk of 36 trials takes minutes
        big_id = big.send("rollout", position="start:backgammon", trials=10_000_000, plies=2)
        time.sleep(3.0)  # its first chunk holds the heavy slot
        small_id = small.send("rollout", position="start:jacquet", trials=36, truncate=4,
                              timeout_ms=60_000)
        reply = final_of(small, small_id, 90)
        assert reply.ok, reply.error
        assert reply.result["done"] and reply.result["trials_done"] == 36
        # the big one was paused, not stopped: it goes on, and a cancel ends it with `ok`
        assert big.call("ping").ok
        big.send("cancel", target=big_id)
        final = final_of(big, big_id, 30)
        assert final.ok and final.result["stopped"] is True, final
        assert not isinstance(final, Partial)
    finally:
        big.close()
        small.close()


def test_bot_seats_of_a_shallow_level_play_on_while_a_rollout_holds_the_heavy_slot(
        start_jacquetd: Callable[..., DaemonProcess], tmp_path: Path) -> None:
    # a `neural` seat's decision is a 0-ply evaluation whatever time the seat is allowed
    # (5 s by default): it runs on the worker kept for cheap work, not in turns with the
    # rollout's chunks (a few decisions in this time, before)
    daemon = start_jacquetd("--workers", "2", "--db", str(tmp_path / "m.db"))
    big, watcher = ZmqClient(daemon.zmq), ZmqClient(daemon.zmq)
    try:
        big_id = big.send("rollout", position="start:backgammon", trials=10_000_000, plies=2)
        time.sleep(3.0)  # its first chunk holds the heavy slot
        made = watcher.call("match_new", variant="backgammon", length=99, seat0="neural",
                            seat1="neural", seed=5)
        assert made.ok, made.error
        time.sleep(10.0)
        events = watcher.call("match_watch", match_id=made.result["match_id"], follow=False,
                              limit=1000)
        assert events.ok, events.error
        moves = sum(1 for e in events.result["events"] if e["type"] == "move")
        assert moves >= 40, f"{moves} bot moves in 10 s beside the rollout"
        big.send("cancel", target=big_id)
        assert final_of(big, big_id, 30).ok
    finally:
        big.close()
        watcher.close()
