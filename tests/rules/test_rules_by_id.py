"""One or more tests per RULES.md id; each test's name carries the id it checks."""

from __future__ import annotations

import pytest

from jacquetd.rules import (
    IllegalMoveError,
    Position,
    PositionError,
    apply_move,
    generate,
    legal_plays,
)
from jacquetd.rules.geometry import circular_runs, has_prime, point_mask
from jacquetd.rules.scoring import game_result
from jacquetd.rules.variants import VARIANTS, opponent_point_map

from .helpers import pos, results, side

START = {24: 15}


def moves(p: Position) -> set[str]:
    return {pl.move for pl in legal_plays(p)}


# -- section 0: geometry ------------------------------------------------------------------

def test_G1_moves_go_down_and_enter_from_25() -> None:
    p = pos("backgammon", {24: 2, 13: 5, 8: 3, 6: 4, 25: 1}, {24: 2, 13: 5, 8: 3, 6: 5}, (3, 1))
    assert all(pl.steps[0].src == 25 for pl in legal_plays(p))
    assert {pl.steps[0].dst for pl in legal_plays(p)} <= {22, 24}


def test_G3_same_direction_point_map_is_an_involution() -> None:
    table = opponent_point_map(VARIANTS["jacquet"])
    assert table[1] == 13 and table[12] == 24 and table[13] == 1 and table[24] == 12
    assert all(table[table[q]] == q for q in range(1, 25))


def test_G4_opposite_direction_point_map() -> None:
    table = opponent_point_map(VARIANTS["backgammon"])
    assert all(table[q] == 25 - q for q in range(1, 25))


def test_G5_runs_wrap_from_1_to_24() -> None:
    mask = point_mask(side({2: 1, 1: 1, 24: 1, 23: 1, 22: 1, 21: 1}), 1)
    assert circular_runs(mask) == [[2, 1, 24, 23, 22, 21]]
    assert has_prime(side({3: 2, 2: 2, 1: 2, 24: 2, 23: 2, 22: 2}))


def test_G6_doubles_move_four_times() -> None:
    p = pos("backgammon", {24: 2, 13: 5, 8: 3, 6: 5}, {24: 2, 13: 5, 8: 3, 6: 5}, (1, 1))
    assert all(len(pl.steps) == 4 for pl in legal_plays(p))


def test_G6_intermediate_landing_must_be_legal() -> None:
    # 24/13 with 6-5: 18 and 19 both blocked -> the checker cannot go through
    p = pos("backgammon", {24: 1, 6: 14}, {7: 2, 6: 2, 20: 11}, (6, 5))
    assert all(s.src != 24 for pl in legal_plays(p) for s in pl.steps)
    with pytest.raises(IllegalMoveError) as err:
        apply_move(p, "24/13")
    assert err.value.rule == "J3"


def test_G7_higher_die_when_only_one_can_be_played() -> None:
    # only one die playable, either could be: the higher (6)
    p = pos("backgammon", {24: 1, 0: 14}, {12: 2, 24: 13}, (6, 5))
    assert moves(p) == {"24/18"}


def test_G7_as_many_dice_as_possible() -> None:
    p = pos("backgammon", {24: 2, 13: 5, 8: 3, 6: 5}, {24: 2, 13: 5, 8: 3, 6: 5}, (6, 5))
    assert all(len(pl.steps) == 2 for pl in legal_plays(p))
    with pytest.raises(IllegalMoveError) as err:
        apply_move(p, "24/18")
    assert err.value.rule == "G7"


