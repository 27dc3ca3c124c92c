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


def test_fit_candidates_skips_and_select_scores_each_labelling_once():
    calls = []
    fits = {"a": [0, 1, 1], "b": None, "c": [1, 1, 0]}

    def score(name, y):
        calls.append(name)
        assert y.dtype == np.int64
        return float(y.sum())

    labels = fit_candidates(fits, fits.get)
    assert list(labels) == ["a", "c"] and not calls
    ranking, labels2 = select(fits, fits.get, score, 2)
    assert calls == ["a", "c"] and ranking.scores == {"a": 2.0, "c": 2.0}
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


def _mann_whitney(pos, neg):
    """Dense reference: the share of (positive, negative) pairs the positive wins."""
    diff = np.asarray(pos)[:, None] - np.asarray(neg)[None, :]
    return float(np.mean((diff > 0) + 0.5 * (diff == 0)))


def test_heldout_terms_average_to_the_aucs_of_a_dense_reference():
    from hyperclust.cluster.hsbm_heldout import (_edge_scores, _placements, heldout_aucs,
                                                 heldout_terms, split_hypergraph)
    from hyperclust.cluster.hsbm_likelihood import block_rates, one_hot

    rng = np.random.default_rng(0)
    pos, neg = rng.integers(0, 5, 40).astype(float), rng.integers(0, 5, 70).astype(float)
    assert _placements(pos, neg).mean() == pytest.approx(_mann_whitney(pos, neg))  # ties
    hg = hypergraph_sbm(500, 3, homophily=0.7, n_features=10, random_state=2)
    s = split_hypergraph(hg, random_state=1)
    y = np.asarray(hg.labels)
    terms = heldout_terms(s, y)
    omega = np.exp(block_rates(s.expansion @ one_hot(y, 3), one_hot(y, 3), s.expansion.degrees))
    edge_auc = _mann_whitney(_edge_scores(s.heldout, y, 3, omega),
                             _edge_scores(s.fakes, y, 3, omega))
    assert 1 - terms["edges"].mean() == pytest.approx(edge_auc)
    assert heldout_aucs(s, y)["edges"] == pytest.approx(edge_auc)
    assert terms["attributes"].shape == s.rows.shape


def test_precision_weights_known_answer_and_properties():
    from hyperclust.cluster.hsbm_heldout import (heldout_error, heldout_errors, heldout_terms,
                                                 split_hypergraph)

    hg = hypergraph_sbm(600, 3, homophily=0.7, n_features=10, random_state=4)
    s = split_hypergraph(hg, random_state=0)
    y = np.asarray(hg.labels)
    labels = {"truth": y, "merged": np.minimum(y, 1),
              "shuffled": np.random.default_rng(0).permutation(y)}
    got = heldout_errors(s, labels, "precision")
    terms = {c: heldout_terms(s, v) for c, v in labels.items()}
    w = {v: 1.0 / np.mean([t[v].var() / t[v].size for t in terms.values()])
         for v in ("edges", "attributes")}
    for c, t in terms.items():
        by_hand = sum(w[v] * t[v].mean() for v in w) / sum(w.values())
        assert got[c] == pytest.approx(by_hand)
    assert got["truth"] < got["shuffled"] - 0.05 and got["merged"] < got["shuffled"]
    assert heldout_errors(s, labels) == {c: heldout_error(s, v) for c, v in labels.items()}
    # one view only (no attributes): both weightings are that view's error
    plain = hypergraph_sbm(400, 2, homophily=0.8, n_features=0, random_state=0)
    s1 = split_hypergraph(plain, random_state=0)
    one = {"a": plain.labels, "b": np.random.default_rng(1).permutation(plain.labels)}
    assert heldout_errors(s1, one, "precision") == pytest.approx(heldout_errors(s1, one))
    with pytest.raises(ValueError, match="weighting"):
        heldout_errors(s1, one, "equal")


def test_paired_standard_errors_known_answer():
    from hyperclust.cluster.hsbm_heldout import (heldout_errors, heldout_terms,
                                                 paired_standard_errors, split_hypergraph)

    hg = hypergraph_sbm(600, 3, homophily=0.7, n_features=10, random_state=4)
    s = split_hypergraph(hg, random_state=0)
    y = np.asarray(hg.labels)
    labels = {"truth": y, "merged": np.minimum(y, 1), "same": y.copy(),
              "shuffled": np.random.default_rng(0).permutation(y)}
    terms = {c: heldout_terms(s, v) for c, v in labels.items()}
    for weighting in ("coverage", "precision"):
        got = paired_standard_errors(s, labels, "truth", weighting)
        if weighting == "coverage":
            w = {"edges": s.edge_coverage, "attributes": s.attribute_coverage}
        else:
            w = {v: 1.0 / np.mean([t[v].var() / t[v].size for t in terms.values()])
                 for v in ("edges", "attributes")}
        total = sum(w.values())
        for c, t in terms.items():
            by_hand = np.sqrt(sum((w[v] / total) ** 2 * np.var(t[v] - terms["truth"][v])
                                  / t[v].size for v in w))
            assert got[c] == pytest.approx(by_hand)
        assert got["truth"] == got["same"] == 0.0 and got["shuffled"] > 0
        errors = heldout_errors(s, labels, weighting)
        assert errors["shuffled"] - errors["truth"] > 3 * got["shuffled"]
    # a partition judged by fewer views than the reference cannot be paired with it
    one = {"truth": y, "one cluster": np.zeros_like(y)}
    assert paired_standard_errors(s, one, "truth")["one cluster"] == float("inf")
    with pytest.raises(ValueError, match="weighting"):
        paired_standard_errors(s, one, "truth", "equal")


def test_heldout_terms_memo_is_filled_and_used():
    from hyperclust.cluster.hsbm_heldout import (heldout_errors, heldout_terms,
                                                 paired_standard_errors, split_hypergraph)

    hg = hypergraph_sbm(600, 3, homophily=0.7, n_features=10, random_state=4)
    s = split_hypergraph(hg, random_state=0)
    y = np.asarray(hg.labels)
    shuffled = np.random.default_rng(0).permutation(y)
    labels = {"truth": y, "merged": np.minimum(y, 1), "shuffled": shuffled}
    for weighting in ("coverage", "precision"):
        memo = {}
        assert heldout_errors(s, labels, weighting, memo) == heldout_errors(s, labels, weighting)
        assert set(memo) == set(labels)
        np.testing.assert_array_equal(memo["merged"]["edges"],
                                      heldout_terms(s, labels["merged"])["edges"])
        assert (paired_standard_errors(s, labels, "truth", weighting, memo)
                == paired_standard_errors(s, labels, "truth", weighting))
    # a memo entry is taken as the key's terms, not recomputed from its labels
    memo = {"truth": heldout_terms(s, shuffled)}
    swapped = heldout_errors(s, {"truth": y, "shuffled": shuffled}, "coverage", memo)
    assert swapped["truth"] == swapped["shuffled"]
