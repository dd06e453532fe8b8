"""Service under flood: ``python benchmarks/bench_hardening.py [--seconds 20]``.

Starts a daemon (2 workers, hosted matches in a temporary folder), then floods
every endpoint at once for the given time, each flood in its own process:

* ZeroMQ: DEALERs sending ``legal_moves`` and ``best_move level=random``, at most
  100 outstanding each (they read their replies);
* ZeroMQ: one DEALER that sends without ever reading (it must be dropped alone);
* plain TCP: connections pipelining ``legal_moves``, at most 100 outstanding each;
* gnubg: connections asking for decisions line after line;
* watches: ``match_watch`` streams on matches two bots play.

Meanwhile a probe on every endpoint measures ``ping`` (gnubg: ``version``) and
``best_move level=random`` (gnubg: a ``board:`` decision, the endpoint's level
being ``random``), and the front process's resident memory is sampled. Prints
the probes' p50/p99, the peak RSS, the CPU (in cores) that the front, the daemon
with its workers and the whole machine used while probing (the floods share the
machine's cores with the daemon), and for every flood how many requests were
sent, answered (of which ``busy``: shed at once), and lost with a dropped peer.
`BENCH_WATCHES=N` sets the number of watch streams (default 500); `--shutdown`
measures SIGTERM to exit instead.
``soak()`` is what the slow test ``tests/daemon/test_soak.py`` runs, bounded.

``--attack NAME`` (repeatable; ``all`` for every one) runs one attack of its own on
a fresh daemon instead, for ``--seconds``, every request on loopback, and prints
its probes' p50/p99 with the attack running:

* ``cluster``: ``serve --scheduler`` with a real local ``dask scheduler`` and one
  ``dask worker``; one ZeroMQ client's rollout of 10^7 trials (``truncate 2``);
  probes: another client's TCP ``ping``, the front's RSS, and SIGTERM to exit
  with the rollout still running;
* ``watch-leak``: 160 TCP connections each open 64 ``match_watch`` and close
  normally, then 32 ZeroMQ clients each send 2,048 and leave; probes: TCP
  ``ping`` meanwhile, then the watches left open, CLOSE-WAIT sockets and
  whether a new watcher is served;
* ``fairness``: one client's rollout of 10^7 trials at ``plies 2`` on the
  worker pool; probes: another client's 36-trial rollout (``plies 0``) and a
  hosted bot's move (a bot-against-bot match's pace), idle and under attack;
* ``ws-ping``: one WebSocket client sends WebSocket pings as fast as it can and
  reads its pongs; probes: ``ping`` of another WebSocket client and of a TCP
  client, beside the same probes on the idle daemon first; ``ws-protocol-ping``:
  the same with the protocol's ``ping`` in text frames.
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import msgpack
import zmq

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from procfs import cpu_seconds  # noqa: E402

BOARD = ("board:You:Opp:1:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:0:0:0:"
         "0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0")
LEGAL = {"cmd": "legal_moves", "position": "start:backgammon", "dice": [3, 1]}
RANDOM = {"cmd": "best_move", "position": "start:backgammon", "dice": [3, 1], "level": "random"}
OUTSTANDING = 100
WATCHES = int(os.environ.get("BENCH_WATCHES", "500"))
FRONT_RSS_CAP_MB = 400  # documented in SPEC.md section 10


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered)) - 1))]


# ---- floods (each in its own process; each returns sent / answered / lost / busy counts) -----


def _is_busy(reply: dict[str, Any]) -> bool:
    return not reply.get("ok") and (reply.get("error") or {}).get("code") == "busy"


def _read_replies(poller: zmq.Poller, timeout_ms: int, outstanding: dict[int, int]
                  ) -> tuple[int, int]:
    """Read every final reply waiting on the poller's sockets (within `timeout_ms`),
    counting each off its socket's `outstanding`: (replies read, of them busy)."""
    answered = busy = 0
    for s, _ in poller.poll(timeout_ms):
        while s.poll(0):
            reply = msgpack.unpackb(s.recv())
            if reply.get("partial"):
                continue
            outstanding[id(s)] -= 1
            answered += 1
            busy += _is_busy(reply)
    return answered, busy


def _zmq_flood(endpoint: str, sockets: int, seconds: float, out: Any) -> None:
    ctx = zmq.Context()
    socks = []
    for _ in range(sockets):
        s = ctx.socket(zmq.DEALER)
        s.setsockopt(zmq.LINGER, 0)
        s.connect(endpoint)
        socks.append(s)
    poller = zmq.Poller()
    for s in socks:
        poller.register(s, zmq.POLLIN)
    sent = answered = busy = 0
    outstanding = {id(s): 0 for s in socks}
    end = time.monotonic() + seconds
    n = 0
    while time.monotonic() < end:
        for s in socks:
            while outstanding[id(s)] < OUTSTANDING:
                n += 1
                s.send(msgpack.packb({"id": n, **(RANDOM if n % 10 == 0 else LEGAL)}))
                outstanding[id(s)] += 1
                sent += 1
        got, was_busy = _read_replies(poller, 50, outstanding)
        answered += got
        busy += was_busy
    drain_end = time.monotonic() + 30
    while sum(outstanding.values()) and time.monotonic() < drain_end:
        got, was_busy = _read_replies(poller, 200, outstanding)
        answered += got
        busy += was_busy
    out.put(("zmq", sent, answered, sent - answered, busy))
    for s in socks:
        s.close(0)
    ctx.term()


