"""Supervised training of a variant's network on a stronger judge's figures: ``jacquetd distill``.

TD(lambda) self-play (`train.py`) teaches a network from its own games;
its targets are its own next estimates, noisy and biased by its own errors.
GNU Backgammon's networks were trained the other way: on a large set of
positions, each labelled by something that sees further than the network
(rollouts), with a plain supervised loss. This module does that with any
*teacher*, a function from positions before the roll to their five outcome
probabilities for the side on roll:

- `search_teacher(ev, plies)`: our own n-ply search (1 ply is a one-turn
  rollout over all 21 rolls, each answered by the best play);
- `rollout_teacher(ev, spec)`: truncated rollouts of the 0-ply player, each of
  the five probabilities variance-reduced (`--teacher-rollout`), the teacher
  that lets a network learn from its own play looking further ahead;
- an outside engine, passed in by a tool (`benchmarks/distill_gnubg.py`
  labels backgammon positions with GNU Backgammon's evaluator).

The positions are the ones the network will have to rank in play: every
turn of seeded games played by the network (0 plies, with a share of
random plays so that the games leave its habits), and, per turn, the
positions left by the chosen play and by up to `per_turn - 1` other legal
plays picked at random. Positions with both sides home are skipped (the
exact bear-off databases answer them); duplicates are dropped.

The fit is mini-batch Adam on the cross-entropy between the network's five
sigmoid outputs and the teacher's probabilities, starting from a network
(the shipped one by default, or a fresh one of `--hidden` units), with a
held-out share of the positions to report the error in equity against the
teacher after every epoch; the epoch with the lowest held-out error is kept.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
import zlib
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from jacquetd.rules import Variant, find_variant

from . import features
from .evaluator import NeuralEvaluator, all_home, load_net, tidy
from .net import N_OUTPUTS, Net, equity
from .search import Searcher, State
from .selfplay import opening_roll, roll, start_side
from .train import turn_plays

MAX_TURNS = 600
"""A collecting game longer than this stops (its positions so far are kept)."""


@dataclass(slots=True)
class Positions:
    """Positions before the roll, the side on roll first: (N, 26) sides and (N,) flags.

    `group`, when present, numbers the decision each row belongs to: rows with
    the same number are positions left by different plays of one roll (the
    siblings a 0-ply player ranks against each other).
    """

    me: np.ndarray
    opp: np.ndarray
    me_flag: np.ndarray
    opp_flag: np.ndarray
    group: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.me)

    def take(self, idx: np.ndarray) -> Positions:
        return Positions(self.me[idx], self.opp[idx], self.me_flag[idx], self.opp_flag[idx],
                         None if self.group is None else self.group[idx])

    @staticmethod
    def concat(parts: list[Positions]) -> Positions:
        """The parts one after another; decision numbers stay distinct across parts."""
        joined = Positions(*(np.concatenate([getattr(p, f) for p in parts])
                             for f in ("me", "opp", "me_flag", "opp_flag")))
        if parts and all(p.group is not None for p in parts):
            groups, offset = [], 0
            for p in parts:
                g = np.asarray(p.group, dtype=np.int64)
                groups.append(g + offset)
                offset += int(g.max()) + 1 if len(g) else 0
            joined.group = np.concatenate(groups)
        return joined

    def unique(self) -> Positions:
        """The same positions without repeats, in a canonical (sorted) order (no groups)."""
        rows = np.concatenate([self.me, self.opp, self.me_flag[:, None], self.opp_flag[:, None]],
                              axis=1).astype(np.int16)
        _, idx = np.unique(rows, axis=0, return_index=True)
        out = self.take(np.sort(idx))
        out.group = None
        return out

    def save(self, path: Path, targets: np.ndarray) -> None:
        """Write the positions and their teacher's figures (`targets`) to `path` (.npz)."""
        arrays = {"me": self.me, "opp": self.opp, "me_flag": self.me_flag,
                  "opp_flag": self.opp_flag, "targets": targets}
        if self.group is not None:
            arrays["group"] = self.group
        np.savez_compressed(path, **arrays)  # type: ignore[arg-type]

    @staticmethod
    def load(path: Path) -> tuple[Positions, dict[str, np.ndarray]]:
        with np.load(path, allow_pickle=False) as data:
            pos = Positions(data["me"], data["opp"], data["me_flag"], data["opp_flag"],
                            data["group"] if "group" in data.files else None)
            extra = {k: data[k] for k in data.files if k not in ("me", "opp", "me_flag",
                                                                   "opp_flag", "group")}
        return pos, extra


Teacher = Callable[[Positions], np.ndarray]
"""Positions -> (N, 5) probabilities (win, wg, wbg, lg, lbg) for the side on roll."""


