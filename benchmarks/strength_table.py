"""The strength table of the shipped levels: every match it needs, run, kept and rendered.

    python benchmarks/strength_table.py --run [--only TEXT] [--jobs N]
    python benchmarks/strength_table.py --markdown [--update-readme]
    python benchmarks/strength_table.py --status

The table is a fixed list of matches (`MATCHES`), each one
`bench_strength.py` command: in every variant each level against the next
and every level against `heuristic`; in `backgammon`, `neural`, `neural-1`
and `neural-2` against GNU Backgammon at 0, 1 and 2 plies (its 2-ply as it
plays, `gnubg-own-2`: its own move filters).

A finished match is one line of `benchmarks/data/strength.jsonl`: its
command, the figures `bench_strength.py` prints, the date, and the
*fingerprint* of both levels: the SHA-256 of every network file the level
plays with (the contact, race, crashed and, for a search, pruning networks),
the search's move filters and pruning, and for `heuristic` its source; and
that of the luck adjustment's judge (the variant's networks).
`--markdown` renders only records whose fingerprint is that of the levels
as they ship now: a network shipped or a filter changed makes the figures
it invalidated disappear from the table (shown as not measured) until
`--run` plays the match again. `--run` plays the matches that have no
current record, in the table's order, appending each as it finishes (so a
stopped run resumes).
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

HERE = Path(__file__).resolve().parent
RECORDS = HERE / "data" / "strength.jsonl"
VARIANTS = ("jacquet", "jacquet-be", "backgammon", "long-nardy")
LADDER = ("random", "heuristic", "neural", "neural-1", "neural-2")


@dataclass(frozen=True)
class Match:
    """One `bench_strength.py` run of the table: A against B."""

    variant: str
    a: str
    b: str
    games: int
    seed: int

    def command(self) -> str:
        return (f"python benchmarks/bench_strength.py --variant {self.variant} --a {self.a} "
                f"--b {self.b} --games {self.games} --seed {self.seed}")

    def key(self) -> tuple[str, str, str]:
        return self.variant, self.a, self.b


def _matches() -> list[Match]:
    """The table's matches, cheapest first within each part, each with its own seed.

    The first two rows of each variant and the 0-ply matches against GNU
    Backgammon keep the games and seeds they were first measured with. The
    searching levels play `heuristic` over 200 games (their margins are
    points, not hundredths: the interval is small beside them)."""
    kept = {"jacquet": ((76, 400), (11, 400)), "jacquet-be": ((77, 400), (21, 400)),
            "backgammon": ((78, 400), (33, 400)), "long-nardy": ((47, 400), (41, 2000))}
    out: list[Match] = []
    for i, v in enumerate(VARIANTS):
        (s_hr, g_hr), (s_nh, g_nh) = kept[v]
        base = 200 + 10 * i
        out += [Match(v, "heuristic", "random", g_hr, s_hr),
                Match(v, "neural", "heuristic", g_nh, s_nh),
                Match(v, "neural-1", "neural", 400, base + 1),
                Match(v, "neural-1", "heuristic", 200, base + 2),
                Match(v, "neural-2", "neural-1", 400, base + 3),
                Match(v, "neural-2", "heuristic", 200, base + 4)]
    out += [Match("backgammon", "random", "gnubg", 400, 79),
            Match("backgammon", "heuristic", "gnubg", 400, 80),
            Match("backgammon", "neural", "gnubg", 2000, 31),
            Match("backgammon", "neural", "gnubg-1", 2000, 36),
            Match("backgammon", "neural-1", "gnubg", 1000, 301),
            Match("backgammon", "neural-1", "gnubg-1", 1000, 302),
            Match("backgammon", "neural", "gnubg-own-2", 400, 303),
            Match("backgammon", "neural-1", "gnubg-own-2", 400, 304),
            Match("backgammon", "neural-2", "gnubg", 400, 305),
            Match("backgammon", "neural-2", "gnubg-1", 400, 306),
            Match("backgammon", "neural-2", "gnubg-own-2", 400, 307)]
    return out


MATCHES = _matches()


def _sha(path: Path) -> str | None:
    if not path.exists():
        return None
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def fingerprint(variant: str, level: str) -> dict[str, str | None]:
    """What a level plays with, as it ships now: the figures of a match hold while
    both its levels' fingerprints are unchanged."""
    root = HERE.parent / "jacquetd" / "bots"
    if level == "random":
        return {"level": "random"}
    if level == "heuristic":
        return {"level": "heuristic",
                "source": _sha(root / "heuristic.py"), "choosers": _sha(root / "choosers.py")}
    if level.startswith("gnubg"):
        import importlib.metadata

        return {"level": level, "gnubg": importlib.metadata.version("gnubg")}
    weights = root / "weights"
    out: dict[str, str | None] = {"level": level}
    for part in ("", "-race", "-crashed"):
        out[f"net{part}"] = _sha(weights / f"{variant}{part}.npz")
    if level != "neural":
        from jacquetd.search_settings import DEFAULT_SETTINGS

        out["prune"] = _sha(weights / f"{variant}-prune.npz") if DEFAULT_SETTINGS.prune else None
        out["filters"] = DEFAULT_SETTINGS.filter_text()
    return out


def judge_fingerprint(variant: str) -> dict[str, str | None]:
    """The networks of the luck adjustment's judge (the variant's network at 0 plies):
    the adjusted figures are unbiased whatever judges, but only this judge gives
    them again to the digit."""
    fp = fingerprint(variant, "neural")
    del fp["level"]
    return fp