def _zmq_lazy(endpoint: str, seconds: float, out: Any) -> None:
    ctx = zmq.Context()
    s = ctx.socket(zmq.DEALER)
    s.setsockopt(zmq.LINGER, 0)
    s.setsockopt(zmq.SNDHWM, 0)
    s.setsockopt(zmq.RCVHWM, 10)
    s.setsockopt(zmq.RCVBUF, 4096)  # small kernel buffer: the daemon sees it stall sooner
    s.connect(endpoint)
    end = time.monotonic() + seconds
    sent = 0
    while time.monotonic() < end:
        for _ in range(200):
            sent += 1
            s.send(msgpack.packb({"id": sent, **LEGAL}))
        time.sleep(0.01)
    out.put(("zmq-not-reading", sent, -1, -1, -1))  # accounted by the daemon's stats
    s.close(0)
    ctx.term()


def _tcp_flood(addr: tuple[str, int], conns: int, seconds: float, out: Any) -> None:
    from jacquetd_protocol.codec import ReplyStreamDecoder, decode_reply
    from jacquetd_protocol.messages import Reply

    socks = [socket.create_connection(addr) for _ in range(conns)]
    decoders = [ReplyStreamDecoder() for _ in socks]
    outstanding = [0] * conns
    sent = answered = lost = busy = 0
    line = b"1 legal_moves start:backgammon 31\n"
    end = time.monotonic() + seconds
    alive = list(range(conns))
    while time.monotonic() < end and alive:
        for i in list(alive):
            try:
                if outstanding[i] < OUTSTANDING:
                    k = OUTSTANDING - outstanding[i]
                    socks[i].sendall(line * k)
                    outstanding[i] += k
                    sent += k
                socks[i].settimeout(0.05)
                data = socks[i].recv(1 << 20)
                if not data:
                    raise ConnectionError
                for item in decoders[i].feed(data):
                    reply = decode_reply(item)
                    if isinstance(reply, Reply):
                        outstanding[i] -= 1
                        answered += 1
                        busy += not reply.ok and (reply.error or {}).get("code") == "busy"
            except TimeoutError:
                continue
            except OSError:
                lost += outstanding[i]
                outstanding[i] = 0
                alive.remove(i)
    for i in alive:
        socks[i].settimeout(30)
        try:
            while outstanding[i]:
                data = socks[i].recv(1 << 20)
                if not data:
                    break
                for item in decoders[i].feed(data):
                    if isinstance(decode_reply(item), Reply):
                        outstanding[i] -= 1
                        answered += 1
        except OSError:
            pass
        lost += outstanding[i]
    out.put(("tcp", sent, answered, lost, busy))
    for s in socks:
        s.close()


def _gnubg_flood(addr: tuple[str, int], conns: int, seconds: float, out: Any) -> None:
    socks = [socket.create_connection(addr, timeout=30) for _ in range(conns)]
    sent = answered = lost = 0
    end = time.monotonic() + seconds
    request = f"{BOARD}\n".encode()
    bufs = [b""] * conns
    for s in socks:
        s.sendall(request * 4)
        sent += 4
    pending = [4] * conns
    while time.monotonic() < end:
        for i, s in enumerate(socks):
            s.settimeout(0.05)
            try:
                data = s.recv(65536)
            except TimeoutError:
                continue
            bufs[i] += data
            done = bufs[i].count(b"\n")
            bufs[i] = bufs[i].rsplit(b"\n", 1)[-1] if done else bufs[i]
            answered += done
            pending[i] -= done
            s.sendall(request * done)
            sent += done
            pending[i] += done
    for i, s in enumerate(socks):
        s.settimeout(30)
        try:
            while pending[i] > 0:
                data = s.recv(65536)
                if not data:
                    break
                pending[i] -= data.count(b"\n")
                answered += data.count(b"\n")
        except OSError:
            pass
        lost += max(0, pending[i])
        s.close()
    out.put(("gnubg", sent, answered, lost, -1))


def _watch_flood(endpoint: str, watches: int, seconds: float, out: Any) -> None:
    ctx = zmq.Context()
    s = ctx.socket(zmq.DEALER)
    s.setsockopt(zmq.LINGER, 0)
    s.connect(endpoint)
    s.send(msgpack.packb({"id": "new", "cmd": "match_new", "variant": "backgammon",
                          "length": 99, "seat0": "random", "seat1": "random"}))
    mid = msgpack.unpackb(s.recv())["result"]["match_id"]
    watchers = []
    for i in range(watches):
        w = ctx.socket(zmq.DEALER)
        w.setsockopt(zmq.LINGER, 0)
        w.connect(endpoint)
        w.send(msgpack.packb({"id": i, "cmd": "match_watch", "match_id": mid}))
        watchers.append(w)
    events = 0
    end = time.monotonic() + seconds
    poller = zmq.Poller()
    for w in watchers:
        poller.register(w, zmq.POLLIN)
    while time.monotonic() < end:
        for w, _ in poller.poll(100):
            while w.poll(0):
                w.recv()
                events += 1
    out.put(("watch", watches, events, 0, -1))
    for w in watchers:
        w.close(0)
    s.close(0)
    ctx.term()


