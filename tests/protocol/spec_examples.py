"""Reads the examples out of protocol/SPEC.md, for the golden tests."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SPEC = Path(__file__).parents[2] / "protocol" / "SPEC.md"
_EXAMPLE_RE = re.compile(r"<!-- example (\S+) (msgpack|text) -->\n```(?:json|text)\n(.*?)```",
                         re.S)


@dataclass
class Exchange:
    """One request and the messages that answer it (partials, then the final reply)."""

    request: Any          # a JSON object (msgpack) or a line (text)
    replies: list[Any]    # JSON objects (msgpack) or raw reply texts (text)


def examples(text: str | None = None) -> dict[tuple[str, str], list[Exchange]]:
    """(name, encoding) -> the exchanges of that example block."""
    text = SPEC.read_text() if text is None else text
    out: dict[tuple[str, str], list[Exchange]] = {}
    for name, encoding, body in _EXAMPLE_RE.findall(text):
        key = (name, encoding)
        assert key not in out, f"example {name} {encoding} given twice"
        out[key] = _msgpack_exchanges(body) if encoding == "msgpack" else _text_exchanges(body)
    return out


def _msgpack_exchanges(body: str) -> list[Exchange]:
    exchanges: list[Exchange] = []
    for line in body.splitlines():
        obj = json.loads(line)
        if "cmd" in obj:
            exchanges.append(Exchange(obj, []))
        else:
            exchanges[-1].replies.append(obj)
    return exchanges


def _text_exchanges(body: str) -> list[Exchange]:
    exchanges: list[Exchange] = []
    lines = body.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line:
            i += 1
            continue
        if line[0] not in "=?~":
            exchanges.append(Exchange(line, []))
            i += 1
        elif line[0] == "~":
            exchanges[-1].replies.append(line + "\n")
            i += 1
        else:
            end = lines.index("", i)
            exchanges[-1].replies.append("\n".join(lines[i:end]) + "\n\n")
            i = end + 1
    return exchanges
