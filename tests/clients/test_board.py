"""The terminal board, drawn from structured positions only."""

from __future__ import annotations

from jacquetd_clients.board import board_points, pips, render, their_point_on_my_board

TALON = [0] * 24 + [15, 0]
BG = [0, 0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0]


def pos(variant: str, me: list[int], opp: list[int], **extra: object) -> dict[str, object]:
    return {"variant": variant, "on_roll": me, "opponent": opp, "dice": [],
            "primed": [False, False], **extra}


def test_geometry_of_each_variant() -> None:
    # G3: the opponent's talon (its 24) is our 12; G4: its 24 is our 1
    assert their_point_on_my_board(24, True) == 12 and their_point_on_my_board(1, True) == 13
    assert their_point_on_my_board(24, False) == 1 and their_point_on_my_board(6, False) == 19
    jacquet = board_points(pos("jacquet", TALON, TALON), same_direction=True)
    assert jacquet == {24: ("mine", 15), 12: ("theirs", 15)}
    seen_by_other = board_points(pos("jacquet", TALON, TALON), viewer_on_roll=False,
                                 same_direction=True)
    assert seen_by_other == jacquet
    bg = board_points(pos("backgammon", BG, BG), same_direction=False)
    assert bg[6] == ("mine", 5) and bg[19] == ("theirs", 5) and bg[1] == ("theirs", 2)
    assert pips(BG) == 167


def test_render_shows_counts_dice_score_cube_and_colour() -> None:
    cube = {"value": 2, "owner": "opponent", "pending": False}
    text = render(pos("backgammon", BG, BG, cube=cube), same_direction=False, names=("you", "bot"),
                  score=(1, 2), match_length=5, dice=(6, 5))
    assert "pips 167" in text and "rolls 6-5" in text and "score 1-2 (match to 5)" in text
    assert "cube 2 (bot)" in text and "\x1b[" not in text
    tall = render(pos("jacquet", TALON, TALON), same_direction=True)
    assert "15" in tall and tall.count("X") == 5  # a tall stack shows its count
    assert "\x1b[" in render(pos("jacquet", TALON, TALON), same_direction=True, colour=True)
    barred = [0] * 25 + [0]
    barred[25], barred[6] = 2, 13
    assert "X 2" in render(pos("backgammon", barred, BG), same_direction=False)
