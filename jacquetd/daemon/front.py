"""The front process's work queue: fair service of every client under floods.

Endpoints read messages as they arrive and hand each to `FrontQueue.put` with the
function that will decode and answer it; nothing heavier happens on arrival. The
queue keeps one first-in first-out line per client and serves them from the event
loop in short slices (`SLICE_S` of wall time), one message per client per round, and
then yields, so that reading, worker replies, timers and the other endpoints get a
turn between slices whatever keeps arriving.

Clients that just became active (their line was empty) are served before those with a
backlog, as a flow queue's new flows are (fq_codel): a client that sends one request
and waits for its answer is served within about one slice, however many requests the
floods keep queued. One client's requests keep their order; different clients' do not
(SPEC 2.5).

Work the daemon makes for a client by itself goes through the same lines: a
`match_watch` stream's next events are read and sent in a slice (`in_turn`), so that
hundreds of streams woken by one move are sent over several turns of the loop, each
in its client's turn, not in one long turn that every other client waits behind.
Such work joins the clients with a backlog, not the new ones: a stream's events are
coalesced anyway, and a client that sends one request must not wait behind them.

Bounds: a ZeroMQ client cannot be told to stop sending, so past
`max_inflight_per_client` requests queued or in flight, or once the whole queue holds
`MAX_QUEUED` messages or `MAX_QUEUED_BYTES`, its request is answered `busy` at once
(see `ZmqEndpoint`). A TCP or WebSocket connection is paused instead (`streams`, `ws`):
it stops being read while its line is long, and is read again once the line is short.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Callable
from typing import Any, TypeVar

log = logging.getLogger(__name__)

SLICE_S = 0.004  # queued work done per turn of the event loop, at most (wall time)
MAX_QUEUED = 8192  # messages queued in the front, all clients together
MAX_QUEUED_BYTES = 64 << 20  # and their bytes

Work = Callable[[Any, Any], None]  # (peer, item): decode and answer one message
T = TypeVar("T")
OWN = object()  # the item of work the daemon queued itself (`in_turn`): not a message


class FrontQueue:
    """Per-client lines of queued messages, served in slices, new clients first."""

    def __init__(self, slice_s: float = SLICE_S) -> None:
        self.slice_s = slice_s
        self._lines: dict[str, deque[tuple[Work, Any, Any, int]]] = {}
        self._new: deque[str] = deque()  # clients whose line was empty: served first
        self._old: deque[str] = deque()  # clients with a backlog, in turn
        self._turns: set[str] = set()  # the keys in `_new` or `_old` (each once)
        self._held: set[str] = set()  # clients not served until released (`hold`)
        self._scheduled = False
        self.size = 0  # messages queued
        self.bytes = 0  # their size

    def __len__(self) -> int:
        return self.size

    def queued(self, key: str) -> int:
        """Messages of this client waiting in the front."""
        line = self._lines.get(key)
        return len(line) if line is not None else 0

    def waiting(self, key: str) -> bool:
        """Whether a message of this client is queued or held: a new one must not be
        answered before it."""
        return key in self._held or key in self._lines

    def hold(self, key: str) -> None:
        """Serve nothing more of client `key` until `release`: a request of it is being
        answered elsewhere (a front replica) and its replies keep their order."""
        self._held.add(key)

    def release(self, key: str) -> None:
        """Serve client `key` again (its queued messages get their turn)."""
        self._held.discard(key)
        if key in self._lines and key not in self._turns:
            self._turns.add(key)
            self._new.append(key)
            if not self._scheduled:
                self._scheduled = True
                asyncio.get_running_loop().call_soon(self._run)

    def full(self, extra_bytes: int = 0) -> bool:
        """Whether the whole queue is at its bound (a new message would pass it)."""
        return self.size >= MAX_QUEUED or self.bytes + extra_bytes > MAX_QUEUED_BYTES

    def put(self, key: str, work: Work, peer: Any, item: Any, nbytes: int = 0) -> int:
        """Queue one message of client `key`; `work(peer, item)` answers it later.
        Returns how many messages of that client are now queued."""
        line = self._lines.get(key)
        if line is None:
            line = self._lines[key] = deque()
            if key not in self._turns:
                self._turns.add(key)
                # the daemon's own work (`in_turn`) waits its turn with the backlogs: a
                # client's new request is not served after hundreds of watch streams
                (self._old if item is OWN else self._new).append(key)
        line.append((work, peer, item, nbytes))
        self.size += 1
        self.bytes += nbytes
        if not self._scheduled:
            self._scheduled = True
            asyncio.get_running_loop().call_soon(self._run)
        return len(line)

    def in_turn(self, key: str, fn: Callable[[], T]) -> asyncio.Future[T]:
        """Run `fn` in client `key`'s turn (after what it has queued, within a slice);
        the future gets its result or exception. If the client's line is forgotten (it
        left) the future is never done: the awaiting task is cancelled with the client's
        other work."""
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()

        def work(_peer: Any, _item: Any) -> None:
            if future.done():  # its task was cancelled meanwhile
                return
            try:
                future.set_result(fn())
            except Exception as exc:
                future.set_exception(exc)

        self.put(key, work, None, OWN)
        return future

    def forget(self, key: str) -> int:
        """Drop what client `key` still has queued (it left, or was dropped); returns how
        many of its messages were dropped. Its place in the turns goes when next reached."""
        line = self._lines.pop(key, None)
        if not line:
            return 0
        self.size -= len(line)
        self.bytes -= sum(item[3] for item in line)
        return sum(1 for item in line if item[2] is not OWN)

    def _next_key(self) -> str | None:
        while self._new or self._old:
            key = self._new.popleft() if self._new else self._old.popleft()
            self._turns.discard(key)
            if key in self._lines and key not in self._held:  # a held one: on `release`
                return key
        return None

    def _run(self) -> None:
        """One slice: one message per client per round, new clients first, until the
        slice's time is used or nothing is left; then the loop gets its turn."""
        deadline = time.perf_counter() + self.slice_s
        while True:
            key = self._next_key()
            if key is None:
                self._scheduled = False
                return
            line = self._lines[key]
            work, peer, item, nbytes = line.popleft()
            self.size -= 1
            self.bytes -= nbytes
            try:
                work(peer, item)
            except Exception:  # a failure of one message must not stop the others
                log.exception("event=front_work_failed peer=%s", key)
            if line:
                if key not in self._turns:
                    self._turns.add(key)
                    self._old.append(key)
            elif self._lines.get(key) is line:
                del self._lines[key]
            if time.perf_counter() >= deadline:
                break
        if self.size:
            asyncio.get_running_loop().call_soon(self._run)
        else:
            self._scheduled = False
