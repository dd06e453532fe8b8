"""`whole_object` (the C-speed cut of a msgpack stream) never disagrees with the exact
`MsgpackScanner`: when it vouches for an object, the scanner finds the same end and no
broken limit; anything it is unsure of it leaves to the scanner."""

from __future__ import annotations

from dataclasses import replace
from unittest.mock import patch

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jacquetd_protocol import Limits, ProtocolError, msgpack_wire
from jacquetd_protocol.messages import REPLY_LIMITS
from jacquetd_protocol.msgpack_wire import MsgpackScanner, whole_object

scalars = (st.none() | st.booleans() | st.integers(-(1 << 63), (1 << 64) - 1)
           | st.floats(allow_nan=False) | st.text(max_size=40) | st.binary(max_size=8)
           | st.builds(msgpack.ExtType, st.integers(0, 127), st.binary(max_size=4)))
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=6)
                      | st.dictionaries(st.text(max_size=6) | st.binary(max_size=2), inner,
                                        max_size=6), max_leaves=40)
messages = st.dictionaries(st.text(max_size=6), values, max_size=6)


LOOSE = Limits(max_frame_bytes=1 << 20, max_depth=1 << 10, max_list_len=1 << 20,
               max_map_len=1 << 20, max_str_len=1 << 20, max_elements=1 << 20)
SMALL = {"max_frame_bytes": (1, 300), "max_depth": (1, 6), "max_list_len": (0, 8),
         "max_map_len": (0, 8), "max_str_len": (0, 40), "max_elements": (1, 60)}


def scanned(buf: bytes, lim: Limits) -> int | ProtocolError | None:
    try:
        return MsgpackScanner(lim).scan(buf)
    except ProtocolError as exc:
        return exc


def _check(obj: dict, lim: Limits, tail: bytes, cut: int) -> None:
    data = msgpack.packb(obj, use_bin_type=True) + tail
    for buf in (data, data[:max(0, len(data) - cut)], bytearray(data)):
        end = whole_object(buf, lim)
        if end is not None:
            assert scanned(bytes(buf), lim) == end


@pytest.mark.parametrize("name", sorted(SMALL))
@settings(max_examples=100, deadline=None)
@given(data=st.data(), obj=messages, tail=st.binary(max_size=6), cut=st.integers(0, 64))
def test_one_binding_limit(name: str, data: st.DataObject, obj: dict, tail: bytes,
                           cut: int) -> None:
    """Each limit in turn is the only small one: every check must hold on its own."""
    low, high = SMALL[name]
    _check(obj, replace(LOOSE, **{name: data.draw(st.integers(low, high))}), tail, cut)


@settings(max_examples=200, deadline=None)
@given(obj=messages, lim=st.sampled_from([Limits(), REPLY_LIMITS]), tail=st.binary(max_size=6),
       cut=st.integers(0, 64), window=st.sampled_from([1, 3, 16, msgpack_wire.WINDOW]))
def test_shipped_limits(obj: dict, lim: Limits, tail: bytes, cut: int, window: int) -> None:
    """Also with the first window of bytes handed to C smaller than the object: it grows
    until the object fits, and the answer does not change."""
    with patch.object(msgpack_wire, "WINDOW", window):
        _check(obj, lim, tail, cut)


def test_many_waiting_messages_are_cut_one_by_one() -> None:
    """Thousands of tiny requests in one buffer: each is cut on its own (the window handed
    to C starts small, so a request does not cost a copy of everything behind it)."""
    one = msgpack.packb({"id": 1, "cmd": "ping"})
    buf = bytearray(one * 5000)
    fed: list[int] = []
    real = msgpack.Unpacker

    class Counting(real):  # type: ignore[misc, valid-type]
        def feed(self, data: bytes) -> None:
            fed.append(len(data))
            super().feed(data)

    with patch.object(msgpack_wire.msgpack, "Unpacker", Counting):
        assert whole_object(buf, Limits()) == len(one)
    assert fed == [msgpack_wire.WINDOW]


@settings(max_examples=200, deadline=None)
@given(junk=st.binary(min_size=1, max_size=80),
       lim=st.sampled_from([Limits(), REPLY_LIMITS, replace(LOOSE, max_depth=2)]))
def test_arbitrary_bytes(junk: bytes, lim: Limits) -> None:
    end = whole_object(junk, lim)
    if end is not None:
        assert scanned(junk, lim) == end


def test_common_messages_take_the_fast_path() -> None:
    request = msgpack.packb({"id": 1, "cmd": "legal_moves",
                             "args": {"position": "start:backgammon", "dice": [3, 1]}})
    assert whole_object(request, Limits()) == len(request)
    assert whole_object(request + b"\x81", Limits()) == len(request)
    assert whole_object(request[:-1], Limits()) is None  # incomplete: the scanner resumes
    deep: object = 1
    for _ in range(17):
        deep = [deep]
    deep = msgpack.packb({"a": deep})
    assert whole_object(deep, Limits()) is None  # near the depth limit: the scanner decides
    with_bin = msgpack.packb({"a": b""}, use_bin_type=True)
    assert whole_object(with_bin, Limits()) is None


def test_a_long_reply_is_cut_without_the_scanner() -> None:
    """More containers than the nesting limit, so the decoded walk decides (exactly)."""
    plays = [{"move": f"{i}/1", "position_id": "x" * 40, "board": "b" * 30} for i in range(300)]
    reply = msgpack.packb({"id": 1, "ok": True, "result": {"count": 300, "plays": plays}})
    assert whole_object(reply, REPLY_LIMITS) == len(reply) == scanned(reply, REPLY_LIMITS)
    assert whole_object(reply, replace(REPLY_LIMITS, max_depth=2)) is None
    assert whole_object(reply, replace(REPLY_LIMITS, max_elements=1000)) is None


@settings(max_examples=200, deadline=None)
@given(obj=messages, slack=st.integers(-1, 1))
def test_exact_at_the_element_limit(obj: dict, slack: int) -> None:
    """At the very bound the walk counts values as the scanner does: same answer."""
    data = msgpack.packb(obj, use_bin_type=True)
    scanner = MsgpackScanner(LOOSE)
    try:
        if scanner.scan(data) != len(data):
            return
    except ProtocolError:  # bin or ext: refused whatever the limits
        return
    lim = replace(LOOSE, max_elements=max(1, scanner.elements + slack))
    expected = scanned(data, lim)
    got = whole_object(data, lim)
    assert got == expected or (got is None and not isinstance(expected, int))
    if isinstance(expected, int) and data.translate(None, bytes(range(0xC1, 0xCA))) == data:
        assert got == expected  # no bin or ext byte anywhere: C decodes it, so it decides


def test_duplicate_keys_are_left_to_the_scanner() -> None:
    """A map that repeats a key holds more values than its decoded dict shows."""
    data = b"\x82\xa1a\x01\xa1a\x02"  # {"a": 1, "a": 2}
    assert scanned(data, replace(LOOSE, max_elements=4)) != len(data)
    assert whole_object(data, replace(LOOSE, max_elements=4)) is None
