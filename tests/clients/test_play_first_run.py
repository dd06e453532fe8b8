"""What a new user meets in `jacquet-play` (pexpect, real engine): the opening roll, forced
plays, hint numbers, the cube prompt, quitting, where the record goes, the final score,
an engine that cannot start, and an engine found without PATH and without its info logs.

Seeds (client-side dice, `SeededDice`): 5 gives the opening to "you" (5-3); in jacquet
your first play is then forced (6-3 re-rolled, J2/J6), in backgammon you play 5-3.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable
from pathlib import Path

import pexpect
import pytest

from tests.conftest import DaemonProcess, daemon_env

REPO = Path(__file__).parents[2]
PROMPT = r"Dice (\d)-(\d)\. Your move \(number or notation\)"
CUBE_PROMPT = r"Roll or double\? \[r/d, board, hint, help\]: "
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def env_for(tmp_path: Path) -> dict[str, str]:
    """The environment of a user: the data folder in tmp_path, and a PATH without this
    Python's `bin` folder (as a cron job or `venv/bin/jacquet-play` would have)."""
    env = daemon_env()
    env["XDG_DATA_HOME"] = str(tmp_path / "data")
    env["XDG_STATE_HOME"] = str(tmp_path / "state")
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep)
                                  if p and Path(p).resolve() != Path(sys.executable).parent
                                  .resolve() and Path(p) != Path(sys.executable).parent)
    env.pop("JACQUETD_LOG_LEVEL", None)
    return env


def spawn(tmp_path: Path, *args: str, cwd: Path | None = None) -> pexpect.spawn:
    return pexpect.spawn(sys.executable, ["-m", "jacquetd_clients.play", "--no-color", *args],
                         cwd=str(cwd or tmp_path), env=env_for(tmp_path), encoding="utf-8",
                         timeout=90, dimensions=(60, 120))


def finish(child: pexpect.spawn) -> int:
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus is not None
    return int(child.exitstatus)


def test_opening_roll_and_forced_play_are_shown_and_the_engine_is_quiet(
        tmp_path: Path) -> None:
    child = spawn(tmp_path, "--seed", "5", "--level", "random")
    try:
        child.expect(r"opening roll: you (\d), bot \(random\) (\d): you start "
                     r"\(and roll again\)\.")
        assert child.match.group(1) == "5" and child.match.group(2) == "3"
        # jacquet, your first play with 6-3 is forced: made at once, and shown
        child.expect(r"you play 6-3: (\S+ \S+) \(forced: the only legal play\)")
        child.expect(PROMPT)
        seen = ANSI.sub("", child.before)
        child.sendline("quit")
        child.expect(r"Leave the match\? It is not saved\. \[y/N\]: ")
        child.sendline("y")
        child.expect("Left the match; nothing saved.")
        status = finish(child)
    finally:
        child.close(force=True)
    assert status == 0
    # no "you starts", no info line of the spawned engine (it logs warnings only)
    assert "you starts" not in seen
    assert "level=info" not in seen and "event=" not in seen


def test_hint_numbers_are_the_list_numbers(tmp_path: Path) -> None:
    child = spawn(tmp_path, "--seed", "5", "--level", "random", "--variant", "backgammon")
    try:
        child.expect(PROMPT)
        child.sendline("list")
        child.expect(PROMPT)
        listed = dict((m[1], int(m[0])) for m in
                      re.findall(r"^\s+(\d+)\. (\S[^\r\n\[]*?)\s*(?:\[.*)?\r$",
                                 ANSI.sub("", child.before), flags=re.M))
        child.sendline("hint")
        child.expect(PROMPT)
        hinted = re.findall(r"^\s+(\d+)\. (\S.*?)\s+equity", ANSI.sub("", child.before),
                            flags=re.M)
        child.sendline("quit")
        child.expect(r"\[y/N\]")
        child.sendline("yes")
        finish(child)
    finally:
        child.close(force=True)
    assert len(listed) > 5 and hinted
    for number, move in hinted:
        assert listed[move] == int(number), (move, number)
    # the number shown is the number that plays it: the first hint line's play is N
    assert hinted[0][1] in listed


def test_cube_prompt_redraws_and_answers_board_hint_help(tmp_path: Path) -> None:
    child = spawn(tmp_path, "--seed", "5", "--level", "random", "--variant", "backgammon",
                  "--cube")
    try:
        child.expect(PROMPT)  # the opening roll is played at once (5-3), no cube
        child.sendline("1")
        child.expect(CUBE_PROMPT)  # the bot moved; our turn begins with the cube
        assert "pips" in child.before  # the board is drawn before the question
        child.sendline("board")
        child.expect(CUBE_PROMPT)
        assert "pips" in child.before
        child.sendline("hint")
        child.expect(r"hint: (double|no double|roll|too good|\S+)")
        child.expect(CUBE_PROMPT)
        child.sendline("help")
        child.expect("commands at the cube prompt")
        child.expect(CUBE_PROMPT)
        child.sendline("maybe")
        child.expect("answer double or roll")
        child.expect(CUBE_PROMPT)
        child.sendline("r")
        child.expect(PROMPT)
        child.sendline("quit")
        child.expect(r"\[y/N\]")
        child.sendline("n")  # not confirmed: the game goes on
        child.expect(PROMPT)
        child.sendline("quit")
        child.expect(r"\[y/N\]")
        child.sendline("y")
        status = finish(child)
    finally:
        child.close(force=True)
    assert status == 0


