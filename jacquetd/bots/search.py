"""Expectimax search over the 21 rolls with move filters and pruning, as GNU Backgammon does it.

Plies count as in GNU Backgammon: choosing a play at *n* plies evaluates the
position each candidate play leaves at *n* plies, where the evaluation of a
position (side on roll, before its roll) at

- 0 plies is the evaluator's output;
- n >= 1 plies is the average over the 21 distinct rolls (weighted 1/36 or
  2/36) of the position that the side's best play at 0 plies leaves, itself
  evaluated at n - 1 plies (and flipped back to our view).

Two settings (`SearchSettings`) bound the work:

- the *move filter* of the root: at most 8 plays, and only those within 0.16
  equity of the best at 0 plies, go on to 1 ply; at 2 plies the best 4 of
  those within 0.10; at 3 plies the best 2 within 0.06;
- *pruning* inside the search: the best play of each roll at a node is chosen
  among the few its variant's pruning network (`prune`) ranks highest, not
  among all of them.

Whole batches of positions are evaluated in one call: the candidates of a depth are
searched together, the plays of a level's positions are generated and pruned in one
compiled call (`replykernel`), and a position that several plays of a batch leave is
evaluated once. Within `Searcher.remembering` each position's best replies are computed
once (`ReplyMemo`), for a review whose decisions meet the last ones' positions again.
The search polls `should_stop` before each batch of positions it expands
(`EXPAND_CHUNK`; each position without the compiled code) and returns the deepest
complete ranking it has.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from jacquetd import fastgen
from jacquetd.rules import RawPlay, Variant, generate_raw
from jacquetd.search_settings import DEFAULT_SETTINGS as DEFAULT_SETTINGS
from jacquetd.search_settings import SearchSettings as SearchSettings
from jacquetd.search_settings import process_settings

from . import fastnet, features, prune, replykernel
from .evaluator import Evaluator, plays_probs, result_probs
from .net import equity, flip
from .prune import PruneNet

ROLLS: tuple[tuple[int, int, float], ...] = tuple(
    (a, b, (1.0 if a == b else 2.0) / 36.0) for a in range(1, 7) for b in range(a, 7))
ROLL_WEIGHTS = np.array([w for _a, _b, w in ROLLS])

StopFn = Callable[[], bool]


@dataclass(frozen=True, slots=True)
class State:
    """A position before the roll: `me` on roll; flags are J12's 'has held a prime'."""

    me: tuple[int, ...]
    opp: tuple[int, ...]
    me_flag: bool = False
    opp_flag: bool = False


def after(state: State, raw: RawPlay, tracks_primes: bool) -> State:
    """The state after `raw` (played by `state.me`), the opponent on roll."""
    flag = state.me_flag
    if tracks_primes and not flag:
        flag = bool(features.has_prime(features.as_batch([raw.me]))[0])
    return State(raw.opp, raw.me, state.opp_flag, flag)


def roll_plays(variant: Variant, s: State) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """Every play of every roll of `s.me`: the sides after each play (mover, opponent;
    (M, 26) int16 each) and the bounds of each roll's rows in ROLLS order. Plays come
    from the compiled generator when it is available (same plays, same order as the
    pure one)."""
    if fastgen.available():
        both, edges = fastgen.generate_all_rolls(variant.name, s.me, s.opp)
        both = both.astype(np.int16)
        return both[:, :26], both[:, 26:], edges.tolist()
    raws: list[RawPlay] = []
    bounds = [0]
    for a, b, _w in ROLLS:
        raws.extend(generate_raw(variant, s.me, s.opp, (a, b)))
        bounds.append(len(raws))
    return features.as_batch([r.me for r in raws]), features.as_batch([r.opp for r in raws]), bounds


_ROW_HASH = np.random.default_rng(20261206).integers(
    1, 1 << 63, size=15, dtype=np.uint64) | np.uint64(1)
"""Odd multipliers of a row's thirteen 64-bit words (its two sides) and its two flags,
for `_distinct_rows`."""

