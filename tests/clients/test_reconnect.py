"""The client library keeps its session across lost connections and daemon restarts.

A real `jacquetd serve` on fixed ports with a match database is killed and started
again; the `ReconnectingClient` reconnects in the same session and resends, and a
retried match action gets its stored reply, tokens included (SPEC 12.5).
"""

from __future__ import annotations

import asyncio
import signal
import socket
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from jacquetd_clients.client import JacquetClient
from jacquetd_clients.reconnect import ReconnectingClient

from tests.conftest import DaemonProcess

Start = Callable[..., DaemonProcess]
NEW = {"variant": "jacquet", "name0": "ann", "name1": "bob"}  # two client seats, seeded dice


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def daemon_args(db: Path, zmq_port: int, tcp_port: int) -> tuple[str, ...]:
    return ("--workers", "1", "--db", str(db), "--bind", f"tcp://127.0.0.1:{zmq_port}",
            "--tcp", f"127.0.0.1:{tcp_port}", "--gnubg", "off")


async def open_client(transport: str, zmq_port: int, tcp_port: int,
                      session: str | None = None) -> JacquetClient:
    if transport == "tcp":
        return await JacquetClient.open_stream("127.0.0.1", tcp_port, timeout=5.0,
                                               session=session)
    return await JacquetClient.connect(f"tcp://127.0.0.1:{zmq_port}", timeout=5.0,
                                       session=session)


@pytest.mark.parametrize("transport", ["tcp", pytest.param("zmq", marks=pytest.mark.slow)])
def test_hosted_actions_survive_a_daemon_restart(start_jacquetd: Start, tmp_path: Path,
                                                 transport: str) -> None:
    zmq_port, tcp_port = free_port(), free_port()
    args = daemon_args(tmp_path / "m.sqlite3", zmq_port, tcp_port)
    daemons = [start_jacquetd(*args)]

    def restart() -> None:
        daemons[-1].stop(signal.SIGKILL)
        daemons.append(start_jacquetd(*args))

    async def scenario() -> None:
        first_client = await open_client(transport, zmq_port, tcp_port)
        link = ReconnectingClient(first_client, attempts=60, pause_s=0.1, max_pause_s=0.5)
        session = link.session
        assert session is not None and session.startswith("s1."), "hello gave a session key"

        # 1. a match_new whose reply was lost: it was stored, but the client never read it
        rid = link.new_id()
        lost = await open_client(transport, zmq_port, tcp_port, session=session)
        assert lost.session == session, "hello resumed the session it presented"
        created = await lost.request("match_new", request_id=rid, **NEW)
        await lost.close()
        restart()
        again = await link.request("match_new", request_id=rid, **NEW)
        if transport == "tcp":  # a ZeroMQ socket reconnects by itself to the same address
            assert link.reconnections >= 1
        assert again["replayed"] is True and not again.get("withheld")
        assert again["match_id"] == created["match_id"]
        assert again["tokens"] == created["tokens"], "the retry got the tokens back"
        assert again["owner_token"] == created["owner_token"]

        # 2. an action sent while the daemon is down: retried until it is back, applied once
        match_id = created["match_id"]
        state = await link.request("match_state", match_id=match_id)
        side = state["to_act"]
        token = created["tokens"][side]
        before = state["actions"]
        down = threading.Thread(target=restart)
        down.start()  # kills the daemon now and starts it again
        await asyncio.sleep(0.2)
        rolled = await link.request("match_roll", match_id=match_id, token=token)
        await asyncio.to_thread(down.join)
        assert rolled["actions"] == before + 1
        after = await link.request("match_state", match_id=match_id)
        assert after["actions"] == before + 1, "the roll was applied once"
        assert after["phase"] == "move" and after["dice"]

        # 3. the session is this client's only: another session's retry gets no tokens
        other = await open_client(transport, zmq_port, tcp_port)
        assert other.session != session
        foreign = await other.request("match_new", request_id=rid, **NEW)
        assert not foreign.get("replayed") and foreign["match_id"] != created["match_id"]
        await other.close()
        await link.close()
        await first_client.close()

    asyncio.run(scenario())
    assert len(daemons) == 3
