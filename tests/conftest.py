"""Shared fixtures: a real ``jacquetd serve`` subprocess on free loopback ports.

``jacquetd_server`` (session scope) is one daemon shared by tests that do not
disturb it; ``start_jacquetd`` starts a private one with extra flags. Both
wait for the one-line start-up banner, read the endpoints from it, and kill
the daemon afterwards.

``slow_budget_s`` is the one reader of ``JACQUETD_SLOW_BUDGET``, the seconds each
slow check may take.

The ``daemon`` mark: a test that starts a daemon or a real external program (gnubg, a
Dask cluster, Chromium), or uses one a fixture started, is left out of the fast tier,
``pytest -m "not slow and not daemon"``. Tests using the fixtures of `DAEMON_FIXTURES`
are marked here; a test that starts such a process otherwise carries the mark itself
(or its module is in `DAEMON_MODULES`), and one that starts it unmarked fails, naming
the command line.
"""

from __future__ import annotations

import math
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import pytest

REPO = Path(__file__).resolve().parent.parent
BANNER_RE = re.compile(r"^jacquetd listening (?P<body>.*)$")
START_TIMEOUT_S = 60.0
T = TypeVar("T")

#: Fixtures that start a daemon or a real external program (or hand out one started for
#: the session): a test that uses one, directly or through another fixture, is `daemon`.
DAEMON_FIXTURES = frozenset({"start_jacquetd", "jacquetd_server", "dask_cluster",
                             "chromium", "gnubg_server"})