def collect_game(ev: NeuralEvaluator, rng: np.random.Generator, *, per_turn: int,
                 epsilon: float) -> Positions:
    """The positions of one game played by `ev` at 0 plies (a share `epsilon` of random plays).

    Each row's `group` is the turn whose roll left it.
    """
    v = ev.variant
    me = features.as_batch([start_side(v)])[0]
    opp = me.copy()
    flags = [False, False]
    rows_me: list[np.ndarray] = []
    rows_opp: list[np.ndarray] = []
    rows_mf: list[np.ndarray] = []
    rows_of: list[np.ndarray] = []
    rows_turn: list[np.ndarray] = []
    dice = opening_roll(v, rng)
    for turn in range(MAX_TURNS):
        after_me, after_opp, opp_flag, mover_flags = turn_plays(v, me, opp, flags, dice)
        if (after_me[:, 0] == 15).any():
            break
        nxt_me, nxt_opp = after_opp, after_me
        n = len(after_me)
        if n > 1 and rng.random() < epsilon:
            k = int(rng.integers(n))
        else:
            p = ev.probs(nxt_me, nxt_opp, opp_flag, mover_flags)
            k = int(np.argmin(equity(p)))  # the opponent's equity: lowest is best for us
        others = np.delete(np.arange(n), k)
        picked = np.concatenate([[k], rng.permutation(others)[:per_turn - 1]]).astype(int)
        keep = picked[~(all_home(nxt_me[picked]) & all_home(nxt_opp[picked]))]
        # the opponent is on roll next: its flag is the new position's first one
        rows_me.append(nxt_me[keep])
        rows_opp.append(nxt_opp[keep])
        rows_mf.append(opp_flag[keep])
        rows_of.append(mover_flags[keep])
        rows_turn.append(np.full(len(keep), turn, dtype=np.int64))
        if all_home(nxt_me[k:k + 1])[0] and all_home(nxt_opp[k:k + 1])[0]:
            break
        me, opp = nxt_me[k].copy(), nxt_opp[k].copy()
        flags = [flags[1], bool(mover_flags[k])]
        dice = roll(rng)
    if not rows_me:
        return Positions(np.zeros((0, 26), np.int16), np.zeros((0, 26), np.int16),
                         np.zeros(0, bool), np.zeros(0, bool), np.zeros(0, np.int64))
    return Positions(np.concatenate(rows_me), np.concatenate(rows_opp),
                     np.concatenate(rows_mf).astype(bool), np.concatenate(rows_of).astype(bool),
                     np.concatenate(rows_turn))


class _Inline:
    """`ProcessPoolExecutor`'s `map` in this process (one job: no pool to start)."""

    def __enter__(self) -> _Inline:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def map(self, fn: Callable[..., Any], *iterables: Any) -> Iterator[Any]:
        return map(fn, *iterables)


def _collect_job(variant: str, weights: str | None, seed: int, games: range, per_turn: int,
                 epsilon: float) -> Positions:
    v = find_variant(variant)
    ev = NeuralEvaluator(v, Net.load(weights) if weights else load_net(v.name))
    parts = [collect_game(ev, np.random.default_rng([seed, g]), per_turn=per_turn,
                          epsilon=epsilon) for g in games]
    return Positions.concat(parts)


def collect(variant: Variant, games: int, seed: int, *, per_turn: int = 8,
            epsilon: float = 0.1, weights: str | None = None, jobs: int = 1,
            groups: bool = False) -> Positions:
    """Positions of `games` seeded games (game g's dice from seed [seed, g]), deduplicated.

    With `groups` the repeats stay and each row keeps the number of the
    decision (game and turn) that left it, so that siblings can be fitted
    together (`fit`'s `rank_weight`). The result does not depend on `jobs`.
    """
    chunks = [range(lo, min(games, lo + 250)) for lo in range(0, games, 250)]
    n = len(chunks)
    with ProcessPoolExecutor(jobs) if jobs > 1 else _Inline() as pool:
        parts = list(pool.map(_collect_job, [variant.name] * n, [weights] * n, [seed] * n,
                              chunks, [per_turn] * n, [epsilon] * n))
    joined = Positions.concat(parts)
    return joined if groups else joined.unique()


def search_teacher(ev: NeuralEvaluator, plies: int) -> Teacher:
    """Our own `plies`-ply evaluation as the teacher."""
    searcher = Searcher(ev)

    def label(pos: Positions) -> np.ndarray:
        states = [State(tuple(int(c) for c in pos.me[i]), tuple(int(c) for c in pos.opp[i]),
                        bool(pos.me_flag[i]), bool(pos.opp_flag[i])) for i in range(len(pos))]
        return searcher.evaluate_states(states, plies)

    return label


