"""One validation per request: the rules core validates a `best_move` position once, in
the front, and the worker takes the validated position as it is (#13, point 2).

The request follows the daemon's own path: decoded by the codec, its arguments
completed by the command table, checked by the front (`handlers.prepare`), sent
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

from jacquetd.daemon import handlers
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
    job = handlers.prepare(request.cmd, arguments(request))  # the front
    job = pickle.loads(pickle.dumps(job))  # the worker pipe
    result: dict[str, Any] = handlers.run_worker_command(
        request.cmd, job, None, 1, lambda: False, lambda partial: None)  # the worker
    assert result["play"]["move"]
    assert len(calls) == 1, f"{len(calls)} validations"


def test_the_worker_still_reads_a_structured_position() -> None:
    pos = handlers.job_position({"position": START.to_dict()})
    assert pos == START
