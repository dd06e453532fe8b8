"""The daemon answers a money cube decision in a short bear-off from the two-sided
table it builds at start, not from the network."""

from __future__ import annotations

import time

import pytest

from jacquetd.bots import bearoff_cube
from tests.conftest import DaemonProcess
from tests.daemon.wire import ZmqClient

ME = (1, 0, 1, 1, 0, 2)  # five checkers against four, 56% to win: the network's cube
OPP = (0, 0, 0, 2, 1, 1)  # efficiency says double/take is close; the table says wait


def side(home: tuple[int, ...]) -> list[int]:
    return [15 - sum(home), *home] + [0] * 19


def test_a_short_bear_off_is_answered_from_the_table(jacquetd_server: DaemonProcess) -> None:
    path = bearoff_cube.cache_path("standard")
    deadline = time.monotonic() + 600
    while not path.exists():  # the daemon builds it in the background when it starts
        assert time.monotonic() < deadline, "the daemon did not build the two-sided table"
        time.sleep(0.5)
    exact = bearoff_cube.table("standard").money(ME, OPP, "centre")
    client = ZmqClient(jacquetd_server.zmq)
    try:
        position = {"variant": "backgammon", "on_roll": side(ME), "opponent": side(OPP),
                    "cube": {"value": 1, "owner": "centre"}}
        for plies in (0, 2):
            reply = client.call("cube", position=position, plies=plies, timeout=120)
            assert reply.ok, reply
            assert reply.result["no_double"] == pytest.approx(exact.no_double, abs=1e-3)
            assert reply.result["double_take"] == pytest.approx(exact.double_take, abs=1e-3)
            assert (reply.result["action"], reply.result["take"]) == ("no_double", "take")
    finally:
        client.close()
