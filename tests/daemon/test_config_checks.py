"""Configuration is checked before the daemon starts: files read with a size limit, the
worker count capped, every value of the wrong type or out of range refused with a message
that names it (exit status 2, no traceback), quickly, before any compile."""

from __future__ import annotations

import math
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from jacquetd.daemon import config as configuration
from jacquetd.daemon.config import _TOP_FIELDS, Config, ConfigError, apply_settings
from tests.conftest import REPO, daemon_env

#: A refused start reads nothing large: a child that tries is stopped by this memory cap
#: (address space) instead of taking the machine's memory.
MEMORY_CAP = 3 << 30
ENDPOINTS = ["--bind", "tcp://127.0.0.1:0", "--tcp", "off", "--gnubg", "off", "--ws", "off",
             "--db", "off"]


def _cap_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def refused(*args: str, env: dict[str, str] | None = None) -> str:
    """Run `jacquetd serve ARGS`, which must refuse to start (exit 2, one line naming the
    problem, no traceback) within 30 s; its message."""
    full_env = daemon_env()
    full_env.update(env or {})
    t0 = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "jacquetd", "serve", *args],
                          capture_output=True, text=True, cwd=REPO, env=full_env, timeout=30,
                          preexec_fn=_cap_memory)
    took = time.monotonic() - t0
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("jacquetd: "), lines
    assert "fastgen_ready" not in proc.stderr and proc.stdout == ""
    print(f"refused in {took:.2f} s: {lines[0]}")
    return lines[0]


def test_the_daemon_starts_under_the_memory_cap_of_these_tests(tmp_path: Path) -> None:
    """The cap `refused` sets is no cause of failure by itself: a daemon starts under it."""
    proc = subprocess.Popen([sys.executable, "-m", "jacquetd", "serve", *ENDPOINTS,
                             "--workers", "1"], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, cwd=REPO, env=daemon_env(), text=True,
                            preexec_fn=_cap_memory)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().startswith("jacquetd listening ")
    finally:
        proc.terminate()
        assert proc.wait(30) == 0


@pytest.mark.parametrize(("flags", "what"), [
    (["--config", "/dev/zero"], "configuration file /dev/zero"),
    (["--ws", "127.0.0.1:0", "--ws-token-file", "/dev/zero"], "--ws-token-file /dev/zero"),
    (["--curve-secret", "/dev/zero", "--curve-clients", "."], "--curve-secret /dev/zero"),
])
def test_an_endless_file_is_refused_after_a_bounded_read(flags: list[str], what: str) -> None:
    message = refused(*ENDPOINTS[:-4], *flags, "--workers", "1", "--db", "off")
    assert message.startswith(f"jacquetd: {what}: more than the "), message


def test_a_large_configuration_file_is_refused_by_its_size(tmp_path: Path) -> None:
    big = tmp_path / "big.toml"
    big.write_bytes(b"# " + b"x" * (2 << 20) + b"\n")
    message = refused("--config", str(big), *ENDPOINTS)
    assert f"configuration file {big}: {big.stat().st_size} bytes" in message


def test_a_worker_count_beyond_the_machine_is_refused() -> None:
    message = refused(*ENDPOINTS, env={"JACQUETD_WORKERS": "100000"})
    assert "$JACQUETD_WORKERS" in message and f"at most {configuration.process_cap()}" in message
    message = refused(*ENDPOINTS, "--workers", "100000")
    assert "workers: at most" in message
    message = refused(*ENDPOINTS, "--replicas", "100000")
    assert "replicas: at most" in message


def test_ws_origins_of_the_wrong_type_is_named(tmp_path: Path) -> None:
    config = tmp_path / "j.toml"
    config.write_text("ws_origins = 123\n")
    message = refused("--config", str(config), *ENDPOINTS)
    assert f"{config}: ws_origins: expected a list of origins" in message and "123" in message


def test_an_unknown_gnubg_level_is_refused_at_start() -> None:
    message = refused(*ENDPOINTS, env={"JACQUETD_GNUBG_LEVEL": "nope"})
    assert "$JACQUETD_GNUBG_LEVEL='nope'" in message and "no bot level 'nope'" in message
    assert "neural-2" in message  # the levels there are
    assert "no bot level 'nope'" in refused(*ENDPOINTS, "--gnubg-level", "nope")


def test_a_bad_move_filter_is_refused_at_start_naming_the_item() -> None:
    message = refused(*ENDPOINTS, "--move-filter", "8:0.16,0:0.1")
    assert "move_filter" in message and "'0:0.1'" in message and "CANDIDATES:WINDOW" in message


@pytest.mark.parametrize("endpoint", ["tcp://127.0.0.1:99999", "tcp://127.0.0.1:-1",
                                      "tcp://127.0.0.1:http", "127.0.0.1:99999"])
def test_a_zeromq_port_out_of_range_is_refused(endpoint: str) -> None:
    message = refused("--bind", endpoint, *ENDPOINTS[2:])
    assert "out of range" in message or "expected HOST:PORT" in message, message
    assert refused(*ENDPOINTS, env={"JACQUETD_BIND": endpoint}).startswith(
        "jacquetd: $JACQUETD_BIND=")


@pytest.mark.parametrize("value", ["nan", "inf", "-1"])
def test_a_drain_timeout_that_is_not_a_finite_number_is_refused(value: str) -> None:
    message = refused(*ENDPOINTS, "--drain-timeout", value)
    assert "drain_timeout_s" in message
    message = refused(*ENDPOINTS, env={"JACQUETD_DRAIN_TIMEOUT": value})
    assert "$JACQUETD_DRAIN_TIMEOUT" in message and "drain_timeout_s" in message


HOSTILE: list[Any] = [123, -1, 2**70, 1.5, math.nan, math.inf, True, "", "nope", [1, 2],
                      ["a", 3], {"a": 1}, None]


@pytest.mark.parametrize("key", sorted(_TOP_FIELDS | {"limits", "heartbeat"}))
def test_every_key_takes_a_value_or_names_what_is_wrong(key: str) -> None:
    """A value of any TOML type for any key gives a configuration or a ConfigError that
    names the key, never another exception."""
    values = HOSTILE + ([{"max_queue": v} for v in HOSTILE]
                        if key in ("limits", "heartbeat") else [])
    for value in values:
        try:
            cfg = apply_settings(Config(), {key: value}, "test.toml")
        except ConfigError as exc:
            assert key in str(exc) or "max_queue" in str(exc), (key, value, str(exc))
        else:
            for name in ("drain_timeout_s", "cancel_grace_s", "match_idle_timeout_s",
                         "keep_days", "keep_replies_days"):
                assert math.isfinite(getattr(cfg, name)), (key, value)
            cap = configuration.process_cap()
            assert cfg.workers <= cap and cfg.replicas <= cap
