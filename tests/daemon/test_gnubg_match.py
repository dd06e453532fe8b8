"""GNU Backgammon itself drives our gnubg endpoint through whole 5-point matches with the
cube, redoubles included (issue 50, item 2).

gnubg forfeits an illegal move silently and stops the match on a reply it cannot read,
so the test checks every answer we sent against gnubg's own record of the match
(exported as text at the end): each of our moves is legal in the position of the board
gnubg sent and was recorded as played, in order; each of our cube actions was recorded
as ours, in order; and every board asked its question of our side (gnubg's player 0,
never the board's You, which is always gnubg's player 1).
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from jacquetd.daemon.gnubg import board_position
from jacquetd.rules import apply_move
from tests.conftest import DaemonProcess
from tests.interchange.gnubg_cli import NO_GNUBG, find_gnubg

ANSWER_RE = re.compile(r"event=gnubg_answer peer=(?P<peer>\S+) request=(?P<req>\S+)"
                       r"(?P<opts>.*?) reply=(?P<reply>'.*')$")
#: gnubg's seeds for the three matches: gnubg's player redoubles in the first two
#: (to 8, and to 4), ours in all three.
SEEDS = (3, 4, 5)
#: How the exported record writes our player's (gnubg's player 0, named gnubg) cube actions.
RECORDED_CUBE = {"double\n": "doubles", "take\n": "accepts", "drop\n": "rejects"}


def play_match(gnubg_bin: str, host: str, port: int, seed: int, folder: Path) -> str:
    """gnubg (player 1 at 0-ply, cube on) plays a 5-point match against the endpoint
    (player 0); its record is exported to `folder`/match*.txt. Returns gnubg's output."""
    folder.mkdir()
    commands = "\n".join([
        f"set seed {seed}",
        "set player 1 gnu",
        "set player 1 chequerplay evaluation plies 0",
        "set player 1 cubedecision evaluation plies 0",
        f"set player 0 external {host}:{port}",
        "new match 5",
        f"export match text {folder / 'match.txt'}",
        "",
    ])
    home = folder / "home"
    home.mkdir()
    proc = subprocess.run([gnubg_bin, "-t", "-q", "-r"], input=commands.encode(),
                          capture_output=True, timeout=600,
                          env={**os.environ, "HOME": str(home)})
    output = proc.stdout.decode(errors="replace")
    assert proc.returncode == 0, output[-2000:]
    return output


def recorded(folder: Path) -> list[tuple[str, str]]:
    """gnubg's record, one game per file: (player name, action) for every move and cube
    action. Player 0 (ours) keeps gnubg's default name, `gnubg`."""
    games = [folder / "match.txt", *sorted(folder.glob("match_[0-9][0-9][0-9].txt"))]
    return [(m[1], m[2]) for game in games
            for m in re.finditer(r"^\* (\S+) (.+)$", game.read_text(), re.MULTILINE)]


@pytest.mark.skipif(find_gnubg() is None, reason=NO_GNUBG)
def test_real_gnubg_plays_5_point_matches_with_the_cube_against_the_daemon(
        start_jacquetd: Callable[..., DaemonProcess], tmp_path: Path) -> None:
    gnubg_bin = find_gnubg()
    assert gnubg_bin is not None
    daemon = start_jacquetd("--workers", "2", "--log-level", "debug", "--seed", "11",
                            "--gnubg-level", "neural")
    host, port = daemon.gnubg
    outputs = {seed: play_match(gnubg_bin, host, port, seed, tmp_path / f"seed{seed}")
               for seed in SEEDS}

    # Every board gnubg sent and every answer we gave, from the daemon's debug log; each
    # match is one connection of gnubg's.
    by_peer: dict[str, list[tuple[str, str, str]]] = {}
    for line in daemon.log_text().splitlines():
        m = ANSWER_RE.search(line)
        if m:
            by_peer.setdefault(m["peer"], []).append(
                (m["req"], m["opts"].strip(), ast.literal_eval(m["reply"])))
    assert len(by_peer) == len(SEEDS)
    their_redoubles = our_redoubles = 0
    for seed, answers in zip(SEEDS, by_peer.values(), strict=True):
        output = outputs[seed]
        assert "has won the match" in output, (seed, output[-2000:])
        assert "badly formed" not in output, seed
        ours: list[tuple[str, object]] = []  # ("cube", word) or ("move", (position, play))
        for board, opts, reply in answers:
            question = board_position(board)
            # gnubg asks its player 0: the side that must answer is not You (field 1)
            assert question.board.on_roll_is_you != question.actor_on_roll, (seed, board)
            cube = question.position.cube
            assert not opts.startswith("resignation"), opts  # gnubg 1.07 never asks
            if not question.actor_on_roll:  # a double to answer
                assert reply in ("take\n", "drop\n"), (seed, board, reply)
                ours.append(("cube", RECORDED_CUBE[reply]))
                their_redoubles += cube is not None and cube.value > 1
            elif not question.position.dice:  # ours to double or roll
                assert reply in ("double\n", "roll\n"), (seed, board, reply)
                if reply == "double\n":
                    ours.append(("cube", "doubles"))
                    our_redoubles += cube is not None and cube.value > 1
            else:
                play = apply_move(question.position, reply.strip())  # raises if illegal
                if not play.is_pass:
                    ours.append(("move", (question.position, play)))
        # gnubg's record of its player 0: each of our answers, in order, none forfeited
        theirs = [action for who, action in recorded(tmp_path / f"seed{seed}")
                  if who == "gnubg" and not action.startswith("cannot move")]
        assert len(theirs) == len(ours), (seed, theirs, ours)
        for k, (action, (kind, detail)) in enumerate(zip(theirs, ours, strict=True)):
            if kind == "cube":
                assert action == detail, (seed, k, action, detail)
            else:
                assert isinstance(detail, tuple) and action.startswith("moves "), (seed, k)
                position, play = detail
                assert apply_move(position, action.removeprefix("moves ")) == play, \
                    (seed, k, action, play.move)
    assert their_redoubles >= 1, "gnubg's player never redoubled: choose other seeds"
    assert our_redoubles >= 1, "our player never redoubled: choose other seeds"
