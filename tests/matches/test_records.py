"""protocol/records.py: the match record format (RECORDS.md), and its replay on the rules."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jacquetd_protocol.records import (
    FORMAT,
    HEADER_VALUES,
    Action,
    GameRecord,
    GameResult,
    MatchRecord,
    RecordError,
    body_lines,
    format_record,
    parse_record,
)

from jacquetd.matches.records import ReplayError, audit_dice, check, positions, replay
from jacquetd.rules import Match

EXAMPLE = Path(__file__).parent / "data" / "example.mat"


def test_the_documented_example_reads_and_replays() -> None:
    text = EXAMPLE.read_text()
    rec = parse_record(text)
    assert rec.variant == "jacquet" and rec.length == 3 and rec.cube is False
    assert rec.players == ("ann", "bot:random") and rec.winner == 1 and rec.score == (0, 3)
    assert format_record(rec) == text  # the example is in canonical form
    assert check(rec).score == [0, 3]
    audit_dice(rec)


def test_example_is_quoted_in_records_md() -> None:
    doc = (Path(__file__).parents[2] / "protocol" / "RECORDS.md").read_text()
    assert EXAMPLE.read_text() in doc


# -- round trips ---------------------------------------------------------------------------

_dice = st.tuples(st.integers(1, 6), st.integers(1, 6))
_moves = st.sampled_from(["", "24/18 18/13", "bar/22*", "6/off 5/off", "13/7(2)", "24/13"])


@st.composite
def actions(draw: st.DrawFn) -> Action:
    side = draw(st.integers(0, 1))
    kind = draw(st.sampled_from(["roll", "move", "double", "take", "drop", "resign", "accept",
                                 "reject"]))
    if kind == "roll":
        return Action(side, kind, dice=draw(_dice))
    if kind == "move":
        return Action(side, kind, move=draw(_moves))
    if kind == "double":
        return Action(side, kind, value=2 ** draw(st.integers(1, 6)))
    if kind == "resign":
        return Action(side, kind, value=draw(st.integers(1, 3)))
    return Action(side, kind)


@st.composite
def records(draw: st.DrawFn) -> MatchRecord:
    text = st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=20)
    headers = {"Format": FORMAT, "Variant": draw(st.sampled_from(["jacquet", "backgammon"])),
               "Length": str(draw(st.integers(0, 25))), "Player0": draw(text),
               "Player1": draw(text)}
    extra = draw(st.dictionaries(st.from_regex(r"\A[A-Z][a-z]{1,8}\Z"), text, max_size=3))
    # headers of RECORDS.md take the values it lists (test_header_values_are_checked)
    headers.update({k: v for k, v in extra.items()
                    if k not in headers and k not in HEADER_VALUES})
    games = []
    for n in range(1, draw(st.integers(0, 3)) + 1):
        d0 = draw(st.integers(1, 6))
        d1 = draw(st.integers(1, 6).filter(lambda d, d0=d0: d != d0))
        result = draw(st.none() | st.builds(GameResult, st.integers(0, 1), st.integers(1, 64),
                                            st.sampled_from(["bear-off", "drop", "resign"]),
                                            st.sampled_from(["", "single", "marcia per punto"])))
        games.append(GameRecord(n, (draw(st.integers(0, 20)), draw(st.integers(0, 20))),
                                draw(st.booleans()), (d0, d1), draw(st.lists(actions(),
                                                                             max_size=12)),
                                result))
    return MatchRecord(headers, games)


@settings(max_examples=60, deadline=None)
@given(records())
def test_format_then_parse_gives_the_record_back(rec: MatchRecord) -> None:
    text = format_record(rec)
    back = parse_record(text)
    assert back.games == rec.games
    assert back.headers == rec.headers
    assert format_record(back) == text


def test_parse_accepts_the_loose_forms_and_normalises_them() -> None:
    loose = """; a comment
; [Variant "backgammon"]
;[Length   "1"]

game 1 score 0 0
opening 3 1
  0 move 8/5 6/5
