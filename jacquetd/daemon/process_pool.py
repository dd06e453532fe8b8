"""The front's child processes, for two scheduling policies: the workers (workers.py)
and the front replicas (replicas.py) differ only in what they hand to which child and
what becomes of a dead child's work. The rest is here, once:

* start: a process of the forkserver context (else spawn), never forked from the front
  with its loop, sockets and threads; it ignores SIGINT/SIGTERM/SIGHUP (the front
  drains first), runs numerical libraries on one thread, exits when the front is gone,
  and says READY once it can work.
* link: a Unix socket pair, each message its 4-byte length then its pickle (both ends
  are ours). The front writes a message with one system call, without blocking, and
  reads all that has arrived with one: the replicas' path is latency-critical.
* health: a death is seen by the process sentinel or the link's end, whichever comes
  first (what the child wrote before is read first); the policy's `on_death` settles
  its work. `restart` starts the slot again, after a doubling delay (up to 5 s) while
  children die within FAST_DEATH_S of their start.
* drain: ready children are asked to exit (a None), those still starting are killed
  (they hold nothing), and whatever runs after the timeout is killed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import pickle
import signal
import socket
import struct
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

log = logging.getLogger(__name__)

LENGTH = struct.Struct("!I")  # before every message on a link: its length
READ_BYTES = 1 << 18  # one read takes up to this much of a child's messages
READY = "ready"  # a child's first message, once it can work
FRONT_CHECK_S = 1.0  # how often a child looks whether the front still exists
FAST_DEATH_S = 1.0  # a child dead this soon after its start delays the next one
# Numerical libraries must not start a thread per core in every child.
THREAD_ENV = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def frame(message: Any) -> bytes:
    """One message on a link: the length of its pickle (4 bytes), then the pickle."""
    data = pickle.dumps(message, pickle.HIGHEST_PROTOCOL)
    return LENGTH.pack(len(data)) + data


def unframe(buffer: bytearray) -> list[Any]:
    """The whole messages at the start of `buffer`, removed from it (a partial one
    stays for the next read)."""
    messages = []
    start = 0
    size = len(buffer)
    while size - start >= LENGTH.size:
        (length,) = LENGTH.unpack_from(buffer, start)
        end = start + LENGTH.size + length
        if end > size:
            break
        # a slice is a copy: no view of `buffer` is left to block the resize below
        messages.append(pickle.loads(buffer[start + LENGTH.size:end]))
        start = end
    del buffer[:start]
    return messages


def mp_context() -> Any:
    """The forkserver context (else spawn); typed Any: typeshed's BaseContext has no
    `Process`, though every concrete context has."""
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


# ---- the child's side ------------------------------------------------------------------


class Link:
    """A child's end of its link: blocking writes, and reads that take every message
    that has arrived at once."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self._buffer = bytearray()
        self._pending: deque[Any] = deque()

    def send(self, message: Any) -> None:
        self.sock.sendall(frame(message))

    def recv(self) -> Any:
        """The next message; EOFError once the front's end is closed."""
        while not self._pending:
            data = self.sock.recv(READ_BYTES)
            if not data:
                raise EOFError
            self._buffer += data
            self._pending.extend(unframe(self._buffer))
        return self._pending.popleft()


def _exit_with_front(front_pid: int) -> None:
    """In a child: exit as soon as the front process no longer exists."""
    while True:
        time.sleep(FRONT_CHECK_S)
        try:
            os.kill(front_pid, 0)
        except ProcessLookupError:
            os._exit(4)
        except PermissionError:
            pass


def _child_main(entry: Callable[..., None], sock: socket.socket, front_pid: int,
                args: Sequence[Any]) -> None:
    """Every child's start: the setup common to all (see the module docstring), then
    `entry(link, *args)`."""
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)
    for name in THREAD_ENV:
        os.environ[name] = "1"
    threading.Thread(target=_exit_with_front, args=(front_pid,), daemon=True,
                     name="front-watch").start()
    # a paused child (SIGSTOP) runs no thread: it dies with its parent (the forkserver,
    # which ends with the front) by the kernel's hand
    with contextlib.suppress(Exception):
        import ctypes
        import ctypes.util

        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    entry(Link(sock), *args)


# ---- the front's side ------------------------------------------------------------------


@dataclass(eq=False)
class Child:
    """One child process as the front sees it; a policy subclasses it for its own state."""

    index: int  # its slot in the pool
    process: Any
    sock: socket.socket
    started: float = field(default_factory=time.monotonic)
    ready: bool = False  # it said READY
    dead: bool = False
    inbox: bytearray = field(default_factory=bytearray)  # read, not yet a whole message
    outbox: bytearray = field(default_factory=bytearray)  # written, not yet taken


C = TypeVar("C", bound=Child)


