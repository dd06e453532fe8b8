"""Daemon round-trip benchmark: ``python benchmarks/bench_daemon.py``.

Measures ``legal_moves`` over ZeroMQ (DEALER -> the daemon's ROUTER, msgpack)
with 1 and 8 concurrent clients, beside a bare ZeroMQ ROUTER echo server of
the same message sizes in its own process (the transport's floor), and the
engine's own compute time for the same request in-process (decode, legal
plays, result, encode). Prints p50/p99 latency, throughput and the ratio of
the daemon's p50 to (echo floor + compute).

The WebSocket column: the same request to the same daemon in the same run over
its WebSocket endpoint, as JSON text frames (what a browser sends); the goal is
a p50 within 1.5x of the ZeroMQ p50.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import msgpack
import zmq

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from jacquetd_protocol.codec import decode_request, encode_reply, encode_request  # noqa: E402
from jacquetd_protocol.commands import arguments  # noqa: E402
from jacquetd_protocol.messages import Reply, Request  # noqa: E402

from jacquetd.daemon import front_commands  # noqa: E402

REQUEST = Request(1, "legal_moves", {"position": "start:backgammon", "dice": [3, 1]}, "msgpack")
JSON_REQUEST = Request(1, "legal_moves", REQUEST.args, "json")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered)) - 1))]


def echo_server(endpoint_out: multiprocessing.Queue, reply_size: int) -> None:  # type: ignore[type-arg]
    """A bare ROUTER: unpack the request (as the daemon must), send a reply of the size
    the daemon's reply has."""
    ctx = zmq.Context()
    sock = ctx.socket(zmq.ROUTER)
    sock.setsockopt(zmq.LINGER, 0)
    port = sock.bind_to_random_port("tcp://127.0.0.1")
    endpoint_out.put(f"tcp://127.0.0.1:{port}")
    filler = b"x" * max(0, reply_size - 40)
    while True:
        ident, body = sock.recv_multipart()
        if body == b"stop":
            break
        req = msgpack.unpackb(body)
        sock.send_multipart([ident, msgpack.packb({"id": req.get("id"), "ok": True,
                                                   "result": {"blob": filler}})])
    sock.close(0)
    ctx.term()


def client(endpoint: str, n: int, latencies: list[float], barrier: threading.Barrier) -> None:
    ctx = zmq.Context.instance()
    sock = ctx.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.connect(endpoint)
    frame = encode_request(REQUEST)
    for _ in range(50):  # warm-up
        sock.send(frame)
        sock.recv()
    barrier.wait()
    local = []
    for _ in range(n):
        t0 = time.perf_counter()
        sock.send(frame)
        sock.recv()
        local.append(time.perf_counter() - t0)
    latencies.extend(local)
    sock.close(0)


def ws_client(url: str, n: int, latencies: list[float], barrier: threading.Barrier) -> None:
    """One WebSocket client sending `legal_moves` as JSON text frames, one at a time."""
    from websockets.sync.client import connect

    frame = encode_request(JSON_REQUEST).decode()
    with connect(url, compression=None, max_size=None) as ws:
        for _ in range(50):  # warm-up
            ws.send(frame)
            ws.recv()
        barrier.wait()
        local = []
        for _ in range(n):
            t0 = time.perf_counter()
            ws.send(frame)
            ws.recv()
            local.append(time.perf_counter() - t0)
    latencies.extend(local)


def measure(endpoint: str, clients: int, n: int) -> dict[str, float]:
    latencies: list[float] = []
    barrier = threading.Barrier(clients + 1)
    target = ws_client if endpoint.startswith("ws://") else client
    threads = [threading.Thread(target=target, args=(endpoint, n, latencies, barrier))
               for _ in range(clients)]
    for t in threads:
        t.start()
    barrier.wait()
    t0 = time.perf_counter()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - t0
    return {"p50_ms": percentile(latencies, 50) * 1e3, "p99_ms": percentile(latencies, 99) * 1e3,
            "rps": len(latencies) / elapsed}


