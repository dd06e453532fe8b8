"""Round trips: encode then decode gives back the original, in both encodings, for every
command's request and result shapes, partials and errors."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jacquetd_protocol import (
    COMMANDS,
    Partial,
    ProtocolError,
    Reply,
    ReplyStreamDecoder,
    Request,
    decode_reply,
    decode_request,
    encode_reply,
    encode_request,
)

from .strategies import (
    error_maps,
    generic_results,
    ids_any,
    ids_text,
    json_scalars,
    keys,
    near_keys,
    requests,
    results,
)

ENCODINGS = ("msgpack", "text")
COMMAND_LIST = list(COMMANDS.values())


@pytest.mark.parametrize("cmd", COMMAND_LIST, ids=lambda c: c.name)
@pytest.mark.parametrize("encoding", ENCODINGS)
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_request_round_trip(cmd: Any, encoding: str, data: st.DataObject) -> None:
    req: Request = data.draw(requests(encoding, cmd))
    assert decode_request(encode_request(req)) == req


@pytest.mark.parametrize("cmd", COMMAND_LIST, ids=lambda c: c.name)
@pytest.mark.parametrize("encoding", ENCODINGS)
@settings(max_examples=12, deadline=None)
@given(data=st.data())
def test_result_round_trip(cmd: Any, encoding: str, data: st.DataObject) -> None:
    rid = data.draw(ids_text if encoding == "text" else ids_any)
    result = data.draw(results(cmd.result))
    for msg in (Reply.success(rid, result), Partial(rid, result)):
        assert decode_reply(encode_reply(msg, encoding)) == msg  # type: ignore[arg-type]


@pytest.mark.parametrize("encoding", ENCODINGS)
@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_error_round_trip(encoding: str, data: st.DataObject) -> None:
    rid = data.draw(ids_text if encoding == "text" else ids_any)
    reply = Reply(rid, False, error=data.draw(error_maps()))
    assert decode_reply(encode_reply(reply, encoding)) == reply  # type: ignore[arg-type]
    err = ProtocolError.from_dict(reply.error or {}, rid)
    assert err.to_dict() == reply.error


@settings(max_examples=40, deadline=None)
@given(rid=ids_text, result=generic_results)
def test_any_result_map_survives_text(rid: int | None, result: dict[str, Any]) -> None:
    """The text form is lossless for any map with identifier keys, not only documented
    results: nested maps, lists, positions, odd strings, big integers, floats."""
    for msg in (Reply.success(rid, result), Partial(rid, result)):
        assert decode_reply(encode_reply(msg, "text")) == msg


@pytest.mark.parametrize("text", [
    "", " ", "null", "true", "1", "-0", "1e5", "1.0", "a b", "a=b", '"q"', "[x", "{",
    "jacquet/24:15/24:15/-/00", "x\ny", "\t", "é", "\u2028", "=", "?", "~",
])
def test_awkward_strings_survive_text(text: str) -> None:
    for result in ({"s": text}, {"plays": [{"move": text, "n": 1}]}):
        reply = Reply.success(3, result)
        assert decode_reply(encode_reply(reply, "text")) == reply
    reply = Reply(3, False, error={"code": "bad_argument", "message": text})
    assert decode_reply(encode_reply(reply, "text")) == reply


@pytest.mark.parametrize("key", ["ab\n", "a\n", "0\n", "ab\r"])
def test_keys_ending_in_a_line_end_survive_text(key: str) -> None:
    """`$` in a Python pattern also matches before a final newline: a map key like
    "ab\\n" once passed as an identifier, was spread into a dotted key and broke the
    reply across two lines. Such keys are written inside JSON instead."""
    for result in ({"m": {key: 1}}, {"m": {"x": {key: 1}}}, {"plays": [{key: 1}]},
                   {"plays": [{"move": "8/5", key: 1}]}):
        for msg in (Reply.success(5, result), Partial(5, result)):
            data = encode_reply(msg, "text")
            frames = ReplyStreamDecoder().feed(data)
            assert [decode_reply(f) for f in frames if isinstance(f, bytes)] == [msg]
    with pytest.raises(ValueError, match="not an identifier"):
        encode_reply(Reply.success(5, {key: 1}), "text")


@settings(max_examples=40, deadline=None)
@given(rid=ids_text, result=st.dictionaries(keys, st.dictionaries(
    keys | near_keys, json_scalars, min_size=1, max_size=3) | st.lists(st.dictionaries(
        keys | near_keys, json_scalars, min_size=1, max_size=3), min_size=1, max_size=2),
    min_size=1, max_size=3))
def test_maps_with_keys_that_are_almost_names_survive_text(rid: int | None,
                                                          result: dict[str, Any]) -> None:
    """Maps and list items whose keys are names but for a last line end, space or dot
    are written as JSON, never spread: each reply stays one frame."""
    for msg in (Reply.success(rid, result), Partial(rid, result)):
        frames = ReplyStreamDecoder().feed(encode_reply(msg, "text"))
        assert [decode_reply(f) for f in frames if isinstance(f, bytes)] == [msg]


def test_text_request_puts_unsafe_words_by_name() -> None:
    req = Request(1, "legal_moves", {"position": "ab=cd", "dice": [6, 5]}, "text")
    line = encode_request(req)
    assert line == b'1 legal_moves position="ab=cd" dice=65\n'
    assert decode_request(line) == req


def test_text_request_refuses_what_text_cannot_carry() -> None:
    with pytest.raises(ValueError):
        encode_request(Request("abc", "ping", {}, "text"))


def test_text_request_quotes_what_is_not_one_word() -> None:
    req = Request(1, "hello", {"client": "two words"}, "text")
    assert encode_request(req) == b'1 hello client="two words"\n'
    assert decode_request(encode_request(req)) == req


def test_empty_move_is_written_pass_in_text() -> None:
    line = encode_request(Request(1, "apply_move", {"position": "start", "move": ""}, "text"))
    assert line == b"1 apply_move start pass\n"
