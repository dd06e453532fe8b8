"""Supervised training on a teacher's figures: `jacquetd distill`, `distill_gnubg.py`."""

from __future__ import annotations

import json
import runpy
import sys
from pathlib import Path

import numpy as np
import pytest

from jacquetd.bots import features, supervised
from jacquetd.bots.evaluator import NeuralEvaluator, all_home, load_net, tidy
from jacquetd.bots.net import Net, equity
from jacquetd.bots.search import Searcher, State
from jacquetd.rules import find_variant

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


def test_collect_is_seeded_deduplicated_and_skips_pure_races():
    v = find_variant("jacquet-be")
    a = supervised.collect(v, 3, seed=5, per_turn=4)
    b = supervised.collect(v, 3, seed=5, per_turn=4)
    assert len(a) > 50
    for f in ("me", "opp", "me_flag", "opp_flag"):
        np.testing.assert_array_equal(getattr(a, f), getattr(b, f))
    assert len(a.unique()) == len(a)
    assert (a.me.sum(axis=1) == 15).all() and (a.opp.sum(axis=1) == 15).all()
    home = all_home(a.me) & all_home(a.opp)
    assert not home.any()
    doubled = supervised.Positions.concat([a, a])
    assert len(doubled.unique()) == len(a)


def test_search_teacher_is_the_searchers_figures():
    v = find_variant("jacquet")
    pos = supervised.collect(v, 1, seed=2, per_turn=2).take(np.arange(5))
    ev = NeuralEvaluator(v, load_net(v.name))
    got = supervised.search_teacher(ev, 1)(pos)
    state = State(tuple(int(c) for c in pos.me[3]), tuple(int(c) for c in pos.opp[3]),
                  bool(pos.me_flag[3]), bool(pos.opp_flag[3]))
    np.testing.assert_allclose(got[3], Searcher(ev).evaluate_states([state], 1)[0])


def test_rollout_teacher_labels_each_position_by_its_own_rollout():
    """A rollout teacher's label is the position's variance-reduced rollout
    (`rollout_label`), clipped and made consistent; a position's label does not depend
    on the batch it comes in."""
    from jacquetd.bots import rolloutkernel

    if not rolloutkernel.available():
        pytest.skip("the compiled rollouts need numba")
    v = find_variant("jacquet")
    pos = supervised.collect(v, 1, seed=2, per_turn=2).take(np.arange(6))
    ev = NeuralEvaluator(v, load_net(v.name))
    spec = supervised.RolloutTeacher(trials=36, horizons=(3,), seed=9)
    got = supervised.rollout_teacher(ev, spec)(pos)
    assert got.shape == (6, 5) and (got >= 0).all() and (got <= 1).all()
    assert (got[:, 1] <= got[:, 0]).all() and (got[:, 3] <= 1 - got[:, 0] + 1e-12).all()
    backwards = supervised.rollout_teacher(ev, spec)(pos.take(np.arange(5, -1, -1)))
    np.testing.assert_array_equal(backwards[::-1], got)
    one = supervised.rollout_teacher(ev, spec)(pos.take(np.arange(2, 3)))
    np.testing.assert_array_equal(one[0], got[2])
    for i in range(len(pos)):
        flags = bool(pos.me_flag[i]), bool(pos.opp_flag[i])
        key = supervised.position_key(pos.me[i], pos.opp[i], *flags)
        label = rolloutkernel.rollout_label(ev, State(
            tuple(int(c) for c in pos.me[i]), tuple(int(c) for c in pos.opp[i]), *flags),
            trials=36, seed=[9, key], horizon=3)
        want = tidy(v, np.clip(label.probs, 0, 1)[None], pos.me_flag[i:i + 1],
                    pos.opp_flag[i:i + 1])[0]
        np.testing.assert_array_equal(got[i], want)
    other = supervised.rollout_teacher(ev, supervised.RolloutTeacher(36, (3,), 10))(pos)
    assert np.abs(other - got).max() > 0  # another seed, other dice


