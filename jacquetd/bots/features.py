"""Input encoding of positions for the learned evaluator, and the contact test.

Every function here works on a batch: `me` and `opp` are integer arrays of
shape (N, 26), each side in its own numbering (index 0 borne off, 1-24 the
points, 25 the bar), `me` being the side on roll. The encoding is
TD-Gammon's truncated unary code per point for both sides, the bar and the
borne-off trays, plus a few hand-made features that the variants' own rules
make important: pip counts, the courier phase (J6/B4), closed points in the
starting table (J7), the 'has held a prime' flags (J12), the longest run of
made points, exposed blots and the contact flag.

Version 2 counts a point as held by one checker in the
variants without hitting (B3), as the rules do, and adds five features per
side that the first networks had to learn from the raw code and did not:
how much of the six points ahead of each checker the opponent holds, how
many checkers face four or more such points, how many opposing checkers
still have to pass the side's held points, and the checkers and pips still
outside the finishing table (what decides gammons and marcia).

Version 3 adds, in the variants with hitting, three per side that GNU
Backgammon's contact inputs have and a 0-ply network otherwise has to guess:
of the opponent's 36 rolls, how many hit one of the side's blots, the pips
those hits cost (the most costly hit of each roll, averaged over the rolls),
and the chance that the side's checkers on the bar stay there (the share of
its entry points the opponent holds, squared); and in every variant three on
blocking as a checker meets it: the rolls that carry the side's rearmost
checker its whole roll past the opponent's held points, the same summed over
its checkers outside home weighted by their pips to home (mobility), and how
well its own points contain the opponent (one minus the fewest such rolls of
an opposing checker on the opponent's points 13-24). A network records the
version it was trained on; `encode` reproduces every version.

Version 4 adds twelve per side, more of GNU Backgammon's contact inputs
(`_v4_extras` says each in full): where the rearmost checker and the rearmost
and most forward anchors are, the opponent's rolls that hit two blots, the
pips lost by dancing, the spare pips before the home board must break
(timing), the pips still to travel to pass the opponent's rearmost checker
and those already past it, how far the rearmost checkers trail the bulk (one-sided
moment), how well the held points are spaced to support each other
(backbone), and the backgame anchors.

Version 5 adds, in `backgammon` only (zeros elsewhere), the 32 inputs per side
by which GNU Backgammon's own contact network sees a side (`gnubg_inputs`), so
that a network distilled from it sees what its teacher sees.

Version 6 is the unary code, the bar and the trays, then version 5's 32 inputs
per side, without the hand-made features of versions 1-4: what GNU
Backgammon's contact network reads and little else, for a `backgammon` network
that costs less to encode and to evaluate (in the other variants its 32 inputs
are zeros). It is the one version that does not extend the one before it.
"""

from __future__ import annotations

import numpy as np

from jacquetd.rules import Variant
from jacquetd.rules.variants import opponent_point_map

from . import fastencode, gnubg_inputs

FEATURE_VERSION = 4
"""The encoding new networks are trained on by default; every version stays readable."""

_PER_SIDE_UNARY = 24 * 4 + 2  # four units per point, bar, off
_PER_SIDE_EXTRA = {1: 11, 2: 16, 3: 22, 4: 34, 5: 34 + gnubg_inputs.PER_SIDE,
                   6: gnubg_inputs.PER_SIDE}


def n_inputs(version: int = FEATURE_VERSION) -> int:
    """The width of the input matrix of an encoding version."""
    if version not in _PER_SIDE_EXTRA:
        raise ValueError(f"unknown feature version {version}")
    return 2 * (_PER_SIDE_UNARY + _PER_SIDE_EXTRA[version]) + 3


VERSIONS = tuple(_PER_SIDE_EXTRA)
"""Every encoding `encode` computes."""
EXTENDING = (1, 2, 3, 4, 5)
"""The versions each of which keeps the inputs of the one before and adds its own at the
end of each side's block (`supervised.widen` widens a network along them)."""

N_INPUTS = n_inputs()

_PIPS = np.arange(26, dtype=np.float32)
_PIPS[0] = 0.0


def as_batch(sides: list[tuple[int, ...]] | np.ndarray) -> np.ndarray:
    """A (N, 26) int16 array from a list of 26-count tuples."""
    return np.asarray(sides, dtype=np.int16).reshape(-1, 26)


