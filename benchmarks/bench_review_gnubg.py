"""Our match review against GNU Backgammon's own analysis of the same matches.

    python benchmarks/bench_review_gnubg.py --plies 0
    python benchmarks/bench_review_gnubg.py --plies 2 --matches 1 --json out.json

For each saved match of benchmarks/data/gnubg-matches (made by make_gnubg_matches.py,
gnubg playing itself; `--matches N` takes the first N):

1. GNU Backgammon (`gnubg -t -q -r`, private HOME) imports the `.mat`, sets its
   analysis to `--plies` for checker play and cube decisions (its other analysis
   settings left at their defaults: cubeful, pruning nets, its move filters), turns
   the luck analysis off, sets its marks' thresholds to ours, runs `analyse match`,
   saves the analysed match as SGF and prints `show statistics match`. The whole run is
   timed, and a run that only imports the file is timed too: gnubg's analysis time is
   the difference (its start and the import subtracted).
2. jacquetd: `analyze_record` of the same `.mat` text at the same plies and thresholds,
   `luck` off, sent to a daemon this script spawns (`python -m jacquetd stdio`, through
   the client library), timed from request to reply. The daemon answers one untimed
   analysis first (its caches and tables are built then).

Compared, per match and over all:

- time: ours, gnubg's analysis, and the ratio ours / gnubg;
- marks: each decision (checker play keyed by game and the move's action index, cube
  decisions by game, action index and action) that either side marks `error` or
  `blunder` (gnubg: `bad`/`very bad`, its SGF properties BM on a move, double, take or
  drop, BC on a move for the no-double before its roll), the share marked so by both,
  and the disagreements with both sides' losses;
- error rates: the per-player error rate of gnubg's `show statistics match` (its
  "Overall" error rate, mEMG per unforced move and close-or-actual cube decision, divided
  by -1000 to be normalised equity, EMG, per decision) against our summary's
  `error_rate` (EMG per non-forced move and counted cube decision), the pairs listed and
  Pearson's r over every player of every match;
- cube: every cube decision that either side finds costly (at or above `doubtful`),
  side by side: game, action index, side, action, each side's right action and cost.

Units. Both sides give match figures as normalised equity (EMG). gnubg's checker losses
are read from its SGF (`A[i]` the played move's rank, each candidate's cubeful score, in
EMG: their differences add up exactly to the "Error total EMG" of its statistics). Its
cube figures in the SGF (`DA`) are match-winning chances: no double and double/take are
converted to EMG with W and L, the doubler's MWC after winning or losing one game at the
cube's value, from our match equity table (Kazaross XG2, gnubg's default table), which
makes double/pass exactly +1, as gnubg prints it.

Alignment. The two are matched decision by decision, game by game: gnubg's SGF nodes
(moves, doubles, takes, drops) in order against the actions of our reading of the
`.mat` replayed on our rules. For every move the side, the dice and the resulting
position (gnubg's move applied on our board) must agree; any disagreement is printed
under "misaligned" and the game's remaining decisions are left out of the comparison.

Thresholds: ours (`doubtful` 0.04, `error` 0.08, `blunder` 0.16, gnubg's defaults before
1.07; 1.07's are 0.03/0.06/0.12), on both sides; `--thresholds gnubg` takes 1.07's.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_gnubg_matches import find_gnubg

HERE = Path(__file__).resolve().parent
DATA = HERE / "data" / "gnubg-matches"
THRESHOLDS = {"ours": {"doubtful": 0.04, "error": 0.08, "blunder": 0.16},
              "gnubg": {"doubtful": 0.03, "error": 0.06, "blunder": 0.12}}
SERIOUS = ("error", "blunder")
#: A decision marked by one side only is "near" when the other side's loss is this close
#: below the `error` threshold.
NEAR = 0.02


def run_gnubg(commands: list[str], home: Path) -> tuple[str, float, float]:
    """Feed `commands` to `gnubg -t -q -r`; (what it printed, wall seconds, CPU seconds
    of gnubg, all its threads)."""
    home.mkdir(parents=True, exist_ok=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run([find_gnubg(), "-t", "-q", "-r"],
                          input="\n".join([*commands, ""]).encode(), capture_output=True,
                          timeout=24 * 3600, env={**os.environ, "HOME": str(home)})
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return (proc.stdout + proc.stderr).decode(errors="replace"), wall, cpu


def tree_cpu_seconds(root: int) -> float:
    """CPU seconds of process `root` and every live descendant (and what the reaped
    ones left in their parents' counts), from /proc."""
    parent: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    parent[int(entry)] = int(fh.read().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
    tree, grew = {root}, True
    while grew:
        more = {p for p, pp in parent.items() if pp in tree and p not in tree}
        tree |= more
        grew = bool(more)
    total = 0.0
    for pid in tree:
        try:
            with open(f"/proc/{pid}/stat") as fh:
                f = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(x) for x in f[11:15]) / os.sysconf("SC_CLK_TCK")
    return total


# --- gnubg's side -------------------------------------------------------------------

@dataclass
class Node:
    """One decision node of gnubg's analysed SGF."""

    player: int
    kind: str  # move, double, take, drop
    dice: tuple[int, int] | None = None
    pairs: list[tuple[int, int]] = field(default_factory=list)  # mover's numbering
    loss: float | None = None  # checker loss, EMG
    mark: str | None = None  # BM/DO: the move's (or the cube action's) mark
    cube_mark: str | None = None  # BC/DC on a move: the no-double before its roll
    cube_mwc: tuple[float, float] | None = None  # DA: no double, double/take (MWC)


_PROP = re.compile(r"([A-Z]+)((?:\[[^\]]*\])+)")
_MARK = {"BM[2]": "blunder", "BM[1]": "error", "DO[]": "doubtful"}
_CMARK = {"BC[2]": "blunder", "BC[1]": "error", "DC[]": "doubtful"}


def _point(c: str, player: int) -> int:
    """An SGF move letter as a point of the mover's numbering (25 bar, 0 off)."""
    if c == "y":
        return 25
    if c == "z":
        return 0
    return (ord(c) - ord("a") if player == 0 else ord("x") - ord(c)) + 1


def parse_gnubg_sgf(text: str) -> list[list[Node]]:
    """The decision nodes of each game of gnubg's SGF (`save match` after `analyse`)."""
    games: list[list[Node]] = []
    for chunk in text.split("(;FF[4]")[1:]:
        nodes: list[Node] = []
        for raw in chunk.split("\n;")[1:]:
            props: dict[str, list[str]] = {}
            for name, vals in _PROP.findall(raw):
                props[name] = re.findall(r"\[([^\]]*)\]", vals)
            who = "W" if "W" in props else "B" if "B" in props else None
            if who is None:
                continue
            player = 0 if who == "W" else 1
            value = props[who][0]
            flat = "".join(f"{k}[{v[0] if v else ''}]" for k, v in props.items())
            mark = next((m for k, m in _MARK.items() if k in flat), None)
            cube_mark = next((m for k, m in _CMARK.items() if k in flat), None)
            da = None
            if "DA" in props:
                nums = props["DA"][0].split()
                if nums[0] == "E":  # E ver 3 plies det noise prune, then 2 x 7 outputs
                    out = [float(x) for x in nums[7:]]
                    da = (out[6], out[13])
            if value in ("double", "take", "drop"):
                nodes.append(Node(player, value, mark=mark, cube_mwc=da))
                continue
            dice = (int(value[0]), int(value[1]))
            letters = value[2:]
            pairs = [(_point(letters[i], player), _point(letters[i + 1], player))
                     for i in range(0, len(letters) - 1, 2)]
            loss = None
            if "A" in props and len(props["A"]) > 1:
                played = int(props["A"][0])
                scores = [float(m.split()[9]) for m in props["A"][1:]]
                loss = max(scores) - scores[played]
            nodes.append(Node(player, "move", dice, pairs, loss, mark, cube_mark, da))
        games.append(nodes)
    return games


def gnubg_error_rates(said: str) -> tuple[list[float], list[float]]:
    """(overall, checker) error rates of both players from `show statistics match`, in
    EMG per decision (gnubg prints mEMG, negative)."""
    rates: dict[str, list[float]] = {}
    section = ""
    for line in said.splitlines():
        if line.endswith("statistics") and " " in line and not line.startswith(" "):
            section = line.split()[0]
        if line.startswith("Error rate mEMG"):
            nums = re.findall(r"([+-]?\d+\.\d+)\s+\(", line)
            rates[section] = [abs(float(x)) / 1000.0 for x in nums[:2]]
    return rates["Overall"], rates["Chequerplay"]


def gnubg_analyse(mat: Path, plies: int, limits: dict[str, float], work: Path
                  ) -> dict[str, Any]:
    """gnubg's analysis of `mat`: nodes, error rates and the times."""
    sgf = work / (mat.stem + ".sgf")
    head = [f"import mat {mat}"]
    settings = [f"set analysis chequerplay evaluation plies {plies}",
                f"set analysis cubedecision evaluation plies {plies}",
                "set analysis luck off",
                f"set analysis threshold doubtful {limits['doubtful']}",
                f"set analysis threshold bad {limits['error']}",
                f"set analysis threshold verybad {limits['blunder']}"]
    _, base, base_cpu = run_gnubg([*head, *settings], work / "home")
    said, total, cpu = run_gnubg([*head, *settings, "analyse match", f"save match {sgf}",
                             "show statistics match"], work / "home")
    if "not a valid" in said or not sgf.exists():
        raise SystemExit(f"gnubg could not analyse {mat}:\n{said[-2000:]}")
    overall, checker = gnubg_error_rates(said)
    return {"games": parse_gnubg_sgf(sgf.read_text()), "error_rate": overall,
            "checker_rate": checker, "seconds": total, "startup": base,
            "analysis_seconds": max(total - base, 1e-9),
            "analysis_cpu_seconds": max(cpu - base_cpu, 0.0)}


# --- our side -----------------------------------------------------------------------

def our_analyse(client: Any, text: str, plies: int, limits: dict[str, float]
                ) -> dict[str, Any]:
    pid = client.client.transport.pid
    cpu0 = tree_cpu_seconds(pid)
    t0 = time.perf_counter()
    result = client.request("analyze_record", record=text, plies=plies, luck=False,
                            timeout_ms=24 * 3600 * 1000, **limits)
    result["seconds"] = time.perf_counter() - t0
    result["cpu_seconds"] = tree_cpu_seconds(pid) - cpu0
    return result


# --- the comparison -----------------------------------------------------------------

def emg(mwc: float, scale: tuple[float, float] | None) -> float:
    if scale is None or scale[0] - scale[1] <= 1e-12:
        return mwc
    w, lose = scale
    return (2.0 * mwc - (w + lose)) / (w - lose)


def gnubg_cube(mwc: tuple[float, float], scale: tuple[float, float] | None, act: str
               ) -> tuple[str, float]:
    """gnubg's right action and the cost of `act`, from its DA figures (see the module)."""
    nd, dt = emg(mwc[0], scale), emg(mwc[1], scale)
    dp = 1.0
    dv = min(dt, dp)
    if act in ("double", "no_double"):
        right = "double" if dv > nd else "no_double"
        cost = max(0.0, nd - dv) if act == "double" else max(0.0, dv - nd)
    else:
        right = "take" if dt <= dp else "pass"
        cost = max(0.0, dt - dp) if act == "take" else max(0.0, dp - dt)
    return right, cost


def mark_of(loss: float, limits: dict[str, float]) -> str | None:
    out = None
    for name in ("doubtful", "error", "blunder"):
        if loss >= limits[name] - 1e-9:
            out = name
    return out


def compare(name: str, text: str, theirs: dict[str, Any], ours: dict[str, Any],
            limits: dict[str, float]) -> dict[str, Any]:
    """Align gnubg's nodes with our replay of the record; the decisions of both."""
    from jacquetd_protocol.match_files import read_match_file

    from jacquetd.bots import review
    from jacquetd.matches.records import replay
    from jacquetd.rules import apply_move

    record = read_match_file(text)
    steps: dict[int, list[Any]] = {}
    for step in replay(record):
        steps.setdefault(step.game, []).append(step)
    our_moves = {(m["game"], m["index"]): m for m in ours["moves"]}
    our_cube = {(c["game"], c["index"], c["action"]): c for c in ours["cube"]}
    decisions: dict[tuple[Any, ...], dict[str, Any]] = {}
    misaligned: list[str] = []
    for g, nodes in enumerate(theirs["games"], start=1):
        events = [s for s in steps.get(g, [])
                  if s.action.kind in ("move", "double", "take", "drop")]
        prev: dict[int, Any] = {}  # the roll step before each move step
        last_roll = None
        for s in steps.get(g, []):
            if s.action.kind == "roll":
                last_roll = s
            elif s.action.kind == "move":
                prev[s.index] = last_roll
                last_roll = None
        if len(events) != len(nodes):
            misaligned.append(f"{name} game {g}: {len(nodes)} gnubg decisions, "
                              f"{len(events)} of ours")
        doubled = None  # the double step a take or a drop answers
        for s, node in zip(events, nodes, strict=False):
            kind = s.action.kind
            where = f"{name} game {g} action {s.index}"
            if node.kind != kind or node.player != s.action.side:
                misaligned.append(f"{where}: gnubg {node.kind} of player {node.player}, "
                                  f"ours {kind} of side {s.action.side}")
                break
            if kind == "move":
                pos = s.position
                if tuple(sorted(pos.dice)) != tuple(sorted(node.dice or ())):
                    misaligned.append(f"{where}: dice gnubg {node.dice}, ours {pos.dice}")
                    break
                spelled = " ".join(f"{'bar' if a == 25 else a}/{'off' if b == 0 else b}"
                                   for a, b in node.pairs)
                try:
                    same = (apply_move(pos, spelled).after
                            == apply_move(pos, s.action.move or "").after)
                except Exception as exc:  # a move gnubg spells that we cannot read is reported
                    same = False
                    spelled += f" ({exc})"
                if not same:
                    misaligned.append(f"{where}: gnubg played {spelled!r}, "
                                      f"our record {s.action.move!r}")
                    break
                mine = our_moves.get((g, s.index))
                if node.loss is not None or mine is not None:
                    decisions[("move", g, s.index, s.action.side)] = {
                        "game": g, "index": s.index, "side": s.action.side, "kind": "move",
                        "dice": list(pos.dice), "move": s.action.move,
                        "gnubg_loss": node.loss, "gnubg_mark": node.mark,
                        "our_loss": None if mine is None else mine["loss"],
                        "our_mark": None if mine is None else mine["mark"],
                        "our_best": None if mine is None else mine["best"]}
                roll = prev.get(s.index)
                if roll is not None and (node.cube_mwc is not None
                                         or (g, roll.index, "no_double") in our_cube):
                    _cube(decisions, g, roll, "no_double", node.cube_mwc, node.cube_mark,
                          our_cube.get((g, roll.index, "no_double")), review, limits)
            else:
                act = {"drop": "pass"}.get(kind, kind)
                if kind == "double":
                    doubled = s
                _cube(decisions, g, s, act, node.cube_mwc, node.mark,
                      our_cube.get((g, s.index, act)), review, limits,
                      doubled.position if kind != "double" and doubled else None)
    return {"decisions": list(decisions.values()), "misaligned": misaligned}


def _cube(decisions: dict[tuple[Any, ...], dict[str, Any]], g: int, step: Any, act: str,
          mwc: tuple[float, float] | None, gmark: str | None, mine: dict[str, Any] | None,
          review: Any, limits: dict[str, float], doubler: Any = None) -> None:
    """One cube decision of both sides; `doubler` is the doubler's position (before
    the double) for a take or a pass, whose figures are the doubler's."""
    pos = doubler if doubler is not None else step.position
    base = pos.without_dice() if pos.dice else pos
    right, cost = (None, None) if mwc is None else gnubg_cube(mwc, review.match_scale(base),
                                                              act)
    decisions[("cube", g, step.index, act)] = {
        "game": g, "index": step.index, "side": step.action.side, "kind": "cube",
        "action": act, "gnubg_best": right, "gnubg_loss": cost, "gnubg_mark": gmark,
        "gnubg_mark_from_loss": None if cost is None else mark_of(cost, limits),
        "our_best": None if mine is None else mine["best"],
        "our_loss": None if mine is None else mine["loss"],
        "our_mark": None if mine is None else mine["mark"]}


def pearson(xs: list[float], ys: list[float]) -> float:
    return statistics.correlation(xs, ys) if len(xs) > 2 else float("nan")


def fmt(x: float | None, digits: int = 3) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--matches", type=int, default=10, help="the first N saved matches")
    ap.add_argument("--plies", type=int, default=2)
    ap.add_argument("--thresholds", choices=sorted(THRESHOLDS), default="ours")
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--json", type=Path, help="write every figure here")
    ap.add_argument("--summary-of", type=Path, metavar="JSON",
                    help="print the comparison of a run saved with --json; run nothing")
    args = ap.parse_args()
    if args.summary_of:
        saved = json.loads(args.summary_of.read_text())
        print(f"plies {saved['plies']}, thresholds {saved['thresholds']} on both sides, "
              f"{len(saved['matches'])} matches")
        summarise(saved, saved["thresholds"])
        return
    limits = THRESHOLDS[args.thresholds]
    from jacquetd_clients.spawning import default_engine_command
    from jacquetd_clients.sync import SimpleClient

    files = sorted(args.data.glob("match-*.mat"))[:args.matches]
    print(f"plies {args.plies}, thresholds {limits} on both sides, {len(files)} matches")
    client = SimpleClient.spawn(default_engine_command(), timeout=24 * 3600.0)
    report: dict[str, Any] = {"plies": args.plies, "thresholds": limits, "matches": []}
    try:
        our_analyse(client, files[0].read_text(), 0, limits)  # untimed: warms the daemon
        with tempfile.TemporaryDirectory() as tmp:
            for path in files:
                text = path.read_text()
                theirs = gnubg_analyse(path, args.plies, limits, Path(tmp))
                ours = our_analyse(client, text, args.plies, limits)
                cmp = compare(path.stem, text, theirs, ours, limits)
                entry = {"match": path.name, "gnubg_seconds": theirs["seconds"],
                         "gnubg_startup_seconds": theirs["startup"],
                         "gnubg_analysis_seconds": theirs["analysis_seconds"],
                         "gnubg_analysis_cpu_seconds": theirs["analysis_cpu_seconds"],
                         "our_seconds": ours["seconds"],
                         "our_cpu_seconds": ours["cpu_seconds"],
                         "ratio": ours["seconds"] / theirs["analysis_seconds"],
                         "gnubg_error_rate": theirs["error_rate"],
                         "gnubg_checker_rate": theirs["checker_rate"],
                         "our_error_rate": [s["error_rate"] for s in ours["summary"]],
                         "our_checker_rate": [s["loss"] / s["decisions"] if s["decisions"]
                                              else 0.0 for s in ours["summary"]],
                         **cmp}
                report["matches"].append(entry)
                print(f"{path.name}: gnubg {theirs['seconds']:.2f} s "
                      f"(analysis {theirs['analysis_seconds']:.2f} s after a "
                      f"{theirs['startup']:.2f} s start; CPU "
                      f"{theirs['analysis_cpu_seconds']:.2f} s), ours {ours['seconds']:.2f} s "
                      f"(CPU {ours['cpu_seconds']:.2f} s), "
                      f"ratio ours/gnubg {entry['ratio']:.2f}; "
                      f"{len(cmp['decisions'])} decisions, "
                      f"{len(cmp['misaligned'])} misaligned", flush=True)
    finally:
        client.close()
    summarise(report, limits)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n")


def summarise(report: dict[str, Any], limits: dict[str, float]) -> None:
    matches = report["matches"]
    ours_t = sum(m["our_seconds"] for m in matches)
    theirs_t = sum(m["gnubg_analysis_seconds"] for m in matches)
    print(f"\ntime: ours {ours_t:.2f} s, gnubg's analysis {theirs_t:.2f} s "
          f"(whole runs {sum(m['gnubg_seconds'] for m in matches):.2f} s), "
          f"ratio ours/gnubg {ours_t / theirs_t:.2f}; CPU: ours "
          f"{sum(m['our_cpu_seconds'] for m in matches):.2f} s, gnubg's analysis "
          f"{sum(m['gnubg_analysis_cpu_seconds'] for m in matches):.2f} s")
    misaligned = [x for m in matches for x in m["misaligned"]]
    print(f"misaligned: {len(misaligned)}")
    for line in misaligned:
        print("  " + line)
    decisions = [dict(d, match=m["match"]) for m in matches for d in m["decisions"]]
    out: dict[str, Any] = {}
    for kind in ("move", "cube", "all"):
        chosen = [d for d in decisions if kind in ("all", d["kind"])]
        g = [d for d in chosen if d["gnubg_mark"] in SERIOUS]
        o = [d for d in chosen if d["our_mark"] in SERIOUS]
        both = [d for d in chosen if d["gnubg_mark"] in SERIOUS and d["our_mark"] in SERIOUS]
        either = len(g) + len(o) - len(both)
        share = len(both) / either if either else float("nan")
        out[kind] = {"gnubg": len(g), "ours": len(o), "both": len(both), "either": either,
                     "share": share}
        print(f"marks error/blunder ({kind}): gnubg {len(g)}, ours {len(o)}, both "
              f"{len(both)} of {either} marked by either: {100 * share:.1f}%")
    report["marks"] = out
    split = [d for d in decisions if (d["gnubg_mark"] in SERIOUS) != (d["our_mark"] in SERIOUS)]
    near = [d for d in split
            if min(x for x in (d["gnubg_loss"], d["our_loss"]) if x is not None)
            >= limits["error"] - NEAR]
    print(f"of the {len(split)} decisions marked by one side only, {len(near)} have the "
          f"other side's loss within {NEAR} of the `error` threshold")
    report["marks"]["near_threshold"] = len(near)
    print("disagreements (decision marked error/blunder by one side only):")
    for d in decisions:
        if (d["gnubg_mark"] in SERIOUS) != (d["our_mark"] in SERIOUS):
            what = (f"{d['dice']} {d['move']} (our best {d['our_best']})" if d["kind"] == "move"
                    else d["action"])
            print(f"  {d['match']} g{d['game']} #{d['index']} side {d['side']} {d['kind']} "
                  f"{what}: gnubg {d['gnubg_mark']} {fmt(d['gnubg_loss'])}, ours "
                  f"{d['our_mark']} {fmt(d['our_loss'])}")
    xs: list[float] = []
    ys: list[float] = []
    cx: list[float] = []
    cy: list[float] = []
    print("\nper-player error rates (EMG per decision; x500 = PR): gnubg / ours "
          "[checker only: gnubg / ours]")
    for m in matches:
        for p in (0, 1):
            xs.append(m["gnubg_error_rate"][p])
            ys.append(m["our_error_rate"][p])
            cx.append(m["gnubg_checker_rate"][p])
            cy.append(m["our_checker_rate"][p])
            print(f"  {m['match']} player {p}: {xs[-1]:.4f} / {ys[-1]:.4f}  "
                  f"[{cx[-1]:.4f} / {cy[-1]:.4f}]")
    r, rc = pearson(xs, ys), pearson(cx, cy)
    slope = sum(x * y for x, y in zip(xs, ys, strict=True)) / sum(x * x for x in xs)
    print(f"Pearson r over {len(xs)} players: overall {r:.3f}, checker play {rc:.3f}; "
          f"ours / gnubg's (least squares through 0): {slope:.3f}")
    report["pearson_r"] = {"overall": r, "checker": rc}
    report["rate_slope"] = slope
    print(f"\ncube decisions either side finds costly (>= {limits['doubtful']}):")
    print("  match game #action side action: gnubg right/cost/mark | ours right/cost/mark")
    for d in decisions:
        if d["kind"] != "cube":
            continue
        costly = [x for x in (d["gnubg_loss"], d["our_loss"]) if x is not None]
        if not costly or max(costly) < limits["doubtful"] - 1e-9:
            continue
        print(f"  {d['match']} g{d['game']} #{d['index']} side {d['side']} {d['action']}: "
              f"gnubg {d['gnubg_best']} {fmt(d['gnubg_loss'])} {d['gnubg_mark']} | "
              f"ours {d['our_best']} {fmt(d['our_loss'])} {d['our_mark']}")


if __name__ == "__main__":
    main()