def test_a_label_of_two_horizons_is_the_mean_of_their_labels():
    """`--rollout-horizon 4,5`: each position's label is the mean of its two labels, on
    the same dice (the position's key), tidied after the mean."""
    from jacquetd.bots import rolloutkernel

    if not rolloutkernel.available():
        pytest.skip("the compiled rollouts need numba")
    v = find_variant("jacquet")
    pos = supervised.collect(v, 1, seed=2, per_turn=2).take(np.arange(4))
    ev = NeuralEvaluator(v, load_net(v.name))
    both = supervised.rollout_teacher(ev, supervised.RolloutTeacher(24, (2, 3), 9))(pos)
    for i in range(len(pos)):
        flags = bool(pos.me_flag[i]), bool(pos.opp_flag[i])
        key = supervised.position_key(pos.me[i], pos.opp[i], *flags)
        state = State(tuple(int(c) for c in pos.me[i]), tuple(int(c) for c in pos.opp[i]),
                      *flags)
        mean = np.mean([rolloutkernel.rollout_label(ev, state, trials=24, seed=[9, key],
                                                    horizon=h).probs for h in (2, 3)], axis=0)
        want = tidy(v, np.clip(mean, 0, 1)[None], pos.me_flag[i:i + 1],
                    pos.opp_flag[i:i + 1])[0]
        np.testing.assert_array_equal(both[i], want)


@pytest.mark.parametrize(("text", "horizons"), [("5", (5,)), ("4,5", (4, 5)),
                                                ("1,2,3", (1, 2, 3))])
def test_horizons_parse(text, horizons):
    assert supervised.parse_horizons(text) == horizons
    assert supervised.RolloutTeacher(18, horizons, 1).name == (
        "rollout-18x" + "+".join(str(h) for h in horizons))


@pytest.mark.parametrize("text", ["", "0", "4,0", "four", "4;5", "-1"])
def test_bad_horizons_are_refused_by_name(text):
    with pytest.raises(ValueError, match="--rollout-horizon"):
        supervised.parse_horizons(text)


def test_distill_by_rollouts_writes_a_loadable_network(tmp_path):
    from jacquetd.bots import rolloutkernel

    if not rolloutkernel.available():
        pytest.skip("the compiled rollouts need numba")
    args = ["--variant", "jacquet-be", "--games", "1", "--seed", "4", "--epochs", "1",
            "--per-turn", "2", "--teacher-rollout", "12", "--rollout-horizon", "2",
            "--out", str(tmp_path / "out"), "--quiet"]
    assert supervised.main(args) == 0
    NeuralEvaluator(find_variant("jacquet-be"), Net.load(tmp_path / "out" / "jacquet-be.npz"))
    sidecar = json.loads((tmp_path / "out" / "jacquet-be.json").read_text())
    assert sidecar["teacher"] == "rollout-12x2"
    assert supervised.main([*args[:-3], "--teacher-rollout", "0", "--quiet"]) == 2
    assert supervised.main([*args[:-3], "--rollout-horizon", "4,x", "--quiet"]) == 2


def _float64_net(seed: int) -> Net:
    return Net(7, 5, seed=seed).astype(np.float64)


