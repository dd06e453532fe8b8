"""The `match_*` commands: their table lives in the protocol (`protocol.commands`).

Re-exported here for the match service and its tests: `MATCH_COMMANDS` (the
`protocol.commands.Command` entries, in SPEC.md's order), `MATCH_COMMAND_TABLE`
(by name) and `MATCH_RESULT_TYPES` (the result field types they add).
"""

from __future__ import annotations

from jacquetd_protocol.commands import MATCH_COMMANDS, MATCH_RESULT_TYPES, Command

MATCH_COMMAND_TABLE: dict[str, Command] = {c.name: c for c in MATCH_COMMANDS}

__all__ = ["MATCH_COMMANDS", "MATCH_COMMAND_TABLE", "MATCH_RESULT_TYPES"]
