"""decode_request: every refusal has its documented code, field and id."""

from __future__ import annotations

from typing import Any

import msgpack
import pytest
from jacquetd_protocol import ErrorCode, Limits, ProtocolError, decode_request, detect_encoding
from jacquetd_protocol.commands import arguments

START_SIDE = [0] * 24 + [15, 0]
POSITION = {"variant": "jacquet", "on_roll": START_SIDE, "opponent": START_SIDE}


def refused(frame: bytes, limits: Limits = Limits()) -> ProtocolError:  # noqa: B008
    with pytest.raises(ProtocolError) as info:
        decode_request(frame, limits)
    return info.value


def pack(obj: Any) -> bytes:
    return msgpack.packb(obj, use_bin_type=True)


def test_detection_rule() -> None:
    for first in [*range(0x80, 0x90), 0xDE, 0xDF]:
        assert detect_encoding(bytes([first])) == "msgpack"
    for first in [0x00, 0x31, 0x7F, 0x90, 0x9F, 0xC0, 0xDC, 0xDD, 0xE0, 0xFF]:
        assert detect_encoding(bytes([first])) == "text"
    assert detect_encoding(b"") == "text"


def test_msgpack_request_keeps_given_args_only() -> None:
    req = decode_request(pack({"id": 7, "cmd": "analyze", "position": "start", "dice": [2, 1],
                               "future_option": {"x": 1}, "plies": None}))
    assert (req.id, req.cmd, req.encoding) == (7, "analyze", "msgpack")
    assert req.args == {"position": "start", "dice": [2, 1]}
    assert arguments(req)["max_plays"] == 10 and arguments(req)["partials"] is True


def test_structured_position_keeps_the_fields_it_gives() -> None:
    """Unknown keys and a nil cube are dropped; no default is filled in (the rules core
    alone supplies them: `Position.from_dict`)."""
    req = decode_request(pack({"cmd": "position", "position": {**POSITION, "cube": None,
                                                               "later_field": 1}}))
    assert req.args["position"] == POSITION


def test_board_literal_becomes_a_map_in_both_encodings() -> None:
    literal = "jacquet/24:15/24:15/65/00"
    want = {**POSITION, "dice": [6, 5], "primed": [False, False]}
    assert decode_request(f"1 position {literal}".encode()).args["position"] == want
    assert decode_request(pack({"cmd": "position", "position": literal})).args["position"] == want


@pytest.mark.parametrize(("frame", "code"), [
    (b"", ErrorCode.BAD_FRAME),
    (b"   ", ErrorCode.BAD_FRAME),
    (b"\xff\xfe ping", ErrorCode.BAD_FRAME),
    (b"1 ping\n2 ping", ErrorCode.BAD_FRAME),
    (b"1 ping\x00", ErrorCode.BAD_FRAME),
    (b"\x81\xa3cmd", ErrorCode.BAD_FRAME),                        # truncated
    (pack({"cmd": "ping"}) + b"\x00", ErrorCode.BAD_FRAME),       # trailing byte
    (b"\x81\x01\xa4ping", ErrorCode.BAD_FRAME),                   # integer key
    (b"\x82\xa3cmd\xa4ping\xa3cmd\xa4ping", ErrorCode.BAD_FRAME),  # duplicate key
    (b"\x82\xa3cmd\xa4ping\xa1t\xd6\xff\x00\x00\x00\x01", ErrorCode.BAD_FRAME),  # timestamp
    (b"\x82\xa3cmd\xa4ping\xa1b\xc4\x01x", ErrorCode.BAD_FRAME),  # bin
    (b"\x82\xa3cmd\xa4ping\xa1b\xc1", ErrorCode.BAD_FRAME),       # never-used byte
    (b"\x81\xa3cmd\xa2\xff\xfe", ErrorCode.BAD_FRAME),            # bad UTF-8 string
    (b"\xdf\xff\xff\xff\xff", ErrorCode.TOO_LARGE),               # map of 2^32 - 1 entries
    (b"\x81\xa3cmd\xdd\xff\xff\xff\xff", ErrorCode.TOO_LARGE),    # list of 2^32 - 1
    (b"\x81\xa3cmd\xdb\xff\xff\xff\xff", ErrorCode.TOO_LARGE),    # string of 2^32 - 1 bytes
    (b"\x81\xa3cmd" + b"\x91" * 16 + b"\xc0", ErrorCode.TOO_DEEP),
    (b"\x81\xa3cmd" + b"\x91" * 100_000 + b"\xc0", ErrorCode.TOO_DEEP),
    (b"x" * (Limits().max_frame_bytes + 1), ErrorCode.TOO_LARGE),
])
def test_unreadable_frames(frame: bytes, code: ErrorCode) -> None:
    err = refused(frame)
    assert err.code is code and err.id is None


