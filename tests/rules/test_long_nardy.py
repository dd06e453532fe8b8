"""Long Nardy (RULES.md section 6): one or more tests per N id, the worked examples Ex1-Ex12
by name, and invariants over thousands of seeded random games.

Each test's name carries the id it checks; the examples' positions are written as in
RULES.md, {point: count} in each side's own numbering, the rest borne off.
"""

from __future__ import annotations

import random

import pytest

from jacquetd.rules import (
    Game,
    GameStateError,
    IllegalMoveError,
    Position,
    PositionError,
    apply_move,
    generate,
    legal_plays,
)
from jacquetd.rules.geometry import head_floor, lowest_opposing, route_point, unpassed_block
from jacquetd.rules.movegen import position_after
from jacquetd.rules.scoring import game_result, result_name
from jacquetd.rules.variants import VARIANTS, find_variant, opponent_point_map
from tests.conftest import slow_deadline, within

from .helpers import side

LN = "long-nardy"
START = {24: 15}


def p_(me: dict[int, int], opp: dict[int, int], dice: tuple[int, int] | None = None) -> Position:
    return Position.validated(LN, side(me), side(opp), dice or ())


def outcomes(p: Position) -> set[tuple[tuple[int, ...], tuple[int, ...]]]:
    return {(r.me, r.opp) for r in generate(p)}


def mover(p: Position) -> list[dict[int, int]]:
    """The mover's side after each legal play, as {point: count} (0: borne off)."""
    return sorted(({q: n for q, n in enumerate(r.me) if n} for r in generate(p)),
                  key=lambda d: sorted(d.items()))


def as_sides(*specs: dict[int, int]) -> list[dict[int, int]]:
    out = []
    for spec in specs:
        counts = side(spec)
        out.append({q: n for q, n in enumerate(counts) if n})
    return sorted(out, key=lambda d: sorted(d.items()))


def moves(p: Position) -> set[str]:
    return {pl.move for pl in legal_plays(p)}


def rule_of(p: Position, text: str) -> str | None:
    with pytest.raises(IllegalMoveError) as err:
        apply_move(p, text)
    return err.value.rule


# -- N1 setup, N2 opening --------------------------------------------------------------------

def test_N1_fifteen_on_the_head_at_diagonally_opposite_corners() -> None:
    p = Position.initial(LN)
    assert p.me == p.opp == tuple(side(START))
    v = find_variant(LN)
    assert v.same_direction and not v.hitting
    table = opponent_point_map(v)
    assert table[12] == 24 and table[24] == 12  # the opponent's head is our 12 (G3)
    assert find_variant("nardy") is v and find_variant("long_nardy") is v


def test_N2_the_higher_opening_die_starts_and_rolls_again() -> None:
    g = Game(LN)
    d0, d1 = g.start()
    assert d0 != d1 and g.turn == (0 if d0 > d1 else 1)
    assert g.phase == "roll" and g.rolled is None  # the opening dice are not played
    g.roll((6, 6))  # the first roll may be a double (N5 assumes it)
    assert {pl.move for pl in g.legal_plays()} == {"24/18 24/18"}


# -- N3 movement, N4 landing -----------------------------------------------------------------

def test_N3_Ex4_five_five_passes_over_the_opponents_head() -> None:
    p = Position.initial(LN).with_dice((5, 5))
    assert mover(p) == as_sides({24: 14, 4: 1})
    assert moves(p) == {"24/19 19/14 14/9 9/4"}  # 14/9 passes over 12, the opponent's head


def test_N3_no_hitting_and_no_bar() -> None:
    p = p_(START, {24: 13, 21: 1, 15: 1}, (5, 5))
    assert all(not s.hit for pl in legal_plays(p) for s in pl.steps)
    assert all(pl.after.me[25] == 0 and pl.after.opp[25] == 0 for pl in legal_plays(p))


def test_N3_a_hit_mark_is_refused() -> None:
    p = Position.initial(LN).with_dice((6, 5))
    assert rule_of(p, "24/18* 18/13") == "N3"


