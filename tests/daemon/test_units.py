"""Daemon parts without sockets: configuration, the gnubg line language, stats, errors."""

from __future__ import annotations

import copy
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jacquetd_protocol import gnubg_wire
from jacquetd_protocol.errors import ErrorCode, ProtocolError

from jacquetd.bots.interface import UnknownLevel
from jacquetd.daemon import gnubg
from jacquetd.daemon import plays as daemon_plays
from jacquetd.daemon.config import ConfigError, build_config, parse_host_port, parse_zmq_endpoint
from jacquetd.daemon.registry import ROUTES
from jacquetd.daemon.stats import Stats, percentile
from jacquetd.daemon.warmup import warm_up
from jacquetd.errors import SearchTimedOut, to_protocol_error
from jacquetd.rules import (
    AmbiguousMoveError,
    DiceSource,
    Game,
    GameStateError,
    IllegalMoveError,
    Play,
    Position,
    PositionError,
    Step,
    legal_plays,
)
from jacquetd.rules.interchange import foreign_ids
from jacquetd.rules.movegen import format_steps

OPENING_31 = ("board:gnubg:You:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:"
              "1:3:1:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:0")


def test_defaults_are_loopback_and_complete() -> None:
    cfg = build_config(None, {})
    assert cfg.zmq_bind == "tcp://127.0.0.1:7780"
    assert cfg.tcp == ("127.0.0.1", 7781)
    assert cfg.gnubg == ("127.0.0.1", 7782)
    assert cfg.limits.max_frame_bytes <= 4 << 20  # a match record of a few MB, no more
    assert cfg.limits.zmq_max_msg_bytes > cfg.limits.max_frame_bytes


def test_toml_then_flags(tmp_path: Path) -> None:
    toml = tmp_path / "jacquetd.toml"
    toml.write_text('bind = "tcp://127.0.0.1:9000"\nworkers = 3\ntcp = "off"\n'
                    '[limits]\nmax_frame_bytes = 1000\nmax_queue = 5\n'
                    '[heartbeat]\nivl_ms = 100\n')
    cfg = build_config(toml, {"workers": 1, "limits": {"max_queue": 7}})
    assert cfg.zmq_bind == "tcp://127.0.0.1:9000"
    assert cfg.workers == 1
    assert cfg.tcp is None
    assert cfg.limits.max_frame_bytes == 1000
    assert cfg.limits.max_queue == 7
    assert cfg.heartbeat.ivl_ms == 100


@pytest.mark.parametrize("settings", [
    {"nonsense": 1},
    {"limits": {"max_frame_bytes": 0}},
    {"limits": {"unknown_limit": 3}},
    {"log_level": "loud"},
    {"curve_secret": "x"},
    {"bind": "off", "tcp": "off", "gnubg": "off", "ws": "off"},
    {"zmq_read_batch": 0},
    {"replica_deep_us": -1},
    {"replica_deep_us": 0.5},
    {"heartbeat": {"ttl_ms": 30_000}},
])
def test_bad_settings_are_refused(settings: dict[str, object]) -> None:
    with pytest.raises(ConfigError):
        build_config(None, settings)


def test_the_front_tuning_is_read_from_the_file(tmp_path: Path) -> None:
    """The tuned thresholds are settings: the file sets them, the daemon's parts use them."""
    from jacquetd.daemon.replicas import DEEP_S, ReplicaPool

    default = build_config(None, {})
    assert (default.zmq_read_batch, default.replica_deep_us) == (16, 400)
    assert DEEP_S == default.replica_deep_us / 1e6 == ReplicaPool(1).deep_s
    toml = tmp_path / "jacquetd.toml"
    toml.write_text("zmq_read_batch = 4\nreplica_deep_us = 0\n")
    cfg = build_config(toml, {})
    assert (cfg.zmq_read_batch, cfg.replica_deep_us) == (4, 0)