def test_G7_bearing_off_the_last_checker_with_a_hit_plays_both_dice() -> None:
    # gnubg id 9zZBECACAAAAAA: 14 off, the last checker on our 2-point, the opponent's
    # blot on our 1-point. 2/off plays only the 4; 2/1* 1/off plays both dice and
    # ends in another position (the hit), so G8 keeps them apart and G7 decides.
    from jacquetd.rules.interchange import parse_foreign

    p = parse_foreign("9zZBECACAAAAAA").with_dice((4, 1))
    assert p.me[0] == 14 and p.me[2] == 1 and p.opp[24] == 1
    assert moves(p) == {"2/1* 1/off"}
    assert [pl.dice_used for pl in legal_plays(p)] == [2]
    # "2/off" without a hit mark still spells the legal play, through the 1-point
    assert apply_move(p, "2/off").move == "2/1* 1/off"
    # without the blot both ways end in one position: one play, spelt 2/off
    q = pos("backgammon", {2: 1}, {19: 15}, (4, 1))
    assert moves(q) == {"2/off"}
    assert apply_move(q, "2/1 1/off") == apply_move(q, "2/off")


def test_G7_no_play_is_a_pass() -> None:
    p = pos("backgammon", {25: 2, 6: 13}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 24: 3}, (3, 4))
    plays = legal_plays(p)
    assert len(plays) == 1 and plays[0].is_pass
    assert apply_move(p, "pass").is_pass


def test_G8_plays_are_distinct_by_position() -> None:
    p = Position.initial("backgammon").with_dice((2, 1))
    plays = legal_plays(p)
    assert len({(pl.raw.me, pl.raw.opp) for pl in plays}) == len(plays)
    # 13/11 6/5 and 6/5 13/11 are one play, spelled canonically once
    assert apply_move(p, "6/5 13/11") == apply_move(p, "13/11 6/5")


def test_G8_a_play_legal_in_one_order_only() -> None:
    # J8: 18/13 13/8 is illegal in that order (three on 13) but 13/8 18/13 is fine
    p = pos("jacquet", {18: 1, 13: 2, 24: 10, 5: 2}, {10: 15}, (5, 5))
    results_set = {pl.move for pl in legal_plays(p)}
    assert results_set
    play = apply_move(p, "18/13 13/8 13/8 13/8")
    assert play.after.opp[13] == 0 and play.after.opp[8] == 3


# -- section 1: jacquet --------------------------------------------------------------------

def test_J1_setup() -> None:
    p = Position.initial("jacquet")
    assert p.me[24] == 15 and p.opp[24] == 15


def test_J1_fifteen_checkers_a_side() -> None:
    with pytest.raises(PositionError) as err:
        Position.validated("jacquet", [0] * 24 + [14, 0], side(START))
    assert err.value.rule == "J1"


def test_J3_cannot_land_on_two_opposing_checkers() -> None:
    # opponent's 2 checkers on their 10 = our 22
    p = pos("jacquet", {24: 15}, {10: 2, 24: 13}, (2, 1))
    assert all(22 not in (s.dst for s in pl.steps) for pl in legal_plays(p))


def test_J4_hitting_sends_blot_to_bar() -> None:
    p = pos("jacquet", {24: 15}, {7: 1, 24: 14}, (5, 5))
    (play,) = legal_plays(p)
    assert play.hits == 1 and play.after.me[25] == 1  # the opponent now on roll, on the bar


@pytest.mark.parametrize("variant", ["jacquet", "backgammon"])
def test_J4_a_hit_leaves_the_hitter_on_the_board(variant: str) -> None:
    # all 15 of both sides on the bar, or only bar and borne-off checkers: unreachable
    for me, opp in (({25: 15}, {25: 15}), ({25: 2}, {25: 1}), ({25: 15}, {25: 1})):
        with pytest.raises(PositionError) as err:
            pos(variant, me, opp)
        assert err.value.rule == "J4"
    pos(variant, {25: 15}, {1: 1})  # the hitter is on the board
    pos(variant, {25: 1}, {})  # a finished game, the loser on the bar


def test_J5_enter_before_anything_else() -> None:
    p = pos("jacquet", {25: 1, 8: 2, 24: 12}, {19: 1, 24: 14}, (6, 3))
    for pl in legal_plays(p):
        assert pl.steps[0].src == 25
    with pytest.raises(IllegalMoveError) as err:
        apply_move(p, "8/2 8/5")
    assert err.value.rule == "J5"


