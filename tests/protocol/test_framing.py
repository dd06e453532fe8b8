"""Stream framing (stdio, TCP) and the ZeroMQ envelope."""

from __future__ import annotations

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jacquetd_protocol import (
    ErrorCode,
    Limits,
    Partial,
    ProtocolError,
    Reply,
    ReplyStreamDecoder,
    StreamDecoder,
    decode_reply,
    encode_reply,
    encode_request,
    split_envelope,
)

from .strategies import generic_results, ids_text, requests


def feed_in_chunks(decoder: StreamDecoder | ReplyStreamDecoder, data: bytes,
                   cuts: list[int]) -> list[bytes | ProtocolError]:
    out: list[bytes | ProtocolError] = []
    pos = 0
    for cut in [*cuts, len(data)]:
        out += decoder.feed(data[pos:pos + cut])
        pos += cut
    return out + decoder.finish()


@settings(max_examples=100, deadline=None)
@given(reqs=st.lists(st.sampled_from(["msgpack", "text"]).flatmap(requests), max_size=8),
       cuts=st.lists(st.integers(1, 40), max_size=30))
def test_request_stream_splits_mixed_encodings(reqs: list, cuts: list[int]) -> None:
    frames = [encode_request(r) for r in reqs]
    out = feed_in_chunks(StreamDecoder(), b"".join(frames), cuts)
    assert out == [f.removesuffix(b"\n") if not f[0] & 0x80 else f for f in frames]


@settings(max_examples=25, deadline=None)
@given(msgs=st.lists(st.tuples(st.sampled_from(["msgpack", "text"]), ids_text, generic_results,
                               st.booleans()), max_size=6),
       cuts=st.lists(st.integers(1, 40), max_size=30))
def test_reply_stream_splits_mixed_encodings(msgs: list, cuts: list[int]) -> None:
    sent = [Partial(i, r) if partial else Reply.success(i, r) for _, i, r, partial in msgs]
    data = b"".join(encode_reply(m, enc) for m, (enc, *_) in zip(sent, msgs, strict=True))
    out = feed_in_chunks(ReplyStreamDecoder(), data, cuts)
    assert [decode_reply(f) for f in out if isinstance(f, bytes)] == sent
    assert not [f for f in out if isinstance(f, ProtocolError)]


def test_blank_and_comment_lines_are_skipped() -> None:
    dec = StreamDecoder()
    assert dec.feed(b"\n  \n# a comment\r\n1 ping\r\n\t\n2 ping") == [b"1 ping"]
    assert dec.finish() == [b"2 ping"]


def test_over_long_line_is_reported_once_and_skipped() -> None:
    dec = StreamDecoder(Limits(max_frame_bytes=10))
    out = dec.feed(b"x" * 25)
    assert len(out) == 1 and out[0].code is ErrorCode.TOO_LARGE  # type: ignore[union-attr]
    assert dec.feed(b"y" * 1000) == []
    assert dec.feed(b"zz\n1 ping\n") == [b"1 ping"]
    out = dec.feed(b"0123456789AB\n2 ping\n")   # too long but complete in one read
    assert isinstance(out[0], ProtocolError) and out[1:] == [b"2 ping"]


def test_buffer_stays_bounded() -> None:
    dec = StreamDecoder(Limits(max_frame_bytes=1000))
    for _ in range(1000):
        dec.feed(b"a" * 4096)
        assert len(dec._buf) <= 1000 + 4096
    assert dec.feed(b"\n1 ping\n") == [b"1 ping"]


def test_msgpack_over_limit_breaks_the_stream() -> None:
    dec = StreamDecoder()
    out = dec.feed(msgpack.packb({"cmd": "ping"}) + b"\x81\xa1x\xdd\xff\xff\xff\xff" + b"1 ping\n")
    assert out[0] == msgpack.packb({"cmd": "ping"})
    assert isinstance(out[1], ProtocolError) and out[1].code is ErrorCode.TOO_LARGE
    assert dec.broken and dec.feed(b"2 ping\n") == []


def test_msgpack_then_text_on_one_stream() -> None:
    obj = msgpack.packb({"id": 1, "cmd": "ping"})
    dec = StreamDecoder()
    out = []
    for byte in obj + b"2 ping\n" + obj:
        out += dec.feed(bytes([byte]))
    assert out == [obj, b"2 ping", obj]


def test_unfinished_msgpack_at_end_of_stream() -> None:
    dec = StreamDecoder()
    assert dec.feed(b"\x82\xa3cmd") == []
    (err,) = dec.finish()
    assert isinstance(err, ProtocolError) and err.code is ErrorCode.BAD_FRAME


def test_reply_stream_rejects_stray_text() -> None:
    dec = ReplyStreamDecoder()
    out = dec.feed(b"hello\n=1\n\n")
    assert isinstance(out[0], ProtocolError) and out[1] == b"=1"


def test_reply_block_lines_are_never_taken_for_msgpack() -> None:
    data = b"=1\n\xde\x80 not msgpack\n\n~2\n"   # a block line starting with a map byte
    dec = ReplyStreamDecoder()
    out = []
    for i in range(len(data)):
        out += dec.feed(data[i:i + 1])
    assert out == [b"=1\n\xde\x80 not msgpack", b"~2"]


def test_split_envelope() -> None:
    assert split_envelope([b"id", b"body"]) == ([b"id"], b"body")
    assert split_envelope([b"id", b"", b"body"]) == ([b"id", b""], b"body")
    for frames in ([b"id"], [b"id", b"a", b"b"], [b"id", b"", b"a", b"b"]):
        with pytest.raises(ProtocolError) as info:
            split_envelope(frames)
        assert info.value.code is ErrorCode.BAD_FRAME
