"""Turn choosers at 0-ply for the fast game loops (training, benchmarks)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from jacquetd.rules import RawPlay, Variant

from . import heuristic
from .evaluator import Evaluator, plays_probs
from .net import equity
from .selfplay import Chooser, Turn


def random_chooser(rng: np.random.Generator) -> Chooser:
    def choose(turn: Turn, raws: Sequence[RawPlay]) -> int:
        return int(rng.integers(len(raws)))

    return choose


def heuristic_chooser(variant: Variant) -> Chooser:
    def choose(turn: Turn, raws: Sequence[RawPlay]) -> int:
        return int(np.argmax(heuristic.scores(variant, raws)))

    return choose


def neural_chooser(ev: Evaluator) -> Chooser:
    def choose(turn: Turn, raws: Sequence[RawPlay]) -> int:
        p = plays_probs(ev, raws, turn.me_flag, turn.opp_flag)
        return int(np.argmax(equity(p)))

    return choose
