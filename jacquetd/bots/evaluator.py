"""Evaluators: from a batch of positions to outcome probabilities.

An evaluator answers, for positions with the side `me` on roll and no dice
rolled yet, the five cumulative probabilities (win, win gammon, win
backgammon, lose gammon, lose backgammon) seen by that side. The neural
evaluator runs the variant's network, makes its outputs consistent
(P(win gammon) <= P(win), ...), zeroes what the rules make impossible
(no marcia per punto for a side that has held a prime, J12; no third level
in `jacquet-be`, B8) and replaces the network by the exact bear-off databases
in races where both sides have every checker in their finishing table.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Protocol

import numpy as np

from jacquetd.engine_errors import Unsupported
from jacquetd.rules import RawPlay, Variant, find_variant

from . import bearoff, bearoff_store, fastencode, fastnet, features
from .net import LOSE_BG, LOSE_G, WIN, WIN_BG, WIN_G, Net, flip

WEIGHTS_DIR = Path(__file__).resolve().parent / "weights"


class Evaluator(Protocol):
    variant: Variant

    def probs(self, me: np.ndarray, opp: np.ndarray, me_flag: np.ndarray,
              opp_flag: np.ndarray) -> np.ndarray:
        """(N, 5) probabilities for the side on roll (`me`), before its roll."""
        ...


def result_probs(variant: Variant, winner: Sequence[int], loser: Sequence[int],
                 winner_flag: bool) -> np.ndarray:
    """The 5-vector of a finished game from the winner's view (J12, B8, C4)."""
    out = np.zeros(5)
    out[WIN] = 1.0
    if loser[0] == 0:
        out[WIN_G] = 1.0
        if variant.tracks_primes:
            out[WIN_BG] = 0.0 if winner_flag else 1.0
        elif variant.name == "backgammon":
            # C4: a loser's checker on the bar or in the winner's finishing table
            # (the winner's points 1-6 are the loser's 19-24)
            out[WIN_BG] = 1.0 if (loser[25] or any(loser[19:25])) else 0.0
    return out


def score_of(variant: Variant, winner: Sequence[int], loser: Sequence[int],
             winner_flag: bool) -> int:
    """Points won (cube 1): 1, 2 or 3."""
    p = result_probs(variant, winner, loser, winner_flag)
    return int(1 + p[WIN_G] + p[WIN_BG])


def tidy(variant: Variant, p: np.ndarray, me_flag: np.ndarray, opp_flag: np.ndarray
         ) -> np.ndarray:
    """Make raw network outputs consistent and zero what the rules exclude."""
    p = p.astype(np.float64, copy=True)
    np.minimum(p[:, WIN_G], p[:, WIN], out=p[:, WIN_G])
    np.minimum(p[:, WIN_BG], p[:, WIN_G], out=p[:, WIN_BG])
    np.minimum(p[:, LOSE_G], 1.0 - p[:, WIN], out=p[:, LOSE_G])
    np.minimum(p[:, LOSE_BG], p[:, LOSE_G], out=p[:, LOSE_BG])
    if variant.tracks_primes:
        p[me_flag, WIN_BG] = 0.0
        p[opp_flag, LOSE_BG] = 0.0
    elif variant.name != "backgammon":
        p[:, WIN_BG] = 0.0
        p[:, LOSE_BG] = 0.0
    return p


def all_home(side: np.ndarray) -> np.ndarray:
    """Per row: every checker of `side` is home (points 1-6) or borne off."""
    home: np.ndarray = np.asarray(~side[:, 7:26].any(axis=1))
    return home


