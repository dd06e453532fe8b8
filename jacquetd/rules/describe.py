"""What a client must know of each variant, in the protocol's shape (`hello`'s
`variant_rules`, SPEC protocol 1.4): a referee or a board learns the rules it needs
from the server rather than keeping a copy of them."""

from __future__ import annotations

from typing import Any

from .scoring import RESULT_NAMES
from .variants import VARIANTS, Variant


def variant_rules(v: Variant) -> dict[str, Any]:
    """`direction` (G3 `same` or G4 `opposite`), `opening` (`play`: the opening dice
    are the first turn's; `reroll`: the winner of the opening rolls again), `results`
    (each result before the cube, as a string, and its name) and `cube` (C1's default)."""
    return {
        "direction": "same" if v.same_direction else "opposite",
        "opening": "play" if v.opening_plays_opening_dice else "reroll",
        "results": {str(points): name for points, name in RESULT_NAMES[v.name].items()},
        "cube": v.cube_default,
    }


def all_variant_rules() -> dict[str, dict[str, Any]]:
    """`variant_rules` of every variant, by name."""
    return {name: variant_rules(v) for name, v in VARIANTS.items()}