def contact(variant: Variant, me: np.ndarray, opp: np.ndarray) -> np.ndarray:
    """Boolean (N,): whether any checker of one side still has to pass one of the other.

    G4 (opposite directions): contact while the two rearmost checkers (the bar
    counting 25) have not passed each other, i.e. while their points add up
    to more than 25.

    G3 (same direction): a side's points 13-24 and bar lie on the stretch that
    both sides travel (its points 13-24 are the opponent's 1-12 and its bar
    enters there); its points 1-12 are the opponent's 13-24, which the
    opponent has already left once it has no checker there. Following every
    pair of checkers round the circuit shows that contact is over exactly when
    both sides have all their remaining checkers on their own points 1-12.
    """
    me_on = me[:, 1:26] > 0
    opp_on = opp[:, 1:26] > 0
    if variant.same_direction:
        me_back = me_on[:, 12:25].any(axis=1)  # points 13-24 and the bar
        opp_back = opp_on[:, 12:25].any(axis=1)
        back: np.ndarray = np.asarray(me_back | opp_back)
        return back
    idx = np.arange(1, 26)
    me_rear = np.where(me_on, idx, 0).max(axis=1)
    opp_rear = np.where(opp_on, idx, 0).max(axis=1)
    crossed: np.ndarray = (me_rear + opp_rear > 25) & (me_rear > 0) & (opp_rear > 0)
    return crossed


CRASHED_CHECKERS = 6
"""A side with at most this many checkers left in play (beyond deep stacks) has crashed."""


def crashed(me: np.ndarray, opp: np.ndarray) -> np.ndarray:
    """Boolean (N,): whether either side's board has crashed (GNU Backgammon's class).

    A side has crashed when few of its checkers are still in play: at most six
    on the board and the bar, where a held 1-point (two or more checkers)
    does not count, or, when the 2-point is held too, the two points count
    as one checker; with the 1-point not held, a 2-point's checkers beyond
    the first do not count. This is the test by which GNU Backgammon sends
    a contact position to its crashed network; the tests compare it with
    gnubg's own classification. The caller applies it to contact positions.
    """
    out: np.ndarray = _crashed_side(me) | _crashed_side(opp)
    return out


def _crashed_side(side: np.ndarray) -> np.ndarray:
    if side.dtype.kind == "u":  # `two - 1` below must be able to go negative
        side = side.astype(np.int16)
    one, two = side[:, 1], side[:, 2]
    in_play = 15 - side[:, 0]  # on the board and the bar
    left = in_play - one * (one > 1) - np.maximum(two - 1, 0)
    crashed: np.ndarray = left <= CRASHED_CHECKERS
    return crashed


def has_prime(side: np.ndarray) -> np.ndarray:
    """J12 batch test: six consecutive made points along the G5 circuit."""
    made = side[:, 1:25] >= 2
    ext = np.concatenate([made, made[:, :5]], axis=1)  # point 1 is followed by 24
    run = ext[:, 0:24].copy()
    for k in range(1, 6):
        run &= ext[:, k:k + 24]
    primed: np.ndarray = np.asarray(run.any(axis=1))
    return primed


def _longest_run(made: np.ndarray, cap: int = 7) -> np.ndarray:
    """Length of the longest run of made points (G5 circuit), capped at `cap`."""
    ext = np.concatenate([made, made[:, :cap - 1]], axis=1)
    run = ext
    best: np.ndarray = np.asarray(run.any(axis=1), dtype=np.int16)
    for k in range(1, cap):
        run = run[:, :-1] & ext[:, k:]
        best += run.any(axis=1)
    return best


