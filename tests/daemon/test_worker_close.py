"""Closing the worker pool: workers still starting are killed at once (they hold no job
and would read the polite stop only once their imports are done, up to a second later,
which `jacquetd stdio` would wait out at every `quit`); ready workers are asked to exit
and exit cleanly."""

from __future__ import annotations

import asyncio
import signal
from typing import Any

from jacquetd.daemon.workers import WorkerPool


def _processes(pool: WorkerPool) -> list[Any]:
    return [w.process for w in pool._workers if w is not None]


def test_workers_still_starting_are_killed_at_close() -> None:
    async def scenario() -> list[int | None]:
        pool = WorkerPool(2, 16)
        pool.start()
        processes = _processes(pool)
        assert not any(w.ready for w in pool._workers if w is not None)
        await pool.close()
        return [p.exitcode for p in processes]

    assert asyncio.run(scenario()) == [-signal.SIGKILL, -signal.SIGKILL]


def test_ready_workers_exit_cleanly_at_close() -> None:
    async def scenario() -> list[int | None]:
        pool = WorkerPool(2, 16)
        pool.start()
        for _ in range(600):  # up to a minute on a loaded machine
            if all(w.ready for w in pool._workers if w is not None):
                break
            await asyncio.sleep(0.1)
        processes = _processes(pool)
        await pool.close()
        return [p.exitcode for p in processes]

    assert asyncio.run(scenario()) == [0, 0]
