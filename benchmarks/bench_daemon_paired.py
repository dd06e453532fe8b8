"""Paired comparison of two daemon set-ups: ``python benchmarks/bench_daemon_paired.py``.

`bench_daemon.py` judges one daemon against the echo floor; on a shared machine its
figures move by a third between runs, more than most changes to the daemon. This
benchmark answers the narrower question "is B faster than A?" with that drift taken
out: both daemons run at once (A and B: other flags, or another checkout's code), and
the same client processes ask them in short alternating rounds (A B, then B A, ...),
so that each pair of rounds sees the same state of the machine. It prints each
set-up's median throughput and p50 over the rounds (and the request's in-process
compute time, as `bench_daemon.py` times it), the CPU time its front and its
replicas spent a request over the rounds (read from /proc; the replicas' also per
answer they gave), and the median of the rounds' paired p50 ratios B/A with the middle
half of them.

The request is `bench_daemon.py`'s (`legal_moves` of the backgammon start with 3-1,
msgpack over ZeroMQ, the reply read whole and not parsed), or `legal_moves` of another
position (`--position`, an id or any form the daemon reads, with `--dice` when it has
none), or `position` of either (`--command position`), or `best_move` of either at a
level (`--command best_move --level neural`: the request goes the way of a worker).
Before the rounds every daemon serves a few seconds of the same load, so that its front
replicas (started on demand) are up and warm.

    python benchmarks/bench_daemon_paired.py --b-args "--replicas 0"
    python benchmarks/bench_daemon_paired.py --b-tree ../other-checkout
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import shlex
import statistics
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

from bench_daemon import REQUEST, ask, compute_time  # noqa: E402
from jacquetd_protocol.codec import encode_request  # noqa: E402
from jacquetd_protocol.messages import Request  # noqa: E402
from procfs import cpu_seconds  # noqa: E402

WARM_S = 3.0  # load on each daemon before the rounds (its replicas start and warm)


def client(endpoints: list[str], request: Request, jobs: Any, results: Any) -> None:
    """One client process with a DEALER on each daemon: for each job (daemon index,
    seconds) it asks that daemon one request at a time for that long and puts (requests
    answered, median latency in seconds); a None job ends it."""
    ctx = zmq.Context()
    socks = []
    for endpoint in endpoints:
        sock = ctx.socket(zmq.DEALER)
        sock.setsockopt(zmq.LINGER, 0)
        sock.connect(endpoint)
        socks.append(sock)
    frame = encode_request(request)
    clock = time.perf_counter
    while (job := jobs.get()) is not None:
        index, seconds = job
        sock = socks[index]
        latencies = []
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            t0 = clock()
            sock.send(frame)
            sock.recv()
            latencies.append(clock() - t0)
        results.put((len(latencies), statistics.median(latencies)))
    for sock in socks:
        sock.close(0)
    ctx.term()


def import_path(tree: Path) -> str:
    """A folder from which checkout `tree`'s three packages import under their installed
    names (`protocol/` is `jacquetd_protocol`, `clients/` is `jacquetd_clients`), ahead
    of the installed ones."""
    folder = Path(tempfile.mkdtemp(prefix="jacquetd-tree-"))
    for name, where in (("jacquetd", "jacquetd"), ("jacquetd_protocol", "protocol"),
                        ("jacquetd_clients", "clients")):
        (folder / name).symlink_to(tree / where, target_is_directory=True)
    return str(folder)


def start_daemon(tree: Path, extra: list[str]) -> tuple[subprocess.Popen[bytes], str]:
    """The daemon of checkout `tree` with flags `extra`, and its ZeroMQ endpoint."""
    env = dict(os.environ, PYTHONPATH=import_path(tree))
    proc = subprocess.Popen([sys.executable, "-m", "jacquetd", "serve", "--bind",
                             "tcp://127.0.0.1:0", "--tcp", "off", "--gnubg", "off",
                             "--ws", "off", "--db", "off", "--log-level", "warning",
                             *extra], cwd=tree, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdout is not None
    words = dict(w.split("=", 1) for w in proc.stdout.readline().decode().split() if "=" in w)
    if "zmq" not in words:
        proc.kill()
        raise SystemExit(f"the daemon of {tree} with {extra} did not start")
    return proc, words["zmq"]


def one_round(jobs: Any, results: Any, clients: int, index: int,
              seconds: float) -> tuple[float, float]:
    """Every client on daemon `index` for `seconds`: (requests a second, the median of
    the clients' p50 in ms)."""
    for _ in range(clients):
        jobs.put((index, seconds))
    got = [results.get(timeout=seconds + 60) for _ in range(clients)]
    return (sum(n for n, _ in got) / seconds, statistics.median(p for _, p in got) * 1e3)


def cpu_snapshot(proc: subprocess.Popen[bytes], endpoint: str) -> tuple[float, float, int]:
    """(the front's CPU seconds, its replicas' together, answers the replicas gave)."""
    stats = msgpack.unpackb(ask(endpoint, Request(2, "stats", {}, "msgpack")))["result"]
    replicas = sum(cpu_seconds(pid) for pid in stats.get("replica_pids", []))
    return cpu_seconds(proc.pid), replicas, int(stats.get("replica_answered", 0))


def quartiles(values: list[float]) -> tuple[float, float]:
    q = statistics.quantiles(values, n=4) if len(values) > 1 else [values[0]] * 3
    return q[0], q[2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a-args", default="", help="set-up A's daemon flags")
    parser.add_argument("--b-args", default="", help="set-up B's daemon flags")
    parser.add_argument("--a-tree", type=Path, default=REPO,
                        help="the checkout A runs (default: this one)")
    parser.add_argument("--b-tree", type=Path, default=REPO,
                        help="the checkout B runs (default: this one)")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=20, help="rounds per set-up")
    parser.add_argument("--seconds", type=float, default=1.5, help="length of a round")
    parser.add_argument("--command", choices=("legal_moves", "position", "best_move"),
                        default="legal_moves", help="the command asked (default legal_moves)")
    parser.add_argument("--level", default="neural",
                        help="best_move's level (default neural: 0 plies, so that the "
                        "rounds weigh the daemon's way to a worker more than the search)")
    parser.add_argument("--position", help="of this position instead of the backgammon start")
    parser.add_argument("--dice", help="its dice, e.g. 6-6 (when the position has none)")
    opts = parser.parse_args()
    request = REQUEST
    if opts.position or opts.command != "legal_moves":
        args: dict[str, Any] = {"position": opts.position or "start:backgammon"}
        rolled = opts.command in ("legal_moves", "best_move")
        if rolled and opts.dice:
            args["dice"] = [int(d) for d in opts.dice.split("-")]
        elif rolled and not opts.position:
            args["dice"] = REQUEST.args["dice"]  # the start has no dice of its own
        if opts.command == "best_move":
            args["level"] = opts.level
        request = Request(1, opts.command, args, "msgpack")

    setups = [(opts.a_tree.resolve(), shlex.split(opts.a_args)),
              (opts.b_tree.resolve(), shlex.split(opts.b_args))]
    daemons = [start_daemon(tree, extra) for tree, extra in setups]
    mp = multiprocessing.get_context("fork")
    jobs, results = mp.Queue(), mp.Queue()
    procs = [mp.Process(target=client, args=([ep for _, ep in daemons], request, jobs,
                                             results)) for _ in range(opts.clients)]
    try:
        for proc in procs:
            proc.start()
        for index in range(2):
            one_round(jobs, results, opts.clients, index, WARM_S)
        # a replica that restarts during the rounds is not counted: these are figures of
        # a steady load, not of the faults
        before = [cpu_snapshot(proc, ep) for proc, ep in daemons]
        rounds: list[list[tuple[float, float]]] = [[], []]
        for r in range(opts.rounds):
            for index in ((0, 1) if r % 2 == 0 else (1, 0)):
                rounds[index].append(one_round(jobs, results, opts.clients, index,
                                               opts.seconds))
        after = [cpu_snapshot(proc, ep) for proc, ep in daemons]
    finally:
        for _ in procs:
            jobs.put(None)
        for proc in procs:
            proc.join(10)
        for proc, _ in daemons:
            proc.terminate()
            proc.wait(10)

    what = f"{opts.command} of {opts.position}" if opts.position else opts.command
    print(f"{what} over ZeroMQ/msgpack, {opts.clients} clients, {opts.rounds} rounds "
          f"of {opts.seconds:g} s per set-up, alternating; {os.cpu_count()} cores; "
          f"in-process compute of the request (this checkout): "
          f"{compute_time(500, request):.3f} ms")
    for index, (name, (tree, extra), measured) in enumerate(zip("AB", setups, rounds,
                                                                strict=True)):
        where = "" if tree == REPO else f" ({tree.name})"
        served = sum(rps * opts.seconds for rps, _ in measured)
        front, replicas, answered = (b - a for a, b in zip(before[index], after[index],
                                                          strict=True))
        print(f"{name}: {' '.join(extra) or 'defaults'}{where}: "
              f"req/s {statistics.median(rps for rps, _ in measured):,.0f}, "
              f"p50 {statistics.median(p for _, p in measured):.3f} ms; CPU a request: "
              f"front {front / served * 1e3:.3f} ms, replicas {replicas / served * 1e3:.3f} ms"
              + (f" ({replicas / answered * 1e3:.3f} ms an answer, "
                 f"{answered / served:.0%} of the requests)" if answered else ""))
    ratios = [b[1] / a[1] for a, b in zip(rounds[0], rounds[1], strict=True)]
    low, high = quartiles(ratios)
    print(f"paired p50 B/A: {statistics.median(ratios):.3f} "
          f"(middle half of the rounds {low:.3f}..{high:.3f}; below 1: B is faster)")


if __name__ == "__main__":
    main()
