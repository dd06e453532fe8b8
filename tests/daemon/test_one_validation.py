"""One validation per request, end to end through `Service.handle` (#13, point 2).

A real `Service` with the daemon's own worker pool (and, for the match commands, its
hosted matches on a database of the test), built by `Daemon` as `jacquetd serve`
builds them, answers requests decoded by the codec as an endpoint decodes them:

- a `best_move` position is validated once, by the rules core in the front, and the
  worker is handed the validated `Position` (it crosses the pipe as it is; the worker
  reads nothing: `job_checks.job_position`);
- a match command's arguments are validated once, by the protocol's command table in
  the codec; the match service, called by the daemon, does not validate them again.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgpack
import pytest
from jacquetd_protocol import codec, commands, text_wire
from jacquetd_protocol.codec import decode_request
from jacquetd_protocol.messages import Reply

from jacquetd.daemon import hosted, job_checks
from jacquetd.daemon.config import Config
from jacquetd.daemon.server import Daemon
from jacquetd.matches import service as match_service
from jacquetd.rules import Position

START = Position.initial("backgammon")
FRAMES = {
    "map": msgpack.packb({"id": 1, "cmd": "best_move", "position": START.to_dict(),
                         "dice": [3, 1], "level": "neural"}),
    "id": f"2 best_move {START.to_id()} 31 level=neural".encode(),
    "start": b"3 best_move start:backgammon 31 level=neural plies=1",
    "budget": b"4 best_move start:backgammon 42 time_ms=5000 level=neural-1",
}
#: Two human seats: no bot seat starts to play in the background of the test.
MATCH_FRAMES = {
    "msgpack": msgpack.packb({"id": 5, "cmd": "match_new", "variant": "backgammon",
                             "length": 3}),
    "text": b"6 match_new backgammon 3",
}


class _Peer:
    """A client of the service: it keeps what the service delivers."""

    key = "test-peer"
    partials = True

    def __init__(self) -> None:
        self.replies: asyncio.Queue[Any] = asyncio.Queue()

    def deliver(self, message: Any, encoding: str) -> None:
        self.replies.put_nowait(message)

    def end_session(self) -> None:
        pass


@pytest.fixture(scope="module")
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    loop = asyncio.new_event_loop()
    yield loop
    loop.close()


@pytest.fixture(scope="module")
def daemon(loop: asyncio.AbstractEventLoop,
           tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    """The daemon's service, worker pool and hosted matches, without endpoints or
    replicas (front commands run in this process, where the counters are)."""
    db: Path = tmp_path_factory.mktemp("one-validation") / "matches.db"
    cfg = Config(zmq_bind=None, tcp=None, gnubg=None, ws=None, workers=1, replicas=0,
                 db=str(db))

    async def start() -> Daemon:
        d = Daemon(cfg)
        d.pool.start()
        d.service.matches = await hosted.open_matches(cfg, d.pool)
        return d

    d = loop.run_until_complete(start())
    yield d

    async def stop() -> None:
        await hosted.stop_bots(d.service.matches)
        await hosted.close_matches(d.service.matches)
        await d.pool.close()

    loop.run_until_complete(stop())


def _ask(daemon: Daemon, loop: asyncio.AbstractEventLoop, frame: bytes) -> Reply:
    async def ask() -> Any:
        peer = _Peer()
        daemon.service.handle(peer, decode_request(frame, daemon.cfg.limits))
        return await asyncio.wait_for(peer.replies.get(), 300)

    reply = loop.run_until_complete(ask())
    assert isinstance(reply, Reply), reply
    return reply


@pytest.mark.parametrize("form", list(FRAMES))
def test_a_best_move_position_is_validated_once(form: str, daemon: Daemon,
                                               loop: asyncio.AbstractEventLoop,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[Position] = []
    validate = Position.validate

    def counted(self: Position) -> None:
        calls.append(self)
        validate(self)

    monkeypatch.setattr(Position, "validate", counted)
    jobs: list[dict[str, Any]] = []
    submit = daemon.pool.submit

    def submitted(cmd: str, args: dict[str, Any], **k: Any) -> Any:
        jobs.append(args)
        return submit(cmd, args, **k)

    monkeypatch.setattr(daemon.pool, "submit", submitted)
    reply = _ask(daemon, loop, FRAMES[form])
    assert reply.ok and reply.result is not None, reply.error
    assert reply.result["play"]["move"]
    assert len(calls) == 1, f"{len(calls)} validations"
    # the worker is handed the position validated here (with the request's dice), and
    # reads nothing of it
    assert len(jobs) == 1 and isinstance(jobs[0]["position"], Position)
    assert jobs[0]["position"].without_dice() == calls[0].without_dice()
    assert job_checks.job_position(jobs[0]) is jobs[0]["position"]


def test_the_worker_still_reads_a_structured_position() -> None:
    pos = job_checks.job_position({"position": START.to_dict()})
    assert pos == START


@pytest.mark.parametrize("form", list(MATCH_FRAMES))
def test_match_arguments_are_validated_once_by_the_command_table(
        form: str, daemon: Daemon, loop: asyncio.AbstractEventLoop,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The codec validates a match command's arguments by the protocol's table; the match
    service, called by the daemon's service, does not validate them again."""
    calls: list[str] = []
    real = commands.validate_args

    def counted(cmd: commands.Command, raw: Any) -> dict[str, Any]:
        calls.append(cmd.name)
        return real(cmd, raw)

    for module in (codec, text_wire, match_service):
        monkeypatch.setattr(module, "validate_args", counted)
    reply = _ask(daemon, loop, MATCH_FRAMES[form])
    assert reply.ok and reply.result is not None, reply.error
    assert reply.result["match_id"] and calls == ["match_new"]
    calls.clear()  # a direct caller's arguments go through the same table, once
    assert daemon.service.matches is not None
    daemon.service.matches.service.handle("match_new", {"variant": "backgammon"})
    assert calls == ["match_new"]