def _check_gradients(net: Net, grads: list[np.ndarray], loss) -> None:
    """Each gradient against a central difference of `loss` at three weights of each array."""
    for name, g in zip(("w1", "b1", "w2", "b2"), grads, strict=True):
        flat = getattr(net, name).reshape(-1)
        for k in (0, flat.size // 2, flat.size - 1):
            old = flat[k]
            flat[k] = old + 1e-6
            up = loss()
            flat[k] = old - 1e-6
            down = loss()
            flat[k] = old
            assert g.reshape(-1)[k] == pytest.approx((up - down) / 2e-6, rel=1e-4, abs=1e-8)


def _xent(y: np.ndarray, t: np.ndarray) -> float:
    return float(-(t * np.log(y) + (1 - t) * np.log(1 - y)).sum(axis=1).mean())


def test_gradients_match_finite_differences():
    rng = np.random.default_rng(0)
    net = _float64_net(1)
    x = rng.standard_normal((9, 7))
    t = rng.random((9, 5))
    _check_gradients(net, supervised._grads(net, x, t), lambda: _xent(net.forward(x), t))


def test_rank_gradients_match_finite_differences():
    """The cross-entropy on `t` plus the siblings' relative term on a second judge's
    figures (`rank_t`), groups of three, two, one and three rows."""
    rng = np.random.default_rng(3)
    net = _float64_net(2)
    x = rng.standard_normal((9, 7))
    t = rng.random((9, 5))
    rank_t = rng.random((9, 5))
    group = np.array([4, 4, 4, 1, 1, 9, 7, 7, 7])
    c = np.array([2.0, 1.0, 1.0, -1.0, -1.0])

    def loss() -> float:
        y = net.forward(x)
        d = (y - rank_t) @ c
        rel = np.array([d[i] - d[group == group[i]].mean() for i in range(len(d))])
        return _xent(y, t) + 3.0 * float((rel ** 2).mean())

    _check_gradients(net, supervised._grads(net, x, t, group, 3.0, rank_t), loss)


def test_decision_error_scores_the_networks_pick_by_the_teachers_figures():
    v = find_variant("backgammon")
    pos = supervised.collect(v, 2, seed=1, per_turn=5, groups=True)
    net = load_net(v.name)
    x = supervised.encode(v, pos, int(net.meta["feature_version"]))
    own = NeuralEvaluator(v, net, use_bearoff=False).probs(pos.me, pos.opp, pos.me_flag,
                                                           pos.opp_flag)
    probs = tidy(v, net.forward(x), pos.me_flag, pos.opp_flag)  # as the fit measures it
    assert pos.group is not None
    assert supervised.decision_error(probs, pos.group, own) == {"agree": 1.0,
                                                                "decision_mp": 0.0}
    # a teacher that prefers exactly the opposite order: every pick is its worst
    flipped = own[:, [3, 4, 2, 0, 1]]
    flipped[:, 0] = 1.0 - own[:, 0]
    flipped[:, 2] = 0.0
    worse = supervised.decision_error(probs, pos.group, flipped)
    assert worse["agree"] < 0.2 and worse["decision_mp"] > 10.0


def test_the_rank_weight_lowers_the_cost_of_the_held_out_decisions():
    """Fitting towards another network's figures: with the siblings weighed together the
    held-out decisions cost less than with the cross-entropy alone, on the same data."""
    v = find_variant("jacquet-be")
    pos = supervised.collect(v, 8, seed=3, per_turn=8, groups=True)
    other = Net(features.n_inputs(), 12, seed=9, meta={"feature_version": features.FEATURE_VERSION})
    targets = NeuralEvaluator(v, other, use_bearoff=False).probs(
        pos.me, pos.opp, pos.me_flag, pos.opp_flag)
    fits = {w: supervised.fit(v, load_net(v.name), pos, targets, epochs=4, lr=3e-3, batch=64,
                              seed=1, hold_out=0.25, rank_weight=w)[1] for w in (0.0, 32.0)}
    start = fits[0.0][0]["decision_mp"]
    assert fits[0.0][0] == fits[32.0][0]  # the same held-out decisions
    best = {w: min(p["decision_mp"] for p in curve) for w, curve in fits.items()}
    assert best[32.0] < best[0.0] and best[32.0] < 0.85 * start


def test_a_deeper_judge_for_the_relative_term(tmp_path):
    """--rank-teacher-plies labels whole decisions with the judge one ply deeper and fits
    them alone, the cross-entropy on the teacher's figures, the relative term on the
    deeper ones; the labels are kept for the next run."""
    rank_file = tmp_path / "ranks.npz"
    args = ["--variant", "jacquet-be", "--games", "2", "--seed", "4", "--epochs", "1",
            "--per-turn", "4", "--teacher-plies", "0", "--groups", "--rank-weight", "4",
            "--rank-teacher-plies", "1", "--rank-rows", "60", "--rank-data", str(rank_file),
            "--out", str(tmp_path / "out"), "--quiet"]
    assert supervised.main(args) == 0
    sidecar = json.loads((tmp_path / "out" / "jacquet-be.json").read_text())
    with np.load(rank_file) as saved:
        rows, deep = saved["rows"], saved["targets"]
    assert 60 <= len(rows) < 70 and deep.shape == (len(rows), 5)
    assert sidecar["positions"] == len(rows) and sidecar["rank_teacher_plies"] == 1
    assert "decision_mp" in sidecar["fit"]
    v = find_variant("jacquet-be")
    pos = supervised.collect(v, 2, seed=4, per_turn=4, groups=True).take(rows)
    ev = NeuralEvaluator(v, load_net(v.name))
    np.testing.assert_allclose(deep, supervised.search_teacher(ev, 1)(pos), atol=1e-6)
    assert supervised.main(args) == 0  # reads the saved labels
    with pytest.raises(SystemExit, match="labels rows of"):  # labels of other positions
        supervised.main([*args[:3], "3", *args[4:]])  # three games, not two
    with pytest.raises(SystemExit, match="--groups"):  # no decisions to weigh
        supervised.main([a for a in args if a != "--groups"])


def test_fit_moves_the_network_towards_the_teacher():
    """Fitting the shipped network to another network's figures must close most of the gap."""
    v = find_variant("jacquet-be")
    pos = supervised.collect(v, 6, seed=3, per_turn=6)
    other = Net(features.n_inputs(), 12, seed=9, meta={"feature_version": features.FEATURE_VERSION})
    targets = NeuralEvaluator(v, other, use_bearoff=False).probs(
        pos.me, pos.opp, pos.me_flag, pos.opp_flag)
    net, curve = supervised.fit(v, load_net(v.name), pos, targets, epochs=6, lr=3e-3,
                                batch=64, seed=1, hold_out=0.2)
    assert curve[0]["epoch"] == 0 and len(curve) == 7
    assert net.meta["fit"]["equity_mae"] == min(p["equity_mae"] for p in curve)
    assert net.meta["fit"]["equity_mae"] < 0.5 * curve[0]["equity_mae"]


def test_distill_command_writes_a_loadable_network(tmp_path):
    data = tmp_path / "data.npz"
    args = ["--variant", "jacquet-be", "--games", "2", "--seed", "4", "--epochs", "1",
            "--per-turn", "3", "--data", str(data), "--out", str(tmp_path / "out"), "--quiet"]
    assert supervised.main(args) == 0
    net = Net.load(tmp_path / "out" / "jacquet-be.npz")
    NeuralEvaluator(find_variant("jacquet-be"), net)  # the shapes and feature version fit
    sidecar = json.loads((tmp_path / "out" / "jacquet-be.json").read_text())
    assert sidecar["command"].startswith("jacquetd distill --variant jacquet-be")
    assert sidecar["teacher"] == "neural-1" and sidecar["positions"] > 0
    # the recipe records itself: the shipped network's stages, then this command
    shipped = load_net("jacquet-be").meta
    assert sidecar["stages"] == [*supervised.earlier_stages(shipped), sidecar["command"]]
    assert len(sidecar["stages"]) >= 2
    pos, extra = supervised.Positions.load(data)
    assert extra["targets"].shape == (len(pos), 5)
    # a second run reads the labelled positions instead of collecting again
    assert supervised.main([*args[:-3], "--out", str(tmp_path / "again"), "--quiet"]) == 0
    again = json.loads((tmp_path / "again" / "jacquet-be.json").read_text())
    assert again["positions"] == sidecar["positions"]
    # --more-data fits the positions of several labelled files together
    assert supervised.main([*args[:-3], "--more-data", str(data), "--out",
                            str(tmp_path / "twice"), "--quiet"]) == 0
    twice = json.loads((tmp_path / "twice" / "jacquet-be.json").read_text())
    assert twice["stages"][-1] == twice["command"]
    assert twice["positions"] == 2 * sidecar["positions"]
    assert twice["data"] == ["data.npz", "data.npz"]


def test_gnubg_teacher_labels_as_gnubg_evaluates(tmp_path, monkeypatch):
    gnubg = pytest.importorskip("gnubg")
    tool = runpy.run_path(str(BENCH / "distill_gnubg.py"))
    v = find_variant("backgammon")
    pos = supervised.collect(v, 1, seed=1, per_turn=2).take(np.arange(4))
    got = tool["gnubg_labels"](pos, 0, 1)
    ec = gnubg.evalcontext(0, 0, 1, 0, 0)
    ci = gnubg.cubeinfo(1, -1, 0, 0, (0, 0), 0, 0)
    board = (list(map(int, pos.opp[2, 1:26])), list(map(int, pos.me[2, 1:26])))
    ref = gnubg.evaluate(board, ci, ec)
    np.testing.assert_allclose(got[2], ref[:5], atol=1e-6)
    assert equity(got[2:3])[0] == pytest.approx(ref[5], abs=1e-5)
    out = tmp_path / "out"
    monkeypatch.setattr(sys, "argv", ["distill_gnubg.py"])
    assert tool["main"](["--variant", "backgammon", "--games", "1", "--epochs", "1",
                         "--per-turn", "2", "--out", str(out), "--quiet"]) == 0
    assert json.loads((out / "backgammon.json").read_text())["teacher"] == "gnubg-0"


@pytest.mark.parametrize("variant, start, to", [("jacquet", 2, 3), ("backgammon", 2, 3),
                                                ("jacquet", 3, 4), ("backgammon", 2, 4)])
def test_widening_keeps_the_figures(variant, start, to):
    """A network widened to a later feature version rates every position as before."""
    v = find_variant(variant)
    old = Net(features.n_inputs(start), 10, seed=5, meta={"feature_version": start})
    wide = supervised.widen(old, to)
    assert wide.n_inputs == features.n_inputs(to) and wide.meta["feature_version"] == to
    pos = supervised.collect(v, 2, seed=6, per_turn=4)
    a = NeuralEvaluator(v, old, use_bearoff=False).probs(pos.me, pos.opp, pos.me_flag, pos.opp_flag)
    b = NeuralEvaluator(v, wide, use_bearoff=False).probs(pos.me, pos.opp, pos.me_flag,
                                                         pos.opp_flag)
    np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match=f"version-{to} network to version 2"):
        supervised.widen(wide, 2)


