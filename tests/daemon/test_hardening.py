"""Hardening under hostile and heavy use (issue: secrets, fairness, bounds, shutdown).

Every test talks to a real `jacquetd serve` over real sockets. Each one names the
defect it guards against; on the code before the fix it fails.
"""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgpack
import pytest
import zmq
from jacquetd_protocol.messages import Reply

from tests.conftest import DaemonProcess
from tests.daemon.wire import GnubgClient, TcpClient, ZmqClient

Start = Callable[..., DaemonProcess]


def tcp_call(client: TcpClient, line: str) -> Reply:
    client.send_line(line)
    return client.recv_final()


def msg_call(client: TcpClient, request: dict[str, Any]) -> Reply:
    client.send_bytes(msgpack.packb(request))
    return client.recv_final()


def hosted(start: Start, db: Path, *extra: str) -> DaemonProcess:
    return start("--workers", "1", "--db", str(db), *extra)


NEW = {"variant": "jacquet", "seat1": "random", "name0": "ann"}


# ---- 1. retry identities cannot be claimed ---------------------------------------------------


def _new_by_every_kind(daemon: DaemonProcess, session: str | None) -> dict[str, Reply]:
    """match_new with request id 1 from every kind of client identity."""
    out: dict[str, Reply] = {}
    anon = ZmqClient(daemon.zmq)
    out["zmq-anonymous"] = anon.call("match_new", id=1, **NEW)
    named = ZmqClient(daemon.zmq, identity=b"explicit-identity")
    out["zmq-identity"] = named.call("match_new", id=1, **NEW)
    plain = TcpClient(daemon.tcp)
    out["tcp-no-hello"] = msg_call(plain, {"id": 1, "cmd": "match_new", **NEW})
    hello = TcpClient(daemon.tcp)
    assert msg_call(hello, {"id": 0, "cmd": "hello", "client": "mytool"}).ok
    out["tcp-hello-client"] = msg_call(hello, {"id": 1, "cmd": "match_new", **NEW})
    if session is not None:
        sess = ZmqClient(daemon.zmq)
        out["zmq-session"] = sess.call("match_new", id=1, session=session, **NEW)
        sess.close()
        bound = TcpClient(daemon.tcp)
        assert msg_call(bound, {"id": 0, "cmd": "hello", "session": session}).ok
        out["tcp-session"] = msg_call(bound, {"id": 1, "cmd": "match_new", **NEW})
        bound.close()
    for c in (anon, named):
        c.close()
    for t in (plain, hello):
        t.close()
    return out


def test_restart_replays_nothing_to_a_new_client_of_any_kind(start_jacquetd: Start,
                                                             tmp_path: Path) -> None:
    db = tmp_path / "m.sqlite3"
    daemon = hosted(start_jacquetd, db)
    probe = ZmqClient(daemon.zmq)
    session = probe.call("hello").result["session"]
    probe.close()
    first = _new_by_every_kind(daemon, session)
    # the same session over another transport is the same client: its retry is answered
    resumed = first.pop("tcp-session")
    assert resumed.ok and resumed.result["replayed"] is True
    assert resumed.result["owner_token"] == first["zmq-session"].result["owner_token"]
    for kind, reply in first.items():
        assert reply.ok and not reply.result.get("replayed"), (kind, reply)
    assert daemon.stop() == 0

    daemon = hosted(start_jacquetd, db)
    again = _new_by_every_kind(daemon, None)
    for kind, reply in again.items():
        assert reply.ok, (kind, reply)
        assert not reply.result.get("replayed"), f"{kind}: a previous run's reply was replayed"
        assert reply.result["match_id"] != first[kind].result["match_id"], kind
    # the session's holder, and only it, gets its stored reply, tokens included
    holder = ZmqClient(daemon.zmq)
    back = holder.call("match_new", id=1, session=session, **NEW)
    assert back.ok and back.result["replayed"] is True
    assert back.result["tokens"] == first["zmq-session"].result["tokens"]
    assert back.result["owner_token"] == first["zmq-session"].result["owner_token"]
    other = holder.call("hello").result["session"]
    fresh = holder.call("match_new", id=1, session=other, **NEW)
    assert fresh.ok and not fresh.result.get("replayed")
    forged = holder.call("match_new", id=1, session=session[:-2] + "AA", **NEW)
    assert not forged.ok and forged.error["code"] == "bad_argument"
    assert forged.error["field"] == "session"
    holder.close()
    daemon.stop()