def test_J6_courier_openings_from_seed_003() -> None:
    start = Position.initial("jacquet")
    assert moves(start.with_dice((5, 5))) == {"24/19 19/14 14/9 9/4"}
    assert moves(start.with_dice((6, 6))) == {"24/18"}
    assert moves(start.with_dice((3, 3))) == {"24/21 21/18 18/15"}  # 12: the opponent's talon


def test_J6_only_courier_moves() -> None:
    p = pos("jacquet", {15: 1, 24: 14}, {24: 15}, (2, 1))
    for pl in legal_plays(p):
        assert all(s.src != 24 for s in pl.steps)
    with pytest.raises(IllegalMoveError) as err:
        apply_move(p, "24/22 15/14")
    assert err.value.rule == "J6"


def test_J7_third_closed_point_in_starting_table_refused() -> None:
    p = pos("jacquet", {22: 2, 21: 1, 5: 1, 24: 11}, {24: 15}, (3, 1))
    with pytest.raises(IllegalMoveError) as err:
        apply_move(p, "24/21 24/23")  # 24 closed, 22 closed, 21 would close
    assert err.value.rule == "J7"


def test_J7_position_with_three_closed_points_rejected() -> None:
    with pytest.raises(PositionError) as err:
        pos("jacquet", {24: 11, 22: 2, 21: 2}, {8: 15})
    assert err.value.rule == "J7"


def test_J8_midpoint_limit() -> None:
    p = pos("jacquet", {5: 2, 13: 2, 16: 1, 24: 10}, {24: 15}, (3, 2))
    with pytest.raises(IllegalMoveError) as err:
        apply_move(p, "16/13 5/3")
    assert err.value.rule == "J8"
    assert "midpoint" in err.value.message


def test_J8_position_with_three_on_midpoint_rejected() -> None:
    with pytest.raises(PositionError) as err:
        pos("jacquet", {13: 3, 24: 12}, {10: 15})
    assert err.value.rule == "J8"


def test_J8_passing_over_midpoint_is_free() -> None:
    p = pos("jacquet", {5: 2, 13: 2, 16: 1, 24: 10}, {10: 15}, (4, 4))
    assert any(any(s.src == 16 and s.dst == 12 for s in pl.steps) for pl in legal_plays(p))


def test_J9_only_rearmost_checker_bears_off() -> None:
    # 3/off is only possible once 4 has moved down: 4/2 then 3/off (J10 keeps it)
    p = pos("jacquet", {4: 1, 3: 1, 2: 1}, {6: 15}, (3, 2))
    assert moves(p) == {"4/2 3/off"}
    with pytest.raises(IllegalMoveError) as err:
        apply_move(p, "2/off 4/1")
    assert err.value.rule == "J9"


def test_J10_seed_example_bear_off_three_and_two() -> None:
    p = pos("jacquet", {3: 1, 2: 1}, {6: 15}, (5, 2))
    assert moves(p) == {"3/off 2/off"}
    with pytest.raises(IllegalMoveError) as err:
        apply_move(p, "3/1 2/off")
    assert err.value.rule == "J10"


def test_J11_hit_checker_must_come_home_before_bearing_off() -> None:
    p = pos("jacquet", {25: 1, 3: 9}, {6: 15}, (6, 6))
    assert all(s.dst != 0 for pl in legal_plays(p) for s in pl.steps)


def test_J12_results_single_marcia_and_per_punto() -> None:
    v = VARIANTS["jacquet"]
    winner = side({})
    assert game_result(v, winner, side({6: 14}), winner_primed=False) == 1
    assert game_result(v, winner, side({6: 14, 5: 1}), winner_primed=True) == 2
    assert game_result(v, winner, side({6: 14, 5: 1}), winner_primed=False) == 3


