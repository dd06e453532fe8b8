"""MatchService in-process: whole matches, seats and tokens, turns, retries, events, limits."""

from __future__ import annotations

import pytest
from jacquetd_protocol.records import format_record, parse_record

from jacquetd.bots.players import DEFAULT_LEVEL
from jacquetd.matches import Caller, MatchError, MatchLimits, MatchService, MatchStore
from jacquetd.matches.records import audit_dice, check
from jacquetd.rules import Position

from .scripted import decide, play_out


def new(svc: MatchService, **args: object) -> dict:
    return svc.match_new(dict(args))


def code_of(exc: pytest.ExceptionInfo[MatchError]) -> str:
    return str(exc.value.code)


@pytest.mark.parametrize(("variant", "length", "cube"), [
    ("jacquet", 3, False), ("jacquet-be", 3, False), ("backgammon", 5, True),
    ("jacquet", 0, True),
])
def test_two_scripted_clients_play_a_whole_match(svc: MatchService, variant: str, length: int,
                                                 cube: bool) -> None:
    r = new(svc, variant=variant, length=length, cube=cube, seed=11)
    mid, tokens = r["match_id"], r["tokens"]
    play_out(svc, mid, tokens, seed=5)
    state = svc.match_state({"match_id": mid})
    assert state["status"] == "over" and state["phase"] == "over"
    assert state["seed"] == 11
    assert state["winner"] in (0, 1)
    if length:
        assert state["score"][state["winner"]] >= length
    rec = parse_record(svc.match_export({"match_id": mid})["record"])
    assert rec.seed == 11 and rec.winner == state["winner"]
    assert list(rec.score) == state["score"]
    end = check(rec)  # every action is legal on the rules core, results agree
    assert end.winner == state["winner"]
    audit_dice(rec)  # the dice are the seed's
    events = svc.match_watch({"match_id": mid})
    assert events["done"] and events["events"][-1]["type"] == "match_over"
    assert events["events"][-1]["seed"] == 11


def test_the_seed_is_secret_until_the_match_ends(svc: MatchService) -> None:
    r = new(svc, length=1, seed=99)
    mid = r["match_id"]
    for source in (svc.match_state({"match_id": mid}),
                   svc.match_state({"match_id": mid, "token": r["tokens"][0]}),
                   r, svc.match_list({})["matches"][0]):
        assert "seed" not in source
    text = svc.match_export({"match_id": mid})["record"]
    assert "Seed" not in text
    assert all("seed" not in e for e in svc.match_watch({"match_id": mid})["events"])


def test_state_has_both_position_forms_and_what_each_side_may_do(svc: MatchService) -> None:
    r = new(svc, variant="backgammon", length=3, cube=True, seed=3)
    state = svc.match_state({"match_id": r["match_id"], "token": r["tokens"][1]})
    assert state["you"] == 1 and state["owner"] is False
    pos = Position.from_dict(state["position"])
    assert Position.from_id(state["position_id"]) == pos
    side = state["turn"]
    assert state["phase"] == "move" and state["to_act"] == side  # backgammon: opening dice
    assert state["may"][side] == ["move", "resign"] and state["may"][1 - side] == ["resign"]
    assert pos.dice and state["legal_moves"] and state["dice"] == list(pos.dice)
    assert state["history"][:2] == ["game 1 score 0 0", state["history"][1]]
    assert state["history"][1].startswith("opening ")
    assert state["cube_state"] == {"value": 1, "owner": None, "pending": False}


