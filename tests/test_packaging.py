"""What a packager meets: the wheel (its top-level names, its license), the programs of a
fresh virtual environment run by full path without activating it (`venv/bin/jacquet-league
demo`, `venv/bin/jacquetd --version`, `venv/bin/jacquet-play --help`), the systemd unit
(`systemd-analyze verify`) and the container recipe (built and pinged where an engine runs).
"""

from __future__ import annotations

import itertools
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).parents[1]
TOP_LEVEL = {"jacquetd", "jacquetd_protocol", "jacquetd_clients"}


def bare_env(tmp: Path) -> dict[str, str]:
    """A user's environment: no virtual environment active, nothing of the checkout on
    the path, empty user folders (so the first compile happens here)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")
           and not k.startswith("JACQUETD_")}
    env["PATH"] = "/usr/bin:/bin"
    for name in ("XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME"):
        env[name] = str(tmp / "home" / name.lower())
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    # pip's own downloads may come from the usual cache
    env["PIP_CACHE_DIR"] = os.environ.get("PIP_CACHE_DIR") or str(
        Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "pip")
    return env


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out),
                    str(REPO)], check=True, timeout=600, cwd=out)
    (built,) = out.glob("jacquetd-*.whl")
    return built


@pytest.fixture(scope="module")
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A fresh virtual environment with the wheel installed (dependencies from PyPI or
    pip's cache)."""
    root = tmp_path_factory.mktemp("venv")
    env = bare_env(root)
    subprocess.run([sys.executable, "-m", "venv", str(root / "venv")], check=True,
                   timeout=300, env=env)
    subprocess.run([str(root / "venv" / "bin" / "pip"), "install", "-q", str(wheel)],
                   check=True, timeout=900, env=env, cwd=root)
    yield root / "venv"


@pytest.mark.slow
def test_the_wheel_holds_only_the_projects_names_and_its_license(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
    top = {n.split("/", 1)[0].removesuffix(".py") for n in names}
    top = {n for n in top if not n.endswith((".dist-info", ".data"))}
    assert top == TOP_LEVEL
    assert any(n.endswith(".dist-info/LICENSE") or "/licenses/LICENSE" in n for n in names)
    with zipfile.ZipFile(wheel) as zf:
        meta = zf.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert "GPL-3.0-or-later" in meta and "platformdirs" in meta
    assert "GNU GENERAL PUBLIC LICENSE" in (REPO / "LICENSE").read_text()[:200]
    assert "Version 3" in (REPO / "LICENSE").read_text()[:200]


@pytest.mark.slow
def test_programs_run_by_full_path_from_a_fresh_venv(venv: Path, tmp_path: Path) -> None:
    env = bare_env(tmp_path)
    bin_dir = venv / "bin"
    version = subprocess.run([str(bin_dir / "jacquetd"), "--version"], capture_output=True,
                             text=True, env=env, cwd=tmp_path, timeout=60)
    assert version.returncode == 0 and re.match(r"jacquetd \S+ \(protocol 1\.\d+\)",
                                                version.stdout), version
    play = subprocess.run([str(bin_dir / "jacquet-play"), "--help"], capture_output=True,
                          text=True, env=env, cwd=tmp_path, timeout=60)
    assert play.returncode == 0 and "--connect" in play.stdout and "default" in play.stdout
    for prog in ("jacquet-play", "jacquet-league"):
        shown = subprocess.run([str(bin_dir / prog), "--version"], capture_output=True,
                               text=True, env=env, cwd=tmp_path, timeout=60)
        assert shown.returncode == 0 and shown.stdout.startswith(prog + " ")

    # the demo on an empty cache (the first compile happens in it), its engine found beside
    # the venv's interpreter although the venv's bin is not on PATH
    started = time.monotonic()
    demo = subprocess.run([str(bin_dir / "jacquet-league"), "demo", "--out",
                           str(tmp_path / "demo")], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=600)
    wall = time.monotonic() - started
    assert demo.returncode == 0, demo.stderr[-2000:]
    assert "finished" in demo.stdout and (tmp_path / "demo" / "demo.report.html").is_file()
    stamps = [float(m) for m in re.findall(r"^\s*(\d+\.\d)s ", demo.stderr, flags=re.M)]
    assert stamps and stamps[0] < 5.0, demo.stderr[:500]
    # progress the whole time: no silence of more than 5 s between two lines
    gaps = [b - a for a, b in itertools.pairwise(stamps)]
    assert max(gaps, default=0.0) <= 5.0, gaps
    print(f"demo on an empty cache: {wall:.1f} s wall, {len(stamps)} progress lines")


def test_league_says_when_its_engine_cannot_start(tmp_path: Path) -> None:
    league = tmp_path / "l.toml"
    league.write_text('name = "l"\ngames = 1\n[daemon]\ncommand = ["/nonexistent/engine"]\n'
                      '[[engines]]\nname = "a"\nlevel = "random"\n'
                      '[[engines]]\nname = "b"\nlevel = "random"\n')
    proc = subprocess.run([sys.executable, "-m", "jacquetd_clients.league.cli", "run",
                           str(league)], capture_output=True, text=True, timeout=60,
                          cwd=REPO)
    assert proc.returncode == 4, proc.stderr
    assert "cannot start the engine" in proc.stderr and "--resume" not in proc.stderr


def test_the_systemd_unit_verifies(tmp_path: Path) -> None:
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed (Debian package systemd)")
    unit = (REPO / "packaging" / "jacquetd.service").read_text()
    assert "ExecStart=/opt/jacquetd/bin/jacquetd serve" in unit
    # the unit's program must exist to be verified: this Python's jacquetd stands in
    program = Path(sys.executable).parent / "jacquetd"
    if not program.exists():
        pytest.skip(f"no installed jacquetd script beside {sys.executable}")
    path = tmp_path / "jacquetd.service"
    path.write_text(unit.replace("/opt/jacquetd/bin/jacquetd", str(program)))
    proc = subprocess.run([analyze, "verify", str(path)], capture_output=True, text=True,
                          timeout=120)
    problems = [line for line in proc.stderr.splitlines() if "jacquetd.service" in line]
    assert proc.returncode == 0 and not problems, proc.stderr


def _container_engine() -> str | None:
    for name in ("podman", "docker"):
        path = shutil.which(name)
        if path and subprocess.run([path, "info"], capture_output=True,
                                   timeout=60).returncode == 0:
            return path
    return None


@pytest.mark.slow
def test_the_container_builds_and_answers_ping() -> None:
    engine = _container_engine()
    if engine is None:
        pytest.skip("no working podman or docker engine on this machine")
    tag = "jacquetd-test:latest"
    subprocess.run([engine, "build", "-f", "packaging/Containerfile", "-t", tag, "."],
                   cwd=REPO, check=True, timeout=1800)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    run = subprocess.run([engine, "run", "-d", "--rm", "-p", f"127.0.0.1:{port}:7781", tag],
                         capture_output=True, text=True, check=True, timeout=120)
    container = run.stdout.strip()
    try:
        deadline = time.monotonic() + 120
        reply = b""
        while time.monotonic() < deadline and not reply.startswith(b"=1"):
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
                    conn.sendall(b"1 ping\n")
                    reply = conn.recv(64)
            except OSError:
                time.sleep(1)
        assert reply.startswith(b"=1")
    finally:
        subprocess.run([engine, "stop", container], capture_output=True, timeout=60)
