"""``auto``'s race with split-to-split variance, and its cheaper fits on the hold-out splits."""

from __future__ import annotations

import numpy as np
import pytest

from hyperclust.cluster import AutoClusterer, HypergraphSBM
from hyperclust.cluster.auto import SPLIT_MAX_ITER, SPLIT_N_INIT
from hyperclust.datasets.synthetic import hypergraph_sbm
from hyperclust.metrics import acc
from hyperclust.selection.race import race_survivors

# Three candidates on three splits: "b" is far behind "a" on the first split by the paired
# standard errors (items), but the splits disagree; "c" is behind on every split.
ERRORS = [{"a": 0.20, "b": 0.32, "c": 0.40},
          {"a": 0.30, "b": 0.22, "c": 0.50},
          {"a": 0.25, "b": 0.30, "c": 0.45}]
PAIRED = [{"a": 0.0, "b": 0.01, "c": 0.01}] * 3


def test_items_drop_on_the_first_split_what_the_splits_keep():
    # one split: b is 12 paired SEs behind, so the items rule drops it ...
    assert race_survivors(ERRORS[:1], PAIRED[:1], "a", 2.0, "items") == ("a",)
    # ... while the split rule cannot judge a spread from one split and keeps everyone
    assert race_survivors(ERRORS[:1], PAIRED[:1], "a", 2.0, "splits") == ("a", "b", "c")


def test_the_split_spread_keeps_a_candidate_the_splits_disagree_on():
    # two splits: b's differences +.12, -.08 (mean .02); items SE sqrt(2 * .01^2) / 2 = .0071
    assert race_survivors(ERRORS[:2], PAIRED[:2], "a", 2.0, "items") == ("a",)
    # spread: var(+.12, -.08, ddof 1) / 2 = .01, SE ~.1, so b (.02 behind) stays; c's
    # differences +.20, +.20 have no spread, so c (.20 behind, SE .0071) goes
    assert race_survivors(ERRORS[:2], PAIRED[:2], "a", 2.0, "splits") == ("a", "b")


def test_the_split_rule_by_hand_on_three_splits():
    d = np.array([e["b"] - e["a"] for e in ERRORS])  # .12, -.08, .05
    se = np.sqrt(3 * 0.01 ** 2 / 9 + d.var(ddof=1) / 3)
    z = d.mean() / se  # b's distance behind a in standard errors
    assert race_survivors(ERRORS, PAIRED, "a", z * 1.01, "splits") == ("a", "b")
    assert race_survivors(ERRORS, PAIRED, "a", z * 0.99, "splits") == ("a",)
    with pytest.raises(ValueError, match="se must be one of"):
        race_survivors(ERRORS, PAIRED, "a", 2.0, "variance")


@pytest.fixture(scope="module")
def planted():
    return hypergraph_sbm(400, 3, homophily=0.8, feature_snr=0.3, random_state=3)


def test_the_split_rule_runs_the_race_on_the_second_split(planted):
    names = ("kmeans", "hgnn", "spectral-zhou", "spectral-clique")
    est = AutoClusterer(3, candidates=names, race=3, race_margin=0.0, race_se="splits",
                        random_state=0).fit(planted)
    # margin 0 would stop after one split with "items"; "splits" needs a second split
    assert len(est.split_fits_) >= 2 and len(est.split_fits_[1]) == 3
    items = AutoClusterer(3, candidates=names, race=3, race_margin=0.0,
                          random_state=0).fit(planted)
    assert items.n_splits_ == 1
    alone = AutoClusterer(3, candidates=names, race=1, race_se="splits",
                          random_state=0).fit(planted)
    assert alone.n_splits_ == 1 and "outside the race of the 1 best" in alone.selection_reason_
    with pytest.raises(ValueError, match="race_se"):
        AutoClusterer(3, race_se="both").fit(planted)