def test_no_network_widens_to_or_from_version_6():
    """Version 6 leaves versions 1-4's features out: widening cannot keep the figures."""
    for start in (4, 5):
        old = Net(features.n_inputs(start), 4, seed=1, meta={"feature_version": start})
        with pytest.raises(ValueError, match=f"version-{start} network to version 6"):
            supervised.widen(old, 6)
    six = Net(features.n_inputs(6), 4, seed=1, meta={"feature_version": 6})
    with pytest.raises(ValueError, match="version-6 network to version 5"):
        supervised.widen(six, 5)
    assert supervised.widen(six, 6).n_inputs == six.n_inputs


def test_a_fresh_network_reads_the_chosen_feature_version():
    v = find_variant("backgammon")
    for version in features.VERSIONS[1:]:
        net = supervised.starting_net(v, None, 8, seed=1, version=version)
        assert net.n_inputs == features.n_inputs(version)
        assert net.meta["feature_version"] == version


def test_earlier_stages_reads_the_recipe_or_the_one_command():
    assert supervised.earlier_stages({"stages": ["a", "b"], "command": "b"}) == ["a", "b"]
    assert supervised.earlier_stages({"command": "jacquetd train"}) == ["jacquetd train"]
    assert supervised.earlier_stages({}) == []
    assert supervised.earlier_stages({"stages": "not a list", "command": None}) == []


