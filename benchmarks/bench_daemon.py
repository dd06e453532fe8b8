"""Daemon round-trip benchmark: ``python benchmarks/bench_daemon.py``.

Measures ``legal_moves`` over ZeroMQ (DEALER -> the daemon's ROUTER, msgpack)
with 1 and 8 concurrent clients, beside a bare ZeroMQ ROUTER echo server of
the same message sizes in its own process, asked by the same client processes
in the same interleaved rounds (the transport's floor, measured under the same
load as the daemon: the machine's speed drifts during a run), and the
engine's own compute time for the same request in-process (decode, legal
plays, result, encode). Prints p50/p99 latency, throughput and the ratio of
the daemon's p50 to (echo floor + compute).

The WebSocket column: the same request to the same daemon in the same run over
its WebSocket endpoint, as JSON text frames (what a browser sends), with the
same reply content; the goal is a p50 within 1.5x of the ZeroMQ p50. Both
client sides do the least a client can: send the encoded request, read the
whole reply frame, parse neither (the WebSocket client frames by hand on a
plain socket, as libzmq frames for the DEALER), each client in its own process
(as separate programs would be: no client waits for another's interpreter
lock). ZeroMQ and WebSocket are measured in alternating rounds (`--rounds`),
so that on a shared machine both columns see the same load; the echo floor is
measured in the same rounds. Also printed: the same request through the front's
handler in-process (`Service.handle`, no transport: what the front adds to the compute
by its own bookkeeping), and the time to write the reply in msgpack, in JSON, and in
JSON by the standard library's encoder.
`--replicas N` starts the daemon with N front replicas (default: its own default);
the run waits for them to be up before it measures.
`--cpu-hog`: every round is measured twice, without and then with one CPU-bound
process (a busy loop at normal priority) running beside the daemon, and the ratios are
printed for both halves and against each other (paired: the same rounds, the same
daemon, the echo floor measured under the same hog).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import itertools
import multiprocessing
import os
import shlex
import socket
import statistics
import struct
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import msgpack
import zmq
from websockets.frames import apply_mask

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from jacquetd_protocol import json_wire  # noqa: E402
from jacquetd_protocol.codec import decode_request, encode_reply, encode_request  # noqa: E402
from jacquetd_protocol.commands import arguments  # noqa: E402
from jacquetd_protocol.messages import Encoding, Reply, Request  # noqa: E402
from procfs import cpu_seconds  # noqa: E402

from jacquetd.daemon import front_commands, registry  # noqa: E402
from jacquetd.daemon.config import Config  # noqa: E402
from jacquetd.daemon.engine_commands import WorkerCall  # noqa: E402
from jacquetd.daemon.service import Service  # noqa: E402
from jacquetd.daemon.wire import Outgoing, wire_bytes  # noqa: E402

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


class RawWebSocket:
    """A minimal blocking WebSocket client on a plain socket, in the caller's thread.

    The counterpart of the ZeroMQ DEALER: the handshake, then one masked text frame per
    request and the reply frame read whole (not parsed), with no thread of its own and
    no per-message work beyond the framing. (websockets' sync client reads in a
    background thread, which costs two thread switches per reply.)"""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.sock = socket.create_connection((parts.hostname, parts.port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET {parts.path or '/'} HTTP/1.1\r\nHost: {parts.netloc}\r\n"
                           "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                           f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                           "\r\n").encode())
        self.buffer = b""
        while b"\r\n\r\n" not in self.buffer:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise ConnectionError("closed during the handshake")
            self.buffer += chunk
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        if not head.startswith(b"HTTP/1.1 101"):
            raise ConnectionError(head.decode(errors="replace"))

    def send_text(self, payload: bytes) -> None:
        self.sock.sendall(self.frame(0x1, payload))

    def send_frame(self, frame: bytes) -> None:
        """Send a frame made by `frame` (as the DEALER sends an encoded request)."""
        self.sock.sendall(frame)

    @staticmethod
    def frame(opcode: int, payload: bytes) -> bytes:
        """A client frame: FIN, `opcode`, a fresh random mask, the masked payload."""
        mask = os.urandom(4)
        size = len(payload)
        if size < 126:
            header = struct.pack("!BB", 0x80 | opcode, 0x80 | size)
        elif size < 65536:
            header = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, size)
        else:
            header = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, size)
        return header + mask + apply_mask(payload, mask)

    def _read(self, size: int) -> bytes:
        while len(self.buffer) < size:
            chunk = self.sock.recv(max(65536, size - len(self.buffer)))
            if not chunk:
                raise ConnectionError("closed")
            self.buffer += chunk
        data, self.buffer = self.buffer[:size], self.buffer[size:]
        return data

    def recv(self) -> bytes:
        """The payload of the next data frame (the daemon sends each reply in one frame);
        pings (the daemon's heartbeats) are answered on the way."""
        if not self.buffer:  # the usual case: one read holds one whole text frame
            data = self.sock.recv(262144)
            if len(data) > 4 and data[0] == 0x81 and data[1] == 126 \
                    and len(data) == 4 + (data[2] << 8 | data[3]):
                return data[4:]
            if not data:
                raise ConnectionError("closed")
            self.buffer = data
        while True:
            first, second = self._read(2)
            size = second & 0x7F
            if size == 126:
                size = struct.unpack("!H", self._read(2))[0]
            elif size == 127:
                size = struct.unpack("!Q", self._read(8))[0]
            payload = self._read(size)
            opcode = first & 0x0F
            if opcode == 0x9:  # ping
                self.sock.sendall(self.frame(0xA, payload))
            elif opcode in (0x1, 0x2) and first & 0x80:
                return payload
            elif opcode != 0xA:
                raise ConnectionError(f"unexpected frame 0x{first:02x}")

    def close(self) -> None:
        self.sock.close()


def process_client(kind: str, endpoint: str, n: int, out: Any, barrier: Any) -> None:
    """One client process on one transport: warm up, wait for the others, then `n`
    requests one at a time; puts its latencies on `out`. Both kinds send a request
    encoded beforehand (the WebSocket one also framed and masked beforehand, 16 frames
    with their own masks in turn) and read the whole reply without parsing it."""
    if kind == "zmq":
        ctx = zmq.Context()
        sock = ctx.socket(zmq.DEALER)
        sock.setsockopt(zmq.LINGER, 0)
        sock.connect(endpoint)
        frame = encode_request(REQUEST)

        def one() -> None:
            sock.send(frame)
            sock.recv()
    else:
        ws = RawWebSocket(endpoint)
        frames = itertools.cycle([ws.frame(0x1, encode_request(JSON_REQUEST))
                                  for _ in range(16)])

        def one() -> None:
            ws.send_frame(next(frames))
            ws.recv()
    for _ in range(50):  # warm-up
        one()
    barrier.wait()
    local = []
    clock = time.perf_counter
    for _ in range(n):
        t0 = clock()
        one()
        local.append(clock() - t0)
    out.put(local)
    if kind == "zmq":
        sock.close(0)
        ctx.term()
    else:
        ws.close()


def run_processes(kind: str, endpoint: str, clients: int,
                  n: int) -> tuple[list[float], float]:
    """`clients` client processes (one interpreter each, as separate programs would be)
    on one transport, `n` requests each: their latencies and the wall time."""
    mp = multiprocessing.get_context("fork")
    barrier = mp.Barrier(clients + 1)
    out = mp.Queue()
    procs = [mp.Process(target=process_client, args=(kind, endpoint, n, out, barrier))
             for _ in range(clients)]
    for proc in procs:
        proc.start()
    barrier.wait()
    t0 = time.perf_counter()
    latencies: list[float] = []
    for _ in procs:
        latencies.extend(out.get(timeout=300))
    elapsed = time.perf_counter() - t0
    for proc in procs:
        proc.join(10)
    return latencies, elapsed


def cpu_hog() -> None:
    """A CPU-bound process: a busy loop until it is stopped."""
    x = 0
    while True:
        x = (x * 1103515245 + 12345) & 0xFFFFFFFF


def start_hog() -> multiprocessing.Process:
    hog = multiprocessing.get_context("fork").Process(target=cpu_hog, daemon=True)
    hog.start()
    return hog


def measure_interleaved(targets: list[tuple[str, str]], clients: int, n: int,
                        rounds: int, computes: list[float],
                        hogged: list[bool] | None = None) -> list[dict[str, float]]:
    """Summaries of each (kind, endpoint) target measured in interleaved rounds (`n /
    rounds` requests per client each, the order rotated every round), so that on a
    shared machine, whose speed drifts during a run, every column sees the same load:
    the daemon over ZeroMQ and over WebSocket, and the echo floor they are judged by.
    The in-process compute time is measured in every round too (appended to
    `computes`). `hogged[i]`: target i is measured with a CPU hog running."""
    latencies: list[list[float]] = [[] for _ in targets]
    elapsed = [0.0] * len(targets)
    per_round = max(1, n // rounds)
    for r in range(rounds):
        computes.append(compute_time(500))
        shift = r % len(targets)
        for i in [*range(shift, len(targets)), *range(shift)]:
            hog = start_hog() if hogged and hogged[i] else None
            try:
                lat, took = run_processes(targets[i][0], targets[i][1], clients, per_round)
            finally:
                if hog is not None:
                    hog.terminate()
                    hog.join(10)
            latencies[i].extend(lat)
            elapsed[i] += took
    return [summary(lat, took) for lat, took in zip(latencies, elapsed, strict=True)]


def summary(latencies: list[float], elapsed: float) -> dict[str, float]:
    return {"p50_ms": percentile(latencies, 50) * 1e3, "p99_ms": percentile(latencies, 99) * 1e3,
            "rps": len(latencies) / elapsed}


def compute_time(n: int = 2000, request: Request = REQUEST) -> float:
    """Median in-process time of what the daemon does for one request besides transport:
    decode, then the reply as the daemon writes it (the msgpack reply written directly,
    `registry.packed_reply`, else the result map and its encoding). A worker command is
    timed as its `prepare` and its worker handler, called in this process."""
    frame = encode_request(request)
    route = registry.ROUTES[request.cmd]
    call = WorkerCall(deadline=None, seed=1, stop_flag=lambda: False, report=lambda _: None)
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        req = decode_request(frame)
        args = arguments(req)
        if route.worker is not None and route.prepare is not None:
            result = route.worker(route.prepare(None, args), call)
            encode_reply(Reply.success(req.id, result), "msgpack")
        elif registry.packed_reply(req.cmd, req.id, args, req.encoding) is None:
            assert route.front is not None, f"{req.cmd} is not answered in the front"
            result = route.front(None, args)  # type: ignore[arg-type]
            encode_reply(Reply.success(req.id, result), "msgpack")
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def handler_time(n: int = 2000) -> float:
    """Median in-process time of the same request through the front's handler, without
    transport or event loop turns: decode, then `Service.handle` (command lookup,
    arguments, the reply as `compute_time` writes it, the statistics) and the reply's
    bytes handed to the peer. Its excess over `compute_time` is the front's own
    bookkeeping for a request."""
    frame = encode_request(REQUEST)

    class KeptPeer:
        key = "bench"

        def deliver(self, message: Outgoing, encoding: Encoding) -> None:
            self.reply = wire_bytes(message, encoding)

        def end_session(self) -> None:
            pass

    async def timed() -> float:
        # no worker pool (legal_moves needs none) and no replicas: answered here
        service = Service(Config(), None)  # type: ignore[arg-type]
        peer = KeptPeer()
        times = []
        for _ in range(n):
            t0 = time.perf_counter()
            service.handle(peer, decode_request(frame))
            times.append(time.perf_counter() - t0)
        return statistics.median(times) * 1e3

    return asyncio.run(timed())


def encode_times(n: int = 2000) -> dict[str, float]:
    """Median time (ms) to write the legal_moves reply: msgpack, JSON as the daemon writes
    it (orjson when installed), JSON by the standard library's encoder alone, and text."""
    req = decode_request(encode_request(REQUEST))
    reply = Reply.success(req.id, front_commands.handle_legal_moves(None, arguments(req)))  # type: ignore[arg-type]
    obj = {"id": reply.id, "ok": True, "result": reply.result}
    ways = {"msgpack": lambda: encode_reply(reply, "msgpack"),
            "json": lambda: encode_reply(reply, "json"),
            "json (standard library)": lambda: json_wire._dump_std(obj),
            "text": lambda: encode_reply(reply, "text")}
    out = {}
    for name, way in ways.items():
        times = []
        for _ in range(n):
            t0 = time.perf_counter()
            way()
            times.append(time.perf_counter() - t0)
        out[name] = statistics.median(times) * 1e3
    return out


def ask(endpoint: str, request: Request) -> bytes:
    """One request on a fresh DEALER (in a context ended before client processes fork)."""
    ctx = zmq.Context()
    sock = ctx.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.connect(endpoint)
    sock.send(encode_request(request))
    reply = sock.recv()
    sock.close(0)
    ctx.term()
    return reply


def start_daemon(extra: list[str]) -> tuple[subprocess.Popen[bytes], str, str]:
    """The daemon, its ZeroMQ endpoint and its WebSocket URL."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.Popen([sys.executable, "-m", "jacquetd", "serve", "--bind",
                             "tcp://127.0.0.1:0", "--tcp", "off", "--gnubg", "off",
                             "--ws", "127.0.0.1:0", "--db", "off",
                             "--log-level", "warning", *extra], cwd=REPO, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdout is not None
    line = proc.stdout.readline().decode()
    words = dict(w.split("=", 1) for w in line.split() if "=" in w)
    return proc, words["zmq"], f"ws://{words['ws']}/ws"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=3000, help="requests per client")
    parser.add_argument("--rounds", type=int, default=10,
                        help="ZeroMQ and WebSocket are measured in this many alternating "
                        "rounds (default 10)")
    parser.add_argument("--replicas", type=int, default=None,
                        help="the daemon's --replicas (default: its own default)")
    parser.add_argument("--cpu-hog", action="store_true",
                        help="also measure every round with a CPU-bound process running "
                        "beside the daemon, and compare (paired, same rounds)")
    parser.add_argument("--daemon-args", default="",
                        help="more flags for the daemon (split like a shell line)")
    opts = parser.parse_args()

    extra = [] if opts.replicas is None else ["--replicas", str(opts.replicas)]
    extra += shlex.split(opts.daemon_args)
    daemon, endpoint, ws_url = start_daemon(extra)
    echo: multiprocessing.Process | None = None
    try:
        reply_size = len(ask(endpoint, REQUEST))
        # the floor: a bare ROUTER echo server in its own process, asked by the same
        # client processes in the same rounds as the daemon (idle while the daemon is
        # measured, as the daemon is while the echo is)
        queue: multiprocessing.Queue[str] = multiprocessing.Queue()
        echo = multiprocessing.Process(target=echo_server, args=(queue, reply_size))
        echo.start()
        echo_endpoint = queue.get(timeout=30)
        # the front replicas start when requests first wait in the front: a burst of
        # eight clients, then wait for them to be up (at most 60 s)
        run_processes("zmq", endpoint, 8, 100)
        deadline = time.monotonic() + 60
        while True:
            stats = msgpack.unpackb(ask(endpoint, Request(2, "stats", {}, "msgpack")))
            replicas = len(stats["result"].get("replica_pids", []))
            if replicas == (opts.replicas if opts.replicas is not None else 2) \
                    or time.monotonic() > deadline or opts.replicas == 0:
                break
            time.sleep(0.2)
        request_size = len(encode_request(REQUEST))
        results: dict[int, dict[str, float]] = {}
        over_ws: dict[int, dict[str, float]] = {}
        floor: dict[int, dict[str, float]] = {}
        replica_pids = stats["result"].get("replica_pids", [])
        pids = [daemon.pid, *replica_pids]
        cpu_before = [cpu_seconds(pid) for pid in pids]
        computes: list[float] = []
        hog_results: dict[int, dict[str, float]] = {}
        hog_floor: dict[int, dict[str, float]] = {}
        for c in (1, 8):
            if opts.cpu_hog:
                results[c], floor[c], hog_results[c], hog_floor[c] = measure_interleaved(
                    [("zmq", endpoint), ("zmq", echo_endpoint)] * 2, c, opts.n,
                    opts.rounds, computes, hogged=[False, False, True, True])
                over_ws[c] = results[c]
                continue
            results[c], over_ws[c], floor[c] = measure_interleaved(
                [("zmq", endpoint), ("ws", ws_url), ("zmq", echo_endpoint)], c, opts.n,
                opts.rounds, computes)
        # each process idles while the others are measured: its CPU is its own rounds'
        cpu_used = [cpu_seconds(pid) - before
                    for pid, before in zip(pids, cpu_before, strict=True)]
        served = sum(2 * c * max(1, opts.n // opts.rounds) * opts.rounds for c in (1, 8))
    finally:
        daemon.terminate()
        daemon.wait(30)
        if echo is not None:
            stop = zmq.Context.instance().socket(zmq.DEALER)
            stop.setsockopt(zmq.LINGER, 1000)
            stop.connect(echo_endpoint)
            stop.send(b"stop")
            echo.join(10)
            stop.close()
    compute = statistics.median(computes)
    handler = handler_time()
    encodes = encode_times()

    print(f"legal_moves round trip over ZeroMQ/msgpack on loopback; request {request_size} B, "
          f"reply {reply_size} B; {opts.n} requests per client; {os.cpu_count()} cores; "
          f"front replicas up: {replicas}")
    print(f"engine compute per request (in-process decode + legal plays + encode), "
          f"p50: {compute:.3f} ms (median of the rounds' medians, "
          f"{min(computes):.3f}-{max(computes):.3f})")
    print(f"the same through the front's handler in-process (decode + Service.handle + "
          f"reply bytes), p50: {handler:.3f} ms (the front's bookkeeping: "
          f"{handler - compute:+.3f} ms beside the compute)")
    print("writing the reply, p50: " + ", ".join(f"{name} {ms:.3f} ms"
                                                  for name, ms in encodes.items()))
    print(f"CPU per request served (both transports, all rounds): front process "
          f"{cpu_used[0] / served * 1e3:.3f} ms, replicas "
          + (", ".join(f"{used / served * 1e3:.3f}" for used in cpu_used[1:]) or "none")
          + " ms")
    if opts.cpu_hog:
        print("with and without a CPU hog beside the daemon (paired rounds), ZeroMQ:")
        print(f"{'clients':>7} {'hog':>4} {'daemon p50':>10} {'echo p50':>9} {'ratio':>6}")
        for c in (1, 8):
            plain = results[c]["p50_ms"] / (floor[c]["p50_ms"] + compute)
            hogged = hog_results[c]["p50_ms"] / (hog_floor[c]["p50_ms"] + compute)
            print(f"{c:>7} {'no':>4} {results[c]['p50_ms']:>10.3f} {floor[c]['p50_ms']:>9.3f} "
                  f"{plain:>6.2f}")
            print(f"{c:>7} {'yes':>4} {hog_results[c]['p50_ms']:>10.3f} "
                  f"{hog_floor[c]['p50_ms']:>9.3f} {hogged:>6.2f}")
            print(f"{c:>7} ratio with the hog / ratio without = {hogged / plain:.2f}  "
                  "(goal <= 1.5)")
        return
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
