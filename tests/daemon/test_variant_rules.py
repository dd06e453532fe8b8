"""What a referee learns from the server instead of keeping its own rules (SPEC 5.2,
protocol 1.4): `hello`'s `variant_rules` and `position`'s `may_double`, over a real
daemon."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import DaemonProcess
from tests.daemon.wire import ZmqClient


@pytest.fixture
def zc(jacquetd_server: DaemonProcess) -> Any:
    client = ZmqClient(jacquetd_server.zmq)
    yield client
    client.close()


def test_hello_describes_each_variant(zc: ZmqClient) -> None:
    rules = zc.call("hello").raise_for_error()["variant_rules"]
    assert set(rules) >= {"jacquet", "jacquet-be", "backgammon"}
    # G3 + J2 (the winner of the opening rolls again) + J12 + C1
    assert rules["jacquet"] == {"direction": "same", "opening": "reroll", "cube": False,
                                "results": {"1": "single", "2": "marcia",
                                            "3": "marcia per punto"}}
    # G3 + B2 (the opening dice are played) + B8
    assert rules["jacquet-be"] == {"direction": "same", "opening": "play", "cube": False,
                                   "results": {"1": "single", "2": "double"}}
    # N1 (G3) + N2 (the higher opening die rolls again) + N9 (oin, mars) + N10 (cube off)
    assert rules["long-nardy"] == {"direction": "same", "opening": "reroll", "cube": False,
                                   "results": {"1": "oin", "2": "mars"}}
    # G4 + the opening dice played + C4 + the cube on in money play
    assert rules["backgammon"] == {"direction": "opposite", "opening": "play", "cube": True,
                                   "results": {"1": "single", "2": "gammon",
                                               "3": "backgammon"}}


def position(variant: str, **extra: Any) -> dict[str, Any]:
    start = [0] * 24 + [15, 0]
    return {"variant": variant, "on_roll": start, "opponent": start, "dice": [],
            "primed": [False, False], **extra}


CENTRE = {"value": 1, "owner": "centre", "pending": False}


@pytest.mark.parametrize(("extra", "may"), [
    ({}, False),                                                           # C1: no cube
    ({"cube": CENTRE}, True),                                              # C2
    ({"cube": {"value": 2, "owner": "on_roll", "pending": False}}, True),  # C2: its own
    ({"cube": {"value": 2, "owner": "opponent", "pending": False}}, False),  # C2: the taker's
    ({"cube": {"value": 1, "owner": "centre", "pending": True}}, False),   # one pending
    ({"cube": CENTRE, "match": {"length": 5, "score": [4, 2], "crawford": True}}, False),  # C5
    ({"cube": CENTRE, "match": {"length": 5, "score": [4, 2], "crawford": False}}, True),
])
def test_position_says_whether_the_side_on_roll_may_double(zc: ZmqClient, extra: dict[str, Any],
                                                          may: bool) -> None:
    for variant in ("jacquet", "backgammon"):
        pos = position(variant, **extra)
        if variant == "backgammon":
            pos["on_roll"] = pos["opponent"] = [0, 0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5,
                                                0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0]
        result = zc.call("position", position=pos).raise_for_error()
        assert result["may_double"] is may, (variant, extra)