def test_N4_Ex8_a_single_checker_holds_a_point() -> None:
    # O {24:13, 21:1, 15:1}: our 9 and 3; 14/9 would land on a single checker
    p = p_(START, {24: 13, 21: 1, 15: 1}, (5, 5))
    assert mover(p) == as_sides({24: 14, 14: 1})
    assert rule_of(p, "24/9") == "N4"


def test_N4_a_checker_on_the_bar_is_refused() -> None:
    me = side(START)
    me[24] -= 1
    me[25] = 1
    with pytest.raises(PositionError) as err:
        Position.validated(LN, me, side(START))
    assert err.value.rule == "N4"


# -- N5 the head -----------------------------------------------------------------------------

def test_N5_Ex1_six_six_on_the_first_turn_two_leave_two_sixes_lost() -> None:
    p = Position.initial(LN).with_dice((6, 6))
    assert mover(p) == as_sides({24: 13, 18: 2})
    assert [pl.dice_used for pl in legal_plays(p)] == [2]


def test_N5_Ex2_four_four_on_the_first_turn() -> None:
    assert mover(Position.initial(LN).with_dice((4, 4))) == as_sides({24: 13, 16: 2})


def test_N5_Ex3_three_three_on_the_first_turn() -> None:
    assert mover(Position.initial(LN).with_dice((3, 3))) == as_sides(
        {24: 13, 21: 1, 15: 1}, {24: 13, 18: 2})


def test_N5_Ex5_one_from_the_head_with_six_five() -> None:
    p = Position.initial(LN).with_dice((6, 5))
    assert mover(p) == as_sides({24: 14, 13: 1})
    # a second checker off the head is refused, citing N5
    assert rule_of(p, "24/18 24/19") == "N5"


def test_N5_Ex6_the_second_side_s_first_turn() -> None:
    o = {24: 14, 4: 1}  # O opened 5-5; its 4 is our 16
    assert mover(p_(START, o, (2, 2))) == as_sides({24: 14, 18: 1})
    assert mover(p_(START, o, (4, 4))) == as_sides({24: 13, 20: 2})
    assert mover(p_(START, o, (5, 3))) == as_sides({24: 14, 19: 1})
    # N5(b) is not adopted: 2-2 does not let a second checker leave
    assert rule_of(p_(START, o, (2, 2)), "24/22 24/18") == "N5"


def test_N5_Ex7_later_turn_six_six_one_from_the_head() -> None:
    p = p_({24: 13, 18: 2}, {24: 13, 18: 2}, (6, 6))
    assert mover(p) == as_sides({24: 12, 18: 3})
    assert rule_of(p, "24/18(2)") == "N5"


def test_N5_the_first_turn_is_read_from_the_head_count() -> None:
    v = find_variant(LN)
    assert v.head_rule
    assert head_floor(side(START), (6, 6)) == 13
    assert head_floor(side(START), (5, 5)) == 14
    assert head_floor(side({24: 14, 13: 1}), (6, 6)) == 13


# -- N6 six-block ----------------------------------------------------------------------------

EX9_ME = {9: 1, 6: 1, 5: 2, 4: 2, 2: 2, 1: 2}
EX9_RESULTS = ({5: 2, 4: 3, 2: 2, 1: 2}, {5: 2, 4: 2, 3: 1, 2: 2, 1: 3})


def test_N6_Ex9_a_block_with_no_checker_ahead_is_illegal_after_any_die() -> None:
    p = p_(EX9_ME, {24: 12, 23: 1, 22: 1, 20: 1}, (6, 5))
    assert mover(p) == as_sides(*EX9_RESULTS)
    # 9/3 first would make 6..1 with no checker ahead: that order is refused, and the
    # position it reaches is legal only through 6/1 9/3, its canonical spelling (G6, G8)
    assert moves(p) == {"9/4 6/off", "6/1 9/3"}
    assert apply_move(p, "9/3 6/1").move == "6/1 9/3"
    assert rule_of(p, "9/3") == "N6"


