"""The league's players: daemon bot levels, protocol v1 programs over stdio, GNU Backgammon.

Each is a `clients.game.Player`. Any failure (the process exited, the
connection closed, no answer in time, an error reply, garbage) surfaces as an
`EngineFault`, which the referee scores as a lost game; the league then calls
`restart()`, which for a process means killing it and starting a fresh one.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

from jacquetd_protocol.gnubg_wire import parse_move

from ..client import JacquetClient
from ..errors import EngineError, EngineTerminatedError, EngineTimeoutError
from ..game import (
    CubeAdvisedPlayer,
    EngineFault,
    Player,
    PlayMap,
    PositionMap,
    Turn,
)
from .config import EngineSpec

log = logging.getLogger(__name__)

GNUBG_CANDIDATES = ("/usr/games/gnubg", "/usr/bin/gnubg", "/usr/local/bin/gnubg")
GNUBG_CONNECT_S = 20.0
MONEY = 9999


def _fault(exc: EngineError) -> EngineFault:
    if isinstance(exc, EngineTimeoutError):
        return EngineFault("hang", str(exc))
    if isinstance(exc, EngineTerminatedError):
        return EngineFault("crash", str(exc))
    return EngineFault("error", str(exc))


class ProtocolPlayer(CubeAdvisedPlayer):
    """A player that answers `best_move` (and, with the cube, `cube`) through a client.
    It does not look at the legal plays: the referee asks it while they are listed."""

    pipelined = True

    def __init__(self, spec: EngineSpec, time_ms: int) -> None:
        self.name = spec.name
        self.spec = spec
        self.time_ms = spec.time_ms or time_ms
        self.client: JacquetClient | None = None

    async def _client(self) -> JacquetClient:
        if self.client is None or self.client.closed:
            await self.start()
        assert self.client is not None
        return self.client

    async def choose(self, turn: Turn) -> PlayMap | str:
        try:
            client = await self._client()
            result = await client.best_move(turn.position, level=self.spec.level,
                                            plies=self.spec.plies, movetime_ms=self.time_ms,
                                            seed=turn.seed, timeout=None,
                                            **_extra(self.spec.options))
        except EngineError as exc:
            raise _fault(exc) from None
        play = result.get("play")
        if not isinstance(play, dict):
            raise EngineFault("illegal", f"best_move result without a play: {result!r}")
        return play

    async def _cube(self, position: PositionMap) -> Mapping[str, Any] | None:
        client = await self._client()
        if not client.supports("cube"):
            return None
        try:
            return await client.cube(dict(position, dice=[]), plies=self.spec.plies)
        except EngineError as exc:
            if isinstance(exc, EngineTerminatedError | EngineTimeoutError):
                raise _fault(exc) from None
            log.info("%s: no cube decision (%s); playing on", self.name, exc)
            return None



def _extra(options: dict[str, Any]) -> dict[str, Any]:
    """Engine options from the league file that go to `best_move` as they are."""
    reserved = {"position", "dice", "level", "plies", "movetime_ms", "seed", "timeout"}
    return {k: v for k, v in options.items() if k not in reserved}


class DaemonPlayer(ProtocolPlayer):
    """A bot level of the league's daemon, over the shared client."""

    def __init__(self, spec: EngineSpec, time_ms: int, client: JacquetClient) -> None:
        super().__init__(spec, time_ms)
        self.client = client

    async def start(self) -> None:
        if self.client is None or self.client.closed:
            raise EngineFault("crash", "the daemon connection is closed")


class CommandPlayer(ProtocolPlayer):
    """Any program that speaks protocol v1 over its stdin and stdout."""

    def __init__(self, spec: EngineSpec, time_ms: int, cwd: str,
                 stderr: IO[Any] | None = None) -> None:
        super().__init__(spec, time_ms)
        self.cwd = cwd
        self.stderr = stderr
        self.restarts = 0

    async def start(self) -> None:
        assert self.spec.command is not None
        try:
            self.client = await JacquetClient.spawn(
                list(self.spec.command), cwd=self.cwd, timeout=30.0,
                stderr=self.stderr or asyncio.subprocess.DEVNULL)
        except EngineError as exc:
            raise _fault(exc) from None

    async def restart(self) -> None:
        await self.close()
        self.restarts += 1
        log.info("%s: restarting (%d)", self.name, self.restarts)
        await self.start()

    async def close(self) -> None:
        client, self.client = self.client, None
        if client is not None:
            transport = client.transport
            kill = getattr(transport, "kill", None)
            if kill is not None:
                kill()  # a hung engine would not read `quit`
            await client.close()


# -- GNU Backgammon ----------------------------------------------------------------------


def find_gnubg(given: str | None) -> str:
    """The gnubg program: `given` if it is a path, else the usual places."""
    if given and given != "gnubg":
        return given
    for candidate in GNUBG_CANDIDATES:
        if os.path.exists(candidate):
            return candidate
    return "gnubg"