def test_bad_toml_is_a_config_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("workers = [\n")
    with pytest.raises(ConfigError):
        build_config(bad, {})
    with pytest.raises(ConfigError):
        build_config(tmp_path / "missing.toml", {})


def test_address_parsing() -> None:
    assert parse_host_port("0", "x") == ("127.0.0.1", 0)
    assert parse_host_port("0.0.0.0:99", "x") == ("0.0.0.0", 99)
    assert parse_host_port("off", "x") is None
    assert parse_zmq_endpoint("127.0.0.1:0") == "tcp://127.0.0.1:*"
    assert parse_zmq_endpoint("tcp://127.0.0.1:0") == "tcp://127.0.0.1:*"
    with pytest.raises(ConfigError):
        parse_zmq_endpoint("udp://1.2.3.4:5")
    with pytest.raises(ConfigError):
        parse_host_port("host:port", "x")


def test_percentiles() -> None:
    values = sorted(float(i) for i in range(1, 101))
    assert percentile(values, 50) == 50.0
    assert percentile(values, 99) == 99.0
    assert percentile([], 50) == 0.0
    stats = Stats()
    stats.record("ping", 0.001, None)
    stats.record("ping", 0.003, "busy")
    snap = stats.snapshot(0, 0, 1)
    assert snap["commands"]["ping"]["count"] == 2
    assert snap["errors"] == {"busy": 1}


@pytest.mark.parametrize(("line", "reply"), [
    (b"version", gnubg.VERSION_REPLY),
    (b"  VERSION", gnubg.VERSION_REPLY),
    (b"help", "\tNo help information available\n"),
    (b"", "Error: no command given\n"),
    (b"foo", "Error: syntax error, unexpected E_CHARACTER\n"),
    (b"123", "Error: syntax error, unexpected E_INTEGER\n"),
    (b"version 2", "Error: syntax error, unexpected E_INTEGER, expecting EOL\n"),
    (b"set debug on", "Debug output ON\n"),
    (b"set debug off", "Debug output OFF\n"),
    (b"set interface new", "New interface ON\n"),
    (b"set interface old", "New interface OFF\n"),
    (b"set debug", "Error: syntax error, unexpected EOL, expecting E_BOOLEAN\n"),
    (b"set foo", "Error: syntax error, unexpected E_CHARACTER, expecting DEBUG or E_INTERFACE "
     "or PROMPT\n"),
    (b"evaluation", "Error: syntax error, unexpected EOL, expecting FIBSBOARD\n"),
    (OPENING_31.encode() + b" foo", "Error: syntax error, unexpected E_CHARACTER, expecting "
     "EOL\n"),
    (OPENING_31.encode() + b":7", "Error: Invalid board. Maximum number of elements is 52\n"),
    (b"board:gnubg:You:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:7:1:0:0"
     b":1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:0", gnubg.BAD_BOARD),
])
def test_gnubg_immediate_replies_match_gnubg(line: bytes, reply: str) -> None:
    # The expected texts are what gnubg 1.07.001 answers on its external socket.
    action = gnubg.parse_line(line)
    assert isinstance(action, gnubg.Immediate)
    assert action.text == reply


def test_gnubg_board_lines() -> None:
    assert isinstance(gnubg.parse_line(b"\0"), gnubg.Ignore)
    assert isinstance(gnubg.parse_line(b"quit"), gnubg.Close)
    assert isinstance(gnubg.parse_line(b"exit\r"), gnubg.Close)
    decide = gnubg.parse_line(b"\0" + OPENING_31.encode() + b" resignation 2 jacobyrule on")
    assert isinstance(decide, gnubg.Decide)
    assert decide.options == {"resignation": 2, "jacobyrule": True}
    ev = gnubg.parse_line(f"evaluation fibsboard {OPENING_31} plies 2 cube on".encode())
    assert isinstance(ev, gnubg.Evaluate)
    assert ev.options == {"plies": 2, "cube": True}


