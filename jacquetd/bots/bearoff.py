"""Exact one-sided bear-off databases for both bearing-off rules.

A one-sided database holds, for every way of placing up to 15 checkers on the
six points of the finishing table (54,264 positions for 15 checkers), the
distribution of the number of rolls the side needs to bear them all off when
it always plays to minimise the expected number of rolls, and the same for
bearing off its first checker (what matters to save a marcia/gammon). There
is one database per bearing-off rule:

- ``rearmost`` (RULES.md J9/J10, variant ``jacquet``): a die bears off only
  the checker on the highest occupied point, and only if it is at least that
  point; a play must bear off as many checkers as the dice allow;
- ``standard`` (B7, ``jacquet-be`` and ``backgammon``).

Both follow G7 (as many dice as possible, else the higher die). The tables are
built once (seconds of CPU for 15 checkers, by the compiled `bearoff_kernel`) and
cached as a ``.npz`` file in the user cache directory (``$JACQUETD_CACHE``, else
``$XDG_CACHE_HOME/jacquetd``, else ``~/.cache/jacquetd``): 2.7 MB (standard) and
5.2 MB (rearmost), too big to ship in the package. ``python -m
jacquetd.bots.bearoff`` builds them ahead (at install); the daemon builds the missing
ones in the background when it starts, and evaluates races with its network until then.

Two one-sided tables give a pure race exactly when both sides have every
checker in their finishing table: `race_probabilities`. The two-sided cubeful
tables of short bear-offs (`bearoff_cube`) are cached, built ahead and built
by the daemon in the same way (`missing_tables`, `build_missing`).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import logging
import multiprocessing
import os
import time
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from . import bearoff_cube, bearoff_kernel
from .bearoff_store import (
    MAX_CHECKERS,
    POINTS,
    ROLLS,
    RULES,
    all_positions,
    by_rank,
    cache_dir,
    locked_build,
    n_positions,
    rank,
    rank_batch,
)

log = logging.getLogger(__name__)

MAX_ROLLS = 32
DB_VERSION = 1

__all__ = ["MAX_CHECKERS", "POINTS", "ROLLS", "RULES", "all_positions", "by_rank", "cache_dir",
           "locked_build", "n_positions", "rank", "rank_batch"]


def single_die(pos: tuple[int, ...], d: int, rule: str) -> list[tuple[int, ...]]:
    """Every legal move of one checker by die `d` in a one-sided bear-off (points 1-6)."""
    highest = 0
    for q in range(POINTS, 0, -1):
        if pos[q - 1]:
            highest = q
            break
    out: list[tuple[int, ...]] = []
    for src in range(highest, 0, -1):
        if not pos[src - 1]:
            continue
        dst = src - d
        if dst <= 0:
            if (dst < 0 or rule == "rearmost") and src != highest:
                continue
            nxt = list(pos)
            nxt[src - 1] -= 1
        else:
            nxt = list(pos)
            nxt[src - 1] -= 1
            nxt[dst - 1] += 1
        out.append(tuple(nxt))
    return out


def plays(pos: tuple[int, ...], d1: int, d2: int, rule: str) -> set[tuple[int, ...]]:
    """The positions every legal play of (d1, d2) can reach (G7, B7 or J9/J10)."""
    most_off = rule == "rearmost"  # J10 goes with the rearmost rule (variant jacquet)
    found: dict[tuple[int, ...], int] = {}
    if d1 == d2:
        seen: list[set[tuple[int, ...]]] = [set() for _ in range(5)]

        def walk(p: tuple[int, ...], depth: int) -> None:
            if depth == 4 or not any(p):
                found[p] = max(found.get(p, 0), 4)
                return
            succ = single_die(p, d1, rule)
            if not succ:
                found[p] = max(found.get(p, 0), depth)
                return
            for s in succ:
                if s not in seen[depth + 1]:
                    seen[depth + 1].add(s)
                    walk(s, depth + 1)

        walk(pos, 0)
    else:
        hi, lo = max(d1, d2), min(d1, d2)
        for first, second in ((hi, lo), (lo, hi)):
            for s1 in single_die(pos, first, rule):
                if not any(s1):
                    found[s1] = 2
                    continue
                succ = single_die(s1, second, rule)
                if not succ:
                    if found.get(s1, 0) < 1:
                        found[s1] = 10 + first  # one die: remember which
                    continue
                for s2 in succ:
                    found[s2] = 2
        if not found:
            return {pos}
    most = max(v if v < 10 else 1 for v in found.values())
    result = {p for p, v in found.items() if (v if v < 10 else 1) == most}
    if most == 1 and d1 != d2:
        higher = {p for p in result if found[p] == 10 + max(d1, d2)}
        result = higher or result
    if most_off and len(result) > 1:
        least = min(sum(p) for p in result)
        result = {p for p in result if sum(p) == least}
    return result


class OneSided:
    """One rule's database: expected rolls and roll distributions to bear off."""

    def __init__(self, rule: str, checkers: int, expected: np.ndarray, dist: np.ndarray,
                 first_expected: np.ndarray, first_dist: np.ndarray) -> None:
        self.rule = rule
        self.checkers = checkers
        self.expected = expected
        """expected[rank]: mean rolls to bear every checker off."""
        self.dist = dist
        """dist[rank, n]: probability that the side needs exactly n rolls."""
        self.first_expected = first_expected
        self.first_dist = first_dist
        """first_dist[rank, n]: probability that its first checker comes off on roll n."""

    def lookup(self, counts: Iterable[int]) -> int:
        return rank(counts)


