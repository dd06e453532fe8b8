"""CurveZMQ: ``jacquetd keys`` makes key pairs; an authorised client is served, a
client whose key is not in the allowed folder gets nothing; the unauthenticated
endpoints stay off unless asked for."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import zmq
import zmq.auth

from tests.conftest import REPO, DaemonProcess, daemon_env
from tests.daemon.wire import ZmqClient


def make_keys(folder: Path, name: str) -> tuple[bytes, bytes]:
    proc = subprocess.run([sys.executable, "-m", "jacquetd", "keys", str(folder), "--name", name],
                          capture_output=True, cwd=REPO, env=daemon_env(), timeout=60)
    assert proc.returncode == 0, proc.stderr
    public, secret = zmq.auth.load_certificate(str(folder / f"{name}.key_secret"))
    assert secret is not None
    return public, secret


@pytest.mark.skipif(not zmq.has("curve"), reason="libzmq built without CurveZMQ")
def test_curve_authorised_and_refused(start_jacquetd: Callable[..., DaemonProcess],
                                      tmp_path: Path) -> None:
    server_dir, allowed, stranger_dir = (tmp_path / d for d in ("server", "allowed", "stranger"))
    server_public, _ = make_keys(server_dir, "server")
    good_public, good_secret = make_keys(allowed, "client")
    (allowed / "client.key_secret").unlink()  # the folder holds public keys only
    bad_public, bad_secret = make_keys(stranger_dir, "intruder")
    daemon = start_jacquetd("--workers", "1", "--curve-secret",
                            str(server_dir / "server.key_secret"), "--curve-clients",
                            str(allowed), "--tcp", "off", "--gnubg", "off")
    assert "curve=on" in daemon.banner
    assert set(daemon.endpoints) >= {"zmq"} and "tcp" not in daemon.endpoints

    good = ZmqClient(daemon.zmq, curve=(good_public, good_secret, server_public))
    bad = ZmqClient(daemon.zmq, curve=(bad_public, bad_secret, server_public))
    plain = ZmqClient(daemon.zmq)
    try:
        assert good.call("ping").ok
        for refused in (bad, plain):
            # Refused at the handshake: the send finds no peer, or the reply never comes.
            with pytest.raises((TimeoutError, zmq.Again)):
                refused.send("ping")
                refused.recv(timeout=1.5)
        assert good.call("legal_moves", position="start", dice=[6, 5]).ok
    finally:
        for client in (good, bad, plain):
            client.close()


def test_curve_turns_plain_endpoints_off_by_default(tmp_path: Path) -> None:
    from jacquetd.cli import build_parser, load_config

    make_keys(tmp_path / "server", "server")
    (tmp_path / "allowed").mkdir()
    args = build_parser().parse_args(["serve", "--curve-secret",
                                      str(tmp_path / "server" / "server.key_secret"),
                                      "--curve-clients", str(tmp_path / "allowed")])
    cfg = load_config(args)
    assert cfg.curve and cfg.tcp is None and cfg.gnubg is None and cfg.zmq_bind is not None
