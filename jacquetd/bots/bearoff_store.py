"""What both bear-off tables share: the one-sided positions and their ranks, the rolls,
the table cache and its locked builds, and whether tables are built on demand.

`bearoff` (one-sided databases, and the building of every table) and `bearoff_cube`
(two-sided cubeful tables) both build on this module; neither imports the other's
internals from here.
"""

from __future__ import annotations

import fcntl
import logging
import os
from collections.abc import Callable, Iterable
from functools import cache
from math import comb
from pathlib import Path
from typing import TypeVar

import numpy as np

from . import bearoff_kernel

log = logging.getLogger(__name__)

T = TypeVar("T")

POINTS = 6
MAX_CHECKERS = 15
RULES = ("standard", "rearmost")

ROLLS: tuple[tuple[int, int, float], ...] = tuple(
    (a, b, (1.0 if a == b else 2.0) / 36.0) for a in range(1, 7) for b in range(a, 7))
"""The 21 distinct rolls (d1 <= d2) with their probabilities."""


def n_positions(checkers: int = MAX_CHECKERS) -> int:
    """How many one-sided positions hold at most `checkers` checkers on six points."""
    return comb(checkers + POINTS, POINTS)


def rank(counts: Iterable[int]) -> int:
    """Combinatorial rank of (c1..c6): separators of a stars-and-bars string."""
    r = 0
    s = -1
    for k, c in enumerate(counts, start=1):
        s += c + 1
        r += comb(s, k)
    return r


@cache
def _binomials() -> np.ndarray:
    table = np.zeros((MAX_CHECKERS + POINTS + 1, POINTS + 1), dtype=np.int64)
    for n in range(table.shape[0]):
        for k in range(POINTS + 1):
            table[n, k] = comb(n, k)
    return table


def rank_batch(home: np.ndarray) -> np.ndarray:
    """Ranks of a (N, 6) array of counts on points 1-6 (vectorised `rank`)."""
    binom = _binomials()
    s = np.cumsum(home.astype(np.int64) + 1, axis=1) - 1
    ranks: np.ndarray = binom[s, np.arange(1, POINTS + 1)].sum(axis=1)
    return ranks


def all_positions(checkers: int) -> list[tuple[int, ...]]:
    """Every placement of at most `checkers` checkers on the six points (counts 1-6)."""
    out: list[tuple[int, ...]] = []

    def rec(prefix: tuple[int, ...], left: int) -> None:
        if len(prefix) == POINTS:
            out.append(prefix)
            return
        for c in range(left + 1):
            rec((*prefix, c), left - c)

    rec((), checkers)
    return out


def by_rank(checkers: int) -> bearoff_kernel.Positions:
    """Every position of up to `checkers` checkers, by rank, for the compiled kernels."""
    size = n_positions(checkers)
    counts = np.zeros((size, POINTS), dtype=np.int64)
    for pos in all_positions(checkers):
        counts[rank(pos)] = pos
    return bearoff_kernel.Positions(counts, counts.sum(axis=1), _binomials())


def cache_dir() -> Path:
    env = os.environ.get("JACQUETD_CACHE")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "jacquetd"


_builds_on_demand = True  # a process's policy: set once at its start (`never_build`)


def builds_on_demand() -> bool:
    """Whether a missing table, one-sided (`Evaluator`s) or two-sided (`bearoff_cube`), is
    built on first use in this process (tools, training: yes, unless `never_build`)."""
    return _builds_on_demand


def never_build() -> None:
    """This process never builds a missing table; it uses a table once it is on disk. The
    daemon's workers call it at start: a request never builds (its deadline would cut
    the build short); the daemon builds the tables in a background process at start
    (`bearoff.build_missing`)."""
    global _builds_on_demand
    _builds_on_demand = False


def locked_build(path: Path, ready: Callable[[], T | None], make: Callable[[], T],
                 save: Callable[[T, Path], None], event: str) -> T:
    """`ready()` if a table is there, else `make()` it and `save` it to `path`.

    The build runs under an exclusive file lock (`PATH.lock`): a second process that needs
    the table waits for the first one's and loads it instead of building it again. The file
    is written to a temporary name, synced and renamed, so a build cut short leaves no
    half-written table. A cache that cannot be written only costs the next process a
    build of its own."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        lock_fd: int | None = os.open(f"{path}.lock", os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        log.warning("cannot lock the table cache (%s); building without a lock", exc)
        lock_fd = None
    try:
        if lock_fd is not None:
            fcntl.flock(lock_fd, fcntl.LOCK_EX)  # another process may be building it
        table = ready()
        if table is not None:
            return table
        log.info("event=%s", event)
        table = make()
        try:
            tmp = path.with_name(path.name + f".{os.getpid()}.tmp.npz")
            save(table, tmp)
            with open(tmp, "rb") as fh:
                os.fsync(fh.fileno())
            tmp.replace(path)
        except OSError as exc:
            log.warning("could not cache the table %s: %s", path.name, exc)
        return table
    finally:
        if lock_fd is not None:
            os.close(lock_fd)