def test_cheaper_split_fits_keep_the_pick_and_refit_with_the_full_count(planted):
    assert AutoClusterer().split_n_init == SPLIT_N_INIT == 5
    for seed in range(5):
        full = AutoClusterer(3, split_n_init=None, random_state=seed).fit(planted)
        cheap = AutoClusterer(3, random_state=seed).fit(planted)  # 5 restarts on splits
        assert cheap.selected_ == full.selected_
        np.testing.assert_array_equal(cheap.labels_, full.labels_)
        assert acc(planted.labels, cheap.labels_) > 0.9
    # the pick's refit is the candidate's own estimator, with its own restarts
    est = AutoClusterer(3, candidates=("hgnn", "kmeans"), split_n_init=1,
                        random_state=0).fit(planted)
    assert est.best_estimator_.get_params()["n_init"] == 10


def test_the_split_fits_run_split_n_init_restarts_and_the_refit_its_own(planted, monkeypatch):
    from hyperclust.cluster import HGNNSmoothingKMeans

    seen, fit = [], HGNNSmoothingKMeans.fit
    monkeypatch.setattr(HGNNSmoothingKMeans, "fit",
                        lambda self, *a, **kw: seen.append(self.n_init) or fit(self, *a, **kw))
    est = AutoClusterer(3, candidates=("hgnn", "kmeans"), n_splits=2, race_margin=None,
                        split_n_init=2, random_state=0).fit(planted)
    refit = [10] if est.selected_ == "hgnn" else []
    assert seen == [2, 2] + refit  # hgnn on both splits, then the refit if it is the pick


def test_hsbm_start_restarts(planted):
    one = HypergraphSBM(3, n_init=1, random_state=0).fit(planted)
    assert acc(planted.labels, one.labels_) > 0.9
    assert HypergraphSBM(3).get_params()["n_init"] == 10
    with pytest.raises(ValueError, match="n_init"):
        HypergraphSBM(3, n_init=0).fit(planted)


def test_the_split_fits_cap_ahckas_iterations_and_the_refit_runs_its_own(planted, monkeypatch):
    from hyperclust.cluster import AHCKA

    assert AutoClusterer().split_max_iter == SPLIT_MAX_ITER == 100
    seen, fit = [], AHCKA.fit
    monkeypatch.setattr(AHCKA, "fit",
                        lambda self, *a, **kw: seen.append(self.max_iter) or fit(self, *a, **kw))
    for cap, split_caps in ((7, [7, 7]), (None, [200, 200])):
        seen.clear()
        est = AutoClusterer(3, candidates=("ahcka", "hgnn"), n_splits=2, race_margin=None,
                            split_max_iter=cap, random_state=0).fit(planted)
        refit = [200] if est.selected_ == "ahcka" else []
        assert seen == split_caps + refit  # ahcka on both splits, then the refit if picked
    with pytest.raises(ValueError, match="split_max_iter"):
        AutoClusterer(3, split_max_iter=0).fit(planted)


def test_no_knn_search_where_nothing_walks_on_it(planted, monkeypatch):
    import hyperclust.cluster.auto._fitting as auto

    searches, search = [], auto.knn_affinity
    monkeypatch.setattr(auto, "knn_affinity",
                        lambda *a, **kw: searches.append(1) or search(*a, **kw))
    est = AutoClusterer(3, candidates=("hgnn", "kmeans"), n_splits=2, race_margin=None,
                        random_state=0).fit(planted)
    assert searches == [] and est.walk_.shape == (planted.n_nodes,) * 2
    # ahcka walks on it in the split fits; the refit searches again only for a pick that does
    est = AutoClusterer(3, candidates=("ahcka", "kmeans"), n_splits=2, race_margin=None,
                        random_state=0).fit(planted)
    assert len(searches) == 2 + (est.selected_ == "ahcka")
    searches.clear()  # the random-walk score walks on it, whatever the candidates
    AutoClusterer(3, candidates=("hgnn", "kmeans"), selection="rwr", random_state=0).fit(planted)
    assert searches == [1]