def test_N6_Ex10_a_block_with_a_checker_ahead_is_legal() -> None:
    p = p_(EX9_ME, {24: 12, 23: 1, 22: 1, 12: 1}, (6, 5))
    assert mover(p) == as_sides(*EX9_RESULTS, {6: 1, 5: 1, 4: 2, 3: 1, 2: 2, 1: 2})


def test_N6_the_route_breaks_between_13_and_12() -> None:
    # our 14,13 | 12,11,10,9: two runs of the opponent's route, not one of six
    ok = p_({14: 1, 13: 1, 12: 1, 11: 1, 10: 1, 9: 1, 1: 9}, {20: 15})
    assert unpassed_block(ok.me, ok.opp) is None
    # but 1 and 24 are consecutive (G5): our 2,1,24,23,22,21 is a block
    with pytest.raises(PositionError) as err:
        p_({2: 1, 1: 1, 24: 1, 23: 1, 22: 1, 21: 10}, {20: 15})
    assert err.value.rule == "N6"
    assert [route_point(q) for q in (2, 1, 24, 21)] == [14, 13, 12, 9]


def test_N6_a_standing_block_without_a_checker_ahead_is_refused() -> None:
    block = {19: 1, 18: 1, 17: 1, 16: 1, 15: 1, 14: 10}  # the opponent's 7..2
    with pytest.raises(PositionError) as err:
        p_(block, {20: 15})
    assert err.value.rule == "N6"
    p = p_(block, {20: 14, 1: 1})  # the opponent's 1 (our 13) is ahead of it
    assert lowest_opposing(p.opp) == 1
    p_(block, {20: 14, 0: 1})  # one borne off is ahead of every block


# -- N7 maximum play -------------------------------------------------------------------------

def test_N7_Ex12_the_higher_die_when_only_one_can_be_played() -> None:
    p = p_({13: 1, 1: 14}, {24: 14, 14: 1}, (6, 5))
    assert mover(p) == as_sides({7: 1, 1: 14})
    assert rule_of(p, "13/8") == "N7"


def test_N7_Ex12_no_die_can_be_played_and_the_turn_passes() -> None:
    p = p_({13: 1, 1: 14}, {24: 12, 20: 1, 19: 1, 14: 1}, (6, 5))
    plays = legal_plays(p)
    assert len(plays) == 1 and plays[0].is_pass
    assert apply_move(p, "pass").is_pass
    q = p_({13: 1, 1: 14}, {24: 14, 14: 1}, (6, 5))
    assert rule_of(q, "pass") == "N7"


def test_N7_Ex6_five_three_only_the_higher_die() -> None:
    p = p_(START, {24: 14, 4: 1}, (5, 3))
    assert moves(p) == {"24/19"}


# -- N8 bearing off --------------------------------------------------------------------------

def test_N8_Ex11_exact_or_from_the_highest_point() -> None:
    p = p_({5: 1, 3: 1}, START, (6, 2))
    assert mover(p) == as_sides({1: 1}, {3: 1})
    assert moves(p) == {"5/off 3/1", "5/3 3/off"}


def test_N8_bearing_off_needs_all_fifteen_home() -> None:
    p = p_({11: 1, 3: 1}, START, (3, 1))
    assert rule_of(p, "3/off 11/10") == "N8"
    # checked before each die: the first die may bring the last checker home
    q = p_({7: 1, 3: 1}, START, (4, 3))
    assert all(pl.steps[0].dst != 0 and pl.steps[1].dst == 0 for pl in legal_plays(q))
    assert {pl.after.opp[0] for pl in legal_plays(q)} == {14}


def test_N8_a_larger_die_bears_off_only_from_the_highest_point() -> None:
    p = p_({4: 1, 2: 1}, START, (5, 1))
    assert "2/off 4/3" not in moves(p)
    assert rule_of(p, "2/off 4/3") == "N8"


# -- N9 result, N10 match and cube -----------------------------------------------------------

