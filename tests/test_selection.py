"""The one candidate-selection loop (``hyperclust.selection``) shared by ``auto`` and
Uni-DHC, and ``auto``'s candidates as one table of registered methods."""

from __future__ import annotations

import numpy as np
import pytest

from hyperclust.cluster import AutoClusterer
import hyperclust.cluster.auto as auto
from hyperclust.cluster.base import HypergraphClusterer, check_hypergraph
from hyperclust.cluster.candidates import (CANDIDATE_TABLE, Candidate, make_candidate,
                                           register_candidate)
from hyperclust.cluster.registry import DESCRIPTIONS, METHODS, Method, register_method
from hyperclust.datasets.synthetic import hypergraph_sbm
from hyperclust.selection import fit_candidates, rank_candidates, select


def test_rank_known_answers():
    labels = {"one": np.zeros(8, int), "sliver": np.r_[np.zeros(7, int), 1],
              "even": np.repeat([0, 1], 4), "odd": np.tile([0, 1], 4)}
    scores = {"one": 0.0, "sliver": 0.1, "even": 0.5, "odd": 0.4}
    ranking = rank_candidates(labels, scores, 2)
    # one cluster last, a giant cluster plus a sliver before it, then by score
    assert ranking.order == ("odd", "even", "sliver", "one")
    assert ranking.selected == "odd" and ranking.wanted == 2
    assert ranking.n_found == {"one": 1, "sliver": 2, "even": 2, "odd": 2}
    assert ranking.degenerate["sliver"] and not ranking.degenerate["even"]
    assert ranking.note("one") == " (fewer clusters: ranked last)"
    assert ranking.note("sliver") == " (giant cluster plus slivers: ranked last)"
    assert ranking.note("odd") == ""
    # ties keep the order of the candidates
    tied = rank_candidates(labels, {"odd": 0.4, "even": 0.4}, 2)
    assert tied.order == ("odd", "even")
    assert rank_candidates(labels, {"even": 0.4, "odd": 0.4}, 2).order == ("even", "odd")
    # asked for more clusters than nodes: every labelling of all nodes apart is complete
    assert rank_candidates({"a": [0, 1], "b": [0, 0]}, {"a": 1.0, "b": 0.0}, 5).order == ("a", "b")


def test_fit_candidates_skips_and_scores_each_labelling_once():
    calls = []
    fits = {"a": [0, 1, 1], "b": None, "c": [1, 1, 0]}

    def score(name, y):
        calls.append(name)
        assert y.dtype == np.int64
        return float(y.sum())

    labels, scores = fit_candidates(fits, fits.get, score)
    assert list(labels) == ["a", "c"] and calls == ["a", "c"]
    assert scores == {"a": 2.0, "c": 2.0}
    ranking, labels2 = select(fits, fits.get, score, 2)
    assert ranking.selected == "a" and list(labels2) == ["a", "c"]


class _ByDegree(HypergraphClusterer):
    """Toy method for the test: k groups of nodes by increasing degree."""

    def __init__(self, n_clusters=2, *, random_state=0):
        self.n_clusters = n_clusters
        self.random_state = random_state

    def fit(self, hypergraph, y=None):
        hg = check_hypergraph(hypergraph)
        order = np.argsort(np.asarray(hg.weighted_degrees), kind="stable")
        self.labels_ = np.empty(hg.n_nodes, dtype=np.int64)
        self.labels_[order] = np.arange(hg.n_nodes) * self.n_clusters // hg.n_nodes
        self.embedding_ = np.asarray(hg.weighted_degrees, dtype=float)[:, None]
        return self


@pytest.fixture()
def degree_method():
    register_method("by-degree", Method(_ByDegree, "toy: k groups by node degree"))
    yield "by-degree"
    CANDIDATE_TABLE.pop("by-degree", None)
    del METHODS["by-degree"], DESCRIPTIONS["by-degree"]


def test_a_registered_method_becomes_an_auto_candidate_by_one_table(degree_method):
    hg = hypergraph_sbm(150, 3, homophily=0.8, n_features=6, random_state=0)
    assert degree_method not in auto.CANDIDATES
    with pytest.raises(ValueError, match="unknown or no candidates"):
        AutoClusterer(3, candidates=(degree_method,)).fit(hg)
    register_candidate(degree_method, Candidate())
    assert auto.CANDIDATES[-1] == auto.STRUCTURE_CANDIDATES[-1] == degree_method
    est = AutoClusterer(3, random_state=0).fit(hg)
    assert degree_method in est.scores_ and degree_method in est.candidates_
    np.testing.assert_array_equal(
        est.candidates_[degree_method], _ByDegree(3).fit(est.split_.train).labels_)
    only = AutoClusterer(3, candidates=(degree_method,), random_state=0).fit(hg)
    assert only.selected_ == degree_method
    np.testing.assert_array_equal(only.labels_, _ByDegree(3).fit(hg).labels_)
    with pytest.raises(ValueError, match="not a registered method"):
        register_candidate("no-such-method", Candidate())
    with pytest.raises(ValueError, match="already registered"):
        register_candidate(degree_method, Candidate())


def test_candidates_are_registered_methods_made_as_before():
    settings = {"beta": 0.3, "n_neighbors": 7, "knn_method": "exact"}
    for name in CANDIDATE_TABLE:
        assert name in METHODS
    est, c = make_candidate("ahcka", 4, 2, settings)
    assert (est.n_clusters, est.beta, est.n_neighbors, est.knn_method, est.random_state) == \
        (4, 0.3, 7, "exact", 2) and c.walk == "plain" and c.walk_without_features
    est, c = make_candidate("spectral-zhou-mixed", 4, 2, settings)
    assert (est.operator, est.knn_beta, est.knn_neighbors) == ("zhou", 0.3, 7)
    est, c = make_candidate("spectral-zhou", 4, 2, settings)
    assert (est.operator, est.knn_beta) == ("zhou", 0.0) and c.walk is None
    est, c = make_candidate("spectral-signed", 4, 2, settings)
    assert (est.n_neighbors, est.knn_method, c.walk) == (7, "exact", "affinity")
    assert auto.CANDIDATES == ("ahcka", "hgnn-mixed", "spectral-zhou-mixed", "hgnn", "spectral-zhou",
                          "spectral-clique", "kmeans", "hsbm")
    assert auto.STRUCTURE_CANDIDATES == ("ahcka", "hgnn", "spectral-zhou", "spectral-clique", "hsbm")
    with pytest.raises(ValueError, match="walk must be"):
        Candidate("random")
    with pytest.raises(ValueError, match="settings can pass"):
        Candidate(settings={"alpha": "alpha"})


def test_the_mixed_methods_on_their_own_build_the_walk_auto_shares():
    """``hgnn-mixed`` run alone builds the kNN walk ``auto`` hands it: same labels."""
    from hyperclust.cluster.registry import make_estimator
    from hyperclust.operators.knn import MixedWalk, knn_affinity

    hg = hypergraph_sbm(200, 3, homophily=0.5, n_features=8, random_state=1)
    A = knn_affinity(hg.features, 10, random_state=0)
    for name, walk in (("hgnn-mixed", MixedWalk(hg, A, beta=0.5, self_loops=1.0)),
                       ("spectral-zhou-mixed", MixedWalk(hg, A, beta=0.5))):
        alone = make_estimator(name, 3, random_state=0).fit(hg).labels_
        shared = make_estimator(name, 3, random_state=0).fit(hg, walk=walk).labels_
        np.testing.assert_array_equal(alone, shared)
