"""Every value a reply prints can be pasted back into a text request (SPEC §4.1): quoted
values in requests are read as replies write them, and `apply_move` takes its roll as
a positional word as every command that takes dice does."""

from __future__ import annotations

import string
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jacquetd_protocol import COMMANDS, ProtocolError, Reply, Request, decode_request
from jacquetd_protocol.codec import decode_reply, encode_reply, encode_request
from jacquetd_protocol.commands import ArgType
from jacquetd_protocol.positions import check_position_arg
from jacquetd_protocol.text_wire import format_value

from .strategies import position_maps


def _text(line: str) -> Request:
    return decode_request(line.encode())


def test_the_issue_lines() -> None:
    quoted = _text('apply_move position=start dice=65 move="24/18 24/19"')
    assert quoted.args == {"position": "start", "dice": [6, 5], "move": "24/18 24/19"}
    single = _text('apply_move position=start dice=65 move="24/13"')
    assert single.args["move"] == "24/13"
    positional = _text("apply_move start 65 24/18 18/13")
    assert positional.args == {"position": "start", "dice": [6, 5], "move": "24/18 18/13"}
    # a position with its own dice: the word after it is the move
    own = _text("apply_move AQAAAAAAAAAAAAAAAADwAAAAAAAAAAAAAAAA8GUA 24/13")
    assert own.args == {"position": "AQAAAAAAAAAAAAAAAADwAAAAAAAAAAAAAAAA8GUA",
                        "move": "24/13"}
    assert _text('apply_move start 6-5 "24/18 18/13"').args == positional.args


def test_string_ids_read_as_replies_print_them() -> None:
    # `cancel`'s reply prints a string target bare (`target=abc`): it reads back
    assert _text("3 cancel abc").args == {"target": "abc"}
    assert _text('3 cancel "12"').args == {"target": "12"}
    assert _text("3 cancel 12").args == {"target": 12}


def test_every_command_that_takes_dice_takes_them_positionally() -> None:
    for cmd in COMMANDS.values():
        for param in cmd.all_params():
            if param.type is ArgType.DICE:  # (match_new's `dice` is a mode word)
                assert param.position is not None, cmd.name


def test_what_a_reply_prints_is_what_a_request_reads() -> None:
    reply = Reply.success(1, {"move": "24/18 18/13", "dice": [6, 5],
                              "board": "jacquet/24:15/24:14,13:1/-/00"})
    printed = encode_reply(reply, "text").decode().split("\n")[1:4]
    assert printed == ['move="24/18 18/13"', "dice=[6,5]",
                       'board="jacquet/24:15/24:14,13:1/-/00"']
    line = "apply_move " + " ".join(printed[:2]) + " position=start"
    assert _text(line).args == {"position": "start", "dice": [6, 5], "move": "24/18 18/13"}


@pytest.mark.parametrize(("line", "field"), [
    ('apply_move start 65 "24/18', "args"),
    ('apply_move start 65 move="24/18 18/13"x', "move"),
    ('apply_move start 65 24/18 "18/13"', "move"),
    ("legal_moves start dice=[6,9]", "dice"),
])
def test_malformed_quoted_values_name_their_field(line: str, field: str) -> None:
    with pytest.raises(ProtocolError) as info:
        _text(line)
    assert info.value.field == field and info.value.code == "bad_argument"


printable = st.text(st.characters(codec="utf-8"), max_size=40)


def _pasted(cmd: str, required: str, name: str, value: Any) -> dict[str, Any]:
    """The arguments of the request `cmd REQUIRED name=<value as a reply prints it>`."""
    return _text(f"{cmd} {required} {name}={format_value(value)}".strip()).args


@settings(max_examples=300, deadline=None)
@given(move=printable)
def test_any_move_pastes_back(move: str) -> None:
    args = _pasted("apply_move", "start 65", "move", move)
    assert args["move"] == move


@settings(max_examples=200, deadline=None)
@given(name=printable.filter(lambda s: 1 <= len(s) <= 64))
def test_any_word_pastes_back(name: str) -> None:
    assert _pasted("match_new", "", "name0", name)["name0"] == name


@settings(max_examples=100, deadline=None)
@given(dice=st.lists(st.integers(1, 6), min_size=2, max_size=2),
       candidates=st.lists(printable.filter(lambda s: 1 <= len(s) <= 32), min_size=1,
                           max_size=5),
       target=st.integers(0, (1 << 63) - 1) | st.text(min_size=1, max_size=64).filter(
           lambda s: "\x00" not in s and not (s.isascii() and s.isdigit())))
def test_lists_dice_and_ids_paste_back(dice: list[int], candidates: list[str],
                                       target: int | str) -> None:
    assert _pasted("legal_moves", "start", "dice", dice)["dice"] == dice
    assert _pasted("rollout", "start 65", "candidates", candidates)["candidates"] == candidates
    assert _pasted("cancel", "", "target", target)["target"] == target


@settings(max_examples=150, deadline=None)
@given(position=position_maps())
def test_positions_paste_back(position: dict[str, Any]) -> None:
    # as a reply prints it: a board literal when it has one, else JSON
    assert _pasted("position", "", "position", position)["position"] == \
        check_position_arg(position)


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, (1 << 63) - 1) | st.none(), compact=st.booleans())
def test_scalars_and_null_paste_back(seed: int | None, compact: bool) -> None:
    args = _pasted("best_move", "start 65", "seed", seed)
    assert args.get("seed") == seed  # null: the field is absent, as a nil is
    assert _pasted("legal_moves", "start 65", "compact", compact)["compact"] is compact


words = st.text(string.ascii_letters + string.digits + "/*()=\"[]{},:- ", max_size=30)


@settings(max_examples=300, deadline=None)
@given(move=words, dice=st.none() | st.lists(st.integers(1, 6), min_size=2, max_size=2),
       client=printable.filter(lambda s: 1 <= len(s) <= 128))
def test_requests_round_trip_through_text(move: str, dice: list[int] | None,
                                          client: str) -> None:
    # without dice, a position id that holds them
    args: dict[str, Any] = {"position": "AQAAAAAAAAAAAAAAAADwAAAAAAAAAAAAAAAA8GUA",
                            "move": move}
    if dice is not None:
        args = {"position": "start", "dice": dice, "move": move}
    req = Request(3, "apply_move", args, "text")
    back = decode_request(encode_request(req))
    expected = dict(args, move=" ".join(move.split()) or "pass")
    assert back.args in (args, expected)
    hello = Request(4, "hello", {"client": client}, "text")
    assert decode_request(encode_request(hello)) == hello
    for line in (encode_request(req), encode_request(hello)):
        assert b"\n" not in line[:-1]


def test_text_replies_still_read_back() -> None:
    # the request reader and the reply writer share their quoting: a reply holding every
    # kind of value still decodes to the same map
    result = {"move": "24/18 18/13", "s": "two words", "n": "null", "q": '"', "l": [1, "a b"]}
    reply = Reply.success(9, result)
    assert decode_reply(encode_reply(reply, "text")) == reply


def test_move_params_are_last_among_positional_words() -> None:
    for cmd in COMMANDS.values():
        positional = sorted((p for p in cmd.all_params() if p.position is not None),
                            key=lambda p: p.position or 0)
        moves = [i for i, p in enumerate(positional) if p.type is ArgType.MOVE]
        assert moves in ([], [len(positional) - 1]), cmd.name
