"""Compile (or load) the compiled code before the first request: the move generator in
the front process, the networks' input encoder once before the workers start."""

from __future__ import annotations

import contextlib
import logging
import os
import subprocess
import sys
import time
from pathlib import Path

from jacquetd import bots
from jacquetd.daemon import plays
from jacquetd.rules import Position

log = logging.getLogger(__name__)


def warm_up() -> float:
    """Compile (or load) the compiled move generator now rather than on the first request;
    returns the seconds it took (0.0 without it)."""
    if plays.compiled_generator() is None:
        return 0.0
    # On a first start both compiles are due: the encoder's runs in a second process
    # meanwhile (another core), and is then loaded from the cache it wrote.
    aside = _compile_encoder_aside()
    try:
        seconds = plays.warm_up_generator()
        if seconds is None:
            return 0.0
    finally:
        if aside is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                aside.wait(ENCODER_ASIDE_TIMEOUT_S)
            if aside.poll() is None:
                aside.kill()
    return seconds + warm_up_encoder()


ENCODER_ASIDE_TIMEOUT_S = 600.0


def _encoder_cached() -> bool:
    """Whether numba's cache holds the compiled encoder (its index file): in
    ``$NUMBA_CACHE_DIR`` when set, else beside the module."""
    pattern = "fastencode._encode_rows-*.nbi"  # the cache of bots/fastencode.py
    chosen = os.environ.get("NUMBA_CACHE_DIR")  # when set, numba looks there alone
    places = [Path(chosen)] if chosen else [Path(bots.__file__).parent / "__pycache__"]
    return any(next(place.rglob(pattern), None) is not None for place in places
               if place.is_dir())


def _compile_encoder_aside() -> subprocess.Popen[bytes] | None:
    if _encoder_cached():
        return None
    try:
        return subprocess.Popen(
            [sys.executable, "-c",
             "from jacquetd.daemon.warmup import warm_up_encoder; warm_up_encoder()"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except OSError:
        return None


def warm_up_encoder() -> float:
    """Compile (or load) the networks' compiled input encoder here, once, before the
    workers start: otherwise every worker compiles it at its first neural request, all
    at the same time. Returns the seconds it took (0.0 without the bots or numba)."""
    t0 = time.perf_counter()
    try:
        import numpy as np

        from jacquetd.bots import features
        from jacquetd.rules.variants import find_variant
    except ImportError:
        return 0.0
    pos = Position.initial("jacquet")
    try:
        features.encode(find_variant("jacquet"), np.array([pos.me], dtype=np.int16),
                        np.array([pos.opp], dtype=np.int16))
        from jacquetd.bots.interface import ENGINE

        ENGINE.compile_evaluation()
    except Exception:  # the workers will meet (and report) the same failure
        log.warning("event=encoder_warm_up_failed", exc_info=True)
    return time.perf_counter() - t0
