"""The rules core of jacquetd: positions, legal plays, notation and game flow.

It implements RULES.md exactly for the variants `jacquet`, `jacquet-be` and
`backgammon` and imports nothing else of the project (standard library only).
Errors cite the RULES.md ids they enforce.
"""

from .errors import (
    AmbiguousMoveError,
    GameStateError,
    IllegalMoveError,
    MoveSyntaxError,
    PositionError,
    RulesError,
)
from .movegen import Play, RawPlay, Step, generate, generate_raw, legal_plays
from .position import Cube, CubeOwner, MatchState, Position
from .variants import VARIANTS, Variant, find_variant

__all__ = [
    "VARIANTS",
    "AmbiguousMoveError",
    "Cube",
    "CubeOwner",
    "GameStateError",
    "IllegalMoveError",
    "MatchState",
    "MoveSyntaxError",
    "Play",
    "Position",
    "PositionError",
    "RawPlay",
    "RulesError",
    "Step",
    "Variant",
    "find_variant",
    "generate",
    "generate_raw",
    "legal_plays",
]
