"""Which engine a client starts when it is given none, and how a start that fails is told.

The clients (`jacquet-play`, `jacquet-league`) spawn the engine beside their own
interpreter, `sys.executable -m jacquetd stdio`, rather than whatever `jacquetd` comes
first on PATH: run by full path from an environment that is not activated (a cron job,
a systemd unit, `venv/bin/jacquet-league demo`), they still find the engine they were
installed with. `--daemon`/`[daemon] command` choose another program.

A spawned `jacquetd stdio` compiles its move generator on its very first start (tens of
seconds), so its `hello` gets `START_TIMEOUT_S`. A program that is missing, exits at
once or never answers raises `EngineStartError`, which the programs report apart (own
message and exit status `EXIT_ENGINE_START`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from typing import IO, Any

from .client import JacquetClient
from .errors import EngineError, EngineStartError, EngineTerminatedError, EngineTimeoutError
from .transport import ProcessTransport

#: Seconds a spawned engine may take to answer its first `hello` (first compile included).
START_TIMEOUT_S = 300.0
#: Exit status of the programs when the engine cannot be started.
EXIT_ENGINE_START = 4


def default_engine_command(*extra: str) -> list[str]:
    """`python -m jacquetd stdio` with this very interpreter, plus `extra` words."""
    return [sys.executable, "-m", "jacquetd", "stdio", *extra]


def start_hint(argv: Sequence[str]) -> str:
    """What to tell a user whose engine did not start."""
    if list(argv[:4]) == default_engine_command():
        return ("the engine is the `jacquetd` package of this Python "
                f"({sys.executable}); see its error output above, reinstall the package, "
                "or choose another engine")
    return "check the command and its error output, or choose another engine"


async def spawn_engine(argv: Sequence[str] | None = None, *,
                       timeout: float | None = None,
                       start_timeout: float = START_TIMEOUT_S,
                       cwd: str | os.PathLike[str] | None = None,
                       env: Mapping[str, str] | None = None,
                       stderr: int | IO[Any] | None = None,
                       session: str | None = None,
                       start_new_session: bool = False) -> JacquetClient:
    """Start `argv` (default: `default_engine_command()`), say `hello` (presenting
    `session`, if given), return the client; its `reopen` starts the same command again.
    `start_new_session` starts it in a session of its own, so that the terminal's Ctrl-C
    reaches the client only (which may then `cancel` its requests).

    Raises EngineStartError when the program cannot be run, ends before its `hello`
    reply, or does not answer within `start_timeout` seconds."""
    command = list(argv) if argv else default_engine_command()
    try:
        transport = await ProcessTransport.spawn(command, cwd=cwd, env=env, stderr=stderr,
                                                 start_new_session=start_new_session)
    except EngineStartError as exc:
        raise EngineStartError(f"{exc}; {start_hint(command)}") from None
    kwargs: dict[str, Any] = {} if timeout is None else {"timeout": timeout}
    client = JacquetClient(transport, session=session, **kwargs)
    client.reopener = lambda key: spawn_engine(argv, timeout=timeout,
                                               start_timeout=start_timeout, cwd=cwd, env=env,
                                               stderr=stderr, session=key,
                                               start_new_session=start_new_session)
    try:
        await client.hello(timeout=start_timeout)
    except (EngineTerminatedError, EngineTimeoutError) as exc:
        await client.close()
        status = transport.process.returncode
        why = f"exited with status {status}" if status is not None else str(exc)
        raise EngineStartError(f"{' '.join(command)}: {why}; {start_hint(command)}") from None
    except EngineError:
        await client.close()
        raise
    except BaseException:
        await client.close()
        raise
    return client