def test_J12_prime_flag_set_at_end_of_turn() -> None:
    p = pos("jacquet", {19: 1, 18: 2, 17: 2, 16: 2, 15: 2, 14: 2, 13: 1, 24: 3}, {10: 15},
            (6, 1))
    flagged = [pl for pl in legal_plays(p) if pl.after.primed[1]]
    unflagged = [pl for pl in legal_plays(p) if not pl.after.primed[1]]
    assert flagged and unflagged
    assert all(has_prime(pl.after.opp) for pl in flagged)


def test_J12_prime_without_flag_is_rejected() -> None:
    with pytest.raises(PositionError) as err:
        pos("jacquet", {19: 2, 18: 2, 17: 2, 16: 2, 15: 2, 14: 2, 24: 3}, {10: 15})
    assert err.value.rule == "J12"
    pos("jacquet", {19: 2, 18: 2, 17: 2, 16: 2, 15: 2, 14: 2, 24: 3}, {10: 15},
        primed=(True, False))


def test_J13_cube_off_by_default() -> None:
    assert Position.initial("jacquet").cube is None
    assert Position.initial("backgammon").cube is not None


# -- section 2: jacquet-be -----------------------------------------------------------------

def test_B2_opening_dice_are_the_first_turn() -> None:
    assert VARIANTS["jacquet-be"].opening_plays_opening_dice
    assert not VARIANTS["jacquet"].opening_plays_opening_dice


def test_B3_single_checker_blocks() -> None:
    p = pos("jacquet-be", START, {7: 1, 24: 14}, (5, 4))
    assert all(s.dst != 19 for pl in legal_plays(p) for s in pl.steps)


def test_B3_no_bar_in_belgian_positions() -> None:
    with pytest.raises(PositionError) as err:
        pos("jacquet-be", {25: 1, 24: 14}, {10: 15})
    assert err.value.rule == "B3"


def test_B4_courier_must_reach_home_first() -> None:
    p = pos("jacquet-be", {15: 1, 24: 14}, {10: 15}, (4, 3))
    assert all(s.src == 15 or s.src < 15 for pl in legal_plays(p) for s in pl.steps)


def test_B5_closure_in_opponents_half_allowed() -> None:
    p = pos("jacquet-be", {20: 1, 21: 1, 22: 1, 23: 1, 24: 6, 3: 5}, {6: 15}, (5, 1))
    assert any(pl.after.opp[19] for pl in legal_plays(p))


def test_B5_closure_reaching_12_to_7_forbidden() -> None:
    p = pos("jacquet-be", {13: 1, 14: 2, 15: 1, 16: 1, 17: 1, 24: 4, 3: 5}, {6: 15}, (2, 1))
    with pytest.raises(IllegalMoveError) as err:
        apply_move(p, "14/12 24/23")
    assert err.value.rule == "B5"


def test_B5_tray_closure_needs_points_2_and_1() -> None:
    ok = side({2: 1, 1: 1, 24: 9, 23: 1, 22: 1, 21: 1, 3: 1})
    Position.validated("jacquet-be", ok, side({8: 15}))
    with pytest.raises(PositionError) as err:
        pos("jacquet-be", {1: 1, 24: 9, 23: 1, 22: 1, 21: 1, 20: 1, 10: 1}, {6: 15})
    assert err.value.rule == "B5"


def test_B7_standard_bear_off() -> None:
    p = pos("jacquet-be", {4: 1, 3: 1, 2: 1}, {6: 15}, (3, 2))
    assert moves(p) >= {"3/off 2/off"}


def test_B8_belgian_result_is_one_or_two() -> None:
    v = VARIANTS["jacquet-be"]
    assert game_result(v, side({}), side({6: 15}), winner_primed=False) == 2
    assert game_result(v, side({}), side({6: 14}), winner_primed=False) == 1