def test_a_wrong_token_cannot_act_and_a_watcher_can_only_watch(svc: MatchService) -> None:
    r = new(svc, variant="jacquet", seed=1)
    mid = r["match_id"]
    side = svc.match_state({"match_id": mid})["to_act"]
    other = r["tokens"][1 - side]
    altered = other[:-1] + ("y" if other.endswith("x") else "x")  # never the token itself
    for token in ("nope-nope-nope", altered):
        with pytest.raises(MatchError) as exc:
            svc.match_roll({"match_id": mid, "token": token})
        assert code_of(exc) == "forbidden"
    # a token that is missing or not of a token's form: the command table refuses it
    for token in ("nope", None):
        with pytest.raises(MatchError) as exc:
            svc.match_roll({"match_id": mid, "token": token})
        assert (code_of(exc), exc.value.field) == ("bad_argument", "token")
    with pytest.raises(MatchError) as exc:
        svc.match_state({"match_id": mid, "token": "nope-nope-nope"})
    assert code_of(exc) == "forbidden"
    # the other seat's token is a seat, but not the one on turn
    with pytest.raises(MatchError) as exc:
        svc.match_roll({"match_id": mid, "token": r["tokens"][1 - side]})
    assert code_of(exc) == "out_of_turn"
    # the owner token does not play for a client seat
    with pytest.raises(MatchError) as exc:
        svc.match_roll({"match_id": mid, "token": r["owner_token"]})
    assert code_of(exc) == "forbidden"
    assert svc.match_state({"match_id": mid})["actions"] == 0
    svc.match_roll({"match_id": mid, "token": r["tokens"][side]})
    with pytest.raises(MatchError) as exc:
        svc.match_state({"match_id": "0000000000000000"})
    assert code_of(exc) == "not_found"


def test_out_of_turn_and_bad_state_are_told_apart(svc: MatchService) -> None:
    r = new(svc, variant="jacquet", length=3, seed=2)
    mid, tokens = r["match_id"], r["tokens"]
    side = svc.match_state({"match_id": mid})["to_act"]
    me = {"match_id": mid, "token": tokens[side]}
    other = {"match_id": mid, "token": tokens[1 - side]}
    with pytest.raises(MatchError) as exc:
        svc.match_move({**me, "move": "24/18"})
    assert code_of(exc) == "bad_state"  # roll first
    with pytest.raises(MatchError) as exc:
        svc.match_double(me)
    assert code_of(exc) == "bad_state" and exc.value.rule == "C1"  # cube off in jacquet
    with pytest.raises(MatchError) as exc:
        svc.match_take(me)
    assert code_of(exc) == "bad_state" and exc.value.rule == "C2"
    with pytest.raises(MatchError) as exc:
        svc.match_take(other)
    assert code_of(exc) == "out_of_turn"
    svc.match_roll(me)
    with pytest.raises(MatchError) as exc:
        svc.match_roll(me)
    assert code_of(exc) == "bad_state"
    with pytest.raises(MatchError) as exc:
        svc.match_move({**other, "move": "24/18"})
    assert code_of(exc) == "out_of_turn"


def test_an_illegal_move_is_refused_with_its_rule(svc: MatchService) -> None:
    r = new(svc, variant="jacquet", seed=4)
    mid, tokens = r["match_id"], r["tokens"]
    side = svc.match_state({"match_id": mid})["to_act"]
    me = {"match_id": mid, "token": tokens[side]}
    svc.match_roll(me)
    state = svc.match_state({"match_id": mid})
    d1, d2 = state["dice"]
    # J6: in the courier phase only the courier moves: two checkers off the talon is illegal
    if d1 != d2:
        with pytest.raises(MatchError) as exc:
            svc.match_move({**me, "move": f"24/{24 - d1} 24/{24 - d2}"})
        assert code_of(exc) == "illegal_move" and exc.value.rule == "J6"
    with pytest.raises(MatchError) as exc:
        svc.match_move({**me, "move": "this is not a move"})
    assert code_of(exc) == "illegal_move" and exc.value.field == "move"
    assert exc.value.rule is None  # not move notation: no rule is broken
    assert svc.match_state({"match_id": mid})["actions"] == 1
    svc.match_move({**me, "move": state["legal_moves"][0]})