def fibs_board(position: PositionMap, *, was_doubled: bool = False) -> str:
    """The FIBS `board:` string of a backgammon position, 'you' being the side on roll
    (colour +1, direction -1: slot i holds your point i, the opponent's point 25 - i)."""
    me, them = position["on_roll"], position["opponent"]
    slots = [0] * 26
    for point in range(1, 26):
        slots[point] += me[point]
        slots[25 - point] -= them[point]
    dice = list(position.get("dice") or [0, 0])
    cube = position.get("cube")
    match = position.get("match")
    crawford = bool(match and match.get("crawford"))
    value = int(cube["value"]) if cube else 1
    owner = cube["owner"] if cube else "none"
    may = (int(cube is not None and owner != "opponent" and not crawford),
           int(cube is not None and owner != "on_roll" and not crawford))
    if may == (0, 0):
        # gnubg reads "neither side may double" as a double to answer: it replies `take`
        # or `beaver` to a move request. The Crawford game is told by field 52 instead.
        may = (1, 1)
    if match:
        length, score = int(match["length"]), match["score"]
        post = int(length - 1 in score and not crawford)
    else:
        length, score, post = MONEY, [0, 0], 0
    # gnubg reads the two scores swapped when the turn field equals the colour field (as
    # here): checked with `evaluation fibsboard`, whose match winning chance at 2-0 in a
    # match to 5 is 0.67 for the leader only when its score is written second.
    values = ["You", "Opponent", length, score[1], score[0], *slots, 1, *dice, 0, 0, value,
              *may, int(was_doubled), 1, -1, 0, 25, me[0], them[0], me[25], them[25],
              0, 0, post, int(not crawford)]
    return "board:" + ":".join(str(v) for v in values)


def gnubg_move(reply: str) -> str:
    """Our move text from gnubg's (`25/22* 6/0` -> `bar/22* 6/off`; empty -> pass); a
    reply that is no move is an illegal answer."""
    try:
        return parse_move(reply)
    except ValueError as exc:
        raise EngineFault("illegal", f"gnubg: {exc}") from None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class GnubgPlayer(Player):
    """GNU Backgammon through its external-player interface: `gnubg -t` is told
    `external 127.0.0.1:PORT`, we connect and send it `board:` lines (backgammon only)."""

    def __init__(self, spec: EngineSpec, stderr: IO[Any] | None = None) -> None:
        self.name = spec.name
        self.spec = spec
        self.program = find_gnubg(spec.gnubg)
        self.stderr = stderr
        self.process: asyncio.subprocess.Process | None = None
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self._home: tempfile.TemporaryDirectory[str] | None = None

    async def start(self) -> None:
        port = _free_port()
        self._home = tempfile.TemporaryDirectory(prefix="gnubg-home-")
        env = dict(os.environ, HOME=self._home.name)
        plies = self.spec.plies if self.spec.plies is not None else 0
        script = (f"set evaluation chequerplay evaluation plies {plies}\n"
                  f"set evaluation cubedecision evaluation plies {plies}\n"
                  f"external 127.0.0.1:{port}\n")
        try:
            self.process = await asyncio.create_subprocess_exec(
                self.program, "-t", "-q", stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.DEVNULL,
                stderr=self.stderr or asyncio.subprocess.DEVNULL, env=env, cwd=self._home.name)
        except OSError as exc:
            raise EngineFault("crash", f"cannot start {self.program}: {exc}") from None
        assert self.process.stdin is not None
        self.process.stdin.write(script.encode())
        await self.process.stdin.drain()
        deadline = asyncio.get_running_loop().time() + GNUBG_CONNECT_S
        while True:
            try:
                self.reader, self.writer = await asyncio.open_connection("127.0.0.1", port)
                return
            except OSError:
                if (asyncio.get_running_loop().time() > deadline
                        or self.process.returncode is not None):
                    await self.close()
                    raise EngineFault("crash", "gnubg did not open its external port") from None
                await asyncio.sleep(0.1)

    async def _ask(self, line: str) -> str:
        if self.writer is None or self.reader is None:
            await self.start()
        assert self.writer is not None and self.reader is not None
        try:
            self.writer.write(line.encode() + b"\n")
            await self.writer.drain()
            reply = await self.reader.readline()
        except (OSError, ConnectionError) as exc:
            raise EngineFault("crash", f"gnubg: {exc}") from None
        if not reply:
            raise EngineFault("crash", "gnubg closed the connection")
        text = reply.decode("ascii", "replace").strip("\r\n")
        if text.startswith("Error"):
            raise EngineFault("error", f"gnubg: {text}")
        return text

    async def choose(self, turn: Turn) -> str:
        return gnubg_move(await self._ask(fibs_board(turn.position)))

    async def double(self, position: PositionMap) -> bool:
        return (await self._ask(fibs_board(dict(position, dice=[])))).startswith("double")

    async def take(self, position: PositionMap) -> bool:
        # the doubler on turn: gnubg reads the side on turn of a doubled board as the doubler
        answer = await self._ask(fibs_board(position, was_doubled=True))
        return answer.startswith(("take", "beaver"))

    async def restart(self) -> None:
        await self.close()
        await self.start()

    async def close(self) -> None:
        if self.writer is not None:
            with contextlib.suppress(OSError, ConnectionError):
                self.writer.close()
        self.reader = self.writer = None
        if self.process is not None and self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()
            await self.process.wait()
        self.process = None
        if self._home is not None:
            self._home.cleanup()
            self._home = None


def make_player(spec: EngineSpec, *, time_ms: int, daemon: JacquetClient, cwd: str,
                log_dir: Path | None = None) -> Player:
    """The player for a league engine."""
    stderr = None
    if log_dir is not None and spec.kind != "level":
        stderr = open(log_dir / f"{spec.name}.stderr.log", "ab")  # noqa: SIM115 - lives with the process
    if spec.kind == "level":
        return DaemonPlayer(spec, time_ms, daemon)
    if spec.kind == "command":
        return CommandPlayer(spec, time_ms, cwd, stderr)
    return GnubgPlayer(spec, stderr)
