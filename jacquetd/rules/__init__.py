"""The rules core of jacquetd: positions, legal plays, notation and game flow.

It implements RULES.md exactly for the variants `jacquet`, `jacquet-be`,
`backgammon` and `long-nardy` and imports nothing else of the project (standard library only).
Errors cite the RULES.md ids they enforce.
"""

from .board_text import render_board
from .dice import DiceSource
from .errors import (
    AmbiguousMoveError,
    GameStateError,
    IllegalMoveError,
    MoveSyntaxError,
    PositionError,
    RulesError,
)
from .fibs import FibsBoard, board_from_position, format_fibs_board, parse_fibs_board
from .game import Game, GameResult, Match
from .movegen import (
    Play,
    RawPlay,
    Step,
    generate,
    generate_raw,
    is_deadlocked,
    legal_plays,
    position_after,
)
from .notation import apply_move, parse_move
from .position import Cube, CubeOwner, MatchState, Position
from .variants import VARIANTS, Variant, find_variant

MatchGame = Match

__all__ = [
    "VARIANTS",
    "AmbiguousMoveError",
    "Cube",
    "CubeOwner",
    "DiceSource",
    "FibsBoard",
    "Game",
    "GameResult",
    "GameStateError",
    "IllegalMoveError",
    "Match",
    "MatchGame",
    "MatchState",
    "MoveSyntaxError",
    "Play",
    "Position",
    "PositionError",
    "RawPlay",
    "RulesError",
    "Step",
    "Variant",
    "apply_move",
    "board_from_position",
    "find_variant",
    "format_fibs_board",
    "generate",
    "generate_raw",
    "is_deadlocked",
    "legal_plays",
    "parse_fibs_board",
    "parse_move",
    "position_after",
    "render_board",
]
