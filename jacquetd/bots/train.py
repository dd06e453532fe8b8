"""TD(lambda) self-play training of a variant's network: ``jacquetd train``.

Usage::

    jacquetd train --variant jacquet --games 40000 --seed 1 --out train-jacquet

Each game is played by the network against itself at 0-ply (greedy on
equity; the dice explore). After the game, every position of it is moved
towards its lambda-return (the forward view of TD(lambda), computed offline
from the values the network gave during the game), in one batched gradient
step. A race where both sides have every checker home is scored exactly by
the bear-off databases and ends the game's learning there.

Every ``--checkpoint-every`` games the state (weights, game count, random
generator state, curve) is saved in the output folder; ``--resume``
continues from it and gives the same result as an uninterrupted run. Every
``--eval-every`` games the network plays ``--eval-games`` games against the
fixed ``heuristic`` bot with the same dice each time; the points per game
form the learning curve, written as ``curve.json`` and ``curve.svg``.
At the end ``<variant>.npz`` and ``<variant>.json`` (the command, the seed
and the figures that made it) are written to the output folder.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from jacquetd import fastgen
from jacquetd.rules import Variant, find_variant

from . import features
from .choosers import heuristic_chooser, neural_chooser
from .evaluator import NeuralEvaluator, all_home, load_net, result_probs, tidy
from .net import Net, equity, flip
from .selfplay import opening_roll, play_game, roll, start_side

MAX_TURNS = 2000
"""A self-play game longer than this is dropped: an untrained backgammon network can
build two closed boards with a checker on each bar, where both sides pass for ever."""


def turn_plays(v: Variant, me: np.ndarray, opp: np.ndarray, flags: list[bool],
               dice: tuple[int, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every play of the roll, as arrays from `jacquetd.fastgen` (the pure generator's plays,
    in its order).

    Returns the sides after each play, mover first ((N, 26) int16 each), and the J12
    flags of the position each play leaves (the opponent on roll): the opponent's,
    unchanged, then the mover's, set by a prime it now holds. `flags` is (side on
    roll, opponent).
    """
    both = fastgen.generate_arrays(v.name, me, opp, dice)[0].astype(np.int16)
    after_me, after_opp = both[:, :26], both[:, 26:]
    n = len(both)
    if v.tracks_primes and not flags[0]:
        mover_flags = features.has_prime(after_me)
    else:
        mover_flags = np.full(n, flags[0])
    return after_me, after_opp, np.full(n, flags[1]), mover_flags


