"""The first run on an empty cache: the first compile, and `jacquet-league demo`.

    python benchmarks/bench_first_run.py [--runs N] [--skip-demo]

Each run gets empty caches (a fresh NUMBA_CACHE_DIR for the compiled code and fresh
XDG folders for the bear-off tables), then measures

- the first compile: `jacquetd stdio` started until it answers `ping` (the move
  generator and the network encoder are compiled before it reads its input);
- the same start again, with the cache now filled;
- with the cache filled, the time from the spawn to the first answer (`ping`) and from
  `quit` to the end of the process (what a harness that spawns an engine per game
  waits for at both ends);
- `jacquet-league demo`: wall time, the longest silence between two progress lines.

Wall and CPU seconds (of the whole process tree) are printed with the load average,
since on a shared machine the wall time follows the load.
"""

from __future__ import annotations

import argparse
import itertools
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _env(root: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["NUMBA_CACHE_DIR"] = str(root / "numba")
    for name in ("XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME"):
        env[name] = str(root / name.lower())
    return env


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(argv: list[str], env: dict[str, str], stdin: str | None = None
          ) -> tuple[float, float, subprocess.CompletedProcess[str]]:
    cpu0, t0 = _cpu(), time.monotonic()
    proc = subprocess.run(argv, env=env, input=stdin, capture_output=True, text=True,
                          timeout=1200)
    return time.monotonic() - t0, _cpu() - cpu0, proc


def answer_and_exit(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Seconds from the spawn to the answer to `ping`, and from `quit` to the exit."""
    t0 = time.monotonic()
    proc = subprocess.Popen(argv, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, bufsize=1)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write("1 ping\n")
    proc.stdin.flush()
    line = proc.stdout.readline()
    assert line.startswith("=1"), line
    t1 = time.monotonic()
    proc.stdin.write("quit\n")
    proc.stdin.close()
    proc.stdout.read()
    proc.wait(timeout=60)
    return t1 - t0, time.monotonic() - t1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--skip-demo", action="store_true")
    args = parser.parse_args()
    engine = [sys.executable, "-m", "jacquetd", "stdio", "--workers", "1"]
    for run in range(1, args.runs + 1):
        with tempfile.TemporaryDirectory(prefix="jacquetd-first-run-") as tmp:
            env = _env(Path(tmp))
            load = os.getloadavg()[0]
            wall, cpu, proc = timed(engine, env, "1 ping\n")
            assert proc.stdout.startswith("=1"), proc.stderr
            wall2, cpu2, _ = timed(engine, env, "1 ping\n")
            first, end = answer_and_exit(engine, env)
            print(f"run {run}: first start (compile) {wall:.1f} s wall, {cpu:.1f} s CPU; "
                  f"cached start {wall2:.1f} s wall, {cpu2:.1f} s CPU; load {load:.1f}")
            print(f"run {run}: cached, spawn to first answer {first:.2f} s, quit to exit "
                  f"{end:.2f} s")
            if args.skip_demo:
                continue
        with tempfile.TemporaryDirectory(prefix="jacquetd-first-run-") as tmp:
            env = _env(Path(tmp))
            load = os.getloadavg()[0]
            wall, cpu, proc = timed([sys.executable, "-m", "jacquetd_clients.league.cli",
                                     "demo", "--out", str(Path(tmp) / "demo")], env)
            assert proc.returncode == 0, proc.stderr[-2000:]
            stamps = [float(x) for x in re.findall(r"^\s*(\d+\.\d)s ", proc.stderr, re.M)]
            gap = max((b - a for a, b in itertools.pairwise(stamps)), default=0)
            print(f"run {run}: demo on empty caches {wall:.1f} s wall, {cpu:.1f} s CPU, "
                  f"{len(stamps)} progress lines, longest silence {gap:.1f} s; "
                  f"load {load:.1f} -> {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
