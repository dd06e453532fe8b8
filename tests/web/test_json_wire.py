"""The JSON encoding: the same messages as msgpack, the same limits, clear refusals."""

from __future__ import annotations

import json
from typing import Any

import pytest
from jacquetd_protocol.codec import decode_reply, decode_request, detect_encoding, encode_reply
from jacquetd_protocol.errors import ErrorCode, ProtocolError
from jacquetd_protocol.json_wire import dump_json
from jacquetd_protocol.messages import Limits, Partial, Reply, Request
from jacquetd_protocol.msgpack_wire import pack

REQUESTS: list[dict[str, Any]] = [
    {"id": 1, "cmd": "hello", "client": "web", "protocol": "1.4"},
    {"id": "a-string-id", "cmd": "ping"},
    {"cmd": "ping"},
    {"id": 9, "cmd": "legal_moves", "position": "start:backgammon", "dice": [6, 5]},
    {"id": 10, "cmd": "analyze", "position": {
        "variant": "jacquet", "on_roll": [0] * 24 + [15, 0], "opponent": [0] * 24 + [15, 0],
        "dice": [3, 1], "primed": [False, False]}, "max_plays": 3, "partials": False},
    {"id": 2**63 - 1, "cmd": "match_move", "match_id": "5d1c0f3a9e2b4c67", "token": "t" * 16,
     "move": "24/21 21/20"},
    {"id": 12, "cmd": "evaluate", "position": "start", "plies": 0, "unknown_field": None},
]


@pytest.mark.parametrize("request_map", REQUESTS)
def test_a_json_request_is_the_msgpack_map(request_map: dict[str, Any]) -> None:
    frame = json.dumps(request_map).encode()
    assert detect_encoding(frame) == "json"
    from_json = decode_request(frame)
    from_msgpack = decode_request(pack(request_map))
    assert from_json.encoding == "json" and from_msgpack.encoding == "msgpack"
    assert (from_json.id, from_json.cmd, from_json.args) == \
        (from_msgpack.id, from_msgpack.cmd, from_msgpack.args)


@pytest.mark.parametrize("message", [
    Reply.success(1, {"plays": [{"move": "24/18 18/13", "equity": -0.125}], "plies": 1}),
    Reply.success("x", {}),
    Reply.failure(None, ProtocolError(ErrorCode.BAD_FRAME, "malformed")),
    Reply.failure(4, ProtocolError(ErrorCode.ILLEGAL_MOVE, "no", rule="J5", field="move")),
    Partial(7, {"plies": 1, "plays": []}),
])
def test_replies_round_trip_in_json(message: Reply | Partial) -> None:
    frame = encode_reply(message, "json")
    assert frame.startswith(b"{") and frame.endswith(b"\n") and frame.count(b"\n") == 1
    assert decode_reply(frame) == message
    assert json.loads(frame) == __import__("msgpack").unpackb(encode_reply(message, "msgpack"))


def refused(frame: bytes, limits: Limits = Limits()) -> ProtocolError:  # noqa: B008
    with pytest.raises(ProtocolError) as info:
        decode_request(frame, limits)
    return info.value


@pytest.mark.parametrize(("frame", "words"), [
    (b'{"id":1,"cmd":"ping","id":2}', "duplicate key"),
    (b'{"id":1,"cmd":"ping","x":NaN}', "NaN"),
    (b'{"id":1,"cmd":"ping","x":Infinity}', "Infinity"),
    (b'{"id":1,"cmd":"ping","x":-Infinity}', "Infinity"),
    (b'{"id":1,"cmd":"ping","x":1e400}', "out of range"),
    (b'{"id":1,"cmd":"ping","x":18446744073709551616}', "64 bits"),
    (b'{"id":1,"cmd":"ping","x":"\\ud800"}', "UTF-8"),
    (b'{"id":1,"cmd":"ping","x":"\xff"}', "UTF-8"),
    (b'{"id":1,"cmd":"ping"', "malformed JSON"),
    (b'{"id":1,"cmd":"ping"}{}', "malformed JSON"),
    (b"{}", "missing cmd"),
])
def test_malformed_json_is_refused_with_what_is_wrong(frame: bytes, words: str) -> None:
    err = refused(frame)
    assert err.code in (ErrorCode.BAD_FRAME, ErrorCode.BAD_ARGUMENT)
    assert words in str(err)