def load_records(path: Path = RECORDS) -> list[dict]:
    """Every record of the file, in the order they were made."""
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def current(records: Iterable[dict]) -> dict[tuple[str, str, str], dict]:
    """The latest record of each of the table's matches (its games and seed) whose
    levels' and judge's fingerprints are today's."""
    table = set(MATCHES)
    found: dict[tuple[str, str, str], dict] = {}
    for r in records:
        m = Match(r["variant"], r["a"], r["b"], r["games"], r["seed"])
        if m in table and (r["fingerprint_a"] == fingerprint(m.variant, m.a)
                and r["fingerprint_b"] == fingerprint(m.variant, m.b)
                and r.get("judge") == judge_fingerprint(m.variant)):
            found[m.key()] = r
    return found


def run_match(m: Match, jobs: int) -> dict:
    """Play one match with `bench_strength.py` and return its record."""
    sys.path.insert(0, str(HERE))
    import bench_strength

    argv = ["--variant", m.variant, "--a", m.a, "--b", m.b, "--games", str(m.games),
            "--seed", str(m.seed), "--jobs", str(jobs), "--json"]
    started = time.monotonic()
    from contextlib import redirect_stdout
    from io import StringIO

    buf = StringIO()
    with redirect_stdout(buf):
        bench_strength.main(argv)
    printed = buf.getvalue()
    sys.stdout.write(printed)
    figures = json.loads(printed.strip().splitlines()[-1])
    return {"variant": m.variant, "a": m.a, "b": m.b, "games": m.games, "seed": m.seed,
            "command": m.command() + (f" --jobs {jobs}" if jobs > 1 else ""),
            "date": datetime.date.today().isoformat(),
            "ppg": round(figures["ppg"], 4), "ci95": round(figures["ci95"], 4),
            "ppg_adjusted": round(figures["ppg_adjusted"], 4),
            "ci95_adjusted": round(figures["ci95_adjusted"], 4),
            "wins": figures["wins"], "cpu_ms_a_move": figures["cpu_ms_a_move"],
            "seconds": round(time.monotonic() - started, 1),
            "fingerprint_a": fingerprint(m.variant, m.a),
            "fingerprint_b": fingerprint(m.variant, m.b),
            "judge": judge_fingerprint(m.variant)}


def _cell(r: dict | None) -> str:
    if r is None:
        return "not measured"
    m, h = r["ppg_adjusted"], r["ci95_adjusted"]
    return (f"**{m:+.3f}** ({m - h:+.3f} .. {m + h:+.3f}); {r['games']} games, "
            f"seed {r['seed']}")


def markdown(records: Sequence[dict]) -> str:
    """The table: points per game for A, luck-adjusted, with the 95% interval, the
    games and the seed of its `bench_strength.py` command; one column per variant,
    then `backgammon` against GNU Backgammon."""
    now = current(records)
    table = {m.key() for m in MATCHES}
    lines = ["| A against B | " + " | ".join(f"`{v}`" for v in VARIANTS) + " |",
             "|---|" + "---|" * len(VARIANTS)]
    pairs: list[tuple[str, str]] = []
    for m in MATCHES:
        if not m.b.startswith("gnubg") and (m.a, m.b) not in pairs:
            pairs.append((m.a, m.b))
    for a, b in pairs:
        cells = [_cell(now.get((v, a, b))) for v in VARIANTS]
        lines.append(f"| `{a}` against `{b}` | " + " | ".join(cells) + " |")
    lines += ["", "| `backgammon`: A against GNU Backgammon | 0-ply (`gnubg`) | 1-ply "
              "(`gnubg-1`) | 2-ply as it plays (`gnubg-own-2`) |", "|---|---|---|---|"]
    for a in LADDER:
        cells = [_cell(now.get(("backgammon", a, b))) if ("backgammon", a, b) in table
                 else "-" for b in ("gnubg", "gnubg-1", "gnubg-own-2")]
        lines.append(f"| `{a}` | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


START, END = "<!-- strength-table -->", "<!-- /strength-table -->"


def update_readme(table: str, path: Path = HERE.parent / "README.md") -> None:
    """Put `table` between the README's markers (a test checks they agree)."""
    text = path.read_text(encoding="utf-8")
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    path.write_text(f"{head}{START}\n{table}{END}{tail}", encoding="utf-8")


def status(records: Sequence[dict]) -> str:
    now = current(records)
    out = []
    for m in MATCHES:
        r = now.get(m.key())
        if r is None:
            state = "to run"
        else:
            spent = f", {r['seconds']:.0f} s" if r.get("seconds") is not None else ""
            state = f"{r['ppg_adjusted']:+.3f} ± {r['ci95_adjusted']:.3f} ({r['date']}{spent})"
        out.append(f"{m.command():<100} {state}")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--run", action="store_true",
                    help="play every match without a current record, appending each")
    ap.add_argument("--only", default=None,
                    help="with --run: only the matches whose command contains this text")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--markdown", action="store_true", help="print the table")
    ap.add_argument("--update-readme", action="store_true",
                    help="write the table into README.md, between its strength-table markers")
    ap.add_argument("--status", action="store_true",
                    help="list the matches, with their figures or 'to run'")
    ap.add_argument("--records", type=Path, default=RECORDS)
    args = ap.parse_args(argv)
    if args.run:
        for m in MATCHES:
            if m.key() in current(load_records(args.records)):
                continue
            if args.only and args.only not in m.command():
                continue
            print(f"== {m.command()}", flush=True)
            record = run_match(m, args.jobs)
            with args.records.open("a") as f:
                f.write(json.dumps(record, sort_keys=True) + "\n")
    if args.markdown:
        sys.stdout.write(markdown(load_records(args.records)))
    if args.update_readme:
        update_readme(markdown(load_records(args.records)))
    if args.status or not (args.run or args.markdown or args.update_readme):
        print(status(load_records(args.records)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
