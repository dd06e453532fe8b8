"""The worker pool's queue of waiting jobs (jacquetd/daemon/workers.py `_FairQueue`):
clients served as flows, new ones in arrival order, backlogs round robin."""

from __future__ import annotations

from typing import Any, cast

from jacquetd.daemon.workers import _FairQueue, _Job


def _job(job_id: int, owner: str, heavy: bool = False) -> _Job:
    no_future = cast(Any, None)  # the queue never touches a job's future
    return _Job(job_id, "best_move", {}, None, None, no_future, None, heavy=heavy, owner=owner)


def test_a_client_that_keeps_coming_back_new_cannot_pass_one_that_came_before() -> None:
    """Eight gnubg connections ask one decision at a time: each is new again as soon as
    its job is taken. A probe's job queued behind them is served within one round,
    not after every connection has come back (it once waited 600 ms under a flood)."""
    queue = _FairQueue()
    ids = iter(range(1, 10_000))
    for c in range(8):
        queue.append(_job(next(ids), f"gnubg{c}"))
    queue.append(_job(next(ids), "probe"))
    served: list[str] = []
    for _ in range(9):
        job = queue.pop_next(True)
        assert job is not None
        served.append(job.owner)
        if job.owner != "probe":
            queue.append(_job(next(ids), job.owner))  # the next line of that connection
    assert served.index("probe") == 8 and served[:8] == [f"gnubg{c}" for c in range(8)]


def test_backlogs_are_served_round_robin_after_new_clients_and_heavy_work_waits() -> None:
    queue = _FairQueue()
    for i in range(3):
        queue.append(_job(i, "flood"))
    queue.append(_job(10, "other"))
    queue.append(_job(20, "big", heavy=True))
    order = []
    job = queue.pop_next(False)
    while job is not None:
        order.append((job.owner, job.job_id))
        job = queue.pop_next(False)
    assert order == [("flood", 0), ("other", 10), ("flood", 1), ("flood", 2)]
    assert len(queue) == 1 and queue.pop_next(True) is not None and not queue
    gone = _job(30, "left")
    queue.append(gone)
    queue.append(_job(31, "stays"))
    queue.remove(gone)
    popped = queue.pop_next(True)
    assert popped is not None and popped.owner == "stays" and len(queue) == 0


def test_the_clients_waiting_for_heavy_work_are_named_in_serving_order() -> None:
    """The pool pauses a preemptible job for the first of these that holds fewer heavy
    workers (workers.py `_share`)."""
    queue = _FairQueue()
    queue.append(_job(1, "cheap-only"))
    queue.append(_job(2, "rollout-a", heavy=True))
    queue.append(_job(3, "bot", heavy=True))
    assert queue.heavy_owners() == ["rollout-a", "bot"]
    popped = queue.pop_next(True)
    assert popped is not None and popped.owner == "cheap-only"
    popped = queue.pop_next(True)
    assert popped is not None and popped.owner == "rollout-a"
    assert queue.heavy_owners() == ["bot"]