def _logit(p: np.ndarray) -> np.ndarray:
    return np.log(p) - np.log1p(-p)


def test_averaged_networks_output_the_mean_of_the_members_logits():
    from jacquetd.bots.net import average_nets

    rng = np.random.default_rng(3)
    members = [Net(12, h, seed=s) for s, h in ((1, 5), (2, 7), (3, 4))]
    for n in members:  # away from zero, so the logits differ
        n.b2 += rng.standard_normal(5).astype(np.float32)
    avg = average_nets(members, {"variant": "backgammon"})
    assert avg.n_hidden == 16 and avg.meta == {"variant": "backgammon"}
    x = rng.standard_normal((9, 12)).astype(np.float32)
    want = np.mean([_logit(n.forward(x).astype(np.float64)) for n in members], axis=0)
    np.testing.assert_allclose(_logit(avg.forward(x).astype(np.float64)), want, atol=2e-4)
    # one member is itself
    np.testing.assert_allclose(average_nets(members[:1]).forward(x), members[0].forward(x))
    with pytest.raises(ValueError, match="different inputs"):
        average_nets([members[0], Net(13, 4)])
    with pytest.raises(ValueError, match="no networks"):
        average_nets([])


def test_average_tool_writes_a_loadable_network_and_measures_it(tmp_path, capsys):
    tool = runpy.run_path(str(BENCH / "average_nets.py"))
    shipped = BENCH.parent / "jacquetd" / "bots" / "weights" / "jacquet-be.npz"
    data = tmp_path / "data.npz"
    assert supervised.main(["--variant", "jacquet-be", "--games", "1", "--seed", "2",
                            "--epochs", "1", "--per-turn", "2", "--data", str(data),
                            "--out", str(tmp_path / "one"), "--quiet"]) == 0
    other = tmp_path / "one" / "jacquet-be.npz"
    out = tmp_path / "avg" / "jacquet-be.npz"
    assert tool["main"]([str(shipped), str(other), "--out", str(out),
                         "--held-out", str(data)]) == 0
    net = Net.load(out)
    NeuralEvaluator(find_variant("jacquet-be"), net)  # the shapes and feature version fit
    assert net.n_hidden == 2 * load_net("jacquet-be").n_hidden
    sidecar = json.loads(out.with_suffix(".json").read_text())
    assert [m["file"] for m in sidecar["members"]] == ["jacquet-be.npz", "jacquet-be.npz"]
    assert sidecar["members"][1]["stages"][-1] == sidecar["members"][1]["command"]
    printed = capsys.readouterr().out
    assert "equity error against data.npz" in printed
    assert printed.count(" hidden units, equity ") == 3
    # members of different feature versions are refused, with the reason
    old = tmp_path / "old.npz"
    v3 = Net.load(other)
    v3.meta["feature_version"] = 3
    v3.save(old)
    assert tool["main"]([str(shipped), str(old), "--out", str(tmp_path / "bad.npz")]) == 2
    assert "feature version" in capsys.readouterr().err


