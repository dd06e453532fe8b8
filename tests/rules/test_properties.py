"""Property tests (hypothesis): invariants of random legal games in every variant."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from jacquetd.rules import (
    Game,
    Position,
    apply_move,
    generate,
    legal_plays,
    parse_fibs_board,
)
from jacquetd.rules.explain import step_violation
from jacquetd.rules.fibs import board_from_position, format_fibs_board
from jacquetd.rules.geometry import (
    MIDPOINT,
    closed_in_start_table,
    forbidden_closure,
    has_prime,
    lowest_opposing,
    unpassed_block,
)
from jacquetd.rules.movegen import _rules_of, _single_steps
from jacquetd.rules.variants import VARIANTS, opponent_point_map

from .helpers import random_positions

VARIANT_NAMES = sorted(VARIANTS)
variants = st.sampled_from(VARIANT_NAMES)
seeds = st.integers(0, 2**32 - 1)


def check_invariants(p: Position) -> None:
    v = p.rules
    table = opponent_point_map(v)
    for s in (p.me, p.opp):
        assert sum(s) == 15 and min(s) >= 0
        if not v.hitting:
            assert s[25] == 0
        if v.start_limit:
            assert closed_in_start_table(s) <= 2
        if v.midpoint_limit:
            assert s[MIDPOINT] <= 2
        if v.closures:
            assert forbidden_closure(s) is None
    if v.six_block:
        assert unpassed_block(p.me, p.opp) is None and unpassed_block(p.opp, p.me) is None
    for q in range(1, 25):
        assert not (p.me[q] and p.opp[table[q]])
    if v.tracks_primes:
        assert not has_prime(p.me) or p.primed[0]
        assert not has_prime(p.opp) or p.primed[1]
    p.validate()


@settings(max_examples=30, deadline=None)
@given(variants, seeds)
def test_random_games_keep_every_invariant_and_end_with_a_valid_result(variant: str,
                                                                       seed: int) -> None:
    rng = random.Random(seed)
    game = Game(variant)
    game.start()
    turns = 0
    while game.phase != "over":
        if game.phase == "roll":
            game.roll()
        before = game.position()
        plays = legal_plays(before)
        assert plays
        play = game.play(rng.choice(plays))
        check_invariants(play.after)
        turns += 1
        assert turns < 5000
    result = game.result
    assert result is not None and result.points in (1, 2, 3)
    assert result.points <= game.rules.max_result  # B8, N9: at most 2


@settings(max_examples=40, deadline=None)
@given(variants, seeds)
def test_courier_phase_moves_only_the_courier(variant: str, seed: int) -> None:
    for p in random_positions(variant, seed, 30):
        if not p.rules.courier:
            return
        me = p.me
        in_phase = me[24] >= 14 and me[0] == 0 and not any(me[1:7])
        if in_phase and me[24] == 14:
            courier = next(q for q in range(1, 26) if me[q] and q != 24)
            for raw in generate(p):
                assert (raw.steps and raw.steps[0].src == courier) or not raw.steps


@settings(max_examples=40, deadline=None)
@given(variants, seeds)
def test_plays_use_as_many_dice_as_possible(variant: str, seed: int) -> None:
    for p in random_positions(variant, seed, 20):
        plays = generate(p)
        used = {len(r.steps) for r in plays}
        assert len(used) == 1, "G7: every legal play uses the same number of dice"
        keys = {(r.me, r.opp) for r in plays}
        assert len(keys) == len(plays), "G8: plays are distinct by position"


@settings(max_examples=40, deadline=None)
@given(variants, seeds)
def test_step_explanations_agree_with_the_generator(variant: str, seed: int) -> None:
    r = _rules_of(VARIANTS[variant])
    for p in random_positions(variant, seed, 15):
        for die in set(p.dice):
            legal = {s.src for s, _, _ in _single_steps(list(p.me), list(p.opp), die, r,
                                                         p.me[24] - 1, lowest_opposing(p.opp))}
            for src in range(1, 26):
                if not p.me[src]:
                    continue
                explained = step_violation(p.rules, p.me, p.opp, src, die) is None
                assert explained == (src in legal), (p.to_id(), src, die)


@settings(max_examples=40, deadline=None)
@given(variants, seeds)
def test_canonical_spelling_applies_to_the_same_play(variant: str, seed: int) -> None:
    for p in random_positions(variant, seed, 10):
        for play in legal_plays(p):
            assert apply_move(p, play.move) == play


@settings(max_examples=60, deadline=None)
@given(variants, seeds)
def test_position_id_and_dict_round_trip(variant: str, seed: int) -> None:
    for p in random_positions(variant, seed, 10):
        assert Position.from_id(p.to_id()) == p
        assert Position.from_dict(p.to_dict()) == p
        q = p.without_dice()
        assert Position.from_id(q.to_id()) == q
        assert Position.from_id(q.to_id()).to_id() == q.to_id()


@settings(max_examples=60, deadline=None)
@given(seeds)
def test_fibs_board_round_trip(seed: int) -> None:
    for p in random_positions("backgammon", seed, 10):
        board = board_from_position(p)
        text = format_fibs_board(board)
        assert parse_fibs_board(text) == board
        assert parse_fibs_board(text).to_position() == p
        for colour, direction in ((-1, -1), (1, 1), (-1, 1)):
            b2 = board_from_position(p, colour=colour, direction=direction)
            assert parse_fibs_board(format_fibs_board(b2)).to_position() == p


@settings(max_examples=60, deadline=None)
@given(variants, seeds)
def test_generator_equals_the_naive_reference(variant: str, seed: int) -> None:
    from .reference import reference_results

    for p in random_positions(variant, seed, 12):
        fast = {(r.me, r.opp) for r in generate(p)}
        assert fast == reference_results(p), (p.to_id(), p.dice)


def test_fibs_board_with_a_pending_double_keeps_the_doubler_on_turn() -> None:
    from jacquetd.rules import Cube, CubeOwner

    p = Position.initial("backgammon")
    doubled = Position.validated("backgammon", p.me, p.opp, (), (False, False),
                                 Cube(1, CubeOwner.CENTRE, True))
    board = board_from_position(doubled)
    assert board.was_doubled and board.your_turn
    assert parse_fibs_board(format_fibs_board(board)).to_position() == doubled


def test_fibs_dice_of_the_other_pair_when_the_actors_read_0_0() -> None:
    text = ("board:You:Opponent:9999:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:"
            "2:0:-1:0:0:3:1:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0")
    board = parse_fibs_board(text)
    assert not board.your_turn and board.dice == (3, 1)