def test_depth_limit_is_exact() -> None:
    head = b"\x82\xa3cmd\xa4ping\xa1x"
    assert decode_request(head + b"\x91" * 15 + b"\xc0").cmd == "ping"  # map + 15 lists = 16
    assert refused(head + b"\x91" * 16 + b"\xc0").code is ErrorCode.TOO_DEEP


def test_element_budget() -> None:
    limits = Limits(max_elements=100)
    frame = pack({"cmd": "ping", "x": list(range(99))})
    err = refused(frame, limits)
    assert err.code is ErrorCode.TOO_LARGE and err.extra["limit"] == "max_elements"


@pytest.mark.parametrize("bad_id", [-1, 1 << 63, "", "x" * 65, True, 1.5, [1], {"a": 1}])
def test_bad_ids(bad_id: Any) -> None:
    err = refused(pack({"id": bad_id, "cmd": "ping"}))
    assert (err.code, err.field, err.id) == (ErrorCode.BAD_ARGUMENT, "id", None)


def test_missing_or_unknown_command_keeps_the_id(monkeypatch: pytest.MonkeyPatch) -> None:
    err = refused(pack({"id": 4}))
    assert (err.code, err.field, err.id) == (ErrorCode.BAD_ARGUMENT, "cmd", 4)
    err = refused(pack({"id": 5, "cmd": 3}))
    assert (err.code, err.field, err.id) == (ErrorCode.BAD_ARGUMENT, "cmd", 5)
    err = refused(pack({"id": "q", "cmd": "frobnicate"}))
    assert (err.code, err.id, err.extra) == (ErrorCode.UNKNOWN_COMMAND, "q", {})
    # none reserved now
    monkeypatch.setattr("jacquetd_protocol.commands.PLANNED", ("match_rematch",))
    err = refused(b"6 match_rematch")
    assert (err.code, err.id, err.extra) == (ErrorCode.UNKNOWN_COMMAND, 6, {"planned": True})


@pytest.mark.parametrize(("args", "field", "code"), [
    ({"cmd": "legal_moves"}, "position", ErrorCode.BAD_ARGUMENT),
    ({"cmd": "legal_moves", "position": 5}, "position", ErrorCode.BAD_POSITION),
    ({"cmd": "legal_moves", "position": ""}, "position", ErrorCode.BAD_POSITION),
    ({"cmd": "legal_moves", "position": "a b"}, "position", ErrorCode.BAD_POSITION),
    ({"cmd": "legal_moves", "position": "jacquet/24:15"}, "position", ErrorCode.BAD_POSITION),
    ({"cmd": "legal_moves", "position": {**POSITION, "on_roll": [0] * 25}},
     "position.on_roll", ErrorCode.BAD_POSITION),
    ({"cmd": "legal_moves", "position": {**POSITION, "opponent": [16] + [0] * 25}},
     "position.opponent", ErrorCode.BAD_POSITION),
    ({"cmd": "legal_moves", "position": {**POSITION, "variant": 3}},
     "position.variant", ErrorCode.BAD_POSITION),
    ({"cmd": "legal_moves", "position": {**POSITION, "dice": [7, 1]}},
     "position.dice", ErrorCode.BAD_POSITION),
    ({"cmd": "legal_moves", "position": {**POSITION, "primed": [1, 0]}},
     "position.primed", ErrorCode.BAD_POSITION),
    ({"cmd": "legal_moves", "position": {**POSITION, "cube": {"value": 2, "owner": "me"}}},
     "position.cube.owner", ErrorCode.BAD_POSITION),
    ({"cmd": "legal_moves", "position": {**POSITION, "match": {"length": 0, "score": [0, 0]}}},
     "position.match.length", ErrorCode.BAD_POSITION),
    ({"cmd": "legal_moves", "position": "start", "dice": [6]}, "dice", ErrorCode.BAD_ARGUMENT),
    ({"cmd": "legal_moves", "position": "start", "dice": [0, 1]}, "dice", ErrorCode.BAD_ARGUMENT),
    ({"cmd": "legal_moves", "position": "start", "dice": "65"}, "dice", ErrorCode.BAD_ARGUMENT),
    ({"cmd": "apply_move", "position": "start"}, "move", ErrorCode.BAD_ARGUMENT),
    ({"cmd": "apply_move", "position": "start", "move": 24}, "move", ErrorCode.BAD_ARGUMENT),
    ({"cmd": "best_move", "position": "start", "plies": 9}, "plies", ErrorCode.BAD_ARGUMENT),
    ({"cmd": "best_move", "position": "start", "plies": True}, "plies", ErrorCode.BAD_ARGUMENT),
    ({"cmd": "best_move", "position": "start", "level": "Bad Level"}, "level",
     ErrorCode.BAD_ARGUMENT),
    ({"cmd": "analyze", "position": "start", "partials": 1}, "partials", ErrorCode.BAD_ARGUMENT),
    ({"cmd": "analyze", "position": "start", "max_plays": 0}, "max_plays",
     ErrorCode.BAD_ARGUMENT),
    ({"cmd": "cancel"}, "target", ErrorCode.BAD_ARGUMENT),
    ({"cmd": "cancel", "target": -3}, "target", ErrorCode.BAD_ARGUMENT),
    ({"cmd": "hello", "versions": "1.0"}, "versions", ErrorCode.BAD_ARGUMENT),
    ({"cmd": "hello", "versions": ["one"]}, "versions", ErrorCode.BAD_ARGUMENT),
    ({"cmd": "ping", "timeout_ms": 0}, "timeout_ms", ErrorCode.BAD_ARGUMENT),
    ({"cmd": "ping", "timeout_ms": 1.5}, "timeout_ms", ErrorCode.BAD_ARGUMENT),
])
def test_bad_arguments(args: dict[str, Any], field: str, code: ErrorCode) -> None:
    err = refused(pack({"id": 9, **args}))
    assert (err.code, err.field, err.id) == (code, field, 9)