DISTINCT_MIN_ROWS = 64
"""From this many rows a batch is searched for positions met more than once."""


def _distinct_rows(me: np.ndarray, opp: np.ndarray, me_flag: np.ndarray,
                   opp_flag: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """For a batch of positions with repeats: (the first row of each distinct position,
    and for every row the index of its position among those), so that `rows[first]
    [inverse]` is `rows`; None when the batch is small (`DISTINCT_MIN_ROWS`), has no
    repeats, or would leave fewer distinct rows than the evaluator's batched path
    takes (`fastnet.BATCH_ROWS`: the figures stay those of that path). Rows are told
    apart exactly: a hash groups them and the groups are checked row by row."""
    n = len(me)
    if n < DISTINCT_MIN_ROWS:
        return None
    sides = np.empty((n, 52), dtype=np.int16)
    sides[:, :26] = me
    sides[:, 26:] = opp
    words = sides.view(np.uint64)  # (n, 13)
    h = words @ _ROW_HASH[:13]  # wraps around modulo 2**64
    h += me_flag.astype(np.uint64) * _ROW_HASH[13] + opp_flag.astype(np.uint64) * _ROW_HASH[14]
    _, first, inverse = np.unique(h, return_index=True, return_inverse=True)
    if len(first) == n or len(first) < fastnet.BATCH_ROWS:
        return None
    inverse = inverse.reshape(-1)
    if not (np.array_equal(sides[first][inverse], sides)  # two positions shared a hash
            and np.array_equal(me_flag[first][inverse], me_flag)
            and np.array_equal(opp_flag[first][inverse], opp_flag)):
        return None
    return first, inverse


def _probs_of_plays(ev: Evaluator, after_me: np.ndarray, after_opp: np.ndarray,
                    me_flag: np.ndarray, opp_flag: np.ndarray) -> np.ndarray:
    """(M, 5) probabilities, for the movers, of the positions their plays left; each row
    has its mover's and its opponent's prime flags before the play (J12)."""
    v = ev.variant
    n = len(after_me)
    p = np.zeros((n, 5))
    won = after_me[:, 0] == 15
    mover_flags = me_flag
    if v.tracks_primes and not me_flag.all():
        mover_flags = me_flag | features.has_prime(after_me)
    live = np.nonzero(~won)[0]
    if len(live):
        on_roll, other = after_opp[live], after_me[live]
        on_flag, other_flag = opp_flag[live], mover_flags[live]
        distinct = _distinct_rows(on_roll, other, on_flag, other_flag)
        if distinct is None:
            q = ev.probs(on_roll, other, on_flag, other_flag)
        else:  # a position left by several plays is evaluated once
            first, inverse = distinct
            q = ev.probs(on_roll[first], other[first], on_flag[first],
                         other_flag[first])[inverse]
        p[live] = flip(q)
    for k in np.nonzero(won)[0]:
        p[k] = result_probs(v, tuple(after_me[k]), tuple(after_opp[k]),
                            bool(mover_flags[k]))
    return p


def roll_replies(ev: Evaluator, s: State
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[int]]:
    """Every play of every roll of `s.me`, evaluated at 0 plies for the mover.

    Returns the sides after each play (mover, opponent; (M, 26) int16 each),
    their (M, 5) probabilities for the mover, and the bounds of each roll's
    rows in ROLLS order.
    """
    after_me, after_opp, bounds = roll_plays(ev.variant, s)
    n = len(after_me)
    p = _probs_of_plays(ev, after_me, after_opp, np.full(n, s.me_flag), np.full(n, s.opp_flag))
    return after_me, after_opp, p, bounds


def best_replies(ev: Evaluator, s: State, pruner: PruneNet | None = None
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each roll in ROLLS order, the mover's best play at 0 plies: the sides it
    leaves ((21, 26) each, mover then opponent) and its (21, 5) probabilities.

    With a `pruner`, only each roll's best `prune.keep(plays)` plays by the pruning
    network (and every play that wins outright) are evaluated by `ev`, as GNU
    Backgammon's pruning nets do; ties go to the first play in generation order
    either way.
    """
    me, opp, p = best_replies_of(ev, [s], pruner)
    return me[0], opp[0], p[0]


Replies = tuple[np.ndarray, np.ndarray, np.ndarray]
"""One state's best replies: (21, 26) mover sides, (21, 26) opponent sides and (21, 5)
probabilities (`best_replies`)."""


class ReplyMemo:
    """The best replies of the states met lately, each computed once (`best_replies_of`).

    Holds up to `size` states in each of two generations: when the newer is full it
    becomes the older and the oldest is dropped, so that what the last decisions met
    stays at hand. The figures are those `best_replies_of` gave the state when first
    asked."""

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self._new: dict[State, Replies] = {}
        self._old: dict[State, Replies] = {}

    def get(self, s: State) -> Replies | None:
        found = self._new.get(s)
        if found is None:
            found = self._old.get(s)
            if found is not None:
                self.put(s, found)
        return found

    def put(self, s: State, replies: Replies) -> None:
        if len(self._new) >= self.size:
            self._old, self._new = self._new, {}
        self._new[s] = replies

    def __len__(self) -> int:
        return len(self._new) + len(self._old)


def best_replies_of(ev: Evaluator, states: Sequence[State], pruner: PruneNet | None = None,
                    should_stop: StopFn | None = None, memo: ReplyMemo | None = None
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`best_replies` of many states with one call of the evaluator: (N, 21, 26) mover
    sides, (N, 21, 26) opponent sides and (N, 21, 5) probabilities. `should_stop` is
    polled before each state's plays are generated (Stopped). With a `memo`, a state
    it holds is answered from it and the others are added to it."""
    if memo is not None and states:
        found = [memo.get(s) for s in states]
        missing = [i for i, f in enumerate(found) if f is None]
        if missing:
            me, opp, p = best_replies_of(ev, [states[i] for i in missing], pruner,
                                         should_stop)
            for k, i in enumerate(missing):
                found[i] = (me[k], opp[k], p[k])
                memo.put(states[i], (me[k], opp[k], p[k]))
        parts = [f for f in found if f is not None]
        return (np.stack([f[0] for f in parts]), np.stack([f[1] for f in parts]),
                np.stack([f[2] for f in parts]))
    if replykernel.available():
        me, opp, group = _expand_compiled(ev.variant, states, pruner, should_stop)
        owner = group // len(ROLLS)
        me_flag = np.array([s.me_flag for s in states], dtype=np.bool_)[owner]
        opp_flag = np.array([s.opp_flag for s in states], dtype=np.bool_)[owner]
    else:
        me, opp, me_flag, opp_flag, group = _expand_each(ev.variant, states, pruner,
                                                         should_stop)
    p = _probs_of_plays(ev, me, opp, me_flag, opp_flag)
    # each group's first row of the highest equity (rows are in generation order)
    order = np.lexsort((-equity(p), group))
    best = order[np.r_[0, np.flatnonzero(np.diff(group[order])) + 1]]
    shape = (len(states), len(ROLLS))
    return (me[best].reshape(*shape, 26), opp[best].reshape(*shape, 26),
            p[best].reshape(*shape, 5))


EXPAND_CHUNK = 16
"""States expanded by one compiled call between two polls of `should_stop`."""


def _expand_compiled(variant: Variant, states: Sequence[State], pruner: PruneNet | None,
                     should_stop: StopFn | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`_expand_each`'s rows and groups from the compiled expansion, `EXPAND_CHUNK`
    states a call, `should_stop` polled before each call (Stopped)."""
    mes = np.array([s.me for s in states], dtype=np.int16).reshape(len(states), 26)
    opps = np.array([s.opp for s in states], dtype=np.int16).reshape(len(states), 26)
    parts = []
    for lo in range(0, len(states), EXPAND_CHUNK):
        if should_stop is not None and should_stop():
            raise Stopped
        me, opp, group = replykernel.expand(variant, mes[lo:lo + EXPAND_CHUNK],
                                            opps[lo:lo + EXPAND_CHUNK], pruner)
        parts.append((me, opp, group + lo * len(ROLLS)))
    if len(parts) == 1:
        return parts[0]
    return (np.concatenate([q[0] for q in parts]), np.concatenate([q[1] for q in parts]),
            np.concatenate([q[2] for q in parts]))


def _expand_each(variant: Variant, states: Sequence[State], pruner: PruneNet | None,
                 should_stop: StopFn | None
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every play of every roll of each state, pruned by `pruner` (`roll_plays`,
    `PruneNet.kept_rows`), a state at a time with `should_stop` polled before each
    (Stopped): the sides after each play, the flags of its state and its group (the
    state's index x 21 + the roll's)."""
    me_parts, opp_parts, me_flags, opp_flags, groups = [], [], [], [], []
    for i, s in enumerate(states):
        if should_stop is not None and should_stop():
            raise Stopped
        after_me, after_opp, bounds = roll_plays(variant, s)
        edges = np.asarray(bounds, dtype=np.int64)
        if pruner is not None and len(after_me) > len(ROLLS) * prune.MIN_KEEP:
            rows, edges = pruner.kept_rows(after_me, after_opp, edges)
            after_me, after_opp = after_me[rows], after_opp[rows]
        me_parts.append(after_me)
        opp_parts.append(after_opp)
        n = len(after_me)
        me_flags.append(np.full(n, s.me_flag))
        opp_flags.append(np.full(n, s.opp_flag))
        groups.append(i * len(ROLLS) + np.repeat(np.arange(len(ROLLS)), np.diff(edges)))
    return (np.concatenate(me_parts), np.concatenate(opp_parts), np.concatenate(me_flags),
            np.concatenate(opp_flags), np.concatenate(groups))


class Stopped(Exception):
    """Raised inside a search level when `should_stop` turned true."""


def _never() -> bool:
    return False


class Searcher:
    """n-ply evaluation and play ranking with one evaluator."""

    def __init__(self, ev: Evaluator, settings: SearchSettings | None = None) -> None:
        self.ev = ev
        self.variant = ev.variant
        self.settings = settings = settings or process_settings()
        self.pruner = prune.shipped(ev.variant.name) if settings.prune else None
        self.memo: ReplyMemo | None = None
        """While set (`remembering`), the best replies of each state are computed once."""

    @contextmanager
    def remembering(self, size: int = 4096) -> Iterator[ReplyMemo]:
        """Within the block, every search of this searcher computes each state's best
        replies once (`ReplyMemo` of `size`), checker plays and cube decisions alike: a
        match review meets the same positions again from one decision to the next. A
        block inside another shares the outer memo."""
        if self.memo is not None:
            yield self.memo
            return
        self.memo = ReplyMemo(size)
        try:
            yield self.memo
        finally:
            self.memo = None

    def replies_of(self, states: Sequence[State], should_stop: StopFn | None = None
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """`best_replies_of` the states with this searcher's evaluator, pruning and memo."""
        return best_replies_of(self.ev, states, self.pruner, should_stop, self.memo)

    # -- position values -------------------------------------------------------------

    def evaluate_states(self, states: Sequence[State], plies: int,
                        should_stop: StopFn = _never) -> np.ndarray:
        """(N, 5) probabilities of positions before the roll, at `plies` plies."""
        if plies <= 0:
            me = features.as_batch([s.me for s in states])
            opp = features.as_batch([s.opp for s in states])
            return self.ev.probs(me, opp, np.array([s.me_flag for s in states]),
                                 np.array([s.opp_flag for s in states]))
        out = np.zeros((len(states), 5))
        # for every state and roll: the best reply at 0 plies
        best_me, best_opp, best_p = self.replies_of(states, should_stop)
        if plies == 1:
            out[:] = np.einsum("r,nrk->nk", ROLL_WEIGHTS, best_p)
            return out
        nxt: list[State] = []
        weights: list[tuple[int, float]] = []
        for i, s in enumerate(states):
            after_me, after_opp, p = best_me[i], best_opp[i], best_p[i]
            for k, (_a, _b, w) in enumerate(ROLLS):
                if after_me[k, 0] == 15:
                    out[i] += w * p[k]
                else:
                    weights.append((i, w))
                    flag = s.me_flag
                    if self.variant.tracks_primes and not flag:
                        flag = bool(features.has_prime(after_me[k:k + 1])[0])
                    nxt.append(State(tuple(int(c) for c in after_opp[k]),
                                     tuple(int(c) for c in after_me[k]), s.opp_flag, flag))
        if nxt:
            deeper = self.evaluate_states(nxt, plies - 1, should_stop)
            for (i, w), row in zip(weights, deeper, strict=True):
                out[i] += w * flip(row)
        return out

    def evaluate_plays(self, state: State, raws: Sequence[RawPlay], plies: int,
                       should_stop: StopFn = _never) -> np.ndarray:
        """(N, 5) probabilities, for the mover, of the positions the plays leave."""
        if plies <= 0:
            return plays_probs(self.ev, raws, state.me_flag, state.opp_flag)
        out = np.zeros((len(raws), 5))
        live: list[int] = []
        nxt: list[State] = []
        for i, raw in enumerate(raws):
            if raw.me[0] == 15:
                flag = state.me_flag
                out[i] = result_probs(self.variant, raw.me, raw.opp, flag)
                continue
            live.append(i)
            nxt.append(after(state, raw, self.variant.tracks_primes))
        if nxt:  # every play's position searched at once
            if should_stop():
                raise Stopped
            out[live] = flip(self.evaluate_states(nxt, plies, should_stop))
        return out

    # -- ranking ---------------------------------------------------------------------

    def rank(self, state: State, raws: Sequence[RawPlay], plies: int,
             should_stop: StopFn = _never
             ) -> Iterator[list[tuple[int, np.ndarray, int]]]:
        """Rankings of the plays, deepening ply by ply: lists of (index, probs, plies).

        The first ranking (0 plies) covers every play; each deeper one puts the
        candidates that passed the filter, ranked at that depth, above the
        others (kept with their shallower figures). Stops early, without a
        partial ranking, when `should_stop` turns true.
        """
        p0 = plays_probs(self.ev, raws, state.me_flag, state.opp_flag)
        e0 = equity(p0)
        # highest equity first, ties in the plays' order (a stable sort)
        order = np.argsort(-e0, kind="stable").tolist()
        ranking = [(i, p0[i], 0) for i in order]
        yield ranking
        if len(raws) == 1:
            return
        for depth in range(1, plies + 1):
            limit, window = self.settings.filter_at(depth)
            best = float(equity(ranking[0][1]))
            cands = [r for r in ranking[:limit] if best - float(equity(r[1])) <= window]
            try:
                probs = self.evaluate_plays(state, [raws[i] for i, _, _ in cands], depth,
                                            should_stop)
            except Stopped:
                return
            top = sorted(((i, probs[k], depth) for k, (i, _, _) in enumerate(cands)),
                         key=lambda r: (-float(equity(r[1])), r[0]))
            chosen = {i for i, _, _ in top}
            ranking = top + [r for r in ranking if r[0] not in chosen]
            yield ranking

    def best(self, state: State, raws: Sequence[RawPlay], plies: int,
             should_stop: StopFn = _never) -> int:
        """Index of the best play at `plies` (or the deepest level finished)."""
        if len(raws) == 1:
            return 0
        last: list[tuple[int, np.ndarray, int]] = []
        for ranking in self.rank(state, raws, plies, should_stop):
            last = ranking
        return last[0][0]
