"""`jacquet-play`: play a match against a bot in the terminal, or watch two bots.

    jacquet-play                         # spawns `jacquetd stdio`, one game of jacquet
    jacquet-play --length 5 --level heuristic --variant backgammon --cube
    jacquet-play --connect tcp://127.0.0.1:5555 --seed 42
    jacquet-play --watch --level random --level2 heuristic

At your turn: type a number from the list of legal plays, or a move in
notation (`24/18 18/13`, `24/13`, `bar/22*`, `6/off`), or `hint` (the
ranked analysis), `list` (every legal play), `board`, `resign` [1-3],
`help`, `quit`. At the cube prompts `board`, `hint` and `help` work too. A forced
play (the only legal one) is made at once and shown. The finished match is saved as a
match record (RECORDS.md) in the user's data folder (the path is printed).

The board is drawn from the structured positions the daemon sends; this
program knows nothing of the rules. Spawning its engine (`python -m jacquetd stdio`
with this Python, unless `--daemon` names another), the dice are
rolled here, from a seed that is printed and recorded so a match can be
replayed. Connected to a daemon that hosts matches (or with `--hosted`), the
match is a hosted one: the daemon keeps it and rolls the dice, and `quit`
leaves it on the daemon, to continue later:

    jacquet-play --connect tcp://127.0.0.1:7780 --length 3
    jacquet-play --connect tcp://127.0.0.1:7780 --resume MATCHID --token=TOKEN
    jacquet-play --connect tcp://127.0.0.1:7780 --resume      # the last match left
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import logging
import random
import sys
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from jacquetd_protocol.records import format_record

from . import hosted, terminal
from .about import version_text
from .board import colour_enabled, render
from .client import JacquetClient, Ranking
from .errors import EngineError, EngineStartError, IllegalMoveError
from .game import (
    CubeAdvisedPlayer,
    EngineFault,
    GameOutcome,
    GameState,
    Observer,
    Player,
    PlayMap,
    PositionMap,
    Referee,
    Resign,
    SeededDice,
    Turn,
    play_match,
)
from .reconnect import ReconnectingClient
from .spawning import EXIT_ENGINE_START, default_engine_command, spawn_engine

log = logging.getLogger(__name__)

LIST_LIMIT = 15
HELP = hosted.command_help(
    resign="resign the game (1 single, 2 gammon/marcia, 3 backgammon/marcia per punto)",
    leave="leave without finishing the match (asks first)")


class Quit(Exception):
    """The user left the match."""


class Console:
    """Where the program talks to the user (stdout and stdin, read without blocking the
    event loop)."""

    def __init__(self, out: TextIO, colour: bool) -> None:
        self.out = out
        self.colour = colour

    def say(self, text: str = "") -> None:
        self.out.write(text + "\n")
        self.out.flush()

    async def ask(self, prompt: str) -> str:
        self.out.write(prompt)
        self.out.flush()
        line: str = await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
        if not line:
            raise Quit()
        return line.strip()


class Display(Observer):
    """Shows the game as it goes, from the point of view of seat `viewer`."""

    def __init__(self, console: Console, viewer: int, names: tuple[str, str],
                 show_every_move: bool) -> None:
        self.console = console
        self.viewer = viewer
        self.names = names
        self.show_every_move = show_every_move
        self.state: GameState | None = None

    def draw(self, state: GameState, dice: tuple[int, int] | None = None) -> None:
        me, other = self.viewer, 1 - self.viewer
        self.console.say(render(state.position, same_direction=state.rules.same_direction,
                                viewer_on_roll=state.turn == me,
                                names=(self.names[me], self.names[other]),
                                colour=self.console.colour,
                                score=(state.score[me], state.score[other]),
                                match_length=state.match_length, dice=dice,
                                on_roll_is_viewer=state.turn == me))

    async def game_started(self, state: GameState) -> None:
        self.state = state
        self.console.say(f"\n=== game, score {state.score[0]}-{state.score[1]}"
                         + (" (Crawford game)" if state.crawford else "") + " ===")
        if state.opening is not None:
            self.console.say(terminal.opening_line(
                state.opening, self.names, state.turn,
                not state.rules.opening_plays_opening_dice))
        else:
            starter = self.names[state.turn]
            self.console.say(f"{starter} {terminal.verb(starter, 'start')}.")

    async def rolled(self, state: GameState, seat: int, dice: tuple[int, int]) -> None:
        if self.show_every_move or seat == self.viewer:
            self.draw(state, dice)

    async def moved(self, state: GameState, seat: int, dice: tuple[int, int],
                    play: PlayMap) -> None:
        if play.get("forced"):
            self.console.say(terminal.forced_line(self.names[seat], dice, play["move"]))
            return
        move = play["move"] or "(no legal move)"
        self.console.say(f"{self.names[seat]} {_verb(self.names[seat], 'play')} "
                         f"{dice[0]}-{dice[1]}: {move}")

    async def cube_action(self, state: GameState, seat: int, action: str) -> None:
        self.console.say(f"{self.names[seat]} {_verb(self.names[seat], action)}")

    async def game_over(self, state: GameState, outcome: GameOutcome) -> None:
        if outcome.reason == "bear-off":
            self.draw(state)
        why = {"bear-off": outcome.name, "drop": "the double was dropped",
               "resign": f"resignation ({outcome.name})",
               "forfeit": f"forfeit ({outcome.fault}: {outcome.fault_message})"}[outcome.reason]
        winner = self.names[outcome.winner]
        self.console.say(f"*** {winner} {_verb(winner, 'win')} {outcome.points} point"
                         f"{'s' if outcome.points != 1 else ''}: {why}")


def _verb(subject: str, verb: str) -> str:
    return terminal.verb(subject, verb)


class BotPlayer(CubeAdvisedPlayer):
    """A bot level of the daemon."""

    def __init__(self, daemon: JacquetClient, level: str | None, *, plies: int | None,
                 movetime_ms: int | None, name: str) -> None:
        self.daemon = daemon
        self.level = level
        self.plies = plies
        self.movetime_ms = movetime_ms
        self.name = name

    async def choose(self, turn: Turn) -> PlayMap:
        try:
            result = await self.daemon.best_move(turn.position, level=self.level,
                                                 plies=self.plies, seed=turn.seed,
                                                 movetime_ms=self.movetime_ms)
        except EngineError as exc:
            raise EngineFault("error", str(exc)) from None
        play: PlayMap = result["play"]
        return play

    async def _cube(self, position: PositionMap) -> Mapping[str, Any] | None:
        try:
            return await self.daemon.cube(dict(position, dice=[]), plies=self.plies)
        except EngineError:
            return None



class HumanPlayer(Player):
    """The person at the keyboard."""

    def __init__(self, console: Console, daemon: JacquetClient, display: Display,
                 name: str = "you", hint_plies: int = 1) -> None:
        self.console = console
        self.daemon = daemon
        self.display = display
        self.name = name
        self.hint_plies = hint_plies

    def show_plays(self, plays: Sequence[PlayMap], everything: bool = False) -> None:
        shown = plays if everything else plays[:LIST_LIMIT]
        for i, play in enumerate(shown, 1):
            extra = []
            if play.get("hits"):
                extra.append(f"hits {play['hits']}")
            if play.get("borne_off"):
                extra.append(f"off {play['borne_off']}")
            self.console.say(f"  {i:>3}. {play['move'] or '(no legal move)'}"
                             + (f"   [{', '.join(extra)}]" if extra else ""))
        if len(shown) < len(plays):
            self.console.say(f"  ... {len(plays) - len(shown)} more: type `list`")

    async def hint(self, turn: Turn) -> None:
        try:
            analysis = await self.daemon.analyze(turn.position, plies=self.hint_plies,
                                                 max_plays=5, partials=False)
            ranking: Ranking = await analysis.wait()
        except EngineError as exc:
            self.console.say(f"hint: the daemon has no analysis here ({exc.message})")
            try:
                best = await self.daemon.best_move(turn.position, seed=turn.seed)
                self.console.say(f"hint: its default bot would play {best['play']['move']}")
            except EngineError as exc2:
                self.console.say(f"hint unavailable: {exc2.message}")
            return
        numbers = terminal.list_numbers([p["move"] for p in turn.plays])
        for line in terminal.hint_lines(ranking.plays, numbers, ranking.plies):
            self.console.say(line)

    async def choose(self, turn: Turn) -> PlayMap | str:
        self.show_plays(turn.plays)
        while True:
            text = await self.console.ask(terminal.move_prompt(turn.dice))
            word = text.split()[0].lower() if text.split() else ""
            if not word:
                continue
            if word.isascii() and word.isdigit():
                n = int(word)
                if 1 <= n <= len(turn.plays):
                    return turn.plays[n - 1]
                self.console.say(f"no play number {n}: 1-{len(turn.plays)}")
            elif word == "hint":
                await self.hint(turn)
            elif word == "list":
                self.show_plays(turn.plays, everything=True)
            elif word == "board":
                if self.display.state is not None:
                    self.display.draw(self.display.state, turn.dice)
            elif word == "help":
                self.console.say(HELP)
            elif word == "resign":
                value = text.split()[1] if len(text.split()) > 1 else "1"
                if value not in ("1", "2", "3"):
                    self.console.say("resign 1, 2 or 3")
                    continue
                raise Resign(int(value))
            elif word in ("quit", "exit"):
                if await terminal.confirm_leave(self.console, "It is not saved."):
                    raise Quit()
            else:
                try:
                    played = await self.daemon.apply_move(turn.position, text)
                except IllegalMoveError as exc:
                    rule = f" (rule {exc.rule})" if exc.rule else ""
                    self.console.say(f"Illegal move: {exc.message}{rule}")
                    continue
                except EngineError as exc:
                    self.console.say(f"Cannot play that: {exc.message}")
                    continue
                return next((p for p in turn.plays
                             if p["position_id"] == played["position_id"]), played)

    def _redraw(self) -> None:
        if self.display.state is not None:
            self.display.draw(self.display.state)

    async def _cube_hint(self, position: PositionMap, taking: bool) -> None:
        try:
            decision = await self.daemon.cube(dict(position, dice=[]), plies=self.hint_plies)
        except EngineError as exc:
            self.console.say(f"hint unavailable: {exc.message}")
            return
        self.console.say(terminal.cube_advice(decision, taking))

    def _cube_commands(self, position: PositionMap, taking: bool,
                       help_text: str) -> dict[str, Any]:
        async def board(_: list[str]) -> None:
            self._redraw()

        async def hint(_: list[str]) -> None:
            await self._cube_hint(position, taking)

        async def show_help(_: list[str]) -> None:
            self.console.say(help_text)

        async def leave(_: list[str]) -> None:
            if await terminal.confirm_leave(self.console, "It is not saved."):
                raise Quit()

        async def resign(words: list[str]) -> None:
            value = words[0] if words else "1"
            if value not in ("1", "2", "3"):
                self.console.say("resign 1, 2 or 3")
                return
            raise Resign(int(value))

        commands: dict[str, Callable[[list[str]], Awaitable[None]]] = {
            "board": board, "hint": hint, "help": show_help, "quit": leave, "exit": leave}
        if not taking:
            commands["resign"] = resign
        return commands

    async def double(self, position: PositionMap) -> bool:
        self._redraw()
        answer = await terminal.prompt_loop(
            self.console, "Roll or double? [r/d, board, hint, help]: ",
            {"r": "roll", "roll": "roll", "": "roll", "d": "double", "double": "double"},
            self._cube_commands(position, False, terminal.CUBE_HELP))
        return answer == "double"

    async def take(self, position: PositionMap) -> bool:
        value = int(position.get("cube", {}).get("value", 1)) * 2
        self._redraw()
        answer = await terminal.prompt_loop(
            self.console, f"Doubled to {value}: take or drop? [t/d, board, hint, help]: ",
            {"t": "take", "take": "take", "d": "drop", "drop": "drop"},
            self._cube_commands(position, True, terminal.TAKE_HELP))
        return answer == "take"


def default_record_path() -> Path:
    """A new file in the user's data folder (terminal.records_dir)."""
    return terminal.default_record_path()