# ---- probes ---------------------------------------------------------------------------------


def _rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def _tree_cpu_seconds(pid: int) -> float:
    """CPU seconds of a process and every live descendant (the daemon and its workers)."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    parents[int(entry)] = int(fh.read().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
    tree, frontier = {pid}, [pid]
    while frontier:
        parent = frontier.pop()
        for child, ppid in parents.items():
            if ppid == parent and child not in tree:
                tree.add(child)
                frontier.append(child)
    return sum(cpu_seconds(p) for p in tree)


def _machine_busy() -> tuple[float, float]:
    """(busy, total) jiffies of all cores, from /proc/stat."""
    with open("/proc/stat") as fh:
        values = [int(v) for v in fh.readline().split()[1:]]
    idle = values[3] + values[4]
    return float(sum(values) - idle), float(sum(values))


def _probe_all(endpoints: dict[str, str], pid: int, seconds: float) -> dict[str, Any]:
    from jacquetd_protocol.codec import ReplyStreamDecoder, decode_reply

    ctx = zmq.Context()
    z = ctx.socket(zmq.DEALER)
    z.setsockopt(zmq.LINGER, 0)
    z.connect(endpoints["zmq"])
    host, _, port = endpoints["tcp"].rpartition(":")
    t = socket.create_connection((host, int(port)), timeout=30)
    tdec = ReplyStreamDecoder()
    ghost, _, gport = endpoints["gnubg"].rpartition(":")
    g = socket.create_connection((ghost, int(gport)), timeout=30)
    lat: dict[str, list[float]] = {k: [] for k in (
        "zmq ping", "zmq best_move", "tcp ping", "tcp best_move", "gnubg version",
        "gnubg board")}
    rss: list[float] = []
    cpu_before = cpu_seconds(pid), _tree_cpu_seconds(pid), _machine_busy()
    wall_before = time.monotonic()
    end = time.monotonic() + seconds
    n = 0

    def zcall(req: dict[str, Any]) -> None:
        z.send(msgpack.packb(req))
        while True:
            if not msgpack.unpackb(z.recv()).get("partial"):
                return

    def tcall(line: bytes) -> None:
        t.sendall(line)
        while True:
            for item in tdec.feed(t.recv(65536)):
                decode_reply(item)
                return

    def gcall(line: bytes, lines: int) -> None:
        g.sendall(line)
        buf = b""
        while buf.count(b"\n") < lines:
            buf += g.recv(65536)

    while time.monotonic() < end:
        n += 1
        for name, call in (
                ("zmq ping", lambda n=n: zcall({"id": n, "cmd": "ping"})),
                ("zmq best_move", lambda n=n: zcall({"id": n, **RANDOM})),
                ("tcp ping", lambda n=n: tcall(f"{n} ping\n".encode())),
                ("tcp best_move", lambda n=n: tcall(f"{n} best_move start:backgammon 31 "
                                                    "level=random\n".encode())),
                ("gnubg version", lambda: gcall(b"version\n", 4)),
                ("gnubg board", lambda: gcall(f"{BOARD}\n".encode(), 1))):
            started = time.perf_counter()
            call()
            lat[name].append((time.perf_counter() - started) * 1e3)
        rss.append(_rss_mb(pid))
        time.sleep(0.05)
    wall = time.monotonic() - wall_before
    shares = {"front": (cpu_seconds(pid) - cpu_before[0]) / wall,
              "daemon": (_tree_cpu_seconds(pid) - cpu_before[1]) / wall}
    busy_now = _machine_busy()
    shares["machine"] = ((busy_now[0] - cpu_before[2][0])
                         / max(1e-9, busy_now[1] - cpu_before[2][1]) * (os.cpu_count() or 1))
    z.send(msgpack.packb({"id": "stats", "cmd": "stats"}))
    stats = msgpack.unpackb(z.recv())["result"]
    z.close(0)
    ctx.term()
    t.close()
    g.close()
    return {"latency": lat, "rss_peak_mb": max(rss), "stats": stats, "cpu": shares}


def _warm_up(endpoints: dict[str, str], workers: int = 2) -> None:
    """One `best_move` per worker before the floods: a worker's first engine request
    starts its engine (seconds), which is not what the probes measure."""
    ctx = zmq.Context()
    z = ctx.socket(zmq.DEALER)
    z.setsockopt(zmq.LINGER, 0)
    z.connect(endpoints["zmq"])
    for n in range(2 * workers):
        z.send(msgpack.packb({"id": n, **RANDOM}))
    done = 0
    while done < 2 * workers and z.poll(60_000):
        done += not msgpack.unpackb(z.recv()).get("partial")
    z.close(0)
    ctx.term()


def soak(endpoints: dict[str, str], pid: int, seconds: float) -> dict[str, Any]:
    """Flood every endpoint for `seconds` while probing; the figures as a dict."""
    _warm_up(endpoints)
    mp = multiprocessing.get_context("spawn")
    out = mp.Queue()
    host, _, port = endpoints["tcp"].rpartition(":")
    ghost, _, gport = endpoints["gnubg"].rpartition(":")
    floods = [
        mp.Process(target=_zmq_flood, args=(endpoints["zmq"], 10, seconds, out)),
        mp.Process(target=_zmq_lazy, args=(endpoints["zmq"], seconds, out)),
        mp.Process(target=_tcp_flood, args=((host, int(port)), 10, seconds, out)),
        mp.Process(target=_gnubg_flood, args=((ghost, int(gport)), 8, seconds, out)),
        mp.Process(target=_watch_flood, args=(endpoints["zmq"], WATCHES, seconds, out)),
    ]
    for p in floods:
        p.start()
    time.sleep(1.0)  # the floods are under way
    probed = _probe_all(endpoints, pid, seconds - 1.0)
    results = [out.get(timeout=120) for _ in floods]
    for p in floods:
        p.join(60)
    probed["floods"] = {name: {"sent": s, "answered": a, "lost_with_dropped_peer": lost,
                               "busy": busy}
                        for name, s, a, lost, busy in results}
    return probed


def report(figures: dict[str, Any]) -> str:
    lines = []
    for name, values in figures["latency"].items():
        lines.append(f"probe {name:14s} n={len(values):4d} p50={percentile(values, 50):7.1f} ms "
                     f"p99={percentile(values, 99):7.1f} ms")
    lines.append(f"front RSS peak {figures['rss_peak_mb']:.0f} MB (cap {FRONT_RSS_CAP_MB} MB)")
    cpu = figures["cpu"]
    lines.append(f"CPU while probing, in cores: front {cpu['front']:.2f}, daemon with workers "
                 f"{cpu['daemon']:.2f}, whole machine {cpu['machine']:.2f} of "
                 f"{os.cpu_count()}")
    for name, f in figures["floods"].items():
        lines.append(f"flood {name:16s} sent={f['sent']} answered={f['answered']} "
                     f"(busy {f['busy']}) lost_with_dropped_peer={f['lost_with_dropped_peer']}")
    st = figures["stats"]
    lines.append(f"daemon: clients_dropped={st['clients_dropped']} "
                 f"replies_dropped={st['replies_dropped']} "
                 f"requests_ignored={st['requests_ignored']} "
                 f"connections_refused={st['connections_refused']} watches={st['watches']}")
    return "\n".join(lines)


def shutdown_times(runs: int = 3, drain_s: float = 2.0) -> list[float]:
    """Seconds from SIGTERM to exit while 8 bot-against-bot 99-point matches are in play."""
    import signal

    from tests.daemon.wire import ZmqClient

    folder = tempfile.mkdtemp(prefix="jacquetd-stop-")
    env = {**os.environ, "XDG_DATA_HOME": folder, "PYTHONPATH": str(REPO)}
    times = []
    for run in range(runs):
        proc = subprocess.Popen(
            [sys.executable, "-m", "jacquetd", "serve", "--workers", "2", "--bind",
             "tcp://127.0.0.1:0", "--tcp", "off", "--gnubg", "off", "--drain-timeout",
             str(drain_s), "--db", f"{folder}/m{run}.sqlite3"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=REPO)
        assert proc.stdout is not None
        endpoint = dict(re.findall(r"(\w+)=(\S+)", proc.stdout.readline().decode()))["zmq"]
        client = ZmqClient(endpoint)
        for i in range(8):
            client.call("match_new", id=i, variant="backgammon", length=99, seat0="random",
                        seat1="random", seed=i)
        client.close()
        time.sleep(3.0)
        started = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        proc.wait(120)
        times.append(time.monotonic() - started)
    return times


# ---- attacks of their own (--attack) -----------------------------------------------------------

PROBE_TIMEOUT_S = 30.0  # a probe not answered within this counts as this long, and a miss
HUGE_TRIALS = 10_000_000


class _Daemon:
    """A daemon of its own for one attack, in a temporary data folder; `stop()` sends
    SIGTERM and returns the seconds to exit (killed after 60 s)."""

    def __init__(self, *extra: str, workers: int = 2) -> None:
        self.folder = tempfile.mkdtemp(prefix="jacquetd-attack-")
        env = {**os.environ, "XDG_DATA_HOME": self.folder, "PYTHONPATH": str(REPO)}
        self.log = open(Path(self.folder) / "daemon.log", "wb")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "jacquetd", "serve", "--workers", str(workers),
             "--bind", "tcp://127.0.0.1:0", "--tcp", "127.0.0.1:0", "--gnubg", "127.0.0.1:0",
             "--ws", "127.0.0.1:0", "--db", str(Path(self.folder) / "m.sqlite3"), *extra],
            stdout=subprocess.PIPE, stderr=self.log, env=env, cwd=REPO)
        assert self.proc.stdout is not None
        self.endpoints = dict(re.findall(r"(\w+)=(\S+)", self.proc.stdout.readline().decode()))
        if "zmq" not in self.endpoints:
            self.stop()
            raise RuntimeError(f"the daemon did not start; see {self.folder}/daemon.log")

    def addr(self, name: str) -> tuple[str, int]:
        host, _, port = self.endpoints[name].rpartition(":")
        return host.strip("[]"), int(port)

    def stop(self) -> float:
        import signal

        started = time.monotonic()
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self.log.close()
        return time.monotonic() - started


def _zcall(endpoint: str, request: dict[str, Any], timeout_s: float = 60.0) -> dict[str, Any]:
    """One request on a DEALER of its own; its final reply (partials skipped)."""
    ctx = zmq.Context()
    s = ctx.socket(zmq.DEALER)
    s.setsockopt(zmq.LINGER, 0)
    s.connect(endpoint)
    try:
        s.send(msgpack.packb(request))
        end = time.monotonic() + timeout_s
        while s.poll(max(1, int((end - time.monotonic()) * 1000))):
            reply = msgpack.unpackb(s.recv())
            if not reply.get("partial"):
                return dict(reply)
        return {"ok": False, "error": {"code": "no_reply"}}
    finally:
        s.close(0)
        ctx.term()


def _tcp_pings(addr: tuple[str, int], seconds: float, every_s: float = 0.05
               ) -> tuple[list[float], int]:
    """`ping` over one TCP connection every `every_s` for `seconds`: the latencies (ms)
    and how many were not answered within PROBE_TIMEOUT_S (counted at that)."""
    from jacquetd_protocol.codec import ReplyStreamDecoder

    lat: list[float] = []
    missed = 0
    sock = socket.create_connection(addr, timeout=PROBE_TIMEOUT_S)
    dec = ReplyStreamDecoder()
    end = time.monotonic() + seconds
    n = 0
    while time.monotonic() < end:
        n += 1
        started = time.perf_counter()
        sock.sendall(f"{n} ping\n".encode())
        try:
            while not dec.feed(sock.recv(65536)):
                pass
        except TimeoutError:
            missed += 1
            lat.append(PROBE_TIMEOUT_S * 1e3)
            sock.close()  # its reply may still come: a new connection
            sock = socket.create_connection(addr, timeout=PROBE_TIMEOUT_S)
            dec = ReplyStreamDecoder()
            continue
        lat.append((time.perf_counter() - started) * 1e3)
        time.sleep(every_s)
    sock.close()
    return lat, missed


def _line(name: str, values: list[float], missed: int = 0, unit: str = "ms") -> str:
    extra = f" missed={missed} (>{PROBE_TIMEOUT_S:.0f} s)" if missed else ""
    return (f"probe {name:28s} n={len(values):5d} p50={percentile(values, 50):9.1f} {unit} "
            f"p99={percentile(values, 99):9.1f} {unit}{extra}")


def _rollout_flood(endpoint: str, request: dict[str, Any], seconds: float, out: Any) -> None:
    """One client's huge rollout: reads its partials for `seconds`, then leaves without
    a word (its DEALER closed; the daemon must stop the rollout)."""
    ctx = zmq.Context()
    s = ctx.socket(zmq.DEALER)
    s.setsockopt(zmq.LINGER, 0)
    s.connect(endpoint)
    s.send(msgpack.packb({"id": 1, "cmd": "rollout", **request}))
    partials = 0
    final: dict[str, Any] | None = None
    end = time.monotonic() + seconds
    while time.monotonic() < end and final is None:
        if s.poll(100):
            reply = msgpack.unpackb(s.recv())
            if reply.get("partial"):
                partials += 1
            else:
                final = reply
    out.put(("rollout", partials, final))
    s.close(0)
    ctx.term()


def _rss_sampler(pid: int, seconds: float, out: Any) -> None:
    peak = 0.0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            peak = max(peak, _rss_mb(pid))
        except OSError:
            break
        time.sleep(0.2)
    out.put(("rss", peak, None))


def attack_cluster(seconds: float, workers: int) -> list[str]:
    """`serve --scheduler` with a real local Dask scheduler and one worker under a
    rollout of 10^7 trials; TCP ping meanwhile, the front's RSS, SIGTERM to exit."""
    folder = Path(tempfile.mkdtemp(prefix="jacquetd-dask-"))
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    logs = open(folder / "dask.log", "wb")  # noqa: SIM115
    procs: list[subprocess.Popen[bytes]] = []
    daemon: _Daemon | None = None
    try:
        procs.append(subprocess.Popen(
            ["dask", "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
             "--scheduler-file", str(folder / "scheduler.json")],
            stdout=logs, stderr=logs, env=env, cwd=folder, start_new_session=True))
        end = time.monotonic() + 60
        while not (folder / "scheduler.json").exists() and time.monotonic() < end:
            time.sleep(0.2)
        time.sleep(0.2)
        import json

        address = json.loads((folder / "scheduler.json").read_text())["address"]
        procs.append(subprocess.Popen(
            ["dask", "worker", address, "--nworkers", "1", "--nthreads", "1",
             "--no-dashboard", "--host", "127.0.0.1"],
            stdout=logs, stderr=logs, env=env, cwd=folder, start_new_session=True))
        from distributed import Client

        with Client(address, timeout=60) as client:
            client.wait_for_workers(1, timeout=120)
        daemon = _Daemon("--scheduler", address, workers=workers)
        lines = [f"attack cluster: dask scheduler {address}, 1 worker; daemon workers="
                 f"{workers}"]
        warm = _zcall(daemon.endpoints["zmq"], {"id": 0, "cmd": "rollout",
                                                "position": "start:backgammon", "trials": 36,
                                                "truncate": 2}, 180)
        lines.append(f"warm-up rollout of 36 trials: ok={warm.get('ok')} where="
                     f"{(warm.get('result') or {}).get('where')}")
        mp = multiprocessing.get_context("spawn")
        out = mp.Queue()
        flood = mp.Process(target=_rollout_flood, args=(
            daemon.endpoints["zmq"], {"position": "start:backgammon", "trials": HUGE_TRIALS,
                                      "truncate": 2}, seconds + 30, out))
        rss = mp.Process(target=_rss_sampler, args=(daemon.proc.pid, seconds, out))
        rss_before = _rss_mb(daemon.proc.pid)
        flood.start()
        rss.start()
        time.sleep(1.0)
        lat, missed = _tcp_pings(daemon.addr("tcp"), seconds - 1.0)
        lines.append(_line("tcp ping (rollout running)", lat, missed))
        peak = out.get(timeout=60)
        while peak[0] != "rss":
            peak = out.get(timeout=60)
        lines.append(f"front RSS {rss_before:.0f} MB before, peak {peak[1]:.0f} MB during")
        stop_s = daemon.stop()
        lines.append(f"SIGTERM to exit with the rollout running: {stop_s:.2f} s")
        daemon = None
        flood.kill()
        flood.join(10)
        return lines
    finally:
        if daemon is not None:
            daemon.stop()
        for proc in procs:
            import signal

            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in procs:
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, 9)
                proc.wait(10)
        logs.close()


