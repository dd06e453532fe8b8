"""Rollouts in chunks of 36 trials: the same figures wherever the chunks run.

A rollout plays `trials` games from each *line* (the position itself, or the
position each candidate play leaves) with the neural bot at `plies` for both
sides, full games or truncated after `truncate` turns (then scored by the
evaluator). Variance reductions, as GNU Backgammon does them:

- the first roll is rotated: trial i gets roll `order[i % 36]` of a seeded
  permutation of the 36 outcomes, so every chunk of 36 trials sees each roll
  once (a line whose first roll is given, a position with dice rolled out
  without candidates, uses that roll);
- every roll's luck, judged at 0 plies (the best play's equity with this
  roll minus the average over all rolls), is subtracted from the result;
  its expectation is zero, so the luck-adjusted mean stays unbiased.

At 0 plies the games are played wholly in compiled code
(`rolloutkernel.rollout_block`): trial i of every line draws its later dice from a
counter keyed by (seed, i, turn), and the first rolls rotate over the kernel's seeded
order of the 36. Deeper, trial i draws its later dice from `default_rng([seed, i])`.
Either way the lines share their dice (common random numbers), so the difference
between two candidates is much more precise than either figure.

The unit of work is a chunk: trials 36k .. 36k+35 (`run_chunk(spec, k)`). A
chunk's figures depend only on the spec and k, and `RunningSum` folds the
chunks in index order, so a rollout gives the same figures to the last digit
in one process, in the daemon's worker pool or on Dask workers.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from jacquetd.rules import Position, apply_move, find_variant, generate_raw

from . import rolloutkernel
from .evaluator import neural_evaluator
from .net import equity, flip
from .players import state_of
from .search import ROLLS, Searcher, State, after, roll_replies

CHUNK = 36
OUTPUTS = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")

_WEIGHTS = np.array([w for _, _, w in ROLLS])
_ROLL_INDEX: dict[tuple[int, int], int] = {}
for _k, (_a, _b, _w) in enumerate(ROLLS):
    _ROLL_INDEX[(_a, _b)] = _k
    _ROLL_INDEX[(_b, _a)] = _k


@dataclass(frozen=True)
class Line:
    """One thing rolled out: `state` before its roll; `first` a fixed first roll (else
    rotated); `flipped`: the figures are wanted from the other side's view (a candidate
    play's line starts with the opponent on roll)."""

    move: str
    state: State
    first: tuple[int, int] | None
    flipped: bool


@dataclass(frozen=True)
class RolloutSpec:
    """Everything a chunk needs (small and picklable: it travels to the workers)."""

    variant: str
    lines: tuple[Line, ...]
    trials: int
    plies: int = 0
    seed: int = 1
    truncate: int = 0

    @property
    def chunks(self) -> int:
        return (self.trials + CHUNK - 1) // CHUNK

    def chunk_size(self, index: int) -> int:
        return min(CHUNK, self.trials - CHUNK * index)


@dataclass(frozen=True)
class ChunkResult:
    """Per trial of the chunk, per line: the result (root view), the luck-adjusted result
    and the five outcome probabilities; arrays (lines, n) and (lines, n, 5)."""

    index: int
    raw: np.ndarray
    adjusted: np.ndarray
    probs: np.ndarray


def plan(pos: Position, *, candidates: Sequence[str] | None = None, trials: int = 1296,
         plies: int = 0, seed: int = 1, truncate: int = 0) -> RolloutSpec:
    """The spec of a rollout of `pos`: without dice, the position; with dice, each
    candidate (a move in any legal spelling; `_` reads as a space), or without
    candidates the roll played by the rollout's bot. Raises the rules errors of
    `apply_move` for a candidate that is not legal."""
    if trials < 1:
        raise ValueError("trials must be at least 1")
    variant = find_variant(pos.variant).name
    if pos.game_over():
        raise ValueError("the game is over: there is nothing to roll out")
    lines: list[Line] = []
    if not pos.dice:
        lines.append(Line("", state_of(pos), None, False))
    elif not candidates:
        lines.append(Line("", state_of(pos), (pos.dice[0], pos.dice[1]), False))
    else:
        seen: set[str] = set()
        for text in candidates:
            play = apply_move(pos, text.replace("_", " "))
            if play.move in seen:
                continue
            seen.add(play.move)
            lines.append(Line(play.move, state_of(play.after), None, True))
    return RolloutSpec(variant, tuple(lines), trials, plies, seed, truncate)


@lru_cache(maxsize=4)
def _searcher(variant: str) -> Searcher:
    return Searcher(neural_evaluator(variant))


@dataclass(frozen=True, slots=True)
class _Expansion:
    probs: np.ndarray        # (21, 5) for the mover after its best 0-ply play per roll
    best: np.ndarray         # (21,) their equities
    mean: float              # the average over the rolls
    nxt: tuple[State | None, ...]


_CACHE: dict[tuple[str, State], _Expansion] = {}
_CACHE_LIMIT = 50_000