def test_cube_double_take_redouble_drop_and_crawford(svc: MatchService) -> None:
    r = new(svc, variant="backgammon", length=2, cube=True, seed=8)
    mid, tokens = r["match_id"], r["tokens"]

    def st() -> dict:
        return svc.match_state({"match_id": mid})

    def act(cmd: str, side: int, **kw: object) -> dict:
        return svc.handle(cmd, {"match_id": mid, "token": tokens[side], **kw})

    s = st()
    act("match_move", s["to_act"], move=s["legal_moves"][0])
    s = st()
    a = s["to_act"]
    reply = act("match_double", a)
    assert reply["phase"] == "double" and reply["to_act"] == 1 - a
    assert reply["events"][0]["type"] == "double" and reply["events"][0]["value"] == 2
    with pytest.raises(MatchError) as exc:
        act("match_roll", a)
    assert code_of(exc) == "out_of_turn"  # the other side must answer first
    act("match_take", 1 - a)
    s = st()
    assert s["cube_state"] == {"value": 2, "owner": 1 - a, "pending": False}
    act("match_roll", a)
    s = st()
    act("match_move", a, move=s["legal_moves"][0])
    # the taker owns the cube and redoubles; the first doubler drops at 2 points
    act("match_double", 1 - a)
    reply = act("match_drop", a)
    kinds = [e["type"] for e in reply["events"]]
    assert kinds[:2] == ["drop", "game_over"]
    over = reply["events"][1]
    assert over["winner"] == 1 - a and over["points"] == 2 and over["reason"] == "drop"
    # 2 points in a 2-point match: over
    assert reply["status"] == "over" and kinds[-1] == "match_over"


def test_crawford_game_forbids_doubling(svc: MatchService) -> None:
    r = new(svc, variant="backgammon", length=3, cube=True, seed=8)
    mid, tokens = r["match_id"], r["tokens"]
    # side to act resigns a single game until someone has 2 points
    while True:
        s = svc.match_state({"match_id": mid})
        if max(s["score"]) == 2:
            break
        side = s["to_act"]
        svc.match_resign({"match_id": mid, "token": tokens[side], "points": "single"})
        svc.match_resign({"match_id": mid, "token": tokens[1 - side], "answer": "accept"})
    assert s["crawford_game"] is True
    if s["phase"] == "move":
        svc.match_move({"match_id": mid, "token": tokens[s["to_act"]],
                        "move": s["legal_moves"][0]})
        s = svc.match_state({"match_id": mid})
    with pytest.raises(MatchError) as exc:
        svc.match_double({"match_id": mid, "token": tokens[s["to_act"]]})
    assert code_of(exc) == "bad_state" and exc.value.rule == "C5"
    assert "double" not in s["may"][s["to_act"]]


def test_resignation_accept_and_reject(svc: MatchService) -> None:
    r = new(svc, variant="jacquet", length=5, seed=12)
    mid, tokens = r["match_id"], r["tokens"]
    s = svc.match_state({"match_id": mid})
    a = s["to_act"]
    b = 1 - a
    # the side not on turn may resign too; the answer comes before anything else
    reply = svc.match_resign({"match_id": mid, "token": tokens[b], "points": "marcia"})
    assert reply["phase"] == "resign" and reply["to_act"] == a
    ev = reply["events"][0]
    assert ev["type"] == "resign" and ev["points"] == 2 and ev["name"] == "marcia"
    with pytest.raises(MatchError) as exc:
        svc.match_roll({"match_id": mid, "token": tokens[a]})
    assert code_of(exc) == "bad_state"
    with pytest.raises(MatchError) as exc:
        svc.match_resign({"match_id": mid, "token": tokens[b], "answer": "accept"})
    assert code_of(exc) == "out_of_turn"
    svc.match_resign({"match_id": mid, "token": tokens[a], "points": "reject"})
    s = svc.match_state({"match_id": mid})
    assert s["phase"] == "roll" and s["to_act"] == a and s["resignation"] is None
    svc.match_resign({"match_id": mid, "token": tokens[a], "points": "3"})
    reply = svc.match_resign({"match_id": mid, "token": tokens[b], "answer": "accept"})
    over = next(e for e in reply["events"] if e["type"] == "game_over")
    assert over == {**over, "winner": b, "points": 3, "reason": "resign",
                    "name": "marcia per punto", "score": [3 if b == 0 else 0,
                                                          3 if b == 1 else 0]}
    assert reply["game"] == 2
    with pytest.raises(MatchError) as exc:
        svc.match_resign({"match_id": mid, "token": tokens[a], "points": "7"})
    assert code_of(exc) == "bad_argument" and exc.value.field == "points"
    for word in ("\u00b2", "\u0663"):  # a superscript two, an Arabic-Indic three: not 1-3
        with pytest.raises(MatchError) as exc:
            svc.match_resign({"match_id": mid, "token": tokens[a], "points": word})
        assert code_of(exc) == "bad_argument" and exc.value.field == "points"