def _close_wait(port: int) -> int:
    out = subprocess.run(["ss", "-tan"], capture_output=True, text=True).stdout
    return sum(1 for line in out.splitlines()
               if line.startswith("CLOSE-WAIT") and f":{port} " in line)


def _leave_watches(tcp: tuple[str, int], zmq_endpoint: str, match_id: str, after: int,
                   out: Any) -> None:
    """160 TCP connections (32 at a time) each open 64 watches, read, close their side
    and close; then 32 ZeroMQ clients each send 2,048 watches and leave at once."""
    request = [msgpack.packb({"id": i, "cmd": "match_watch", "match_id": match_id,
                              "after": after}) for i in range(2048)]
    closed_by_daemon = 0
    for _ in range(5):
        socks = [socket.create_connection(tcp, timeout=10) for _ in range(32)]
        for s in socks:
            s.sendall(b"".join(request[:64]))
        time.sleep(0.5)
        for s in socks:
            s.settimeout(0.2)
            with contextlib.suppress(OSError):
                while s.recv(1 << 20):
                    pass
            s.shutdown(socket.SHUT_WR)
            s.settimeout(5.0)
            try:
                while s.recv(1 << 20):
                    pass
                closed_by_daemon += 1
            except OSError:
                pass
            s.close()
    ctx = zmq.Context()
    for _ in range(32):
        d = ctx.socket(zmq.DEALER)
        d.setsockopt(zmq.LINGER, 10_000)
        d.setsockopt(zmq.SNDHWM, 0)
        d.connect(zmq_endpoint)
        for frame in request:
            d.send(frame)
        d.close()
    ctx.term()
    out.put(("leave", closed_by_daemon, None))