def test_the_split_fits_solve_the_structural_input_loosely_and_the_refit_strictly(monkeypatch):
    from hyperclust.cluster.auto import SPLIT_TOL
    from hyperclust.operators import subspace

    # structure only and above the dense eigensolver's 1,500 nodes: the block solver runs
    hg = hypergraph_sbm(1600, 3, homophily=0.8, n_features=0, random_state=0)
    seen, solve = [], subspace.subspace_eigenpairs
    monkeypatch.setattr(subspace, "subspace_eigenpairs", lambda *a, **kw:
                        seen.append(subspace.stop_tolerance()) or solve(*a, **kw))
    assert AutoClusterer().split_tol == SPLIT_TOL == 1e-3
    for split_tol, on_splits in ((1e-2, [1e-2, 1e-2]), (None, [1e-8] * 2)):
        seen.clear()
        est = AutoClusterer(3, candidates=("hgnn", "spectral-zhou"), n_splits=2,
                            race_margin=None, split_tol=split_tol, random_state=0).fit(hg)
        refit = [1e-8] if est.selected_ == "hgnn" else []  # spectral-zhou: Lanczos
        assert seen == on_splits + refit
    with pytest.raises(ValueError, match="split_tol"):
        AutoClusterer(3, split_tol=0.0).fit(hg)


def test_the_structural_memo_keeps_one_solve_per_tolerance(monkeypatch):
    from hyperclust.cluster import baselines
    from hyperclust.operators import eigensolvers, subspace

    hg = hypergraph_sbm(300, 2, homophily=0.9, n_features=0, random_state=0)
    calls, solve = [], eigensolvers.structural_features
    monkeypatch.setattr(eigensolvers, "structural_features",
                        lambda *a: calls.append(subspace.stop_tolerance()) or solve(*a))
    with baselines.shared_reductions():
        first = baselines.node_input(hg, "structural", 0, 4)[0]
        with subspace.ranking_tolerance(1e-3):
            baselines.node_input(hg, "structural", 0, 4)
            baselines.node_input(hg, "structural", 0, 4)
        again = baselines.node_input(hg, "structural", 0, 4)[0]
    assert calls == [1e-8, 1e-3]
    np.testing.assert_array_equal(first, again)


def test_an_indifference_zone_ends_the_race_and_zero_keeps_it_off():
    # "b" the same partition as "a" (no paired SE, no difference): without a zone it stays
    errors, paired = [{"a": 0.3, "b": 0.3, "c": 0.305}], [{"a": 0.0, "b": 0.0, "c": 0.004}]
    assert race_survivors(errors, paired, "a", 2.0) == ("a", "b", "c")
    # "c" could be .008 - .005 = .003 ahead at most: inside a zone of .004, not of .002 ...
    assert race_survivors(errors, paired, "a", 2.0, indifference=0.004) == ("a",)
    assert race_survivors(errors, paired, "a", 2.0, indifference=0.002) == ("a", "b", "c")
    # ... a candidate with an infinite SE (judged by other views) never is
    far = [{"a": 0.0, "b": 0.0, "c": float("inf")}]
    assert race_survivors(errors, far, "a", 2.0, indifference=0.1) == ("a", "b", "c")


def test_auto_stops_its_race_inside_the_zone(planted):
    from hyperclust.cluster.auto import RACE_INDIFFERENCE

    assert AutoClusterer().race_indifference == RACE_INDIFFERENCE == 1e-3
    wide = AutoClusterer(3, race_indifference=0.5, random_state=0).fit(planted)
    assert wide.n_splits_ == 1 and "could beat it by less than 0.5" in wide.selection_reason_
    off = AutoClusterer(3, race_margin=100.0, race_indifference=0.0, random_state=0).fit(planted)
    assert off.n_splits_ == 3 and len(off.split_fits_[1]) == 4  # the race of 4, every split
    with pytest.raises(ValueError, match="race_indifference"):
        AutoClusterer(3, race_indifference=-1.0).fit(planted)