class NeuralEvaluator:
    """The learned evaluator of one variant (plus the bear-off databases).

    Positions are routed as GNU Backgammon routes them: both sides home, the
    exact bear-off databases; contact over but not both home, the race
    network when there is one (`race_net`); contact positions in which a
    side's board has crashed (`features.crashed`), the crashed network when
    there is one (`crashed_net`); everything else, the contact network
    `net`. All the networks read the same encoding version.
    """

    def __init__(self, variant: Variant, net: Net, *, race_net: Net | None = None,
                 crashed_net: Net | None = None, use_bearoff: bool = True,
                 cache_size: int = 0) -> None:
        self.variant = variant
        self.net = net
        self.race_net = race_net
        self.crashed_net = crashed_net
        self.use_bearoff = use_bearoff
        self.cache_size = cache_size
        """Most positions whose 0-ply figures `probs` keeps (0: none). The cache is
        keyed by the position (both sides' counts and the J12 flags) and emptied
        when full; an evaluator whose networks change must have none."""
        self._cache: dict[bytes, list[float]] = {}
        self._db: bearoff.OneSided | None = None
        self.feature_version = int(net.meta.get("feature_version", 1))
        self.compiled = self.feature_version in fastencode.SUPPORTED
        """Whether `probs` may run the compiled kernel (the feature version has one)."""
        self._kernel = (fastnet.SmallBatches(variant, self.feature_version)
                        if self.compiled and fastnet.available() else None)
        """`fastnet.evaluate` bound to the variant and feature version (None: no kernel)."""
        for n in (net, race_net, crashed_net):
            if n is None:
                continue
            version = int(n.meta.get("feature_version", 1))
            want = features.n_inputs(self.feature_version)
            if version != self.feature_version or n.n_inputs != want:
                raise ValueError(f"network has {n.n_inputs} inputs (feature version {version}); "
                                 f"feature version {self.feature_version} makes {want}")

    def forward(self, x: np.ndarray, me: np.ndarray, opp: np.ndarray) -> np.ndarray:
        """Raw network outputs for encoded rows `x` of the positions (me, opp).

        Rows whose contact is over go to the race network when there is one,
        contact rows of a crashed board to the crashed network when there is one.
        """
        out = self.net.forward(x)
        if self.race_net is not None:
            race = ~features.contact(self.variant, me, opp)
            if race.any():
                out[race] = self.race_net.forward(x[race])
        if self.crashed_net is not None:
            crashed = features.crashed(me, opp)  # the cheaper test first
            if crashed.any():
                crashed &= features.contact(self.variant, me, opp)
                if crashed.any():
                    out[crashed] = self.crashed_net.forward(x[crashed])
        return out

    @property
    def db(self) -> bearoff.OneSided:
        if self._db is None:
            self._db = bearoff.database(self.variant.bear_off)
        return self._db

    def _table_ready(self) -> bool:
        """Whether the exact race table can be used now (built, or built on demand)."""
        if self._db is None and not bearoff_store.builds_on_demand():
            self._db = bearoff.ready_database(self.variant.bear_off)
            return self._db is not None
        return True

    def probs(self, me: np.ndarray, opp: np.ndarray, me_flag: np.ndarray,
              opp_flag: np.ndarray) -> np.ndarray:
        """(N, 5) probabilities for the side on roll: the compiled kernel
        (`fastnet`) when it is there, else `probs_reference`; the two agree
        within float32 rounding. Positions held in the cache (`cache_size`)
        are answered from it."""
        if not self.cache_size:
            return self._probs(me, opp, me_flag, opp_flag)
        n = me.shape[0]
        key = np.empty((n, 54), dtype=np.int8)
        key[:, :26] = me
        key[:, 26:52] = opp
        key[:, 52] = me_flag
        key[:, 53] = opp_flag
        raw = key.tobytes()
        keys = [raw[54 * i:54 * i + 54] for i in range(n)]
        cache = self._cache
        found = [cache.get(k) for k in keys]
        miss = [i for i, f in enumerate(found) if f is None]
        if not miss:
            return np.array(found, dtype=np.float64)
        if len(miss) == n:
            p = self._probs(me, opp, me_flag, opp_flag)
            rows = p.tolist()
        else:
            idx = np.array(miss)
            rows = self._probs(me[idx], opp[idx], me_flag[idx], opp_flag[idx]).tolist()
            for i, row in zip(miss, rows, strict=True):
                found[i] = row
            p = np.array(found, dtype=np.float64)
        if len(cache) + len(miss) > self.cache_size:
            cache.clear()
        for i, row in zip(miss, rows, strict=True):
            cache[keys[i]] = row
        return p

    def _probs(self, me: np.ndarray, opp: np.ndarray, me_flag: np.ndarray,
               opp_flag: np.ndarray) -> np.ndarray:
        if self.compiled and self._kernel is not None:
            p, home = self._kernel(self.net, self.race_net, self.crashed_net, me, opp,
                                   me_flag, opp_flag)
            if home is None:  # no row all home: the common case, and no call more
                return p
            return self._bear_off(p, home, me, opp, me_flag, opp_flag)
        return self.probs_reference(me, opp, me_flag, opp_flag)

    def probs_reference(self, me: np.ndarray, opp: np.ndarray, me_flag: np.ndarray,
                        opp_flag: np.ndarray) -> np.ndarray:
        """`probs` in numpy operations over the batch: encoding, the networks, `tidy`."""
        x = features.encode(self.variant, me, opp, me_flag, opp_flag, self.feature_version)
        p = tidy(self.variant, self.forward(x, me, opp), me_flag, opp_flag)
        return self._bear_off(p, all_home(me) & all_home(opp), me, opp, me_flag, opp_flag)

    def _bear_off(self, p: np.ndarray, race: np.ndarray | None, me: np.ndarray,
                  opp: np.ndarray, me_flag: np.ndarray, opp_flag: np.ndarray) -> np.ndarray:
        """`p` with the rows `race` (both sides all home; None for no row) from the exact
        bear-off tables."""
        if race is not None and self.use_bearoff and race.any() and self._table_ready():
            idx = np.nonzero(race)[0]
            exact = bearoff.race_probabilities(
                self.db, me[idx, 1:7], opp[idx, 1:7], me[idx, 0], opp[idx, 0])
            if self.variant.tracks_primes:
                exact[:, WIN_BG] = exact[:, WIN_G] * ~me_flag[idx]
                exact[:, LOSE_BG] = exact[:, LOSE_G] * ~opp_flag[idx]
            p[idx] = exact
        return p