1 6-4: 24/18 13/9
0 roll 21
0 move pass
1 resign 1
0 accept
1 wins 1 resign single
"""
    rec = parse_record(loose)
    g = rec.games[0]
    assert g.actions[1] == Action(1, "roll", dice=(6, 4))
    assert g.actions[4] == Action(0, "move", move="")
    text = format_record(rec)
    assert "0 21: pass" in text and "1 64: 24/18 13/9" in text
    assert parse_record(text).games == rec.games
    assert body_lines(rec.games)[0] == "game 1 score 0 0"


@pytest.mark.parametrize(("text", "line", "fragment"), [
    ("game 1 score 0 0\nopening 3 3\n", 2, "different"),
    ("game 2 score 0 0\n", 1, "follows game 0"),
    ("0 64: 24/18\n", 1, "header or a game"),
    ("game 1 score 0 0\n0 64: 24/18\n", 2, "opening"),
    ("game 1 score 0 0\nopening 3 1\n2 64: 24/18\n", 3, "side"),
    ("game 1 score 0 0\nopening 3 1\n0 74: 24/18\n", 3, "dice"),
    ("game 1 score 0 0\nopening 3 1\n0 fly\n", 3, "unknown action"),
    ("game 1 score 0 0\nopening 3 1\n0 double 1\n", 3, "2 or more"),
    ("game 1 score 0 0\nopening 3 1\n0 resign 4\n", 3, "1, 2 or 3"),
    ("game 1 score 0 0\nopening 3 1\n0 take now\n", 3, "nothing after"),
    ("game 1 score 0 0\nopening 3 1\n0 wins 1 luck\n", 3, "reason"),
    ("game 1 score 0 0\nopening 3 1\n0 wins 1 drop\n1 64: 24/18\n", 4, "over"),
    ("game 1 score 0 0\n; [Variant \"x\"]\n", 2, "before the first game"),
    ('; [Variant "jacquet"]\n; [Variant "backgammon"]\n', 2, "twice"),
    ('; [Variant "a]\n', 1, "malformed header"),
    ("game 1 points 0 0\n", 1, "game N score"),
])
def test_parse_errors_name_the_line(text: str, line: int, fragment: str) -> None:
    with pytest.raises(RecordError) as exc:
        parse_record(text)
    assert exc.value.line == line and fragment in exc.value.message


def test_unknown_format_is_refused() -> None:
    for fmt in ("gnubg-mat/1", "jacquet-match/2", "jacquet-match/10"):
        with pytest.raises(RecordError, match="unknown record format"):
            parse_record(f'; [Format "{fmt}"]\n')
    assert parse_record('; [Format "jacquet-match/1.3"]\n').headers["Format"].endswith("1.3")


def test_header_values_are_quoted() -> None:
    rec = MatchRecord({"Player0": 'say "hi" \\ bye', "Event": "x"})
    text = format_record(rec)
    assert '; [Player0 "say \\"hi\\" \\\\ bye"]' in text
    assert parse_record(text).headers["Player0"] == 'say "hi" \\ bye'
    with pytest.raises(RecordError):
        format_record(MatchRecord({"Bad Key": "x"}))
    with pytest.raises(RecordError):
        format_record(MatchRecord({"Note": "two\nlines"}))


# -- replay on the rules core ----------------------------------------------------------------


def _random_record(variant: str, seed: int) -> MatchRecord:
    """A whole match played at random on the rules core, written as a record."""
    rng = random.Random(seed)
    m = Match(variant, 3, variant == "backgammon", seed=seed)
    rec = MatchRecord({"Variant": variant, "Length": "3",
                       "Cube": "on" if variant == "backgammon" else "off",
                       "Seed": str(seed)})
    while not m.over:
        g = m.new_game()
        gr = GameRecord(len(m.games), (m.score[0], m.score[1]),
                        bool(g.match and g.match.crawford))
        gr.opening = g.start()
        while g.phase != "over":
            if g.phase == "roll":
                gr.actions.append(Action(g.turn, "roll", dice=g.roll()))
            side = g.turn
            play = rng.choice(g.legal_plays())
            g.play(play)
            gr.actions.append(Action(side, "move", move=play.move))
        r = g.result
        assert r is not None
        gr.result = GameResult(r.winner, r.points, r.reason, r.name)
        m.record_result()
        rec.games.append(gr)
    rec.headers["Result"] = str(m.winner)
    return rec


@pytest.mark.parametrize("variant", ["jacquet", "jacquet-be", "backgammon"])
def test_records_from_the_rules_core_replay_and_audit(variant: str) -> None:
    rec = parse_record(format_record(_random_record(variant, 5)))
    assert check(rec).winner == rec.winner
    audit_dice(rec)
    steps = list(positions(rec))
    assert steps and all(s.position.dice for s, _ in steps)


def test_replay_finds_the_first_bad_action() -> None:
    rec = _random_record("jacquet", 3)
    moves = [i for i, a in enumerate(rec.games[0].actions) if a.kind == "move"]
    i = moves[2]
    a = rec.games[0].actions[i]
    rec.games[0].actions[i] = Action(a.side, "move", move="24/1")
    with pytest.raises(ReplayError) as exc:
        check(rec)
    assert exc.value.game == 1 and exc.value.index == i


@pytest.mark.parametrize("taker", ["doubler", "opponent"])
def test_replay_checks_who_answers_a_double(taker: str) -> None:
    """C2: only the doubler's opponent takes; a take by the doubler is refused there."""
    rec = _random_record("backgammon", 4)
    actions = rec.games[0].actions
    first = next(i for i, a in enumerate(actions) if a.kind == "roll")
    side = actions[first].side
    answer = side if taker == "doubler" else 1 - side
    actions[first:first] = [Action(side, "double", value=2), Action(answer, "take")]
    with pytest.raises(ReplayError) as exc:
        check(rec)
    if taker == "doubler":
        assert exc.value.index == first + 1 and "take" in str(exc.value)
    else:  # accepted; the doubled cube then disagrees with the recorded result
        assert "wins" in str(exc.value)


def test_replay_checks_results_scores_and_dice() -> None:
    rec = _random_record("backgammon", 4)
    r = rec.games[0].result
    assert r is not None
    rec.games[0].result = GameResult(1 - r.winner, r.points, r.reason, r.name)
    with pytest.raises(ReplayError, match="wins"):
        check(rec)
    rec = _random_record("backgammon", 4)
    if len(rec.games) > 1:
        rec.games[1].score = (9, 9)
        with pytest.raises(ReplayError, match="score"):
            check(rec)
    rec = _random_record("backgammon", 4)
    first_roll = next(i for i, a in enumerate(rec.games[0].actions) if a.kind == "roll")
    a = rec.games[0].actions[first_roll]
    assert a.dice is not None
    rec.games[0].actions[first_roll] = Action(a.side, "roll",
                                              dice=(a.dice[0] % 6 + 1, a.dice[1]))
    with pytest.raises(ReplayError, match="seed rolls"):
        audit_dice(rec)
    with pytest.raises(ReplayError):
        audit_dice(MatchRecord({}))


def test_replay_yields_the_position_each_action_was_taken_in() -> None:
    rec = _random_record("jacquet", 8)
    first = next(iter(replay(rec)))
    assert first.game == 1 and first.index == 0
    assert first.position.me[24] == 15 and first.position.opp[24] == 15
