"""The play records of `legal_moves`, `apply_move` and the fields of `position` are the
very bytes the straightforward records give.

The daemon writes each play's record from the play's spelling and sides through the
frame's id writer (daemon/plays.py, rules/idwriter.py) instead of building a `Play`,
its position after and each id on its own. The straightforward record, written out
here as the daemon wrote it before, is the reference: both are encoded (msgpack and
JSON, keys in order) and compared byte for byte, on positions of random games of
every variant (hits, bear-offs, game-ending plays with their result), with cube and
match fields, primed flags, by the compiled generator and by the pure one.
"""

from __future__ import annotations

import json
import random
from typing import Any

import msgpack
import pytest
from jacquetd_protocol.codec import encode_reply
from jacquetd_protocol.messages import Reply
from jacquetd_protocol.positions import format_board

from jacquetd.daemon import plays as daemon_plays
from jacquetd.daemon.front_commands import (
    handle_apply_move,
    handle_legal_moves,
    handle_position,
)
from jacquetd.daemon.positions import position_fields
from jacquetd.daemon.registry import ROUTES, packed_reply
from jacquetd.rules import Cube, CubeOwner, MatchState, Play, Position, PositionError, legal_plays
from jacquetd.rules.interchange import foreign_ids

VARIANTS = ["jacquet", "jacquet-be", "backgammon"]


def _fields(p: Position) -> dict[str, Any]:
    return {"position_id": p.to_id(), "position": p.to_dict(), **foreign_ids(p)}


def _result(play: Play) -> dict[str, Any]:
    raw = play.raw
    return {"result": daemon_plays.result_of(play.before, raw.me, raw.opp)} if raw.me[0] == 15 \
        else {}


def _record(play: Play) -> dict[str, Any]:
    return {"move": play.move, **_fields(play.after), "hits": play.hits,
            "borne_off": play.borne_off, **_result(play)}


def _compact(play: Play) -> dict[str, Any]:
    return {"move": play.move, "position_id": play.after.to_id(),
            "board": format_board(play.after.to_dict()), **_result(play)}


def _bytes(value: Any) -> tuple[bytes, str]:
    return msgpack.packb(value), json.dumps(value)


def _framed(p: Position, rng: random.Random) -> Position:
    """`p` with a random cube and match state when they are valid for it."""
    cube = None
    if rng.random() < 0.7:
        value = 1 << rng.randint(0, 6)
        cube = Cube(value, CubeOwner.CENTRE if value == 1 else rng.choice(
            [CubeOwner.ON_ROLL, CubeOwner.OPPONENT]))
    match = None
    if rng.random() < 0.5:
        length = rng.choice([3, 7, 15])
        score = (rng.randrange(length), rng.randrange(length))
        crawford = length - 1 in score and rng.random() < 0.5
        match = MatchState(length, score, crawford)
        if crawford:
            cube = Cube()
    try:
        return Position.validated(p.variant, p.me, p.opp, p.dice, p.primed, cube, match)
    except PositionError:
        return p