def attack_watch_leak(seconds: float, workers: int) -> list[str]:
    daemon = _Daemon(workers=workers)
    try:
        zmq_endpoint = daemon.endpoints["zmq"]
        made = _zcall(zmq_endpoint, {"id": 1, "cmd": "match_new", "variant": "jacquet",
                                     "seat1": "random", "name0": "ann"})
        mid = made["result"]["match_id"]
        seen = _zcall(zmq_endpoint, {"id": 2, "cmd": "match_watch", "match_id": mid,
                                     "follow": False})["result"]["events"][-1]["n"]
        mp = multiprocessing.get_context("spawn")
        out = mp.Queue()
        attacker = mp.Process(target=_leave_watches, args=(
            daemon.addr("tcp"), zmq_endpoint, mid, seen, out))
        attacker.start()
        lat, missed = _tcp_pings(daemon.addr("tcp"), seconds)
        _, closed, _ = out.get(timeout=300)
        attacker.join(30)
        # what the clients left is freed as the daemon reads their ends: wait until the
        # watches are gone (or 60 s), and say how long that took
        left_at = time.monotonic()
        while True:
            stats = _zcall(zmq_endpoint, {"id": 3, "cmd": "stats"})["result"]
            if stats["watches"] == 0 or time.monotonic() - left_at > 60:
                break
            time.sleep(0.5)
        settled_s = time.monotonic() - left_at
        watcher = _zcall(zmq_endpoint, {"id": 4, "cmd": "match_watch", "match_id": mid,
                                        "timeout_ms": 500}, 10)
        served = watcher.get("ok") or (watcher.get("error") or {}).get("code") == "timeout"
        return [
            "attack watch-leak: 160 TCP connections x 64 watches closed normally, then 32 "
            "ZeroMQ clients x 2,048 watches that leave",
            _line("tcp ping (during the attack)", lat, missed),
            f"TCP connections the daemon closed after the client's end of input: {closed}/160",
            f"after {settled_s:.1f} s: watches={stats['watches']} clients={stats['clients']} "
            f"CLOSE-WAIT={_close_wait(daemon.addr('tcp')[1])} new watcher served="
            f"{bool(served)} ({(watcher.get('error') or {}).get('code', 'ok')})",
        ]
    finally:
        daemon.stop()


