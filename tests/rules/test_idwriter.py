"""The id writer (rules/idwriter.py) writes exactly what the straightforward encoders write.

`IdWriter` joins cached parts of each side and of the frame (variant, dice, cube,
match state); `Position.to_id`, `gnubg_id`, `format_xgid` and `Position.to_dict`
stay the definitions of the formats. Compared here on positions of random games
of every variant (both sides on roll, hits, bear-offs, finished games), each under
random frames: cube values, owners and pending doubles, money and match play,
scores and the Crawford game, dice or none, primed flags.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from jacquetd.rules import Cube, CubeOwner, MatchState, Position, PositionError
from jacquetd.rules.gnubg_id import gnubg_id, match_id
from jacquetd.rules.idwriter import IdWriter, id_writer
from jacquetd.rules.variants import VARIANTS
from jacquetd.rules.xgid import format_xgid

from .helpers import random_positions

seeds = st.integers(0, 2**32 - 1)


def _straightforward(p: Position) -> tuple[str, str, str, dict[str, object]]:
    if p.variant == "backgammon":
        return p.to_id(), gnubg_id(p), format_xgid(p), p.to_dict()
    return p.to_id(), "", "", p.to_dict()


def _written(p: Position) -> tuple[str, str, str, dict[str, object]]:
    writer = id_writer(p.variant, p.dice, p.cube, p.match)
    pid, gnubg, xgid = writer.ids(p.me, p.opp, p.primed)
    assert writer.position_id(p.me, p.opp, p.primed) == pid
    return pid, gnubg, xgid, writer.structured(p.me, p.opp, p.primed)


def _reframed(p: Position, rng: random.Random) -> Position | None:
    """`p` under a random frame (cube, match state, dice, primed flags), or None when that
    frame is not valid for it."""
    cube: Cube | None = None
    if rng.random() < 0.8:
        value = 1 << rng.randint(0, 12)
        owner = CubeOwner.CENTRE if value == 1 else rng.choice(list(CubeOwner))
        cube = Cube(value, owner, rng.random() < 0.2 and owner is not CubeOwner.OPPONENT)
    match: MatchState | None = None
    if rng.random() < 0.5:
        length = rng.choice([1, 3, 5, 7, 11, 25, 255])
        score = (rng.randrange(length), rng.randrange(length))
        crawford = length - 1 in score and rng.random() < 0.5
        match = MatchState(length, score, crawford)
        if crawford and cube is not None:
            cube = Cube()
    dice: tuple[int, ...] = p.dice
    if cube is not None and cube.pending:
        dice = ()
    elif rng.random() < 0.3:
        dice = () if rng.random() < 0.5 else (rng.randint(1, 6), rng.randint(1, 6))
    primed = p.primed
    if p.rules.tracks_primes and rng.random() < 0.3:
        primed = (True, primed[1]) if rng.random() < 0.5 else (primed[0], True)
    try:
        return Position.validated(p.variant, p.me, p.opp, dice, primed, cube, match)
    except PositionError:
        return None


def _positions(variant: str, seed: int, count: int) -> list[Position]:
    """Positions of a random game with dice, each followed by the position after a random
    play of it (no dice, the other side on roll, finished games included)."""
    from jacquetd.rules import legal_plays

    rng = random.Random(seed)
    out: list[Position] = []
    for p in random_positions(variant, seed, count):
        out.append(p)
        out.append(rng.choice(legal_plays(p)).after)
    return out


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(sorted(VARIANTS)), seeds)
def test_the_writer_writes_what_the_encoders_write(variant: str, seed: int) -> None:
    rng = random.Random(seed)
    for p in _positions(variant, seed, 40):
        assert _written(p) == _straightforward(p)
        q = _reframed(p, rng)
        if q is not None:
            assert _written(q) == _straightforward(q)
            swapped = q.swapped()  # the other side on roll
            try:
                swapped.validate()
            except PositionError:
                continue
            assert _written(swapped) == _straightforward(swapped)


def test_whole_games_to_the_end_in_every_variant() -> None:
    """Seeded whole games (every bear-off and the finished positions), money and match."""
    for variant in VARIANTS:
        for seed in range(3):
            rng = random.Random(seed)
            finished = 0
            for p in _positions(variant, seed, 400):
                q = _reframed(p, rng) or p
                assert _written(q) == _straightforward(q)
                finished += q.game_over()
            assert finished, "no game reached its end"


def test_the_match_id_of_a_finished_game_says_it_is_over() -> None:
    frame = ((), Cube(2, CubeOwner.ON_ROLL), MatchState(5, (1, 3)))
    over = Position.validated("backgammon", [14] + [0] * 23 + [1, 0], [15] + [0] * 25,
                              frame[0], (False, False), frame[1], frame[2])
    playing = Position.validated("backgammon", [14] + [0] * 23 + [1, 0], [14, 0, 1] + [0] * 23,
                                 frame[0], (False, False), frame[1], frame[2])
    writer = id_writer("backgammon", *frame)
    ids = [writer.ids(p.me, p.opp, p.primed)[1] for p in (over, playing)]
    assert ids == [gnubg_id(over), gnubg_id(playing)]
    assert ids[0].split(":")[1] == match_id(over) != match_id(playing)


def test_writers_are_shared_per_frame() -> None:
    a = id_writer("backgammon", (3, 1), Cube(), None)
    assert a is id_writer("backgammon", (3, 1), Cube(), None)
    assert isinstance(a, IdWriter)
    assert a is not id_writer("backgammon", (3, 1), Cube(), MatchState(3))