def test_json_meets_the_same_limits_as_msgpack() -> None:
    small = Limits(max_frame_bytes=4096, max_depth=4, max_list_len=8, max_map_len=6,
                   max_str_len=10, max_elements=40)
    cases = {
        '{"id":1,"cmd":"ping","x":[[[[1]]]]}': (ErrorCode.TOO_DEEP, "max_depth"),
        '{"id":1,"cmd":"ping","x":[0,0,0,0,0,0,0,0,0]}': (ErrorCode.TOO_LARGE, "max_list_len"),
        '{"id":1,"cmd":"ping","a":1,"b":2,"c":3,"d":4,"e":5}': (ErrorCode.TOO_LARGE,
                                                              "max_map_len"),
        '{"id":1,"cmd":"ping","x":"ééééééé"}': (ErrorCode.TOO_LARGE, "max_str_len"),
        '{"id":1,"cmd":"ping","x":[[0,0,0,0,0,0,0,0],[0,0,0,0,0,0,0,0],[0,0,0,0,0,0,0,0],'
        '[0,0,0,0,0,0,0,0],[0,0,0,0,0,0,0,0]]}': (ErrorCode.TOO_LARGE, "max_elements"),
        '{"id":1,"cmd":"ping","x":"' + "y" * 5000 + '"}': (ErrorCode.TOO_LARGE,
                                                            "max_frame_bytes"),
    }
    for text, (code, limit) in cases.items():
        err = refused(text.encode(), small)
        assert (err.code, err.extra.get("limit")) == (code, limit), text[:60]
    # brackets inside strings do not count as nesting
    ok = decode_request(b'{"id":1,"cmd":"hello","client":"[[{{[[{["}', small)
    assert ok == Request(1, "hello", {"client": "[[{{[[{["}, "json")


def test_depth_is_counted_before_parsing() -> None:
    deep = b'{"id":1,"cmd":"ping","x":' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    err = refused(deep, Limits(max_frame_bytes=1 << 20))
    assert err.code == ErrorCode.TOO_DEEP


def _std(obj: Any) -> bytes:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False).encode("utf-8")


@pytest.mark.parametrize("obj", [
    {"id": 1, "ok": True, "result": {"count": 2, "plays": [
        {"move": "24/21 21/20", "on_roll": [0] * 24 + [15, 0], "primed": [False, True]},
        {"move": "13/10 6/5", "equity": -0.125, "text": "é ✓ \u2028 \"q\" \\ \n\t\x01"}]}},
    {"id": "s-1", "ok": False, "error": {"code": "bad_argument", "message": "m", "id": None}},
    {"id": (1 << 64) - 1, "ok": True, "result": {"n": -(1 << 63), "big": 1 << 70}},
    {"id": 1, "ok": True, "result": {3: "not a string key"}},
], ids=["reply", "null", "big-ints", "int-key"])
def test_json_is_written_as_the_standard_encoder_writes_it(obj: dict[str, Any]) -> None:
    """Whichever encoder writes it (orjson when installed), the bytes are those of the
    standard library's compact encoder, including what orjson takes differently."""
    assert dump_json(obj) == _std(obj)


def test_floats_keep_their_value() -> None:
    values = [1e-07, 2.5e-05, 0.1, -0.0, 1e22, 5e-324, 123456789.123, -0.5371]
    assert json.loads(dump_json({"id": 1, "ok": True, "result": {"v": values}})) == {
        "id": 1, "ok": True, "result": {"v": values}}


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf"), "\ud800"])
def test_json_refuses_what_it_cannot_write(bad: Any) -> None:
    """A non-finite float (orjson would write null) or a lone surrogate is refused."""
    with pytest.raises(ValueError):
        dump_json({"id": 1, "ok": True, "result": {"x": [1, {"y": bad}]}})
