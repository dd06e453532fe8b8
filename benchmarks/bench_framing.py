"""Cutting msgpack byte streams into messages: ``python benchmarks/bench_framing.py``.

Stdio and TCP carry msgpack messages back to back, and a ZeroMQ frame is checked
before it is decoded: every message's end is found, and every limit (size,
nesting, lengths, number of values) enforced, before anything is allocated.
For typical messages this prints, in one run, the median time of

- the cut as the codec does it (`StreamDecoder` / `ReplyStreamDecoder.feed`:
  the C skip of `msgpack_wire.whole_object`, the exact scanner only when it
  is unsure);
- the exact scanner alone (`MsgpackScanner.scan`, which walks every value in
  Python: the reference, and what every message cost before);
- for scale, the C decode of the same bytes (`msgpack.unpackb`);

and the time to cut thousands of tiny requests that arrive in one read.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import msgpack

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from jacquetd_protocol.codec import encode_reply, encode_request
from jacquetd_protocol.framing import ReplyStreamDecoder, StreamDecoder
from jacquetd_protocol.messages import REPLY_LIMITS, Limits, Reply, Request
from jacquetd_protocol.msgpack_wire import MsgpackScanner

from jacquetd.daemon import front_commands


def median_us(fn: Callable[[], object], n: int = 2000) -> float:
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e6


def reply(position: str, dice: list[int], compact: bool) -> bytes:
    result = front_commands.handle_legal_moves(
        None, {"position": position, "dice": dice, "compact": compact})  # type: ignore[arg-type]
    return encode_reply(Reply.success(1, result), "msgpack")


def main() -> None:
    request = encode_request(Request(1, "legal_moves", {"position": "start:backgammon",
                                                        "dice": [3, 1]}, "msgpack"))
    cases = [
        ("request legal_moves", request, Limits(), StreamDecoder),
        ("reply legal_moves compact, backgammon 3-1", reply("start:backgammon", [3, 1], True),
         REPLY_LIMITS, ReplyStreamDecoder),
        ("reply legal_moves full, backgammon 3-1", reply("start:backgammon", [3, 1], False),
         REPLY_LIMITS, ReplyStreamDecoder),
        ("reply legal_moves compact, jacquet-be 6-5", reply("start:jacquet-be", [6, 5], True),
         REPLY_LIMITS, ReplyStreamDecoder),
    ]
    print(f"{'message':45} {'bytes':>7} {'codec us':>9} {'scanner us':>11} {'unpackb us':>11}")
    for name, data, limits, decoder_class in cases:
        decoder = decoder_class(limits)
        codec = median_us(lambda d=decoder, b=data: d.feed(b))  # type: ignore[misc]
        scanner = median_us(lambda b=data, lim=limits: MsgpackScanner(lim).scan(b))  # type: ignore[misc]
        unpack = median_us(lambda b=data: msgpack.unpackb(b))  # type: ignore[misc]
        print(f"{name:45} {len(data):>7} {codec:>9.1f} {scanner:>11.1f} {unpack:>11.1f}")
    ping = msgpack.packb({"id": 1, "cmd": "ping"})
    for count in (5_000, 20_000):
        data = ping * count
        t0 = time.perf_counter()
        cut = StreamDecoder().feed(data)
        took = time.perf_counter() - t0
        assert len(cut) == count
        print(f"{count} pings in one read ({len(data)} bytes): cut in {took * 1e3:.1f} ms "
              f"({took / count * 1e6:.2f} us each)")


if __name__ == "__main__":
    main()
