"""Build a truth set: checker-play decisions with their candidate plays rolled out.

    python benchmarks/make_truth.py --variant backgammon --decisions 300 --trials 648 \
        --horizon 5 --seed 17

Decisions come from seeded games: even game numbers are `neural-2` self-play,
odd ones `neural-2` against `heuristic` (sides alternating). Every turn with
at least two legal plays whose 0-ply equities differ is a candidate; one in
`--rate` of them (seeded) is kept, so that the decisions spread over many
games. For each decision the candidate plays are the choices of 0, 1 and 2
plies plus the next two best of the 2-ply ranking; each is rolled out
(`jacquetd.bots.fastrollout`: 0-ply player for both sides, truncated after
`--horizon` turns with the evaluator at the horizon, stratified first roll,
luck subtracted at every turn) with `--trials` trials. All candidates of a
decision share the dice (common random numbers), so the differences between
them are much more precise than the equities themselves: each record gives
both standard errors.

`--player gnubg` (backgammon) rolls out the decisions and candidates of an
existing truth file (`--candidates-from`, default `truth/<variant>.jsonl`) again,
with GNU Backgammon's 0-ply evaluator playing both sides and scoring the
horizon (`gnubg_rollout.py`; our network only measures the luck), into
`truth/<variant>.gnubg.jsonl`: a truth that does not share our network's
judgement. `--network NAME` rolls out the decisions and candidates of an existing truth file
(as `--player gnubg` does) with another of our networks playing both sides and scoring
the horizon: `truth/networks/NAME`, kept in the repo beside the set, into
`truth/<variant>.<tag>.jsonl` (`NAME` = `<variant>-<tag>.npz`). A network shipped
since the truth set was made is a stronger player than the one that made it, and
the set it rolls out is a second opinion that does not share the older network's
judgement. `--plies N` rolls out the decisions and candidates of an existing truth file
with a player that searches N plies (`fastrollout.SearchRollout`: the shipped network,
or `--network`, with the daemon's move filter and pruning, scoring the horizon at N
plies), into `truth/<variant>.ply<N>.jsonl`: a stronger judge than the 0-ply player
that made the set, at the cost of a search a turn. `--jobs N` rolls out N decisions at a
time.

Output: `benchmarks/truth/<variant>.jsonl`. The first line is a header (the
command, seed, code version, rollout settings, and the counts actually
reached); each next line is one decision. The file is rewritten after every
decision, and a rerun with the same settings resumes where it stopped (the
games are replayed, the finished rollouts are kept). Progress goes to
`<variant>.progress` beside it.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))  # gnubg_rollout, run as a script

import numpy as np

from jacquetd import fastgen
from jacquetd.bots.choosers import heuristic_chooser
from jacquetd.bots.evaluator import Evaluator, NeuralEvaluator, neural_evaluator, plays_probs
from jacquetd.bots.fastrollout import RolloutResult, SearchRollout, TruncatedRollout
from jacquetd.bots.net import Net, equity
from jacquetd.bots.phases import phase_of
from jacquetd.bots.search import DEFAULT_SETTINGS, Searcher, SearchSettings, State, after
from jacquetd.bots.selfplay import Chooser, Turn, play_game
from jacquetd.rules import RawPlay, Variant, find_variant, generate_raw

TRUTH_DIR = Path(__file__).resolve().parent / "truth"
FORMAT = 1
TRUTH_NETWORKS = TRUTH_DIR / "networks"
"""The networks that sampled and rolled out the truth sets, kept when a new one ships."""

_TRUTH_EVALUATORS: dict[str, NeuralEvaluator] = {}
_ROLLOUT_EVALUATORS: dict[tuple[str, str], NeuralEvaluator] = {}


def truth_evaluator(variant_name: str) -> NeuralEvaluator:
    """The evaluator the truth sets of a variant were made with.

    The decisions were sampled by its 2-ply search and the candidates rolled out by
    its 0-ply player, so regenerating a slice, rolling out a play outside the
    candidates or sampling the cube positions again must use it, not whatever
    network ships today: `truth/networks/<variant>.npz` when a newer network has
    shipped since, else the shipped one.
    """
    if variant_name not in _TRUTH_EVALUATORS:
        path = TRUTH_NETWORKS / f"{variant_name}.npz"
        _TRUTH_EVALUATORS[variant_name] = (
            NeuralEvaluator(find_variant(variant_name), Net.load(path)) if path.exists()
            else neural_evaluator(variant_name))
    return _TRUTH_EVALUATORS[variant_name]


def network_tag(variant_name: str, network: str) -> str:
    """The tag of a rollout network's file name, `<variant>-<tag>.npz`: the truth file
    it rolls out is `<variant>.<tag>.jsonl`."""
    stem = Path(network).stem
    prefix = f"{variant_name}-"
    if Path(network).suffix != ".npz" or not stem.startswith(prefix) or stem == prefix:
        raise SystemExit(f"--network {network}: name it {prefix}<tag>.npz in "
                         f"{TRUTH_NETWORKS.relative_to(TRUTH_DIR.parent)}/")
    return stem[len(prefix):]


def rollout_evaluator(variant_name: str, network: str) -> NeuralEvaluator:
    """The evaluator of a rollout network kept in `truth/networks/` (`--network`)."""
    key = (variant_name, network)
    if key not in _ROLLOUT_EVALUATORS:
        path = TRUTH_NETWORKS / Path(network).name
        if not path.exists():
            raise SystemExit(f"no network {path.name} in {TRUTH_NETWORKS.name}/")
        _ROLLOUT_EVALUATORS[key] = NeuralEvaluator(find_variant(variant_name), Net.load(path))
    return _ROLLOUT_EVALUATORS[key]


@dataclass(frozen=True)
class Decision:
    """A sampled decision before its rollouts."""

    index: int
    game: int
    turn: int
    source: str
    state: State
    dice: tuple[int, int]
    raws: tuple[RawPlay, ...]
    candidates: tuple[int, ...]
    """Indexes into `raws`: the 2-, 1- and 0-ply choices, then the next best."""
    choices: dict[int, int]
    """plies -> index into `candidates`."""
    ply_equity: dict[int, dict[int, float]]
    """plies -> {candidate index -> equity at that depth} (only those searched)."""


def code_version() -> str:
    try:
        out = subprocess.run(["git", "describe", "--always", "--dirty"], capture_output=True,
                             text=True, cwd=Path(__file__).resolve().parent, check=True)
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def choose_candidates(searcher: Searcher, state: State, raws: Sequence[RawPlay], extra: int
                      ) -> tuple[tuple[int, ...], dict[int, int], dict[int, dict[int, float]]]:
    rankings = list(searcher.rank(state, raws, 2))
    while len(rankings) < 3:  # a single play never reaches here; keep the shape anyway
        rankings.append(rankings[-1])
    picks = [rankings[d][0][0] for d in (2, 1, 0)]
    cands: list[int] = []
    for i in picks:
        if i not in cands:
            cands.append(i)
    added = 0
    for i, _p, _d in rankings[2]:
        if added >= extra:
            break
        if i not in cands:
            cands.append(i)
            added += 1
    choices = {d: cands.index(rankings[d][0][0]) for d in (0, 1, 2)}
    ply_eq: dict[int, dict[int, float]] = {}
    for d in (0, 1, 2):
        row = {}
        for i, p, depth in rankings[d]:
            if depth == d and i in cands:
                row[cands.index(i)] = float(equity(p))
        ply_eq[d] = row
    return tuple(cands), choices, ply_eq


def game_decisions(variant: Variant, searcher: Searcher, choosers: tuple[Chooser, Chooser],
                   seed: int, game: int, source: str, rate: float, extra: int
                   ) -> list[Decision]:
    """Play game `game` and return the decisions sampled from it (index 0 each)."""
    ev = searcher.ev
    pick = np.random.default_rng([seed, game, 7])
    found: list[Decision] = []
    turn_no = [0]

    def hook(player: int, turn: Turn, raws: Sequence[RawPlay], k: int) -> None:
        n = turn_no[0]
        turn_no[0] += 1
        if len(raws) < 2:
            return
        state = State(turn.me, turn.opp, turn.me_flag, turn.opp_flag)
        eq = equity(plays_probs(ev, raws, turn.me_flag, turn.opp_flag))
        if float(eq.max() - eq.min()) < 1e-6:
            return
        if pick.random() >= rate:
            return
        cands, choices, ply_eq = choose_candidates(searcher, state, raws, extra)
        found.append(Decision(0, game, n, source, state, turn.dice, tuple(raws), cands,
                              choices, ply_eq))

    play_game(variant, choosers, np.random.default_rng([seed, game]), first=game % 2,
              on_turn=hook)
    return found


TRUTH_SEARCH = SearchSettings(prune=False)
"""The search that picks the decisions and their candidates: every reply searched in
full, as when the shipped sets were made, so that they regenerate the same."""


def decisions(variant: Variant, seed: int, rate: float, extra: int) -> Iterator[Decision]:
    """The endless, seeded stream of sampled decisions of `variant`."""
    searcher = Searcher(truth_evaluator(variant.name), TRUTH_SEARCH)

    def neural2(turn: Turn, raws: Sequence[RawPlay]) -> int:
        return searcher.best(State(turn.me, turn.opp, turn.me_flag, turn.opp_flag), raws, 2)

    heur = heuristic_chooser(variant)
    index = 0
    game = 0
    while True:
        if game % 2 == 0:
            choosers: tuple[Chooser, Chooser] = (neural2, neural2)
            source = "neural-2 self-play"
        else:
            choosers = (neural2, heur) if (game // 2) % 2 == 0 else (heur, neural2)
            source = "neural-2 vs heuristic"
        for d in game_decisions(variant, searcher, choosers, seed, game, source, rate, extra):
            yield Decision(index, d.game, d.turn, d.source, d.state, d.dice, d.raws,
                           d.candidates, d.choices, d.ply_equity)
            index += 1
        game += 1


class Roller(Protocol):
    """What rolls out a candidate: `TruncatedRollout` or `gnubg_rollout.GnubgRollout`."""

    @property
    def ev(self) -> Evaluator: ...

    def run(self, s: State, *, trials: int, seed: int | list[int], horizon: int
            ) -> RolloutResult: ...


PLAYERS = ("neural", "gnubg")


def make_roller(variant_name: str, player: str, network: str | None = None,
                compiled: bool = False, plies: int = 0) -> Roller:
    """The roller of a truth file's `player`, `network` and `plies` settings (`neural`:
    our 0-ply network, the one the truth sets were made with or `network` from
    `truth/networks/`; with `plies` >= 1 the player searches that deep, with the shipped
    network unless `network` names one, as the daemon's `neural-<plies>` level does;
    `gnubg`: GNU Backgammon at 0 plies). With `compiled` (`neural` at 0 plies only) the
    trials are played in compiled code, on its own dice (`rolloutkernel`)."""
    if player == "gnubg":
        if compiled or plies:
            raise ValueError("--compiled and --plies roll out with our network "
                             "(--player neural)")
        from gnubg_rollout import GnubgRollout

        return GnubgRollout(truth_evaluator(variant_name))
    if plies:
        if compiled:
            raise ValueError("--compiled plays 0-ply rollouts only")
        ev = (rollout_evaluator(variant_name, network) if network is not None
              else neural_evaluator(variant_name))
        return SearchRollout(ev, plies=plies)
    ev = (rollout_evaluator(variant_name, network) if network is not None
          else truth_evaluator(variant_name))
    if compiled:
        from jacquetd.bots.rolloutkernel import CompiledRollout

        return CompiledRollout(ev)
    return TruncatedRollout(ev)


def rollout_description(player: str, horizon: int, trials: int, network: str | None = None,
                        compiled: bool = False, plies: int = 0) -> dict[str, Any]:
    """The header's account of how the candidates were rolled out."""
    if player == "gnubg":
        from gnubg_rollout import AT_HORIZON, PLAYER

        who, at_horizon = PLAYER, AT_HORIZON
        luck = ("luck of every turn subtracted (measured by our 0-ply network: a control "
                "variate with zero mean whoever plays)")
    else:
        who, at_horizon = "neural (0 plies), both sides", "0-ply evaluator, cubeless equity"
        if network is not None:
            who = f"neural (0 plies, networks/{network}), both sides"
        if plies:
            net = f"networks/{network}" if network is not None else "the shipped network"
            who = (f"neural-{plies} ({net} searching {plies} "
                   f"{'ply' if plies == 1 else 'plies'}, move filter "
                   f"{DEFAULT_SETTINGS.filter_text()}, pruning), both sides")
            at_horizon = f"the last mover's {plies}-ply equity, cubeless"
        luck = "luck of every turn subtracted (0-ply)"
    return {"player": who, "horizon_turns": horizon, "at_horizon": at_horizon,
            "trials": trials,
            "variance_reduction": f"stratified first roll (36), {luck}, common dice for "
                                  "all candidates of a decision",
            "units": "cubeless money equity of the side on roll (points per game, cube 1)",
            **({"dice": "counter-based (splitmix64 of seed, trial and turn); plays, "
                        "evaluation and dice in compiled code (rolloutkernel)"}
               if compiled else {})}