def test_gnubg_move_format() -> None:
    def reply(*steps: Step) -> str:
        return gnubg_wire.format_move(format_steps(steps))

    assert reply(Step(8, 5, 3, False), Step(6, 5, 1, False)) == "8/5 6/5 \n"
    sixes = (Step(p, p - 6, 6, False) for p in (24, 24, 13, 13))
    assert reply(*sixes) == "24/18 24/18 13/7 13/7\n"
    assert reply(Step(25, 22, 3, True), Step(24, 20, 4, True)) == "25/22* 24/20* \n"
    assert reply(Step(6, 0, 6, False), Step(5, 0, 5, False)) == "6/0 5/0 \n"
    assert reply() == "\n"


def test_one_error_mapping() -> None:
    err = to_protocol_error(PositionError("16 checkers", "J1"))
    assert (err.code, err.rule) == (ErrorCode.BAD_POSITION, "J1")
    err = to_protocol_error(IllegalMoveError("no", "J8"))
    assert (err.code, err.rule, err.field) == (ErrorCode.ILLEGAL_MOVE, "J8", "move")
    err = to_protocol_error(KeyError("secret detail"))
    assert err.code == ErrorCode.INTERNAL and "secret" not in err.message
    same = ProtocolError(ErrorCode.BUSY, "x")
    assert to_protocol_error(same) is same
    err = to_protocol_error(AmbiguousMoveError("two plays", ["8/5 6/5", "8/4"]))
    assert (err.code, err.field, err.extra["candidates"]) == (
        ErrorCode.ILLEGAL_MOVE, "move", ["8/5 6/5", "8/4"])
    state = GameStateError("no double now", "C2")
    assert to_protocol_error(state).code == ErrorCode.BAD_POSITION
    in_match = to_protocol_error(state, game_state=ErrorCode.BAD_STATE)
    assert (in_match.code, in_match.rule) == (ErrorCode.BAD_STATE, "C2")
    err = to_protocol_error(UnknownLevel("no bot level 'x'"))
    assert (err.code, err.field) == (ErrorCode.BAD_ARGUMENT, "level")
    assert to_protocol_error(SearchTimedOut()).code == ErrorCode.TIMEOUT


# ---- the front process's fast paths and the small items of the command set ------------------

def _played_games(variant: str, seed: int) -> Iterator[tuple[Game, Position]]:
    """Each position (with dice) of a seeded random game of `variant` played to its end
    by the rules core's game driver, with the game about to move in it."""
    rng = random.Random(seed)
    game = Game(variant, dice=DiceSource(seed))
    game.start()
    while game.phase != "over":
        if game.phase == "roll":
            game.roll()
        yield game, game.position()
        plays = game.legal_plays()
        game.play(plays[rng.randrange(len(plays))])


def _result_by_the_game(game: Game, play: Play) -> dict[str, Any] | None:
    """The result the rules core's game driver records when `play` is made in `game`."""
    ended = copy.deepcopy(game)
    ended.play(play)
    if ended.result is None:
        return None
    return {"winner": "on_roll", "points": ended.result.points, "name": ended.result.name}


@pytest.mark.parametrize("variant", ["jacquet", "jacquet-be", "backgammon"])
def test_fast_paths_give_what_the_rules_core_gives(variant: str) -> None:
    """The front's plays are the rules core's, down to the result of a play that ends
    the game, which the rules core's game driver scores (J12, B8, C4)."""
    warm_up()
    ending = 0
    for seed in range(2):
        for game, pos in _played_games(variant, seed):
            pure = legal_plays(pos)
            assert [(p.move, p.raw.me, p.raw.opp) for p in pure] == \
                daemon_plays.spelled_plays_of(pos)
            expected = []
            for p in pure:
                result = _result_by_the_game(game, p) if p.after.game_over() else None
                ending += result is not None
                expected.append(
                    {"move": p.move, "position_id": p.after.to_id(),
                     "position": p.after.to_dict(), **foreign_ids(p.after), "hits": p.hits,
                     "borne_off": p.borne_off, **({"result": result} if result else {})})
            assert daemon_plays.play_records(pos) == expected
            assert [daemon_plays.play_dict(p) for p in pure] == expected
    assert ending, "no game-ending play was checked"