@dataclass(frozen=True)
class RolloutTeacher:
    """Truncated rollouts of the 0-ply player as the teacher (`rollout_teacher`): `trials`
    games a position for each of the `horizons` (turns a game lasts), the label their
    mean."""

    trials: int
    horizons: tuple[int, ...]
    seed: int

    @property
    def name(self) -> str:
        """`rollout-TRIALSxH` (`xH1+H2` for several horizons): the sidecar's teacher."""
        return f"rollout-{self.trials}x{'+'.join(str(h) for h in self.horizons)}"


def parse_horizons(text: str) -> tuple[int, ...]:
    """`--rollout-horizon`'s value: one number of turns, or several joined by commas;
    ValueError unless each is a whole number of at least 1."""
    try:
        horizons = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise ValueError(f"--rollout-horizon {text!r}: turns, or turns joined by commas "
                         "(4,5)") from None
    if not horizons or min(horizons) < 1:
        raise ValueError(f"--rollout-horizon {text!r}: each horizon is at least 1 turn")
    return horizons


def position_key(me: np.ndarray, opp: np.ndarray, me_flag: bool, opp_flag: bool) -> int:
    """A number of the position alone (CRC-32 of its counts and flags): with the
    teacher's seed, the key of its rollout's dice."""
    return zlib.crc32(np.asarray(me, dtype=np.int8).tobytes()
                      + np.asarray(opp, dtype=np.int8).tobytes() + bytes([me_flag, opp_flag]))


def rollout_teacher(ev: NeuralEvaluator, spec: RolloutTeacher) -> Teacher:
    """Each position rolled out by the 0-ply player on both sides (`spec.trials` games cut
    after each of `spec.horizons` turns, cubeless, in compiled code), read as its five
    outcome probabilities with every turn's luck taken off each
    (`rolloutkernel.rollout_label`), averaged over the horizons, then clipped to [0, 1]
    and made consistent as the evaluator's outputs are (`tidy`): a luck-adjusted mean
    may stray a little outside them. A position's dice are keyed by the seed and the
    position itself (the same for every horizon), so its label does not depend on the
    batch it comes in.

    Why two horizons: a truncated game is scored by the network at its last position.
    After an odd number of turns the other side is on roll there, so a network that
    under- or overrates the side on roll by b gives labels off by +b or -b, the
    opposite of its own error at the root; fitted on them, the next network errs the
    other way (`benchmarks/bench_horizon.py` measures it; `jacquet`'s network has
    such an error). The mean of an even and an odd horizon (`4,5`) cancels it."""
    from . import rolloutkernel

    if not (rolloutkernel.available() and ev.compiled):
        raise SystemExit("a rollout teacher needs the compiled rollouts (numba, and a "
                         "feature version the compiled encoder knows)")

    def label(pos: Positions) -> np.ndarray:
        out = np.empty((len(pos), N_OUTPUTS))
        for i in range(len(pos)):
            me, opp = pos.me[i], pos.opp[i]
            key = position_key(me, opp, bool(pos.me_flag[i]), bool(pos.opp_flag[i]))
            state = State(tuple(int(c) for c in me), tuple(int(c) for c in opp),
                          bool(pos.me_flag[i]), bool(pos.opp_flag[i]))
            out[i] = np.mean([rolloutkernel.rollout_label(ev, state, trials=spec.trials,
                                                          seed=[spec.seed, key],
                                                          horizon=h).probs
                              for h in spec.horizons], axis=0)
        return tidy(ev.variant, np.clip(out, 0.0, 1.0), pos.me_flag, pos.opp_flag)

    return label


def _label_job(variant: str, weights: str | None, teacher: int | RolloutTeacher,
               pos: Positions) -> np.ndarray:
    v = find_variant(variant)
    ev = NeuralEvaluator(v, Net.load(weights) if weights else load_net(v.name))
    if isinstance(teacher, RolloutTeacher):
        return rollout_teacher(ev, teacher)(pos)
    return search_teacher(ev, teacher)(pos)


def label_by_search(variant: Variant, pos: Positions, teacher: int | RolloutTeacher, *,
                    weights: str | None = None, jobs: int = 1,
                    progress: Callable[[int, int], None] | None = None) -> np.ndarray:
    """(N, 5) targets from our own search at `teacher` plies, or from the rollouts a
    `RolloutTeacher` describes, in chunks over `jobs` processes."""
    step = 2000 if isinstance(teacher, int) else 100
    chunks = [pos.take(np.arange(lo, min(len(pos), lo + step)))
              for lo in range(0, len(pos), step)]
    out: list[np.ndarray] = []
    args = ([variant.name] * len(chunks), [weights] * len(chunks), [teacher] * len(chunks),
            chunks)
    with ProcessPoolExecutor(jobs) if jobs > 1 else _Inline() as pool:
        for part in pool.map(_label_job, *args):
            out.append(part)
            if progress is not None:
                progress(sum(len(o) for o in out), len(pos))
    return np.concatenate(out) if out else np.zeros((0, N_OUTPUTS))