def recorded(variant: Variant, records: Sequence[dict[str, Any]]) -> Iterator[Decision]:
    """The decisions of another truth file's records, with the same candidates and
    choices (the plays regenerated and matched by the positions they leave)."""
    for rec in records:
        state = State(tuple(rec["me"]), tuple(rec["opp"]), rec["me_flag"], rec["opp_flag"])
        dice = (int(rec["dice"][0]), int(rec["dice"][1]))
        raws = tuple(generate_raw(variant, state.me, state.opp, dice))
        index = {(r.me, r.opp): i for i, r in enumerate(raws)}
        cands = tuple(index[(tuple(c["after_me"]), tuple(c["after_opp"]))]
                      for c in rec["candidates"])
        ply_eq = {int(p): {k: float(c["ply_equity"][p]) for k, c in enumerate(rec["candidates"])
                           if p in c["ply_equity"]} for p in ("0", "1", "2")}
        yield Decision(rec["id"], rec["game"], rec["turn"], rec["source"], state, dice, raws,
                       cands, {int(p): k for p, k in rec["choices"].items()}, ply_eq)


_WORKER: dict[str, Any] = {}


def _init_worker(variant_name: str, player: str, network: str | None, seed: int, trials: int,
                 horizon: int, compiled: bool = False, plies: int = 0) -> None:
    fastgen.warm_up()
    _WORKER.update(variant=find_variant(variant_name),
                   roller=make_roller(variant_name, player, network, compiled, plies),
                   seed=seed, trials=trials, horizon=horizon)


