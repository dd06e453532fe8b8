"""Matches GNU Backgammon played against itself, saved as `.mat` for the review benchmark.

    python benchmarks/make_gnubg_matches.py --matches 10 --length 7

Match i (from 1) is played by the real program (`gnubg -t -q -r`, a private HOME) with
`set seed <seed + i>`, both players gnubg at 0 plies for checker play and cube decisions,
each with its own evaluation noise (`set player N chequerplay/cubedecision evaluation
noise X`, drawn from `NOISES` by the match number) so that the players' error rates
spread from near-perfect to beginner. The match is exported with gnubg's own `export
match mat` as `match-NN.mat` in `--out` (default benchmarks/data/gnubg-matches), and
`MANIFEST.json` there lists each file with its seed and the players' settings. gnubg's
output is read (it exits 0 on failure): a match that is not won is reported and stops
the script. bench_review_gnubg.py analyses these files with gnubg and with jacquetd.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "data" / "gnubg-matches"
GAMES_DIR_GNUBG = Path("/usr/games/gnubg")
#: The evaluation noise of the players (normalised equity), mixed per match and side.
NOISES = (0.0, 0.01, 0.02, 0.04, 0.06, 0.08)


def find_gnubg() -> str:
    """The gnubg binary: on PATH or in the Debian games directory."""
    found = shutil.which("gnubg") or (str(GAMES_DIR_GNUBG) if GAMES_DIR_GNUBG.exists()
                                       else None)
    if found is None:
        sys.exit("GNU Backgammon (Debian package gnubg) is not installed")
    return found


def run_gnubg(commands: list[str], home: Path, timeout: float = 3600.0) -> str:
    """Feed `commands` to `gnubg -t -q -r` with HOME=`home`; return what it printed."""
    home.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run([find_gnubg(), "-t", "-q", "-r"],
                          input="\n".join([*commands, ""]).encode(), capture_output=True,
                          timeout=timeout, env={**os.environ, "HOME": str(home)})
    return (proc.stdout + proc.stderr).decode(errors="replace")


def noises(number: int) -> tuple[float, float]:
    """The two players' noise in match `number` (from 1)."""
    k = len(NOISES)
    return NOISES[(number - 1) % k], NOISES[(3 * number + 1) % k]


def make_match(number: int, seed: int, length: int, out: Path, home: Path) -> dict[str, object]:
    """Have gnubg play match `number` and export it; its manifest entry."""
    name = f"match-{number:02d}.mat"
    noise = noises(number)
    commands = [f"set seed {seed}", "set player 0 gnu", "set player 1 gnu"]
    for p in (0, 1):
        for what in ("chequerplay", "cubedecision"):
            commands += [f"set player {p} {what} evaluation plies 0",
                         f"set player {p} {what} evaluation noise {noise[p]}"]
    target = out / name
    target.unlink(missing_ok=True)
    commands += [f"new match {length}", f"export match mat {target}"]
    said = run_gnubg(commands, home)
    if "has won the match" not in said or not target.exists():
        sys.exit(f"gnubg did not finish match {number}:\n{said[-2000:]}")
    return {"file": name, "seed": seed, "length": length,
            "players": [{"player": p, "plies": 0, "noise": noise[p]} for p in (0, 1)]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--matches", type=int, default=10)
    ap.add_argument("--length", type=int, default=7)
    ap.add_argument("--seed", type=int, default=4600, help="match i uses seed + i")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    entries = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(1, args.matches + 1):
            entry = make_match(i, args.seed + i, args.length, args.out, Path(tmp) / "home")
            print(entry, flush=True)
            entries.append(entry)
    manifest = {"command": "python benchmarks/make_gnubg_matches.py "
                           f"--matches {args.matches} --length {args.length} --seed {args.seed}",
                "gnubg": "GNU Backgammon 1.07.001 (Debian package gnubg)",
                "matches": entries}
    (args.out / "MANIFEST.json").write_text(json.dumps(manifest, indent=1) + "\n")


if __name__ == "__main__":
    main()
