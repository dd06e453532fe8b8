"""`jacquet-play` through a hosted match: the daemon keeps the match and rolls the dice.

A match started this way lives in the daemon's match database, so the person can
quit at any prompt and come back later, in another terminal or after a restart of
the daemon: `jacquet-play --resume MATCHID --token=TOKEN`, or `--resume` alone for
the last match this program left (remembered in a small JSON file,
`$XDG_STATE_HOME/jacquet-play/last-match.json` by default).

This module only speaks the protocol's `match_*` commands (SPEC.md section 12):
the position, the legal moves, whose turn it is and the events all come from the
daemon.
"""

from __future__ import annotations

import asyncio
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from . import terminal
from .board import render
from .client import JacquetClient
from .errors import EngineError
from .reconnect import ReconnectingClient
from .variants import variant_infos

POLL_S = 0.15
LIST_LIMIT = 15


def command_help(resign: str, leave: str) -> str:
    """The terminal player's list of commands at the move prompt; `resign` and `leave`
    say what `resign` and `quit` do (they differ between a local and a hosted match)."""
    return f"""commands:
  N            play the N-th legal play of the list
  MOVE         play a move in notation: 24/18 18/13, 24/13, 13/7(2), bar/22*, 6/off
  hint         the daemon's ranked analysis of this roll
  list         every legal play
  board        draw the board again
  resign [N]   {resign}
  quit         {leave}
  help         this text
At the cube prompts: r/d (roll or double), t/d (take or drop), board, hint, help, quit."""


HELP = command_help(
    resign="offer to resign the game (1 single, 2 gammon/marcia, 3 backgammon/marcia per\n"
    "               punto)",
    leave="leave (asks first); the match stays on the server: resume it with --resume")


class Console(Protocol):
    colour: bool

    def say(self, text: str = "") -> None: ...

    async def ask(self, prompt: str) -> str: ...


class Leave(Exception):
    """The person left the match (it stays on the server)."""


def state_file() -> Path:
    """Where the last hosted match is remembered."""
    base = os.environ.get("XDG_STATE_HOME") or ""
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".local" / "state"
    return root / "jacquet-play" / "last-match.json"