def encode(variant: Variant, pos: Positions, version: int = features.FEATURE_VERSION
           ) -> np.ndarray:
    """The (N, n_inputs) float32 input matrix of the positions."""
    out = np.empty((len(pos), features.n_inputs(version)), dtype=np.float32)
    step = 50_000
    for lo in range(0, len(pos), step):
        sl = slice(lo, lo + step)
        out[sl] = features.encode(variant, pos.me[sl].astype(np.int16),
                                  pos.opp[sl].astype(np.int16), pos.me_flag[sl],
                                  pos.opp_flag[sl], version)
    return out


@dataclass
class Adam:
    """Adam's moment estimates for the four weight arrays of a `Net`."""

    lr: float
    beta1: float = 0.9
    beta2: float = 0.999
    eps: float = 1e-8
    t: int = 0
    m: list[np.ndarray] | None = None
    v: list[np.ndarray] | None = None

    def step(self, params: list[np.ndarray], grads: list[np.ndarray]) -> None:
        if self.m is None or self.v is None:
            self.m = [np.zeros_like(p) for p in params]
            self.v = [np.zeros_like(p) for p in params]
        self.t += 1
        c1 = 1.0 - self.beta1 ** self.t
        c2 = 1.0 - self.beta2 ** self.t
        for p, g, m, v in zip(params, grads, self.m, self.v, strict=True):
            m *= self.beta1
            m += (1.0 - self.beta1) * g
            v *= self.beta2
            v += (1.0 - self.beta2) * g * g
            p -= (self.lr * (m / c1) / (np.sqrt(v / c2) + self.eps)).astype(p.dtype)


_EQUITY = np.array([2.0, 1.0, 1.0, -1.0, -1.0], dtype=np.float32)
"""d equity / d output, in the order (win, wg, wbg, lg, lbg) (`net.equity`)."""


def _grads(net: Net, x: np.ndarray, t: np.ndarray, group: np.ndarray | None = None,
           rank_weight: float = 0.0, rank_t: np.ndarray | None = None) -> list[np.ndarray]:
    """Gradients of the batch's loss for (w1, b1, w2, b2).

    The loss is the mean cross-entropy between outputs and targets, plus, with
    `group` and `rank_weight`, `rank_weight` times the mean over rows of the
    squared error in equity *relative to the row's siblings*: (e - e_mean of
    its group) - (t - t_mean of its group). A 0-ply player only ranks the
    positions of one roll against each other, so an error common to all of
    them costs nothing, and this term spends the network's capacity on the
    differences that choose the play. `rank_t` (default `t`) are the targets of
    that relative term.
    """
    h = 1.0 / (1.0 + np.exp(-np.clip(x @ net.w1 + net.b1, -40.0, 40.0)))
    y = 1.0 / (1.0 + np.exp(-np.clip(h @ net.w2 + net.b2, -40.0, 40.0)))
    dz2 = (y - t) / len(x)
    if group is not None and rank_weight > 0.0:
        _, inv = np.unique(group, return_inverse=True)
        d = (y - (t if rank_t is None else rank_t)) @ _EQUITY
        size = np.bincount(inv)
        rel = d - (np.bincount(inv, weights=d) / size)[inv]
        rel[size[inv] < 2] = 0.0
        d_y = np.outer((2.0 * rank_weight / len(x)) * rel, _EQUITY)
        dz2 = dz2 + (d_y * y * (1.0 - y)).astype(dz2.dtype)
    dh = (dz2 @ net.w2.T) * h * (1.0 - h)
    return [x.T @ dh, dh.sum(axis=0), h.T @ dz2, dz2.sum(axis=0)]


def decision_error(probs: np.ndarray, group: np.ndarray,
                   targets: np.ndarray) -> dict[str, float]:
    """How a network's 0-ply choices among siblings fare by the teacher's figures.

    `probs` are the network's (tidied) outputs for the rows, `group` their
    decision numbers. Over the decisions of two or more rows: the share in
    which the network picks the teacher's best position (the lowest equity for
    the side now on roll, the opponent of the player choosing), and the mean
    teacher equity that pick gives away, in millipoints.
    """
    e = equity(probs)
    te = equity(targets)
    order = np.lexsort((e, group))
    g = group[order]
    starts = np.nonzero(np.r_[True, g[1:] != g[:-1]])[0]
    sizes = np.diff(np.r_[starts, len(g)])
    picked = order[starts[sizes > 1]]
    best = np.minimum.reduceat(te[order], starts)[sizes > 1]
    cost = te[picked] - best
    return {"agree": float((cost <= 1e-12).mean()) if len(cost) else float("nan"),
            "decision_mp": float(cost.mean() * 1000.0) if len(cost) else float("nan")}