#: Tests that start such processes by their own means (a command line, the clients' own
#: engine launcher, gnubg): node ids or their beginnings (a module, a test's name).
DAEMON_MODULES: tuple[str, ...] = (
    "tests/clients/test_client.py::test_engine_exit_fails_pending_calls",
    "tests/clients/test_client.py::test_spawned_stdio_engine",
    "tests/clients/test_compact_referee.py",
    "tests/clients/test_seeds.py::test_a_refereed_match_is_the_match_bot_match_plays",
    "tests/clients/test_league.py",
    "tests/clients/test_league_gnubg_take.py",
    "tests/clients/test_league_luck.py",
    "tests/clients/test_play.py",
    "tests/clients/test_play_first_run.py",
    "tests/cluster/",
    "tests/daemon/test_adding_a_command.py",
    "tests/daemon/test_cli.py",
    "tests/daemon/test_config_checks.py",
    "tests/daemon/test_conformance_vectors.py",
    "tests/daemon/test_curve.py",
    "tests/daemon/test_endpoints.py::test_stdio_subprocess",
    "tests/daemon/test_faults.py::test_fault_levels_are_out_of_reach_of_a_production_daemon",
    "tests/daemon/test_first_run.py",
    "tests/daemon/test_gnubg_match.py",
    "tests/daemon/test_hardening.py::test_an_engine_on_stdio_opens_no_match_database",
    "tests/daemon/test_small_hardening.py",
    "tests/docs/test_examples.py::test_example_runs",
    "tests/docs/test_readme.py::test_install_commands_name_what_exists",
    "tests/docs/test_reference.py::test_jacquetd_help_names_the_websocket_endpoint",
    "tests/interchange/test_gnubg_files.py",
    "tests/interchange/test_league_mat.py",
    "tests/interchange/test_play_position.py",
    "tests/protocol/test_runner.py::test_runner_over_stdio",
    "tests/test_packaging.py::test_league_says_when_its_engine_cannot_start",
    "tests/test_packaging.py::test_programs_run_by_full_path_from_a_fresh_venv",
    "tests/test_packaging.py::test_the_container_builds_and_answers_ping",
    "tests/web/",
)
#: Tests without a daemon that take a second or more (`--durations`): left out of the
#: fast tier as `slow`, as the ones marked in their own files are.
SLOW_TESTS: tuple[str, ...] = (
    "tests/bots/test_analysis.py::test_compiled_and_pure_replies_agree",
    "tests/bots/test_analysis.py::test_rollout_is_seeded_and_converges_reports",
    "tests/bots/test_bearoff.py::test_compiled_plays_equal_the_reference",
    "tests/bots/test_bearoff_cube.py::test_cube_theory_orders_the_tables",
    "tests/bots/test_bearoff_cube.py::test_cubeless_figures_match_the_one_sided_race",
    "tests/bots/test_bearoff_match.py",
    "tests/bots/test_bearoff_pool_lifetime.py",
    "tests/bots/test_bots_legal.py",
    "tests/bots/test_cubeful_deep.py",
    "tests/bots/test_cuberollout.py::test_lines_share_the_dice_and_the_seed_repeats",
    "tests/bots/test_features.py::test_compiled_encoder_equals_the_numpy_reference",
    "tests/bots/test_features.py::test_crashed_is_gnubgs_own_class",
    "tests/bots/test_met_published.py::test_the_model_takes_the_table_where_it_has_figures",
    "tests/bots/test_supervised.py",
    "tests/bots/test_train.py",
    "tests/bots/test_truth.py::test_network_rolls_out_the_decisions_of_the_truth_set_again",
    "tests/bots/test_truth.py::test_rollout_is_reproducible_and_seed_dependent",
    "tests/bots/test_truth_gnubg.py",
    "tests/daemon/test_fast_records.py::test_legal_moves_records_are_the_straightforward",
    "tests/daemon/test_fast_records.py::test_the_msgpack_legal_moves_reply_written_directly",
    "tests/daemon/test_cli_train.py",
    "tests/daemon/test_worker_close.py",
    "tests/docs/test_reference.py::test_every_command_has_its_page",
    "tests/fastgen/test_fastgen.py::test_arbitrary_positions",
    "tests/fastgen/test_fastgen.py::test_random_games",
    "tests/fastgen/test_fastgen.py::test_seeded_game_positions_give_the_same_plays",
    "tests/matches/test_aio.py::test_bots_of_matches_in_play_start_again_after_a_restart",
    "tests/matches/test_crash.py",
    "tests/matches/test_service.py::test_bot_seat_plays_a_whole_match",
    "tests/matches/test_service.py::test_bot_vs_bot_and_unknown_level",
    "tests/matches/test_service.py::test_two_scripted_clients_play_a_whole_match",
    "tests/matches/test_store.py::test_a_reopened_store_offers_every_match_at_its_last_action",
    "tests/protocol/test_framing.py::test_request_stream_splits_mixed_encodings",
    "tests/protocol/test_framing.py::test_reply_stream_splits_mixed_encodings",
    "tests/protocol/test_fuzz.py",
    "tests/protocol/test_refused_ids.py::test_the_id_is_found_wherever_it_stands",
    "tests/protocol/test_roundtrip.py::test_any_result_map_survives_text",
    "tests/protocol/test_whole_object.py",
    "tests/rules/test_game_driver.py::test_a_match_replays_from_its_seed",
    "tests/rules/test_gnubg_differential.py",
    "tests/rules/test_idwriter.py::test_whole_games_to_the_end_in_every_variant",
    "tests/rules/test_idwriter.py::test_the_writer_writes_what_the_encoders_write",
    "tests/rules/test_properties.py::test_canonical_spelling_applies_to_the_same_play",
    "tests/rules/test_properties.py::test_random_games_keep_every_invariant",
)
#: Fixtures that take seconds to make: `site` builds the documentation with Sphinx.
SLOW_FIXTURES = frozenset({"site"})
#: A command line that starts a daemon (``jacquetd serve`` or ``stdio``, the fault-level
#: daemon) or a real external program: GNU Backgammon, a Dask scheduler or worker,
#: Chromium.
DAEMON_COMMAND = re.compile(
    r"(?:^|\s)(?:\S*/)?jacquetd\s+(?:serve|stdio)\b|\btests\.fault_daemon\b"
    r"|(?:^|/)gnubg(?:\s|$)|\bdistributed\.cli\b|(?:^|/)dask(?:\s|$)|chromium")