@pytest.mark.parametrize("kind", ["crashed", "race"])
def test_a_crashed_or_race_network_is_fitted_on_the_positions_it_serves_only(tmp_path, kind):
    v = find_variant("backgammon")
    pos = supervised.collect(v, 40, seed=7, per_turn=8)
    me, opp = pos.me.astype(np.int16), pos.opp.astype(np.int16)
    contact = features.contact(v, me, opp)
    served = (contact & features.crashed(me, opp) if kind == "crashed"
              else ~contact & ~(all_home(me) & all_home(opp)))
    n_served = int(served.sum())
    assert 0 < n_served < len(pos)
    data = tmp_path / "data.npz"
    pos.save(data, targets=NeuralEvaluator(v, load_net(v.name)).probs(
        me, opp, pos.me_flag, pos.opp_flag))
    assert supervised.main(["--variant", "backgammon", "--games", "40", "--epochs", "1",
                            "--data", str(data), f"--{kind}", "--out", str(tmp_path / "out"),
                            "--quiet"]) == 0
    assert not (tmp_path / "out" / "backgammon.npz").exists()
    sidecar = json.loads((tmp_path / "out" / f"backgammon-{kind}.json").read_text())
    assert sidecar["kind"] == kind and sidecar["positions"] == n_served
    net = Net.load(tmp_path / "out" / f"backgammon-{kind}.npz")
    NeuralEvaluator(v, load_net(v.name), **{f"{kind}_net": net})  # the shapes and version fit


