"""Running the GNU Backgammon program (Debian package `gnubg`) headless on a command file."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

GAMES_DIR_GNUBG = Path("/usr/games/gnubg")


def find_gnubg() -> str | None:
    """The gnubg binary: on PATH, or in the Debian games directory; None if absent."""
    found = shutil.which("gnubg")
    if found:
        return found
    return str(GAMES_DIR_GNUBG) if GAMES_DIR_GNUBG.exists() else None


NO_GNUBG = "GNU Backgammon (Debian package gnubg) is not installed: the match files cannot " \
           "be checked against the real program"


def run_gnubg(commands: list[str], home: Path, timeout: float = 300.0) -> str:
    """Feed `commands` to `gnubg -t -q -r` with a private HOME; return what it printed.
    gnubg exits 0 even when a command failed, so callers read the output."""
    binary = find_gnubg()
    assert binary is not None, NO_GNUBG
    home.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run([binary, "-t", "-q", "-r"], input="\n".join([*commands, ""]).encode(),
                          capture_output=True, timeout=timeout,
                          env={**os.environ, "HOME": str(home)})
    return (proc.stdout + proc.stderr).decode(errors="replace")