@pytest.mark.parametrize(("line", "field"), [
    (b"3", "cmd"),
    (b"3 legal_moves", "position"),
    (b"3 legal_moves start 65 extra", "args"),
    (b"3 legal_moves start 65 dice=21", "dice"),
    (b"3 legal_moves start dice=65 dice=21", "dice"),
    (b"3 legal_moves start 6", "dice"),
    (b"3 legal_moves start 6-7", "dice"),
    (b"3 analyze start 21 partials=maybe", "partials"),
    (b"3 analyze start 21 plies=two", "plies"),
    (b"3 cancel " + b"x" * 65, "target"),   # longer than a string id
    (b"3 cancel 99999999999999999999", "target"),  # past 2^63
    (b"3 ping timeout_ms=0", "timeout_ms"),
])
def test_bad_text_arguments(line: bytes, field: str) -> None:
    err = refused(line)
    assert (err.code, err.field, err.id) == (ErrorCode.BAD_ARGUMENT, field, 3)


def test_text_request_forms() -> None:
    req = decode_request(b"12 apply_move start dice=65 24/18   18/13\r\n")
    assert (req.id, req.encoding) == (12, "text")
    assert req.args == {"position": "start", "dice": [6, 5], "move": "24/18 18/13"}
    assert decode_request(b"legal_moves start 6-5").args["dice"] == [6, 5]
    assert decode_request(b"ping unknown_option=3").args == {}
    assert decode_request(b"hello 1.0,2.0").args == {"versions": ["1.0", "2.0"]}
    assert decode_request(b"analyze start 21 partials=off").args["partials"] is False
    assert refused(b"99999999999999999999 ping").field == "id"


@pytest.mark.parametrize("encoding", ["msgpack", "json", "text"])
def test_a_frame_over_max_frame_bytes_is_refused_by_its_length_alone(encoding: str) -> None:
    """One length check, the codec's, for requests and replies in every encoding: the
    refusal names the frame's size and the limit, and a request's keeps its id."""
    from jacquetd_protocol import decode_reply

    limits = Limits(max_frame_bytes=64)
    pad = "x" * 80
    request = {"msgpack": pack({"id": 3, "cmd": "ping", "pad": pad}),
               "json": b'{"id": 3, "cmd": "ping", "pad": "' + pad.encode() + b'"}',
               "text": b"3 ping " + pad.encode()}[encoding]
    err = refused(request, limits)
    assert (err.code, err.id, err.extra) == (ErrorCode.TOO_LARGE, 3,
                                             {"limit": "max_frame_bytes"})
    assert err.message == f"the message has {len(request)} bytes, more than max_frame_bytes (64)"
    reply = {"msgpack": pack({"id": 3, "ok": True, "result": {"pad": pad}}),
             "json": b'{"id": 3, "ok": true, "result": {"pad": "' + pad.encode() + b'"}}',
             "text": b"=3 pad=" + pad.encode() + b"\n\n"}[encoding]
    with pytest.raises(ProtocolError) as info:
        decode_reply(reply, limits)
    assert (info.value.code, info.value.extra) == (ErrorCode.TOO_LARGE,
                                                   {"limit": "max_frame_bytes"})
    assert info.value.message == (f"the reply has {len(reply)} bytes, more than "
                                  "max_frame_bytes (64)")