_started: list[str] = []  # the command lines matched since the current test's setup


def _watch_starts(event: str, args: tuple[object, ...]) -> None:
    """Audit hook: note a subprocess whose command line is a daemon's or an engine's."""
    if event != "subprocess.Popen":
        return
    argv = args[1]
    words = argv if isinstance(argv, list | tuple) else [argv]
    line = " ".join(w.decode(errors="replace") if isinstance(w, bytes) else str(w)
                    for w in words)
    if DAEMON_COMMAND.search(line):
        _started.append(line)


sys.addaudithook(_watch_starts)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        if item.nodeid.startswith(DAEMON_MODULES) or DAEMON_FIXTURES & fixtures:
            item.add_marker(pytest.mark.daemon)
        if item.nodeid.startswith(SLOW_TESTS) or SLOW_FIXTURES & fixtures:
            item.add_marker(pytest.mark.slow)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    _started.clear()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]
                              ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """A test that started a daemon or an engine without the `daemon` mark fails."""
    report = yield
    if call.when == "call" and _started and item.get_closest_marker("daemon") is None:
        report.outcome = "failed"
        report.longrepr = (
            "started without the `daemon` mark (mark the test or module "
            "`pytest.mark.daemon`, or list it in tests/conftest.py DAEMON_MODULES): "
            + "; ".join(_started))
    return report


def slow_budget_s() -> float | None:
    """The seconds each slow check (``-m slow``) may take: ``JACQUETD_SLOW_BUDGET``
    (tests/run.sh sets 10), or None when it is unset or empty, to run each whole.
    Anything but a positive number is refused, so a typo does not pass for a budget."""
    raw = os.environ.get("JACQUETD_SLOW_BUDGET", "").strip()
    if not raw:
        return None
    try:
        seconds = float(raw)
    except ValueError:
        seconds = math.nan
    if not seconds > 0:
        raise pytest.UsageError(f"JACQUETD_SLOW_BUDGET={raw!r}: seconds (a positive "
                                "number), or empty to run the slow checks whole")
    return seconds


def slow_deadline() -> float:
    """The `time.monotonic()` after which a slow check that starts now begins no new
    item (infinity without a budget)."""
    budget = slow_budget_s()
    return math.inf if budget is None else time.monotonic() + budget


def within(deadline: float, items: Iterable[T]) -> Iterator[T]:
    """`items` one by one until `deadline` has passed; the first one always, so a
    bounded check still checks something."""
    for k, item in enumerate(items):
        if k and time.monotonic() >= deadline:
            return
        yield item


@dataclass
class DaemonProcess:
    """A running daemon: its process, its endpoints and its log (stderr) file."""

    proc: subprocess.Popen[bytes]
    endpoints: dict[str, str]
    log_path: Path
    banner: str
    args: list[str] = field(default_factory=list)

    @property
    def zmq(self) -> str:
        return self.endpoints["zmq"]

    def hostport(self, name: str) -> tuple[str, int]:
        host, _, port = self.endpoints[name].rpartition(":")
        return host, int(port)

    @property
    def tcp(self) -> tuple[str, int]:
        return self.hostport("tcp")

    @property
    def gnubg(self) -> tuple[str, int]:
        return self.hostport("gnubg")

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace")

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 30.0) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait(10)


_DATA_HOME: list[str] = []


def daemon_env() -> dict[str, str]:
    env = dict(os.environ)
    if not _DATA_HOME:  # hosted matches go to a throw-away data folder, never the user's
        import tempfile

        _DATA_HOME.append(tempfile.mkdtemp(prefix="jacquetd-data-"))
    env["XDG_DATA_HOME"] = _DATA_HOME[0]
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env["PYTHONUNBUFFERED"] = "1"
    return env


