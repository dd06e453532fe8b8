"""What `jacquet-play` says the same way in local and hosted matches: the opening roll,
forced plays, hint lines numbered like the list of plays, the cube prompt's commands,
leaving, the final score and where records go.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

CUBE_HELP = """commands at the cube prompt:
  r, roll      roll the dice
  d, double    offer the cube
  board        draw the board again
  hint         the daemon's cube advice for this position
  resign [N]   resign the game (1 single, 2 gammon/marcia, 3 backgammon/marcia per punto)
  quit         leave the match
  help         this text"""

TAKE_HELP = """commands at the take prompt:
  t, take      take the cube
  d, drop      drop it (lose the game at the present cube value)
  board        draw the board again
  hint         the daemon's advice: take or drop
  quit         leave the match
  help         this text"""


class Console(Protocol):
    colour: bool

    def say(self, text: str = "") -> None: ...

    async def ask(self, prompt: str) -> str: ...


def verb(subject: str, word: str) -> str:
    """`you start`, `bot (heuristic) starts`."""
    return word if subject == "you" else word + "s"


def opening_line(dice: Sequence[int], names: tuple[str, str], starter: int,
                 rolls_again: bool) -> str:
    """`opening roll: you 5, bot (neural-2) 3: you start (and play 5-3).`"""
    who = names[starter]
    then = (f" (and {verb(who, 'roll')} again)" if rolls_again
            else f" (and play {max(dice)}-{min(dice)})")
    return (f"opening roll: {names[0]} {dice[0]}, {names[1]} {dice[1]}: "
            f"{who} {verb(who, 'start')}{then}.")


def move_prompt(dice: Sequence[int]) -> str:
    """The prompt for a play: the dice named as dice, then what may be typed.

    `Dice 1-4. Your move (number or notation) [hint, list, help]: `"""
    return f"Dice {dice[0]}-{dice[1]}. Your move (number or notation) [hint, list, help]: "


def forced_line(name: str, dice: Sequence[int], move: str | None) -> str:
    """A play made without asking: the only legal one."""
    return (f"{name} {verb(name, 'play')} {dice[0]}-{dice[1]}: {move or '(no legal move)'} "
            "(forced: the only legal play)")


def final_line(names: tuple[str, str], score: Sequence[int], winner: int | None) -> str:
    """`Match over: you 1, bot (neural-2) 3. bot (neural-2) wins.` (scores by name)."""
    text = f"Match over: {names[0]} {score[0]}, {names[1]} {score[1]}."
    if winner is not None:
        text += f" {names[winner]} {verb(names[winner], 'win')}."
    return text


def list_numbers(moves: Sequence[str | None]) -> dict[str, int]:
    """Move text -> its number in the list the player types numbers from (1-based)."""
    return {str(move or ""): i for i, move in enumerate(moves, 1)}


def hint_lines(ranking_plays: Sequence[Mapping[str, Any]], numbers: dict[str, int],
               plies: int) -> list[str]:
    """The ranked analysis, each play under its number of the list of plays, so that the
    number typed is the number read."""
    out = [f"hint ({plies}-ply analysis; numbers as in the list of plays):"]
    for rank, p in enumerate(ranking_plays, 1):
        n = numbers.get(str(p.get("move") or ""))
        label = f"{n:>3}." if n is not None else "   -"
        out.append(f"  {label} {p.get('move') or '(no legal move)':<28} equity "
                   f"{p.get('equity', 0.0):+.3f}  win {p.get('win', 0.0):.1%}"
                   + ("  (best)" if rank == 1 else ""))
    return out


def cube_advice(decision: Mapping[str, Any] | None, taking: bool) -> str:
    """One line of the daemon's `cube` result."""
    if not decision:
        return "hint unavailable: the daemon gave no cube advice"
    if taking:
        return f"hint: {decision.get('take', '?')}"
    return f"hint: {str(decision.get('action', '?')).replace('_', ' ')}"


async def confirm_leave(console: Console, consequence: str) -> bool:
    """Ask before leaving; True when the person confirms."""
    answer = (await console.ask(f"Leave the match? {consequence} [y/N]: ")).strip().lower()
    return answer in ("y", "yes")


def records_dir() -> Path:
    """Where finished matches are saved: `records` in the user's data folder for
    jacquet-play (platformdirs; on Linux `$XDG_DATA_HOME/jacquet-play/records`, by default
    `~/.local/share/jacquet-play/records`), never the current folder."""
    import platformdirs

    return platformdirs.user_data_path("jacquet-play", appauthor=False) / "records"


def default_record_path() -> Path:
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    folder = records_dir()
    path = folder / f"jacquet-match-{stamp}.txt"
    n = 2
    while path.exists():
        path = folder / f"jacquet-match-{stamp}-{n}.txt"
        n += 1
    return path


def save_record(text: str, where: str | None) -> Path:
    """Write a record to `where` (None: `default_record_path()`); the path written."""
    path = Path(where) if where else default_record_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


async def prompt_loop(console: Console, prompt: str, answers: dict[str, str],
                      commands: dict[str, Callable[[list[str]], Awaitable[str | None]]]
                      ) -> str:
    """Ask until an answer of `answers` (word -> result) or a command that returns a
    result; other commands (board, hint, help...) run and the prompt is asked again."""
    while True:
        words = (await console.ask(prompt)).split()
        word = words[0].lower() if words else ""
        if word in answers:
            return answers[word]
        if word in commands:
            result = await commands[word](words[1:])
            if result is not None:
                return result
            continue
        console.say(f"answer {' or '.join(sorted({k for k in answers if len(k) > 1}))}, "
                    f"or one of: {', '.join(commands)}")
