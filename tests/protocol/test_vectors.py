"""The conformance vectors: well formed, covering every command, error code and the gnubg
sublanguage, and right: the expectations about positions, legal plays and moves are
checked here against the rules core, and the gnubg forced moves against its FIBS reader."""

from __future__ import annotations

import json
from typing import Any

import msgpack
import pytest
from jacquetd_protocol import (
    COMMANDS,
    ErrorCode,
    ProtocolError,
    Reply,
    decode_request,
    encode_reply,
)
from jacquetd_protocol.conformance.matchers import match
from jacquetd_protocol.conformance.vectors import (
    VECTORS_DIR,
    Vector,
    iter_requests,
    load_vectors,
    lookup,
    substitute,
)
from jacquetd_protocol.gnubg_wire import format_move
from jacquetd_protocol.positions import foreign_position, format_board, start_variant

import jacquetd.rules as rules
from jacquetd.rules.interchange import foreign_ids, parse_foreign
from jacquetd.rules.scoring import game_result, result_name

VECTORS = load_vectors()
PROTOCOL_VECTORS = [v for v in VECTORS if v.endpoint == "protocol"]
GNUBG_VECTORS = [v for v in VECTORS if v.endpoint == "gnubg"]


def _command(request: Any) -> tuple[str, str]:
    if isinstance(request, dict):
        return "msgpack", str(request.get("cmd"))
    words = request.split()
    return "text", words[1] if words and words[0].isdigit() and len(words) > 1 else words[0]


def _codes(expectation: Any) -> set[str]:
    text = json.dumps(expectation)
    return {code for code in ErrorCode if f'"code": "{code}"' in text}


def test_every_vector_file_loads_and_names_are_unique() -> None:
    assert len(VECTORS) >= 40
    assert len({v.name for v in VECTORS}) == len(VECTORS)
    assert {p.name for p in VECTORS_DIR.glob("*.json")} == {v.source for v in VECTORS}


def test_every_command_in_both_encodings() -> None:
    seen = {_command(r) for v in PROTOCOL_VECTORS for r in iter_requests(v)}
    for name in COMMANDS:
        assert ("msgpack", name) in seen and ("text", name) in seen, name


def test_every_error_code() -> None:
    seen: set[str] = set()
    for v in PROTOCOL_VECTORS:
        for step in v.steps:
            for key in ("expect", "expect_each", "expect_some"):
                seen |= _codes(step.get(key))
    # `limit` needs a server configured to its limit (max_open matches in play)
    assert set(ErrorCode) - seen == {ErrorCode.LIMIT}


def test_gnubg_sublanguage_is_covered() -> None:
    sent = " ".join(str(step.get("send", step.get("send_raw", ""))).lower()
                    for v in GNUBG_VECTORS for step in v.steps)
    for word in ("version", "help", "set debug", "set interface", "board:", "resignation",
                 "evaluation fibsboard", "exit"):
        assert word in sent, word


# -- the rules core as the reference for positions, legal plays and moves -------------------

def _resolve(value: Any, dice: Any) -> Any:
    if isinstance(value, str):
        variant = start_variant(value)
        foreign = foreign_position(value)
        if variant is not None:
            if variant not in rules.VARIANTS:
                raise ProtocolError(ErrorCode.BAD_POSITION, "no such variant", field="position")
            pos = rules.Position.initial(variant)
        elif foreign is not None:
            pos = parse_foreign(foreign[2], foreign[0] or "backgammon")
        else:
            pos = rules.Position.from_id(value)
    else:
        pos = rules.Position.from_dict(value)
    return pos.with_dice(tuple(dice)) if dice else pos


def _play(play: Any) -> dict[str, Any]:
    out = {"move": play.move, "position_id": play.after.to_id(),
           "position": play.after.to_dict(), **foreign_ids(play.after), "hits": play.hits,
           "borne_off": play.borne_off}
    after = play.after
    if after.game_over():  # the mover (now the opponent) bore off its last checker
        points = game_result(after.rules, after.opp, after.me, after.primed[1])
        cube = after.cube.value if after.cube is not None else 1
        out["result"] = {"winner": "on_roll", "points": points * cube,
                         "name": result_name(after.rules, points)}
    return out