def _expand(search: Searcher, s: State) -> _Expansion:
    key = (search.variant.name, s)
    got = _CACHE.get(key)
    if got is not None:
        return got
    after_me, after_opp, p, bounds = roll_replies(search.ev, s)
    eq = equity(p)
    ks = [bounds[r] + int(np.argmax(eq[bounds[r]:bounds[r + 1]])) for r in range(len(ROLLS))]
    nxt: list[State | None] = []
    for k in ks:
        me = tuple(int(c) for c in after_me[k])
        if me[0] == 15:
            nxt.append(None)
            continue
        flag = s.me_flag
        if search.variant.tracks_primes and not flag:
            from .features import has_prime
            flag = bool(has_prime(after_me[k:k + 1])[0])
        nxt.append(State(tuple(int(c) for c in after_opp[k]), me, s.opp_flag, flag))
    best = eq[ks]
    e = _Expansion(p[ks], best, float((_WEIGHTS * best).sum()), tuple(nxt))
    if len(_CACHE) >= _CACHE_LIMIT:
        _CACHE.clear()
    _CACHE[key] = e
    return e


def _trial(search: Searcher, line: Line, dice: tuple[int, int], rng: np.random.Generator,
           plies: int, truncate: int) -> tuple[float, float, np.ndarray]:
    """One game from `line.state`: (result, luck-adjusted result, outcome probabilities),
    from the view of the side on roll of `line.state`."""
    v = search.variant
    state = line.state
    sign = 1.0
    luck = 0.0
    turns = 0
    while True:
        e = _expand(search, state)
        r = _ROLL_INDEX[dice]
        luck += sign * (e.best[r] - e.mean)
        if plies == 0:
            mover, nxt = e.probs[r], e.nxt[r]
        else:
            raws = generate_raw(v, state.me, state.opp, dice)
            k = search.best(state, raws, plies) if len(raws) > 1 else 0
            raw = raws[k]
            if raw.me[0] == 15:
                from .evaluator import result_probs
                mover, nxt = result_probs(v, raw.me, raw.opp, state.me_flag), None
            else:
                nxt = after(state, raw, v.tracks_primes)
                mover = flip(search.evaluate_states([nxt], 0)[0])
        turns += 1
        if nxt is None or (truncate and turns >= truncate):
            probs = mover if sign > 0 else flip(mover)
            value = float(equity(probs))
            return value, value - luck, probs
        state = nxt
        sign = -sign
        a, b = rng.integers(1, 7, size=2)
        dice = (int(a), int(b))


def first_rolls(seed: int) -> np.ndarray:
    """The rotation of the 36 first rolls: trial i gets outcome `order[i % 36]`."""
    return np.random.default_rng([seed, 36]).permutation(36)


