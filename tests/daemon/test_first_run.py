"""What a new user and a packager meet when starting `jacquetd`: a taken port said once
before the first compile, --version, --help with defaults, a subcommand's own usage,
the default configuration file, JACQUETD_* variables and their precedence, SIGHUP,
typed JSON logs from the front and the workers, and a quiet `jacquetd stdio`."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, daemon_env, launch


def run(*args: str, env: dict[str, str] | None = None, stdin: bytes | None = None,
        timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "jacquetd", *args], capture_output=True,
                          cwd=REPO, env=env or daemon_env(), timeout=timeout, text=True,
                          input=stdin.decode() if stdin is not None else None)


def test_a_port_in_use_is_said_once_before_the_first_compile() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = run("serve", "--bind", "tcp://127.0.0.1:0", "--tcp", f"127.0.0.1:{port}",
                   "--gnubg", "127.0.0.1:0", "--workers", "1")
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, lines  # said once: no log line besides the message
    assert lines[0].startswith(f"jacquetd: cannot listen on tcp endpoint 127.0.0.1:{port}")
    assert "--tcp HOST:PORT" in lines[0] and "$JACQUETD_TCP" in lines[0]
    assert "fastgen_ready" not in proc.stderr  # before the compile, not after it


def test_version_help_defaults_and_a_subcommands_own_usage() -> None:
    version = run("--version")
    assert version.returncode == 0
    assert version.stdout.startswith("jacquetd ") and "protocol 1." in version.stdout
    top = run("--help").stdout
    for name in ("serve", "stdio", "keys", "db", "train"):
        assert name in top
    serve = run("serve", "--help").stdout
    for default in ("default tcp://127.0.0.1:7780", "default 127.0.0.1:7781",
                    "default 127.0.0.1:7782", "default neural-2", "default 10",
                    "default info", "default kv", "max_frame_bytes=3211264", "SIGHUP",
                    "$JACQUETD_WORKERS"):
        assert default in " ".join(serve.split()), default
    bad = run("serve", "--bogus")
    assert bad.returncode == 2
    assert bad.stderr.startswith("usage: jacquetd serve")
    assert "jacquetd serve: error: unrecognized arguments: --bogus" in bad.stderr
    bad_db = run("db", "frobnicate")
    assert bad_db.stderr.startswith("usage: jacquetd db")


def test_default_config_file_environment_and_flags_in_order(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    """File < environment < flags; the file is found in the XDG configuration folder."""
    folder = tmp_path / "config" / "jacquetd"
    folder.mkdir(parents=True)
    (folder / "jacquetd.toml").write_text('workers = 2\nlog_format = "json"\n')
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("JACQUETD_WORKERS", raising=False)
    daemon = launch([], tmp_path / "a.log")
    try:
        assert daemon.endpoints["workers"] == "2"  # from the default file
    finally:
        assert daemon.stop() == 0
    assert '"event": "listening"' in daemon.log_text()  # the file's log_format
    monkeypatch.setenv("JACQUETD_WORKERS", "1")
    monkeypatch.setenv("JACQUETD_LOG_FORMAT", "kv")
    daemon = launch([], tmp_path / "b.log")
    try:
        assert daemon.endpoints["workers"] == "1"  # the environment beats the file
    finally:
        assert daemon.stop() == 0
    assert "event=listening" in daemon.log_text()
    daemon = launch(["--workers", "2"], tmp_path / "c.log")
    try:
        assert daemon.endpoints["workers"] == "2"  # the flag beats the environment
    finally:
        assert daemon.stop() == 0
    monkeypatch.setenv("JACQUETD_WORKERS", "many")
    proc = run("serve", "--bind", "tcp://127.0.0.1:0", env=daemon_env())
    assert proc.returncode == 2 and "$JACQUETD_WORKERS" in proc.stderr


def test_sighup_drains_and_stops_like_sigterm(tmp_path: Path) -> None:
    daemon = launch(["--workers", "1"], tmp_path / "d.log")
    daemon.proc.send_signal(signal.SIGHUP)
    assert daemon.proc.wait(30) == 0
    log = daemon.log_text()
    assert "event=signal signal=SIGHUP" in log and "event=drained" in log


def test_json_logs_have_typed_values_and_workers_write_json(tmp_path: Path) -> None:
    daemon = launch(["--workers", "1", "--log-format", "json", "--log-level", "debug"],
                    tmp_path / "j.log")
    try:
        # a request that a worker answers: the worker is up and has logged by then
        with socket.create_connection(daemon.tcp, timeout=60) as conn:
            conn.sendall(b"1 best_move start:backgammon dice=31 level=random\n")
            reply = conn.makefile("rb").readline()
        assert reply.startswith(b"=1"), reply
    finally:
        assert daemon.stop() == 0
    records = [json.loads(line) for line in daemon.log_text().splitlines() if line.strip()]
    listening = next(r for r in records if r.get("event") == "listening")
    assert listening["workers"] == 1 and isinstance(listening["pid"], int)
    ready = [r for r in records if r.get("event") == "worker_ready"]
    assert ready and ready[0]["worker"] == 0 and "ts" in ready[0]
    assert isinstance(ready[0]["pid"], int)


def test_stdio_logs_warnings_only_unless_asked(tmp_path: Path) -> None:
    env = daemon_env()
    env.pop("JACQUETD_LOG_LEVEL", None)
    ask = b"1 best_move start:backgammon dice=31 level=random\n"
    db = ["--db", str(tmp_path / "m.sqlite3")]  # opening it is an info line
    quiet = run("stdio", "--workers", "1", *db, env=env, stdin=ask)
    assert quiet.returncode == 0 and quiet.stdout.startswith("=1")
    assert "level=info" not in quiet.stderr and "level=debug" not in quiet.stderr
    asked = run("stdio", "--workers", "1", *db, "--log-level", "info", env=env, stdin=ask)
    assert "level=info" in asked.stderr
    env["JACQUETD_LOG_LEVEL"] = "debug"
    by_env = run("stdio", "--workers", "1", env=env, stdin=ask)
    assert "event=worker_ready" in by_env.stderr


# ---- conflicts first: the database lock and the data folder, before any compile --------


def _holder(db: Path) -> subprocess.Popen[str]:
    """A real `jacquetd stdio` holding the match database `db` (until its stdin closes)."""
    holder = subprocess.Popen([sys.executable, "-m", "jacquetd", "stdio", "--workers", "1",
                               "--db", str(db)], cwd=REPO, env=daemon_env(), text=True,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL)
    assert holder.stdin is not None and holder.stdout is not None
    holder.stdin.write("1 match_list\n")
    holder.stdin.flush()
    assert holder.stdout.readline().startswith("=1")  # the database is open, and locked
    return holder


def _release(holder: subprocess.Popen[str]) -> None:
    assert holder.stdin is not None
    holder.stdin.close()
    holder.wait(60)


def test_a_database_in_use_is_said_once_before_the_first_compile(tmp_path: Path) -> None:
    db = tmp_path / "m.sqlite3"
    holder = _holder(db)
    try:
        proc = run("serve", "--bind", "tcp://127.0.0.1:0", "--tcp", "127.0.0.1:0",
                   "--gnubg", "off", "--ws", "off", "--workers", "1", "--db", str(db))
    finally:
        _release(holder)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, lines  # said once, and before the compile
    assert "fastgen_ready" not in proc.stderr
    assert lines[0].startswith(f"jacquetd: the match database {db} is in use by process "
                               f"{holder.pid}")
    for way in ("stop that daemon", "--db PATH", "`db` in the configuration file",
                "$JACQUETD_DB", "--db off"):
        assert way in lines[0], way


def test_a_busy_port_and_a_busy_database_are_said_together_with_every_way_out(
        tmp_path: Path) -> None:
    db = tmp_path / "m.sqlite3"
    holder = _holder(db)
    try:
        with socket.socket() as taken:
            taken.bind(("127.0.0.1", 0))
            taken.listen()
            port = taken.getsockname()[1]
            proc = run("serve", "--bind", "tcp://127.0.0.1:0", "--tcp", f"127.0.0.1:{port}",
                       "--gnubg", "off", "--ws", "off", "--workers", "1", "--db", str(db))
    finally:
        _release(holder)
    assert proc.returncode == 2 and "fastgen_ready" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"jacquetd: cannot listen on tcp endpoint 127.0.0.1:{port}")
    port_part, _, db_part = lines[0].partition("; and the match database")
    # the port message names --db too: a second daemon needs its own database
    assert "--tcp HOST:PORT" in port_part and "--db PATH" in port_part
    assert "--db off" in port_part and "$JACQUETD_DB" in port_part
    assert f"in use by process {holder.pid}" in db_part


def test_an_unusable_data_folder_is_said_before_the_first_compile(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the data folder should be\n")
    proc = run("serve", "--bind", "tcp://127.0.0.1:0", "--tcp", "off", "--gnubg", "off",
               "--ws", "off", "--workers", "1", "--db", str(blocker / "jacquetd" / "m.sqlite3"))
    assert proc.returncode == 2 and "fastgen_ready" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"jacquetd: the data folder {blocker / 'jacquetd'} cannot be "
                               f"made: {blocker} is not a folder")
    assert "--db PATH" in lines[0] and "--db off" in lines[0]


def test_an_engine_on_stdio_checks_its_database_before_the_first_compile(
        tmp_path: Path) -> None:
    db = tmp_path / "m.sqlite3"
    holder = _holder(db)
    try:
        env = daemon_env()
        env["NUMBA_DEBUG_CACHE"] = "1"  # numba says every compiled kernel it loads or builds
        proc = run("stdio", "--workers", "1", "--db", str(db), env=env, stdin=b"1 ping\n")
    finally:
        _release(holder)
    assert proc.returncode == 2
    assert "[cache]" not in proc.stdout + proc.stderr  # no compiled code loaded, none built
    assert proc.stderr.startswith(f"jacquetd: the match database {db} is in use by process "
                                  f"{holder.pid}")