def _roll_out_in_worker(d: Decision) -> tuple[dict[str, Any], float]:
    t = time.process_time()
    rec = roll_out(_WORKER["variant"], _WORKER["roller"], d, _WORKER["seed"], _WORKER["trials"],
                   _WORKER["horizon"])
    return rec, time.process_time() - t


def roll_out(variant: Variant, roller: Roller, d: Decision, seed: int, trials: int,
             horizon: int) -> dict[str, Any]:
    """The record of a decision: every candidate rolled out with common dice."""
    values: list[np.ndarray] = []
    cands = []
    for c in d.candidates:
        raw = d.raws[c]
        if raw.me[0] == 15:  # the play wins: its value is exact
            p = plays_probs(roller.ev, [raw], d.state.me_flag, d.state.opp_flag)[0]
            v = np.full(trials, float(equity(p)))
            values.append(v)
            cands.append((raw, v, 0.0, 0.0))
            continue
        nxt = after(d.state, raw, variant.tracks_primes)
        r = roller.run(nxt, trials=trials, seed=[seed, d.index], horizon=horizon)
        v = -r.values
        values.append(v)
        cands.append((raw, v, r.std_error, r.std_error_raw))
    means = [float(v.mean()) for v in values]
    best = int(np.argmax(means))
    out_cands = []
    for k, (raw, v, se, se_raw) in enumerate(cands):
        diff = v - values[best]
        out_cands.append({
            "after_me": list(raw.me), "after_opp": list(raw.opp),
            "steps": [list(s) for s in raw.steps],
            "equity": round(means[k], 5), "se": round(se, 5), "se_raw": round(se_raw, 5),
            "diff": round(float(diff.mean()), 5),
            "diff_se": round(float(diff.std(ddof=1) / np.sqrt(trials)), 5),
            "ply_equity": {str(p): round(row[k], 5) for p, row in d.ply_equity.items()
                           if k in row},
        })
    return {
        "id": d.index, "game": d.game, "turn": d.turn, "source": d.source,
        "me": list(d.state.me), "opp": list(d.state.opp),
        "me_flag": d.state.me_flag, "opp_flag": d.state.opp_flag,
        "dice": list(d.dice), "legal_plays": len(d.raws),
        "phase": phase_of(variant, d.state.me, d.state.opp),
        "choices": {str(p): k for p, k in d.choices.items()},
        "best": best, "candidates": out_cands,
    }