def _game_positions(variant: str, seed: int, count: int, skip: int = 0) -> list[Position]:
    """Positions with dice from whole random games (to their ends), under random frames:
    `count` of them after the first `skip` (random games bear off after 80-250 turns)."""
    rng = random.Random(seed)
    out: list[Position] = []
    pos = Position.initial(variant)
    while len(out) < count + skip:
        pos = _framed(pos.with_dice((rng.randint(1, 6), rng.randint(1, 6))), rng)
        out.append(pos)
        after = rng.choice(legal_plays(pos)).after
        pos = Position.initial(variant) if after.game_over() else after
    return out[skip:]


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "pure"])
@pytest.mark.parametrize("variant", VARIANTS)
def test_legal_moves_records_are_the_straightforward_bytes(
        variant: str, compiled: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    if not compiled:
        monkeypatch.setattr(daemon_plays, "_fastgen", None)
    elif daemon_plays.compiled_generator() is None:
        pytest.skip("the compiled generator is not available")
    seen = {"hits": 0, "borne_off": 0, "result": 0}
    for pos in (_game_positions(variant, 7, 600) if compiled
                else _game_positions(variant, 7, 100, skip=200)):
        pure = legal_plays(pos)
        for compact, reference in ((False, _record), (True, _compact)):
            got = daemon_plays.play_records(pos, compact)
            assert _bytes(got) == _bytes([reference(p) for p in pure]), pos.to_id()
        for record in daemon_plays.play_records(pos):
            seen["hits"] += record["hits"] > 0
            seen["borne_off"] += record["borne_off"] > 0
            seen["result"] += "result" in record
    if variant == "jacquet-be":  # no hitting in jacquet-be
        del seen["hits"]
    assert all(seen.values()), seen


@pytest.mark.parametrize("variant", VARIANTS)
def test_handlers_give_the_straightforward_bytes(variant: str) -> None:
    rng = random.Random(variant)
    for pos in _game_positions(variant, 11, 60):
        for form in (pos.to_id(), pos.to_dict()):
            # `position` adds whether the side on roll may double now (C2: before its roll)
            assert _bytes(handle_position(None, {"position": form})) == _bytes(
                {**_fields(pos), "may_double": not pos.dice and pos.may_double()}
            )  # type: ignore[arg-type]
        play = rng.choice(legal_plays(pos))
        got = handle_apply_move(None, {"position": pos.to_id(), "move": play.move or "pass"})  # type: ignore[arg-type]
        assert _bytes(got) == _bytes(_record(play))
        for compact in (False, True):
            got = handle_legal_moves(None, {"position": pos.to_id(), "compact": compact})  # type: ignore[arg-type]
            want = [(_compact if compact else _record)(p) for p in legal_plays(pos)]
            assert _bytes(got) == _bytes({"count": len(want), "plays": want})
        assert position_fields(pos) == _fields(pos)


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "pure"])
@pytest.mark.parametrize("variant", VARIANTS)
def test_the_msgpack_legal_moves_reply_written_directly_is_the_encoded_map(
        variant: str, compiled: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """daemon/packed_plays.py writes the msgpack reply without the result map: the very
    bytes of the map's encoding, for every form of the position, any request id, games to
    their ends (results) under random cube and match frames."""
    if not compiled:
        monkeypatch.setattr(daemon_plays, "_fastgen", None)
    elif daemon_plays.compiled_generator() is None:
        pytest.skip("the compiled generator is not available")
    results = 0
    positions = (_game_positions(variant, 13, 400) if compiled
                 else _game_positions(variant, 13, 60, skip=200))
    for i, pos in enumerate(positions):
        request_id = (i, f"req-{i}", None, 2**40 + i)[i % 4]
        forms: list[dict[str, Any]] = [{"position": pos.to_id()}, {"position": pos.to_dict()}]
        for args in forms:
            body = packed_reply("legal_moves", request_id, args, "msgpack")
            result = handle_legal_moves(None, args)  # type: ignore[arg-type]
            assert body == encode_reply(Reply.success(request_id, result), "msgpack"), \
                pos.to_id()
        results += any("result" in play for play in result["plays"])
    assert results or not compiled  # game-ending plays were among the longer sample
    start = {"position": f"start:{variant}", "dice": [3, 1]}
    assert packed_reply("legal_moves", 1, start, "msgpack") == encode_reply(
        Reply.success(1, handle_legal_moves(None, start)), "msgpack")  # type: ignore[arg-type]


def test_only_full_msgpack_legal_moves_replies_are_written_directly() -> None:
    args: dict[str, Any] = {"position": "start:backgammon", "dice": [3, 1]}
    assert packed_reply("legal_moves", 1, args, "msgpack") is not None
    assert packed_reply("legal_moves", 1, {**args, "compact": True}, "msgpack") is None
    assert packed_reply("legal_moves", 1, args, "json") is None
    assert packed_reply("legal_moves", 1, args, "text") is None
    assert packed_reply("position", 1, args, "msgpack") is None


def test_the_direct_writer_raises_what_the_handler_raises() -> None:
    from jacquetd_protocol.errors import ProtocolError

    for args in ({"position": "start:backgammon"},  # no dice
                 {"position": "start:nothing", "dice": [3, 1]}):
        with pytest.raises(ProtocolError) as direct:
            packed_reply("legal_moves", 1, args, "msgpack")
        with pytest.raises(ProtocolError) as mapped:  # the handler as the daemon calls it
            ROUTES["legal_moves"].front(None, args)  # type: ignore[arg-type,misc]
        assert direct.value.to_dict() == mapped.value.to_dict()
        assert direct.value.to_dict()["usage"].startswith("legal_moves POSITION")