def test_jacquet_be_has_no_marcia_per_punto(svc: MatchService) -> None:
    r = new(svc, variant="jacquet-be", seed=12)
    s = svc.match_state({"match_id": r["match_id"]})
    with pytest.raises(MatchError) as exc:
        svc.match_resign({"match_id": r["match_id"], "token": r["tokens"][s["to_act"]],
                          "points": "3"})
    assert code_of(exc) == "bad_argument"


def test_a_retried_action_returns_the_stored_reply_and_applies_once(svc: MatchService) -> None:
    r = new(svc, variant="jacquet", seed=21)
    mid, tokens = r["match_id"], r["tokens"]
    side = svc.match_state({"match_id": mid})["to_act"]
    args = {"match_id": mid, "token": tokens[side]}
    first = svc.match_roll(args, Caller("peer-a", 7))
    again = svc.match_roll(args, Caller("peer-a", 7))
    assert again == {**first, "replayed": True}
    assert svc.match_state({"match_id": mid})["actions"] == 1
    # the same id from another client is another request (refused: already rolled)
    with pytest.raises(MatchError) as exc:
        svc.match_roll(args, Caller("peer-b", 7))
    assert code_of(exc) == "bad_state"
    # the same client and id for a different action is a conflict, not a replay
    with pytest.raises(MatchError) as exc:
        svc.match_move({**args, "move": "pass"}, Caller("peer-a", 7))
    assert code_of(exc) == "conflict"
    # id 7 and id "7" are different requests
    s = svc.match_state({"match_id": mid})
    svc.match_move({**args, "move": s["legal_moves"][0]}, Caller("peer-a", "7"))
    assert svc.match_state({"match_id": mid})["actions"] == 2


def test_match_new_is_idempotent_too(svc: MatchService) -> None:
    session = svc.store.secrets.new_session()
    a = svc.match_new({"variant": "jacquet"}, Caller("c", 1, session))
    b = svc.match_new({"variant": "jacquet"}, Caller("c", 1, session))
    assert b["match_id"] == a["match_id"] and b["tokens"] == a["tokens"] and b["replayed"]
    assert b["owner_token"] == a["owner_token"]
    assert svc.match_list({})["total"] == 1


def test_a_replay_gives_tokens_back_only_to_their_session(svc: MatchService) -> None:
    """Without a session the stored reply keeps no token; a replay says they are withheld.
    The database holds no token and no seed of a match in play in clear."""
    a = svc.match_new({"variant": "jacquet", "seed": 99}, Caller("anon", 1))
    b = svc.match_new({"variant": "jacquet", "seed": 99}, Caller("anon", 1))
    assert b["match_id"] == a["match_id"] and b["replayed"] and b["withheld"]
    assert b["tokens"] == [None, None] and b["owner_token"] is None
    dump = "\n".join(svc.store._db.iterdump())
    assert a["owner_token"] not in dump and all(t not in dump for t in a["tokens"])
    assert "99" not in [str(r[0]) for r in svc.store._query("SELECT seed FROM matches")]
    assert svc.match_state({"match_id": a["match_id"], "token": a["tokens"][0]})["you"] == 0


def test_retry_survives_a_restart(db_path, store: MatchStore) -> None:
    svc = MatchService(store)
    r = svc.match_new({"seed": 3}, Caller("c", 1))
    side = svc.match_state({"match_id": r["match_id"]})["to_act"]
    args = {"match_id": r["match_id"], "token": r["tokens"][side]}
    first = svc.match_roll(args, Caller("c", 2))
    store.close()
    svc2 = MatchService(MatchStore(db_path))
    assert svc2.match_roll(args, Caller("c", 2)) == {**first, "replayed": True}
    assert svc2.match_new({"seed": 3}, Caller("c", 1))["match_id"] == r["match_id"]
    assert svc2.match_state({"match_id": r["match_id"]})["actions"] == 1
    svc2.close()


