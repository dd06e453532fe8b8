"""Fuzzing both decoders: whatever the bytes, the answer is a message or a ProtocolError
with a documented code, quickly and without allocating what a header claims."""

from __future__ import annotations

import time
from typing import Any

import msgpack
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jacquetd_protocol import (
    ErrorCode,
    Limits,
    ProtocolError,
    Reply,
    ReplyStreamDecoder,
    StreamDecoder,
    decode_reply,
    decode_request,
    encode_reply,
    encode_request,
)

from .strategies import generic_results, requests

CODES = set(ErrorCode)
FUZZ = settings(max_examples=200, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _check_request(frame: bytes) -> None:
    try:
        decode_request(frame)
    except ProtocolError as exc:
        assert exc.code in CODES
        assert exc.to_dict()["code"] in CODES


def _check_reply(frame: bytes) -> None:
    try:
        decode_reply(frame)
    except ProtocolError as exc:
        assert exc.code in {ErrorCode.BAD_FRAME, ErrorCode.TOO_LARGE, ErrorCode.TOO_DEEP}


@FUZZ
@given(st.binary(max_size=300))
def test_random_bytes(frame: bytes) -> None:
    _check_request(frame)
    _check_reply(frame)
    _check_request(b"\x83" + frame)   # forced down the msgpack path
    _check_reply(b"\x83" + frame)


msgpack_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(1 << 63), (1 << 64) - 1)
    | st.floats() | st.text(max_size=10) | st.binary(max_size=5),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(
        st.text(max_size=8) | st.integers(0, 3), inner, max_size=5),
    max_leaves=30)


@settings(FUZZ, max_examples=100)
@given(st.dictionaries(st.sampled_from(["id", "cmd", "position", "dice", "move", "target",
                                        "plies", "versions", "timeout_ms", "x"]),
                       msgpack_values | st.sampled_from(["ping", "legal_moves", "apply_move",
                                                         "cancel", "hello", "analyze"]),
                       max_size=6))
def test_wrong_types_in_msgpack(obj: dict[str, Any]) -> None:
    frame = msgpack.packb(obj, use_bin_type=True, strict_types=False)
    _check_request(frame)
    _check_reply(frame)


@FUZZ
@given(st.data())
def test_mutated_valid_frames(data: st.DataObject) -> None:
    encoding = data.draw(st.sampled_from(["msgpack", "text"]))
    frame = bytearray(encode_request(data.draw(requests(encoding))))
    for _ in range(data.draw(st.integers(1, 4))):
        op = data.draw(st.sampled_from(["flip", "cut", "insert"]))
        i = data.draw(st.integers(0, max(len(frame) - 1, 0)))
        if op == "flip" and frame:
            frame[i] ^= 1 << data.draw(st.integers(0, 7))
        elif op == "cut":
            del frame[i:]
        else:
            frame[i:i] = data.draw(st.binary(min_size=1, max_size=4))
    _check_request(bytes(frame))
    _check_reply(bytes(frame))


@settings(FUZZ, max_examples=60)
@given(st.data())
def test_mutated_replies(data: st.DataObject) -> None:
    encoding = data.draw(st.sampled_from(["msgpack", "text"]))
    frame = bytearray(encode_reply(Reply.success(1, data.draw(generic_results)), encoding))
    if frame:
        i = data.draw(st.integers(0, len(frame) - 1))
        frame[i] = data.draw(st.integers(0, 255))
    _check_reply(bytes(frame))


def _fast(frame: bytes, budget_s: float = 1.0) -> ProtocolError:
    """Decode a hostile frame; its refusal must cost bounded work. Measured in this
    process's CPU time, not wall time, so that a busy machine cannot fail it while a
    decoder that does work in proportion to a header's claim (seconds to minutes) still
    does."""
    start = time.process_time()
    try:
        decode_request(frame)
    except ProtocolError as exc:
        assert time.process_time() - start < budget_s
        return exc
    raise AssertionError("accepted")


def test_hostile_frames_are_refused_quickly() -> None:
    # 1 MiB of empty lists: refused by the element budget before anything is built.
    inner = b"\xdc\x10\x00" + b"\x90" * 4096
    frame = b"\x81\xa1x\xdc\x00\xff" + inner * 255
    assert len(frame) < 1 << 20
    assert _fast(frame).code is ErrorCode.TOO_LARGE
    # Headers claiming 2^32 - 1 entries, at every level.
    for claim in (b"\xdd\xff\xff\xff\xff", b"\xdf\xff\xff\xff\xff", b"\xdb\xff\xff\xff\xff"):
        assert _fast(b"\x81\xa1x" + claim).code is ErrorCode.TOO_LARGE
    # A str16 of 65535 bytes is within the default max_str_len (64 KiB): only truncated.
    assert _fast(b"\x81\xa1x\xda\xff\xff").code is ErrorCode.BAD_FRAME
    assert _fast(b"\x81\xa1x" + b"\x91" * 200_000).code is ErrorCode.TOO_DEEP
    assert _fast(b"a" * Limits().max_frame_bytes + b"b").code is ErrorCode.TOO_LARGE


@FUZZ
@given(st.binary(max_size=600), st.lists(st.integers(1, 50), min_size=1, max_size=20))
def test_stream_decoders_never_raise(data: bytes, cuts: list[int]) -> None:
    limits = Limits(max_frame_bytes=64)
    for decoder in (StreamDecoder(limits), ReplyStreamDecoder(limits)):
        pos = 0
        for cut in [*cuts, len(data)]:
            for item in decoder.feed(data[pos:pos + cut]):
                assert isinstance(item, bytes | ProtocolError)
                if isinstance(item, bytes):
                    assert len(item) <= 64
            pos += cut
        decoder.finish()