async def run_hosted(args: argparse.Namespace, daemon: JacquetClient, console: Console) -> int:
    """Play through a hosted match: the daemon keeps it and rolls the dice. Requests are
    retried in the session across lost connections and daemon restarts."""
    link = ReconnectingClient(daemon)
    try:
        return await _run_hosted(args, link, console)
    finally:
        await link.close()


async def _run_hosted(args: argparse.Namespace, daemon: ReconnectingClient,
                      console: Console) -> int:
    memory = Path(args.state_file) if args.state_file else hosted.state_file()
    if args.resume:
        match_id, token = args.resume, args.token
        if match_id == "last" or token is None:
            last = hosted.recall(memory)
            if last is None or (match_id != "last" and last["match_id"] != match_id):
                console.say("jacquet-play: no remembered match to resume; give --resume "
                            "MATCHID --token=TOKEN")
                return 2
            match_id, token = str(last["match_id"]), token or str(last["token"])
        try:
            state = await daemon.request("match_state", match_id=match_id, token=token)
        except EngineError as exc:
            console.say(f"jacquet-play: cannot resume {match_id}: {exc.message}")
            return 2
        if state["you"] is None:
            console.say("jacquet-play: this token holds no seat of the match")
            return 2
        side = int(state["you"])
        other = state["seats"][1 - side]
        console.say(f"Resuming match {match_id}: {state['variant']}, score "
                    f"{state['score'][side]}-{state['score'][1 - side]}"
                    + (f" (match to {state['length']})" if state["length"] else "") + ".")
    else:
        if not _plays_variant(daemon.server, args.variant, console):
            return 2
        levels = daemon.server.get("levels") or ["random"]
        if args.level and args.level not in levels:
            console.say(f"jacquet-play: no bot level {args.level!r}; the daemon has: "
                        f"{', '.join(levels)}")
            return 2
        level = args.level or levels[-1]
        new = await daemon.request("match_new", variant=args.variant, length=args.length,
                                   cube=bool(args.cube), seat1=level,
                                   name0=args.name, seed=args.seed)
        match_id, token, side = new["match_id"], new["tokens"][0], 0
        other = {"player": "bot", "level": level}
        kind = f"match to {args.length}" if args.length else "one money game"
        console.say(f"{args.variant}, {kind}, cube {'on' if args.cube else 'off'}; hosted "
                    f"match {match_id} (the daemon rolls the dice). Type `help` at your turn.")
    hosted.remember(memory, match_id, token, side, args.connect)
    opponent = f"bot ({other.get('level')})" if other.get("player") == "bot" else (
        other.get("name") or "opponent")
    game = hosted.HostedGame(daemon, console, hosted.Seat(match_id, token, side),
                             ("you", opponent))
    try:
        final = await game.play()
    except (Quit, hosted.Leave):
        console.say("\nLeft the match; it stays on the daemon. Resume it with:\n"
                    + hosted.resume_hint(match_id, token, args.connect))
        return 0
    exported = await daemon.request("match_export", match_id=match_id, token=token)
    record_path = terminal.save_record(exported["record"], args.save)
    console.say(f"Record saved to {record_path}" + (" (the match was closed)"
                                                    if final["status"] == "closed" else ""))
    return 0


