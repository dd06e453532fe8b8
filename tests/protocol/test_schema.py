"""The JSON schemas agree with the codec: what the codec accepts, the schema accepts."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jacquetd_protocol import COMMANDS, Request
from jacquetd_protocol.docgen import reply_schema, request_schema

from .strategies import error_maps, ids_any, requests, results

REQUEST = jsonschema.Draft202012Validator(request_schema())
REPLY_DEFS = reply_schema()["$defs"]
REPLY = jsonschema.Draft202012Validator(reply_schema())


def _request_map(req: Request) -> dict[str, Any]:
    return ({} if req.id is None else {"id": req.id}) | {"cmd": req.cmd} | req.args


@settings(max_examples=60, deadline=None)
@given(requests("msgpack"))
def test_every_valid_request_fits_the_schema(req: Request) -> None:
    REQUEST.validate(_request_map(req))


@pytest.mark.parametrize("name", list(COMMANDS))
@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_every_result_fits_its_schema(name: str, data: st.DataObject) -> None:
    result = data.draw(results(COMMANDS[name].result))
    jsonschema.Draft202012Validator({"$ref": f"#/$defs/result_{name}",
                                     "$defs": REPLY_DEFS}).validate(result)
    rid = data.draw(ids_any)
    REPLY.validate({"id": rid, "ok": True, "result": result})
    REPLY.validate({"id": rid, "partial": True, "result": result})


@settings(max_examples=100, deadline=None)
@given(rid=ids_any, error=error_maps())
def test_every_error_fits_the_schema(rid: Any, error: dict[str, Any]) -> None:
    REPLY.validate({"id": rid, "ok": False, "error": error})


def test_schema_refuses_what_the_codec_refuses() -> None:
    assert not REQUEST.is_valid({"cmd": "legal_moves"})
    assert not REQUEST.is_valid({"cmd": "legal_moves", "position": "start", "dice": [0, 1]})
    assert not REQUEST.is_valid({"cmd": "match_move", "match_id": "5d1c0f3a9e2b4c67"})
    assert not REQUEST.is_valid({"cmd": "match_rematch"})
    assert not REPLY.is_valid({"id": 1, "ok": False, "error": {"code": "nope", "message": ""}})
    assert not REPLY.is_valid({"id": 1, "ok": True})
