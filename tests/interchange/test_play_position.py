"""`jacquet-play --position ID`: a game from a pasted gnubg id, XGID or position id, in a
real pseudo-terminal against `jacquetd stdio`."""

from __future__ import annotations

import pexpect

from jacquetd.rules import Position
from tests.clients.test_play import PROMPT, spawn

OPENING_31 = "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10"


def test_a_pasted_xgid_with_its_roll_is_played_on() -> None:
    child = spawn("--position", OPENING_31, "--level", "random", "--seed", "1")
    try:
        child.expect("backgammon from position")
        child.expect("gnubg_id 4HPwATDgc/ABMA:")
        child.expect(PROMPT)
        assert (child.match.group(1), child.match.group(2)) == ("3", "1")
        child.sendline("8/5 6/5")
        child.expect(r"you play 3-1: 8/5 6/5")
        child.expect(r"Roll or double\? \[r/d[^]]*\]: ")  # the bot has moved; the cube is on
        child.sendline("r")
        child.expect(PROMPT)
        child.sendline("resign")
        child.expect("wins 1 point: resignation")
        child.expect("Game over: bot")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0


def test_a_pasted_gnubg_id_and_a_position_id_are_played_to_the_end() -> None:
    race = "XGID=-BBBBB-------------bbbbb--:0:0:1:00:0:0:0:0:10"
    jacquet = Position.initial("jacquet").to_id()
    for pasted in (race, jacquet):
        child = spawn("--position", pasted, "--watch", "--level", "random", "--seed", "2")
        try:
            child.expect("on roll")
            child.expect("Game over", timeout=120)
            child.expect(pexpect.EOF)
        finally:
            child.close(force=True)
        assert child.exitstatus == 0, pasted


def test_a_bad_id_is_refused_with_the_reason() -> None:
    child = spawn("--position", "4HPwATDgc/ABMA:8IluACAACAAM", "--level", "random")
    try:
        child.expect("past bit 66")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 2
