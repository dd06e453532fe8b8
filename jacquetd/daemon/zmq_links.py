"""Which ZeroMQ peer left: routing ids matched to the connections libzmq reports.

A ROUTER socket says nothing when a peer disconnects, and libzmq's socket monitor
reports a disconnect by file descriptor, not by routing id. Every received message does
carry the descriptor it came from (the `SRCFD` property), so the endpoint notes, per
descriptor, the connections the monitor has accepted and the routing id first seen on
each. Connections on one descriptor follow each other (the kernel reuses a number only
after it was closed), so a disconnect ends the oldest connection recorded on that
descriptor, and its routing id is the peer whose work is cancelled.

The monitor's events and the messages reach the event loop by two queues, so a message of
the next connection on a reused descriptor can be seen before the monitor reports that
the previous one ended, or before it reports the new one accepted: a message whose
routing id is not yet recorded on its descriptor fills the oldest connection still
without one, else it opens an entry that the next `accepted` event confirms.

libzmq still hands over the messages it had read from a peer after the monitor has
reported that peer's connection ended. Such a message is stale: answering it would
start work for nobody (a `match_watch` that never ends, since no reply to it fails
until the match has news). A routing id that libzmq made up (it starts with a zero
byte and is never given again) is remembered when its connection ends (the last
`DEPARTED_KEPT` of them), and its later messages are stale. A routing id the client
chose may come back on a new connection, whose first messages can be read before the
monitor reports it accepted on the same descriptor: its messages are never taken for
stale, and work that the old connection's last messages start lasts until a reply to
it fails or it ends by itself.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from dataclasses import dataclass

DEPARTED_KEPT = 16384  # routing ids that left, remembered to tell their stale messages


@dataclass
class _Connection:
    identity: bytes | None = None
    accepted: bool = False  # the monitor reported it (else it was seen by a message first)


class ZmqLinks:
    """Routing ids per file descriptor, fed by messages and monitor events."""

    def __init__(self) -> None:
        self._by_fd: dict[int, deque[_Connection]] = {}
        self._departed: OrderedDict[bytes, int] = OrderedDict()  # made-up id -> its fd

    def __len__(self) -> int:
        return sum(len(q) for q in self._by_fd.values())

    def accepted(self, fd: int) -> None:
        """The monitor reports a new connection on `fd`."""
        conns = self._by_fd.setdefault(fd, deque())
        for conn in conns:
            if not conn.accepted:  # a message of this connection arrived first
                conn.accepted = True
                return
        conns.append(_Connection(accepted=True))

    def message(self, fd: int, identity: bytes) -> None:
        """A message from `identity` came in on `fd`."""
        conns = self._by_fd.setdefault(fd, deque())
        if any(conn.identity == identity for conn in conns):
            return
        for conn in conns:
            if conn.identity is None:
                conn.identity = identity
                return
        conns.append(_Connection(identity=identity))

    def disconnected(self, fd: int) -> bytes | None:
        """The monitor reports that the connection on `fd` ended: the routing id that left
        (None if that connection sent nothing, or was never recorded)."""
        conns = self._by_fd.get(fd)
        if not conns:
            return None
        gone = conns.popleft()
        if not conns:
            del self._by_fd[fd]
        identity = gone.identity
        if identity is not None and identity[:1] == b"\0":
            departed = self._departed
            departed[identity] = fd
            if len(departed) > DEPARTED_KEPT:
                departed.popitem(last=False)
        return identity

    def stale(self, fd: int, identity: bytes) -> bool:
        """Whether a message of `identity` read from `fd` comes from a connection that
        has ended (see the module docstring): it is to be ignored."""
        return self._departed.get(identity) == fd