def remember(path: Path, match_id: str, token: str, side: int,
             address: str | None = None) -> None:
    """Remember the last match left, with the address of the daemon that keeps it (None:
    a `jacquetd stdio` spawned on the user's match database)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({"match_id": match_id, "token": token, "side": side,
                               "address": address}))
    os.chmod(tmp, 0o600)  # the token is the seat's only key
    tmp.replace(path)


def recall(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and "match_id" in data and "token" in data else None


def remembered_address(path: Path) -> str | None:
    """The daemon address of the remembered last match (None: none, or a spawned engine)."""
    last = recall(path)
    address = last.get("address") if last is not None else None
    return address if isinstance(address, str) and address else None


def resume_hint(match_id: str, token: str, address: str | None) -> str:
    """How to come back to a match: the same daemon (its address), the same seat.

    The token is joined to its option with `=`: a token may begin with `-`, which
    the command line would otherwise read as an option of its own.
    """
    where = f" --connect {address}" if address else ""
    return (f"  jacquet-play{where} --resume {match_id} --token={token}\n"
            f"(or `jacquet-play --resume` for the last match)")


SPAWN_HOSTED = ("--db", "default")
"""What a spawned `jacquetd stdio` is given to host matches: it opens the user's match
database only when asked (and refuses it while a daemon owns it)."""


@dataclass
class Seat:
    match_id: str
    token: str
    side: int


class HostedGame:
    """Plays one seat of a hosted match at the keyboard until the match ends or the
    person leaves."""

    def __init__(self, daemon: JacquetClient | ReconnectingClient, console: Console,
                 seat: Seat, names: tuple[str, str], hint_plies: int = 1) -> None:
        # every action is retried in the session after a lost connection or a daemon
        # restart: it is applied once, and its reply comes back (SPEC 12.5)
        self.daemon = (daemon if isinstance(daemon, ReconnectingClient)
                       else ReconnectingClient(daemon))
        self.console = console
        self.seat = seat
        self.names = names  # (this seat, the other)
        self.hint_plies = hint_plies
        self.last_event = 0
        self.state: dict[str, Any] = {}

    async def call(self, cmd: str, **args: Any) -> dict[str, Any]:
        return await self.daemon.request(cmd, match_id=self.seat.match_id, **args)

    async def refresh(self) -> dict[str, Any]:
        self.state = await self.call("match_state", token=self.seat.token)
        return self.state

    def name(self, side: int) -> str:
        return self.names[0] if side == self.seat.side else self.names[1]

    def draw(self) -> None:
        s = self.state
        me = self.seat.side
        on_roll = s["position_side"]
        score = (s["score"][me], s["score"][1 - me])
        same = variant_infos(self.daemon.server)[s["position"]["variant"]].same_direction
        self.console.say(render(s["position"], same_direction=same,
                                viewer_on_roll=on_roll == me, names=self.names,
                                colour=self.console.colour, score=score,
                                match_length=s["length"], dice=s["dice"] or None,
                                on_roll_is_viewer=on_roll == me))

    def show_event(self, e: dict[str, Any]) -> None:
        kind, side = e["type"], e.get("side")
        who = self.name(side) if side is not None else ""
        verb = "" if who == "you" else "s"
        if kind == "game_start":
            self.console.say(f"\n=== game {e['game']}, score {e['score'][0]}-{e['score'][1]}"
                             + (" (Crawford game)" if e.get("crawford") else "") + " ===")
        elif kind == "opening":
            # the dice are by side (side 0's die first); shown by name, this seat first
            me = self.seat.side
            dice = (e["dice"][me], e["dice"][1 - me])
            starter = 0 if e["side"] == me else 1
            rolls_again = e.get("plays_opening_dice") is False or (
                e.get("plays_opening_dice") is None and self.state.get("variant") == "jacquet")
            self.console.say(terminal.opening_line(dice, self.names, starter, rolls_again))
        elif kind == "move":
            move = e["move"] or "(no legal move)"
            self.console.say(f"{who} play{verb} {e['dice'][0]}-{e['dice'][1]}: {move}")
        elif kind in ("double", "take", "drop"):
            self.console.say(f"{who} {kind}{verb}" + (f" (cube {e['value']})"
                                                      if kind == "double" else ""))
        elif kind == "resign":
            self.console.say(f"{who} offer{verb} to resign ({e['name']}, {e['value']} "
                             f"point{'s' if e['value'] != 1 else ''})")
        elif kind in ("accept", "reject"):
            self.console.say(f"{who} {kind}{verb} the resignation")
        elif kind == "game_over":
            winner = self.name(e["winner"])
            self.console.say(f"*** {winner} win{'' if winner == 'you' else 's'} "
                             f"{e['points']} point{'s' if e['points'] != 1 else ''}: "
                             f"{e['name'] or e['reason']}")
        elif kind == "match_over":
            me = self.seat.side
            score = (e["score"][me], e["score"][1 - me])
            self.console.say(terminal.final_line(self.names, score,
                                                 0 if e["winner"] == me else 1))

    async def catch_up(self) -> None:
        """Show the events the person has not seen yet (the other side's actions)."""
        while True:
            reply = await self.call("match_watch", after=self.last_event, follow=False)
            for e in reply["events"]:
                self.last_event = e["n"]
                if e.get("side") != self.seat.side or e["type"] in (
                        "game_over", "match_over", "game_start", "opening"):
                    self.show_event(e)
            if not reply["events"] or self.last_event >= reply["last_event"]:
                return

    async def act(self, cmd: str, **args: Any) -> dict[str, Any] | None:
        try:
            reply = await self.call(cmd, token=self.seat.token, **args)
        except EngineError as exc:
            rule = f" (rule {exc.rule})" if getattr(exc, "rule", None) else ""
            label = "Illegal move" if exc.code == "illegal_move" else "Refused"
            self.console.say(f"{label}: {exc.message}{rule}")
            return None
        for e in reply["events"]:  # our own action: show what it caused, not itself
            self.last_event = max(self.last_event, e["n"])
            if e.get("side") != self.seat.side or e["type"] in ("game_over", "match_over",
                                                                "game_start", "opening"):
                self.show_event(e)
        return reply

    def show_plays(self, everything: bool = False) -> None:
        plays = self.state["legal_moves"]
        shown = plays if everything else plays[:LIST_LIMIT]
        for i, move in enumerate(shown, 1):
            self.console.say(f"  {i:>3}. {move or '(no legal move)'}")
        if len(shown) < len(plays):
            self.console.say(f"  ... {len(plays) - len(shown)} more: type `list`")

    async def hint(self) -> None:
        try:
            analysis = await self.daemon.analyze(self.state["position"], plies=self.hint_plies,
                                                 max_plays=5, partials=False)
            ranking = await analysis.wait()
        except EngineError as exc:
            self.console.say(f"hint unavailable: {exc.message}")
            return
        numbers = terminal.list_numbers(self.state["legal_moves"])
        for line in terminal.hint_lines(ranking.plays, numbers, ranking.plies):
            self.console.say(line)

    async def ask(self, prompt: str) -> str:
        """Ask; `quit` asks to confirm, then leaves (Leave)."""
        while True:
            text = await self.console.ask(prompt)
            if not (text.split() and text.split()[0].lower() in ("quit", "exit")):
                return text
            if await terminal.confirm_leave(self.console, "It stays on the daemon."):
                raise Leave()

    async def my_move(self) -> None:
        dice = self.state["dice"]
        self.draw()
        plays = self.state["legal_moves"]
        if len(plays) == 1:  # forced: played at once, as in a local match, and shown
            reply = await self.act("match_move", move=plays[0] or "pass")
            if reply is not None:
                self.console.say(terminal.forced_line("you", dice,
                                                      self._played(reply) or plays[0]))
                return
        self.show_plays()
        while True:
            text = await self.ask(terminal.move_prompt(dice))
            words = text.split()
            if not words:
                continue
            word = words[0].lower()
            plays = self.state["legal_moves"]
            if word.isascii() and word.isdigit():
                n = int(word)
                if not 1 <= n <= len(plays):
                    self.console.say(f"no play number {n}: 1-{len(plays)}")
                    continue
                move = plays[n - 1] or "pass"
            elif word == "hint":
                await self.hint()
                continue
            elif word == "list":
                self.show_plays(everything=True)
                continue
            elif word == "board":
                self.draw()
                continue
            elif word == "help":
                self.console.say(HELP)
                continue
            elif word == "resign":
                if await self.act("match_resign", points=words[1] if len(words) > 1 else "1"):
                    return
                continue
            else:
                move = text
            reply = await self.act("match_move", move=move)
            if reply is not None:
                self.console.say(f"you play {dice[0]}-{dice[1]}: "
                                 f"{self._played(reply) or move}")
                return

    @staticmethod
    def _played(reply: dict[str, Any]) -> str | None:
        for e in reply["events"]:
            if e["type"] == "move":
                return str(e["move"]) or "(no legal move)"
        return None

    async def _cube_hint(self, taking: bool) -> None:
        try:
            decision = await self.daemon.cube(dict(self.state["position"], dice=[]),
                                              plies=self.hint_plies)
        except EngineError as exc:
            self.console.say(f"hint unavailable: {exc.message}")
            return
        self.console.say(terminal.cube_advice(decision, taking))

    async def _cube_prompt(self, prompt: str, answers: dict[str, str], taking: bool) -> str:
        """A cube question where board, hint and help work and quit asks first."""
        async def board(_: list[str]) -> None:
            self.draw()

        async def hint(_: list[str]) -> None:
            await self._cube_hint(taking)

        async def show_help(_: list[str]) -> None:
            self.console.say(terminal.TAKE_HELP if taking else terminal.CUBE_HELP)

        async def leave(_: list[str]) -> None:
            if await terminal.confirm_leave(self.console, "It stays on the daemon."):
                raise Leave()

        async def resign(words: list[str]) -> str | None:
            if await self.act("match_resign", points=words[0] if words else "1"):
                return "resigned"
            return None

        commands: dict[str, Any] = {"board": board, "hint": hint, "help": show_help,
                                    "quit": leave, "exit": leave}
        if not taking:
            commands["resign"] = resign
        self.draw()
        return await terminal.prompt_loop(self.console, prompt, answers, commands)

    async def my_turn(self) -> None:
        s = self.state
        phase, may = s["phase"], s["may"][self.seat.side]
        if phase == "roll":
            if "double" in may:
                answer = await self._cube_prompt(
                    "Roll or double? [r/d, board, hint, help]: ",
                    {"r": "roll", "roll": "roll", "": "roll", "d": "double",
                     "double": "double"}, taking=False)
                if answer == "resigned":
                    return
                if answer == "double":
                    await self.act("match_double")
                    return
            await self.act("match_roll")
        elif phase == "move":
            await self.my_move()
        elif phase == "double":
            value = (s["cube_state"] or {}).get("value", 1) * 2
            answer = await self._cube_prompt(
                f"Doubled to {value}: take or drop? [t/d, board, hint, help]: ",
                {"t": "take", "take": "take", "d": "drop", "drop": "drop"}, taking=True)
            await self.act("match_take" if answer == "take" else "match_drop")
        elif phase == "resign":
            offer = s["resignation"] or {}
            while True:
                answer = (await self.ask(f"{self.names[1]} offers to resign "
                                         f"({offer.get('name', '?')}): accept or reject? "
                                         "[a/r]: ")).lower()
                if answer in ("a", "accept", "r", "reject"):
                    await self.act("match_resign",
                                   answer="accept" if answer.startswith("a") else "reject")
                    return

    async def play(self) -> dict[str, Any]:
        """Until the match is over (returns the final state) or the person leaves (Leave)."""
        await self.refresh()
        await self.catch_up()
        while True:
            s = await self.refresh()
            if s["status"] not in ("playing", "adjourned"):
                await self.catch_up()
                return s
            if s["to_act"] == self.seat.side:
                await self.my_turn()
            else:
                await self.catch_up()
                await asyncio.sleep(POLL_S)
