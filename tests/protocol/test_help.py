"""`help` is read from the command table: every command has a description, a usage line
and an example the codec accepts; SPEC's examples of `help` are what it answers; argument
errors carry the usage line; other spellings of a field are refused naming it."""

from __future__ import annotations

import msgpack
import pytest
from jacquetd_protocol import COMMANDS, ProtocolError, decode_request
from jacquetd_protocol.commands import EXAMPLES, usage
from jacquetd_protocol.help import help_result

from .spec_examples import examples


def test_every_command_has_an_example_the_codec_accepts() -> None:
    assert set(EXAMPLES) == set(COMMANDS)
    for name, line in EXAMPLES.items():
        req = decode_request(line.encode())
        assert req.cmd == name and not req.ignored, line
        described = help_result(name)
        assert described["example_request"] == {"cmd": name, **req.args}
        assert described["usage"] == usage(COMMANDS[name])
        assert [a["name"] for a in described["arguments"]] == \
            [p.name for p in COMMANDS[name].all_params()]


def test_the_list_has_one_line_per_command() -> None:
    listing = help_result()
    assert list(listing["commands"]) == list(COMMANDS)
    assert all(summary and "\n" not in summary for summary in listing["commands"].values())


def test_spec_shows_what_help_answers() -> None:
    spec = examples()
    (listing,) = spec["help", "msgpack"]
    assert listing.replies[-1]["result"] == help_result()
    (one,) = spec["help:command", "msgpack"]
    assert one.replies[-1]["result"] == help_result(one.request["command"])


def test_usage_lines() -> None:
    assert usage(COMMANDS["legal_moves"]) == \
        "legal_moves POSITION [DICE] [compact=BOOL] [timeout_ms=INT]"
    assert usage(COMMANDS["apply_move"]) == \
        "apply_move POSITION [DICE] MOVE... [timeout_ms=INT]"
    assert usage(COMMANDS["cancel"]) == "cancel TARGET [timeout_ms=INT]"


@pytest.mark.parametrize("frame", [
    b"1 legal_moves",
    b"1 legal_moves start",                      # a start position has no dice
    b"1 legal_moves jacquet/24:15/24:15/-/00",   # nor has this board
    b"1 legal_moves start 7x",
    b"1 legal_moves start 65 compact=maybe",
    msgpack.packb({"id": 1, "cmd": "legal_moves", "position": "start", "dice": "65"}),
    msgpack.packb({"id": 1, "cmd": "legal_moves", "position": 7}),
])
def test_argument_errors_show_the_usage_line(frame: bytes) -> None:
    with pytest.raises(ProtocolError) as info:
        decode_request(frame)
    assert info.value.extra["usage"] == usage(COMMANDS["legal_moves"]), info.value
    assert info.value.id == 1


@pytest.mark.parametrize(("frame", "field", "spelling"), [
    (b"1 legal_moves start 65 variant=jacquet-be", "variant", "position"),
    (b"1 legal_moves start dicee=65", "dicee", "dice"),
    (b"1 legal_moves start roll=65", "roll", "dice"),
    (b"1 evaluate start depth=2", "depth", "plies"),
    (b"1 analyze start 65 max-plays=3", "max-plays", "max_plays"),
    (msgpack.packb({"id": 1, "cmd": "analyze", "position": "start", "dice": [6, 5],
                    "maxPlays": 3}), "maxPlays", "max_plays"),
    (msgpack.packb({"id": 1, "cmd": "best_move", "position": "start", "dice": [6, 5],
                    "levels": "random"}), "levels", "level"),
])
def test_other_spellings_are_refused_naming_the_right_one(frame: bytes, field: str,
                                                          spelling: str) -> None:
    with pytest.raises(ProtocolError) as info:
        decode_request(frame)
    err = info.value
    assert (err.code, err.field, err.extra["spelling"]) == ("bad_argument", field, spelling)
    if field == "variant":
        assert "start:jacquet-be" in err.message


@pytest.mark.parametrize("frame", [
    b"1 ping verbose=true",                      # no field of ping is near it
    b"1 position start depth=2",                 # position takes no plies
    b"1 best_move start 65 speed=9 seed=2",      # near seed, but seed is given
    msgpack.packb({"cmd": "legal_moves", "position": "start", "dice": [6, 5],
                   "dicee": None}),              # nil is absent
])
def test_other_unknown_fields_are_still_ignored(frame: bytes) -> None:
    decode_request(frame)


def test_unknown_commands_point_to_help() -> None:
    with pytest.raises(ProtocolError) as info:
        decode_request(b"1 legal_move start 65")
    assert info.value.extra["spelling"] == "legal_moves" and "help" in info.value.message
    with pytest.raises(ProtocolError) as info:
        help_result("frobnicate")
    assert info.value.field == "command" and "spelling" not in info.value.extra
