"""docs/spec-matches.md: generated tables equal the command table; text examples decode to
the msgpack examples."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from jacquetd.matches import COMMANDS, MATCH_ERROR_CODES
from jacquetd.matches.commands import (
    MATCH_COMMAND_TABLE,
    render_errors,
    render_params,
    render_result,
)
from protocol.messages import Partial, Reply
from protocol.text_wire import decode_text_reply

DOC = (Path(__file__).parents[2] / "docs" / "spec-matches.md").read_text()
GENERATED = re.compile(r"<!-- generated: (\w+)(?: (\w+))? -->\n(.*?)\n<!-- /generated -->", re.S)
EXAMPLE = re.compile(r"<!-- example (\S+) (msgpack|text) -->\n```(?:json|text)\n(.*?)```", re.S)


def test_every_command_is_in_the_table_and_the_doc() -> None:
    assert set(MATCH_COMMAND_TABLE) == set(COMMANDS)
    for name in COMMANDS:
        assert f"### {name}" in DOC or name in ("match_take", "match_drop")


def test_generated_tables_are_current() -> None:
    found = GENERATED.findall(DOC)
    assert found
    for kind, name, body in found:
        if kind == "errors":
            assert body == render_errors()
        elif kind == "params":
            assert body == render_params(name), name
        else:
            assert body == render_result(name), name
    assert set(MATCH_ERROR_CODES) <= set(re.findall(r"^\| `(\w+)` \|", render_errors(), re.M))


def _examples() -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for label, enc, body in EXAMPLE.findall(DOC):
        out.setdefault(label, {})[enc] = body
    return out


@pytest.mark.parametrize("label", sorted(_examples()))
def test_text_examples_decode_to_the_msgpack_examples(label: str) -> None:
    pair = _examples()[label]
    answers = [json.loads(line) for line in pair["msgpack"].splitlines()[1:]]
    text_lines = pair["text"].split("\n")[1:]  # drop the request line
    messages: list[Reply | Partial] = []
    block: list[str] = []
    for line in text_lines:
        if line.startswith("~"):
            messages.append(decode_text_reply(line + "\n"))
            continue
        block.append(line)
        if line == "" and len(block) > 1:
            messages.append(decode_text_reply("\n".join(block) + "\n"))
            block = []
    assert len(messages) == len(answers)
    for msg, want in zip(messages, answers, strict=True):
        if isinstance(msg, Partial):
            assert want.get("partial") and msg.result == want["result"]
        elif msg.ok:
            assert msg.result == want["result"]
        else:
            assert msg.error == want["error"]