def compute_time(n: int = 2000) -> float:
    """Median in-process time of what the daemon does for one request besides transport."""
    frame = encode_request(REQUEST)
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        req = decode_request(frame)
        result = front_commands.handle_legal_moves(None, arguments(req))  # type: ignore[arg-type]
        encode_reply(Reply.success(req.id, result), "msgpack")
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def start_daemon() -> tuple[subprocess.Popen[bytes], str, str]:
    """The daemon, its ZeroMQ endpoint and its WebSocket URL."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.Popen([sys.executable, "-m", "jacquetd", "serve", "--bind",
                             "tcp://127.0.0.1:0", "--tcp", "off", "--gnubg", "off",
                             "--ws", "127.0.0.1:0", "--db", "off",
                             "--log-level", "warning"], cwd=REPO, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdout is not None
    line = proc.stdout.readline().decode()
    words = dict(w.split("=", 1) for w in line.split() if "=" in w)
    return proc, words["zmq"], f"ws://{words['ws']}/ws"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=3000, help="requests per client")
    opts = parser.parse_args()

    daemon, endpoint, ws_url = start_daemon()
    try:
        probe = zmq.Context.instance().socket(zmq.DEALER)
        probe.setsockopt(zmq.LINGER, 0)
        probe.connect(endpoint)
        probe.send(encode_request(REQUEST))
        reply_size = len(probe.recv())
        probe.close(0)
        request_size = len(encode_request(REQUEST))
        results = {c: measure(endpoint, c, opts.n) for c in (1, 8)}
        over_ws = {c: measure(ws_url, c, opts.n) for c in (1, 8)}
    finally:
        daemon.terminate()
        daemon.wait(30)

    queue: multiprocessing.Queue[str] = multiprocessing.Queue()
    echo = multiprocessing.Process(target=echo_server, args=(queue, reply_size))
    echo.start()
    echo_endpoint = queue.get(timeout=30)
    floor = {c: measure(echo_endpoint, c, opts.n) for c in (1, 8)}
    stop = zmq.Context.instance().socket(zmq.DEALER)
    stop.setsockopt(zmq.LINGER, 1000)
    stop.connect(echo_endpoint)
    stop.send(b"stop")
    echo.join(10)
    stop.close()
    compute = compute_time()

    print(f"legal_moves round trip over ZeroMQ/msgpack on loopback; request {request_size} B, "
          f"reply {reply_size} B; {opts.n} requests per client; {os.cpu_count()} cores")
    print(f"engine compute per request (in-process decode + legal plays + encode), "
          f"p50: {compute:.3f} ms")
    header = f"{'clients':>7} {'what':>7} {'p50 ms':>8} {'p99 ms':>8} {'req/s':>9}"
    print(header)
    for c in (1, 8):
        for name, r in (("daemon", results[c]), ("ws/json", over_ws[c]), ("echo", floor[c])):
            print(f"{c:>7} {name:>7} {r['p50_ms']:>8.3f} {r['p99_ms']:>8.3f} {r['rps']:>9.0f}")
        print(f"{c:>7} {'ratio':>7} WebSocket/JSON p50 / ZeroMQ p50 = "
              f"{over_ws[c]['p50_ms'] / results[c]['p50_ms']:.2f}  (goal <= 1.5)")
        ratio = results[c]["p50_ms"] / (floor[c]["p50_ms"] + compute)
        print(f"{c:>7} {'ratio':>7} daemon p50 / (echo p50 + compute) = {ratio:.2f}  "
              f"(goal <= 3)")
        if c > 1:
            # Cheap commands run in the one front process, so concurrent requests queue
            # behind each other's compute: the floor for c clients is c computes.
            queued = results[c]["p50_ms"] / (floor[c]["p50_ms"] + c * compute)
            print(f"{c:>7} {'ratio':>7} daemon p50 / (echo p50 + {c} x compute) = "
                  f"{queued:.2f}")


if __name__ == "__main__":
    main()