def build(rule: str, checkers: int = MAX_CHECKERS) -> OneSided:
    """Build the one-sided database of `rule` for up to `checkers` checkers.

    Positions are solved in order of pip count, so every position a roll can reach is
    solved before the position itself; each roll's plays are those of `plays`, generated
    by the compiled kernel (`bearoff_kernel`: seconds for 15 checkers, where the same loop
    in Python took over a minute a rule)."""
    if rule not in RULES:
        raise ValueError(f"unknown bear-off rule {rule!r}")
    expected, first_expected, dist, first_dist = bearoff_kernel.solve_one_sided(
        by_rank(checkers), rule, ROLLS, MAX_ROLLS)
    return OneSided(rule, checkers, expected, dist.astype(np.float32), first_expected,
                    first_dist.astype(np.float32))


_LOADED: dict[str, OneSided] = {}

def cache_path(rule: str) -> Path:
    return cache_dir() / f"bearoff-{rule}-v{DB_VERSION}.npz"


def missing_tables() -> list[str]:
    """The tables not built yet, one-sided (named by their rule) and two-sided ('cube-'
    and the rule, `bearoff_cube`): the daemon builds them at start."""
    return ([f"cube-{rule}" for rule in RULES if not bearoff_cube.cache_path(rule).exists()]
            + [rule for rule in RULES if not cache_path(rule).exists()])


def _load(rule: str, path: Path) -> OneSided | None:
    try:
        with np.load(path) as data:
            return OneSided(rule, MAX_CHECKERS, data["expected"], data["dist"],
                            data["first_expected"], data["first_dist"])
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, EOFError):
        log.warning("ignoring unreadable bear-off cache %s", path)
        return None


def ready_database(rule: str) -> OneSided | None:
    """The table of `rule` if it is built (cached), else None; never builds."""
    db = _LOADED.get(rule)
    if db is None:
        db = _load(rule, cache_path(rule))
        if db is not None:
            _LOADED[rule] = db
    return db


def database(rule: str) -> OneSided:
    """The 15-checker database of `rule`, from the cache or built (and cached) now."""
    db = ready_database(rule)
    if db is None:
        db = locked_build(cache_path(rule), lambda: ready_database(rule),
                          lambda: build(rule), _save, f"bearoff_build rule={rule}")
        _LOADED[rule] = db
    return db


def _save(db: OneSided, path: Path) -> None:
    np.savez_compressed(path, expected=db.expected, dist=db.dist,
                        first_expected=db.first_expected, first_dist=db.first_dist)


