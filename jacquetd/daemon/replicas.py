"""Front replicas: processes that answer the stateless front commands on other cores.

`legal_moves` and `apply_move` need nothing of the front's state: the answer is a
function of the request's arguments. With several clients at once the front process
alone would compute them one after another on one core, so the front hands them to a
few replica processes instead and only moves bytes: it sends the checked arguments, a
replica validates the position (the request's one validation), computes the answer and
writes the encoded reply, and the front passes those bytes to the client unchanged.
The front still admits, counts, cancels and times every request (`service.Service`); a
replica knows nothing of clients.

Work sharing: a replica takes one request at a time, and a second one waiting behind
it (`DEPTH`) only while its answers are dear (the replicas' recent answers took at
least `deep_s` on average: the `replica_deep_us` setting). A hop costs the front about
as much as a cheap answer (the plays of a roll with few), so a cheap request queued in
a replica behind another waits longer than it would have in the front, for little work
taken off it; a dear one (hundreds of plays) is worth the wait. When every
replica holds what it may, or none is up yet, the front answers the request itself,
as it does with replicas off: the front is then one more pair of hands rather than a
queue.

A request is answered in the front when no other client waits (in the front or in
a replica): the hop would only add to its time. One client's replies keep their
order: while a replica answers one of its requests, the front serves nothing more
of that client (`FrontQueue.hold`).

On demand: the replicas start the first time such a request finds another client
waiting (`Service._offload`), and load in the background meanwhile. A daemon that
only ever serves one client at a time never starts them, and that client never pays
the hop.

Faults: a replica that dies is replaced; the requests it held go to another replica
once, then are answered `internal`.

The processes, their links (one system call an ask in the front), their deaths and
restarts are :mod:`.process_pool`'s; this module is the replicas' policy (least held
first, work sharing, resend on death). Replicas run at a lower priority (`NICE`): on a
machine whose cores are all busy, a replica woken by an ask must not take the core
from the front, which would then stall every client.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from jacquetd_protocol.codec import encode_reply
from jacquetd_protocol.errors import ErrorCode, ProtocolError
from jacquetd_protocol.messages import Encoding, Reply

from jacquetd.daemon.config import Config
from jacquetd.daemon.process_pool import READY, Child, Link, ProcessPool
from jacquetd.errors import to_protocol_error
from jacquetd.logs import setup_logging

log = logging.getLogger(__name__)

DEPTH = 2  # requests one replica holds at most (one computing, one waiting in its pipe)
DEEP_S = Config.replica_deep_us / 1e6  # the default `deep_s` (see the module's work sharing)
ANSWER_WEIGHT = 1 / 16  # of each answer in the replicas' running mean answer time
RETRIES = 1  # a request whose replica died goes to another this many times
CLOSE_S = 1.0  # at shutdown, replicas get this long to exit before they are killed
NICE = 5  # replicas run this much below the front (see the module docstring)

Answered = Callable[[str | None, bytes], None]  # (error code or None, the encoded reply)


class Ask(NamedTuple):
    """Front to replica: answer front command `cmd` (arguments checked by the command
    table, position not yet validated) as the reply to `request_id` in `encoding`."""

    token: int
    cmd: str
    args: dict[str, Any]
    request_id: Any
    encoding: Encoding


class Answer(NamedTuple):
    """Replica to front: the encoded reply to ask `token`, its error code if any, and the
    seconds the replica took to write it."""

    token: int
    code: str | None
    body: bytes
    seconds: float = 0.0


def answer(ask: Ask) -> Answer:
    """What a replica sends for `ask`: the front handler's result, or the error it raised,
    encoded as the reply."""
    from jacquetd.daemon.registry import ROUTES, packed_reply

    try:
        body = packed_reply(ask.cmd, ask.request_id, ask.args, ask.encoding)
        if body is not None:
            return Answer(ask.token, None, body)
        result = ROUTES[ask.cmd].front(None, ask.args)  # type: ignore[arg-type,misc]  # stateless
        return Answer(ask.token, None, encode_reply(Reply.success(ask.request_id, result),
                                                    ask.encoding))
    except Exception as exc:  # every failure becomes the request's error reply
        err = to_protocol_error(exc)
        if str(err.code) == "internal":
            log.exception("event=replica_failed cmd=%s", ask.cmd)
        return Answer(ask.token, str(err.code),
                      encode_reply(Reply.failure(ask.request_id, err), ask.encoding))


def replica_main(link: Link, log_level: int) -> None:
    """A replica process: load the compiled generator, say it is ready, then answer asks
    in order until the link closes (the front is gone) or a None arrives."""
    with contextlib.suppress(OSError):
        os.nice(NICE)
    setup_logging(log_level)  # the front's format (kv or json), as the workers write
    from jacquetd.daemon import plays

    plays.warm_up_generator()
    link.send(READY)
    while True:
        try:
            ask = link.recv()
        except (EOFError, OSError):
            return
        if ask is None:
            return
        started = time.perf_counter()
        reply = answer(Ask(*ask))
        link.send((*reply[:3], time.perf_counter() - started))


@dataclass(eq=False)
class _Held:
    ask: Ask
    done: Answered
    tries: int = 0


@dataclass(eq=False)
class _Replica(Child):
    held: dict[int, _Held] = field(default_factory=dict)


class ReplicaPool:
    """`count` replica processes, started in the background; `submit` hands one a request
    or says no (the front then answers it itself)."""

    def __init__(self, count: int, *, log_level: int = logging.WARNING,
                 deep_s: float = DEEP_S) -> None:
        self.count = max(0, count)
        self.log_level = log_level
        self.deep_s = deep_s  # a second request only while answers take this long
        self._procs = ProcessPool("replica", replica_main, _Replica, self._on_message,
                                  self._on_death)
        self._tokens = itertools.count(1)
        self.answered = 0  # requests a replica answered (introspection, stats)
        self.answer_s = 0.0  # running mean of the replicas' time an answer (`deep_s`)
        self.restarts = 0

    @property
    def started(self) -> bool:
        return self._procs.loop is not None

    def start(self) -> None:
        """Start every replica (they load in the background; until one says it is ready
        `submit` refuses)."""
        if self.started or self._procs.closing:
            return
        self._procs.start()
        log.info("event=replicas_starting count=%d", self.count)
        for i in range(self.count):
            self._spawn(i)

    def _spawn(self, index: int) -> None:
        self._procs.spawn(index, (self.log_level,))

    @property
    def holding(self) -> int:
        """Requests the replicas hold now."""
        return sum(len(r.held) for r in self._procs.children if r is not None)

    def pids(self) -> list[int]:
        """The replicas up and answering."""
        return [r.process.pid for r in self._procs.children
                if r is not None and r.ready and not r.dead]

    def submit(self, cmd: str, args: dict[str, Any], request_id: Any, encoding: Encoding,
               done: Answered) -> bool:
        """Hand the request to the least busy ready replica with room (a second request
        only while answers are dear: see the module's work sharing); False when none has
        room (then nothing was taken)."""
        best: _Replica | None = None
        depth = DEPTH if self.answer_s >= self.deep_s else 1
        for replica in self._procs.children:
            if (replica is not None and replica.ready and not replica.dead
                    and len(replica.held) < depth
                    and (best is None or len(replica.held) < len(best.held))):
                best = replica
        if best is None or self._procs.closing:
            return False
        held = _Held(Ask(next(self._tokens), cmd, args, request_id, encoding), done)
        return self._send(best, held)

    def _send(self, replica: _Replica, held: _Held) -> bool:
        if not self._procs.send(replica, tuple(held.ask)):
            return False
        replica.held[held.ask.token] = held
        return True

    def _on_message(self, replica: _Replica, message: Any) -> None:
        if message == READY:
            log.debug("event=replica_ready index=%d", replica.index)
            return
        answer = Answer(*message)
        held = replica.held.pop(answer.token, None)
        if held is not None:
            self.answered += 1
            self.answer_s += (answer.seconds - self.answer_s) * ANSWER_WEIGHT
            try:
                held.done(answer.code, answer.body)
            except Exception:  # one reply's failure must not stop the others
                log.exception("event=replica_answer_failed")

    def _on_death(self, replica: _Replica) -> None:
        held = list(replica.held.values())
        replica.held.clear()
        log.warning("event=replica_died index=%d held=%d exitcode=%s", replica.index,
                    len(held), replica.process.exitcode)
        self.restarts += 1
        self._procs.restart(replica, self._spawn)
        for one in held:
            self._retry(one)

    def _retry(self, held: _Held) -> None:
        held.tries += 1
        if held.tries <= RETRIES:
            for replica in self._procs.children:
                if (replica is not None and replica.ready and not replica.dead
                        and self._send(replica, held)):
                    return
        err = ProtocolError(ErrorCode.INTERNAL, "the process answering this request stopped")
        held.done(str(err.code), encode_reply(Reply.failure(held.ask.request_id, err),
                                              held.ask.encoding))

    async def close(self) -> None:
        """Stop every replica (asks still held are dropped: the service answers their
        requests when it drains)."""
        await self._procs.drain(CLOSE_S)
