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
"""

from __future__ import annotations

import argparse
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--shutdown", action="store_true",
                        help="measure SIGTERM to exit with bot matches in play instead")
    args = parser.parse_args()
    if args.shutdown:
        for i, seconds in enumerate(shutdown_times()):
            print(f"SIGTERM run {i}: exit after {seconds:.2f} s (drain timeout 2 s)")
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