def test_a_taken_over_zmq_identity_gets_no_token(start_jacquetd: Start, tmp_path: Path) -> None:
    daemon = hosted(start_jacquetd, tmp_path / "m.sqlite3")
    owner = ZmqClient(daemon.zmq, identity=b"shared-id")
    made = owner.call("match_new", id=7, **NEW)
    assert made.ok and made.result["owner_token"]
    owner.close()
    time.sleep(0.3)  # the owner has left; another peer takes its identity
    thief = ZmqClient(daemon.zmq, identity=b"shared-id")
    got = thief.call("match_new", id=7, **NEW)
    assert got.ok
    assert got.result.get("owner_token") is None and got.result["tokens"] == [None, None]
    assert got.result.get("withheld") is True
    thief.close()
    daemon.stop()


# ---- 12. secrets at rest -----------------------------------------------------------------------


def test_data_folder_is_private_and_holds_no_token_or_live_seed(start_jacquetd: Start,
                                                               tmp_path: Path) -> None:
    home = tmp_path / "data"
    env_home = os.environ.get("XDG_DATA_HOME")
    os.environ["XDG_DATA_HOME"] = str(home)
    try:
        daemon = start_jacquetd("--workers", "1", "--db", str(home / "jacquetd" /
                                                               "matches.sqlite3"))
    finally:
        if env_home is None:
            del os.environ["XDG_DATA_HOME"]
        else:
            os.environ["XDG_DATA_HOME"] = env_home
    client = ZmqClient(daemon.zmq)
    session = client.call("hello").result["session"]
    made = client.call("match_new", id=1, session=session, seed=424242, **NEW).result
    daemon.stop()
    folder = home / "jacquetd"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    for f in folder.iterdir():
        assert stat.S_IMODE(f.stat().st_mode) & 0o077 == 0, f
    dump = subprocess.run([sys.executable, "-c", "import sqlite3,sys; "
                           "print('\\n'.join(sqlite3.connect(sys.argv[1]).iterdump()))",
                           str(folder / "matches.sqlite3")], capture_output=True, text=True,
                          check=True).stdout
    assert made["owner_token"] not in dump and made["tokens"][0] not in dump
    assert session not in dump
    assert "424242" not in dump


# ---- 9. names with control characters ----------------------------------------------------------


def test_control_characters_in_names_are_refused_and_old_ones_still_export(
        start_jacquetd: Start, tmp_path: Path) -> None:
    db = tmp_path / "m.sqlite3"
    daemon = hosted(start_jacquetd, db)
    client = TcpClient(daemon.tcp)
    for bad in ("ann\nbob", "tab\there", "cr\r", "nul\x00", "sep\u2028x"):
        reply = msg_call(client, {"id": 1, "cmd": "match_new", "name0": bad})
        assert not reply.ok and reply.error["code"] == "bad_argument", (bad, reply)
        assert reply.error["field"] == "name0"
    made = msg_call(client, {"id": 2, "cmd": "match_new", "name0": "ann", "seat1": "random"})
    assert made.ok
    mid = made.result["match_id"]
    client.close()
    daemon.stop()
    # a match stored by an earlier version, with a line end in a name
    import json
    import sqlite3

    con = sqlite3.connect(db)
    config = json.loads(con.execute("SELECT config FROM matches WHERE id = ?",
                                    (mid,)).fetchone()[0])
    config["seats"][0]["name"] = "ann\nStatus: forged"
    con.execute("UPDATE matches SET config = ? WHERE id = ?", (json.dumps(config), mid))
    con.commit()
    con.close()
    daemon = hosted(start_jacquetd, db)
    client = TcpClient(daemon.tcp)
    exported = msg_call(client, {"id": 3, "cmd": "match_export", "match_id": mid})
    assert exported.ok, exported
    record = exported.result["record"]
    assert '; [Player0 "ann Status: forged"]\n' in record
    analysed = msg_call(client, {"id": 4, "cmd": "analyze_record", "match_id": mid})
    assert analysed.ok, analysed
    client.close()
    daemon.stop()


# ---- 10. refused requests leave nothing behind ---------------------------------------------------