class ProcessPool(Generic[C]):
    """Child processes in numbered slots (`children`), each running `entry`, made into
    `make` records; every message from a child goes to `on_message` (READY included,
    the child marked ready first), and a child's death, outside `drain`, to
    `on_death`."""

    def __init__(self, name: str, entry: Callable[..., None], make: Callable[..., C],
                 on_message: Callable[[C, Any], None],
                 on_death: Callable[[C], None]) -> None:
        self.name = name
        self.entry = entry
        self.make = make
        self.on_message = on_message
        self.on_death = on_death
        self.ctx = mp_context()
        self.children: list[C | None] = []
        self.loop: asyncio.AbstractEventLoop | None = None
        self.closing = False
        self._fast_deaths = 0

    def start(self) -> None:
        self.loop = asyncio.get_running_loop()
        for name in THREAD_ENV:
            os.environ[name] = "1"

    def spawn(self, index: int, args: Sequence[Any] = (), **fields: Any) -> C:
        """Start a child in slot `index` (one past the last slot: a new slot) running
        `entry(link, *args)`; `fields` go to its record."""
        loop = self.loop
        assert loop is not None, "the pool is not started"
        mine, theirs = socket.socketpair()
        process = self.ctx.Process(target=_child_main,
                                   args=(self.entry, theirs, os.getpid(), tuple(args)),
                                   name=f"jacquetd-{self.name}-{index}", daemon=True)
        process.start()
        theirs.close()  # the child's end lives only in the child: its death ends the link
        mine.setblocking(False)
        child = self.make(index, process, mine, **fields)
        if index == len(self.children):
            self.children.append(child)
        else:
            self.children[index] = child
        loop.add_reader(mine.fileno(), self._readable, child)
        loop.add_reader(process.sentinel, self._on_sentinel, child)
        log.debug("event=%s_started index=%d pid=%s", self.name, index, process.pid)
        return child

    def send(self, child: C, message: Any) -> bool:
        """Write `message` to `child` without blocking; False when its link is broken
        (its death is then handled at once, on the next turn of the loop)."""
        if child.dead:
            return False
        data = frame(message)
        if not child.outbox:
            try:
                sent = child.sock.send(data)
            except BlockingIOError:
                sent = 0
            except OSError:
                if self.loop is not None:
                    self.loop.call_soon(self._died, child)
                return False
            if sent == len(data):
                return True
            data = data[sent:]
            assert self.loop is not None
            self.loop.add_writer(child.sock.fileno(), self._writable, child)
        child.outbox += data
        return True

    def _writable(self, child: C) -> None:
        try:
            sent = child.sock.send(child.outbox)
        except BlockingIOError:
            return
        except OSError:
            self._died(child)
            return
        del child.outbox[:sent]
        if not child.outbox and self.loop is not None:
            self.loop.remove_writer(child.sock.fileno())

    def _readable(self, child: C) -> bool:
        """Read and hand on what `child` wrote; False when nothing more was there."""
        try:
            data = child.sock.recv(READ_BYTES)
        except BlockingIOError:
            return False
        except OSError:
            data = b""
        if not data:
            self._died(child)
            return False
        child.inbox += data
        for message in unframe(child.inbox):
            if message == READY:
                child.ready = True
            self.on_message(child, message)
            if child.dead:
                return False
        return True

    def _on_sentinel(self, child: C) -> None:
        while not child.dead and self._readable(child):
            pass  # its last words first (a job's reply written just before it exited)
        self._died(child)

    def _died(self, child: C) -> None:
        if child.dead:
            return
        self._detach(child)
        with contextlib.suppress(Exception):
            child.process.join(0.1)
        if not self.closing:
            self.on_death(child)

    def _detach(self, child: C) -> None:
        """No more events from `child`, which counts as dead from now on."""
        child.dead = True
        loop = self.loop
        if loop is not None:
            with contextlib.suppress(OSError, ValueError):
                loop.remove_reader(child.sock.fileno())
            with contextlib.suppress(OSError, ValueError):
                loop.remove_writer(child.sock.fileno())
            with contextlib.suppress(OSError, ValueError):
                loop.remove_reader(child.process.sentinel)
        child.sock.close()

    def kill(self, child: C) -> None:
        """SIGKILL: its death is then seen as any other."""
        with contextlib.suppress(OSError):
            child.process.kill()

    def restart(self, child: C, then: Callable[[int], Any]) -> None:
        """Once `child` is dead: `then(index)` (start its slot again) at once, or after a
        delay that doubles while children die within FAST_DEATH_S of their start (a
        child that fails as it starts must not be started in a tight loop)."""
        lived = time.monotonic() - child.started
        self._fast_deaths = self._fast_deaths + 1 if lived < FAST_DEATH_S else 0
        delay = min(5.0, 0.05 * (2 ** min(self._fast_deaths, 7))) if self._fast_deaths else 0.0
        assert self.loop is not None
        self.loop.call_later(delay, self._restart, child, then)

    def _restart(self, child: C, then: Callable[[int], Any]) -> None:
        slots = self.children
        if not self.closing and child.index < len(slots) and slots[child.index] is child:
            then(child.index)

    def retire(self, child: C) -> None:
        """Let a ready, idle child go: asked to exit, its slot emptied."""
        self._ask_exit(child)
        self.children[child.index] = None

    def _ask_exit(self, child: C) -> None:
        """Send `child` what it has not taken yet and a None (exit), and detach it."""
        with contextlib.suppress(OSError):
            child.sock.send(bytes(child.outbox) + frame(None))
        self._detach(child)

    async def drain(self, timeout: float) -> None:
        """Stop every child: those still starting at once, the others asked to exit and
        killed after `timeout`; no event of theirs reaches the policy any more."""
        self.closing = True
        children = [c for c in self.children if c is not None and not c.dead]
        for child in children:
            if not child.ready:
                self.kill(child)  # it holds nothing, and would read the None only once up
                self._detach(child)
            else:
                self._ask_exit(child)
        end = time.monotonic() + timeout
        for child in children:
            while child.process.is_alive() and time.monotonic() < end:
                await asyncio.sleep(0.01)
            if child.process.is_alive():
                self.kill(child)
            child.process.join(1.0)
        self.children = []
