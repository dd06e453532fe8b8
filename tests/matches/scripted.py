"""Scripted players for hosted-match tests: every decision is a function of the match
state and a seed, so two runs of the same match (interrupted or not) play the same."""

from __future__ import annotations

import random
from typing import Any

from jacquetd.matches import Caller, MatchService


def decide(state: dict[str, Any], side: int, seed: int) -> tuple[str, dict[str, Any]]:
    """The command and extra arguments `side` sends now (it must have something to do)."""
    may = state["may"][side]
    rng = random.Random(f"{seed}:{state['actions']}:{side}")
    if "take" in may:
        return ("match_take" if rng.random() < 0.8 else "match_drop"), {}
    if "accept" in may:
        return "match_resign", {"answer": "accept" if rng.random() < 0.5 else "reject"}
    if "double" in may and rng.random() < 0.15:
        return "match_double", {}
    if "roll" in may:
        if state["phase"] != "opening" and rng.random() < 0.01:
            return "match_resign", {"points": str(rng.choice([1, 2]))}
        if state["dice_mode"] == "supplied":
            d0 = rng.randint(1, 6)
            d1 = rng.choice([d for d in range(1, 7) if d != d0 or state["phase"] != "opening"])
            return "match_roll", {"dice": [d0, d1]}
        return "match_roll", {}
    if "move" in may:
        return "match_move", {"move": rng.choice(state["legal_moves"]) or "pass"}
    raise AssertionError(f"side {side} has nothing to do: {may}")


def play_out(svc: MatchService, match_id: str, tokens: list[str | None], seed: int,
             *, client: str = "script", max_actions: int = 5000) -> int:
    """Play the client seats until the match ends; returns the number of requests sent."""
    sent = 0
    while sent < max_actions:
        state = svc.match_state({"match_id": match_id})
        if state["status"] != "playing":
            return sent
        side = state["to_act"]
        if side is None and state["phase"] == "opening":
            side = 0
        assert side is not None, state
        token = tokens[side]
        assert token is not None, f"side {side} is a bot but the match waits for it"
        cmd, extra = decide(state, side, seed)
        svc.handle(cmd, {"match_id": match_id, "token": token, **extra},
                   Caller(client, f"{match_id}:{state['actions']}"))
        sent += 1
    raise AssertionError("the match did not end")