def test_refused_engine_requests_leave_no_client_entry(start_jacquetd: Start) -> None:
    daemon = start_jacquetd("--workers", "1", "--db", "off")
    for i in range(40):
        client = TcpClient(daemon.tcp)
        reply = tcp_call(client, f"{i} best_move jacquet/24:30/24:15/-/00 dice=21")
        assert not reply.ok and reply.error["code"] == "bad_position"
        client.close()
    probe = ZmqClient(daemon.zmq)
    stats = probe.call("stats").result
    assert stats["clients"] == 0 and stats["inflight"] == 0, stats
    probe.close()
    assert daemon.stop() == 0
    assert "event=drained in_flight=0 cut_short=0" in daemon.log_text()


# ---- 14. error details -----------------------------------------------------------------------


def _raw_reply(addr: tuple[str, int], data: bytes, half_close: bool = False) -> bytes:
    import socket

    with socket.create_connection(addr, timeout=10) as s:
        s.sendall(data)
        if half_close:
            s.shutdown(socket.SHUT_WR)
        out = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                return out
            out += chunk
            if not half_close and (out.endswith(b"\n\n") or out[:1] in (b"\x83", b"\x82")):
                return out


def test_error_details(jacquetd_server: DaemonProcess) -> None:
    addr = jacquetd_server.tcp
    # a msgpack object cut short by the end of the stream is answered in msgpack
    cut = msgpack.packb({"id": 5, "cmd": "ping"})[:-2]
    raw = _raw_reply(addr, cut, half_close=True)
    assert 0x80 <= raw[0] <= 0x8F, raw
    reply = msgpack.unpackb(raw)
    assert reply["ok"] is False and reply["error"]["code"] == "bad_frame"
    # bad_frame speaks the protocol's words, not the msgpack library's
    bad_utf8 = b"\x82\xa2id\x06\xa3cmd\xa2\xff\xfe"
    reply = msgpack.unpackb(_raw_reply(addr, bad_utf8, half_close=True))
    assert reply["error"]["code"] == "bad_frame"
    assert reply["error"]["message"] == "a string is not valid UTF-8", reply
    dup = b"\x83\xa2id\x07\xa3cmd\xa4ping\xa2id\x08"
    reply = msgpack.unpackb(_raw_reply(addr, dup, half_close=True))
    assert reply["error"]["message"] == "duplicate key in a map", reply
    # a text line with invalid UTF-8 keeps the id it had
    text = _raw_reply(addr, b"17 ping \xff\xfe\n", half_close=True).decode()
    assert text.startswith("?17 bad_frame"), text
    # hello's max_frame_bytes is the one SPEC.md section 10 documents
    client = ZmqClient(jacquetd_server.zmq)
    limits = client.call("hello").result["limits"]
    client.close()
    spec = (Path(__file__).resolve().parents[2] / "protocol" / "SPEC.md").read_text()
    assert f"| `max_frame_bytes` | {limits['max_frame_bytes']} |" in spec
    assert f'"max_frame_bytes": {limits["max_frame_bytes"]},' in spec


# ---- 11. one daemon owns a match database ----------------------------------------------------