def held_out_error(variant: Variant, net: Net, x: np.ndarray, pos: Positions,
                   targets: np.ndarray) -> dict[str, float]:
    """Mean absolute equity error and mean absolute win-probability error against the teacher."""
    return _errors(tidy(variant, net.forward(x), pos.me_flag, pos.opp_flag), targets)


def _errors(p: np.ndarray, targets: np.ndarray) -> dict[str, float]:
    return {"equity_mae": float(np.abs(equity(p) - equity(targets)).mean()),
            "win_mae": float(np.abs(p[:, 0] - targets[:, 0]).mean())}


def fit(variant: Variant, net: Net, pos: Positions, targets: np.ndarray, *, epochs: int,
        lr: float, batch: int, seed: int, hold_out: float = 0.05, rank_weight: float = 0.0,
        rank_targets: np.ndarray | None = None,
        progress: Callable[[dict[str, float]], None] | None = None
        ) -> tuple[Net, list[dict[str, float]]]:
    """Fit `net` (a copy) to the targets; return the best held-out network and the curve.

    With decision numbers (`pos.group`) whole decisions are held out, each
    epoch's batches keep siblings together, the curve adds the held-out
    decisions' agreement and cost (`decision_error`), the epoch kept is the one
    whose held-out decisions cost least, and `rank_weight` weighs the
    siblings' relative equities in the loss (`_grads`). `rank_targets`, when
    given, are a second judge's figures for the same rows: the relative term
    and the decisions' report follow them, the cross-entropy keeps `targets`
    (a deeper judge ranks the siblings better, while its figures' level, such
    as the odd-even ply bias, need not be learned).
    """
    rng = np.random.default_rng(seed)
    grouped = pos.group is not None
    if grouped:
        assert pos.group is not None
        decisions = np.unique(pos.group)
        out_groups = rng.permutation(decisions)[:max(1, int(len(decisions) * hold_out))]
        is_out = np.isin(pos.group, out_groups)
        test_idx, train_idx = np.nonzero(is_out)[0], np.nonzero(~is_out)[0]
    else:
        order = rng.permutation(len(pos))
        n_out = max(1, int(len(pos) * hold_out))
        test_idx, train_idx = order[:n_out], order[n_out:]
    version = int(net.meta.get("feature_version", 1))
    x_all = encode(variant, pos, version)
    x_test, t_test, p_test = x_all[test_idx], targets[test_idx], pos.take(test_idx)
    t_all = targets.astype(np.float32)
    r_all = t_all if rank_targets is None else rank_targets.astype(np.float32)
    r_test = r_all[test_idx]
    net = net.copy()
    params = [net.w1, net.b1, net.w2, net.b2]
    opt = Adam(lr)

    def measure(epoch: int) -> dict[str, float]:
        probs = tidy(variant, net.forward(x_test), p_test.me_flag, p_test.opp_flag)
        point = _errors(probs, t_test)
        if p_test.group is not None:
            point.update(decision_error(probs, p_test.group, r_test))
        point.update(epoch=epoch)
        return point

    key = "decision_mp" if grouped else "equity_mae"  # what picks the epoch kept
    best = measure(0)
    curve = [dict(best)]
    if progress is not None:
        progress(curve[-1])
    best_net = net.copy()
    for epoch in range(1, epochs + 1):
        opt.lr = lr * 0.5 * (1.0 + np.cos(np.pi * (epoch - 1) / epochs))  # cosine decay
        # batches are gathered from the whole matrix: no second copy of the training rows
        if grouped:
            assert pos.group is not None
            # shuffle the decisions, keep each one's rows together
            keys = rng.permutation(int(pos.group.max()) + 1)[pos.group[train_idx]]
            perm = train_idx[np.argsort(keys, kind="stable")]
        else:
            perm = train_idx[rng.permutation(len(train_idx))]
        for lo in range(0, len(perm), batch):
            idx = perm[lo:lo + batch]
            opt.step(params, _grads(net, x_all[idx], t_all[idx],
                                    pos.group[idx] if grouped else None,  # type: ignore[index]
                                    rank_weight, None if rank_targets is None else r_all[idx]))
        point = measure(epoch)
        curve.append(point)
        if progress is not None:
            progress(point)
        if point[key] < best[key]:
            best, best_net = point, net.copy()
    best_net.meta = {**net.meta, "fit": best}
    return best_net, curve


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="jacquetd distill",
        description="Train a variant's network on the figures of a stronger judge "
                    "(our own n-ply search), supervised.")
    ap.add_argument("--variant", required=True, help="jacquet, jacquet-be or backgammon")
    ap.add_argument("--games", type=int, required=True,
                    help="games whose positions are collected")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--teacher-plies", type=int, default=1,
                    help="the teacher's depth: our own search at this many plies (default 1; "
                         "benchmarks/distill_gnubg.py: GNU Backgammon's, default 0)")
    ap.add_argument("--teacher-rollout", type=int, default=None, metavar="TRIALS",
                    help="label by truncated rollouts of the 0-ply player instead of a "
                         "search: TRIALS games a position, luck taken off each of the five "
                         "probabilities (`--rollout-horizon` turns)")
    ap.add_argument("--rollout-horizon", default="4,5",
                    help="with --teacher-rollout: turns a rollout game lasts, or several "
                         "joined by commas, the label their mean (default 4,5: an even and "
                         "an odd horizon, which cancels a network's bias for or against "
                         "the side on roll)")
    ap.add_argument("--per-turn", type=int, default=8,
                    help="positions kept per turn: the chosen play's and random others'")
    ap.add_argument("--epsilon", type=float, default=0.1,
                    help="share of random plays in the collecting games")
    ap.add_argument("--weights", default=None,
                    help="start from this network (default: the shipped one)")
    ap.add_argument("--hidden", type=int, default=None,
                    help="start from a fresh network with this many hidden units instead")
    ap.add_argument("--widen", action="store_true",
                    help="give the starting network the new inputs of --feature-version, "
                         "with zero weights, before fitting")
    ap.add_argument("--feature-version", type=int, default=features.FEATURE_VERSION,
                    choices=sorted(features.VERSIONS),
                    help="the input encoding of a fresh (--hidden) or widened network "
                         f"(default {features.FEATURE_VERSION})")
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--lr", type=float, default=1e-3, help="Adam's learning rate at the start")
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--jobs", type=int, default=1, help="processes to collect and label with")
    ap.add_argument("--data", default=None,
                    help="labelled positions (.npz with me, opp, me_flag, opp_flag, targets): "
                         "read if it exists, else written after labelling")
    ap.add_argument("--more-data", action="append", default=[], metavar="NPZ",
                    help="more labelled positions (the same format, read only) fitted with "
                         "those of --data; repeat for several files")
    ap.add_argument("--crashed", action="store_true",
                    help="fit a crashed network: only the contact positions in which a side's "
                         "board has crashed (features.crashed), written as "
                         "<variant>-crashed.npz")
    ap.add_argument("--race", action="store_true",
                    help="fit a race network: only the positions past contact that the exact "
                         "bear-off table does not cover (not every checker of both sides "
                         "home), written as <variant>-race.npz")
    ap.add_argument("--groups", action="store_true",
                    help="keep each turn's positions together as one decision (no "
                         "deduplication), hold out whole decisions and report how often "
                         "the network picks the teacher's best of them")
    ap.add_argument("--rank-weight", type=float, default=0.0,
                    help="with --groups: weight of the siblings' relative equity error in "
                         "the loss (default 0: cross-entropy alone)")
    ap.add_argument("--rank-teacher-plies", type=int, default=None,
                    help="with --groups: the relative term's judge at this many plies instead "
                         "of the teacher (the cross-entropy keeps the teacher's figures)")
    ap.add_argument("--rank-rows", type=int, default=None,
                    help="with --rank-teacher-plies: label and fit only whole decisions "
                         "adding up to about this many rows (seeded)")
    ap.add_argument("--rank-data", default=None,
                    help="the relative term's labels (.npz with rows, targets): read if it "
                         "exists, else written after labelling")
    ap.add_argument("--out", default=None, help="output folder (default distill-<variant>)")
    ap.add_argument("--quiet", action="store_true")
    return ap