def test_events_are_numbered_in_order_and_resume_from_a_number(svc: MatchService) -> None:
    r = new(svc, variant="jacquet-be", length=2, seed=17)
    mid = r["match_id"]
    play_out(svc, mid, r["tokens"], seed=3)
    all_events = svc.match_watch({"match_id": mid})["events"]
    assert [e["n"] for e in all_events] == list(range(1, len(all_events) + 1))
    assert all_events[0]["type"] == "created" and all_events[-1]["type"] == "match_over"
    # a watcher reading in small batches, reconnecting with its last number each time
    seen: list[dict] = []
    last = 0
    while True:
        batch = svc.match_watch({"match_id": mid, "after": last, "limit": 7})
        seen += batch["events"]
        if batch["events"]:
            last = batch["events"][-1]["n"]
        if batch["done"]:
            break
    assert seen == all_events
    # the stored events tell the same game as the record
    moves = [e["move"] for e in all_events if e["type"] == "move"]
    rec = parse_record(svc.match_export({"match_id": mid})["record"])
    assert moves == [a.move for g in rec.games for a in g.actions if a.kind == "move"]


def test_forced_pass_is_played_for_the_side(svc: MatchService) -> None:
    forced: list[dict] = []
    for seed in range(5):  # whole backgammon matches until a roll cannot be played
        r = new(svc, variant="backgammon", length=3, seed=seed)
        play_out(svc, r["match_id"], r["tokens"], seed=9)
        events = svc.match_watch({"match_id": r["match_id"]})["events"]
        forced = [e for e in events if e.get("forced")]
        if forced:
            break
    assert forced
    for e in forced:
        assert e["move"] == "" and events[events.index(e) - 1]["type"] in ("roll", "opening")


def test_supplied_dice_match_replays_a_recorded_match_move_by_move(svc: MatchService) -> None:
    """One match is played with seeded dice; its record is then replayed, action by action,
    by two clients in a supplied-dice match: the two records tell the same games."""
    src = new(svc, variant="backgammon", length=3, cube=True, seed=31)
    play_out(svc, src["match_id"], src["tokens"], seed=4)
    recorded = parse_record(svc.match_export({"match_id": src["match_id"]})["record"])

    r = new(svc, variant="backgammon", length=3, cube=True, dice="supplied")
    mid, tokens = r["match_id"], r["tokens"]
    assert svc.match_state({"match_id": mid})["phase"] == "opening"
    for game in recorded.games:
        assert game.opening is not None
        svc.match_roll({"match_id": mid, "token": tokens[0], "dice": list(game.opening)})
        for a in game.actions:
            args = {"match_id": mid, "token": tokens[a.side]}
            if a.kind == "roll":
                svc.match_roll({**args, "dice": list(a.dice)})
            elif a.kind == "move":
                s = svc.match_state({"match_id": mid})
                if s["phase"] != "move":
                    assert a.move == ""  # the forced pass was played already
                    continue
                svc.match_move({**args, "move": a.move or "pass"})
            elif a.kind == "resign":
                svc.match_resign({**args, "points": str(a.value)})
            elif a.kind in ("accept", "reject"):
                svc.match_resign({**args, "answer": a.kind})
            else:
                svc.handle(f"match_{a.kind}", args)
    replayed = parse_record(svc.match_export({"match_id": mid})["record"])
    assert replayed.games == recorded.games
    assert replayed.headers["Dice"] == "supplied" and "Seed" not in replayed.headers
    assert replayed.winner == recorded.winner and replayed.score == recorded.score


def test_supplied_dice_rules(svc: MatchService) -> None:
    r = new(svc, variant="jacquet", dice="supplied", seat1="random")
    mid, tokens, owner = r["match_id"], r["tokens"], r["owner_token"]
    assert tokens[1] is None
    with pytest.raises(MatchError) as exc:
        svc.match_roll({"match_id": mid, "token": tokens[0]})
    assert code_of(exc) == "bad_argument" and exc.value.field == "dice"
    with pytest.raises(MatchError) as exc:
        svc.match_roll({"match_id": mid, "token": tokens[0], "dice": [3, 3]})
    assert code_of(exc) == "bad_argument"  # a tied opening is rolled again
    svc.match_roll({"match_id": mid, "token": owner, "dice": [2, 5]})  # side 1, the bot, starts
    s = svc.match_state({"match_id": mid})
    assert s["to_act"] == 1 and s["phase"] == "roll"
    assert svc.run_bots(mid) == 0  # the bot waits for its dice
    svc.match_roll({"match_id": mid, "token": owner, "dice": [6, 4]})
    assert svc.run_bots(mid) == 1
    s = svc.match_state({"match_id": mid})
    assert s["to_act"] == 0 and s["history"][-1].startswith("1 64: ")
    with pytest.raises(MatchError) as exc:
        svc.match_new({"dice": "supplied", "seed": 3})
    assert code_of(exc) == "bad_argument" and exc.value.field == "seed"
    with pytest.raises(MatchError) as exc:
        svc.match_roll({"match_id": mid, "token": tokens[0], "dice": [7, 1]})
    assert code_of(exc) == "bad_argument"