def _handle(cmd: str, args: dict[str, Any]) -> dict[str, Any]:
    pos = _resolve(args["position"], args.get("dice"))
    if cmd == "position":
        return {"position_id": pos.to_id(), "position": pos.to_dict(), **foreign_ids(pos),
                "may_double": not pos.dice and pos.may_double()}  # C2: before the roll
    if not pos.dice:
        raise ProtocolError(ErrorCode.BAD_ARGUMENT, "no dice", field="dice")
    if cmd == "legal_moves":
        plays = [_play(p) for p in rules.legal_plays(pos)]
        if args.get("compact"):  # compact play records (protocol 1.2)
            plays = [{"move": p["move"], "position_id": p["position_id"],
                      "board": format_board(p["position"]),
                      **({"result": p["result"]} if "result" in p else {})} for p in plays]
        return {"count": len(plays), "plays": plays}
    return _play(rules.apply_move(pos, args["move"]))


def reference(frame: bytes) -> Reply:
    """What a server built on the rules core answers (the daemon's error mapping)."""
    try:
        req = decode_request(frame)
    except ProtocolError as exc:
        return Reply.failure(exc.id, exc)
    try:
        return Reply.success(req.id, _handle(req.cmd, req.args))
    except ProtocolError as exc:
        return Reply.failure(req.id, exc)
    except rules.PositionError as exc:
        return Reply.failure(req.id, ProtocolError(ErrorCode.BAD_POSITION, exc.message,
                                                   field="position", rule=exc.rule))
    except rules.RulesError as exc:
        return Reply.failure(req.id, ProtocolError(ErrorCode.ILLEGAL_MOVE, exc.message,
                                                   field="move", rule=exc.rule))


REFERENCE_COMMANDS = {"position", "legal_moves", "apply_move"}
CHECKED = [v for v in PROTOCOL_VECTORS
           if all(_command(r)[1] in REFERENCE_COMMANDS for r in iter_requests(v))
           and all("send" in s or "expect" not in s or "id" in s for s in v.steps)
           and not any("send_raw" in s or "send_hex" in s for s in v.steps)]


def test_reference_covers_the_rules_vectors() -> None:
    names = {v.name for v in CHECKED}
    assert {"position/start", "position/refused-rules", "legal_moves/examples-jacquet",
            "legal_moves/examples-jacquet-be", "legal_moves/examples-backgammon",
            "apply_move/spellings", "apply_move/illegal", "apply_move/pass"} <= names


@pytest.mark.parametrize("vector", CHECKED, ids=lambda v: v.name)
def test_vector_agrees_with_the_rules_core(vector: Vector) -> None:
    variables: dict[str, Any] = {}
    for i, step in enumerate(vector.steps, 1):
        if "send" not in step:
            continue
        request = substitute(step["send"], variables)
        frame = msgpack.packb(request) if isinstance(request, dict) else request.encode()
        reply = reference(frame)
        got = ({"id": reply.id, "ok": True, "result": reply.result} if reply.ok
               else {"id": reply.id, "ok": False, "error": reply.error})
        if "expect" in step:
            problems = match(substitute(step["expect"], variables), got)
            assert not problems, f"step {i} ({step.get('about', request)}): {problems[:3]}"
        if "text" in step and isinstance(request, str):
            lines = encode_reply(reply, "text").decode().rstrip("\n").split("\n")
            problems = match(substitute(step["text"], variables), lines)
            assert not problems, f"step {i} text: {problems[:3]}"
        for name, path in step.get("capture", {}).items():
            variables[name] = lookup(got, path)


def test_gnubg_forced_moves_agree_with_the_rules_core() -> None:
    (vector,) = [v for v in GNUBG_VECTORS if v.name == "gnubg/forced-moves"]
    for step in vector.steps:
        pos = rules.parse_fibs_board(step["send"]).to_position()
        (only,) = rules.legal_plays(pos)
        assert format_move(only.move) == step["lines"][0] + "\n", step.get("about")