def widen(net: Net, version: int = features.FEATURE_VERSION) -> Net:
    """`net` reading a later feature version, with zero weights on the inputs that version adds.

    Versions 2 to 5 add inputs at the end of each side's block and change none of
    the earlier ones (`features.EXTENDING`), so the widened network gives the same
    figures as `net` and fitting it starts where `net` stands. Version 6 leaves
    inputs out: no network widens to it or from it.
    """
    old = int(net.meta.get("feature_version", 1))
    if old == version:
        return net.copy()
    if old < 2 or version < old or version not in features.EXTENDING:
        raise ValueError(f"cannot widen a version-{old} network to version {version}")
    side_old = (features.n_inputs(old) - 3) // 2
    side_new = (features.n_inputs(version) - 3) // 2
    w1 = np.zeros((features.n_inputs(version), net.n_hidden), dtype=np.float32)
    w1[:side_old] = net.w1[:side_old]
    w1[side_new:side_new + side_old] = net.w1[side_old:2 * side_old]
    w1[2 * side_new:] = net.w1[2 * side_old:]
    wide = net.copy()
    wide.w1 = w1
    wide.meta["feature_version"] = version
    return wide


def starting_net(variant: Variant, weights: str | None, hidden: int | None, seed: int,
                 widen_to: int | None = None,
                 version: int = features.FEATURE_VERSION) -> Net:
    """The network a fit starts from: a fresh one of `hidden` units reading
    feature `version`, else `weights` (or the shipped network), widened to
    `widen_to` if given."""
    if hidden is not None:
        return Net(features.n_inputs(version), hidden, seed=seed,
                   meta={"feature_version": version})
    net = Net.load(weights) if weights else load_net(variant.name)
    return widen(net, widen_to) if widen_to is not None else net


