"""Our daemon passes every conformance vector of protocol/vectors/, on each endpoint.

The vectors are played by the same runner a third party would use
(`python -m jacquetd_protocol.conformance`), against a real `jacquetd serve` process.
"""

from __future__ import annotations

import datetime
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import slow_budget_s

REPO = Path(__file__).parents[2]


def run_vectors(*endpoint: str, timeout: float = 300) -> str:
    from tests.conftest import daemon_env

    proc = subprocess.run([sys.executable, "-m", "jacquetd_protocol.conformance", *endpoint],
                          cwd=REPO, capture_output=True, text=True, timeout=timeout,
                          env=daemon_env())
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-4000:]
    assert " 0 failed" in out, out[-4000:]
    return out


@pytest.mark.parametrize("endpoint", ["zmq", "tcp"])
def test_every_vector_passes(endpoint: str, start_jacquetd: Callable[..., object],
                             tmp_path: Path) -> None:
    daemon = start_jacquetd("--test-levels", "--db", str(tmp_path / "matches.sqlite3"))
    gnubg = "{}:{}".format(*daemon.gnubg)  # type: ignore[attr-defined]
    if endpoint == "zmq":
        out = run_vectors("--connect", daemon.zmq, "--gnubg", gnubg)  # type: ignore[attr-defined]
    else:
        out = run_vectors("--tcp", "{}:{}".format(*daemon.tcp))  # type: ignore[attr-defined]
    assert "PASS" in out


STDIO_SHARDS = 3  # the stdio run in three parts, which parallel test runs spread


def stdio_shard_today() -> int:
    """The one stdio shard the bounded form runs: another each day, so that successive
    days cover every vector (an engine starts for each connection on stdio, which makes
    the whole run the suite's costliest check)."""
    return datetime.date.today().toordinal() % STDIO_SHARDS


@pytest.mark.slow
@pytest.mark.parametrize("shard", range(STDIO_SHARDS))
def test_every_vector_passes_over_stdio(shard: int, tmp_path: Path) -> None:
    """Every vector over stdio, in three shards; in the bounded form of the slow checks
    (`JACQUETD_SLOW_BUDGET`, as in CI) one shard a day (`stdio_shard_today`): every
    vector runs on ZeroMQ, TCP and WebSocket in every run."""
    if slow_budget_s() is not None and shard != stdio_shard_today():
        pytest.skip(f"bounded form: stdio shard {stdio_shard_today()} of {STDIO_SHARDS} "
                    "runs today (JACQUETD_SLOW_BUDGET= runs them all)")
    # an engine on stdio hosts matches only when given a database; every vector spawns its
    # own engine (seconds each on a loaded machine: longer bounds than on the daemon), each
    # with a database of its own ({n}), so that the next one starts while a vector runs
    # one worker each: a process fewer to start per vector
    out = run_vectors("--timeout", "30", "--shard", f"{shard}/{STDIO_SHARDS}",
                      "--spawn", f"{sys.executable} -m jacquetd stdio "
                      f"--workers 1 --db {tmp_path / 'matches-{n}.sqlite3'}", timeout=900)
    assert "PASS" in out
