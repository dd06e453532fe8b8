"""SPEC.md cannot drift from the code: its tables are generated from the command table,
and every example in it is decoded, re-encoded and checked against the schemas here."""

from __future__ import annotations

import json
import re
from typing import Any

import jsonschema
import msgpack
import pytest
from jacquetd_protocol import (
    COMMANDS,
    PLANNED,
    Partial,
    ProtocolError,
    Reply,
    decode_reply,
    decode_request,
    encode_reply,
    encode_request,
)
from jacquetd_protocol.docgen import main as docgen_main
from jacquetd_protocol.docgen import reply_schema, request_schema
from jacquetd_protocol.errors import ErrorCode
from jacquetd_protocol.positions import format_board, parse_board

from .spec_examples import SPEC, examples

EXAMPLES = examples()
NAMES = sorted({name for name, _ in EXAMPLES})
REQUEST = jsonschema.Draft202012Validator(request_schema())
REPLY = jsonschema.Draft202012Validator(reply_schema())
RESULTS = {name: jsonschema.Draft202012Validator({"$ref": f"#/$defs/result_{name}",
                                                  "$defs": reply_schema()["$defs"]})
           for name in COMMANDS}


def _as_message(obj: dict[str, Any]) -> Reply | Partial:
    if obj.get("partial"):
        return Partial(obj["id"], obj["result"])
    if obj["ok"]:
        return Reply(obj["id"], True, result=obj["result"])
    return Reply(obj["id"], False, error=obj["error"])


def test_generated_parts_are_current() -> None:
    assert docgen_main(["--check"]) == 0, "run: python -m jacquetd_protocol.docgen"


def test_every_command_and_error_has_an_example() -> None:
    shown_cmds = {ex.request["cmd"] for (_, enc), exs in EXAMPLES.items() if enc == "msgpack"
                  for ex in exs}
    assert set(COMMANDS) <= shown_cmds
    for name in NAMES:
        assert (name, "msgpack") in EXAMPLES and (name, "text") in EXAMPLES, name


def _decode(request: Any, final: dict[str, Any]) -> Any:
    """The decoded request; for a request the codec itself refuses, check that the
    example shows exactly the codec's error, and return None."""
    frame = msgpack.packb(request) if isinstance(request, dict) else request.encode()
    try:
        return decode_request(frame)
    except ProtocolError as exc:
        assert final == {"id": exc.id, "ok": False, "error": exc.to_dict()}
        return None


@pytest.mark.parametrize("name", NAMES)
def test_msgpack_example(name: str) -> None:
    for ex in EXAMPLES[name, "msgpack"]:
        assert ex.replies, "an exchange ends with a final reply"
        *partials, final = ex.replies
        assert all(p.get("partial") for p in partials) and not final.get("partial")
        req = _decode(ex.request, final)
        if req is None:
            assert not REQUEST.is_valid(ex.request), "the schema refuses it too"
            continue
        REQUEST.validate(ex.request)
        assert decode_request(encode_request(req)) == req
        for obj in ex.replies:
            REPLY.validate(obj)
            assert decode_reply(msgpack.packb(obj)) == _as_message(obj)
            if obj.get("partial") or obj.get("ok"):
                RESULTS[req.cmd].validate(obj["result"])
            assert obj["id"] == ex.request.get("id")


@pytest.mark.parametrize("name", NAMES)
def test_text_example_matches_msgpack_example(name: str) -> None:
    text, packed = EXAMPLES[name, "text"], EXAMPLES[name, "msgpack"]
    assert len(text) == len(packed)
    for t, m in zip(text, packed, strict=True):
        messages = [_as_message(obj) for obj in m.replies]
        assert [decode_reply(r.encode()) for r in t.replies] == messages
        assert [encode_reply(msg, "text").decode() for msg in messages] == t.replies
        treq = _decode(t.request, m.replies[-1])
        mreq = _decode(m.request, m.replies[-1])
        if treq is None or mreq is None:
            assert treq is mreq is None
            continue
        assert (treq.id, treq.cmd, treq.args) == (mreq.id, mreq.cmd, mreq.args)
        assert treq.ignored == mreq.ignored
        if not treq.ignored:  # an ignored field has no place in the canonical line
            assert encode_request(treq).decode() == t.request + "\n", "canonical request line"


def test_board_literals_in_the_spec() -> None:
    literals = re.findall(r"^(?:jacquet|jacquet-be|backgammon)/\S+$", SPEC.read_text(), re.M)
    assert len(literals) >= 2
    for literal in literals:
        assert format_board(parse_board(literal)) == literal


def test_tables_list_every_error_code_and_planned_name() -> None:
    spec = SPEC.read_text()
    for code in ErrorCode:
        assert f"| `{code}` |" in spec
    for name in PLANNED:
        assert f"`{name}`" in spec


def test_schemas_are_valid_json_schema() -> None:
    from jacquetd_protocol.docgen import SCHEMA_DIR
    for path in SCHEMA_DIR.glob("*.json"):
        jsonschema.Draft202012Validator.check_schema(json.loads(path.read_text()))
