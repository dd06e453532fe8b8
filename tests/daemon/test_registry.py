"""The command registry (jacquetd/daemon/registry.py): one route per protocol command,
checked against the protocol's table, and the cancel and weight policies it declares."""

from __future__ import annotations

import pytest
from jacquetd_protocol.commands import COMMANDS, Command

from jacquetd.daemon import registry
from jacquetd.daemon.registry import JOBS, ROUTES, Route, Runs


def test_every_protocol_command_has_exactly_one_route() -> None:
    assert set(ROUTES) == set(COMMANDS)
    assert all(route.name == name and route.protocol for name, route in ROUTES.items())
    daemon_jobs = {name for name, route in JOBS.items() if not route.protocol}
    assert not daemon_jobs & set(COMMANDS)
    assert all(route.worker is not None for route in JOBS.values())


def test_a_protocol_command_without_a_route_is_refused(monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    monkeypatch.setitem(COMMANDS, "unrouted", Command("unrouted", "nothing", (), ()))
    with pytest.raises(ValueError, match="without a route: \\['unrouted'\\]"):
        registry._check_complete()


def test_a_route_without_a_protocol_command_or_its_handler_is_refused() -> None:
    with pytest.raises(ValueError, match="no protocol command"):
        registry._add(Route("no_such_command", Runs.FRONT, front=lambda ctx, args: {}))
    with pytest.raises(ValueError, match="needs \\['prepare'\\]"):
        registry._add(Route("nothing", Runs.WORKER, worker=lambda args, call: {}))
    with pytest.raises(ValueError, match="declared twice"):
        registry._add(ROUTES["ping"])
    assert "no_such_command" not in ROUTES and "nothing" not in JOBS


def test_the_defaults_are_the_protocol_tables() -> None:
    for name, route in ROUTES.items():
        assert route.defaults == {p.name: p.default for p in COMMANDS[name].all_params()}


@pytest.mark.parametrize(("cmd", "args", "stops"), [
    ("analyze", {}, True),
    ("best_move", {"time_ms": 500}, True),
    ("best_move", {}, False),
    ("evaluate", {"time_ms": 500}, False),
    ("bot_match", {}, False),
])
def test_cancel_policy(cmd: str, args: dict[str, object], stops: bool) -> None:
    assert ROUTES[cmd].stops_with_answer(args) is stops


@pytest.mark.parametrize(("job", "args", "heavy"), [
    ("best_move", {"plies": 1}, False),
    ("best_move", {"plies": 2}, True),
    ("analyze", {"time_ms": 1001}, True),
    ("evaluate", {"time_ms": 1000}, False),
    ("analyze_record", {}, True),
    ("rollout_chunk", {}, True),
    ("gnubg_evaluate", {"options": {"plies": 2}}, True),
    ("gnubg_decide", {"options": {}}, False),
    ("match_bot", {}, False),
])
def test_weight_policy(job: str, args: dict[str, object], heavy: bool) -> None:
    assert JOBS[job].heavy(args) is heavy


def test_the_transports_flags() -> None:
    from jacquetd.daemon import server

    assert {"ping"} == registry.JUMPS_QUEUE
    assert {"cancel", "ping", "quit"} == registry.BYPASSES_LIMITS == server.CONTROL_COMMANDS
    assert [name for name, r in ROUTES.items() if r.ends_session] == ["quit"]
    assert {name for name, r in ROUTES.items() if r.runs is Runs.REPLICA} == {
        "legal_moves", "apply_move"}
