"""A hand-written evaluation of the position a play leaves, in pips.

Higher is better for the side that moved. It weighs the race (pip counts,
hits counted through the pips the hit checker loses), safety (blots within
reach of an opposing checker, weighted by what a hit would cost), blocking
(made points and runs of them on the stretch the opponent still has to
cross: in every variant that is the mover's points 1-12; in `jacquet-be` a
single checker already holds a point, B3) and the variants' own rules: the
courier phase (J6/B4, it ends only when the courier reaches home), the
two-closed-points limit of the starting table (J7), the rearmost bear-off
rule (J9) and bearing off (B7).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from jacquetd.rules import RawPlay, Variant

from . import features


def scores(variant: Variant, raws: Sequence[RawPlay]) -> np.ndarray:
    """Heuristic score of each play's resulting position, for the mover."""
    me = features.as_batch([r.me for r in raws]).astype(np.int32)
    opp = features.as_batch([r.opp for r in raws]).astype(np.int32)
    pts = np.arange(26)
    pip_me = me @ pts
    pip_opp = opp @ pts
    score = (pip_opp - pip_me).astype(np.float64)
    score += 2.0 * me[:, 0]  # borne off
    won = me[:, 0] == 15
    contact = features.contact(variant, me, opp)

    hold = 1 if not variant.hitting else 2
    made = me[:, 1:25] >= hold
    zone = made[:, 0:12]
    runs = np.zeros(len(raws))
    run = np.zeros(len(raws))
    for q in range(12):
        run = (run + 1) * zone[:, q]
        runs = np.maximum(runs, run)
    block = zone.sum(axis=1) * 1.5 + np.where(runs >= 3, (runs - 2) ** 2 * 1.5, 0.0)
    score += np.where(contact, block, 0.0)

    if variant.hitting:
        direct, indirect = features._exposure(variant, me, opp)
        # a blot hit costs about its pips; 11/36 for a direct shot, ~1/10 indirect
        score -= np.where(contact, (direct * 0.33 + indirect * 0.1) * 24.0, 0.0)
        score += 4.0 * opp[:, 25]  # tempo: the opponent must enter first
        score -= 3.0 * me[:, 25]
    stacks = np.maximum(me[:, 1:19] - 3, 0).sum(axis=1)  # talon stacks are the rules' doing
    score -= 0.7 * stacks
    if variant.courier:
        courier = (me[:, 24] >= 14) & (me[:, 0] == 0) & ~me[:, 1:7].any(axis=1)
        score -= np.where(courier, 4.0, 0.0)
    if variant.start_limit:
        closed = (me[:, 19:25] >= 2).sum(axis=1)
        score -= np.where(closed >= 2, 2.0, 0.0)
    if variant.bear_off == "rearmost":
        # J9: a checker left high in the finishing table blocks the others' bearing off
        home = ~me[:, 7:26].any(axis=1)
        score -= np.where(home, (me[:, 4:7] * np.array([1.0, 2.0, 3.0])).sum(axis=1), 0.0)
    # a checker still far from home when the opponent bears off risks a marcia
    score -= np.where((me[:, 0] == 0) & (opp[:, 0] > 0), me[:, 7:26].sum(axis=1) * 2.0, 0.0)
    score = np.where(won, 1e6, score)
    return score