def _bot_moves(endpoint: str, seconds: float, out: Any) -> None:
    """A bot-against-bot match's pace as its watcher sees it: the time between two
    partials that carry moves, shared among their moves (the stream coalesces events),
    one figure per move."""
    ctx = zmq.Context()
    s = ctx.socket(zmq.DEALER)
    s.setsockopt(zmq.LINGER, 0)
    s.connect(endpoint)
    s.send(msgpack.packb({"id": "new", "cmd": "match_new", "variant": "backgammon",
                          "length": 99, "seat0": "neural", "seat1": "neural", "seed": 5}))
    mid = msgpack.unpackb(s.recv())["result"]["match_id"]
    s.send(msgpack.packb({"id": "w", "cmd": "match_watch", "match_id": mid}))
    times: list[float] = []
    last: float | None = None
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if not s.poll(100):
            continue
        reply = msgpack.unpackb(s.recv())
        now = time.monotonic()
        moves = sum(1 for event in (reply.get("result") or {}).get("events", [])
                    if event["type"] == "move")
        if moves:
            if last is not None:
                times += [(now - last) * 1e3 / moves] * moves
            last = now
    out.put(("bot", times, None))
    s.close(0)
    ctx.term()


def attack_fairness(seconds: float, workers: int) -> list[str]:
    daemon = _Daemon(workers=workers)
    try:
        zmq_endpoint = daemon.endpoints["zmq"]
        small = {"cmd": "rollout", "position": "start:backgammon", "trials": 36,
                 "timeout_ms": 200_000}
        _warm_up(daemon.endpoints, workers)
        import queue

        idle: queue.Queue[Any] = queue.Queue()
        _bot_moves(zmq_endpoint, 8.0, idle)  # the idle daemon first
        started = time.perf_counter()
        idle_ok = _zcall(zmq_endpoint, {"id": 1, **small}, 210).get("ok")
        idle_small = [(time.perf_counter() - started) * 1e3]
        mp = multiprocessing.get_context("spawn")
        out = mp.Queue()
        bot = mp.Process(target=_bot_moves, args=(zmq_endpoint, seconds, out))
        bot.start()
        flood = mp.Process(target=_rollout_flood, args=(
            zmq_endpoint, {"position": "start:backgammon", "trials": HUGE_TRIALS, "plies": 2},
            seconds, out))
        flood.start()
        time.sleep(1.0)
        small_ms: list[float] = []
        failed = 0
        end = time.monotonic() + seconds - 2.0
        while time.monotonic() < end:
            started = time.perf_counter()
            reply = _zcall(zmq_endpoint, {"id": 1, **small}, 210)
            small_ms.append((time.perf_counter() - started) * 1e3)
            failed += not reply.get("ok")
        got = {}
        for _ in range(2):
            name, value, _ = out.get(timeout=120)
            got[name] = value
        for p in (bot, flood):
            p.join(30)
        return [
            f"attack fairness: one client's rollout of 10^7 trials at plies 2; workers="
            f"{workers}",
            _line("rollout 36 trials, idle", idle_small) + f" ok={idle_ok}",
            _line("rollout 36 trials, attack", small_ms) + f" failed={failed}",
            _line("hosted bot move (neural), idle", idle.get()[1]),
            _line("hosted bot move (neural), attack", got.get("bot") or []),
        ]
    finally:
        daemon.stop()


