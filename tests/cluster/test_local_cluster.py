"""`jacquet-league run --local-cluster N` starts a closed Dask cluster: TLS with a
certificate of its own (an anonymous client is refused, so no other local user can run
code as the league's user), loopback only, and no dashboard or other HTTP route."""

from __future__ import annotations

import asyncio
import urllib.error
import urllib.request
from typing import Any

import pytest

pytest.importorskip("distributed")


def _status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=5) as reply:
            return int(reply.status)
    except urllib.error.HTTPError as exc:
        return exc.code


async def _probe() -> dict[str, Any]:
    from distributed import Client
    from distributed.security import Security
    from jacquetd_clients.league.cluster import _client

    client, cluster = await _client(None, 1)
    try:
        out: dict[str, Any] = {"address": cluster.scheduler_address}
        out["sum"] = await client.submit(sum, [1, 2, 3])  # the league's own client works
        out["services"] = dict(client.scheduler_info().get("services", {}))
        out["http"] = {}
        for name, port in out["services"].items():
            for path in ("/status", "/health", "/info/main/workers.html", "/metrics"):
                # the scheduler answers on this event loop: ask from another thread
                out["http"][f"{name}{path}"] = await asyncio.to_thread(
                    _status, f"http://127.0.0.1:{port}{path}")
        anonymous = []
        host_port = cluster.scheduler_address.split("://", 1)[1]
        # another local user: plain TCP, or TLS with a certificate of their own
        for address, security in ((f"tcp://{host_port}", None),
                                  (cluster.scheduler_address, Security.temporary())):
            try:
                stranger = await Client(address, asynchronous=True, timeout=5,
                                        security=security)
            except (OSError, TimeoutError, RuntimeError) as exc:
                anonymous.append(type(exc).__name__)
            else:
                anonymous.append("connected")
                await stranger.close()
        out["anonymous"] = anonymous
        return out
    finally:
        await client.close()
        await cluster.close()


def test_a_local_cluster_is_closed_to_anonymous_clients_and_serves_no_dashboard() -> None:
    seen = asyncio.run(asyncio.wait_for(_probe(), 180))
    assert seen["sum"] == 6
    assert seen["address"].startswith("tls://127.0.0.1:"), seen
    assert len(seen["anonymous"]) == 2 and "connected" not in seen["anonymous"], seen
    assert 8787 not in seen["services"].values(), seen
    assert seen["http"] and all(code == 404 for code in seen["http"].values()), seen
