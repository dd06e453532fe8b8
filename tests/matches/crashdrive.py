"""Plays several hosted matches to the end on one database, round robin, as a client
would: the driver of the crash test, run in a child process that gets killed.

    python -m tests.matches.crashdrive DB JOURNAL SEED MATCHES KILL_AFTER

Every decision is a function of the match state and the seed (`scripted.decide`),
so an interrupted run and an uninterrupted one play the same matches. Before each
request the driver appends it to JOURNAL; when it starts again it first sends the
last journalled request again (same client and request id): the service must
answer a request it already applied with the stored reply and apply it otherwise.
KILL_AFTER > 0 makes the store's fault hook SIGKILL the process at its KILL_AFTER-th
call (half of them between writing an action and committing it, half right after
the commit, before the reply).
"""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

from jacquetd.matches import Caller, MatchError, MatchService, MatchStore

from .scripted import decide

CLIENT = "crash-driver"
SESSION = "crash-driver-session"  # the key its stored replies are sealed with


def spec(i: int, seed: int) -> dict[str, Any]:
    """The `match_new` arguments of match number `i`."""
    kinds = [
        {"variant": "backgammon", "length": 3, "cube": True},
        {"variant": "jacquet-be", "length": 2},
        {"variant": "backgammon", "length": 3, "cube": True, "seat1": "random"},
        {"variant": "jacquet-be", "length": 1, "dice": "supplied"},
        {"variant": "jacquet", "length": 1, "seat0": "random"},
    ]
    args = dict(kinds[i % len(kinds)])
    if args.get("dice") != "supplied":
        args["seed"] = seed * 1000 + i
    return args


def _send(svc: MatchService, request: dict[str, Any]) -> dict[str, Any]:
    try:
        return svc.handle(request["cmd"], request["args"], Caller(CLIENT, request["id"], SESSION))
    except MatchError as exc:
        raise AssertionError(f"request {request} refused: {exc!r}") from exc


def drive(db: Path, journal: Path, seed: int, matches: int, kill_after: int = 0,
          synchronous: str = "NORMAL") -> dict[int, str]:
    """Play every match to its end; returns match number -> match id."""
    store = MatchStore(db, synchronous=synchronous)
    if kill_after > 0:
        calls = [0]

        def hook(point: str) -> None:
            calls[0] += 1
            if calls[0] >= kill_after:
                os.kill(os.getpid(), signal.SIGKILL)

        store.fault_hook = hook
    svc = MatchService(store)
    if journal.exists():
        lines = journal.read_text().splitlines()
        if lines:
            try:
                last = json.loads(lines[-1])
            except json.JSONDecodeError:  # killed while writing the line: never sent
                last = None
            if last is not None:
                reply = _send(svc, last)
                outcome = "replayed" if reply.get("replayed") else "applied"
                print(f"retry {outcome}", file=sys.stderr, flush=True)
    ids: dict[int, str] = {}
    tokens: dict[int, list[str | None]] = {}
    with journal.open("a") as jf:

        def request(cmd: str, args: dict[str, Any], rid: str) -> None:
            req = {"cmd": cmd, "args": args, "id": rid}
            jf.write(json.dumps(req) + "\n")
            jf.flush()
            _send(svc, req)

        for i in range(matches):
            reply = svc.match_new(spec(i, seed), Caller(CLIENT, f"new:{i}", SESSION))
            ids[i], tokens[i] = reply["match_id"], reply["tokens"]
        live = set(range(matches))
        while live:
            for i in sorted(live):
                mid = ids[i]
                svc.run_bots(mid)
                state = svc.match_state({"match_id": mid})
                if state["status"] != "playing":
                    live.discard(i)
                    continue
                side = state["to_act"]
                if side is None:
                    side = 0  # a supplied opening roll: either seat may give it
                cmd, extra = decide(state, side, seed + i)
                token = tokens[i][side]
                assert token is not None
                request(cmd, {"match_id": mid, "token": token, **extra},
                        f"{i}:{state['actions']}:{cmd}")
    store.close()
    return ids


def main(argv: list[str]) -> int:
    db, journal, seed, matches, kill_after = argv
    drive(Path(db), Path(journal), int(seed), int(matches), int(kill_after))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
