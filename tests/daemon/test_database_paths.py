"""One daemon per match database, whatever path names it (a symbolic link, a hard link,
a relative path): the path is resolved before the lock is taken, and the key file lives
beside the resolved file."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from jacquetd.matches import MatchService, MatchStore
from jacquetd.matches.store import KEY_SUFFIX, LOCK_SUFFIX, StoreInUse
from tests.conftest import REPO, DaemonProcess, daemon_env
from tests.daemon.wire import ZmqClient

Start = Callable[..., DaemonProcess]


def test_a_symbolic_link_names_the_same_store(tmp_path: Path) -> None:
    real = tmp_path / "data" / "m.sqlite3"
    first = MatchStore(real)
    try:
        link = tmp_path / "elsewhere" / "link.sqlite3"
        link.parent.mkdir()
        link.symlink_to(real)
        with pytest.raises(StoreInUse) as exc:
            MatchStore(link)
        assert exc.value.pid == os.getpid()
        assert exc.value.db_path == str(real)  # the message names the file, not the link
        # nothing was written beside the link: no key of its own, no lock file
        assert sorted(p.name for p in link.parent.iterdir()) == ["link.sqlite3"]
    finally:
        first.close()
    again = MatchStore(link)  # once free, the link opens the one database, with its key
    try:
        assert again.path == str(real)
        assert (real.parent / (real.name + KEY_SUFFIX)).exists()
        assert not (link.parent / (link.name + KEY_SUFFIX)).exists()
    finally:
        again.close()


def test_a_hard_link_and_a_relative_path_name_the_same_store(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch
                                                             ) -> None:
    real = tmp_path / "m.sqlite3"
    first = MatchStore(real)
    try:
        hard = tmp_path / "hard.sqlite3"
        os.link(real, hard)
        with pytest.raises(StoreInUse):
            MatchStore(hard)
        assert not (tmp_path / ("hard.sqlite3" + KEY_SUFFIX)).exists()
        monkeypatch.chdir(tmp_path)
        with pytest.raises(StoreInUse):
            MatchStore("./sub/../m.sqlite3")
    finally:
        first.close()


def test_a_second_daemon_given_a_link_is_refused_and_the_first_keeps_serving(
        start_jacquetd: Start, tmp_path: Path) -> None:
    real = tmp_path / "data" / "m.sqlite3"
    first = start_jacquetd("--workers", "1", "--db", str(real))
    client = ZmqClient(first.zmq)
    try:
        made = client.call("match_new", variant="jacquet", seat1="random", name0="ann")
        assert made.ok, made
        link = tmp_path / "link.sqlite3"
        link.symlink_to(real)
        second = subprocess.run(
            [sys.executable, "-m", "jacquetd", "serve", "--workers", "1", "--db", str(link),
             "--bind", "tcp://127.0.0.1:0", "--tcp", "off", "--gnubg", "off", "--ws", "off"],
            cwd=REPO, capture_output=True, text=True, timeout=120, env=daemon_env())
        assert second.returncode == 2, second.stderr
        assert f"{real} is in use by process {first.proc.pid}" in second.stderr
        assert not (tmp_path / ("link.sqlite3" + KEY_SUFFIX)).exists()
        assert not (tmp_path / ("link.sqlite3" + LOCK_SUFFIX)).exists()
        # the first daemon's database and key are untouched: it still answers
        state = client.call("match_state", match_id=made.result["match_id"])
        assert state.ok, state
    finally:
        client.close()
        assert first.stop() == 0
    # and it can be opened again by its own key
    store = MatchStore(real)
    try:
        assert MatchService(store).match_state({"match_id": made.result["match_id"]})
    finally:
        store.close()