def test_a_play_that_ends_the_game_carries_its_result() -> None:
    from jacquetd.rules import Position

    me = [14, 1] + [0] * 24
    opp = [0] * 26
    opp[20] = 15  # the loser bore off none and stands in the winner's home board: C4
    pos = Position.from_dict({"variant": "backgammon", "on_roll": me, "opponent": opp,
                              "dice": [6, 5], "cube": {"value": 2, "owner": "on_roll"}})
    result = ROUTES["legal_moves"].front(None, {"position": pos.to_dict()})
    assert result["plays"][0]["result"] == {"winner": "on_roll", "points": 6,
                                            "name": "backgammon"}
    played = ROUTES["apply_move"].front(None, {"position": pos.to_dict(),
                                                          "move": "1/off"})
    assert played["result"]["points"] == 6
    opp[20], opp[0] = 14, 1  # one borne off: a single game, cube off (jacquet-be)
    me2 = [14, 1] + [0] * 24
    pos = Position.from_dict({"variant": "jacquet-be", "on_roll": me2, "opponent": opp,
                              "dice": [2, 1]})
    plays = ROUTES["legal_moves"].front(None, {"position": pos.to_dict()})["plays"]
    assert [p["result"] for p in plays] == [{"winner": "on_roll", "points": 1,
                                             "name": "single"}]
    start = ROUTES["legal_moves"].front(None, {"position": "start", "dice": [6, 5]})
    assert "result" not in start["plays"][0]


def test_cube_with_the_cube_off_is_refused_with_c1() -> None:
    with pytest.raises(ProtocolError) as info:
        ROUTES["cube"].prepare(None, {"position": "start"})
    assert (info.value.code, info.value.rule) == (ErrorCode.BAD_POSITION, "C1")
    assert ROUTES["cube"].prepare(None, {"position": "start:backgammon"})["position"].cube


def test_luck_takes_a_position_without_dice_and_a_roll() -> None:
    job = ROUTES["luck"].prepare(None, {"position": "start:backgammon", "dice": [3, 1]})
    assert job["dice"] == [3, 1] and job["position"].dice == ()
    with pytest.raises(ProtocolError) as info:
        ROUTES["luck"].prepare(None, {"position": "AQAAAAAAAAAAAAAAAADwAAAAAAAAAAAAAAAA8GUA",
                                  "dice": [3, 1]})
    assert info.value.field == "position.dice"


def test_gnubg_evaluation_options_as_gnubg_reads_them() -> None:
    base = f"evaluation fibsboard {OPENING_31}"
    for tail, cube in (("cubeful", True), ("cubeless", False), ("cube on", True),
                       ("cube off", False), ("plies 1 cubeful prune", True)):
        action = gnubg.parse_line(f"{base} {tail}".encode())
        assert isinstance(action, gnubg.Evaluate) and action.options["cube"] is cube
    refused = gnubg.parse_line(f"{base} cube cubeful".encode())
    assert refused == gnubg.Immediate(
        "Error: syntax error, unexpected CUBEFUL, expecting E_BOOLEAN\n")


def test_the_worker_pipe_carries_typed_values() -> None:
    import pickle

    from jacquetd.daemon.jobs import Done, Failed, Job, Progress

    for value in (Job(1, "best_move", {"level": "random"}, None, 3), Progress(1, {"plies": 0}),
                  Done(1, {"luck": 0.5}), Failed(1, "bad_argument", "no", field="level")):
        assert pickle.loads(pickle.dumps(value)) == value
    err = Failed.of(2, ProtocolError(ErrorCode.TOO_LARGE, "big", limit="x")).error()
    assert (err.code, err.message, err.extra) == (ErrorCode.TOO_LARGE, "big", {"limit": "x"})
    assert Done(1, {}).ok and not Failed(1, "internal", "x").ok
