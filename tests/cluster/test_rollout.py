"""The `rollout` command on a real daemon (its worker pool) and on a real Dask cluster:
the same seed gives the same figures, to the last digit, wherever the trials ran."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from typing import Any

import pytest
from jacquetd_clients.client import JacquetClient
from jacquetd_clients.errors import EngineError

from jacquetd.bots import rollouts
from jacquetd.rules import Position

DAEMON = [sys.executable, "-m", "jacquetd", "stdio", "--workers", "2"]
ARGS: dict[str, Any] = {"position": "start:backgammon", "dice": [3, 1],
                        "candidates": ["8/5 6/5", "24/23 13/10"], "trials": 72, "seed": 4,
                        "truncate": 3}


def local_figures() -> dict[str, object]:
    pos = Position.initial("backgammon", cube=False).with_dice((3, 1))
    spec = rollouts.plan(pos, candidates=ARGS["candidates"], trials=72, seed=4, truncate=3)
    return rollouts.rollout_local(spec)


async def stream(client: JacquetClient, **args: Any) -> tuple[list[dict[str, Any]], Any]:
    """Every partial of a request, and its final result."""
    _rid, call = await client._send("rollout", args, True)
    partials = []
    while True:
        getter = asyncio.ensure_future(call.partials.get())
        done, _ = await asyncio.wait({getter, call.final}, timeout=300,
                                     return_when=asyncio.FIRST_COMPLETED)
        if getter in done:
            partials.append(getter.result())
            continue
        getter.cancel()
        return partials, call.final.result()


def same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    keys = ("trials_done", "trials", "lines", "done")
    return {k: a[k] for k in keys} == {k: b[k] for k in keys}


def test_a_rollout_in_the_worker_pool_equals_the_local_one() -> None:
    async def main() -> None:
        async with await JacquetClient.spawn(DAEMON, timeout=120) as client:
            assert client.supports("rollout")
            partials, final = await stream(client, **ARGS)
            assert final["where"] == "local" and final["done"]
            assert same(final, local_figures())
            assert [p["trials_done"] for p in partials] == [36]
            with pytest.raises(EngineError) as bad:
                await client.request("rollout", position="start:backgammon", dice=[3, 1],
                                     candidates=["8/2"], trials=36)
            assert bad.value.code == "illegal_move" and bad.value.field == "candidates"
            with pytest.raises(EngineError) as bad:
                await client.request("rollout", position="start", candidates=["8/4"])
            assert bad.value.field == "dice"
            await client.ping()  # still serving

    asyncio.run(main())


def test_cancel_ends_a_rollout_with_what_is_done() -> None:
    async def main() -> None:
        async with await JacquetClient.spawn(DAEMON, timeout=120) as client:
            rid, call = await client._send("rollout", {"position": "start:jacquet",
                                                       "trials": 36 * 50, "truncate": 2}, True)
            first = await asyncio.wait_for(call.partials.get(), 120)
            assert first["trials_done"] >= 36 and not first["done"]
            await client.cancel(rid)
            final = await asyncio.wait_for(call.final, 60)
            assert final["stopped"] is True and final["stop_reason"] == "cancelled"
            assert not final["done"]
            assert final["trials_done"] % 36 == 0 and final["trials_done"] >= 36
            assert final["lines"][0]["std_error"] is not None

    asyncio.run(main())


def test_bot_match_refuses_what_it_cannot_play() -> None:
    async def main() -> None:
        async with await JacquetClient.spawn(DAEMON, timeout=120) as client:
            for args, field in (({"levels": ["random", "nobody"], "seed": 1}, "levels"),
                                ({"levels": ["random"], "seed": 1}, "levels"),
                                ({"levels": ["random", "random"], "seed": 1,
                                  "variant": "chess"}, "variant")):
                with pytest.raises(EngineError) as bad:
                    await client.request("bot_match", **args)
                assert bad.value.code == "bad_argument" and bad.value.field == field
            played = await client.request("bot_match", levels=["random", "heuristic"],
                                          seed=3, swap=True, luck=False)
            assert len(played["matches"]) == 2
            assert played["matches"][1]["levels"] == ["heuristic", "random"]

    asyncio.run(main())


@pytest.mark.slow
def test_a_rollout_on_the_cluster_equals_the_local_one(dask_cluster: Any) -> None:
    cluster = dask_cluster(2)
    local = local_figures()
    cli = subprocess.run([sys.executable, "-m", "jacquetd", "rollout", "start:backgammon",
                          "--dice", "31", "--candidates", "8/5 6/5", "24/23 13/10",
                          "--trials", "72", "--seed", "4", "--truncate", "3", "--json", "-q",
                          "--scheduler", cluster.address],
                         capture_output=True, text=True, timeout=300, check=True)
    assert same(json.loads(cli.stdout), local)

    async def main() -> None:
        daemon = [*DAEMON, "--scheduler", cluster.address]
        async with await JacquetClient.spawn(daemon, timeout=120) as client:
            _partials, final = await stream(client, **ARGS)
            assert final["where"] == "cluster"
            assert same(final, local)

    asyncio.run(main())