def test_record_goes_to_the_data_folder_and_the_score_names_each_side(tmp_path: Path) -> None:
    workdir = tmp_path / "checkout"
    workdir.mkdir()
    child = spawn(tmp_path, "--seed", "5", "--level", "random", "--variant", "backgammon",
                  "--length", "3", cwd=workdir)
    try:
        child.expect(PROMPT)
        child.sendline("resign")
        child.expect(PROMPT)  # a match to 3: the next game
        child.sendline("resign 3")
        child.expect(r"Match over: you 0, bot \(random\) (\d+)\. bot \(random\) wins\.")
        assert int(child.match.group(1)) >= 3
        child.expect(r"Record saved to (\S+)\r\n")
        path = Path(child.match.group(1))
        status = finish(child)
    finally:
        child.close(force=True)
    assert status == 0
    assert path.parent == tmp_path / "data" / "jacquet-play" / "records"
    assert path.read_text().startswith(";") or "game 1" in path.read_text()
    assert list(workdir.iterdir()) == []  # nothing written into the current folder


@pytest.mark.parametrize("engine", ["/nonexistent/jacquetd", "false"])
def test_an_engine_that_does_not_start_is_its_own_error(tmp_path: Path, engine: str) -> None:
    child = spawn(tmp_path, "--daemon", engine)
    try:
        child.expect(r"jacquet-play: cannot start the engine: ")
        status = finish(child)
    finally:
        child.close(force=True)
    assert status == 4


def test_hosted_forced_play_quit_asks_and_leaves_with_status_0(
        start_jacquetd: Callable[..., DaemonProcess], tmp_path: Path) -> None:
    """Hosted (the daemon rolls): the opening roll is shown, a forced play is made at once
    and shown as in a local match (in jacquet they are frequent: the courier moves alone,
    J6), and quit asks before leaving the match on the daemon."""
    daemon = start_jacquetd("--workers", "1", "--gnubg", "off", "--db",
                            str(tmp_path / "matches.sqlite3"))
    child = spawn(tmp_path, "--connect", daemon.zmq, "--level", "random", "--seed", "1",
                  "--state-file", str(tmp_path / "last.json"))
    forced = None
    try:
        child.expect(r"opening roll: you \d, bot \(random\) \d: (you start|bot \(random\) "
                     r"starts) \(and (roll|rolls) again\)\.")
        for _ in range(40):
            child.expect(PROMPT)
            forced = re.search(r"you play \d-\d: .* \(forced: the only legal play\)",
                               child.before)
            if forced:
                break
            child.sendline("1")
        child.sendline("quit")
        child.expect(r"Leave the match\? It stays on the daemon\. \[y/N\]: ")
        child.sendline("n")
        child.expect(PROMPT)
        child.sendline("quit")
        child.expect(r"\[y/N\]: ")
        child.sendline("y")
        child.expect("--resume")
        status = finish(child)
    finally:
        child.close(force=True)
    assert forced, "no forced play in 40 turns"
    assert status == 0


def test_hosted_cube_prompt_redraws_and_answers_board_hint_help(
        start_jacquetd: Callable[..., DaemonProcess], tmp_path: Path) -> None:
    daemon = start_jacquetd("--workers", "1", "--gnubg", "off", "--db",
                            str(tmp_path / "matches.sqlite3"))
    child = spawn(tmp_path, "--connect", daemon.zmq, "--level", "random", "--variant",
                  "backgammon", "--cube", "--seed", "2", "--state-file",
                  str(tmp_path / "last.json"))
    try:
        for _ in range(20):
            if child.expect([PROMPT, CUBE_PROMPT]) == 1:
                break
            child.sendline("1")
        else:
            pytest.fail("no cube prompt in 20 turns")
        assert "pips" in child.before  # the board is drawn before the question
        child.sendline("board")
        child.expect(CUBE_PROMPT)
        assert "pips" in child.before
        child.sendline("hint")
        child.expect(r"hint: \S+")
        child.expect(CUBE_PROMPT)
        child.sendline("help")
        child.expect("commands at the cube prompt")
        child.expect(CUBE_PROMPT)
        child.sendline("r")
        child.expect([PROMPT, r"forced: the only legal play"])
        child.sendline("quit")
        child.expect(r"\[y/N\]: ")
        child.sendline("y")
        status = finish(child)
    finally:
        child.close(force=True)
    assert status == 0