@pytest.mark.parametrize(("me", "opp", "rule"), [
    ({13: 4, 24: 11}, {10: 15}, "J8"),
    ({24: 11, 22: 2, 21: 2}, {8: 15}, "J7"),
])
def test_B9_no_start_table_or_midpoint_limit_on_positions(
        me: dict[int, int], opp: dict[int, int], rule: str) -> None:
    with pytest.raises(PositionError) as err:
        pos("jacquet", me, opp)
    assert err.value.rule == rule
    assert pos("jacquet-be", me, opp).me == tuple(side(me))


@pytest.mark.parametrize(("me", "dice", "move", "rule"), [
    ({5: 2, 13: 2, 16: 1, 24: 10}, (3, 2), "16/13 5/3", "J8"),
    ({22: 2, 21: 1, 5: 1, 24: 11}, (3, 1), "24/21 24/23", "J7"),
])
def test_B9_no_start_table_or_midpoint_limit_on_moves(
        me: dict[int, int], dice: tuple[int, int], move: str, rule: str) -> None:
    with pytest.raises(IllegalMoveError) as err:
        apply_move(pos("jacquet", me, {6: 15}, dice), move)
    assert err.value.rule == rule
    assert move in moves(pos("jacquet-be", me, {6: 15}, dice))


# -- section 3: cube and scoring -------------------------------------------------------------

def test_C4_backgammon_scoring() -> None:
    v = VARIANTS["backgammon"]
    assert game_result(v, side({}), side({6: 15}), winner_primed=False) == 2
    assert game_result(v, side({}), side({20: 1, 6: 14}), winner_primed=False) == 3
    assert game_result(v, side({}), side({25: 1, 6: 14}), winner_primed=False) == 3
    assert game_result(v, side({}), side({6: 14}), winner_primed=False) == 1


def test_C2_cube_validation() -> None:
    from jacquetd.rules import Cube, CubeOwner

    with pytest.raises(PositionError) as err:
        Position.initial("backgammon").__class__.validated(
            "backgammon", side({24: 2, 13: 5, 8: 3, 6: 5}), side({24: 2, 13: 5, 8: 3, 6: 5}),
            cube=Cube(3, CubeOwner.ON_ROLL))
    assert err.value.rule == "C2"


# -- section 4: backgammon -------------------------------------------------------------------

def test_backgammon_opening_31_has_16_plays() -> None:
    assert len(generate(Position.initial("backgammon").with_dice((3, 1)))) == 16


def test_backgammon_no_J10() -> None:
    p = pos("backgammon", {3: 1, 2: 1}, {19: 15}, (5, 2))
    assert len(results(p)) == 2


def test_G2_tables_drive_bear_off_and_the_courier() -> None:
    from jacquetd.rules.geometry import HOME_TABLE, MIDPOINT, START_TABLE

    assert list(START_TABLE) == [19, 20, 21, 22, 23, 24]
    assert list(HOME_TABLE) == [1, 2, 3, 4, 5, 6] and MIDPOINT == 13
    # the courier phase ends when a checker reaches the finishing table (6-1)
    p = pos("jacquet", {8: 1, 24: 14}, {10: 15}, (2, 1))
    assert any(s.src == 24 for pl in legal_plays(p) for s in pl.steps)


def test_B1_belgian_setup_and_geometry() -> None:
    p = Position.initial("jacquet-be")
    assert p.me[24] == 15 and p.opp[24] == 15
    assert VARIANTS["jacquet-be"].same_direction


def test_B6_belgian_higher_die() -> None:
    # only one checker can move, and only one die: the higher must be played
    p = pos("jacquet-be", {24: 1, 0: 14}, {1: 1, 2: 13, 3: 1}, (6, 5))
    assert moves(p) == {"24/18"}


def test_G7_a_position_where_neither_side_can_ever_move_is_reported() -> None:
    from jacquetd.rules import is_deadlocked

    closed = {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 25: 1}  # 12 home + 1 on the bar + 2 off
    p = pos("backgammon", closed, closed)
    assert is_deadlocked(p)
    assert not is_deadlocked(Position.initial("backgammon"))
