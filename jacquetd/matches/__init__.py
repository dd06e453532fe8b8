"""Hosted matches: whole matches played through the protocol and kept across restarts.

`MatchService` is the state machine and the handlers of the `match_*` commands
(docs/spec-matches.md); `MatchStore` keeps every match in SQLite as its action
log; `AsyncMatchService` runs the bot seats and the event waits on an asyncio
loop. Records of matches are written in the format of protocol/RECORDS.md.
"""

from .aio import AsyncMatchService
from .errors import MATCH_ERROR_CODES, MatchError
from .players import (
    RANDOM_LEVEL,
    BotCube,
    BotMove,
    available_levels,
    default_bot_cube,
    default_bot_move,
    random_move,
)
from .service import COMMANDS, BotJob, Caller, MatchLimits, MatchService
from .state import Act, HostedMatch, MatchConfig, Seat
from .store import MatchStore, StoreError, default_db_path

__all__ = [
    "COMMANDS",
    "MATCH_ERROR_CODES",
    "RANDOM_LEVEL",
    "Act",
    "AsyncMatchService",
    "BotCube",
    "BotJob",
    "BotMove",
    "Caller",
    "HostedMatch",
    "MatchConfig",
    "MatchError",
    "MatchLimits",
    "MatchService",
    "MatchStore",
    "Seat",
    "StoreError",
    "available_levels",
    "default_bot_cube",
    "default_bot_move",
    "default_db_path",
    "random_move",
]
