"""Game results: J12 (jacquet), B8 (jacquet-be), C4 (backgammon) and N9 (long-nardy)."""

from __future__ import annotations

from collections.abc import Sequence

from .variants import Variant

RESULT_NAMES = {
    "jacquet": {1: "single", 2: "marcia", 3: "marcia per punto"},
    "jacquet-be": {1: "single", 2: "double"},
    "backgammon": {1: "single", 2: "gammon", 3: "backgammon"},
    "long-nardy": {1: "oin", 2: "mars"},
}


def game_result(v: Variant, winner: Sequence[int], loser: Sequence[int],
                winner_primed: bool) -> int:
    """Points (before the cube) the winner scores: 1, 2 or 3.

    J12: 2 (marcia) if the loser bore off none, 3 (marcia per punto) if also
    the winner never held a prime. B8 and N9 (oin, mars): 1 or 2. C4: 3 (backgammon) if the loser
    bore off none and has a checker on the bar or in the winner's finishing
    table (the loser's points 19-24 in the opposite geometry).
    """
    if loser[0] > 0:
        return 1
    if v.tracks_primes:
        return 2 if winner_primed else 3
    if v.name == "backgammon" and (loser[25] or any(loser[19:25])):
        return 3
    return 2


def result_name(v: Variant, points: int) -> str:
    return RESULT_NAMES[v.name].get(points, str(points))