def test_seeded_match_refuses_supplied_dice(svc: MatchService) -> None:
    r = new(svc, seed=1)
    side = svc.match_state({"match_id": r["match_id"]})["to_act"]
    with pytest.raises(MatchError) as exc:
        svc.match_roll({"match_id": r["match_id"], "token": r["tokens"][side], "dice": [6, 5]})
    assert code_of(exc) == "bad_argument" and exc.value.field == "dice"


@pytest.mark.parametrize("variant", ["jacquet", "jacquet-be", "backgammon"])
def test_bot_seat_plays_a_whole_match_against_a_scripted_client(store: MatchStore,
                                                                 variant: str) -> None:
    svc = MatchService(store, play_bots_inline=True)
    r = svc.match_new({"variant": variant, "length": 3, "cube": variant == "backgammon",
                       "seat0": "random", "seed": 77})
    mid, tokens = r["match_id"], r["tokens"]
    assert tokens[0] is None and isinstance(tokens[1], str)
    play_out(svc, mid, tokens, seed=2)
    s = svc.match_state({"match_id": mid})
    assert s["status"] == "over" and s["seats"][0] == {"player": "bot", "level": "random",
                                                       "name": "bot:random"}
    check(parse_record(svc.match_export({"match_id": mid})["record"]))


def test_bot_answers_doubles_and_resignations(store: MatchStore) -> None:
    svc = MatchService(store, play_bots_inline=True)
    r = svc.match_new({"variant": "backgammon", "length": 5, "cube": True, "seat1": "random",
                       "seed": 5})
    mid, tok = r["match_id"], r["tokens"][0]
    s = svc.match_state({"match_id": mid})
    if s["to_act"] == 0 and s["phase"] == "move":
        svc.match_move({"match_id": mid, "token": tok, "move": s["legal_moves"][0]})
    s = svc.match_state({"match_id": mid})
    assert s["to_act"] == 0 and s["phase"] == "roll"
    reply = svc.match_double({"match_id": mid, "token": tok})
    assert reply["to_act"] == 1
    s = svc.match_state({"match_id": mid})
    assert s["cube_state"]["value"] == 2 and s["cube_state"]["owner"] == 1  # random takes
    svc.match_roll({"match_id": mid, "token": tok})
    s = svc.match_state({"match_id": mid})
    svc.match_move({"match_id": mid, "token": tok, "move": s["legal_moves"][0]})
    # nobody has borne off: a single resignation is refused, a backgammon accepted
    svc.match_resign({"match_id": mid, "token": tok, "points": "1"})
    assert svc.match_state({"match_id": mid})["game"] == 1
    svc.match_resign({"match_id": mid, "token": tok, "points": "3"})
    s = svc.match_state({"match_id": mid})
    assert s["score"] == [0, 6] and s["status"] == "over"  # 3 x cube 2 wins the 5 points


def test_a_broken_bot_falls_back_to_random(store: MatchStore) -> None:
    def bad_move(pos: Position, level: str, time_s: float) -> str:
        raise RuntimeError("no")

    def silly_cube(pos: Position, level: str, time_s: float, q: str, points: int = 0) -> str:
        return "maybe"

    svc = MatchService(store, bot_move=bad_move, bot_cube=silly_cube, play_bots_inline=True)
    r = svc.match_new({"variant": "jacquet-be", "seat0": "random", "seat1": "random",
                       "seed": 3})
    s = svc.match_state({"match_id": r["match_id"]})
    assert s["status"] == "over"