async def run(args: argparse.Namespace, out: TextIO) -> int:
    console = Console(out, colour_enabled(out) and not args.no_color)
    if args.connect is None and args.resume == "last" and not args.daemon:
        args.connect = hosted.remembered_address(
            Path(args.state_file) if args.state_file else hosted.state_file())
    if args.connect:
        daemon = await JacquetClient.open(args.connect)
    else:
        extra = hosted.SPAWN_HOSTED if args.hosted or args.resume else ()
        console.say("Starting the engine (its very first start compiles the move generator "
                    "and takes a while)...")
        daemon = await spawn_engine(args.daemon.split() if args.daemon
                                    else default_engine_command(*extra))
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 31)
    use_hosted = bool(args.hosted or args.resume) or (
        args.connect is not None and not args.watch and not args.local
        and daemon.supports("match_new"))
    if use_hosted:
        async with daemon:
            if not daemon.supports("match_new"):
                console.say("jacquet-play: this daemon hosts no matches")
                return 2
            return await run_hosted(args, daemon, console)
    async with daemon:
        if not _plays_variant(daemon.server, args.variant, console):
            return 2
        levels = daemon.server.get("levels") or ["random"]
        for level in (args.level, args.level2):
            if level and level not in levels:
                console.say(f"jacquet-play: no bot level {level!r}; the daemon has: "
                            f"{', '.join(levels)}")
                return 2
        level = args.level or levels[-1]
        if args.watch:
            level2 = args.level2 or level
            names = (f"{level}", f"{level2}" if level2 != level else f"{level2}-2")
            display = Display(console, 0, names, show_every_move=True)
            players: tuple[Player, Player] = (
                BotPlayer(daemon, level, plies=args.plies, movetime_ms=args.movetime,
                          name=names[0]),
                BotPlayer(daemon, level2, plies=args.plies, movetime_ms=args.movetime,
                          name=names[1]))
        else:
            names = ("you", f"bot ({level})")
            display = Display(console, 0, names, show_every_move=False)
            players = (HumanPlayer(console, daemon, display),
                       BotPlayer(daemon, level, plies=args.plies, movetime_ms=args.movetime,
                                 name=names[1]))
        kind = f"match to {args.length}" if args.length else "one money game"
        console.say(f"{args.variant}, {kind}, cube {'on' if args.cube else 'off'}; dice seed "
                    f"{seed}. Type `help` at your turn.")
        referee = Referee(daemon, observer=display, luck=False)
        try:
            outcome = await play_match(referee, players, SeededDice(seed), variant=args.variant,
                                       length=args.length, cube=args.cube, seed=seed,
                                       headers={"Event": "jacquet-play"})
        except Quit:
            console.say("\nLeft the match; nothing saved.")
            return 0
        outcome.record.headers["Ended"] = dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        record_path = terminal.save_record(format_record(outcome.record), args.save)
        console.say("\n" + terminal.final_line(names, outcome.score, outcome.winner))
        console.say(f"Record saved to {record_path}")
    return 0