def rank_rows(pos: Positions, rows: int, seed: int) -> np.ndarray:
    """The rows of whole decisions, picked at random (seeded), adding up to about `rows`."""
    assert pos.group is not None
    decisions = np.random.default_rng([seed, 7]).permutation(np.unique(pos.group))
    sizes = np.bincount(pos.group)[decisions]
    keep = decisions[:int(np.searchsorted(np.cumsum(sizes), rows)) + 1]
    return np.nonzero(np.isin(pos.group, keep))[0]


def run(args: argparse.Namespace, teacher_name: str,
        label: Callable[[Positions], np.ndarray], command: str,
        deeper: Callable[[Positions, int], np.ndarray] | None = None) -> int:
    """Collect (or read) the labelled positions, fit, write `<variant>.npz` and its sidecar.

    `deeper(positions, plies)` labels with the teacher's kind of judge at another
    depth, for `--rank-teacher-plies`.
    """
    v = find_variant(args.variant)
    kind = network_kind(args)
    out = Path(args.out or f"distill-{v.name}")
    out.mkdir(parents=True, exist_ok=True)

    def say(msg: str) -> None:
        if not args.quiet:
            print(msg, file=sys.stderr)

    started = time.monotonic()
    data = Path(args.data) if args.data else None
    if data is not None and data.exists():
        pos, extra = Positions.load(data)
        targets = extra["targets"]
        say(f"read {len(pos)} labelled positions from {data.name}")
    else:
        pos = collect(v, args.games, args.seed, per_turn=args.per_turn, epsilon=args.epsilon,
                      weights=args.weights, jobs=args.jobs, groups=args.groups)
        say(f"collected {len(pos)} positions from {args.games} games "
            f"({time.monotonic() - started:.0f} s)")
        targets = label(pos)
        say(f"labelled by {teacher_name} ({time.monotonic() - started:.0f} s)")
        if data is not None:
            pos.save(data, targets=targets)
    if args.more_data:
        parts, labels = [pos], [targets]
        for more in args.more_data:
            more_pos, more_extra = Positions.load(Path(more))
            parts.append(more_pos)
            labels.append(more_extra["targets"])
            say(f"read {len(more_pos)} more labelled positions from {Path(more).name}")
        pos, targets = Positions.concat(parts), np.concatenate(labels)
    if kind != "contact":
        me, opp = pos.me.astype(np.int16), pos.opp.astype(np.int16)
        if kind == "crashed":
            served = features.contact(v, me, opp) & features.crashed(me, opp)
        else:  # the race network's rows (evaluator.Evaluator.forward, then its bear-off table)
            served = ~features.contact(v, me, opp) & ~(all_home(me) & all_home(opp))
        keep = np.nonzero(served)[0]
        say(f"kept the {len(keep)} {kind} positions of {len(pos)}")
        pos, targets = pos.take(keep), targets[keep]
    if args.rank_weight and pos.group is None:
        raise SystemExit("--rank-weight needs decisions: collect with --groups (every "
                         "labelled file then keeps them)")
    rank_targets = None
    if args.rank_teacher_plies is not None:
        if pos.group is None or deeper is None:
            raise SystemExit("--rank-teacher-plies needs --groups and a teacher that can look "
                             "deeper")
        rank_file = Path(args.rank_data) if args.rank_data else None
        if rank_file is not None and rank_file.exists():
            with np.load(rank_file) as saved:
                rows, deep, made_for = saved["rows"], saved["targets"], int(saved["positions"])
            if made_for != len(pos):
                raise SystemExit(f"--rank-data {rank_file.name} labels rows of {made_for} "
                                 f"positions, these are {len(pos)}")
            say(f"read {len(rows)} rows labelled at {args.rank_teacher_plies} plies")
        else:
            rows = (rank_rows(pos, args.rank_rows, args.seed) if args.rank_rows is not None
                    else np.arange(len(pos)))
            deep = deeper(pos.take(rows), args.rank_teacher_plies)
            say(f"labelled {len(rows)} rows at {args.rank_teacher_plies} plies "
                f"({time.monotonic() - started:.0f} s)")
            if rank_file is not None:
                np.savez_compressed(rank_file, rows=rows, targets=deep, positions=len(pos))
        # the labelled decisions are the ones fitted (all of them without --rank-rows)
        pos, targets, rank_targets = pos.take(rows), targets[rows], deep
    net = starting_net(v, args.weights, args.hidden, args.seed,
                       args.feature_version if args.widen else None, args.feature_version)

    def show(point: dict[str, float]) -> None:
        decided = (f", picks the teacher's best {point['agree']:.1%}, gives away "
                   f"{point['decision_mp']:.2f} mp a decision" if "agree" in point else "")
        say(f"epoch {int(point['epoch'])}: held-out equity error {point['equity_mae']:.4f}, "
            f"win {point['win_mae']:.4f}{decided} ({time.monotonic() - started:.0f} s)")

    best, curve = fit(v, net, pos, targets, epochs=args.epochs, lr=args.lr, batch=args.batch,
                      seed=args.seed, rank_weight=args.rank_weight, rank_targets=rank_targets,
                      progress=show)
    meta: dict[str, Any] = {
        "variant": v.name, "feature_version": int(best.meta.get("feature_version", 1)),
        "n_inputs": best.n_inputs, "hidden": best.n_hidden, "command": command,
        "teacher": teacher_name, "games": args.games, "seed": args.seed,
        "positions": len(pos),
        "data": [Path(d).name for d in ([args.data] if args.data else []) + args.more_data],
        "per_turn": args.per_turn, "epsilon": args.epsilon,
        "groups": bool(args.groups), "rank_weight": args.rank_weight,
        "rank_teacher_plies": args.rank_teacher_plies, "rank_rows": args.rank_rows,
        "epochs": args.epochs, "lr": args.lr, "batch": args.batch,
        "started_from": ("fresh" if args.hidden is not None
                         else Path(args.weights).name if args.weights else "shipped"),
        "started_from_command": None if args.hidden is not None else net.meta.get("command"),
        "stages": [*([] if args.hidden is not None else earlier_stages(net.meta)), command],
        "widened": bool(args.widen),
        "fit": best.meta.get("fit"), "fit_curve": curve,
        "seconds": round(time.monotonic() - started, 1)}
    name = v.name if kind == "contact" else f"{v.name}-{kind}"
    meta["kind"] = kind
    best.meta = meta
    best.save(out / f"{name}.npz")
    (out / f"{name}.json").write_text(json.dumps(meta, indent=1) + "\n")
    say(f"wrote {out / (name + '.npz')}")
    return 0


