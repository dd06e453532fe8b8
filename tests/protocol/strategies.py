"""Hypothesis strategies for protocol messages, derived from the command table."""

from __future__ import annotations

import string
from typing import Any

from hypothesis import strategies as st
from jacquetd_protocol.commands import (
    COMMANDS,
    MAX_ID,
    PLAYS_A_ROLL,
    RECORDS,
    ArgType,
    Command,
    Field,
    Param,
)
from jacquetd_protocol.errors import ErrorCode
from jacquetd_protocol.messages import Request

BASE64URL = string.ascii_letters + string.digits + "-_"

ids_text = st.none() | st.integers(0, MAX_ID)
ids_any = ids_text | st.text(min_size=1, max_size=64)

finite = st.floats(allow_nan=False, allow_infinity=False)
prob = st.floats(0, 1, allow_nan=False)
side = st.lists(st.integers(0, 15), min_size=26, max_size=26)


@st.composite
def position_maps(draw: st.DrawFn) -> dict[str, Any]:
    """Structured positions of the pinned shape (not necessarily legal: shape only)."""
    pos: dict[str, Any] = {
        "variant": draw(st.sampled_from(["jacquet", "jacquet-be", "backgammon"])),
        "on_roll": draw(side), "opponent": draw(side),
        "dice": draw(st.just([]) | st.lists(st.integers(1, 6), min_size=2, max_size=2)),
        "primed": draw(st.lists(st.booleans(), min_size=2, max_size=2)),
    }
    if draw(st.booleans()):
        pos["cube"] = {"value": draw(st.sampled_from([1, 2, 4, 64])),
                       "owner": draw(st.sampled_from(["centre", "on_roll", "opponent"])),
                       "pending": draw(st.booleans())}
    if draw(st.booleans()):
        pos["match"] = {"length": draw(st.integers(1, 25)),
                        "score": draw(st.lists(st.integers(0, 24), min_size=2, max_size=2)),
                        "crawford": draw(st.booleans())}
    return pos


position_ids = st.text(BASE64URL, min_size=40, max_size=60)
position_args = (position_ids | st.sampled_from(["start", "start:backgammon", "start:jacquet-be"])
                 | position_maps())
words = st.text(string.ascii_lowercase + string.digits + "_.-", min_size=1, max_size=20).filter(
    lambda w: w[0].isalnum())
move_words = st.from_regex(r"(bar|[1-9]|1[0-9]|2[0-4])/([1-9]|1[0-9]|2[0-4]|off)\*?",
                           fullmatch=True)
moves = st.lists(move_words, min_size=1, max_size=4).map(" ".join)


def arg_values(param: Param) -> st.SearchStrategy[Any]:
    """Valid values for one argument (already in their normalised form)."""
    t = param.type
    if t is ArgType.INT:
        return st.integers(param.minimum if param.minimum is not None else -(1 << 40),
                           param.maximum if param.maximum is not None else 1 << 40)
    if t is ArgType.NUMBER:
        if param.minimum is not None or param.maximum is not None:
            return st.floats(param.minimum, param.maximum, allow_nan=False)
        return finite
    if t is ArgType.BOOL:
        return st.booleans()
    if t is ArgType.WORD:
        if param.name == "level":
            return st.sampled_from(["random", "heuristic", "neural-1"])
        if param.pattern:
            return st.from_regex(param.pattern, fullmatch=True).filter(
                lambda w: 0 < len(w) <= param.max_len and w.isprintable()
                and not any(c.isspace() for c in w))
        return words.filter(lambda w: len(w) <= param.max_len)
    if t is ArgType.WORDS and param.name == "status":
        return st.lists(st.sampled_from(["playing", "adjourned", "over", "closed", "all"]),
                        min_size=1, max_size=4)
    if t is ArgType.WORDS:
        return st.lists(st.from_regex(r"[1-9]\.(0|[1-9])", fullmatch=True), min_size=1,
                        max_size=4)
    if t is ArgType.DICE:
        return st.lists(st.integers(1, 6), min_size=2, max_size=2)
    if t is ArgType.POSITION:
        return position_args
    if t is ArgType.MOVE:
        return moves
    if t is ArgType.REQUEST_ID:
        return st.integers(0, MAX_ID)
    raise AssertionError(t)


@st.composite
def requests(draw: st.DrawFn, encoding: str = "msgpack",
             command: Command | None = None) -> Request:
    """A valid request for `command` (or any command) in `encoding`."""
    cmd = command or draw(st.sampled_from(list(COMMANDS.values())))
    args: dict[str, Any] = {}
    for param in cmd.all_params():
        # a command that plays a roll gets dice (a start position has none)
        if (param.required or (param.name == "dice" and cmd.name in PLAYS_A_ROLL)
                or draw(st.booleans())):
            args[param.name] = draw(arg_values(param))
    rid = draw(ids_text if encoding == "text" else ids_any)
    return Request(rid, cmd.name, args, encoding)  # type: ignore[arg-type]