async def play_position(args: argparse.Namespace, out: TextIO) -> int:
    """`--position ID`: one game from a pasted position (a gnubg id, an XGID or a
    position id, read by the daemon), you on roll against the bot (or two bots with
    --watch); the game is not saved, since a record starts from the opening roll."""
    console = Console(out, colour_enabled(out) and not args.no_color)
    daemon = await (JacquetClient.open(args.connect) if args.connect else spawn_engine(
        args.daemon.split() if args.daemon else default_engine_command()))
    async with daemon:
        reply = await daemon.request("position", position=args.position)
        pos = dict(reply["position"])
        if pos.get("cube", {}).get("pending"):
            console.say("jacquet-play: a double is pending in this position; paste the "
                        "position after its answer")
            return 2
        levels = daemon.server.get("levels") or ["random"]
        level = args.level or levels[-1]
        names = ("you", f"bot ({level})") if not args.watch else (level, f"{level}-2")
        display = Display(console, 0, names, show_every_move=bool(args.watch))
        bot = BotPlayer(daemon, args.level2 or level if args.watch else level,
                        plies=args.plies, movetime_ms=args.movetime, name=names[1])
        first: Player = (BotPlayer(daemon, level, plies=args.plies, movetime_ms=args.movetime,
                                   name=names[0]) if args.watch
                         else HumanPlayer(console, daemon, display))
        ids = ", ".join(f"{k} {reply[k]}" for k in ("gnubg_id", "xgid") if k in reply)
        console.say(f"{pos['variant']} from position {reply['position_id']}"
                    + (f" ({ids})" if ids else "") + f"; {names[0]} on roll.")
        match = pos.get("match") or {}
        seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 31)
        try:
            outcome = await Referee(daemon, observer=display, luck=False).play_game(
                (first, bot), SeededDice(seed), variant=pos["variant"], cube="cube" in pos,
                score=tuple(match.get("score", (0, 0))), match_length=match.get("length", 0),
                crawford=bool(match.get("crawford")), seed=seed, start=pos)
        except Quit:
            console.say("\nLeft the game.")
            return 0
        console.say(f"\nGame over: {names[outcome.winner]} {_verb(names[outcome.winner], 'win')}"
                    f" {outcome.points} point{'s' if outcome.points != 1 else ''} "
                    f"({outcome.reason}).")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="jacquet-play", description=__doc__.split("\n")[0],
        epilog="At your turn: a number from the list of plays, or a move in notation; "
        "`help` lists the commands. Exit status: 0 the match finished or you left, "
        f"2 bad arguments or a refused match, {EXIT_ENGINE_START} the engine could not be "
        "started, 130 interrupted.")
    parser.add_argument("--version", action="version", version=version_text("jacquet-play"))
    parser.add_argument("--connect", metavar="TARGET",
                        help="a running daemon: tcp://HOST:PORT (ZeroMQ), socket://HOST:PORT "
                        "(TCP stream) (default: spawn `python -m jacquetd stdio` with this "
                        "Python)")
    parser.add_argument("--daemon", metavar="COMMAND",
                        help="the engine command to spawn instead (default: python -m "
                        "jacquetd stdio)")
    parser.add_argument("--variant", default="jacquet",
                        help="the game, one of the daemon's variants (default: jacquet)")
    parser.add_argument("--length", type=int, default=0, metavar="N",
                        help="match length in points (default 0: one money game)")
    parser.add_argument("--cube", action="store_true",
                        help="play with the doubling cube (default: without)")
    parser.add_argument("--level", help="the bot's level (default: the daemon's strongest)")
    parser.add_argument("--level2", metavar="LEVEL",
                        help="with --watch: the second bot's level (default: --level)")
    parser.add_argument("--plies", type=int, metavar="N",
                        help="the bots' search depth (default: the level's own)")
    parser.add_argument("--movetime", type=int, metavar="MS",
                        help="the bots' time per move in ms (default: the level's own)")
    parser.add_argument("--seed", type=int, help="dice seed (default: random, printed)")
    parser.add_argument("--save", metavar="FILE",
                        help="where to save the match record (default: a new file in "
                        f"{terminal.records_dir()})")
    parser.add_argument("--watch", action="store_true", help="watch two bots play")
    parser.add_argument("--no-color", action="store_true",
                        help="no colours (default: colours on a terminal, unless $NO_COLOR)")
    parser.add_argument("--hosted", action="store_true",
                        help="play a hosted match: the daemon keeps it and rolls the dice "
                        "(the default with --connect when the daemon hosts matches)")
    parser.add_argument("--local", action="store_true",
                        help="with --connect: roll the dice here, as without a daemon")
    parser.add_argument("--resume", nargs="?", const="last", metavar="MATCHID",
                        help="continue a hosted match (alone: the last one left)")
    parser.add_argument("--token", help="with --resume: your seat's token (default: the "
                        "remembered one)")
    parser.add_argument("--name", default="you",
                        help="your name in a hosted match (default: you)")
    parser.add_argument("--position", metavar="ID",
                        help="play one game from a pasted position: a gnubg id "
                        "(PositionID:MatchID), an XGID or a jacquetd position id")
    parser.add_argument("--state-file", metavar="FILE",
                        help="where the last hosted match is remembered "
                        f"(default: {hosted.state_file()})")
    return parser



def _plays_variant(server: dict[str, Any], variant: str, console: Console) -> bool:
    """Whether the daemon plays `variant` (its `hello` says which it plays); if not, say so."""
    variants = server.get("variants") or []
    if variant in variants:
        return True
    console.say(f"jacquet-play: no variant {variant!r}; the daemon plays: {', '.join(variants)}")
    return False


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.length < 0:
        parser.error("--length: 0 or more")
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        return asyncio.run(play_position(args, sys.stdout) if args.position
                           else run(args, sys.stdout))
    except KeyboardInterrupt:
        print("\ninterrupted")
        return 130
    except EngineStartError as exc:
        print(f"jacquet-play: cannot start the engine: {exc}", file=sys.stderr)
        return EXIT_ENGINE_START
    except EngineError as exc:
        print(f"jacquet-play: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    with contextlib.suppress(BrokenPipeError):
        sys.exit(main())
