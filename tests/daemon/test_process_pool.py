"""The one process pool (jacquetd/daemon/process_pool.py) under both policies, on real
child processes: a child killed with SIGKILL is seen dead and started again, its work
failed (workers) or resent (replicas), and the next request is answered; closing
drains every child."""

from __future__ import annotations

import asyncio
import os
import signal
from typing import Any

from jacquetd.daemon.jobs import Done, Failed
from jacquetd.daemon.replicas import ReplicaPool
from jacquetd.daemon.workers import WorkerPool

BOARD = {"position": "start:backgammon", "dice": [3, 1]}


async def _until(check: Any, seconds: float = 120.0) -> None:
    for _ in range(int(seconds / 0.05)):
        if check():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("timed out")


def test_a_killed_worker_fails_its_job_and_is_started_again() -> None:
    async def scenario() -> None:
        pool = WorkerPool(1, 16)
        pool.start()
        await _until(lambda: all(w is not None and w.ready for w in pool._workers))
        processes = [w.process for w in pool._workers if w is not None]
        victim = pool.pids()[0]
        os.kill(victim, signal.SIGSTOP)  # the job is in its hands when it is killed
        _, future = pool.submit("best_move", {**BOARD, "level": "random"}, deadline=None)
        await asyncio.sleep(0.2)
        os.kill(victim, signal.SIGKILL)
        outcome = await asyncio.wait_for(future, 60)
        assert isinstance(outcome, Failed) and outcome.code == "internal", outcome
        assert outcome.message == "the worker running this request died"
        await _until(lambda: pool.pids() != [victim] and len(pool.pids()) == 1)
        # the new worker answers (the arguments are the front's to prepare: any reply of
        # the worker's own will do)
        _, future = pool.submit("best_move", {**BOARD, "level": "random"}, deadline=None)
        outcome = await asyncio.wait_for(future, 120)
        assert isinstance(outcome, Done) or outcome.code != "internal", outcome
        processes += [w.process for w in pool._workers if w is not None]
        await pool.close()
        assert processes[0].exitcode == -signal.SIGKILL
        assert processes[-1].exitcode == 0  # drained: asked to exit, and it did

    asyncio.run(scenario())


def test_a_killed_replica_is_started_again_and_its_asks_resent() -> None:
    async def scenario() -> None:
        pool = ReplicaPool(2)
        pool.start()
        await _until(lambda: len(pool.pids()) == 2)
        answers: list[str | None] = []
        victim = pool.pids()[0]
        os.kill(victim, signal.SIGSTOP)  # it holds the ask until it is killed
        assert pool.submit("legal_moves", BOARD, 1, "msgpack",
                           lambda code, body: answers.append(code))
        os.kill(victim, signal.SIGKILL)
        await _until(lambda: answers == [None])  # resent to the other replica
        await _until(lambda: len(pool.pids()) == 2 and victim not in pool.pids())
        assert pool.restarts == 1
        processes = [r.process for r in pool._procs.children if r is not None]
        assert all(pool.submit("legal_moves", BOARD, 2, "msgpack",
                               lambda code, body: answers.append(code)) for _ in range(2))
        await _until(lambda: len(answers) == 3)
        await pool.close()
        assert [p.exitcode for p in processes] == [0, 0]

    asyncio.run(scenario())