def read_truth(path: Path) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """The header and the decision records of a truth file (None, [] if it is missing)."""
    if not path.exists():
        return None, []
    lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    if not lines or lines[0].get("type") != "header":
        raise SystemExit(f"{path.name}: no header line")
    return lines[0], lines[1:]


def write_truth(path: Path, header: dict[str, Any], records: list[dict[str, Any]]) -> None:
    tmp = path.with_suffix(".tmp")
    with tmp.open("w") as f:
        f.write(json.dumps(header) + "\n")
        for r in records:
            f.write(json.dumps(r, separators=(",", ":")) + "\n")
    tmp.replace(path)


SETTINGS = ("variant", "seed", "trials", "horizon", "rate", "extra", "player", "network",
            "compiled", "plies")
DEFAULTS: dict[str, Any] = {"player": "neural", "network": None, "compiled": None,
                            "plies": None}
"""Settings added after the first truth files were made, with the value those files had."""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", required=True)
    ap.add_argument("--decisions", type=int, default=300, help="decisions wanted")
    ap.add_argument("--trials", type=int, default=648, help="trials per candidate play")
    ap.add_argument("--horizon", type=int, default=5, help="turns before truncation")
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--rate", type=float, default=0.25,
                    help="share of the eligible turns of a game that are kept")
    ap.add_argument("--extra", type=int, default=2,
                    help="candidates beyond the 0-, 1- and 2-ply choices")
    ap.add_argument("--player", choices=PLAYERS, default="neural",
                    help="who plays the rollouts and scores the horizon (gnubg: backgammon, "
                         "the decisions and candidates of --candidates-from)")
    ap.add_argument("--network", default=None,
                    help="with --player neural: this network of truth/networks/ "
                         "(<variant>-<tag>.npz) plays the rollouts and scores the horizon, "
                         "on the decisions and candidates of --candidates-from")
    ap.add_argument("--candidates-from", default=None,
                    help="take the decisions and candidates of this truth file instead of "
                         "sampling them (default with --player gnubg or --network: "
                         "truth/<variant>.jsonl)")
    ap.add_argument("--compiled", action="store_const", const=True, default=None,
                    help="with --player neural: play the trials in compiled code "
                         "(rolloutkernel: the same players and variance reduction on other "
                         "dice, several times faster); recorded in the header")
    ap.add_argument("--plies", type=int, default=None,
                    help="with --player neural: the rollout player searches this deep (1 or "
                         "more), with the shipped network unless --network names one, on "
                         "the decisions and candidates of --candidates-from (default "
                         "truth/<variant>.jsonl), into truth/<variant>.ply<N>.jsonl: a "
                         "judge stronger than the 0-ply player")
    ap.add_argument("--jobs", type=int, default=1, help="decisions rolled out at a time")
    ap.add_argument("--out", default=None, help="output file (default: truth/<variant>.jsonl, "
                                                "truth/<variant>.gnubg.jsonl for gnubg, "
                                                "truth/<variant>.<tag>.jsonl for --network)")
    ap.add_argument("--max-minutes", type=float, default=None,
                    help="stop cleanly after this long (the file stays resumable)")
    args = ap.parse_args(argv)
    v = find_variant(args.variant)
    args.variant = v.name
    if args.player == "gnubg" and v.name != "backgammon":
        raise SystemExit("gnubg plays backgammon only")
    if args.network is not None:
        if args.player != "neural":
            raise SystemExit("--network is a network of ours: use it with --player neural")
        args.network = Path(args.network).name
        suffix = f".{network_tag(v.name, args.network)}"
        rollout_evaluator(v.name, args.network)  # fails early on a missing file
    else:
        suffix = "" if args.player == "neural" else f".{args.player}"
    if args.plies is not None:
        if args.plies < 1:
            raise SystemExit("--plies is 1 or more (0 plies is the default player)")
        if args.player != "neural" or args.compiled:
            raise SystemExit("--plies is our network searching: use it with --player neural, "
                             "without --compiled")
        suffix += f".ply{args.plies}"
    path = Path(args.out) if args.out else TRUTH_DIR / f"{v.name}{suffix}.jsonl"
    source = args.candidates_from
    if source is None and (args.player != "neural" or args.network is not None
                           or args.plies is not None):
        source = str(TRUTH_DIR / f"{v.name}.jsonl")
    path.parent.mkdir(parents=True, exist_ok=True)
    progress = path.with_suffix(".progress")
    header, records = read_truth(path)
    if header is not None:
        for k in SETTINGS:
            was = header["settings"].get(k, DEFAULTS.get(k))
            if was != getattr(args, k):
                raise SystemExit(f"{path.name} was made with {k}={was!r}; "
                                 f"rerun with the same settings or another --out")
    command = ("python benchmarks/make_truth.py " +
               " ".join(f"--{k} {getattr(args, k)}" for k in
                        ("variant", "decisions", "trials", "horizon", "seed", "rate", "extra")))
    if args.player != "neural":
        command += f" --player {args.player}"
    if args.network is not None:
        command += f" --network {args.network}"
    if args.plies is not None:
        command += f" --plies {args.plies}"
    if args.candidates_from:
        command += f" --candidates-from {Path(args.candidates_from).name}"
    if args.compiled:
        if args.player != "neural":
            raise SystemExit("--compiled rolls out with our network: use it with "
                             "--player neural")
        command += " --compiled"
    fastgen.warm_up()
    if source is not None:
        src_header, src_records = read_truth(Path(source))
        if src_header is None:
            raise SystemExit(f"no truth file at {source}")
        for k in ("variant", "seed", "rate", "extra"):
            if src_header["settings"][k] != getattr(args, k):
                raise SystemExit(f"{Path(source).name} was sampled with {k}="
                                 f"{src_header['settings'][k]!r}; use the same")
        stream: Iterator[Decision] = recorded(v, src_records)
    else:
        stream = decisions(v, args.seed, args.rate, args.extra)
    started = time.monotonic()
    seconds = float(header.get("cpu_seconds", 0.0)) if header else 0.0
    done = {r["id"] for r in records}

    def head(complete: bool) -> dict[str, Any]:
        return {
            "type": "header", "format": FORMAT, "variant": v.name, "command": command,
            "settings": {k: getattr(args, k) for k in SETTINGS
                         if getattr(args, k) is not None or k not in DEFAULTS},
            **({"candidates_from": Path(source).name} if source is not None else {}),
            "code_version": code_version(),
            "rollout": rollout_description(args.player, args.horizon, args.trials,
                                           args.network, bool(args.compiled),
                                           args.plies or 0),
            "decisions_wanted": args.decisions, "decisions_done": len(records),
            "complete": complete, "cpu_seconds": round(seconds, 1),
            "candidates_rolled_out": sum(len(r["candidates"]) for r in records),
        }

    def todo() -> Iterator[Decision]:
        wanted = args.decisions - len(records)
        for d in stream:
            if wanted <= 0:
                return
            if args.max_minutes is not None and time.monotonic() - started > 60 * args.max_minutes:
                return
            if d.index in done:
                continue
            wanted -= 1
            yield d

    def keep(rec: dict[str, Any], cpu: float) -> None:
        nonlocal seconds
        records.append(rec)
        records.sort(key=lambda r: r["id"])
        seconds += cpu
        write_truth(path, head(False), records)
        progress.write_text(f"{len(records)}/{args.decisions} decisions, "
                            f"{seconds:.0f} CPU s, {time.monotonic() - started:.0f} s wall, "
                            f"last id {rec['id']}\n")

    init = (v.name, args.player, args.network, args.seed, args.trials, args.horizon,
            bool(args.compiled), args.plies or 0)
    if args.jobs > 1:
        with multiprocessing.get_context("spawn").Pool(args.jobs, _init_worker, init) as pool:
            for rec, cpu in pool.imap_unordered(_roll_out_in_worker, todo()):
                keep(rec, cpu)
                if (args.max_minutes is not None
                        and time.monotonic() - started > 60 * args.max_minutes):
                    break  # the pool is stopped on leaving the block
    else:
        _init_worker(*init)
        t_last = time.process_time()  # sampling the decisions counts too
        for d in todo():
            rec, _cpu = _roll_out_in_worker(d)
            now = time.process_time()
            keep(rec, now - t_last)
            t_last = now
    write_truth(path, head(len(records) >= args.decisions), records)
    sys.stderr.write(f"{v.name}: {len(records)} decisions in {path}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