def _field_values(field: Field) -> st.SearchStrategy[Any]:
    simple: dict[str, st.SearchStrategy[Any]] = {
        "int": st.integers(0, 1 << 40), "number": finite, "prob": prob, "bool": st.booleans(),
        "str": st.text(max_size=30), "str_list": st.lists(st.text(max_size=10), max_size=4),
        "position": position_maps(),
        "request_id": ids_any.filter(lambda x: x is not None),
        "limits": st.dictionaries(words, st.integers(0, 1 << 30), max_size=4),
        "counts": st.dictionaries(words, st.integers(0, 1 << 30), max_size=4),
    }
    small_maps = st.dictionaries(keys, json_scalars, max_size=4)
    ints = st.integers(0, 1 << 40)
    simple |= {
        "game_result": st.fixed_dictionaries({
            "winner": st.sampled_from(["on_roll", "opponent"]), "points": st.integers(1, 192),
            "name": st.sampled_from(["single", "marcia", "gammon", "marcia per punto"])}),
        "int_or_null": st.none() | ints,
        "int_pair": st.lists(ints, min_size=2, max_size=2),
        "int_list": st.lists(ints, max_size=4),
        "token_pair": st.lists(st.none() | st.from_regex(r"[A-Za-z0-9_-]{8,24}",
                                                         fullmatch=True),
                               min_size=2, max_size=2),
        "may": st.lists(st.lists(words, max_size=3), min_size=2, max_size=2),
        "cube_or_null": st.none() | small_maps,
        "resign_or_null": st.none() | small_maps,
        "str_map": st.dictionaries(keys, st.text(max_size=20), max_size=4),
        "help_arguments": st.lists(st.fixed_dictionaries(
            {"name": keys, "type": st.sampled_from(["int", "str", "dice"]),
             "required": st.booleans(), "doc": st.text(max_size=20)}), max_size=3),
        "request_map": st.fixed_dictionaries({"cmd": keys}),
        "thresholds": st.dictionaries(keys, finite, max_size=3),
        "variant_rules": st.dictionaries(words, st.fixed_dictionaries({
            "direction": st.sampled_from(["same", "opposite"]),
            "opening": st.sampled_from(["play", "reroll"]),
            "results": st.dictionaries(st.sampled_from(["1", "2", "3"]),
                                       st.text(max_size=20), max_size=3),
            "cube": st.booleans()}), max_size=3),
    }
    for name in ("seats", "events", "match_summaries", "move_analyses", "game_lucks",
                 "bot_matches", "rollout_lines", "player_summaries",
                 "cube_analyses"):
        simple[name] = st.lists(small_maps, max_size=3)
    if field.type in simple:
        return simple[field.type]
    if field.type == "plays_or_compact":
        return st.lists(results(RECORDS["play"]) | results(RECORDS["compact_play"]),
                        max_size=4)
    if field.type in ("play", "plays", "ranked_plays", "latency"):
        record = {"play": "play", "plays": "play", "ranked_plays": "ranked_play",
                  "latency": "latency"}[field.type]
        one = results(RECORDS[record])
        if field.type == "play":
            return one
        if field.type == "latency":
            return st.dictionaries(words, one, max_size=3)
        return st.lists(one, max_size=4)
    raise AssertionError(field.type)


def results(fields: tuple[Field, ...]) -> st.SearchStrategy[dict[str, Any]]:
    """A result map with every documented field."""
    return st.fixed_dictionaries({f.name: _field_values(f) for f in fields})


error_codes = st.sampled_from(list(ErrorCode))


@st.composite
def error_maps(draw: st.DrawFn) -> dict[str, Any]:
    """An `error` map: code, message, and some optional members."""
    error: dict[str, Any] = {"code": str(draw(error_codes)), "message": draw(st.text(max_size=60))}
    if draw(st.booleans()):
        error["field"] = draw(st.sampled_from(["dice", "position.on_roll", "id", "args"]))
    if draw(st.booleans()):
        error["rule"] = draw(st.from_regex(r"[GJBC][0-9]{1,2}", fullmatch=True))
    if draw(st.booleans()):
        error["supported"] = ["1.0"]
    if draw(st.booleans()):
        error["planned"] = True
    return error


# Arbitrary result maps: identifier keys, JSON-able values (the generic text form).
json_scalars = st.none() | st.booleans() | st.integers(-(1 << 63), (1 << 64) - 1) | finite \
    | st.text(max_size=20)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                               max_size=4),
    max_leaves=20)
keys = st.from_regex(r"[a-z_][a-z0-9_-]{0,10}", fullmatch=True)
# keys that look like identifiers until their last character (a line end): the text
# wire must not spread them into dotted keys, which would split a reply line
near_keys = st.tuples(keys, st.sampled_from(["\n", "\r", " ", "."])).map("".join)
map_values = st.recursive(
    json_scalars | position_maps(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        keys | near_keys | st.text(max_size=6), inner, max_size=4),
    max_leaves=20)
generic_results = st.dictionaries(keys, map_values, max_size=6)
