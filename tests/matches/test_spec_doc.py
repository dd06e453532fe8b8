"""SPEC.md section 12 (hosted matches) covers every match command and error code of the
match service, with the tables generated from the protocol's command table."""

from __future__ import annotations

import re
from pathlib import Path

from jacquetd_protocol.commands import COMMANDS as PROTOCOL_COMMANDS
from jacquetd_protocol.commands import PLANNED
from jacquetd_protocol.errors import ErrorCode

from jacquetd.matches import COMMANDS, MATCH_ERROR_CODES

SPEC = (Path(__file__).parents[2] / "protocol" / "SPEC.md").read_text()
SECTION = SPEC[SPEC.index("## 12. Hosted matches"):SPEC.index("## 13. Conformance")]


def test_every_match_command_is_a_protocol_command_and_in_section_12() -> None:
    for name in COMMANDS:
        assert PROTOCOL_COMMANDS[name].name == name
        assert name not in PLANNED
        assert re.search(rf"^#### {name}\b|`{name}`", SECTION, re.M), name
        assert f"<!-- generated: params {name} -->" in SECTION or name in (
            "match_take", "match_drop")


def test_every_match_error_code_is_a_protocol_code() -> None:
    for code in MATCH_ERROR_CODES:
        assert ErrorCode(code)
        assert f"| `{code}` |" in SECTION
