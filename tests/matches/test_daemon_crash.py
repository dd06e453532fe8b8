"""The daemon crash test: a client plays several hosted matches (bot seats included)
through the real `jacquetd serve` process, which is killed with SIGKILL at seeded
points: right after a request is sent, at a seeded delay of 0-6 ms, so the kill lands
before, during or after the request's transaction. The daemon is started again on
the same database, the client reconnects with the same ZeroMQ identity and sends the
interrupted request again (same id): every match resumes at its last accepted action,
and the final records and event streams equal those of an uninterrupted run.

    JACQUETD_CRASH_KILLS=40 python -m pytest -m slow tests/matches/test_daemon_crash.py
"""

from __future__ import annotations

import os
import random
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from jacquetd_protocol.commands import MATCH_ACTIONS
from jacquetd_protocol.errors import ErrorCode
from jacquetd_protocol.messages import Reply

from tests.conftest import DaemonProcess
from tests.daemon.wire import ZmqClient

from .crashdrive import spec
from .scripted import decide
from .test_crash import _outcome  # records and event streams, volatile headers dropped

SEED = 20240612
MATCHES = 5
KILLS = int(os.environ.get("JACQUETD_CRASH_KILLS", "6"))
IDENTITY = b"crash-test-client"


class Driver:
    """Plays every match to its end; restarts the daemon after each planned kill."""

    def __init__(self, start: Callable[[], DaemonProcess], kills: list[int], rng: random.Random
                 ) -> None:
        self.start = start
        self.kills = sorted(kills)
        self.rng = rng
        self.daemon = start()
        self.client = ZmqClient(self.daemon.zmq, identity=IDENTITY)
        hello = self.client.call("hello")
        assert hello.ok and hello.result is not None
        self.session = hello.result["session"]  # retries across restarts present it
        self.sent = 0
        self.killed = 0
        self.replayed = 0

    def restart(self) -> None:
        self.client.close()
        self.daemon.proc.wait(30)
        self.daemon = self.start()
        self.client = ZmqClient(self.daemon.zmq, identity=IDENTITY)

    def call(self, rid: str, cmd: str, **args: Any) -> Reply:
        """Send until answered; a kill planned at this request comes just after it."""
        while True:
            self.client.send(cmd, id=rid, **args, **(
                {"session": self.session} if cmd in MATCH_ACTIONS else {}))
            self.sent += 1
            if self.kills and self.sent >= self.kills[0]:
                self.kills.pop(0)
                time.sleep(self.rng.uniform(0.0, 0.006))
                self.daemon.proc.send_signal(signal.SIGKILL)
                self.killed += 1
                self.restart()
                continue  # the same request again, same id
            reply = self.client.recv_final(60.0)
            assert reply.id == rid
            if reply.ok and reply.result and reply.result.get("replayed"):
                self.replayed += 1
            return reply

    def play(self) -> dict[int, str]:
        ids: dict[int, str] = {}
        tokens: dict[int, list[Any]] = {}
        for i in range(MATCHES):
            reply = self.call(f"new:{i}", "match_new", **spec(i, SEED))
            assert reply.ok and reply.result is not None, reply
            ids[i], tokens[i] = reply.result["match_id"], reply.result["tokens"]
        open_ = set(ids)
        idle_rounds = 0
        while open_:
            progressed = False
            for i in sorted(open_):
                reply = self.call(f"state:{i}:{self.sent}", "match_state", match_id=ids[i])
                state = reply.result
                assert reply.ok and state is not None, reply
                if state["status"] != "playing":
                    open_.discard(i)
                    continue
                side = state["to_act"]
                if side is None and state["phase"] == "opening":
                    side = 0
                if side is None or tokens[i][side] is None:
                    continue  # a bot seat acts by itself
                cmd, extra = decide(state, side, SEED)
                answer = self.call(f"{i}:{state['actions']}", cmd, match_id=ids[i],
                                   token=tokens[i][side], **extra)
                if not answer.ok:  # a bot seat acted in between
                    assert answer.error is not None
                    assert answer.error["code"] in (ErrorCode.OUT_OF_TURN, ErrorCode.BAD_STATE)
                progressed = True
            idle_rounds = 0 if progressed else idle_rounds + 1
            if not progressed:
                assert idle_rounds < 3000, "no progress: a bot seat stalled"
                time.sleep(0.01)
        return ids

    def close(self) -> None:
        self.client.close()
        self.daemon.stop()


@pytest.mark.slow
def test_daemon_killed_at_random_points_resumes_every_match(
        start_jacquetd: Callable[..., DaemonProcess], tmp_path: Path) -> None:
    def starter(db: Path) -> Callable[[], DaemonProcess]:
        return lambda: start_jacquetd("--workers", "1", "--gnubg", "off", "--tcp", "off",
                                      "--db", str(db))

    clean = Driver(starter(tmp_path / "clean.sqlite3"), [], random.Random(SEED))
    clean_ids = clean.play()
    total = clean.sent
    clean.close()
    expected = _outcome(tmp_path / "clean.sqlite3", clean_ids)

    rng = random.Random(SEED)
    kills = [rng.randint(1, total) for _ in range(KILLS)]
    crash = Driver(starter(tmp_path / "crash.sqlite3"), kills, rng)
    crash_ids = crash.play()
    crash.close()
    assert crash.killed == KILLS
    print(f"kills={crash.killed} retries answered from the store={crash.replayed}")
    got = _outcome(tmp_path / "crash.sqlite3", crash_ids)
    for i in range(MATCHES):
        assert got[i][0] == expected[i][0], f"match {i}: records differ"
        assert got[i][1] == expected[i][1], f"match {i}: event streams differ"
