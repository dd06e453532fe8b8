"""What crosses a worker's link, as typed values.

The front process sends a :class:`Job` (or ``None``: exit); the worker, once its
imports are done, says ``process_pool.READY`` (once; until then a stopped search
cannot answer, so the pool counts a stop's grace from it), and answers each job with
any number of :class:`Progress` messages, then one :class:`Done` or :class:`Failed`.
A job's future in the pool ends with an :data:`Outcome` (``Done | Failed``), which is
also what the pool makes up itself when a worker dies or the daemon shuts down.
All of them are frozen dataclasses, pickled on the link; both ends are ours.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from jacquetd_protocol.errors import ProtocolError


@dataclass(frozen=True)
class Job:
    """Front to worker: run worker command `cmd` on `args` (checked in the front)."""

    job_id: int
    cmd: str
    args: dict[str, Any]
    deadline: float | None  # time.monotonic() after which the job should stop
    seed: int | None


@dataclass(frozen=True)
class Progress:
    """Worker to front: a partial result of a streaming job."""

    job_id: int
    payload: dict[str, Any]


@dataclass(frozen=True)
class Done:
    """Worker to front: the job's result map."""

    job_id: int
    result: dict[str, Any]

    @property
    def ok(self) -> bool:
        return True


@dataclass(frozen=True)
class Failed:
    """Worker (or pool) to front: the job failed with a protocol error."""

    job_id: int
    code: str
    message: str
    rule: str | None = None
    field: str | None = None
    extra: dict[str, Any] = dataclasses.field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return False

    @classmethod
    def of(cls, job_id: int, err: ProtocolError) -> Failed:
        """The failure carrying `err`'s code, message, rule, field and extra fields."""
        return cls(job_id, str(err.code), err.message, err.rule, err.field, dict(err.extra))

    def error(self) -> ProtocolError:
        """The protocol error this failure stands for."""
        return ProtocolError(self.code, self.message, rule=self.rule, field=self.field,
                             **self.extra)


Outcome = Done | Failed
"""How a job ended."""
