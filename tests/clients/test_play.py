"""The terminal player in a real pseudo-terminal (pexpect), against `jacquetd stdio`."""

from __future__ import annotations

import sys
from pathlib import Path

import pexpect
from jacquetd_protocol.records import parse_record

REPO = Path(__file__).parents[2]
PROMPT = r"Dice (\d)-(\d)\. Your move \(number or notation\)"


def spawn(*args: str) -> pexpect.spawn:
    child = pexpect.spawn(sys.executable, ["-m", "jacquetd_clients.play", *args], cwd=str(REPO),
                          encoding="utf-8", timeout=60, dimensions=(60, 120))
    return child


def test_play_a_move_refuse_an_illegal_one_hint_and_resign(tmp_path: Path) -> None:
    record = tmp_path / "match.txt"
    child = spawn("--seed", "3", "--level", "random", "--save", str(record))
    try:
        child.expect("dice seed 3")
        child.expect(PROMPT)
        # the board is drawn with both sides and the dice; the prompt names its numbers
        # as the dice rolled (not a range of choices)
        assert "pips" in child.before and "rolls" in child.before
        assert f"rolls {child.match.group(1)}-{child.match.group(2)}" in child.before
        child.sendline("24/1")
        child.expect("Illegal move: (.*)\r\n")
        assert "rule" in child.match.group(1)
        child.expect(PROMPT)
        child.sendline("hint")
        child.expect("hint")
        child.expect(PROMPT)
        child.sendline("1")
        child.expect(r"you play \d-\d: ")
        child.expect(PROMPT)  # the bot has moved; our turn again
        child.sendline("help")
        child.expect("resign")
        child.expect(PROMPT)
        child.sendline("resign")
        child.expect("wins 1 point: resignation")
        child.expect("Record saved to")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
    parsed = parse_record(record.read_text())
    game = parsed.games[0]
    assert game.result is not None and game.result.reason == "resign"
    assert game.result.winner == 1 and parsed.players[0] == "you"
    assert [a.kind for a in game.actions[-2:]] == ["resign", "accept"]
    assert any(a.kind == "move" and a.side == 0 for a in game.actions)


def test_watch_two_bots(tmp_path: Path) -> None:
    record = tmp_path / "watch.txt"
    child = spawn("--watch", "--seed", "5", "--level", "random", "--save", str(record))
    try:
        child.expect("Match over", timeout=120)
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
    assert parse_record(record.read_text()).games[0].result is not None


def test_a_variant_the_daemon_does_not_play_is_refused() -> None:
    # the variants are the daemon's to say (`hello`), not a list in the client
    child = spawn("--variant", "chess", "--level", "random")
    try:
        child.expect(r"no variant 'chess'; the daemon plays: jacquet, jacquet-be, backgammon")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 2


def test_two_bots_play_long_nardy_with_nothing_else_to_learn(tmp_path: Path) -> None:
    # the referee and the board take the variant's rules from the daemon's hello (N2: the
    # higher opening die rolls again; N9: oin or mars)
    record = tmp_path / "nardy.txt"
    child = spawn("--watch", "--variant", "long-nardy", "--seed", "4", "--level", "heuristic",
                  "--level2", "random", "--save", str(record))
    try:
        child.expect("Match over", timeout=180)
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
    parsed = parse_record(record.read_text())
    game = parsed.games[0]
    assert parsed.variant == "long-nardy" and game.result is not None
    assert game.result.name in ("oin", "mars") and game.actions[0].kind == "roll"