def test_bot_vs_bot_and_unknown_level(svc: MatchService) -> None:
    with pytest.raises(MatchError) as exc:
        svc.match_new({"seat1": "grandmaster"})
    assert code_of(exc) == "bad_argument" and exc.value.field == "seat1"
    # `bot` is the default level (SPEC: match_new's seat0)
    r = svc.match_new({"seat0": "bot", "seat1": "bot:random", "length": 1, "seed": 1})
    assert r["tokens"] == [None, None]
    seats = svc.match_state({"match_id": r["match_id"]})["seats"]
    assert [s["level"] for s in seats] == [DEFAULT_LEVEL, "random"]
    # two bots play to the end with no client (the default level's search is the engine
    # tests' subject; the 0-ply level plays the game here in a second, not twenty)
    r = svc.match_new({"seat0": "bot:neural", "seat1": "bot:random", "length": 1, "seed": 1})
    assert r["tokens"] == [None, None]
    assert svc.run_bots(r["match_id"]) > 10
    assert svc.match_state({"match_id": r["match_id"]})["status"] == "over"


def test_stale_bot_answers_are_ignored(store: MatchStore) -> None:
    svc = MatchService(store)
    r = svc.match_new({"variant": "jacquet", "seat1": "random", "seed": 6})
    mid = r["match_id"]
    s = svc.match_state({"match_id": mid})
    if s["to_act"] == 0:
        svc.match_roll({"match_id": mid, "token": r["tokens"][0]})
        s = svc.match_state({"match_id": mid})
        svc.match_move({"match_id": mid, "token": r["tokens"][0], "move": s["legal_moves"][0]})
    job = svc.bot_job(mid)
    assert job is not None and job.question == "roll"
    assert svc.apply_bot(job, "roll")
    assert not svc.apply_bot(job, "roll")  # the same job twice: the second is stale
    job = svc.bot_job(mid)
    assert job is not None and job.question == "move"
    # the client resigns in the meantime; the bot's answer to the old state is dropped
    svc.match_resign({"match_id": mid, "token": r["tokens"][0], "points": "1"})
    assert not svc.apply_bot(job, svc.bot_move(job.position, "random", 1.0))


def test_open_match_limit_adjournment_and_resumption(store: MatchStore) -> None:
    now = [1000.0]
    svc = MatchService(store, limits=MatchLimits(max_open=2, idle_timeout_s=60),
                       clock=lambda: now[0])
    a = svc.match_new({"seed": 1})
    b = svc.match_new({"seed": 2})
    made = {m["match_id"]: m for m in (a, b)}
    with pytest.raises(MatchError) as exc:
        svc.match_new({})
    assert code_of(exc) == "limit" and exc.value.extra["limit"] == "max_open"
    now[0] += 30
    side = svc.match_state({"match_id": a["match_id"]})["to_act"]
    svc.match_roll({"match_id": a["match_id"], "token": a["tokens"][side]})
    now[0] += 40  # b idle 70 s, a 40 s
    adjourned = svc.adjourn_idle()
    assert len(adjourned) == 1 and adjourned[0] != a["match_id"]
    assert svc.match_list({"status": ["adjourned"]})["total"] == 1
    c = svc.match_new({"seed": 3})  # adjourned matches do not count
    # resuming b needs a free place
    b_id = adjourned[0]
    b_state = svc.match_state({"match_id": b_id})
    assert b_state["status"] == "adjourned"
    with pytest.raises(MatchError) as exc:
        svc.match_roll({"match_id": b_id, "token": "x-x-x-x-x"})
    assert code_of(exc) == "forbidden"
    svc.match_close({"match_id": c["match_id"], "token": c["owner_token"]})
    b_tokens = made[b_id]["tokens"]
    s = svc.match_state({"match_id": b_id, "token": b_tokens[0]})  # a seat's request resumes
    assert s["status"] == "playing"
    types = [e["type"] for e in svc.match_watch({"match_id": b_id})["events"]]
    assert types[-2:] == ["adjourned", "resumed"]