def test_a_second_daemon_refuses_the_database_naming_the_holder(start_jacquetd: Start,
                                                                tmp_path: Path) -> None:
    db = tmp_path / "m.sqlite3"
    first = hosted(start_jacquetd, db)
    second = subprocess.run(
        [sys.executable, "-m", "jacquetd", "serve", "--workers", "1", "--db", str(db),
         "--bind", "tcp://127.0.0.1:0", "--tcp", "off", "--gnubg", "off"],
        cwd=Path(__file__).resolve().parents[2], capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
    assert second.returncode != 0
    lines = [ln for ln in second.stderr.splitlines() if ln.startswith("jacquetd:")]
    assert len(lines) == 1 and f"process {first.proc.pid}" in lines[0], second.stderr
    # the same refusal for an engine on stdio asked to open it
    stdio = subprocess.run(
        [sys.executable, "-m", "jacquetd", "stdio", "--workers", "1", "--db", str(db)],
        input="1 ping\n", cwd=Path(__file__).resolve().parents[2], capture_output=True,
        text=True, timeout=120,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
    assert stdio.returncode != 0 and f"process {first.proc.pid}" in stdio.stderr
    assert first.alive()
    first.stop()


def test_an_engine_on_stdio_opens_no_match_database_unless_asked(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {**os.environ, "XDG_DATA_HOME": str(home),
           "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    run = subprocess.run([sys.executable, "-m", "jacquetd", "stdio", "--workers", "1"],
                         input="1 match_list\n", capture_output=True, text=True, timeout=120,
                         env=env)
    assert run.stdout.startswith("?1 forbidden"), run.stdout
    assert not (home / "jacquetd" / "matches.sqlite3").exists()
    asked = subprocess.run([sys.executable, "-m", "jacquetd", "stdio", "--workers", "1",
                            "--db", "default"], input="1 match_list\n", capture_output=True,
                           text=True, timeout=120, env=env)
    assert asked.stdout.startswith("=1"), asked.stdout + asked.stderr
    assert (home / "jacquetd" / "matches.sqlite3").exists()


# ---- 7. SIGTERM stops the bot seats -----------------------------------------------------


def _log_time(line: str) -> float:
    import datetime as dt

    stamp = line.split("ts=", 1)[1].split()[0]
    return dt.datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%fZ").replace(
        tzinfo=dt.UTC).timestamp()


def test_sigterm_stops_bot_seats_before_drained(start_jacquetd: Start, tmp_path: Path) -> None:
    import sqlite3

    db = tmp_path / "m.sqlite3"
    daemon = hosted(start_jacquetd, db, "--drain-timeout", "2")
    client = ZmqClient(daemon.zmq)
    for i in range(8):
        made = client.call("match_new", id=i, variant="backgammon", length=99,
                           seat0="random", seat1="random", seed=i)
        assert made.ok, made
    con = sqlite3.connect(db)
    deadline = time.monotonic() + 60
    while con.execute("SELECT COUNT(*) FROM actions").fetchone()[0] < 200:
        assert time.monotonic() < deadline, "the bots do not play"
        time.sleep(0.05)
    client.close()
    assert daemon.stop(signal.SIGTERM, timeout=60) == 0
    drained = [ln for ln in daemon.log_text().splitlines() if "event=drained" in ln]
    assert len(drained) == 1
    last_action = con.execute("SELECT MAX(at) FROM actions").fetchone()[0]
    playing = con.execute("SELECT COUNT(*) FROM matches WHERE status = 'playing'").fetchone()[0]
    con.close()
    assert playing > 0  # the matches were still in play: the bots were stopped, not finished
    # the log stamps the drain to the millisecond, cut down: it happened before the end
    # of that millisecond, so an action within the same millisecond is not after it
    assert last_action < _log_time(drained[0]) + 0.001, "a bot seat acted after the drain"


# ---- 5. the bear-off tables are built apart from requests ---------------------------------------

_HOME = [0, 2, 2, 2, 3, 3, 3] + [0] * 19  # borne off, points 1-24, bar: all home
RACE = {"on_roll": _HOME, "opponent": _HOME}


def _fresh_cache_daemon(start: Start, cache: Path) -> DaemonProcess:
    old = os.environ.get("JACQUETD_CACHE")
    os.environ["JACQUETD_CACHE"] = str(cache)
    try:
        return start("--workers", "1", "--db", "off")
    finally:
        if old is None:
            del os.environ["JACQUETD_CACHE"]
        else:
            os.environ["JACQUETD_CACHE"] = old


def _builder_pid(daemon: DaemonProcess) -> int:
    line = next(ln for ln in daemon.log_text().splitlines() if "event=bearoff_build_started" in ln)
    return int(line.rsplit("pid=", 1)[1].split()[0])


def test_a_race_inside_a_short_deadline_is_answered_while_the_tables_build(
        start_jacquetd: Start, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    daemon = _fresh_cache_daemon(start_jacquetd, cache)
    builder = _builder_pid(daemon)
    try:
        client = ZmqClient(daemon.zmq)
        warm = client.call("evaluate", position="start:backgammon", timeout=120)
        assert warm.ok, warm  # the worker is up: the deadline below is the race's alone
        position = client.call("position", position={"variant": "backgammon", **RACE})
        assert position.ok, position
        reply = client.call("evaluate", position=position.result["position_id"],
                            timeout_ms=3000, timeout=30)
        assert reply.ok, reply  # the network answers; no request waits for the build
        assert 0.0 <= reply.result["win"] <= 1.0
        client.close()
        daemon.stop()
    finally:
        os.killpg(builder, signal.SIGKILL)  # the test's own builder and the processes it
        # started (its own session); the slow test lets it finish


@pytest.mark.slow
def test_the_tables_are_built_once_and_saved(start_jacquetd: Start, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = _fresh_cache_daemon(start_jacquetd, cache)
    second = _fresh_cache_daemon(start_jacquetd, cache)  # both find the tables missing
    builders = [_builder_pid(first), _builder_pid(second)]
    first.stop()
    second.stop()
    deadline = time.monotonic() + 900
    while any(Path(f"/proc/{pid}").exists() for pid in builders):
        assert time.monotonic() < deadline, "the tables were not built"
        time.sleep(1)
    names = sorted(p.name for p in cache.iterdir() if p.suffix == ".npz")
    assert names == ["bearoff-cube-rearmost-7-v1.npz", "bearoff-cube-standard-7-v1.npz",
                     "bearoff-rearmost-v1.npz", "bearoff-standard-v1.npz"]


# ---- 8. idle and message timeouts, connection limits ------------------------------------------


def _closed_by_daemon(sock: Any, within: float = 30.0) -> bool:
    sock.settimeout(within)
    try:
        while True:
            data = sock.recv(4096)
            if not data:
                return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except TimeoutError:
        return False


def test_idle_and_trickling_connections_are_closed_and_sources_bounded(
        start_jacquetd: Start) -> None:
    import socket

    daemon = start_jacquetd("--workers", "1", "--db", "off", "--limit", "idle_timeout_ms=300",
                            "--limit", "message_timeout_ms=600", "--limit",
                            "max_connections_per_source=4", "--limit", "max_connections=6")
    # an idle connection, on both endpoints
    for addr in (daemon.tcp, daemon.gnubg):
        idle = socket.create_connection(addr)
        assert _closed_by_daemon(idle)
        idle.close()
    # a peer that trickles one line, a byte at a time, faster than the idle timeout
    slow = socket.create_connection(daemon.tcp)
    closed = False
    for ch in b"1 ping" * 20:
        try:
            slow.send(bytes([ch]))
        except (BrokenPipeError, ConnectionResetError):
            closed = True
            break
        time.sleep(0.1)
    assert closed or _closed_by_daemon(slow, 5.0)
    slow.close()
    # a connection that is answered keeps working while it talks
    busy = TcpClient(daemon.tcp)
    for i in range(5):
        assert tcp_call(busy, f"{i} ping").ok
        time.sleep(0.1)
    # per source: 4 (this one included), the fifth is refused with busy
    held = [TcpClient(daemon.tcp) for _ in range(3)]
    extra = TcpClient(daemon.tcp)
    refused = extra.recv_final()
    assert not refused.ok and refused.error["code"] == "busy"
    assert refused.error["limit"] == "max_connections_per_source"
    for c in [busy, *held, extra]:
        c.close()
    time.sleep(0.3)
    stats = ZmqClient(daemon.zmq)
    counted = stats.call("stats").result
    assert counted["connections_refused"] >= 1 and counted["clients_dropped"] >= 3
    stats.close()
    daemon.stop()


def test_max_connections_counts_both_endpoints_together(start_jacquetd: Start) -> None:
    daemon = start_jacquetd("--workers", "1", "--db", "off", "--limit", "max_connections=2")
    a = TcpClient(daemon.tcp)
    b = GnubgClient(daemon.gnubg)
    assert b.ask("version", 4).startswith("Interface: 2")
    assert tcp_call(a, "1 ping").ok
    third = GnubgClient(daemon.gnubg)
    assert third.read_lines(1) == ["Error: too many connections\n"]
    fourth = TcpClient(daemon.tcp)
    refused = fourth.recv_final()
    assert refused.error["code"] == "busy" and refused.error["limit"] == "max_connections"
    for c in (a, b, third, fourth):
        c.close()
    daemon.stop()


# ---- 2. a flood on one endpoint does not starve the others ---------------------------------------

FLOOD = 30_000


def test_a_zeromq_flood_does_not_starve_tcp_or_engine_replies(start_jacquetd: Start) -> None:
    from jacquetd_protocol.codec import encode_request
    from jacquetd_protocol.messages import Request

    daemon = start_jacquetd("--workers", "1", "--db", "off")
    flooder = ZmqClient(daemon.zmq)
    flooder.sock.setsockopt(zmq.SNDHWM, 0)
    body = encode_request(Request(None, "legal_moves", {"position": "start:backgammon",
                                                       "dice": [3, 1]}, "msgpack"))
    for _ in range(FLOOD):
        flooder.sock.send(body)
    tcp = TcpClient(daemon.tcp)
    assert tcp_call(tcp, "1 ping").ok
    engine = ZmqClient(daemon.zmq)
    best = engine.call("best_move", position="start:backgammon", dice=[3, 1], level="random",
                       timeout=60)
    assert best.ok, best
    stats = tcp_call(tcp, "2 stats").result
    # both were answered while the flood was still being served
    assert stats["received"] < FLOOD, stats["received"]
    for c in (flooder, engine):
        c.close()
    tcp.close()
    daemon.stop()


# ---- 3. bounded work per request ---------------------------------------------------------------


def test_depth_is_bounded_on_every_endpoint(jacquetd_server: DaemonProcess) -> None:
    client = ZmqClient(jacquetd_server.zmq)
    limit = client.call("hello").result["limits"]["max_plies"]
    for cmd in ("evaluate", "cube", "analyze"):
        args: dict[str, Any] = {"position": "start:backgammon", "plies": limit + 1}
        if cmd == "analyze":
            args["dice"] = [3, 1]
        if cmd == "cube":
            args["position"] = "start:backgammon"
        reply = client.call(cmd, **args)
        assert not reply.ok and reply.error["code"] == "bad_argument", (cmd, reply)
        assert reply.error["limit"] == "max_plies" and reply.error["field"] == "plies"
    client.close()
    gnubg = GnubgClient(jacquetd_server.gnubg)
    board = "board:You:Opp:1:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:0:0:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0"  # noqa: E501
    answer = gnubg.ask(f"evaluation fibsboard {board} plies 50")
    assert answer.startswith("Error: plies 50 is more than this server serves"), answer
    gnubg.close()


def test_heavy_requests_leave_a_worker_for_cheap_ones(start_jacquetd: Start) -> None:
    daemon = start_jacquetd("--workers", "2", "--db", "off", "--test-levels")
    client = ZmqClient(daemon.zmq)
    heavy = [client.send("best_move", position="start", dice=[3, 1], level="test-sleep",
                         time_ms=60_000) for _ in range(2)]
    time.sleep(0.5)
    cheap = client.call("best_move", position="start", dice=[3, 1], level="random", timeout=30)
    assert cheap.ok  # answered while both heavy requests are still in flight
    stats = client.call("stats").result
    assert stats["inflight"] == 2 and stats["queued"] == 1, stats
    cancels = [client.send("cancel", target=rid) for rid in heavy]
    finals = {r.id: r for r in (client.recv_final(30) for _ in range(4))}
    assert all(finals[c].ok for c in cancels)
    assert all(finals[rid].error["code"] == "cancelled" for rid in heavy)
    client.close()
    daemon.stop()


def test_a_worker_over_its_memory_cap_is_replaced(start_jacquetd: Start) -> None:
    daemon = start_jacquetd("--workers", "1", "--db", "off", "--test-levels", "--limit",
                            "worker_max_rss_mb=400")
    client = ZmqClient(daemon.zmq)
    reply = client.call("best_move", position="start", dice=[3, 1], level="test-hog",
                        time_ms=60_000, timeout=60)
    assert not reply.ok and reply.error["code"] == "too_large", reply
    assert reply.error["limit"] == "worker_max_rss_mb"
    after = client.call("best_move", position="start", dice=[3, 1], level="random", timeout=60)
    assert after.ok
    client.close()
    daemon.stop()


def test_a_gnubg_request_stops_when_its_client_leaves(start_jacquetd: Start) -> None:
    daemon = start_jacquetd("--workers", "1", "--db", "off", "--limit", "max_plies=8")
    gnubg = GnubgClient(daemon.gnubg)
    board = "board:You:Opp:1:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:0:0:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0"  # noqa: E501
    gnubg.send(f"evaluation fibsboard {board} plies 6\n".encode())
    time.sleep(1.0)
    import socket
    import struct

    # gone for good (a reset; a normal close is tests/daemon/test_gnubg_boards.py's): its
    # evaluation must stop, and the worker serve others
    gnubg.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    gnubg.close()
    client = ZmqClient(daemon.zmq)
    reply = client.call("best_move", position="start", dice=[3, 1], level="random", timeout=60)
    assert reply.ok, reply
    client.close()
    daemon.stop()


def test_a_zeromq_request_stops_when_its_client_leaves(start_jacquetd: Start) -> None:
    # one worker, taken by a request of two minutes; its client leaves: the daemon learns
    # it from the socket monitor (zmq_links), stops the work and serves the next client
    daemon = start_jacquetd("--workers", "1", "--db", "off", "--test-levels")
    leaver = ZmqClient(daemon.zmq)
    leaver.send("best_move", id=1, position="start", dice=[3, 1], level="test-sleep",
                time_ms=120_000)
    time.sleep(1.0)
    leaver.close()
    client = ZmqClient(daemon.zmq)
    started = time.monotonic()
    reply = client.call("best_move", position="start", dice=[3, 1], level="test-sleep",
                        time_ms=50, timeout=60)
    assert reply.ok, reply
    assert time.monotonic() - started < 60  # not behind the two minutes of the one that left
    stats = client.call("stats").result
    assert stats["latency_ms"]["best_move"]["count"] >= 1
    client.close()
    daemon.stop()


# ---- 4. bounded queues and watches; every request answered or its peer dropped ------------


def test_watches_are_capped(start_jacquetd: Start, tmp_path: Path) -> None:
    daemon = hosted(start_jacquetd, tmp_path / "m.sqlite3", "--limit", "max_watches=3")
    client = ZmqClient(daemon.zmq)
    mid = client.call("match_new", id="new", **NEW).result["match_id"]
    watches = [client.send("match_watch", match_id=mid) for _ in range(3)]
    time.sleep(0.3)
    refused = client.call("match_watch", match_id=mid, id="fourth")
    assert not refused.ok and refused.error["code"] == "busy"
    assert refused.error["limit"] == "max_watches"
    stats = client.call("stats").result
    assert stats["watches"] == 3
    for rid in watches:
        client.send("cancel", target=rid)
    client.close()
    daemon.stop()


def test_a_zeromq_peer_that_does_not_read_is_dropped_and_every_request_accounted(
        start_jacquetd: Start) -> None:
    daemon = start_jacquetd("--workers", "1", "--db", "off")
    lazy = ZmqClient(daemon.zmq)
    lazy.sock.setsockopt(zmq.RCVHWM, 10)
    lazy.sock.setsockopt(zmq.SNDHWM, 0)
    sent = 20_000
    for i in range(sent):
        lazy.send("legal_moves", id=i, position="start:backgammon", dice=[3, 1])
    probe = ZmqClient(daemon.zmq)
    deadline = time.monotonic() + 120
    while True:
        stats = probe.call("stats", timeout=30).result
        answered = stats["latency_ms"].get("legal_moves", {}).get("count", 0)
        if answered + stats["requests_ignored"] >= sent or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert stats["clients_dropped"] >= 1
    # every request was answered (the reply was sent, or discarded once the peer was
    # dropped) or ignored while the peer was dropped: none is unaccounted for
    assert answered + stats["requests_ignored"] == sent, stats
    got = 0
    while lazy.sock.poll(500):
        lazy.sock.recv()
        got += 1
    assert got + stats["replies_dropped"] == answered
    assert probe.call("ping").ok
    for c in (lazy, probe):
        c.close()
    daemon.stop()


def test_waiting_engine_requests_are_served_client_by_client(start_jacquetd: Start) -> None:
    daemon = start_jacquetd("--workers", "1", "--db", "off", "--test-levels")
    greedy = ZmqClient(daemon.zmq)
    mine = [greedy.send("best_move", position="start", dice=[3, 1], level="test-sleep",
                        time_ms=300) for _ in range(12)]
    time.sleep(0.2)
    other = ZmqClient(daemon.zmq)
    assert other.call("best_move", position="start", dice=[3, 1], level="random",
                      timeout=60).ok
    waiting = other.call("stats").result["inflight"]
    assert waiting >= 8, waiting  # served after at most one of the greedy client's jobs
    finals = [greedy.recv_final(60) for _ in mine]
    assert all(r.ok for r in finals)
    for c in (greedy, other):
        c.close()
    daemon.stop()


# ---- 13. retention and `jacquetd db` -------------------------------------------------------


def _db(*args: str) -> subprocess.CompletedProcess[str]:
    repo = Path(__file__).resolve().parents[2]
    return subprocess.run([sys.executable, "-m", "jacquetd", "db", *args], cwd=repo,
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(repo)})


def test_retention_and_the_db_command(start_jacquetd: Start, tmp_path: Path) -> None:
    import json
    import sqlite3

    db = tmp_path / "m.sqlite3"
    daemon = hosted(start_jacquetd, db)
    client = ZmqClient(daemon.zmq)
    ids = []
    for i in range(3):
        made = client.call("match_new", id=i, variant="jacquet", seat0="random",
                           seat1="random", seed=i).result
        ids.append(made["match_id"])
    deadline = time.monotonic() + 120
    while client.call("match_list", status=["over"]).result["total"] < 3:
        assert time.monotonic() < deadline
        time.sleep(0.2)
    refused = _db("stats", "--db", str(db))  # the daemon owns it
    assert refused.returncode == 2 and f"process {daemon.proc.pid}" in refused.stderr
    client.close()
    daemon.stop()
    con = sqlite3.connect(db)
    con.execute("UPDATE matches SET ended_at = ended_at - 400 * 86400 WHERE id = ?", (ids[0],))
    con.commit()
    con.close()
    stats = json.loads(_db("stats", "--db", str(db)).stdout)
    assert stats["matches"] == {"over": 3} and stats["rows"]["events"] > 0
    assert _db("check", "--db", str(db)).stdout.strip() == "ok"
    pruned = _db("prune", "--db", str(db), "--keep-matches", "1")
    assert pruned.stdout.startswith("pruned 2 matches"), pruned.stdout + pruned.stderr
    after = json.loads(_db("stats", "--db", str(db)).stdout)
    assert after["matches"] == {"over": 1}
    assert _db("vacuum", "--db", str(db)).returncode == 0
    # the daemon applies the policy when it starts
    daemon = hosted(start_jacquetd, db, "--config", str(_toml(tmp_path, "keep_days = 0.0")))
    client = ZmqClient(daemon.zmq)
    assert client.call("match_list", status=["all"]).result["total"] == 0
    client.close()
    daemon.stop()


def _toml(folder: Path, text: str) -> Path:
    path = folder / "jacquetd.toml"
    path.write_text(text + "\n")
    return path


def test_spec_documents_every_server_limit_with_its_shipped_default() -> None:
    import dataclasses

    from jacquetd.daemon.config import Limits

    spec = (Path(__file__).resolve().parents[2] / "protocol" / "SPEC.md").read_text()
    for f in dataclasses.fields(Limits):
        assert f"| `{f.name}` | {f.default} |" in spec, f.name


def test_workers_do_not_outlive_a_killed_daemon(start_jacquetd: Start) -> None:
    daemon = start_jacquetd("--workers", "1", "--db", "off", "--test-levels")
    client = ZmqClient(daemon.zmq)
    pid = client.call("stats").result["worker_pids"][0]
    client.send("best_move", position="start", dice=[3, 1], level="test-hang", time_ms=60_000)
    time.sleep(0.3)
    daemon.proc.kill()
    daemon.proc.wait(10)
    client.close()
    deadline = time.monotonic() + 30
    while Path(f"/proc/{pid}").exists():
        status = Path(f"/proc/{pid}/status").read_text() if Path(f"/proc/{pid}").exists() else ""
        if "State:\tZ" in status:
            break
        assert time.monotonic() < deadline, "the worker outlived its daemon"
        time.sleep(0.2)


# ---- 6. cube decisions at every match length ------------------------------------------------


def test_cube_answers_at_every_match_length_the_protocol_accepts(start_jacquetd: Start) -> None:
    from jacquetd.rules.position import MAX_MATCH_LENGTH

    daemon = start_jacquetd("--workers", "2", "--db", "off")
    client = ZmqClient(daemon.zmq)
    start = client.call("position", position="start:backgammon").result["position"]
    lengths = list(range(1, 1001))  # positions.py: match.length 1-1000
    codes: dict[int, str] = {}
    for chunk in range(0, len(lengths), 50):
        sent = {}
        for length in lengths[chunk:chunk + 50]:
            score = [length - 2, length - 1] if length > 2 else [0, 0]
            pos = {**start, "match": {"length": length, "score": score, "crawford": False}}
            sent[client.send("cube", position=pos, timeout_ms=120_000)] = length
        for _ in sent:
            reply = client.recv_final(180)
            codes[sent[reply.id]] = "ok" if reply.ok else reply.error["code"]
    # the rules core plays matches up to 255 points; longer ones are refused clearly
    expected = {length: "ok" if length <= MAX_MATCH_LENGTH else "bad_position"
                for length in lengths}
    bad = {length: code for length, code in codes.items() if code != expected[length]}
    assert not bad, bad
    client.close()
    # the gnubg endpoint, at match length 150 (it answered `internal` before)
    gnubg = GnubgClient(daemon.gnubg)
    board = ("board:You:Opp:150:140:145:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:"
             "2:0:1:0:0:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0")
    answer = gnubg.ask(f"evaluation fibsboard {board} plies 0")
    assert len(answer.split()) == 6, answer
    assert gnubg.ask(board) in ("double\n", "roll\n")  # its cube decision (no dice)
    gnubg.close()
    daemon.stop()
