"""The terminal player on a hosted match of the real daemon (pexpect): start a match,
move, quit, resume it in a new process (from the remembered match, then by id and
token), move again, resign; the daemon kept everything and exports the record."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from pathlib import Path

import pexpect
from jacquetd_clients import hosted, play
from jacquetd_protocol.records import parse_record

from tests.conftest import DaemonProcess, daemon_env

REPO = Path(__file__).parents[2]
PROMPT = r"Dice (\d)-(\d)\. Your move \(number or notation\)"


def spawn(*args: str) -> pexpect.spawn:
    return pexpect.spawn(sys.executable, ["-m", "jacquetd_clients.play", "--no-color", *args],
                         cwd=str(REPO), env=daemon_env(), encoding="utf-8", timeout=60,
                         dimensions=(60, 120))


def test_start_move_quit_resume_move(start_jacquetd: Callable[..., DaemonProcess],
                                     tmp_path: Path) -> None:
    daemon = start_jacquetd("--workers", "1", "--gnubg", "off", "--db",
                            str(tmp_path / "matches.sqlite3"))
    connect = ["--connect", daemon.zmq, "--state-file", str(tmp_path / "last.json")]
    record = tmp_path / "match.txt"

    child = spawn(*connect, "--variant", "backgammon", "--length", "3", "--level", "random",
                  "--seed", "11")
    try:
        child.expect(r"hosted match ([0-9a-f]{16})")
        match_id = child.match.group(1)
        child.expect(PROMPT)
        child.sendline("1")
        child.expect(r"you play \d-\d: ")
        child.expect(PROMPT)  # the daemon's bot moved; our turn again
        child.sendline("quit")
        child.expect(r"\[y/N\]: ")
        child.sendline("y")
        child.expect(r"--connect (\S+) --resume ([0-9a-f]{16}) --token=(\S+)")
        assert child.match.group(1) == daemon.zmq  # the hint names the daemon that keeps it
        assert child.match.group(2) == match_id
        token = child.match.group(3)
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0

    assert json.loads((tmp_path / "last.json").read_text())["address"] == daemon.zmq
    # the remembered match, at the remembered daemon (no --connect)
    child = spawn("--state-file", str(tmp_path / "last.json"), "--resume")
    try:
        child.expect(f"Resuming match {match_id}")
        child.expect(PROMPT)
        child.sendline("24/1")
        child.expect("Illegal move: ")
        child.expect(PROMPT)
        child.sendline("1")
        child.expect(r"you play \d-\d: ")
        child.expect(PROMPT)
        child.sendline("quit")
        child.expect(r"\[y/N\]: ")
        child.sendline("y")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)

    child = spawn(*connect, "--resume", match_id, f"--token={token}", "--save", str(record))
    try:
        child.expect(f"Resuming match {match_id}")
        child.expect(PROMPT)
        child.sendline("resign 3")
        child.expect(r"Match over: bot \(random\) wins|offers|wins")
        child.expect("Record saved to")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
    parsed = parse_record(record.read_text())
    assert parsed.headers["Match"] == match_id and parsed.headers["Status"] == "over"
    moves = [a for g in parsed.games for a in g.actions if a.kind == "move" and a.side == 0]
    assert len(moves) >= 2  # one before quitting, one after resuming
    assert re.search(r"0 resign 3\n1 accept", record.read_text())


def test_the_resume_hint_parses_back_when_the_token_begins_with_a_dash() -> None:
    """A seat token is URL-safe base64 and may begin with `-`: the printed command
    must still give it to `--token`, not read it as an option."""
    token = "-i4ZrprjVJFBbtG2_G59Unek"
    hint = hosted.resume_hint("3bfff651c303d477", token, "tcp://127.0.0.1:7780")
    argv = hint.splitlines()[0].split()
    assert argv[0] == "jacquet-play"
    args = play.build_parser().parse_args(argv[1:])
    assert (args.connect, args.resume, args.token) == ("tcp://127.0.0.1:7780",
                                                       "3bfff651c303d477", token)
