"""One position reader: every form of a position argument is read once per request.

Each request is decoded by the codec as an endpoint decodes it and answered by a real
`Service` (with the daemon's own worker pool, started as `jacquetd serve` starts it)
through `Service.handle`. The command's lookups are counted too: the codec's
(`find_entry`, in the daemon's table, which holds the routes) is the one; the service
takes the route it found. The readers of a position are counted: the codec's shape
check of a map and its reading of a board literal, the daemon's one reader
(`resolve_position`), the rules core's readers (`Position.from_dict`, `from_id`,
`initial`, the backgammon notations' `parse_foreign`) and the rules core's validation
(`Position.validate`). Counting wraps them; what runs is the daemon's own path. (The
codec tells a board literal from the other words by their shape, `is_board_literal`:
that is a check of the value's kind, not a reading.)
"""

from __future__ import annotations

import asyncio
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import msgpack
import pytest
from jacquetd_protocol import codec as protocol_codec
from jacquetd_protocol import commands as protocol_commands
from jacquetd_protocol import positions as protocol_positions
from jacquetd_protocol import text_wire as protocol_text
from jacquetd_protocol.codec import decode_request
from jacquetd_protocol.messages import Reply

from jacquetd.daemon import positions as daemon_positions
from jacquetd.daemon import registry
from jacquetd.daemon import service as daemon_service
from jacquetd.daemon.config import Config
from jacquetd.daemon.server import Daemon
from jacquetd.rules import Position, interchange

START = Position.initial("backgammon")
GNUBG = "4HPwATDgc/ABMA:8IluACAACAAE"
XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:53:1:2:1:3:10"
FIBS = ("board:You:Opponent:3:1:2:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:"
        "0:1:5:3:0:0:1:0:0:0:1:-1:0:25:0:0:0:0:0:0:0:0")
LITERAL = "backgammon/24:2,13:5,8:3,6:5/24:2,13:5,8:3,6:5/-/00"

#: Each form, as a position argument, with the rules core's reader it takes.
FORMS: dict[str, tuple[Any, str]] = {
    "map": (START.to_dict(), "from_dict"),
    "position id": (START.to_id(), "from_id"),
    "gnubg id": (GNUBG, "parse_foreign"),
    "gnubg id after VARIANT:": ("backgammon:" + GNUBG, "parse_foreign"),
    "XGID": (XGID, "parse_foreign"),
    "FIBS board": (FIBS, "parse_foreign"),
    "start": ("start", "initial"),  # read by start_variant, then built by initial
    "start:VARIANT": ("start:backgammon", "initial"),
    "board literal": (LITERAL, "from_dict"),
}
#: The commands asked, one of each kind of route: answered in the front (`position`),
#: in the front by a packed reply writer or a result map (`legal_moves`, msgpack or
#: text), and by a worker after the front has prepared the job (`best_move`).
COMMANDS = {
    "position": {},
    "legal_moves": {"dice": [3, 1]},
    "best_move": {"dice": [3, 1], "level": "heuristic"},
}


class _Peer:
    """A client of the service: it collects what the service delivers."""

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
def daemon(loop: asyncio.AbstractEventLoop) -> Iterator[Daemon]:
    """The daemon's service and worker pool, without endpoints, replicas or matches:
    every front command runs in this process, where the counters are."""
    cfg = Config(zmq_bind=None, tcp=None, gnubg=None, ws=None, workers=1, replicas=0,
                 db=None)

    async def start() -> Daemon:
        d = Daemon(cfg)
        d.pool.start()
        return d

    d = loop.run_until_complete(start())
    yield d
    loop.run_until_complete(d.pool.close())


def _frame(cmd: str, position: Any, args: dict[str, Any], encoding: str) -> bytes:
    if encoding == "msgpack":
        return msgpack.packb({"id": 1, "cmd": cmd, "position": position, **args})
    words = [f"{k}={v}" if k != "dice" else f"{v[0]}{v[1]}" for k, v in args.items()]
    return " ".join(["1", cmd, position, *words]).encode()


