"""Variant metadata: the few facts that make `jacquet`, `jacquet-be`, `backgammon` and
`long-nardy` differ.

Each variant is a frozen record of flags read by the move generator, the
validator and the scorer, so that the rules themselves are written once
(RULES.md sections 0-4) and a variant only says which of them apply.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

BearOffRule = Literal["rearmost", "standard"]


@dataclass(frozen=True, slots=True)
class Variant:
    """The rule switches of one variant; see RULES.md for the ids cited."""

    name: str
    index: int
    """Stable small number used in the compact position id."""
    same_direction: bool
    """G3 (True: both sides travel the same way) or G4 (False: opposite ways)."""
    hitting: bool
    """J3/J4 (a single opposing checker is hit) or B3 (any opposing checker blocks)."""
    courier: bool
    """J6/B4: the courier phase."""
    start_limit: bool
    """J7: at most two closed points among the side's points 24-19."""
    midpoint_limit: bool
    """J8: at most two checkers on the side's 13-point."""
    closures: bool
    """B5: forbidden closures."""
    bear_off: BearOffRule
    """J9 ('rearmost') or B7 ('standard')."""
    most_borne_off: bool
    """J10: among the plays G7 allows, bear off the most checkers."""
    tracks_primes: bool
    """J12: marcia per punto needs the 'has held a prime' flags."""
    opening_plays_opening_dice: bool
    """B2/backgammon: the opening dice are the first turn's dice; J2: the winner rolls again."""
    cube_default: bool
    """C1: whether the cube is on unless a match says otherwise."""
    start_setup: tuple[tuple[int, int], ...]
    """(point, count) pairs of each side's starting position (J1, B1, section 4, N1)."""
    head_rule: bool = False
    """N5: at most one checker leaves the 24-point (the head) per turn, two with 6-6, 4-4
    or 3-3 on a side's first turn."""
    six_block: bool = False
    """N6: no block of six or more points without an opposing checker ahead of it."""
    max_result: int = 3
    """The most a game scores before the cube (J12, C4: 3; B8, N9: 2)."""
    default_match_length: int = 0
    """The match length a hosted match gets when none is asked for (N10: 7; 0: not set
    by the variant)."""
    cites: tuple[tuple[str, str], ...] = ()
    """(shared id, this variant's id) pairs: the rule this variant's errors cite where
    the engine enforces a rule written once for several variants (see `cite`)."""

    def cite(self, rule: str) -> str:
        """The id an error of this variant cites for the shared rule `rule` (B3 is N4 in
        `long-nardy`, for instance); `rule` itself when the variant names it so."""
        for shared, own in self.cites:
            if shared == rule:
                return own
        return rule

    def __str__(self) -> str:
        return self.name


JACQUET = Variant(
    name="jacquet",
    index=0,
    same_direction=True,
    hitting=True,
    courier=True,
    start_limit=True,
    midpoint_limit=True,
    closures=False,
    bear_off="rearmost",
    most_borne_off=True,
    tracks_primes=True,
    opening_plays_opening_dice=False,
    cube_default=False,
    start_setup=((24, 15),),
)

JACQUET_BE = Variant(
    name="jacquet-be",
    index=1,
    same_direction=True,
    hitting=False,
    courier=True,
    start_limit=False,
    midpoint_limit=False,
    closures=True,
    bear_off="standard",
    most_borne_off=False,
    tracks_primes=False,
    opening_plays_opening_dice=True,
    cube_default=False,
    start_setup=((24, 15),),
    max_result=2,
)

BACKGAMMON = Variant(
    name="backgammon",
    index=2,
    same_direction=False,
    hitting=True,
    courier=False,
    start_limit=False,
    midpoint_limit=False,
    closures=False,
    bear_off="standard",
    most_borne_off=False,
    tracks_primes=False,
    opening_plays_opening_dice=True,
    cube_default=True,
    start_setup=((24, 2), (13, 5), (8, 3), (6, 5)),
)

LONG_NARDY = Variant(
    name="long-nardy",
    index=3,
    same_direction=True,
    hitting=False,
    courier=False,
    start_limit=False,
    midpoint_limit=False,
    closures=False,
    bear_off="standard",
    most_borne_off=False,
    tracks_primes=False,
    opening_plays_opening_dice=False,
    cube_default=False,
    start_setup=((24, 15),),
    head_rule=True,
    six_block=True,
    max_result=2,
    default_match_length=7,
    cites=(("J1", "N11"), ("G3", "N11"), ("B3", "N4"), ("J4", "N3"), ("B7", "N8"),
           ("G7", "N7"), ("B8", "N9")),
)

VARIANTS: dict[str, Variant] = {v.name: v for v in (JACQUET, JACQUET_BE, BACKGAMMON,
                                                     LONG_NARDY)}
_BY_INDEX: dict[int, Variant] = {v.index: v for v in VARIANTS.values()}
_ALIASES: dict[str, str] = {
    "jacquet": "jacquet",
    "jacquet-fr": "jacquet",
    "jacquet-be": "jacquet-be",
    "jacquet_be": "jacquet-be",
    "belgian": "jacquet-be",
    "backgammon": "backgammon",
    "bg": "backgammon",
    "long-nardy": "long-nardy",
    "long_nardy": "long-nardy",
    "nardy": "long-nardy",
}


def find_variant(name: str) -> Variant:
    """Return the variant called `name` (or one of its aliases); raise ValueError otherwise."""
    key = _ALIASES.get(name.strip().lower()) if isinstance(name, str) else None
    if key is None:
        raise ValueError(f"unknown variant {name!r}; known: {', '.join(VARIANTS)}")
    return VARIANTS[key]


def variant_by_index(index: int) -> Variant:
    """Return the variant with the given compact-id index; raise ValueError otherwise."""
    try:
        return _BY_INDEX[index]
    except KeyError:
        raise ValueError(f"unknown variant index {index}") from None


def opponent_point_map(variant: Variant) -> tuple[int, ...]:
    """Table t with t[q] = the opponent's own number for our point q (1..24), G3/G4.

    t[0] and t[25] are 0: the borne-off tray and the bar are not shared points.
    The map is its own inverse in both geometries.
    """
    table = [0] * 26
    for q in range(1, 25):
        if variant.same_direction:
            table[q] = q + 12 if q <= 12 else q - 12
        else:
            table[q] = 25 - q
    return tuple(table)