def self_play_game(ev: NeuralEvaluator, rng: np.random.Generator, *, race_only: bool = False
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Play one game; return (inputs, values, final target) of its positions.

    Row t of the inputs is position t from the view of the side on roll;
    values[t] is the network's (tidied) estimate; the final target is the
    exact outcome, or the exact race value, seen by the side on roll in the
    last recorded position's successor, expressed for the last position.
    None when the game had to be abandoned (`MAX_TURNS`). The plays come as
    arrays from `jacquetd.fastgen` (the pure generator's plays, in its order).

    With `race_only`, only the positions after contact is over are recorded
    (contact never comes back, so they are consecutive turns): the game of
    a race network, played by `ev` (contact network and race network); None
    when the game never reached such a position.
    """
    v = ev.variant
    fv = ev.feature_version
    me = features.as_batch([start_side(v)])[0]
    opp = me.copy()
    flags = [False, False]  # side on roll, opponent
    f0 = np.zeros(1, dtype=bool)
    xs: list[np.ndarray] = []
    vals: list[np.ndarray] = []
    if not race_only:
        xs.append(features.encode(v, me[None, :], opp[None, :], f0, f0, fv)[0])
        vals.append(tidy(v, ev.forward(xs[0][None, :], me[None, :], opp[None, :]), f0, f0)[0])
    dice = opening_roll(v, rng)
    for _turn in range(MAX_TURNS):
        after_me, after_opp, opp_flag, mover_flags = turn_plays(v, me, opp, flags, dice)
        won = np.nonzero(after_me[:, 0] == 15)[0]
        if len(won):
            k = int(won[0])
            final = result_probs(v, after_me[k], after_opp[k], bool(mover_flags[k]))  # mover's view
            return (np.array(xs), np.array(vals), final) if xs else None
        nxt_me, nxt_opp = after_opp, after_me
        x = features.encode(v, nxt_me, nxt_opp, opp_flag, mover_flags, fv)
        p = tidy(v, ev.forward(x, nxt_me, nxt_opp), opp_flag, mover_flags)
        k = int(np.argmin(equity(p)))  # the opponent's equity: lowest is best for us
        me, opp = nxt_me[k].copy(), nxt_opp[k].copy()
        flags = [flags[1], bool(mover_flags[k])]
        if all_home(nxt_me[k:k + 1])[0] and all_home(nxt_opp[k:k + 1])[0]:
            exact = ev.probs(nxt_me[k:k + 1], nxt_opp[k:k + 1], opp_flag[k:k + 1],
                             mover_flags[k:k + 1])[0]
            # the race value is known: it is the target of the previous position
            return (np.array(xs), np.array(vals), flip(exact)) if xs else None
        if not race_only or not features.contact(v, nxt_me[k:k + 1], nxt_opp[k:k + 1])[0]:
            xs.append(x[k])
            vals.append(p[k])
        dice = roll(rng)
    return None


def lambda_returns(vals: np.ndarray, final: np.ndarray, lam: float) -> np.ndarray:
    """Targets G_t = flip((1 - lam) V_{t+1} + lam G_{t+1}); the last is `final`."""
    n = len(vals)
    g = np.empty_like(vals)
    g[n - 1] = final
    for t in range(n - 2, -1, -1):
        g[t] = flip((1.0 - lam) * vals[t + 1] + lam * g[t + 1])
    return g


def evaluate_against_heuristic(ev: NeuralEvaluator, games: int, seed: int) -> float:
    """Points per game of the evaluator (0-ply) against `heuristic`, same dice every time."""
    v = ev.variant
    choosers = (neural_chooser(ev), heuristic_chooser(v))
    rng = np.random.default_rng(seed)
    total = 0
    for g in range(games):
        winner, points = play_game(v, choosers, rng, first=g % 2)
        total += points if winner == 0 else -points
    return total / games


def write_svg(path: Path, curve: list[dict[str, float]], title: str) -> None:
    """The learning curve (points per game against heuristic over games), hand-written SVG."""
    w, h, left, bottom, top, right = 640, 360, 60, 40, 30, 20
    xs = [c["games"] for c in curve] or [0]
    ys = [c["ppg"] for c in curve] or [0.0]
    x_max = max(max(xs), 1)
    y_lo = min(min(ys), 0.0) - 0.1
    y_hi = max(max(ys), 0.0) + 0.1

    def px(x: float) -> float:
        return left + (w - left - right) * x / x_max

    def py(y: float) -> float:
        return top + (h - top - bottom) * (y_hi - y) / (y_hi - y_lo)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
             f'font-family="sans-serif" font-size="11">',
             f'<rect width="{w}" height="{h}" fill="white"/>',
             f'<text x="{w / 2}" y="18" text-anchor="middle" font-size="13">{title}</text>',
             f'<line x1="{left}" y1="{py(0):.1f}" x2="{w - right}" y2="{py(0):.1f}" '
             'stroke="#999" stroke-dasharray="4 3"/>',
             f'<line x1="{left}" y1="{top}" x2="{left}" y2="{h - bottom}" stroke="black"/>',
             f'<line x1="{left}" y1="{h - bottom}" x2="{w - right}" y2="{h - bottom}" '
             'stroke="black"/>']
    for k in range(5):
        yv = y_lo + (y_hi - y_lo) * k / 4
        parts.append(f'<text x="{left - 6}" y="{py(yv) + 4:.1f}" text-anchor="end">'
                     f'{yv:+.2f}</text>')
        xv = x_max * k / 4
        parts.append(f'<text x="{px(xv):.1f}" y="{h - bottom + 16}" text-anchor="middle">'
                     f'{int(xv)}</text>')
    parts.append(f'<text x="{w / 2}" y="{h - 6}" text-anchor="middle">self-play games</text>')
    parts.append(f'<text x="14" y="{h / 2}" text-anchor="middle" '
                 f'transform="rotate(-90 14 {h / 2})">points per game vs heuristic</text>')
    if curve:
        pts = " ".join(f"{px(c['games']):.1f},{py(c['ppg']):.1f}" for c in curve)
        parts.append(f'<polyline points="{pts}" fill="none" stroke="#1f5fbf" stroke-width="2"/>')
        for c in curve:
            parts.append(f'<circle cx="{px(c["games"]):.1f}" cy="{py(c["ppg"]):.1f}" r="3" '
                         'fill="#1f5fbf"/>')
    parts.append("</svg>")
    path.write_text("\n".join(parts) + "\n")


def _progress(done: int, total: int, started: float, first: int, last: str) -> None:
    width = 30
    filled = int(width * done / max(total, 1))
    rate = (done - first) / max(time.monotonic() - started, 1e-9)
    eta = (total - done) / rate if rate > 0 else 0.0
    sys.stderr.write(f"\r[{'#' * filled}{'-' * (width - filled)}] {done}/{total} games "
                     f"{rate:5.1f} g/s eta {int(eta) // 60}m{int(eta) % 60:02d}s {last}   ")
    sys.stderr.flush()


def _state_meta(args: argparse.Namespace, net_version: int, games_done: int,
                rng: np.random.Generator, curve: list[dict[str, float]], command: str
                ) -> dict[str, Any]:
    return {
        "variant": args.variant, "race": bool(args.race),
        "contact_command": getattr(args, "contact_command", None), "seed": args.seed,
        "games": args.games,
        "games_done": games_done, "hidden": args.hidden, "lr": args.lr, "lam": args.lam,
        "loss": args.loss,
        "feature_version": net_version, "n_inputs": features.n_inputs(net_version),
        "rng_state": rng.bit_generator.state, "curve": curve, "command": command,
    }


def reproduce_command(argv: list[str], games: int) -> str:
    """The command that makes the same weights in one run: --games fixed, no resume/time cap."""
    out: list[str] = []
    skip = False
    for a in argv:
        if skip:
            skip = False
            continue
        if a in ("--resume", "--quiet"):
            continue
        if a in ("--max-minutes", "--games", "--out"):
            skip = True
            continue
        if a.startswith(("--max-minutes=", "--games=", "--out=")):
            continue
        out.append(a)
    out += ["--games", str(games)]
    return "jacquetd train " + " ".join(shlex.quote(a) for a in out)


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="jacquetd train",
                                 description="Train a variant's network by TD(lambda) self-play.")
    ap.add_argument("--variant", required=True, help="jacquet, jacquet-be or backgammon")
    ap.add_argument("--games", type=int, required=True, help="self-play games in all")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hidden", type=int, default=80, help="hidden units")
    ap.add_argument("--lr", type=float, default=0.3,
                    help="learning rate at the start; after g games it is lr*20000/(20000+g)")
    ap.add_argument("--lam", type=float, default=0.7, help="TD lambda")
    ap.add_argument("--loss", choices=("mse", "xent"), default="xent",
                    help="cross-entropy (default: its gradient does not vanish when an "
                         "output saturates, which starved the gammon outputs of the first "
                         "networks) or squared error")
    ap.add_argument("--out", default=None, help="output folder (default train-<variant>)")
    ap.add_argument("--resume", action="store_true", help="continue from the checkpoint")
    ap.add_argument("--checkpoint-every", type=int, default=1000)
    ap.add_argument("--eval-every", type=int, default=2500)
    ap.add_argument("--eval-games", type=int, default=200)
    ap.add_argument("--max-minutes", type=float, default=None,
                    help="stop at the first checkpoint after this long; the result is the "
                         "same as a run with --games set to the games played")
    ap.add_argument("--race", action="store_true",
                    help="train the race network (positions after contact) with the shipped "
                         "contact network playing the contact phase")
    ap.add_argument("--contact-weights", default=None,
                    help="with --race: a contact network file instead of the shipped one")
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    return ap


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        v = find_variant(args.variant)
    except ValueError as exc:
        print(f"jacquetd train: {exc}", file=sys.stderr)
        return 2
    args.variant = v.name
    out = Path(args.out or f"train-{v.name}")
    out.mkdir(parents=True, exist_ok=True)
    ckpt = out / "checkpoint.npz"
    command_args = list(argv if argv is not None else sys.argv[1:])

    rng = np.random.default_rng(args.seed)
    curve: list[dict[str, float]] = []
    done = 0
    contact_net = None
    if args.race:
        contact_net = (Net.load(args.contact_weights) if args.contact_weights
                       else load_net(v.name))
    if args.resume and ckpt.exists():
        net = Net.load(ckpt)
        done = int(net.meta["games_done"])
        rng.bit_generator.state = net.meta["rng_state"]
        curve = list(net.meta.get("curve", []))
        print(f"resuming at game {done}", file=sys.stderr)
    else:
        # a race network reads the encoding of the contact network it is paired with
        fresh_version = (int(contact_net.meta.get("feature_version", 1)) if contact_net
                         else features.FEATURE_VERSION)
        net = Net(features.n_inputs(fresh_version), args.hidden, seed=args.seed,
                  meta={"feature_version": fresh_version})
    version = int(net.meta.get("feature_version", 1))
    if contact_net is not None:
        ev = NeuralEvaluator(v, contact_net, race_net=net)
        args.contact_command = contact_net.meta.get("command")
    else:
        ev = NeuralEvaluator(v, net)
    name = f"{v.name}-race" if args.race else v.name
    what = "race network" if args.race else "network"
    ev.db  # build or load the bear-off database before timing anything  # noqa: B018

    started = time.monotonic()
    first = done
    last = f"ppg {curve[-1]['ppg']:+.3f}" if curve else ""
    if not curve and done == 0:
        ppg = evaluate_against_heuristic(ev, args.eval_games, args.seed + 1_000_003)
        curve.append({"games": 0, "ppg": ppg})
    while done < args.games:
        game = self_play_game(ev, rng, race_only=args.race)
        if game is None:
            continue
        xs, vals, final = game
        targets = lambda_returns(vals, final, args.lam)
        lr = args.lr * 20000.0 / (20000.0 + done)
        net.train_step(xs.astype(np.float32), targets.astype(np.float32), lr / np.sqrt(len(xs)),
                       args.loss)
        done += 1
        if (args.max_minutes is not None and done % args.checkpoint_every == 0
                and time.monotonic() - started > 60.0 * args.max_minutes):
            args.games = done
        if done % args.eval_every == 0 or done == args.games:
            ppg = evaluate_against_heuristic(ev, args.eval_games, args.seed + 1_000_003)
            curve.append({"games": done, "ppg": ppg})
            last = f"ppg {ppg:+.3f}"
            write_svg(out / "curve.svg", curve,
                      f"{v.name}: 0-ply {what} vs heuristic ({args.eval_games} games a point)")
            (out / "curve.json").write_text(json.dumps(curve, indent=1) + "\n")
        if done % args.checkpoint_every == 0 or done == args.games:
            command = reproduce_command(command_args, done)
            net.meta = _state_meta(args, version, done, rng, curve, command)
            net.save(ckpt)
        if not args.quiet and (done % 10 == 0 or done == args.games):
            _progress(done, args.games, started, first, last)
    if not args.quiet:
        sys.stderr.write("\n")
    elapsed = time.monotonic() - started
    command = reproduce_command(command_args, done)
    net.meta = _state_meta(args, version, done, rng, curve, command)
    net.meta.pop("rng_state")
    net.save(out / f"{name}.npz")
    sidecar = {k: net.meta[k] for k in (
        "variant", "race", "contact_command", "seed", "games", "hidden", "lr", "lam", "loss",
        "feature_version", "n_inputs", "command", "curve")}
    sidecar["seconds_this_run"] = round(elapsed, 1)
    (out / f"{name}.json").write_text(json.dumps(sidecar, indent=1) + "\n")
    write_svg(out / "curve.svg", curve,
              f"{v.name}: 0-ply {what} vs heuristic ({args.eval_games} games a point)")
    (out / "curve.json").write_text(json.dumps(curve, indent=1) + "\n")
    print(f"wrote {out / (name + '.npz')} after {done} games", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
