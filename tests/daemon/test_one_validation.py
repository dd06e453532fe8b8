"""One validation per request: the rules core validates a `best_move` position once, in
the front, and the worker takes the validated position as it is (#13, point 2).

The request follows the daemon's own path: decoded by the codec, its arguments
completed by the command table, checked by the front (the command's `prepare` in the registry), sent
through a pickle round trip as the worker pipe does, and answered by the worker's
handler. Every call of `Position.validate` (the rules core's check of a position,
behind `from_dict`, `from_id`, `initial` and `validated`) is counted.
"""

from __future__ import annotations

import pickle
from typing import Any

import msgpack
import pytest
from jacquetd_protocol.codec import decode_request
from jacquetd_protocol.commands import arguments

from jacquetd.daemon import handlers, job_checks
from jacquetd.daemon.registry import ROUTES
from jacquetd.rules import Position

START = Position.initial("backgammon")
FRAMES = {
    "map": msgpack.packb({"id": 1, "cmd": "best_move", "position": START.to_dict(),
                         "dice": [3, 1], "level": "neural"}),
    "id": f"2 best_move {START.to_id()} 31 level=neural".encode(),
    "start": b"3 best_move start:backgammon 31 level=neural plies=1",
    "budget": b"4 best_move start:backgammon 42 time_ms=5000 level=neural-1",
}


@pytest.mark.parametrize("form", list(FRAMES))
def test_a_best_move_position_is_validated_once(form: str,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[Position] = []
    validate = Position.validate

    def counted(self: Position) -> None:
        calls.append(self)
        validate(self)

    monkeypatch.setattr(Position, "validate", counted)
    request = decode_request(FRAMES[form])  # the shape check is the protocol's, not a rule
    route = ROUTES[request.cmd]
    job = route.prepare(None, route.defaults | request.args)  # type: ignore[misc]  # the front
    job = pickle.loads(pickle.dumps(job))  # the worker pipe
    result: dict[str, Any] = handlers.run_worker_command(
        handlers.WorkerState(1), request.cmd, job, None, None, lambda: False,
        lambda partial: None)  # the worker
    assert result["play"]["move"]
    assert len(calls) == 1, f"{len(calls)} validations"


def test_the_worker_still_reads_a_structured_position() -> None:
    pos = job_checks.job_position({"position": START.to_dict()})
    assert pos == START


MATCH_FRAMES = {
    "msgpack": msgpack.packb({"id": 5, "cmd": "match_new", "variant": "backgammon",
                             "seat1": "random", "length": 3}),
    "text": b"6 match_new backgammon 3 seat1=random",
}


@pytest.mark.parametrize("form", list(MATCH_FRAMES))
def test_match_arguments_are_validated_once_by_the_command_table(
        form: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    """The codec validates a match command's arguments by the protocol's table; the match
    service, called as the daemon calls it, does not validate them again."""
    from jacquetd_protocol import codec, commands, text_wire

    from jacquetd.matches import Caller, MatchService, MatchStore
    from jacquetd.matches import service as match_service

    calls: list[str] = []
    real = commands.validate_args

    def counted(cmd: commands.Command, raw: Any) -> dict[str, Any]:
        calls.append(cmd.name)
        return real(cmd, raw)

    for module in (codec, text_wire, match_service):
        monkeypatch.setattr(module, "validate_args", counted)
    request = decode_request(MATCH_FRAMES[form])
    svc = MatchService(MatchStore(tmp_path / "m.db"))
    try:
        reply = svc.handle(request.cmd, arguments(request), Caller("peer", 1), checked=True)
        assert reply["match_id"] and calls == ["match_new"]
        calls.clear()  # a direct caller's arguments go through the same table, once
        svc.handle("match_new", {"variant": "backgammon", "seat1": "random"})
        assert calls == ["match_new"]
    finally:
        svc.close()