def _counting(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Wrap every reader of a position; the counter says how often each ran."""
    calls: Counter[str] = Counter()

    def wrap(name: str, real: Callable[..., Any]) -> Callable[..., Any]:
        def counted(*a: Any, **k: Any) -> Any:
            calls[name] += 1
            return real(*a, **k)
        return counted

    for name in ("check_position_map", "parse_board"):  # the codec's (and a literal's)
        monkeypatch.setattr(protocol_positions, name,
                            wrap(name, getattr(protocol_positions, name)))
    monkeypatch.setattr(daemon_positions, "parse_board",
                        wrap("parse_board", daemon_positions.parse_board))
    monkeypatch.setattr(daemon_positions, "parse_foreign",
                        wrap("parse_foreign", interchange.parse_foreign))
    for name in ("start_variant", "foreign_position"):  # the words' readers, wherever named
        real = getattr(protocol_positions, name)
        for module in (protocol_positions, protocol_commands, daemon_positions):
            if getattr(module, name, None) is real:
                monkeypatch.setattr(module, name, wrap(name, real))
    one = daemon_positions.resolve_position
    counted_one = wrap("resolve_position", one)
    for module in list(sys.modules.values()):  # wherever the daemon imported it by name
        if getattr(module, "resolve_position", None) is one:
            monkeypatch.setattr(module, "resolve_position", counted_one)
    for name in ("from_dict", "from_id", "initial"):
        real = getattr(Position, name)
        monkeypatch.setattr(Position, name, classmethod(
            wrap(name, lambda cls, *a, _real=real, **k: _real(*a, **k))))
    monkeypatch.setattr(Position, "validate", wrap("validate", Position.validate))
    for module in (protocol_codec, protocol_text, protocol_commands):  # a command's lookups
        monkeypatch.setattr(module, "find_entry", wrap("find_entry", module.find_entry))

    class CountedRoutes(dict[str, registry.Route]):
        def get(self, key: str, default: Any = None) -> Any:
            calls["ROUTES"] += 1
            return super().get(key, default)

        def __getitem__(self, key: str) -> registry.Route:
            calls["ROUTES"] += 1
            return super().__getitem__(key)

    monkeypatch.setattr(daemon_service, "ROUTES", CountedRoutes(registry.ROUTES))
    return calls


def _ask(daemon: Daemon, loop: asyncio.AbstractEventLoop, frame: bytes) -> Any:
    async def ask() -> Any:
        peer = _Peer()
        # decoded as the endpoints decode: in the daemon's table of routes
        daemon.service.handle(peer, decode_request(frame, daemon.cfg.limits,
                                                   table=registry.TABLE))
        return await asyncio.wait_for(peer.replies.get(), 120)

    return loop.run_until_complete(ask())


def _ok(reply: Any) -> bool:
    if isinstance(reply, Reply):
        return reply.ok
    body = msgpack.unpackb(reply.body)  # a packed reply, written by the front
    return body["ok"] is True


@pytest.mark.parametrize("form", list(FORMS))
@pytest.mark.parametrize("cmd", list(COMMANDS))
@pytest.mark.parametrize("encoding", ["msgpack", "text"])
def test_each_form_is_read_once(form: str, cmd: str, encoding: str, daemon: Daemon,
                                loop: asyncio.AbstractEventLoop,
                                monkeypatch: pytest.MonkeyPatch) -> None:
    value, reader = FORMS[form]
    if encoding == "text" and not isinstance(value, str):
        pytest.skip("a map travels in msgpack or JSON only")
    jobs: list[dict[str, Any]] = []
    submit = daemon.pool.submit

    def submitted(cmd: str, args: dict[str, Any], **k: Any) -> Any:
        jobs.append(args)
        return submit(cmd, args, **k)

    monkeypatch.setattr(daemon.pool, "submit", submitted)
    calls = _counting(monkeypatch)
    reply = _ask(daemon, loop, _frame(cmd, value, COMMANDS[cmd], encoding))
    assert _ok(reply), reply
    more = {"map": {"check_position_map": 1},  # the codec's shape check
            "board literal": {"parse_board": 1, "check_position_map": 1},  # read by the codec
            "start": {"start_variant": 1}, "start:VARIANT": {"start_variant": 1},
            "position id": {"foreign_position": 1},  # not a notation: then an id
            }.get(form, {"foreign_position": 1})  # the notations
    assert calls == Counter({"find_entry": 1, "resolve_position": 1, reader: 1,
                             "validate": 1, **more})
    if cmd == "best_move":  # the worker takes the position the front read, as it is
        assert len(jobs) == 1 and isinstance(jobs[0]["position"], Position)


@pytest.mark.parametrize(("position", "field", "rule"), [
    ("start:", "position", None),
    ("start:chess", "position", None),
    ("AAAA", "position", None),
    ("jacquet:" + GNUBG, "position", None),
    ({**START.to_dict(), "on_roll": [0] * 25}, "position.on_roll", None),
    ({**START.to_dict(), "cube": {"value": 2}}, "position.cube.owner", None),
    ({**START.to_dict(), "variant": None}, "position.variant", None),
    ("backgammon/24:3,13:5,8:3,6:5/24:2,13:5,8:3,6:5/-/00", "position", "J1"),
])
def test_a_refused_position_is_read_once_too(position: Any, field: str, rule: str | None,
                                              daemon: Daemon,
                                              loop: asyncio.AbstractEventLoop,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _counting(monkeypatch)
    try:
        reply = _ask(daemon, loop, _frame("position", position, {}, "msgpack"))
    except Exception as exc:  # refused by the codec: the daemon never reads it
        reply = Reply.failure(1, exc)  # type: ignore[arg-type]
        assert calls["resolve_position"] == 0
    else:
        assert calls["resolve_position"] == 1
    assert isinstance(reply, Reply) and not reply.ok and reply.error is not None
    assert (reply.error["code"], reply.error.get("field"), reply.error.get("rule")) == (
        "bad_position", field, rule)
    assert calls["validate"] <= 1