def test_N9_oin_one_point_mars_two() -> None:
    v = find_variant(LN)
    won = side({})
    assert game_result(v, won, side({1: 14}), False) == 1
    assert game_result(v, won, side({1: 15}), False) == 2
    assert result_name(v, 1) == "oin" and result_name(v, 2) == "mars"
    assert v.max_result == 2


def test_N9_a_resignation_is_worth_at_most_mars() -> None:
    g = Game(LN)
    g.start()
    with pytest.raises(GameStateError) as err:
        g.resign(g.turn, 3)
    assert err.value.rule == "N9"
    g.resign(g.turn, 2)
    g.answer_resign(True)
    assert g.result is not None and g.result.name == "mars" and g.result.points == 2


def test_N10_matches_to_seven_and_the_cube_off_by_default() -> None:
    v = find_variant(LN)
    assert v.default_match_length == 7 and not v.cube_default
    assert Position.initial(LN).cube is None
    assert Game(LN).cube_enabled is False
    assert Position.initial(LN, cube=True).cube is not None  # an option


# -- N11 positions ---------------------------------------------------------------------------

def test_N11_fifteen_checkers_a_side() -> None:
    me = side(START)
    me[24] = 14
    with pytest.raises(PositionError) as err:
        Position.validated(LN, me, side(START))
    assert err.value.rule == "N11"


def test_N11_no_shared_point() -> None:
    with pytest.raises(PositionError) as err:
        p_({24: 14, 12: 1}, START)  # our 12 is the opponent's head
    assert err.value.rule == "N11"


def test_N11_id_and_map_round_trip_and_no_other_state() -> None:
    p = p_({24: 13, 21: 1, 15: 1}, {24: 14, 4: 1}, (3, 1))
    assert Position.from_id(p.to_id()) == p
    assert Position.from_dict(p.to_dict()) == p
    assert p.to_dict()["variant"] == LN and p.primed == (False, False)
    with pytest.raises(PositionError):
        Position.validated(LN, p.me, p.opp, (), (True, False))


# -- invariants over random games ------------------------------------------------------------

GAMES = 2000


@pytest.mark.slow
def test_N5_N6_N7_invariants_over_thousands_of_random_games() -> None:
    """Seeded random games: 15 a side, no shared point, no bar, no unpassed block after
    every play; at most one checker off the head a turn (two on a first 6-6, 4-4, 3-3);
    every play uses the same number of dice (N7); every game ends in oin or mars. The
    bounded run (`slow_budget_s`) plays the first games of the same seeded series."""
    rng = random.Random(20_261_205)
    table = opponent_point_map(find_variant(LN))
    results = {1: 0, 2: 0}
    first_turn_doubles = 0
    played = 0
    for _ in within(slow_deadline(), range(GAMES)):
        played += 1
        p = Position.initial(LN)
        for _turn in range(2000):
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            p = p.with_dice(dice)
            plays = generate(p)
            assert len({len(r.steps) for r in plays}) == 1
            limit = 2 if p.me[24] == 15 and dice[0] == dice[1] and dice[0] in (3, 4, 6) else 1
            for r in plays:
                assert p.me[24] - r.me[24] <= limit, (p.to_id(), r.steps)
            if limit == 2 and p.opp[24] == 15:
                first_turn_doubles += 1
                assert all(p.me[24] - r.me[24] == 2 for r in plays)
            raw = rng.choice(plays)
            p = position_after(p, raw.me, raw.opp)
            for s, o in ((p.me, p.opp), (p.opp, p.me)):
                assert sum(s) == 15 and s[25] == 0
                assert unpassed_block(s, o) is None
            assert not any(p.me[q] and p.opp[table[q]] for q in range(1, 25))
            if p.game_over():
                loser = p.me
                results[2 if loser[0] == 0 else 1] += 1
                break
        else:
            pytest.fail("a game did not end")
    assert sum(results.values()) == played and results[1] and results[2]
    assert first_turn_doubles > 0


def test_long_nardy_is_a_variant() -> None:
    assert LN in VARIANTS and VARIANTS[LN].index == 3
