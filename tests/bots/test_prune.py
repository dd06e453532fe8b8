"""Pruning networks and the search settings: the compiled scores, the pruned reply
choice, the move filter's text form."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from jacquetd.bots import prune
from jacquetd.bots.evaluator import neural_evaluator
from jacquetd.bots.net import equity
from jacquetd.bots.search import (
    ROLLS,
    Searcher,
    SearchSettings,
    State,
    best_replies,
    roll_replies,
)
from jacquetd.rules import Position, legal_plays
from jacquetd.rules.variants import VARIANTS

NAMES = list(VARIANTS)


def _states(variant: str, count: int, seed: int) -> list[State]:
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        pos = Position.initial(variant)
        for _ in range(rng.randint(0, 40)):
            pos = rng.choice(legal_plays(pos.with_dice((rng.randint(1, 6),
                                                        rng.randint(1, 6))))).after
            if pos.game_over():
                break
        if not pos.game_over():
            out.append(State(pos.me, pos.opp, *pos.primed))
    return out


@pytest.mark.parametrize("variant", NAMES)
def test_every_variant_ships_a_pruning_network_with_its_recipe(variant):
    net = prune.shipped(variant)
    assert net is not None and net.w1.shape[0] == prune.N_INPUTS
    meta = json.loads(prune.weights_path(variant).with_suffix(".json").read_text())
    assert meta["variant"] == variant
    assert meta["command"].startswith(f"jacquetd train-prune --variant {variant} ")
    assert meta["test_rolls_best_kept"] > 0.9


@pytest.mark.parametrize("variant", NAMES)
def test_compiled_scores_match_the_matrix_products(variant):
    net = prune.shipped(variant)
    assert net is not None
    ev = neural_evaluator(variant)
    for s in _states(variant, 4, 3):
        me, opp, _p, _b = roll_replies(ev, s)
        np.testing.assert_allclose(net.scores(me, opp), net.scores_reference(me, opp),
                                   atol=2e-5)


def test_keep_follows_gnubg_count():
    assert [prune.keep(n) for n in (1, 5, 6, 8, 16, 31, 32, 100)] == [1, 5, 6, 8, 9, 9, 10, 11]


@pytest.mark.parametrize("variant", NAMES)
def test_pruned_replies_are_the_best_of_what_they_kept(variant):
    """Unpruned, `best_replies` is each roll's first best play of `roll_replies`; pruned,
    its choice is a play of that roll, evaluated by the full evaluator, and never
    better than the unpruned choice."""
    ev = neural_evaluator(variant)
    net = prune.shipped(variant)
    for s in _states(variant, 6, 5):
        after_me, after_opp, p, bounds = roll_replies(ev, s)
        eq = equity(p)
        full_me, full_opp, full_p = best_replies(ev, s, None)
        pr_me, pr_opp, pr_p = best_replies(ev, s, net)
        for r in range(len(ROLLS)):
            lo, hi = bounds[r], bounds[r + 1]
            k = lo + int(np.argmax(eq[lo:hi]))
            assert (full_me[r] == after_me[k]).all() and (full_opp[r] == after_opp[k]).all()
            np.testing.assert_allclose(full_p[r], p[k], atol=1e-6)
            rows = [i for i in range(lo, hi) if (after_me[i] == pr_me[r]).all()
                    and (after_opp[i] == pr_opp[r]).all()]
            assert rows, "the pruned choice is not a play of its roll"
            np.testing.assert_allclose(pr_p[r], p[rows[0]], atol=1e-6)  # rows batch differently
            assert equity(pr_p[r]) <= eq[k] + 1e-5


def test_search_settings_text_form_round_trips_and_names_bad_items():
    s = SearchSettings()
    assert SearchSettings.parse_filters(s.filter_text()) == s.filters
    assert SearchSettings.parse_filters("8:0.16, 2:0") == ((8, 0.16), (2, 0.0))
    for bad in ("8", "0:0.1", "x:0.1", "4:-1", "4:0.1,,"):
        with pytest.raises(ValueError, match="move filter"):
            SearchSettings.parse_filters(bad)
    assert s.filter_at(1) == (8, 0.16) and s.filter_at(9) == s.filters[-1]


def test_searcher_without_pruning_has_no_pruner():
    ev = neural_evaluator("backgammon")
    assert Searcher(ev, SearchSettings(prune=False)).pruner is None
    assert Searcher(ev).pruner is prune.shipped("backgammon")


@pytest.mark.parametrize("variant", NAMES)
def test_kept_rows_compiled_and_plain_agree(variant):
    """The compiled selection equals the plain one on numpy's scores (ties aside: the
    scores agree to float32 rounding, and no two plays of these rolls tie)."""
    net = prune.shipped(variant)
    assert net is not None
    ev = neural_evaluator(variant)
    for s in _states(variant, 4, 9):
        me, opp, _p, bounds = roll_replies(ev, s)
        got_rows, got_bounds = net.kept_rows(me, opp, np.asarray(bounds))
        plain = getattr(prune._keep_rows, "py_func", prune._keep_rows)
        want_rows, want_bounds = plain(
            me.astype(np.int16), opp.astype(np.int16), np.asarray(bounds, dtype=np.int64),
            net.w1, net.b1, net.w2, float(net.b2), net.scores_reference(me, opp))
        assert got_rows.tolist() == want_rows.tolist()
        assert got_bounds.tolist() == want_bounds.tolist()
        sizes = np.diff(bounds)
        assert np.diff(got_bounds).tolist() == [prune.keep(int(n)) for n in sizes]


def _sha16(path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


@pytest.mark.parametrize("variant", NAMES)
def test_a_shipped_pruning_network_names_the_network_it_was_fitted_to(variant):
    """A recipe that names its network (`network_sha256`, from the fits that record it)
    names the network that ships beside it: a pruning network fitted to another one
    would keep the wrong plays."""
    meta = json.loads(prune.weights_path(variant).with_suffix(".json").read_text())
    if "network_sha256" in meta:
        assert meta["network_sha256"] == _sha16(prune.WEIGHTS_DIR / f"{variant}.npz")


def test_train_prune_fits_to_the_candidate_it_is_given(tmp_path):
    """`jacquetd train-prune --weights FILE` plays and judges with that network, names
    it by its digest, and keeps the paths out of the recipe."""
    from jacquetd.bots import prune_train
    from jacquetd.bots.evaluator import candidate_evaluator
    from jacquetd.bots.net import Net

    variant = "jacquet-be"
    candidate = Net.load(prune.WEIGHTS_DIR / f"{variant}.npz")
    candidate.w2 *= 0.5  # another network: other equities for the same plays
    cand_path = tmp_path / "candidate.npz"
    candidate.save(cand_path)
    shipped_data = prune_train.training_data(neural_evaluator(variant), 20, 5)
    cand_data = prune_train.training_data(candidate_evaluator(variant, str(cand_path)), 20, 5)
    assert not np.allclose(shipped_data[2][:10], cand_data[2][:10])

    out = tmp_path / "fitted-prune.npz"
    assert prune_train.main(["--variant", variant, "--states", "20", "--test-states", "20",
                             "--epochs", "1", "--hidden", "4", "--weights", str(cand_path),
                             "--out", str(out)]) == 0
    meta = json.loads(out.with_suffix(".json").read_text())
    assert meta["network_sha256"] == _sha16(cand_path)
    assert meta["command"] == (f"jacquetd train-prune --variant {variant} --states 20 "
                               "--test-states 20 --epochs 1 --hidden 4")
    assert prune.PruneNet.load(out).w1.shape == (prune.N_INPUTS, 4)