def _exposure(variant: Variant, me: np.ndarray, opp: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(direct, indirect) counts of `me`'s blots that an opposing checker 1-6 / 7-11 pips
    behind could hit (hitting variants only), weighted by the pips a hit would cost."""
    n = me.shape[0]
    if not variant.hitting:
        z = np.zeros(n, dtype=np.float32)
        return z, z
    table = np.array(opponent_point_map(variant)[1:25])  # my point q -> opponent's number
    blots = np.zeros((n, 26), dtype=np.float32)
    # the blot on my point q sits on the opponent's point table[q-1]; a hit costs 25-q pips
    cost = (25 - np.arange(1, 25)) / 24.0 + 0.1
    blots[:, table] = (me[:, 1:25] == 1) * cost
    occ = np.zeros((n, 26 + 12), dtype=np.float32)
    occ[:, :26] = opp > 0
    occ[:, 0] = 0.0
    near = np.zeros((n, 26), dtype=np.float32)
    far = np.zeros((n, 26), dtype=np.float32)
    for d in range(1, 12):
        shifted = occ[:, d:d + 26]
        if d <= 6:
            near = np.maximum(near, shifted)
        else:
            far = np.maximum(far, shifted)
    direct = (blots * near).sum(axis=1)
    indirect = (blots * far * (1.0 - near)).sum(axis=1)
    return direct, indirect


def hold_threshold(variant: Variant) -> int:
    """Checkers that make a point the opponent may not land on: 2 (J3), 1 without hitting (B3)."""
    return 2 if variant.hitting else 1


def _blocking(variant: Variant, me: np.ndarray, opp: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(blocked, trapped, power) of `me` against `opp` (version 2).

    blocked: the mean, over `me`'s checkers outside home, of the share of the
    six points ahead of each (in its own numbering) that `opp` holds;
    trapped: how many of them face four or more such points, over 15;
    power: the opposing checkers that still have to pass each of `me`'s held
    points, summed over the points, over 15 * 6.
    """
    n = me.shape[0]
    hold = hold_threshold(variant)
    table = np.array(opponent_point_map(variant)[1:25])  # my point q -> opponent's number
    held_by_opp = np.zeros((n, 26), dtype=np.int16)  # in my numbering
    held_by_opp[:, 1:25] = opp[:, table] >= hold
    cs = np.cumsum(held_by_opp, axis=1)  # cs[:, k] = held points among my 1..k
    p = np.arange(7, 26)
    ahead = cs[:, p - 1] - cs[:, p - 7]  # for a checker on p: points p-6..p-1
    counts = me[:, 7:26].astype(np.float32)
    outside = counts.sum(axis=1)
    blocked = (counts * ahead).sum(axis=1) / (6.0 * np.maximum(outside, 1.0))
    trapped = (counts * (ahead >= 4)).sum(axis=1) / 15.0
    # opposing checkers beyond each of my held points, in the opponent's numbering
    opp_behind = np.cumsum(opp[:, ::-1], axis=1)[:, ::-1]  # [:, j] = checkers on j..25
    mine_held = me[:, 1:25] >= hold
    beyond = opp_behind[:, np.minimum(table + 1, 25)]
    power = (mine_held * beyond).sum(axis=1) / 90.0
    return blocked, trapped, power


def _shots(variant: Variant, me: np.ndarray, opp: np.ndarray
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(rolls, pips, doubles) of `fastencode._shots` for a batch: of `opp`'s 36 rolls,
    those that hit a blot of `me`, the pips the most costly hit of each roll costs,
    summed over the rolls (version 3), and the rolls that could hit either of two
    or more different blots (version 4)."""
    n = me.shape[0]
    hold = hold_threshold(variant)
    table = np.array(opponent_point_map(variant))
    q = np.arange(1, 25)
    blot_at = np.zeros((n, 26), dtype=np.int64)  # opponent's numbering: pips a hit costs
    blot_at[:, table[1:25]] = np.where(me[:, 1:25] == 1, 25 - q, 0)
    blocked = np.zeros((n, 26), dtype=bool)
    blocked[:, table[1:25]] = me[:, 1:25] >= hold
    has = opp > 0
    bar = opp[:, 25].astype(np.int64)
    zero = np.zeros(n, dtype=np.int64)

    targets = np.zeros((n, 26), dtype=bool)  # the blots one roll could hit

    def hit(t: int, ok: np.ndarray) -> np.ndarray:
        if t < 1:
            return zero
        lands = ok & ~blocked[:, t]
        targets[:, t] |= lands & (blot_at[:, t] > 0)
        return np.where(lands, blot_at[:, t], 0)

    rolls = np.zeros(n, dtype=np.int64)
    pips = np.zeros(n, dtype=np.int64)
    doubles = np.zeros(n, dtype=np.int64)
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            targets[:] = False
            best = zero
            if d1 != d2:
                for d in (d1, d2):  # two or more on the bar: entering hits only
                    best = np.maximum(best, hit(25 - d, bar >= 2))
                for da, db in ((d1, d2), (d2, d1)):  # one on the bar: enter, then any checker
                    e = 25 - da
                    ok = (bar == 1) & ~blocked[:, e]
                    best = np.maximum(best, hit(e, ok))
                    for k in range(1, 25):
                        best = np.maximum(best, hit(k - db, ok & (has[:, k] | (k == e))))
                free = bar == 0
                for k in range(1, 25):
                    src = free & has[:, k]
                    best = np.maximum(best, hit(k - d1, src))
                    best = np.maximum(best, hit(k - d2, src))
                    if k - d1 - d2 >= 1:
                        via = ~blocked[:, k - d1] | ~blocked[:, k - d2]
                        best = np.maximum(best, hit(k - d1 - d2, src & via))
            else:
                d = d1
                e = 25 - d
                entry = (bar > 0) & ~blocked[:, e]
                best = np.maximum(best, hit(e, entry))
                steps = np.where(bar > 0, np.where(entry, 4 - np.minimum(bar, 4), 0), 4)
                for k in range(1, 25):
                    alive = has[:, k] | (entry if k == e else False)
                    for s in range(1, 5):
                        t = k - s * d
                        if t < 1:
                            break
                        alive = alive & (steps >= s) & ~blocked[:, t]
                        targets[:, t] |= alive & (blot_at[:, t] > 0)
                        best = np.maximum(best, np.where(alive, blot_at[:, t], 0))
            w = 1 if d1 == d2 else 2
            rolls += w * (best > 0)
            pips += w * best
            doubles += w * (targets.sum(axis=1) >= 2)
    return rolls, pips, doubles


def _escapes(blocked: np.ndarray) -> np.ndarray:
    """(N, 26): for each point p (1-25), of the 36 rolls, those that move a checker on p
    its whole roll past the `blocked` points (N, 26, its own numbering), as
    `fastencode._escapes` counts them (version 3)."""
    n = blocked.shape[0]
    out = np.zeros((n, 26), dtype=np.int64)
    for p in range(1, 26):
        for d1 in range(1, 7):
            for d2 in range(d1, 7):
                ok = np.ones(n, dtype=bool)
                if p - d1 - d2 >= 1:
                    ok &= ~blocked[:, p - d1 - d2]
                if p - d1 >= 1 and p - d2 >= 1:
                    ok &= ~(blocked[:, p - d1] & blocked[:, p - d2])
                out[:, p] += (1 if d1 == d2 else 2) * ok
    return out


def _mobility(variant: Variant, me: np.ndarray, opp: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(back escapes, mobility, containment) of `me` against `opp` (version 3).

    back escapes: the rolls (of 36) that carry `me`'s rearmost checker its whole roll
    past `opp`'s held points; mobility: over `me`'s checkers outside home, those rolls
    times the pips to home, over 3600; containment: one minus the fewest such rolls of
    an opposing checker on its points 13-24 against `me`'s held points.
    """
    n = me.shape[0]
    hold = hold_threshold(variant)
    table = np.array(opponent_point_map(variant))
    held_by_opp = np.zeros((n, 26), dtype=bool)  # in my numbering
    held_by_opp[:, 1:25] = opp[:, table[1:25]] >= hold
    esc = _escapes(held_by_opp)
    on = me[:, 1:26] > 0
    rear = np.where(on.any(axis=1), 25 - np.argmax(on[:, ::-1], axis=1), 0)
    back = np.where(rear > 0, esc[np.arange(n), rear] / 36.0, 0.0)
    mobility = (me[:, 7:26] * esc[:, 7:26] * np.arange(1, 20)).sum(axis=1) / 3600.0
    held_by_me = np.zeros((n, 26), dtype=bool)  # in the opponent's numbering
    held_by_me[:, table[1:25]] = me[:, 1:25] >= hold
    contain = 1.0 - _escapes(held_by_me)[:, 13:25].min(axis=1) / 36.0
    return back, mobility, contain


def _dance(variant: Variant, me: np.ndarray, opp: np.ndarray) -> np.ndarray:
    """With `me` on the bar, the share of its entry points `opp` holds, squared (version 3)."""
    table = np.array(opponent_point_map(variant))
    closed = (opp[:, table[19:25]] >= hold_threshold(variant)).sum(axis=1)
    return np.where(me[:, 25] > 0, (closed / 6.0) ** 2, 0.0)


def _opp_rear_index(variant: Variant, opp: np.ndarray) -> np.ndarray:
    """(N,) the opponent's rearmost checker as an index of `me`'s points (point - 1):
    -1 for the bar, 24 with nothing left on the board. In the same-direction
    geometry (G3) no point of ours lies past all the opponent's checkers: -1."""
    n = opp.shape[0]
    if variant.same_direction:
        return np.full(n, -1, dtype=np.int64)
    on = opp[:, 1:26] > 0
    rear = np.where(on.any(axis=1), 25 - np.argmax(on[:, ::-1], axis=1), 0)
    return 24 - rear


def _timing(me: np.ndarray, back: np.ndarray) -> np.ndarray:
    """Pips `me` can play before it must break its home board points (version 4).

    Counted from the rearmost point down, each spare checker adding its pips:
    on the bar and the points beyond the opponent's rearmost checker (or beyond
    point 12) the checkers above two of a point and a lone checker are spare (a
    point of exactly two is kept); on points 7 to there every checker is; in
    home the checkers above two are, and spares fill the home points below two
    checkers, their pips no longer free. Over 100, never negative.
    """
    m = np.maximum(back, 11)
    t = 24 * me[:, 25].astype(np.int64)
    spare = me[:, 25].astype(np.int64)
    for i in range(23, 5, -1):  # point i + 1
        c = me[:, i + 1].astype(np.int64)
        outer = i > m
        kept = np.where(c > 2, c - 2, np.where((c > 0) & (c != 2), 1, 0))
        add = np.where(outer, kept, c)
        t += i * add
        spare += add
    for i in range(5, -1, -1):
        c = me[:, i + 1].astype(np.int64)
        t += np.where(c > 2, i * (c - 2), 0)
        spare += np.where(c > 2, c - 2, 0)
        need = np.where(c < 2, 2 - c, 0)
        fill = (need > 0) & (spare >= need)
        t -= np.where(fill, i * need, 0)
        spare -= np.where(fill, need, 0)
    return np.maximum(t, 0) / 100.0


def _moment2(me: np.ndarray) -> np.ndarray:
    """How far `me`'s rearmost checkers trail the rest (version 4): the mean squared
    distance, rounded up, of the checkers beyond the mean point (rounded up) from
    it, over 400."""
    counts = me[:, 1:26].astype(np.int64)
    points = np.arange(1, 26)
    total = counts.sum(axis=1)
    mean = np.where(total > 0, (counts @ points + total - 1) // np.maximum(total, 1), 0)
    beyond = points[None, :] > mean[:, None]
    far = np.where(beyond, counts, 0)
    k = (far * (points[None, :] - mean[:, None]) ** 2).sum(axis=1)
    j = far.sum(axis=1)
    return np.where(j > 0, (k + j - 1) // np.maximum(j, 1), 0) / 400.0


def _backbone(me: np.ndarray, made: np.ndarray) -> np.ndarray:
    """How well `me`'s held points are spaced to cover each other (version 4).

    Going forward from the rearmost held point, each held point scores how
    well the next one ahead covers it: 11 within 6 pips, 13 - d at d = 7 to 11
    pips, 0 further, weighted by its checkers; one minus the weighted mean over 11.
    """
    n = me.shape[0]
    prev = np.zeros(n, dtype=np.int64)
    w = np.zeros(n, dtype=np.float64)
    tot = np.zeros(n, dtype=np.float64)
    rows = np.arange(n)
    for q in range(24, 0, -1):
        m = made[:, q - 1]
        link = m & (prev > 0)
        d = prev - q
        c = np.where(d <= 6, 11, np.where(d <= 11, 13 - d, 0))
        held = me[rows, prev]
        w += np.where(link, c * held, 0)
        tot += np.where(link, held, 0)
        prev = np.where(m, q, prev)
    return np.where(tot > 0, 1.0 - w / (11.0 * np.maximum(tot, 1.0)), 0.0)


def _enter_loss(variant: Variant, me: np.ndarray, opp: np.ndarray) -> np.ndarray:
    """With `me` on the bar, the pips its rolls leave unplayed because the entry
    points are held (version 4): a held double loses four moves, a roll with both
    dice held both, and with two or more on the bar a held die its own pips;
    over 36 * 49/6."""
    n = me.shape[0]
    if not variant.hitting:
        return np.zeros(n)
    table = np.array(opponent_point_map(variant))
    hold = hold_threshold(variant)
    held = {d: opp[:, table[25 - d]] >= hold for d in range(1, 7)}
    two = me[:, 25] >= 2
    loss = np.zeros(n)
    for d1 in range(1, 7):
        loss += np.where(held[d1], 4 * d1, 0)
        for d2 in range(d1 + 1, 7):
            both = held[d1] & held[d2]
            loss += np.where(both, 2 * (d1 + d2), 0)
            loss += np.where(two & held[d1] & ~held[d2], 2 * d1, 0)
            loss += np.where(two & held[d2] & ~held[d1], 2 * d2, 0)
    return np.where(me[:, 25] > 0, loss / (36.0 * 49.0 / 6.0), 0.0)


def _v4_extras(variant: Variant, me: np.ndarray, opp: np.ndarray, doubles: np.ndarray
               ) -> tuple[np.ndarray, ...]:
    """The twelve version-4 features of `me` against `opp`, in their order
    (`doubles`: the third count of `_shots`, zeros without hitting).

    back checker: the rearmost point with a checker (the bar 25), (point - 1) / 24;
    back anchor: the rearmost held point, (point - 1) / 24, 0 without one;
    forward anchor: the most advanced held point of the opponent's home (its
    point k = 6 down to 1), else the nearest of its 7 to 12, as k / 6; 2 without;
    double shots: of the opponent's 36 rolls, those that could hit either of two
    blots (hitting variants), over 36;
    enter loss: `_enter_loss`; timing: `_timing`;
    break contact: the pips `me`'s checkers still need to pass the opponent's
    rearmost one, over 167; free pips: the pips of those already past it, over 100
    (both 0 in the same-direction geometry, where the sides share the road);
    one-sided moment: `_moment2`; backbone: `_backbone`;
    backgame: with two or more points held in the opponent's home, (checkers there
    and on the bar - 3) / 4; with one, the same checkers over 8 (second input).
    """
    n = me.shape[0]
    hold = hold_threshold(variant)
    table = np.array(opponent_point_map(variant))
    made = me[:, 1:25] >= hold
    on = me[:, 1:26] > 0
    rear = np.where(on.any(axis=1), 25 - np.argmax(on[:, ::-1], axis=1), 0)
    back_checker = np.where(rear > 0, (rear - 1) / 24.0, 0.0)
    anchor = np.where(made.any(axis=1), 24 - np.argmax(made[:, ::-1], axis=1), 0)
    back_anchor = np.where(anchor > 0, (anchor - 1) / 24.0, 0.0)
    order = np.array([6, 5, 4, 3, 2, 1, 7, 8, 9, 10, 11, 12])
    held = me[:, table[order]] >= hold
    forward = np.where(held.any(axis=1), order[np.argmax(held, axis=1)] / 6.0, 2.0)
    back = _opp_rear_index(variant, opp)
    counts = me[:, 1:26].astype(np.int64)
    idx = np.arange(25)
    if variant.same_direction:
        brk = np.zeros(n)
        free = np.zeros(n)
    else:
        behind = idx[None, :] > back[:, None]
        brk = (np.where(behind, idx[None, :] + 1 - back[:, None], 0) * counts).sum(axis=1) / 167.0
        past = idx[None, :] < back[:, None]
        free = (np.where(past, idx[None, :] + 1, 0) * counts).sum(axis=1) / 100.0
    home = table[1:7]
    anchors = (me[:, home] >= hold).sum(axis=1)
    there = me[:, home].sum(axis=1) + me[:, 25]
    backg = np.where(anchors >= 2, (there - 3) / 4.0, 0.0)
    backg1 = np.where(anchors == 1, there / 8.0, 0.0)
    return (back_checker, back_anchor, forward, doubles / 36.0, _enter_loss(variant, me, opp),
            _timing(me, back), brk, free, _moment2(me), _backbone(me, made), backg, backg1)


def _side_features(variant: Variant, me: np.ndarray, opp: np.ndarray, flag: np.ndarray,
                   out: np.ndarray, col: int, version: int) -> int:
    pts = me[:, 1:25].astype(np.float32)
    n = me.shape[0]
    unary = out[:, col:col + 96].reshape(n, 24, 4)
    unary[:, :, 0] = pts >= 1
    unary[:, :, 1] = pts >= 2
    unary[:, :, 2] = pts >= 3
    unary[:, :, 3] = np.maximum(pts - 3.0, 0.0) * 0.5
    col += 96
    out[:, col] = me[:, 25] * 0.5
    out[:, col + 1] = me[:, 0] / 15.0
    col += 2
    if version == 6:
        if variant.hitting and not variant.same_direction:
            for r in range(n):
                gnubg_inputs.side_inputs(me[r], opp[r], out[r], col)
        return col + _PER_SIDE_EXTRA[6]
    pips = me.astype(np.float32) @ _PIPS
    made = me[:, 1:25] >= (2 if version == 1 else hold_threshold(variant))
    direct, indirect = _exposure(variant, me, opp)
    courier = (me[:, 24] >= 14) & (me[:, 0] == 0) & ~me[:, 1:7].any(axis=1)
    home_made = made[:, 0:6].sum(axis=1)
    extras: tuple[np.ndarray, ...] = (
        pips / 100.0,
        courier if variant.courier else np.zeros(n),
        made[:, 18:24].sum(axis=1) / 2.0 if variant.start_limit else np.zeros(n),
        flag if variant.tracks_primes else np.zeros(n),
        has_prime(me) if variant.tracks_primes else np.zeros(n),
        _longest_run(made) / 6.0,
        home_made / 6.0,
        direct,
        indirect,
        (me[:, 1:25] == 1).sum(axis=1) / 5.0,
        (me[:, 0] == 0),
    )
    if version >= 2:
        blocked, trapped, power = _blocking(variant, me, opp)
        outside = me[:, 7:26].astype(np.float32)
        extras += (
            blocked, trapped, power,
            outside.sum(axis=1) / 15.0,
            outside @ np.arange(1, 20, dtype=np.float32) / 100.0,  # pips to get home
        )
    doubles = np.zeros(n)
    if version >= 3:
        if variant.hitting:
            rolls, lost, doubles = _shots(variant, me, opp)
            extras += (rolls / 36.0, lost / (36.0 * 12.0), _dance(variant, me, opp))
        else:
            extras += (np.zeros(n), np.zeros(n), np.zeros(n))
        extras += _mobility(variant, me, opp)
    if version >= 4:
        extras += _v4_extras(variant, me, opp, doubles)
    for k, value in enumerate(extras):
        out[:, col + k] = value
    if version >= 5 and variant.hitting and not variant.same_direction:
        at = col + _PER_SIDE_EXTRA[4]
        for r in range(n):
            gnubg_inputs.side_inputs(me[r], opp[r], out[r], at)
    return col + _PER_SIDE_EXTRA[version]


def encode(variant: Variant, me: np.ndarray, opp: np.ndarray,
           me_flag: np.ndarray | None = None, opp_flag: np.ndarray | None = None,
           version: int = FEATURE_VERSION) -> np.ndarray:
    """The (N, n_inputs(version)) float32 input matrix of a batch of positions, `me` on roll.

    Versions 2 to 6 run the compiled encoder (`fastencode`) when numba is
    there; `encode_numpy` is the reference it is tested against.
    """
    n = me.shape[0]
    if me_flag is None:
        me_flag = np.zeros(n, dtype=bool)
    if opp_flag is None:
        opp_flag = np.zeros(n, dtype=bool)
    if version in fastencode.SUPPORTED and fastencode.available():
        return fastencode.encode(variant, me, opp, me_flag, opp_flag, version)
    return encode_numpy(variant, me, opp, me_flag, opp_flag, version)


def encode_numpy(variant: Variant, me: np.ndarray, opp: np.ndarray,
                 me_flag: np.ndarray | None = None, opp_flag: np.ndarray | None = None,
                 version: int = FEATURE_VERSION) -> np.ndarray:
    """`encode` in numpy operations over the whole batch (the reference)."""
    n = me.shape[0]
    if me_flag is None:
        me_flag = np.zeros(n, dtype=bool)
    if opp_flag is None:
        opp_flag = np.zeros(n, dtype=bool)
    out = np.zeros((n, n_inputs(version)), dtype=np.float32)
    col = _side_features(variant, me, opp, me_flag, out, 0, version)
    col = _side_features(variant, opp, me, opp_flag, out, col, version)
    c = contact(variant, me, opp)
    pip_me = me.astype(np.float32) @ _PIPS
    pip_opp = opp.astype(np.float32) @ _PIPS
    out[:, col] = c
    out[:, col + 1] = np.clip((pip_opp - pip_me) / 40.0, -2.0, 2.0)
    out[:, col + 2] = 1.0  # bias-like constant for the race/contact split
    return out
