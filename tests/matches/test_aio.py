"""AsyncMatchService: bot seats that play by themselves, event waits and watch streams."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from jacquetd.matches import AsyncMatchService, Caller, MatchService, MatchStore
from jacquetd.rules import Position

from .scripted import decide


async def _play_client(svc: AsyncMatchService, mid: str, token: str, side: int,
                       seed: int) -> int:
    """A scripted client that waits for its turn through the event stream."""
    after = 0
    sent = 0
    while True:
        state = svc.service.match_state({"match_id": mid})
        if state["status"] != "playing":
            return sent
        if state["to_act"] == side:
            cmd, extra = decide(state, side, seed)
            await svc.handle(cmd, {"match_id": mid, "token": token, **extra},
                             Caller("client", f"{state['actions']}"))
            sent += 1
            continue
        events = await svc.wait_events(mid, max(after, state["last_event"]), 30)
        assert events, "the bot did not move within its time"
        after = events[-1]["n"]


def test_a_bot_seat_plays_a_whole_match_by_itself(store: MatchStore) -> None:
    async def main() -> None:
        svc = AsyncMatchService(MatchService(store), housekeeping_s=0)
        await svc.start()
        r = await svc.handle("match_new", {"variant": "backgammon", "length": 3, "cube": True,
                                           "seat1": "random", "seed": 4})
        watched: list[dict] = []

        async def watcher() -> None:
            async for e in svc.watch(r["match_id"]):
                watched.append(e)

        w = asyncio.create_task(watcher())
        sent = await asyncio.wait_for(_play_client(svc, r["match_id"], r["tokens"][0], 0, 1),
                                      120)
        await asyncio.wait_for(w, 10)
        await svc.aclose()
        assert sent > 10
        stored = svc.service.match_watch({"match_id": r["match_id"]})["events"]
        assert watched == stored  # every event exactly once, in order
        assert watched[-1]["type"] == "match_over"

    asyncio.run(main())


def test_watch_resumes_from_an_event_number(store: MatchStore) -> None:
    async def main() -> None:
        svc = AsyncMatchService(MatchService(store), housekeeping_s=0)
        await svc.start()
        r = await svc.handle("match_new", {"variant": "jacquet-be", "seat0": "random",
                                           "seat1": "random", "length": 1, "seed": 8})
        first: list[dict] = []
        async for e in svc.watch(r["match_id"]):
            first.append(e)
            if len(first) == 10:
                break  # the watcher disconnects
        rest = [e async for e in svc.watch(r["match_id"], after=first[-1]["n"])]
        await svc.aclose()
        everything = svc.service.match_watch({"match_id": r["match_id"]})["events"]
        assert first + rest == everything
        assert [e["n"] for e in everything] == list(range(1, len(everything) + 1))

    asyncio.run(main())


def test_wait_events_times_out_and_wakes_from_another_thread(store: MatchStore) -> None:
    async def main() -> None:
        svc = AsyncMatchService(MatchService(store), housekeeping_s=0)
        await svc.start()
        r = await svc.handle("match_new", {"seed": 3})
        mid = r["match_id"]
        last = svc.service.last_event(mid)
        t0 = time.monotonic()
        assert await svc.wait_events(mid, last, 0.05) == []
        assert time.monotonic() - t0 < 2
        side = svc.service.match_state({"match_id": mid})["to_act"]

        def roll_later() -> None:
            time.sleep(0.05)
            svc.service.match_roll({"match_id": mid, "token": r["tokens"][side]})

        threading.Thread(target=roll_later).start()
        events = await svc.wait_events(mid, last, 10)
        assert events[0]["type"] == "roll" and events[0]["n"] == last + 1
        await svc.aclose()

    asyncio.run(main())


def test_a_slow_bot_is_replaced_by_the_random_level(store: MatchStore) -> None:
    calls = []

    def slow(pos: Position, level: str, time_s: float) -> str:
        calls.append(time_s)
        time.sleep(0.5)
        return "nonsense"

    async def main() -> None:
        svc = AsyncMatchService(MatchService(store, bot_move=slow), housekeeping_s=0,
                                bot_grace_s=0.01)
        await svc.start()
        r = await svc.handle("match_new", {"variant": "jacquet-be", "seat0": "random",
                                           "bot_time_ms": 20, "seed": 2})
        mid = r["match_id"]
        # wait until the bot has made its first move
        after = 0
        while not any(e["type"] == "move" and e["side"] == 0 for e in
                      svc.service.match_watch({"match_id": mid})["events"]):
            st = svc.service.match_state({"match_id": mid})
            if st["to_act"] == 1:
                cmd, extra = decide(st, 1, 0)
                await svc.handle(cmd, {"match_id": mid, "token": r["tokens"][1], **extra})
                continue
            events = await svc.wait_events(mid, after, 10)
            assert events
            after = events[-1]["n"]
        await svc.aclose()
        assert calls and calls[0] == pytest.approx(0.02)

    asyncio.run(main())


def test_bots_of_matches_in_play_start_again_after_a_restart(db_path, store: MatchStore
                                                             ) -> None:
    svc = MatchService(store)  # no driver: the bots do not move
    r = svc.match_new({"variant": "jacquet", "seat0": "random", "seat1": "random",
                       "length": 1, "seed": 5})
    assert svc.match_state({"match_id": r["match_id"]})["actions"] == 0
    store.close()

    async def main() -> None:
        asvc = AsyncMatchService(MatchService(MatchStore(db_path)), housekeeping_s=0)
        await asvc.start()
        events = [e async for e in asvc.watch(r["match_id"])]
        await asvc.aclose()
        assert events[-1]["type"] == "match_over"

    asyncio.run(main())


def test_housekeeping_adjourns_idle_matches(store: MatchStore) -> None:
    from jacquetd.matches import MatchLimits

    async def main() -> None:
        svc = AsyncMatchService(MatchService(store, limits=MatchLimits(idle_timeout_s=0.05)),
                                housekeeping_s=0.05)
        await svc.start()
        r = await svc.handle("match_new", {"seed": 1})
        events = await svc.wait_events(r["match_id"], svc.service.last_event(r["match_id"]), 5)
        await svc.aclose()
        assert events[0]["type"] == "adjourned"

    asyncio.run(main())
