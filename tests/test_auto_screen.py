"""``auto``'s kNN screen: the coarse search, and the accurate one only when a graph-fitted
candidate can win."""

from __future__ import annotations

import numpy as np
import pytest

import hyperclust.cluster.auto.screen as screen
from hyperclust.cluster.auto import holdout_splits
from hyperclust.cluster.auto._fitting import Settings
from hyperclust.cluster import AutoClusterer
from hyperclust.datasets.synthetic import hypergraph_sbm
from hyperclust.operators.knn import (ann_available, coarse_cosine_neighbors,
                                      exact_cosine_neighbors, searches_approximately)

needs_faiss = pytest.mark.skipif(not ann_available(), reason="faiss-cpu not installed")
GRAPH = ("ahcka", "hgnn-mixed", "spectral-zhou-mixed")
FEW = ("ahcka", "hgnn-mixed", "hgnn", "spectral-zhou")  # two graph-fitted, two not


@pytest.fixture(scope="module")
def edges_lead():
    """Informative hyperedges, attributes of noise: a structural candidate leads by far."""
    return hypergraph_sbm(400, 3, homophily=0.9, n_features=8, feature_snr=0.0,
                          random_state=0)


def test_screened_in_keeps_the_leader_and_those_within_the_margin():
    gaps = {"a": (0.0, 0.0), "b": (0.03, 0.01), "c": (0.01, 0.01), "d": (0.5, np.inf)}
    assert screen.screened_in(gaps, "a", 1.5) == ("a", "c", "d")  # inf: no paired test
    assert screen.screened_in(gaps, "x", 1.5, slack=0.02) == ("a", "b", "c", "d")
    assert screen.screened_in({"b": (0.03, 0.01)}, "x", 1.5) == ()


def test_the_approximate_path_is_told_by_size_dimension_and_method():
    small = np.random.default_rng(0).normal(size=(200, 8))
    assert not searches_approximately(small)
    assert not searches_approximately(small, "exact")
    assert searches_approximately(small, "approximate") == ann_available()


@needs_faiss
def test_scanning_every_list_the_coarse_search_is_the_exact_one():
    X = np.random.default_rng(1).normal(size=(900, 6))
    idx, sim = coarse_cosine_neighbors(X, 5, n_probe=10 ** 6, random_state=3)
    ex_idx, ex_sim = exact_cosine_neighbors(X, 5, tie_break="random", random_state=3)
    np.testing.assert_array_equal(idx, ex_idx)
    np.testing.assert_allclose(sim, ex_sim, rtol=0, atol=1e-12)


@needs_faiss
def test_the_coarse_search_is_deterministic_and_thread_independent():
    import faiss

    X = np.random.default_rng(2).normal(size=(2000, 16))
    threads = faiss.omp_get_max_threads()
    try:
        faiss.omp_set_num_threads(1)
        one = coarse_cosine_neighbors(X, 10, n_probe=1, random_state=0)
        faiss.omp_set_num_threads(2)
        two = coarse_cosine_neighbors(X, 10, n_probe=1, random_state=0)
    finally:
        faiss.omp_set_num_threads(threads)
    np.testing.assert_array_equal(one[0], two[0])
    np.testing.assert_array_equal(one[1], two[1])
    exact = exact_cosine_neighbors(X, 10)[0]
    recall = np.mean([np.intersect1d(a, b).size / 10 for a, b in zip(one[0], exact)])
    assert 0.05 < recall < 1.0  # a coarse graph, not the exact one


def test_below_the_crossover_the_screen_changes_nothing(edges_lead):
    on = AutoClusterer(3, candidates=FEW, random_state=0).fit(edges_lead)
    off = AutoClusterer(3, candidates=FEW, knn_screen=False, random_state=0).fit(edges_lead)
    assert on.knn_screen_ is None and on.accurate_knn_ is None
    np.testing.assert_array_equal(on.labels_, off.labels_)
    assert on.scores_ == off.scores_ and "knn-screen" not in on.fit_times_


@needs_faiss
def test_far_behind_on_the_coarse_graph_the_accurate_search_never_runs(edges_lead,
                                                                       monkeypatch):
    import hyperclust.cluster.auto._fitting as auto

    searches = []
    monkeypatch.setattr(auto, "knn_affinity", lambda *a, **kw: searches.append(1))
    monkeypatch.setattr(screen, "SCREEN_MARGIN", 1.0)  # 400 nodes: SEs of ~.026
    monkeypatch.setattr(screen, "SCREEN_SLACK", 0.0)
    est = AutoClusterer(3, knn_method="approximate", race_margin=None,
                        random_state=0).fit(edges_lead)
    assert est.accurate_knn_ is False and set(est.knn_screen_) == set(GRAPH)
    assert all(gap > se for gap, se in est.knn_screen_.values())
    assert not searches  # neither in a split nor in the refit
    assert {"knn-screen", "ahcka-screen"} <= set(est.fit_times_)
    # they leave the race even with no race margin, so no later split searches the graph
    assert all(not set(GRAPH) & set(f) for f in est.split_fits_[1:])
    assert est.selected_ not in GRAPH and "did not run" in est.selection_reason_


@needs_faiss
def test_close_on_the_coarse_graph_the_fit_is_the_unscreened_one(edges_lead, monkeypatch):
    monkeypatch.setattr(screen, "SCREEN_MARGIN", 1e9)  # every graph candidate is close
    kw = dict(candidates=FEW, knn_method="approximate", random_state=0)
    on = AutoClusterer(3, **kw).fit(edges_lead)
    off = AutoClusterer(3, knn_screen=False, **kw).fit(edges_lead)
    assert on.accurate_knn_ is True and off.knn_screen_ is None
    np.testing.assert_array_equal(on.labels_, off.labels_)
    assert on.scores_ == off.scores_ and on.split_fits_ == off.split_fits_
    for c in on.candidates_:
        np.testing.assert_array_equal(on.candidates_[c], off.candidates_[c])
    assert "knn" in on.fit_times_ and "ahcka-screen" in on.fit_times_


@needs_faiss
def test_the_screen_caps_the_iterations_of_the_graph_fitted_fits(edges_lead):
    est = AutoClusterer(3, candidates=FEW, random_state=0)
    split = holdout_splits(edges_lead, "heldout", 0.1, 1, 0)[0]
    s = Settings(3, 0, 0.5, 10, "auto", "precision", 0.2, 3, "min", False,
                 est.split_n_init, est.split_max_iter, est.split_tol)
    fits = screen.coarse_fit(s, split.train, split, FEW)
    assert list(fits.labels) == list(FEW)
    assert fits.fitted["ahcka"].max_iter == screen.SCREEN_MAX_ITER < est.split_max_iter
    assert {"knn-screen", "ahcka-screen", "hgnn-mixed-screen", "hgnn"} <= set(s.times)
    assert "ahcka" not in s.times
