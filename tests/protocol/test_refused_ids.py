"""A message refused whole for a limit (`too_large`, `too_deep`) keeps its id when the id
can be read, in every encoding, framed or cut from a byte stream (SPEC §8); the id is
found without decoding the message."""

from __future__ import annotations

import json
from typing import Any

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jacquetd_protocol import ErrorCode, Limits, ProtocolError, StreamDecoder, decode_request
from jacquetd_protocol.codec import refused_id
from jacquetd_protocol.json_wire import find_json_id
from jacquetd_protocol.msgpack_wire import find_id

LIMITS = Limits()
BIG = "x" * (LIMITS.max_str_len + 10)      # a string over max_str_len, in a small frame
HUGE = "x" * (LIMITS.max_frame_bytes + 10)  # a frame over max_frame_bytes


def _refusal(frame: bytes) -> ProtocolError:
    with pytest.raises(ProtocolError) as info:
        decode_request(frame, LIMITS)
    return info.value


def _streamed(data: bytes) -> list[Any]:
    decoder = StreamDecoder(LIMITS)
    items: list[Any] = []
    for i in range(0, len(data), 4096):
        items += decoder.feed(data[i:i + 4096])
    return items + decoder.finish()


ISSUE = {"id": 7, "cmd": "analyze_record", "record": BIG}


@pytest.mark.parametrize("record", [BIG, HUGE], ids=["max_str_len", "max_frame_bytes"])
def test_the_issue_request_keeps_its_id(record: str) -> None:
    request = ISSUE | {"record": record}
    for frame in (msgpack.packb(request), json.dumps(request).encode()):
        err = _refusal(frame)
        assert (err.code, err.id) == (ErrorCode.TOO_LARGE, 7)
    text = f"7 analyze_record record={record}".encode()
    err = _refusal(text)  # a text word is not held to max_str_len, only to the line's size
    assert err.id == 7 and (err.code == ErrorCode.TOO_LARGE or record is BIG)


@pytest.mark.parametrize("record", [BIG, HUGE], ids=["max_str_len", "max_frame_bytes"])
def test_byte_streams_keep_the_id(record: str) -> None:
    request = ISSUE | {"record": record}
    packed = _streamed(msgpack.packb(request))
    assert isinstance(packed[0], ProtocolError) and packed[0].id == 7
    line = _streamed(json.dumps(request).encode() + b"\n")
    err = line[0] if isinstance(line[0], ProtocolError) else _refusal(line[0])
    assert (err.code, err.id) == (ErrorCode.TOO_LARGE, 7)
    text = _streamed(b"  7 analyze_record record=" + record.encode() + b"\n8 ping\n")
    err = text[0] if isinstance(text[0], ProtocolError) else _refusal(text[0])
    assert err.id == 7 and (err.code == ErrorCode.TOO_LARGE or record is BIG)
    assert decode_request(text[-1]).id == 8


def test_too_deep_keeps_the_id() -> None:
    deep: Any = []
    for _ in range(LIMITS.max_depth + 2):
        deep = [deep]
    for frame in (msgpack.packb({"cmd": "ping", "x": deep, "id": "late"}),
                  json.dumps({"cmd": "ping", "x": deep, "id": "late"}).encode()):
        err = _refusal(frame)
        assert (err.code, err.id) == (ErrorCode.TOO_DEEP, "late")


def test_a_header_claiming_gigabytes_is_walked_not_read() -> None:
    # {"x": <str32 of 4 GiB - 1>, ...}: the string is skipped by its header
    head = b"\x83\xa1x\xdb\xff\xff\xff\xff"
    assert find_id(head) is None  # the bytes end inside the string: no id yet
    frame = b"\x82\xa2id\x05\xa1x\xdb\xff\xff\xff\xff"
    assert find_id(frame) == 5
    err = _refusal(frame)
    assert (err.code, err.extra["limit"], err.id) == (ErrorCode.TOO_LARGE, "max_str_len", 5)


def test_ids_that_cannot_be_read_stay_null() -> None:
    cases = [
        msgpack.packb({"cmd": "ping", "x": BIG}),                # no id
        msgpack.packb({"id": 1.5, "cmd": "ping", "x": BIG}),     # not an id
        msgpack.packb({"id": "i" * 65, "cmd": "ping", "x": BIG}),  # too long for an id
        msgpack.packb({"id": -1, "cmd": "ping", "x": BIG}),
        msgpack.packb({"id": True, "cmd": "ping", "x": BIG}),
        json.dumps({"id": [7], "cmd": "ping", "x": BIG}).encode(),
        json.dumps({"cmd": "ping", "x": BIG}).encode(),
        b"xx" * LIMITS.max_frame_bytes,                           # text, first word no id
        b"7" * (LIMITS.max_frame_bytes + 1),                      # one word of digits
    ]
    for frame in cases:
        assert _refusal(frame).id is None, frame[:40]


def test_the_walk_is_bounded() -> None:
    # the id after more values than the walk visits: not read (null), and quickly
    many = msgpack.packb({"cmd": "ping", "x": [[0]] * 40_000, "id": 3})
    assert find_id(many) is None
    few = msgpack.packb({"cmd": "ping", "x": [[0]] * 1_000, "id": 3})
    assert find_id(few) == 3
    many_json = json.dumps({"cmd": "ping", "x": ["\\\""] * 70_000, "id": 3}).encode()
    assert find_json_id(many_json) is None


ids = st.one_of(st.integers(0, (1 << 63) - 1), st.text(min_size=1, max_size=64))
values = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(-(1 << 63), 1 << 63),
                                st.floats(allow_nan=False, allow_infinity=False),
                                st.text(max_size=20)),
                      lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(st.text(max_size=5), inner, max_size=4),
                      max_leaves=20)


@settings(max_examples=200, deadline=None)
@given(rid=ids, before=st.dictionaries(st.text(max_size=8).filter(lambda k: k != "id"),
                                       values, max_size=5),
       after=st.dictionaries(st.text(max_size=8).filter(lambda k: k != "id"), values,
                             max_size=5))
def test_the_id_is_found_wherever_it_stands(rid: int | str, before: dict[str, Any],
                                            after: dict[str, Any]) -> None:
    message = {**before, "id": rid, **{k: v for k, v in after.items() if k not in before}}
    assert refused_id(msgpack.packb(message), "msgpack") == rid
    assert refused_id(json.dumps(message).encode(), "json") == rid


def test_an_id_of_64_characters_past_the_basic_plane_is_found_in_escaped_json() -> None:
    # each such character is written as a surrogate pair, `\ud835\udd9f`: 12 bytes
    rid = "\U0001d59f" * 64
    assert refused_id(json.dumps({"cmd": "ping", "id": rid}).encode(), "json") == rid