def build_missing(jobs: int | None = None) -> list[str]:
    """Build every table that is not cached yet, each under its lock; the tables built.

    With more than one table missing, each is built in its own process (at most `jobs`,
    by default one per CPU): the first start of a daemon on a fresh install has its
    tables within the time of the longest."""
    missing = ([f"cube-{rule}" for rule in RULES if bearoff_cube.ready_table(rule) is None]
               + [rule for rule in RULES if ready_database(rule) is None])  # quickest first
    jobs = min(len(missing), jobs or os.cpu_count() or 1)
    if jobs <= 1:
        for name in missing:
            _build_and_save(name)
        return missing
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(jobs, mp_context=context,
                                                initializer=_exit_with_parent,
                                                initargs=(os.getpid(),)) as pool:
        list(pool.map(_build_and_save, missing))
    return missing


PARENT_CHECK_S = 0.5


def _exit_with_parent(parent: int) -> None:
    """In a pool process: die with the process that started it. A parent killed outright
    (SIGKILL) never tells its pool to stop, and the pool's processes would otherwise wait
    for work forever, holding their tables and the resource tracker's pipe. On Linux the
    kernel sends SIGKILL at the parent's death (PR_SET_PDEATHSIG); elsewhere, and as a
    fallback, a thread checks every PARENT_CHECK_S that the parent is still there."""
    import signal
    import threading

    with contextlib.suppress(Exception):
        import ctypes
        import ctypes.util

        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:  # it died before the line above took effect
        os._exit(1)

    def watch() -> None:
        while True:
            time.sleep(PARENT_CHECK_S)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, daemon=True, name="parent-watch").start()


def _build_and_save(name: str) -> None:
    if name.startswith("cube-"):
        bearoff_cube.table(name.removeprefix("cube-"))
    else:
        database(name)


def race_probabilities(db: OneSided, me_home: np.ndarray, opp_home: np.ndarray,
                       me_off: np.ndarray, opp_off: np.ndarray) -> np.ndarray:
    """(N, 5) exact outcome probabilities of races where both sides are all home.

    `me_home`/`opp_home` are (N, 6) counts on points 1-6, `me_off`/`opp_off`
    the checkers already borne off; the side `me` is on roll. The marcia per
    punto / backgammon columns are left at 0 (the caller knows whether they
    apply: in a race neither side can still be backgammoned, and Jacquet's
    marcia per punto depends on the 'has held a prime' flags).
    """
    ra = rank_batch(me_home)
    rb = rank_batch(opp_home)
    pa = db.dist[ra].astype(np.float64)  # P(A needs exactly n rolls)
    pb = db.dist[rb].astype(np.float64)
    # A (on roll) wins iff n_A <= n_B
    sb_ge = np.cumsum(pb[:, ::-1], axis=1)[:, ::-1]  # P(n_B >= n)
    win = (pa * sb_ge).sum(axis=1)
    fa = db.first_dist[ra].astype(np.float64)
    fb = db.first_dist[rb].astype(np.float64)
    fb_ge = np.cumsum(fb[:, ::-1], axis=1)[:, ::-1]  # P(f_B >= n): B off nothing in n-1 rolls
    wg = np.where(opp_off == 0, (pa * fb_ge).sum(axis=1), 0.0)
    fa_gt = np.cumsum(fa[:, ::-1], axis=1)[:, ::-1]
    fa_gt = np.concatenate([fa_gt[:, 1:], np.zeros((fa.shape[0], 1))], axis=1)  # P(f_A > m)
    lg = np.where(me_off == 0, (pb * fa_gt).sum(axis=1), 0.0)
    out = np.zeros((me_home.shape[0], 5))
    out[:, 0] = win
    out[:, 1] = np.minimum(wg, win)
    out[:, 3] = np.minimum(lg, 1.0 - win)
    return out


if __name__ == "__main__":  # `python -m jacquetd.bots.bearoff`: build the tables now
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    done = build_missing()
    print(f"bear-off tables in {cache_dir()}: built {', '.join(done) or 'none (all cached)'}")
