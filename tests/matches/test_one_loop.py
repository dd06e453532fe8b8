"""One game loop: a hosted match, driven by its clients one request at a time, plays the
games `bot_match` plays next to the bots when its clients take the same decisions on
the same seed (both run the engine's `Flow`)."""

from __future__ import annotations

from typing import Any

import pytest

from jacquetd.daemon.bot_match import _Seat
from jacquetd.daemon.bot_match import play_match as bot_match
from jacquetd.matches import MatchService


def _hosted(svc: MatchService, variant: str, length: int, seed: int,
            games: list[dict[str, Any]]) -> str:
    """A hosted match on `seed` whose clients take the decisions of `games` (bot_match's
    entries); the rolls it makes are checked against theirs on the way."""
    r = svc.match_new({"variant": variant, "length": length, "seed": seed})
    mid, tokens = r["match_id"], r["tokens"]
    for number, game in enumerate(games, 1):
        actions = list(game["actions"])
        while actions:
            state = svc.match_state({"match_id": mid})
            assert state["game"] == number
            side, kind, value = actions.pop(0)
            if kind == "move" and value == "" and state["phase"] != "move":
                continue  # passed by the hosted match itself
            assert state["to_act"] == side
            args = {"match_id": mid, "token": tokens[side]}
            if kind == "roll":
                reply = svc.match_roll(args)
                rolled = [e for e in reply["events"] if e["type"] == "roll"]
                assert rolled[0]["dice"] == value
            else:
                svc.match_move({**args, "move": value})
    return mid


@pytest.mark.parametrize("variant", ["jacquet", "jacquet-be", "backgammon"])
def test_a_hosted_match_plays_the_games_of_bot_match(svc: MatchService, variant: str) -> None:
    seed, length = 4242, 3
    seats = (_Seat("random", variant, None, lambda: False),
             _Seat("random", variant, None, lambda: False))
    served = bot_match(seats, seed, variant=variant, length=length, luck=False,
                       stop=lambda: False)
    mid = _hosted(svc, variant, length, seed, served["games"])
    state = svc.match_state({"match_id": mid})
    assert state["status"] == "over"
    assert (state["score"], state["winner"]) == (served["score"], served["winner"])
    record = svc.record(mid)
    assert len(record.games) == len(served["games"])
    for hosted, game in zip(record.games, served["games"], strict=True):
        assert list(hosted.opening or ()) == game["opening"]
        actions = [[a.side, a.kind, list(a.dice or ()) if a.kind == "roll" else a.move]
                   for a in hosted.actions]
        assert actions == game["actions"]
        assert hosted.result is not None
        assert (hosted.result.winner, hosted.result.points, hosted.result.reason,
                hosted.result.name) == (game["winner"], game["points"], game["reason"],
                                        game["name"])
