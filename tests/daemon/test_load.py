"""Load: 50 concurrent clients on loopback for a fixed time (default 10 s, set
JACQUETD_LOAD_SECONDS), a mix of cheap and worker commands, a worker killed
half-way. Every request gets exactly one final reply; memory stays bounded."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
import zmq
import zmq.asyncio
from jacquetd_protocol.codec import decode_reply, encode_request
from jacquetd_protocol.messages import Reply, Request

from tests.conftest import DaemonProcess, slow_budget_s
from tests.daemon.wire import ZmqClient

CLIENTS = 50
IN_FLIGHT_PER_CLIENT = 2
VARIANTS = ("start", "start:jacquet-be", "start:backgammon")


def load_seconds() -> float:
    seconds = float(os.environ.get("JACQUETD_LOAD_SECONDS", "10"))
    budget = slow_budget_s()
    return seconds if budget is None else min(seconds, budget)


def rss_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def make_request(rng: random.Random, rid: int) -> Request:
    roll = [rng.randint(1, 6), rng.randint(1, 6)]
    pos = rng.choice(VARIANTS)
    r = rng.random()
    if r < 0.6:
        return Request(rid, "legal_moves", {"position": pos, "dice": roll})
    if r < 0.9:
        return Request(rid, "best_move", {"position": pos, "dice": roll, "level": "random",
                                          "seed": rid})
    return Request(rid, "analyze", {"position": pos, "dice": roll, "plies": 0})


async def client_loop(ctx: zmq.asyncio.Context, endpoint: str, index: int, stop_at: float,
                      results: dict[str, Any]) -> None:
    sock = ctx.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.connect(endpoint)
    rng = random.Random(index)
    sent: dict[int, str] = {}
    finals: Counter[int] = Counter()
    codes: Counter[str] = Counter()
    next_id = index * 10_000_000
    outstanding = 0
    try:
        while True:
            now = time.monotonic()
            while now < stop_at and outstanding < IN_FLIGHT_PER_CLIENT:
                next_id += 1
                req = make_request(rng, next_id)
                await sock.send(encode_request(req))
                sent[next_id] = req.cmd
                outstanding += 1
            if outstanding == 0:
                break
            if not await sock.poll(30_000):
                break  # lost replies: counted below
            msg = decode_reply(await sock.recv())
            if not isinstance(msg, Reply):
                continue
            assert isinstance(msg.id, int)
            finals[msg.id] += 1
            outstanding -= 1
            codes["ok" if msg.ok else f"{sent.get(msg.id)}:{msg.error['code']}"] += 1
        # Anything arriving late would be a second final reply.
        while await sock.poll(200):
            msg = decode_reply(await sock.recv())
            if isinstance(msg, Reply) and isinstance(msg.id, int):
                finals[msg.id] += 1
    finally:
        sock.close(0)
    results["sent"] += len(sent)
    results["lost"] += sum(1 for rid in sent if finals[rid] == 0)
    results["duplicated"] += sum(1 for rid in sent if finals[rid] > 1)
    results["unknown"] += sum(1 for rid in finals if rid not in sent)
    results["codes"].update(codes)


async def run_load(daemon: DaemonProcess, seconds: float) -> dict[str, Any]:
    ctx = zmq.asyncio.Context()
    results: dict[str, Any] = {"sent": 0, "lost": 0, "duplicated": 0, "unknown": 0,
                               "codes": Counter()}
    stop_at = time.monotonic() + seconds
    tasks = [asyncio.create_task(client_loop(ctx, daemon.zmq, i, stop_at, results))
             for i in range(CLIENTS)]

    async def killer() -> None:
        await asyncio.sleep(seconds / 2)
        probe = ZmqClient(daemon.zmq)
        try:
            pid = probe.call("stats").raise_for_error()["worker_pids"][0]
        finally:
            probe.close()
        os.kill(pid, signal.SIGKILL)
        results["killed"] = pid

    await asyncio.gather(*tasks, killer())
    ctx.term()
    return results


@pytest.mark.slow
def test_fifty_clients_with_a_worker_killed(start_jacquetd: Callable[..., DaemonProcess]) -> None:
    daemon = start_jacquetd("--workers", "2")
    seconds = load_seconds()
    probe = ZmqClient(daemon.zmq)
    for _ in range(200):  # warm up before measuring memory
        probe.call("legal_moves", position="start:backgammon", dice=[6, 5])
    rss_before = rss_kb(daemon.proc.pid)
    probe.close()

    results = asyncio.run(run_load(daemon, seconds))

    assert results["sent"] > CLIENTS * 10
    assert results["lost"] == 0, results
    assert results["duplicated"] == 0, results
    assert results["unknown"] == 0, results
    allowed = {"ok", "analyze:bad_argument", "best_move:internal", "analyze:internal"}
    assert set(results["codes"]) <= allowed, results["codes"]
    assert results["codes"]["ok"] > results["sent"] // 2
    probe = ZmqClient(daemon.zmq)
    try:
        stats = probe.call("stats").raise_for_error()
        assert stats["worker_restarts"] >= 1
        assert results["killed"] not in stats["worker_pids"]
        assert stats["inflight"] == 0
        assert probe.call("best_move", position="start", dice=[3, 1], level="random").ok
    finally:
        probe.close()
    rss_after = rss_kb(daemon.proc.pid)
    assert rss_after - rss_before < 100_000, (rss_before, rss_after)  # kB
    print(f"\nload: {results['sent']} requests in {seconds:.0f} s from {CLIENTS} clients, "
          f"codes {dict(results['codes'])}, front RSS {rss_before} -> {rss_after} kB")