def test_crashed_and_race_together_are_refused(tmp_path):
    with pytest.raises(SystemExit, match="different networks"):
        supervised.main(["--variant", "backgammon", "--games", "1", "--epochs", "0",
                         "--crashed", "--race", "--out", str(tmp_path / "out"), "--quiet"])


def test_the_evaluator_sends_crashed_contact_positions_to_the_crashed_network():
    v = find_variant("backgammon")
    pos = supervised.collect(v, 40, seed=7, per_turn=8)
    me, opp = pos.me.astype(np.int16), pos.opp.astype(np.int16)
    contact = features.contact(v, me, opp)
    crashed = contact & features.crashed(me, opp)
    net = load_net(v.name)
    other = net.copy()
    other.b2 = other.b2 + np.float32(3.0)  # outputs that differ everywhere
    x = supervised.encode(v, pos, int(net.meta["feature_version"]))
    out = NeuralEvaluator(v, net, crashed_net=other).forward(x, me, opp)
    # (equal up to float32 rounding: a matrix product's sums depend on the batch)
    np.testing.assert_allclose(out[crashed], other.forward(x[crashed]), rtol=1e-4, atol=1e-6)
    assert not np.allclose(out[crashed], net.forward(x[crashed]), rtol=1e-3)
    np.testing.assert_allclose(out[~crashed], net.forward(x[~crashed]), rtol=1e-4, atol=1e-6)
    # without one, every row is the contact network's (no race network here)
    np.testing.assert_allclose(NeuralEvaluator(v, net).forward(x, me, opp), net.forward(x))


def test_heldout_benchmark_splits_the_error_by_class(tmp_path, capsys):
    tool = runpy.run_path(str(BENCH / "bench_heldout.py"))
    v = find_variant("backgammon")
    pos = supervised.collect(v, 40, seed=7, per_turn=8)
    me, opp = pos.me.astype(np.int16), pos.opp.astype(np.int16)
    shipped = load_net(v.name)
    data = tmp_path / "data.npz"
    x = supervised.encode(v, pos, int(shipped.meta["feature_version"]))
    pos.save(data, targets=supervised.tidy(v, shipped.forward(x), pos.me_flag, pos.opp_flag))
    off = shipped.copy()
    off.b2 = off.b2 + np.float32(1.0)
    off.save(tmp_path / "off.npz")
    assert tool["main"](["--data", str(data), "--crashed-weights",
                         str(tmp_path / "off.npz")]) == 0
    out = capsys.readouterr().out
    assert "shipped:" in out and "off.npz:" in out
    masks = tool["classes"]("backgammon", me, opp)
    assert f"{int(masks['crashed'].sum())} positions" in out
    # the contact network is the teacher here; the candidate errs on crashed boards only
    candidate = out.split("off.npz:")[1]
    crashed_line = next(ln for ln in candidate.splitlines() if ln.strip().startswith("crashed"))
    contact_line = next(ln for ln in candidate.splitlines() if ln.strip().startswith("contact"))
    assert "equity 0.0000" in contact_line and "equity 0.0000" not in crashed_line


def test_a_candidate_evaluator_keeps_the_shipped_networks_it_can_read(tmp_path):
    from jacquetd.bots.evaluator import candidate_evaluator, load_crashed_net, neural_evaluator

    shipped = neural_evaluator("backgammon")
    assert candidate_evaluator("backgammon") is shipped
    assert shipped.crashed_net is load_crashed_net("backgammon") is not None
    same = load_net("backgammon").copy()
    same.save(tmp_path / "same.npz")
    ev = candidate_evaluator("backgammon", str(tmp_path / "same.npz"))
    assert ev.crashed_net is shipped.crashed_net  # the same inputs: kept
    old = Net(features.n_inputs(3), 8, meta={"feature_version": 3})
    old.save(tmp_path / "old.npz")
    ev = candidate_evaluator("backgammon", str(tmp_path / "old.npz"))
    assert ev.crashed_net is None and ev.feature_version == 3  # cannot read them: left out
    ev = candidate_evaluator("backgammon", crashed_weights=str(tmp_path / "same.npz"))
    assert ev.net is load_net("backgammon") and ev.crashed_net is not shipped.crashed_net
