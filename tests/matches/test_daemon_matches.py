"""Hosted matches through the real daemon, over real sockets (ZeroMQ DEALER and plain TCP):
whole matches between two clients (one replaying a recorded match move by move), tokens,
a watcher that reconnects, a bot seat played by the daemon's workers."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import zmq
from jacquetd_protocol.codec import encode_request
from jacquetd_protocol.errors import ErrorCode, ProtocolError
from jacquetd_protocol.messages import Partial, Reply, Request
from jacquetd_protocol.records import body_lines, parse_record

from tests.conftest import DaemonProcess
from tests.daemon.wire import TcpClient, ZmqClient

from .scripted import decide

EXAMPLE = Path(__file__).parent / "data" / "example.mat"
_ids = itertools.count(1)


class Player:
    """A blocking client of the match commands over ZeroMQ or TCP (msgpack)."""

    def __init__(self, daemon: DaemonProcess, transport: str, identity: bytes | None = None
                 ) -> None:
        self.transport = transport
        if transport == "zmq":
            self.zmq: ZmqClient | None = ZmqClient(daemon.zmq, identity=identity)
            self.tcp: TcpClient | None = None
        else:
            self.zmq, self.tcp = None, TcpClient(daemon.tcp, timeout=30.0)

    def send(self, cmd: str, rid: Any = None, **args: Any) -> Any:
        rid = next(_ids) if rid is None else rid
        if self.zmq is not None:
            self.zmq.send(cmd, id=rid, **args)
        else:
            assert self.tcp is not None
            self.tcp.send_bytes(encode_request(Request(rid, cmd, args, "msgpack")))
        return rid

    def recv(self, timeout: float = 30.0) -> Reply | Partial:
        if self.zmq is not None:
            return self.zmq.recv(timeout)
        assert self.tcp is not None
        return self.tcp.recv()

    def call(self, cmd: str, **args: Any) -> dict[str, Any]:
        rid = self.send(cmd, **args)
        while True:
            msg = self.recv()
            if isinstance(msg, Reply):
                assert msg.id == rid
                if not msg.ok:
                    assert msg.error is not None
                    raise ProtocolError.from_dict(msg.error)
                assert msg.result is not None
                return msg.result

    def close(self) -> None:
        if self.zmq is not None:
            self.zmq.close()
        if self.tcp is not None:
            self.tcp.close()


@pytest.fixture
def daemon(start_jacquetd: Callable[..., DaemonProcess], tmp_path: Path) -> DaemonProcess:
    return start_jacquetd("--workers", "1", "--gnubg", "off", "--db",
                          str(tmp_path / "matches.sqlite3"))


@pytest.fixture
def players(daemon: DaemonProcess) -> Iterator[Callable[[str], Player]]:
    made: list[Player] = []

    def make(transport: str, identity: bytes | None = None) -> Player:
        p = Player(daemon, transport, identity)
        made.append(p)
        return p

    yield make
    for p in made:
        p.close()


def _act(player: Player, match_id: str, token: str, kind: str, action: Any) -> dict[str, Any]:
    base = {"match_id": match_id, "token": token}
    if kind == "roll":
        return player.call("match_roll", **base, dice=list(action.dice))
    if kind == "move":
        return player.call("match_move", **base, move=action.move or "pass")
    if kind == "resign":
        return player.call("match_resign", **base, points=str(action.value))
    if kind in ("accept", "reject"):
        return player.call("match_resign", **base, answer=kind)
    return player.call(f"match_{kind}", **base)


def test_two_clients_replay_a_recorded_match_to_its_end(players: Callable[..., Player]
                                                        ) -> None:
    record = parse_record(EXAMPLE.read_text())
    ann, bob = players("zmq"), players("tcp")
    seat = {0: ann, 1: bob}
    new = ann.call("match_new", variant=record.variant, length=record.length,
                   cube=record.cube, dice="supplied", name0="ann", name1="bob")
    mid, tokens = new["match_id"], new["tokens"]
    moves = 0
    for game in record.games:
        assert game.opening is not None
        ann.call("match_roll", match_id=mid, token=tokens[0], dice=list(game.opening))
        for action in game.actions:
            reply = _act(seat[action.side], mid, tokens[action.side], action.kind, action)
            moves += action.kind == "move"
            assert reply["status"] in ("playing", "over")
    state = bob.call("match_state", match_id=mid, token=tokens[1])
    assert (state["status"], state["winner"], state["score"]) == ("over", 1, [0, 3])
    assert state["you"] == 1 and moves > 5
    exported = parse_record(ann.call("match_export", match_id=mid)["record"])
    assert body_lines(exported.games) == body_lines(record.games)
    assert exported.headers["Result"] == "1"


def test_two_scripted_clients_play_a_seeded_backgammon_match(players: Callable[..., Player]
                                                              ) -> None:
    ann, bob = players("tcp"), players("zmq")
    new = ann.call("match_new", variant="backgammon", length=3, seed=424242)
    mid, tokens = new["match_id"], new["tokens"]
    seat = {0: ann, 1: bob}
    for _ in range(3000):
        state = ann.call("match_state", match_id=mid)
        if state["status"] != "playing":
            break
        side = state["to_act"]
        cmd, extra = decide(state, side, 7)
        seat[side].call(cmd, match_id=mid, token=tokens[side], **extra)
    final = bob.call("match_state", match_id=mid)
    assert final["status"] == "over" and max(final["score"]) >= 3
    assert final["seed"] == 424242  # revealed once over


def test_a_wrong_token_cannot_move(players: Callable[..., Player]) -> None:
    ann = players("zmq")
    new = ann.call("match_new", variant="backgammon", dice="supplied")
    mid, tokens = new["match_id"], new["tokens"]
    ann.call("match_roll", match_id=mid, token=tokens[0], dice=[3, 1])
    for token, code in (("nottherighttoken", ErrorCode.FORBIDDEN),
                        (new["owner_token"], ErrorCode.FORBIDDEN),
                        (tokens[1], ErrorCode.OUT_OF_TURN)):
        with pytest.raises(ProtocolError) as info:
            ann.call("match_move", match_id=mid, token=token, move="8/5 6/5")
        assert info.value.code == code
    with pytest.raises(ProtocolError) as info:
        ann.call("match_move", match_id=mid, move="8/5 6/5")
    assert info.value.code == ErrorCode.BAD_ARGUMENT and info.value.field == "token"
    state = ann.call("match_state", match_id=mid)
    assert state["phase"] == "move" and state["actions"] == 1  # nothing was applied
    ann.call("match_move", match_id=mid, token=tokens[0], move="8/5 6/5")


def _drain(watcher: Player, rid: Any, into: list[dict[str, Any]]) -> bool:
    """Read what the watcher has been sent so far; True when the final reply came."""
    while True:
        if watcher.zmq is not None:
            if not watcher.zmq.sock.poll(300):
                return False
            msg = watcher.recv()
        else:
            assert watcher.tcp is not None
            watcher.tcp.sock.settimeout(0.3)
            try:
                msg = watcher.recv()
            except TimeoutError:
                return False
            finally:
                watcher.tcp.sock.settimeout(30.0)
        assert msg.id == rid and msg.result is not None, msg
        into.extend(msg.result["events"])
        if isinstance(msg, Reply):
            assert msg.ok and msg.result["done"] and msg.result["status"] == "over"
            return True


def test_a_watcher_sees_every_event_once_in_order_across_reconnections(
        players: Callable[..., Player]) -> None:
    ann, bob = players("zmq"), players("tcp")
    new = ann.call("match_new", variant="jacquet-be", length=3, seed=99)
    mid, tokens = new["match_id"], new["tokens"]
    seen: list[dict[str, Any]] = []
    watcher = players("zmq")
    rid = watcher.send("match_watch", match_id=mid)
    seat = {0: ann, 1: bob}
    reconnects = 0
    for step in range(3000):
        state = ann.call("match_state", match_id=mid)
        if state["status"] != "playing":
            break
        side = state["to_act"]
        cmd, extra = decide(state, side, 3)
        seat[side].call(cmd, match_id=mid, token=tokens[side], **extra)
        if step % 25 == 24:  # the watcher drops its connection, resumes from its last event
            assert not _drain(watcher, rid, seen)
            watcher.close()
            reconnects += 1
            watcher = players("tcp" if reconnects % 2 else "zmq")
            rid = watcher.send("match_watch", match_id=mid, after=seen[-1]["n"] if seen else 0)
    assert reconnects >= 2
    deadline = time.monotonic() + 30
    while not _drain(watcher, rid, seen):
        assert time.monotonic() < deadline
    assert [e["n"] for e in seen] == list(range(1, len(seen) + 1))
    everything = ann.call("match_watch", match_id=mid, follow=False)
    assert seen == everything["events"] and everything["done"]
    assert seen[-1]["type"] == "match_over"


def test_a_bot_seat_plays_a_whole_match_against_a_scripted_client(
        players: Callable[..., Player]) -> None:
    ann = players("zmq")
    new = ann.call("match_new", variant="backgammon", length=3, seat1="heuristic",
                   seed=2024, bot_time_ms=2000)
    mid, token = new["match_id"], new["tokens"][0]
    assert new["tokens"][1] is None
    deadline = time.monotonic() + 240
    bot_moves = 0
    while time.monotonic() < deadline:
        state = ann.call("match_state", match_id=mid, token=token)
        if state["status"] != "playing":
            break
        if state["to_act"] != 0:
            ann.call("match_watch", match_id=mid, after=state["last_event"], follow=False)
            time.sleep(0.02)
            continue
        cmd, extra = decide(state, 0, 11)
        try:
            ann.call(cmd, match_id=mid, token=token, **extra)
        except ProtocolError as exc:  # the bot acted in between (a resignation answered)
            assert exc.code in (ErrorCode.OUT_OF_TURN, ErrorCode.BAD_STATE), exc
    events = ann.call("match_watch", match_id=mid, follow=False, limit=1000)["events"]
    bot_moves = sum(1 for e in events if e["type"] == "move" and e["side"] == 1)
    final = ann.call("match_state", match_id=mid)
    assert final["status"] == "over", final["phase"]
    assert bot_moves > 5
    with pytest.raises(ProtocolError) as info:
        ann.call("match_roll", match_id=mid, token=token)
    assert info.value.code == ErrorCode.MATCH_OVER


def test_a_req_socket_gets_one_reply_to_a_watch(daemon: DaemonProcess,
                                                players: Callable[..., Player]) -> None:
    ann = players("tcp")
    new = ann.call("match_new", variant="jacquet", seed=5)
    ctx = zmq.Context.instance()
    req = ctx.socket(zmq.REQ)
    req.setsockopt(zmq.LINGER, 0)
    req.connect(daemon.zmq)
    try:
        req.send(encode_request(Request(1, "match_watch", {"match_id": new["match_id"]},
                                        "msgpack")))
        assert req.poll(10_000)
        from jacquetd_protocol.codec import decode_reply

        reply = decode_reply(req.recv())
        assert isinstance(reply, Reply) and reply.ok and reply.result is not None
        assert [e["n"] for e in reply.result["events"]] == [1, 2, 3]
        assert reply.result["done"] is False
    finally:
        req.close(0)