def _ws_handshake(addr: tuple[str, int]) -> socket.socket:
    import base64

    sock = socket.create_connection(addr, timeout=30)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall((f"GET /ws HTTP/1.1\r\nHost: {addr[0]}:{addr[1]}\r\nUpgrade: websocket\r\n"
                  f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                  "Sec-WebSocket-Version: 13\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += sock.recv(4096)
    if not head.startswith(b"HTTP/1.1 101"):
        raise RuntimeError(f"handshake refused: {head[:80]!r}")
    return sock


def _ws_ping_flood(addr: tuple[str, int], seconds: float, control: bool, out: Any) -> None:
    """Pings as fast as the socket takes them, the answers read by a thread: WebSocket
    ping frames (`control`; masked, 4 payload bytes), else the protocol's `ping` as
    text frames."""
    import threading

    sock = _ws_handshake(addr)
    if control:
        frame = b"\x89\x84" + b"\x00\x00\x00\x00" + b"ping"  # FIN+ping, masked, zero mask
    else:
        frame = b"\x81\x86" + b"\x00\x00\x00\x00" + b"1 ping"  # FIN+text, masked
    batch = frame * 1000
    received = [0]
    stop = threading.Event()

    sock.settimeout(None)  # the sender blocks; the reader waits in select

    def reader() -> None:
        import select

        while not stop.is_set():
            if not select.select([sock], [], [], 0.5)[0]:
                continue
            try:
                data = sock.recv(1 << 20)
            except OSError:
                return
            if not data:
                return
            received[0] += len(data)

    thread = threading.Thread(target=reader, daemon=True)
    thread.start()
    sent = 0
    end = time.monotonic() + seconds
    try:
        while time.monotonic() < end:
            sock.sendall(batch)
            sent += 1000
    except OSError as exc:
        print(f"ws ping flood: the connection ended ({exc})", file=sys.stderr)
    stop.set()
    thread.join(2)
    sock.close()
    out.put(("ws-ping", sent, received[0] // (6 if control else 7)))  # bytes per answer


def _ws_pings(addr: tuple[str, int], seconds: float) -> tuple[list[float], int]:
    from websockets.sync.client import connect

    lat: list[float] = []
    missed = 0
    with connect(f"ws://{addr[0]}:{addr[1]}/ws", open_timeout=30) as conn:
        end = time.monotonic() + seconds
        n = 0
        while time.monotonic() < end:
            n += 1
            started = time.perf_counter()
            conn.send(f'{{"id":{n},"cmd":"ping"}}')
            try:
                conn.recv(timeout=PROBE_TIMEOUT_S)
            except TimeoutError:
                missed += 1
                lat.append(PROBE_TIMEOUT_S * 1e3)
                break
            lat.append((time.perf_counter() - started) * 1e3)
            time.sleep(0.02)
    return lat, missed


def attack_ws_ping(seconds: float, workers: int, control: bool = True) -> list[str]:
    daemon = _Daemon(workers=workers)
    try:
        ws, tcp = daemon.addr("ws"), daemon.addr("tcp")
        idle_ws, _ = _ws_pings(ws, 3.0)
        idle_tcp, _ = _tcp_pings(tcp, 3.0, every_s=0.02)
        mp = multiprocessing.get_context("spawn")
        out = mp.Queue()
        flood = mp.Process(target=_ws_ping_flood, args=(ws, seconds, control, out))
        flood.start()
        time.sleep(1.0)
        half = (seconds - 2.0) / 2
        cpu_before, wall_before = cpu_seconds(daemon.proc.pid), time.monotonic()
        busy_ws, ws_missed = _ws_pings(ws, half)
        busy_tcp, tcp_missed = _tcp_pings(tcp, half, every_s=0.02)
        front_cpu = ((cpu_seconds(daemon.proc.pid) - cpu_before)
                     / (time.monotonic() - wall_before))
        _, sent, pongs = out.get(timeout=60)
        flood.join(10)
        ratio_ws = percentile(busy_ws, 50) / percentile(idle_ws, 50)
        ratio_tcp = percentile(busy_tcp, 50) / percentile(idle_tcp, 50)
        kind = "WebSocket pings" if control else "protocol pings (text frames)"
        return [
            f"attack ws-ping: {sent:,} {kind} sent in {seconds:.0f} s, {pongs:,} answers read;"
            f" the front's CPU meanwhile {front_cpu:.2f} cores",
            _line("ws ping (idle daemon)", idle_ws),
            _line("ws ping (flood running)", busy_ws, ws_missed) + f" p50 x{ratio_ws:.1f}",
            _line("tcp ping (idle daemon)", idle_tcp),
            _line("tcp ping (flood running)", busy_tcp, tcp_missed) + f" p50 x{ratio_tcp:.1f}",
        ]
    finally:
        daemon.stop()


def attack_ws_protocol_ping(seconds: float, workers: int) -> list[str]:
    return attack_ws_ping(seconds, workers, control=False)


ATTACKS = {"cluster": attack_cluster, "watch-leak": attack_watch_leak,
           "fairness": attack_fairness, "ws-ping": attack_ws_ping,
           "ws-protocol-ping": attack_ws_protocol_ping}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--shutdown", action="store_true",
                        help="measure SIGTERM to exit with bot matches in play instead")
    parser.add_argument("--attack", action="append", choices=[*ATTACKS, "all"],
                        help="run this attack on a daemon of its own instead (repeatable)")
    args = parser.parse_args()
    if args.shutdown:
        for i, seconds in enumerate(shutdown_times()):
            print(f"SIGTERM run {i}: exit after {seconds:.2f} s (drain timeout 2 s)")
        return
    if args.attack:
        names = list(ATTACKS) if "all" in args.attack else args.attack
        for name in names:
            print("\n".join(ATTACKS[name](args.seconds, args.workers)), flush=True)
        return
    folder = tempfile.mkdtemp(prefix="jacquetd-soak-")
    env = {**os.environ, "XDG_DATA_HOME": folder, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "jacquetd", "serve", "--workers", str(args.workers),
         "--bind", "tcp://127.0.0.1:0", "--tcp", "127.0.0.1:0", "--gnubg", "127.0.0.1:0",
         "--ws", "127.0.0.1:0", "--gnubg-level", "random", "--db", str(Path(folder) / "m.sqlite3")],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=REPO)
    assert proc.stdout is not None
    banner = proc.stdout.readline().decode()
    endpoints = dict(re.findall(r"(\w+)=(\S+)", banner))
    try:
        print(report(soak(endpoints, proc.pid, args.seconds)))
    finally:
        proc.terminate()
        proc.wait(30)


if __name__ == "__main__":
    main()
