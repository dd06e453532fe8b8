"""Adding a command (docs/guides/adding-a-command.md): a toy command, declared through
the registry's public way (`registry.declare`), is served over every transport
(ZeroMQ, TCP, stdio, WebSocket) and listed by `hello`.

`python -m tests.daemon.test_adding_a_command ARGS` is `jacquetd ARGS` with the toy
command declared (as `tests/fault_daemon.py` installs the fault levels: the installed
`jacquetd` has no such command and no way to get one)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jacquetd_protocol.codec import ReplyStreamDecoder, decode_reply, encode_request
from jacquetd_protocol.commands import ArgType, Command, Field, Param
from jacquetd_protocol.errors import ErrorCode, ProtocolError
from jacquetd_protocol.messages import Reply, Request

from jacquetd.daemon import registry
from jacquetd.daemon.front_commands import FrontContext

TOY = Command(
    "toy_sum", "Add two integers (a test's toy command).",
    (Param("a", ArgType.INT, "the first term", required=True, position=0),
     Param("b", ArgType.INT, "the second term", default=0, position=1)),
    (Field("sum", "int", "a + b"),))


def handle_toy_sum(ctx: FrontContext | None, args: dict[str, Any]) -> dict[str, Any]:
    if args["a"] < 0:
        raise ProtocolError(ErrorCode.BAD_ARGUMENT, "a: not negative", field="a")
    return {"sum": args["a"] + args["b"]}


def declare_toy() -> None:
    registry.declare(TOY, registry.Route("toy_sum", registry.Runs.FRONT, front=handle_toy_sum))


# ---- declare's checks (in this process) ---------------------------------------------------

def test_declare_refuses_a_route_without_a_command_or_what_it_runs() -> None:
    with pytest.raises(ValueError, match="its own route"):
        registry.declare(TOY, registry.Route("other", registry.Runs.FRONT,
                                             front=handle_toy_sum))
    with pytest.raises(ValueError, match="needs"):
        registry.declare(TOY, registry.Route("toy_sum", registry.Runs.FRONT))
    with pytest.raises(ValueError, match="its own route"):  # an existing command
        registry.declare(registry.COMMANDS["ping"],
                         registry.Route("ping", registry.Runs.FRONT, front=handle_toy_sum))
    assert "toy_sum" not in registry.ROUTES and "toy_sum" not in registry.COMMANDS


# ---- over every transport -----------------------------------------------------------------

def _launch(tmp_path: Path) -> Any:
    from tests import conftest

    args = ["serve", "--workers", "1", "--db", "off", "--bind", "tcp://127.0.0.1:0",
            "--tcp", "127.0.0.1:0", "--gnubg", "127.0.0.1:0", "--ws", "127.0.0.1:0"]
    return _started([sys.executable, "-m", "tests.daemon.test_adding_a_command", *args],
                    tmp_path / "toy.log", conftest)


def _started(argv: list[str], log_path: Path, conftest: Any) -> Any:
    """The daemon of `argv`, once its banner names its endpoints."""
    import queue
    import threading
    import time

    log_file = open(log_path, "wb")  # noqa: SIM115 - closed below, the child keeps its copy
    proc = subprocess.Popen(argv, cwd=conftest.REPO, env=conftest.daemon_env(),
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=log_file)
    log_file.close()
    lines: queue.Queue[bytes] = queue.Queue()

    def read() -> None:
        assert proc.stdout is not None
        for raw in iter(proc.stdout.readline, b""):
            lines.put(raw)
        lines.put(b"")

    threading.Thread(target=read, daemon=True).start()
    deadline = time.monotonic() + conftest.START_TIMEOUT_S
    while time.monotonic() < deadline:
        try:
            raw = lines.get(timeout=max(0.01, deadline - time.monotonic()))
        except queue.Empty:
            break
        if not raw:
            break
        found = conftest.BANNER_RE.match(raw.decode().strip())
        if found:
            endpoints = dict(w.partition("=")[::2] for w in found["body"].split())
            return conftest.DaemonProcess(proc, endpoints, log_path, raw.decode().strip(), argv)
    proc.kill()
    proc.wait(10)
    raise RuntimeError(f"the toy daemon did not start:\n{log_path.read_text()[-3000:]}")


@pytest.fixture
def toy_daemon(tmp_path: Path) -> Iterator[Any]:
    daemon = _launch(tmp_path)
    try:
        yield daemon
    finally:
        daemon.stop()
        if daemon.proc.stdout is not None:
            daemon.proc.stdout.close()


@pytest.mark.daemon
def test_a_declared_command_is_served_over_every_transport_and_listed(toy_daemon: Any) -> None:
    from websockets.sync.client import connect

    from tests.daemon.wire import TcpClient, ZmqClient

    zc = ZmqClient(toy_daemon.zmq)
    hello = zc.call("hello")
    assert hello.ok and "toy_sum" in hello.result["commands"]
    reply = zc.call("toy_sum", a=2, b=3)
    assert reply.ok and reply.result == {"sum": 5}
    refused = zc.call("toy_sum", a=-1)  # its own error, through the one error mapping
    assert not refused.ok and refused.error["field"] == "a"
    missing = zc.call("toy_sum")  # its parameters are checked by the protocol's table
    assert not missing.ok and missing.error["code"] == "bad_argument"

    tcp = TcpClient(toy_daemon.tcp)
    try:
        tcp.send_line("7 toy_sum 4 5")  # text: the positional words of its parameters
        text = tcp.recv_final()
        assert text.ok and text.result == {"sum": 9}
        tcp.send_bytes(encode_request(Request(8, "toy_sum", {"a": 1}, "msgpack")))
        packed = tcp.recv_final()
        assert packed.ok and packed.result == {"sum": 1}
    finally:
        tcp.close()

    with connect(f"ws://{toy_daemon.endpoints['ws']}/ws", open_timeout=10) as ws:
        ws.send(json.dumps({"id": 9, "cmd": "toy_sum", "a": 10, "b": 20}))
        answer = json.loads(ws.recv(timeout=10))
        assert answer == {"id": 9, "ok": True, "result": {"sum": 30}}
        ws.send(json.dumps({"id": 10, "cmd": "hello"}))
        assert "toy_sum" in json.loads(ws.recv(timeout=10))["result"]["commands"]


@pytest.mark.daemon
def test_a_declared_command_is_served_over_stdio() -> None:
    from tests.conftest import REPO, daemon_env

    requests = b"1 toy_sum 20 22\n2 hello\n" + encode_request(
        Request(3, "toy_sum", {"a": 5}, "msgpack"))
    proc = subprocess.run([sys.executable, "-m", "tests.daemon.test_adding_a_command",
                           "stdio", "--workers", "1"], input=requests, capture_output=True,
                          cwd=REPO, env=daemon_env(), timeout=120)
    assert proc.returncode == 0, proc.stderr.decode()[-3000:]
    items = ReplyStreamDecoder().feed(proc.stdout)
    replies = {r.id: r for r in (decode_reply(i) for i in items if isinstance(i, bytes))
               if isinstance(r, Reply)}
    assert replies[1].ok and replies[1].result == {"sum": 42}
    assert "toy_sum" in replies[2].result["commands"]
    assert replies[3].ok and replies[3].result == {"sum": 5}


if __name__ == "__main__":
    declare_toy()
    from jacquetd.cli import main

    sys.exit(main())
