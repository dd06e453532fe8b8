"""Bots and analysis: a ladder of players and the judgement behind the engine.

Levels (weakest first): `random`, `heuristic`, `neural` (the learned
evaluator at 0 plies), `neural-1` and `neural-2` (expectimax over the 21
rolls with move filtering). `get_bot(level, variant)` builds a player;
`jacquetd.bots.analysis` has `evaluate`, `analyze`, `cube_decision` and
`rollout`.
"""

import os

# The evaluator multiplies small matrices: BLAS threads only cost time on a busy
# machine. This takes effect when the bots are imported before numpy.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from .analysis import Evaluation, RankedPlay, RolloutProgress
from .cube import CubeDecision
from .players import BOT_LEVELS, DEFAULT_LEVEL, Bot, get_bot


def warm_up(variants: tuple[str, ...] = ("jacquet", "jacquet-be", "backgammon")) -> None:
    """Load the networks and the bear-off databases now (building the databases once,
    about half a minute each, on a machine that has no cached copy yet), and compile
    the encoder (or load its cached compilation) with one evaluation per variant."""
    import numpy as np

    from .evaluator import neural_evaluator
    from .features import as_batch
    from .selfplay import start_side

    for name in variants:
        ev = neural_evaluator(name)
        ev.db  # noqa: B018
        side = as_batch([start_side(ev.variant)])
        no = np.zeros(1, dtype=bool)
        ev.probs(side, side.copy(), no, no)

__all__ = [
    "BOT_LEVELS",
    "DEFAULT_LEVEL",
    "Bot",
    "CubeDecision",
    "Evaluation",
    "RankedPlay",
    "RolloutProgress",
    "get_bot",
    "warm_up",
]