def run_chunk(spec: RolloutSpec, index: int,
              should_stop: Callable[[], bool] | None = None) -> ChunkResult:
    """Trials 36*index .. of every line. Deterministic: the same spec and index give the
    same arrays in any process."""
    n = spec.chunk_size(index)
    if n <= 0:
        raise ValueError(f"chunk {index} is past the rollout's {spec.trials} trials")
    if spec.plies == 0 and compiled(spec.variant):
        return _run_chunk_compiled(spec, index, n, should_stop)
    search = _searcher(spec.variant)
    order = first_rolls(spec.seed)
    raw = np.zeros((len(spec.lines), n))
    adjusted = np.zeros((len(spec.lines), n))
    probs = np.zeros((len(spec.lines), n, 5))
    for t in range(n):
        i = CHUNK * index + t
        if should_stop is not None and should_stop():
            raise InterruptedError("stopped")
        k = int(order[i % 36])
        rotated = (k // 6 + 1, k % 6 + 1)
        for j, line in enumerate(spec.lines):
            rng = np.random.default_rng([spec.seed, i])
            value, adj, p = _trial(search, line, line.first or rotated, rng, spec.plies,
                                   spec.truncate)
            if line.flipped:
                value, adj, p = -value, -adj, flip(p)
            raw[j, t], adjusted[j, t], probs[j, t] = value, adj, p
    return ChunkResult(index, raw, adjusted, probs)


COMPILED_BLOCK = 6
"""Trials of a line one compiled call plays, `should_stop` polled between calls; a
rollout truncated after at most `SHORT_TRUNCATION` turns plays a chunk's trials in one
call (their first turns, which the trials of a call share, are much of their work)."""
SHORT_TRUNCATION = 10


def compiled(variant: str) -> bool:
    """Whether the 0-ply rollouts of `variant` are played in compiled code
    (`rolloutkernel`: numba there, and the variant's network has a compiled encoder)."""
    return rolloutkernel.available() and neural_evaluator(variant).compiled


def _run_chunk_compiled(spec: RolloutSpec, index: int, n: int,
                        should_stop: Callable[[], bool] | None) -> ChunkResult:
    """`run_chunk` at 0 plies: each line's trials played wholly in compiled code
    (`rolloutkernel.rollout_block`), `COMPILED_BLOCK` trials a call; trial i of every
    line on the same counter-based dice keyed by (seed, i), the first roll rotated over
    the kernel's seeded order of the 36 (or the line's own)."""
    ev = neural_evaluator(spec.variant)
    block = CHUNK if 0 < spec.truncate <= SHORT_TRUNCATION else COMPILED_BLOCK
    shape = (len(spec.lines), n)
    raw, adjusted, probs = np.zeros(shape), np.zeros(shape), np.zeros((*shape, 5))
    for j, line in enumerate(spec.lines):
        for lo in range(0, n, block):
            if should_stop is not None and should_stop():
                raise InterruptedError("stopped")
            m = min(block, n - lo)
            res, p = rolloutkernel.rollout_block(
                ev, line.state, trials=m, trial0=CHUNK * index + lo, seed=spec.seed,
                horizon=spec.truncate or None, first_roll=line.first)
            value, adj = res.raw, res.values
            if line.flipped:
                value, adj, p = -value, -adj, flip(p)
            raw[j, lo:lo + m], adjusted[j, lo:lo + m], probs[j, lo:lo + m] = value, adj, p
    return ChunkResult(index, raw, adjusted, probs)


class RunningSum:
    """The figures of a rollout's chunks, folded into running sums: the memory of a few
    numbers per line, whatever the number of chunks.

    Chunks may be added in any order; they are folded in index order (a chunk that comes
    before its predecessors waits in `held` until they come), so the figures depend only
    on which chunks were added, never on the order in which they finished. Each line
    keeps, per figure, the count, mean and sum of squared deviations, merged chunk by
    chunk (Chan's pairwise update), and the sums of the outcome probabilities."""

    def __init__(self, spec: RolloutSpec) -> None:
        self.spec = spec
        self.next = 0  # the index of the next chunk to fold
        self.held: dict[int, ChunkResult] = {}  # chunks added before their predecessors
        lines = len(spec.lines)
        self.n = 0
        self._mean = np.zeros((2, lines))  # [adjusted, raw] per line
        self._m2 = np.zeros((2, lines))
        self._probs = np.zeros((lines, 5))

    def add(self, chunk: ChunkResult) -> None:
        """Take one chunk (each index at most once)."""
        if chunk.index < self.next or chunk.index in self.held:
            raise ValueError(f"chunk {chunk.index} was already added")
        self.held[chunk.index] = chunk
        while self.next in self.held:
            self._fold(self.held.pop(self.next))
            self.next += 1

    @property
    def chunks_done(self) -> int:
        return self.next + len(self.held)

    def _fold(self, chunk: ChunkResult) -> None:
        n_b = chunk.raw.shape[1]
        if n_b == 0:
            return
        values = np.stack([chunk.adjusted, chunk.raw])  # (2, lines, n_b)
        mean_b = values.mean(axis=2)
        m2_b = ((values - mean_b[:, :, None]) ** 2).sum(axis=2)
        n_a, n = self.n, self.n + n_b
        delta = mean_b - self._mean
        self._mean = self._mean + delta * (n_b / n)
        self._m2 = self._m2 + m2_b + delta * delta * (n_a * n_b / n)
        self._probs = self._probs + chunk.probs.sum(axis=1)
        self.n = n

    def figures(self) -> dict[str, object]:
        """The figures of every chunk added (those held are folded, in index order, into
        a copy: they stay held)."""
        state = self
        if self.held:
            state = RunningSum.__new__(RunningSum)
            state.__dict__.update(self.__dict__)
            for k in sorted(self.held):
                state._fold(self.held[k])
        n = state.n
        lines = []
        for j, line in enumerate(self.spec.lines):
            entry: dict[str, object] = {"move": line.move}
            if n:
                for name, value in zip(OUTPUTS, state._probs[j] / n, strict=True):
                    entry[name] = round(float(value), 6)
                entry["equity"] = round(float(state._mean[0, j]), 6)
                entry["equity_raw"] = round(float(state._mean[1, j]), 6)
                for key, m2 in (("std_error", state._m2[0, j]), ("std_error_raw",
                                                                  state._m2[1, j])):
                    entry[key] = (round(float(math.sqrt(m2 / (n - 1)) / math.sqrt(n)), 6)
                                  if n > 1 else None)
            lines.append(entry)
        return {"trials_done": n, "trials": self.spec.trials, "lines": lines,
                "done": n >= self.spec.trials}


def summarize(spec: RolloutSpec, chunks: Mapping[int, ChunkResult] | Iterable[ChunkResult]
              ) -> dict[str, object]:
    """The figures of these chunks, folded in index order (`RunningSum`): they do not
    depend on the order in which the chunks finished."""
    done = chunks if isinstance(chunks, Mapping) else {c.index: c for c in chunks}
    total = RunningSum(spec)
    for k in sorted(done):
        total.add(done[k])
    return total.figures()


def rollout_local(spec: RolloutSpec, *, on_chunk: Callable[[dict[str, object]], None]
                  | None = None, should_stop: Callable[[], bool] | None = None
                  ) -> dict[str, object]:
    """Every chunk in this process, in order; `on_chunk` gets the figures after each."""
    total = RunningSum(spec)
    for k in range(spec.chunks):
        if should_stop is not None and should_stop():
            break
        total.add(run_chunk(spec, k))
        if on_chunk is not None:
            on_chunk(total.figures())
    return total.figures()