#: A marker among `launch`'s (and `start_jacquetd`'s) ARGS, not a flag of jacquetd.
FAULT_LEVELS = "--test-levels"


def launch(args: list[str], log_path: Path, command: str = "serve") -> DaemonProcess:
    """Start ``python -m jacquetd serve ARGS`` with every endpoint on a free loopback port
    (unless ARGS sets it) and wait for its banner."""
    # "serve-defaults": `serve` without endpoint flags (the embedded defaults).
    # FAULT_LEVELS among ARGS: the daemon with the fault levels of tests/faults.py
    # (started through tests/fault_daemon.py; jacquetd itself has no such option).
    program = "jacquetd"
    if FAULT_LEVELS in args:
        args = [a for a in args if a != FAULT_LEVELS]
        program = "tests.fault_daemon"
    full = [sys.executable, "-m", program, command.removesuffix("-defaults")]
    if command == "serve":
        for flag, value in (("--bind", "tcp://127.0.0.1:0"), ("--tcp", "127.0.0.1:0"),
                            ("--gnubg", "127.0.0.1:0"), ("--ws", "127.0.0.1:0")):
            if flag not in args:
                full += [flag, value]
    full += args
    log_file = open(log_path, "wb")  # noqa: SIM115 - closed when the process is reaped
    env = daemon_env()
    if "--db" not in args:  # one daemon owns a match database: each its own data folder
        import tempfile

        env["XDG_DATA_HOME"] = tempfile.mkdtemp(prefix="jacquetd-data-")
    proc = subprocess.Popen(full, cwd=REPO, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=log_file)
    log_file.close()
    lines: queue.Queue[bytes] = queue.Queue()

    def read_banner() -> None:
        assert proc.stdout is not None
        for raw in iter(proc.stdout.readline, b""):
            lines.put(raw)
            if BANNER_RE.match(raw.decode(errors="replace").strip()):
                return
        lines.put(b"")

    threading.Thread(target=read_banner, daemon=True).start()
    deadline = time.monotonic() + START_TIMEOUT_S
    line = b""
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=max(0.01, deadline - time.monotonic()))
        except queue.Empty:
            break
        if not line:
            break
        m = BANNER_RE.match(line.decode().strip())
        if m:
            endpoints = {}
            for word in m["body"].split():
                key, _, value = word.partition("=")
                endpoints[key] = value
            return DaemonProcess(proc, endpoints, log_path, line.decode().strip(), full)
    proc.kill()
    proc.wait(10)
    raise RuntimeError(f"jacquetd did not start: {line!r}\n{log_path.read_text()[-3000:]}")


@pytest.fixture
def start_jacquetd(tmp_path: Path) -> Iterator[Callable[..., DaemonProcess]]:
    """Factory: ``start_jacquetd("--workers", "2", ...)`` -> a private daemon."""
    started: list[DaemonProcess] = []

    def start(*args: str) -> DaemonProcess:
        daemon = launch(list(args), tmp_path / f"jacquetd-{len(started)}.log")
        started.append(daemon)
        return daemon

    yield start
    for daemon in started:
        if daemon.proc.poll() is None:
            daemon.proc.kill()
            daemon.proc.wait(10)
        if daemon.proc.stdout is not None:
            daemon.proc.stdout.close()


@pytest.fixture(scope="session")
def jacquetd_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DaemonProcess]:
    """One daemon shared by the session (two workers, test levels on, debug log)."""
    log_path = tmp_path_factory.mktemp("jacquetd") / "shared.log"
    daemon = launch(["--workers", "2", "--test-levels", "--log-level", "debug",
                     "--seed", "7"], log_path)
    yield daemon
    if daemon.proc.poll() is None:
        daemon.proc.kill()
        daemon.proc.wait(10)
    if daemon.proc.stdout is not None:
        daemon.proc.stdout.close()