def network_kind(args: argparse.Namespace) -> str:
    """Which of a variant's networks a run fits: `contact` (every position), `crashed` or
    `race` (only the positions the evaluator sends to that network)."""
    if args.crashed and args.race:
        raise SystemExit("--crashed and --race fit different networks: name one")
    return "crashed" if args.crashed else "race" if args.race else "contact"


def earlier_stages(meta: dict[str, Any]) -> list[str]:
    """The commands that made a network, oldest first, from its metadata.

    A network made by this command lists them under `stages`, so that the
    whole recipe of a shipped network can be repeated from its sidecar; an
    older one records only its own `command`.
    """
    stages = meta.get("stages")
    if isinstance(stages, list) and all(isinstance(c, str) for c in stages):
        return list(stages)
    command = meta.get("command")
    return [command] if isinstance(command, str) else []


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(argv)
    try:
        v = find_variant(args.variant)
    except ValueError as exc:
        print(f"jacquetd distill: {exc}", file=sys.stderr)
        return 2
    args.variant = v.name
    teacher: int | RolloutTeacher = args.teacher_plies
    teacher_name = f"neural-{args.teacher_plies}"
    if args.teacher_rollout is not None:
        if args.teacher_rollout < 1:
            print("jacquetd distill: --teacher-rollout must be at least 1", file=sys.stderr)
            return 2
        try:
            horizons = parse_horizons(args.rollout_horizon)
        except ValueError as exc:
            print(f"jacquetd distill: {exc}", file=sys.stderr)
            return 2
        teacher = RolloutTeacher(args.teacher_rollout, horizons, args.seed)
        teacher_name = teacher.name

    def label(pos: Positions) -> np.ndarray:
        def progress(done: int, total: int) -> None:
            if not args.quiet:
                sys.stderr.write(f"\rlabelling {done}/{total}")
        targets = label_by_search(v, pos, teacher, weights=args.weights, jobs=args.jobs,
                                  progress=progress)
        if not args.quiet:
            sys.stderr.write("\n")
        return targets

    def deeper(pos: Positions, plies: int) -> np.ndarray:
        return label_by_search(v, pos, plies, weights=args.weights, jobs=args.jobs)

    command = "jacquetd distill " + " ".join(shlex.quote(a) for a in argv)
    return run(args, teacher_name, label, command, deeper)


if __name__ == "__main__":
    raise SystemExit(main())
