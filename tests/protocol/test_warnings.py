"""Request fields a command does not define: ignored, and named for the reply's `warnings`."""

from __future__ import annotations

import msgpack
from jacquetd_protocol.codec import decode_request
from jacquetd_protocol.commands import MAX_WARNINGS, warnings_for


def test_msgpack_request_names_the_fields_its_command_does_not_define() -> None:
    req = decode_request(msgpack.packb({"id": 1, "cmd": "legal_moves", "position": "start",
                                        "dice": [6, 5], "dicee": [1, 2], "nothing": None,
                                        "colour": "red"}))
    assert req.args == {"position": "start", "dice": [6, 5]}
    assert req.ignored == ("dicee", "colour")  # in the order given; nil counts as absent
    assert [w["field"] for w in warnings_for(req)] == ["dicee", "colour"]
    assert all("legal_moves has no such field" in w["message"] for w in warnings_for(req))


def test_text_request_names_unknown_keywords() -> None:
    req = decode_request(b"4 best_move start 65 level=random speed=9 seed=2")
    assert req.args["seed"] == 2 and req.ignored == ("speed",)
    assert decode_request(b"5 ping").ignored == ()


def test_the_list_is_bounded() -> None:
    obj = {"cmd": "ping", **{f"f{i}": i for i in range(100)}}
    req = decode_request(msgpack.packb(obj))
    assert len(req.ignored) == MAX_WARNINGS
    assert len(warnings_for(req)) == MAX_WARNINGS
