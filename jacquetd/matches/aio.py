"""The asyncio side of hosted matches: bot seats that play by themselves, event waits.

`AsyncMatchService` wraps a `MatchService` for a daemon's event loop: `handle` runs a
command and makes sure the bot seats of its match act (`kick`: one driver task per
match, each decision run off the loop by `run_blocking`), `wait_events` and `watch`
wait for a match's events, and a housekeeping task adjourns idle matches.

    svc = AsyncMatchService(MatchService(MatchStore(path)))
    await svc.start()
    reply = await svc.handle("match_new", {"seat1": "random"}, Caller("peer-1", 1))
    async for event in svc.watch(reply["match_id"]):
        ...
    await svc.aclose()
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any

from .errors import MatchError
from .service import BotJob, Caller, MatchService

log = logging.getLogger(__name__)

RunBlocking = Callable[[BotJob, Callable[[], str]], Awaitable[str]]
"""(the seat's job, its decision as a call) -> the decision: the job says whose seat, at
which level and with how much time; the call runs it."""
BOT_GRACE_S = 2.0
"""Time a decider may run past its seat's limit before its answer is abandoned (and the
`random` level decides instead)."""


async def _in_thread(job: BotJob, call: Callable[[], str]) -> str:
    return await asyncio.to_thread(call)


class AsyncMatchService:
    """See the module docstring. Create it, then `await start()` inside the loop."""

    def __init__(self, service: MatchService, *, run_blocking: RunBlocking | None = None,
                 housekeeping_s: float = 60.0, bot_grace_s: float = BOT_GRACE_S) -> None:
        self.service = service
        self.run_blocking: RunBlocking = run_blocking or _in_thread
        self.housekeeping_s = housekeeping_s
        self.bot_grace_s = bot_grace_s
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: int | None = None
        self._drivers: dict[str, asyncio.Task[None]] = {}
        self._wakers: dict[str, asyncio.Event] = {}
        self._housekeeper: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Hook into the service and start the bots of the matches in play."""
        self._loop = asyncio.get_running_loop()
        self._thread = threading.get_ident()
        self.service.add_listener(self._on_change)
        if self.housekeeping_s > 0:
            self._housekeeper = asyncio.create_task(self._housekeeping())
        for match_id in self.service.playing():
            self.kick(match_id)

    async def aclose(self) -> None:
        """Stop the drivers and the housekeeping (the store stays open)."""
        with contextlib.suppress(ValueError):
            self.service.remove_listener(self._on_change)
        tasks = list(self._drivers.values())
        if self._housekeeper is not None:
            tasks.append(self._housekeeper)
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._drivers.clear()
        for ev in self._wakers.values():
            ev.set()

    # -- commands ----------------------------------------------------------------------

    async def handle(self, cmd: str, args: Mapping[str, Any], caller: Caller | None = None,
                     *, checked: bool = False) -> dict[str, Any]:
        """Run one command (see `MatchService.handle`); raises MatchError."""
        result = self.service.handle(cmd, args, caller, checked=checked)
        match_id = result.get("match_id") or args.get("match_id")
        if isinstance(match_id, str):
            self.kick(match_id)
        return result

    async def wait_events(self, match_id: str, after: int, timeout: float | None
                          ) -> list[dict[str, Any]]:
        """The events numbered above `after`, waiting up to `timeout` seconds (None:
        forever) for the first; [] on timeout or when the match can have no more."""
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        while True:
            waker = self._wakers.setdefault(match_id, asyncio.Event())
            reply = self.service.match_watch({"match_id": match_id, "after": after})
            if reply["events"] or reply["done"] or reply["status"] == "closed":
                return list(reply["events"])
            remaining = None if deadline is None else deadline - loop.time()
            if remaining is not None and remaining <= 0:
                return []
            try:
                await asyncio.wait_for(waker.wait(), remaining)
            except TimeoutError:
                return []

    async def watch(self, match_id: str, after: int = 0) -> AsyncIterator[dict[str, Any]]:
        """Every event after `after`, in order, each once, as they happen; ends when the
        match is over (after `match_over`) or closed."""
        self.service.match_watch({"match_id": match_id, "after": after})  # not_found early
        while True:
            events = await self.wait_events(match_id, after, None)
            if not events:  # without a timeout: the match is over and everything was sent
                return
            for e in events:
                after = e["n"]
                yield e

    # -- bots --------------------------------------------------------------------------

    def kick(self, match_id: str) -> None:
        """Make sure the bot seats of `match_id` act (a driver task runs while they must)."""
        task = self._drivers.get(match_id)
        if task is not None and not task.done():
            return
        try:
            if self.service.bot_job(match_id) is None:
                return
        except MatchError:
            return
        self._drivers[match_id] = asyncio.create_task(self._drive(match_id),
                                                      name=f"match-bots-{match_id}")

    async def _drive(self, match_id: str) -> None:
        try:
            while True:
                job = self.service.bot_job(match_id)
                if job is None:
                    return
                call = functools.partial(job.call, self.service.bot_move, self.service.bot_cube)
                answer: str | None
                if job.question == "roll":
                    answer = "roll"
                else:
                    try:
                        answer = await asyncio.wait_for(self.run_blocking(job, call),
                                                        job.time_s + self.bot_grace_s)
                    except TimeoutError:
                        log.warning("bot %s ran out of time in match %s", job.level, match_id)
                        answer = None
                    except asyncio.CancelledError:
                        raise
                    except Exception:
                        log.exception("bot %s failed in match %s", job.level, match_id)
                        answer = None
                self.service.apply_bot(job, answer)
                await asyncio.sleep(0)
        except MatchError as exc:
            log.warning("bot driver of match %s stopped: %s", match_id, exc)
        finally:
            if self._drivers.get(match_id) is asyncio.current_task():
                del self._drivers[match_id]

    # -- notifications and housekeeping ----------------------------------------------

    def _on_change(self, match_id: str, last_event: int) -> None:
        if self._loop is None or self._loop.is_closed():
            return
        if threading.get_ident() == self._thread:
            self._wake(match_id)
        else:
            self._loop.call_soon_threadsafe(self._wake, match_id)

    def _wake(self, match_id: str) -> None:
        waker = self._wakers.pop(match_id, None)
        if waker is not None:
            waker.set()
        self.kick(match_id)

    async def _housekeeping(self) -> None:
        while True:
            await asyncio.sleep(self.housekeeping_s)
            try:
                self.service.adjourn_idle()
            except Exception:
                log.exception("adjourning idle matches failed")