def test_list_filters(svc: MatchService) -> None:
    svc.match_new({"variant": "jacquet", "name0": "ann", "name1": "bob"})
    svc.match_new({"variant": "backgammon", "name0": "ann", "seat1": "random"})
    done = svc.match_new({"variant": "jacquet-be", "name0": "cy", "seat1": "random",
                          "seed": 1})
    svc.match_close({"match_id": done["match_id"], "token": done["owner_token"]})
    assert svc.match_list({})["total"] == 2  # closed ones only on request
    assert svc.match_list({"status": ["all"]})["total"] == 3
    assert svc.match_list({"status": ["closed"]})["matches"][0]["match_id"] == done["match_id"]
    assert {m["variant"] for m in svc.match_list({"player": "ann"})["matches"]} == {
        "jacquet", "backgammon"}
    assert svc.match_list({"variant": "backgammon"})["total"] == 1
    assert svc.match_list({"bots": True, "status": ["all"]})["total"] == 2
    assert svc.match_list({"bots": False})["total"] == 1
    page = svc.match_list({"status": ["all"], "limit": 2, "offset": 2})
    assert len(page["matches"]) == 1 and page["total"] == 3
    with pytest.raises(MatchError) as exc:
        svc.match_list({"status": ["sleeping"]})
    assert code_of(exc) == "bad_argument" and exc.value.field == "status"


def test_close_rules(svc: MatchService) -> None:
    r = svc.match_new({"length": 1, "seed": 9})
    mid, tokens = r["match_id"], r["tokens"]
    with pytest.raises(MatchError) as exc:
        svc.match_close({"match_id": mid, "token": tokens[0]})
    assert code_of(exc) == "forbidden"  # a seat may not abandon
    play_out(svc, mid, tokens, seed=1)
    reply = svc.match_close({"match_id": mid, "token": tokens[0]})
    assert reply["status"] == "closed" and reply["abandoned"] is False
    with pytest.raises(MatchError) as exc:
        svc.match_roll({"match_id": mid, "token": tokens[0]})
    assert code_of(exc) == "match_over"
    assert svc.match_close({"match_id": mid, "token": tokens[1]})["already"] is True
    # an abandoned match reveals its seed (no dice are left to guess)
    r = svc.match_new({"seed": 10})
    svc.match_close({"match_id": r["match_id"], "token": r["owner_token"]})
    s = svc.match_state({"match_id": r["match_id"]})
    assert s["status"] == "closed" and s["seed"] == 10
    assert svc.match_watch({"match_id": r["match_id"]})["events"][-1]["abandoned"] is True


def test_actions_on_a_finished_match_are_refused(svc: MatchService) -> None:
    r = svc.match_new({"variant": "jacquet-be", "seed": 2})
    play_out(svc, r["match_id"], r["tokens"], seed=2)
    for cmd in ("match_roll", "match_double", "match_take", "match_drop"):
        with pytest.raises(MatchError) as exc:
            svc.handle(cmd, {"match_id": r["match_id"], "token": r["tokens"][0]})
        assert code_of(exc) == "match_over"


def test_argument_errors_name_the_field(svc: MatchService) -> None:
    cases = [
        ({"variant": "chess"}, "variant"), ({"length": -1}, "length"),
        ({"length": 1000}, "length"), ({"cube": "maybe"}, "cube"), ({"dice": "loaded"}, "dice"),
        ({"bot_time_ms": 0}, "bot_time_ms"), ({"name0": "x" * 100}, "name0"),
        ({"seed": "abc"}, "seed"),
    ]
    for args, field in cases:
        with pytest.raises(MatchError) as exc:
            svc.match_new(args)
        assert (code_of(exc), exc.value.field) == ("bad_argument", field), args
    with pytest.raises(MatchError) as exc:
        svc.match_state({})
    assert exc.value.field == "match_id"
    with pytest.raises(MatchError) as exc:
        svc.handle("match_fly", {})
    assert exc.value.field == "cmd"


def test_decide_never_stalls(svc: MatchService) -> None:
    r = svc.match_new({"variant": "jacquet", "seed": 1})
    s = svc.match_state({"match_id": r["match_id"]})
    cmd, _ = decide(s, s["to_act"], 0)
    assert cmd.startswith("match_")


def test_record_round_trip_of_hosted_matches(svc: MatchService) -> None:
    for i, variant in enumerate(("jacquet", "jacquet-be", "backgammon")):
        r = svc.match_new({"variant": variant, "length": 3, "cube": True, "seed": 40 + i})
        play_out(svc, r["match_id"], r["tokens"], seed=i)
        text = svc.match_export({"match_id": r["match_id"]})["record"]
        assert format_record(parse_record(text)) == text
