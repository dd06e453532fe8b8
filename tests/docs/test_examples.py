"""Every shell and Python example of README.md and the guides, run against a daemon this
test starts on free ports (the examples' default ports are replaced by its own), with
their output compared where the text shows it. Examples marked "not run" have each of
their command lines checked against the real parsers of our programs."""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import DaemonProcess, launch
from tests.docs.examples import REPO, Example, all_examples, console_steps, matches, with_ports

EXAMPLES = all_examples()
RUN = [e for e in EXAMPLES if e.not_run is None]
NOT_RUN = [e for e in EXAMPLES if e.not_run is not None]
TIMEOUT_S = 300


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DaemonProcess]:
    log = tmp_path_factory.mktemp("docs-daemon") / "jacquetd.log"
    proc = launch(["--workers", "1", "--replicas", "0"], log)
    yield proc
    proc.stop()


def _env(home: Path) -> dict[str, str]:
    env = dict(os.environ)
    bindir = str(Path(sys.executable).parent)
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    for var in ("XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME"):
        env[var] = str(home / var.lower())
    env["NO_COLOR"] = "1"
    return env


def _ports(daemon: DaemonProcess) -> dict[str, int]:
    return {name: daemon.hostport(name)[1] for name in ("zmq", "tcp", "gnubg", "ws")
            } | {"zmq": int(daemon.zmq.rpartition(":")[2])}


@pytest.mark.parametrize("example", RUN, ids=[e.name for e in RUN])
def test_example_runs(example: Example, daemon: DaemonProcess, tmp_path: Path) -> None:
    text = with_ports(example.text, _ports(daemon))
    env = _env(tmp_path)

    def run(argv: list[str], stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(argv, input=stdin, cwd=tmp_path, env=env, text=True,
                              capture_output=True, timeout=TIMEOUT_S)
        assert done.returncode == 0, (f"{example.name}: exit {done.returncode}\n"
                                      f"{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
        return done

    if example.lang == "sh":
        run(["sh", "-e", "-c", text])
    elif example.lang == "python":
        done = run([sys.executable, "-c", text])
        if example.prints is not None:
            assert done.stdout.strip() == example.prints, example.name
    else:
        steps = console_steps(text)
        assert steps, f"{example.name}: a console block with no `$ ` line"
        for command, expected in steps:
            done = run(["sh", "-e", "-c", command])
            assert matches(expected, done.stdout), (
                f"{example.name}: `{command}` printed\n{done.stdout}\nexpected\n"
                + "\n".join(expected))


def _parsers() -> dict[str, argparse.ArgumentParser]:
    sys.path.insert(0, str(REPO / "docs" / "_ext"))
    import jacquetd_pages

    return dict(jacquetd_pages.programs())


def _commands(text: str) -> Iterator[list[str]]:
    joined = text.replace("\\\n", " ")
    for line in joined.splitlines():
        words = shlex.split(line, comments=True)
        if words:
            yield words


@pytest.mark.parametrize("example", NOT_RUN, ids=[e.name for e in NOT_RUN])
def test_example_not_run_is_valid(example: Example) -> None:
    """A block that is not run names why, and each of our programs' lines in it parses
    with that program's real parser; repository files it names exist."""
    assert example.not_run and len(example.not_run) > 10
    parsers = _parsers()
    checked = 0
    for words in _commands(example.text):
        if words[0] in ("sudo",):
            words = words[1:]
        for word in words:
            if "/" in word and not word.startswith(("-", "/", "tcp:", "tls:", "http")) \
                    and (REPO / word.split("/")[0]).is_dir() and not word.endswith("/"):
                assert (REPO / word).exists() or (word.count("/") == 1 and \
                    word.endswith((".npz", ".key_secret"))), f"{example.name}: no file {word}"
        program = words[0]
        if program in ("jacquetd", "jacquet-play", "jacquet-league", "jacquet-analyze"):
            name = program
            rest = words[1:]
            if rest and f"{program} {rest[0]}" in parsers:
                name, rest = f"{program} {rest[0]}", rest[1:]
            parser = parsers[name]
            try:
                parser.parse_args(rest)
            except SystemExit as exc:
                raise AssertionError(f"{example.name}: `{' '.join(words)}` does not parse"
                                     ) from exc
            checked += 1
        elif program in ("python", "python3") and words[1].startswith("benchmarks/"):
            assert (REPO / words[1]).is_file(), f"{example.name}: no {words[1]}"
            checked += 1
    assert checked or not any(w[0].startswith("jacquet") for w in _commands(example.text))


def _toml_blocks() -> list[tuple[str, str]]:
    import re

    from tests.docs.examples import DOCUMENTS

    out = []
    for path in DOCUMENTS:
        text = path.read_text(encoding="utf-8")
        for m in re.finditer(r"^```toml\n(.*?)^```", text, re.M | re.S):
            line = text[:m.start()].count("\n") + 1
            out.append((f"{path.relative_to(REPO)}:{line}", m.group(1)))
    return out


TOML = _toml_blocks()


@pytest.mark.parametrize(("name", "text"), TOML, ids=[n for n, _ in TOML])
def test_toml_examples_are_accepted(name: str, text: str) -> None:
    """A league file is read by the league's own reader, a daemon file by the daemon's."""
    import tomllib

    data = tomllib.loads(text)
    if "engines" in data:
        from jacquetd_clients.league.config import parse_league

        league = parse_league(data)
        assert league.engines, name
    else:
        from jacquetd.daemon.config import Config, apply_settings

        apply_settings(Config(), data, name)
