"""GNU Backgammon itself drives our gnubg endpoint through a whole 3-point match.

gnubg forfeits an illegal move silently, so the test checks every move we
sent twice: with the rules core (legal in the position of the board gnubg
sent) and against gnubg's own record of the match (exported as text at the
end), which must show each of our moves, in order, leading to the same
position.
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from jacquetd.daemon.gnubg import board_position
from jacquetd.rules import apply_move
from tests.conftest import DaemonProcess

GAMES_DIR_GNUBG = Path("/usr/games/gnubg")
ANSWER_RE = re.compile(r"event=gnubg_answer peer=\S+ request=(?P<req>\S+)(?P<opts>.*?) "
                       r"reply=(?P<reply>'.*')$")


def find_gnubg() -> str | None:
    found = shutil.which("gnubg")
    if found:
        return found
    return str(GAMES_DIR_GNUBG) if GAMES_DIR_GNUBG.exists() else None


@pytest.mark.skipif(find_gnubg() is None, reason="GNU Backgammon (Debian package gnubg) is "
                    "not installed: cannot have the real gnubg drive the daemon")
def test_real_gnubg_plays_a_match_against_the_daemon(
        start_jacquetd: Callable[..., DaemonProcess], tmp_path: Path) -> None:
    gnubg_bin = find_gnubg()
    assert gnubg_bin is not None
    daemon = start_jacquetd("--workers", "2", "--log-level", "debug", "--seed", "11")
    host, port = daemon.gnubg
    record = tmp_path / "match.txt"
    commands = "\n".join([
        "set seed 4711",
        "set player 1 gnu",
        "set player 1 chequerplay evaluation plies 0",
        "set player 1 cubedecision evaluation plies 0",
        f"set player 0 external {host}:{port}",
        "new match 3",
        f"export match text {record}",
        "",
    ])
    home = tmp_path / "home"
    home.mkdir()
    proc = subprocess.run([gnubg_bin, "-t", "-q", "-r"], input=commands.encode(),
                          capture_output=True, timeout=600,
                          env={**os.environ, "HOME": str(home)})
    output = proc.stdout.decode(errors="replace")
    assert proc.returncode == 0, output[-2000:]
    assert "has won the match" in output
    assert "badly formed" not in output

    # Every board gnubg sent and every answer we gave, from the daemon's debug log.
    answers = []
    for line in daemon.log_text().splitlines():
        m = ANSWER_RE.search(line)
        if m:
            answers.append((m["req"], m["opts"].strip(), ast.literal_eval(m["reply"])))
    assert len(answers) > 10
    ours = []
    for board, opts, reply in answers:
        question = board_position(board)
        if opts.startswith("resignation"):
            assert reply in ("accept\n", "reject\n")
        elif not question.actor_on_roll:
            assert reply in ("take\n", "drop\n", "beaver\n")
        elif not question.position.dice:
            assert reply in ("double\n", "roll\n")
        else:
            assert reply.endswith("\n")
            play = apply_move(question.position, reply.strip())  # raises if illegal
            if not play.is_pass:
                ours.append((question.position, play))

    # gnubg's own record: each of our moves was played, none forfeited.
    assert record.exists()
    # gnubg exports one file per game: match.txt, match_002.txt, match_003.txt, ...
    games = [record, *sorted(tmp_path.glob("match_[0-9][0-9][0-9].txt"))]
    recorded = [m for game in games
                for m in re.findall(r"^\* gnubg moves (.+)$", game.read_text(), re.MULTILINE)]
    for k, ((position, play), text) in enumerate(zip(ours, recorded, strict=False)):
        if apply_move(position, text.strip()) != play:
            raise AssertionError(f"move {k}: we answered {play.move!r} in {position.to_id()}, "
                                 f"gnubg recorded {text!r}; {len(ours)} answers, "
                                 f"{len(recorded)} recorded")
    assert len(recorded) == len(ours)
    for (position, play), text in zip(ours, recorded, strict=True):
        assert apply_move(position, text.strip()) == play, (text, play.move)