def plays_probs(ev: Evaluator, raws: Sequence[RawPlay], mover_flag: bool, opp_flag: bool
                ) -> np.ndarray:
    """(N, 5) probabilities, for the side that moves, of each play's resulting position.

    The resulting positions are stacked from the opponent's view (it is on
    roll next) and evaluated in one batch, then flipped; a play that bears
    off the last checker gets the exact result.
    """
    v = ev.variant
    n = len(raws)
    out = np.zeros((n, 5))
    live = [i for i, r in enumerate(raws) if r.me[0] < 15]
    if len(live) < n:
        for i, r in enumerate(raws):
            if r.me[0] == 15:
                flag = mover_flag or (v.tracks_primes and bool(features.has_prime(
                    features.as_batch([r.me]))[0]))
                out[i] = result_probs(v, r.me, r.opp, flag)
    if live:
        nxt_me = features.as_batch([raws[i].opp for i in live])
        nxt_opp = features.as_batch([raws[i].me for i in live])
        m_flag = np.full(len(live), mover_flag)
        if v.tracks_primes and not mover_flag:
            m_flag = features.has_prime(nxt_opp)
        p = ev.probs(nxt_me, nxt_opp, np.full(len(live), opp_flag), m_flag)
        out[live] = flip(p)
    return out


class NoNetwork(Unsupported, FileNotFoundError):
    """A variant ships no trained network: a peer sees ``bad_argument`` naming the
    position (the levels that need no network, `random` and `heuristic`, still play it)."""


@lru_cache(maxsize=8)
def load_net(variant_name: str) -> Net:
    """The shipped network of a variant (weights/<variant>.npz); raises NoNetwork."""
    v = find_variant(variant_name)
    path = WEIGHTS_DIR / f"{v.name}.npz"
    if not path.exists():
        raise NoNetwork(f"no trained network for {v.name} ({path.name}): the levels random "
                        "and heuristic play it", "position")
    return Net.load(path)


@lru_cache(maxsize=8)
def load_race_net(variant_name: str) -> Net | None:
    """The shipped race network of a variant (weights/<variant>-race.npz), if there is one."""
    v = find_variant(variant_name)
    path = WEIGHTS_DIR / f"{v.name}-race.npz"
    return Net.load(path) if path.exists() else None


@lru_cache(maxsize=8)
def load_crashed_net(variant_name: str) -> Net | None:
    """The shipped crashed network of a variant (weights/<variant>-crashed.npz), if any."""
    v = find_variant(variant_name)
    path = WEIGHTS_DIR / f"{v.name}-crashed.npz"
    return Net.load(path) if path.exists() else None


@lru_cache(maxsize=16)
def candidate_evaluator(variant_name: str, weights: str | None = None, *,
                        race_weights: str | None = None,
                        crashed_weights: str | None = None) -> NeuralEvaluator:
    """The shipped evaluator with some of its networks replaced by files: how a
    candidate would play if it shipped (the benchmarks' `--weights` options).

    `weights` replaces the contact network, `race_weights` the race network,
    `crashed_weights` the crashed network. A network not given stays the
    shipped one if it reads the same inputs as the contact network (a
    candidate of an earlier feature version is measured without it). With no
    file at all it is the shipped evaluator itself.
    """
    if not (weights or race_weights or crashed_weights):
        return neural_evaluator(variant_name)
    v = find_variant(variant_name)
    net = Net.load(weights) if weights else load_net(v.name)

    def part(path: str | None, shipped: Net | None) -> Net | None:
        if path:
            return Net.load(path)
        fits = (shipped is not None and shipped.n_inputs == net.n_inputs
                and shipped.meta.get("feature_version") == net.meta.get("feature_version"))
        return shipped if fits else None

    return NeuralEvaluator(v, net, race_net=part(race_weights, load_race_net(v.name)),
                           crashed_net=part(crashed_weights, load_crashed_net(v.name)))


@lru_cache(maxsize=8)
def neural_evaluator(variant_name: str) -> NeuralEvaluator:
    """The shipped evaluator of a variant: contact, race and crashed networks, bear-off
    tables."""
    v = find_variant(variant_name)
    return NeuralEvaluator(v, load_net(v.name), race_net=load_race_net(v.name),
                           crashed_net=load_crashed_net(v.name))


CACHE_SIZE = 1 << 16
"""Positions whose 0-ply figures `cached_evaluator` keeps."""


@lru_cache(maxsize=8)
def cached_evaluator(variant_name: str) -> NeuralEvaluator:
    """The shipped networks with a position cache of `CACHE_SIZE` positions.

    Its figures are the shipped evaluator's, except that a position met again
    gets the figures of its first evaluation: a batch's matrix product can
    round a row differently with other rows beside it (float32, far below
    1e-6), so its answers depend, at that level, on what it evaluated before.
    """
    shipped = neural_evaluator(variant_name)
    return NeuralEvaluator(shipped.variant, shipped.net, race_net=shipped.race_net,
                           crashed_net=shipped.crashed_net, cache_size=CACHE_SIZE)
