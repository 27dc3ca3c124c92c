"""Fits on the cache-friendly numbering (hyperclust.cluster.node_order): the same clustering
as the given numbering, every per-node output in the given order, the user's ids kept, and
nothing renumbered below the threshold, with a prebuilt walk, or where the estimator says
it does not pay."""

from __future__ import annotations

import numpy as np
import pytest

from hyperclust import Hypergraph
from hyperclust.cluster import node_order
from hyperclust.cluster.base import HypergraphClusterer, check_hypergraph
from hyperclust.cluster.registry import make_estimator
from hyperclust.datasets.synthetic import hypergraph_sbm
from hyperclust.metrics import ari
from hyperclust.selection.objectives import rwr_conductance

REORDERED_METHODS = ("ahcka", "hgnn", "unidhc")


def planted(seed, n=300):
    """Three well separated classes with informative features, node ids shuffled."""
    return hypergraph_sbm(n, 3, homophily=0.95, n_edges=3 * n, n_features=8,
                          feature_snr=4.0, random_state=seed)


def estimator(method, seed):
    # hgnn and Uni-DHC renumber on their structural input only (a test below)
    if method == "unidhc":  # a smaller network: the test is about the numbering
        from hyperclust.cluster import UniDHC

        return UniDHC(3, input="structural", hidden_dim=32, epochs=5, random_state=seed)
    if method == "hgnn":
        from hyperclust.cluster import HGNNSmoothingKMeans

        return HGNNSmoothingKMeans(3, input="structural", random_state=seed)
    return make_estimator(method, 3, random_state=seed)


def fit(method, hg, seed, reorder, monkeypatch):
    from hyperclust.cluster import AHCKA

    monkeypatch.setattr(node_order, "MIN_INCIDENCES", 0 if reorder else 10**12)
    monkeypatch.setattr(AHCKA, "_cache_order_pays",
                        node_order.pays_from_incidences(0 if reorder else 10**12))
    return estimator(method, seed).fit(hg)


class Degrees(HypergraphClusterer):
    """Per-node outputs that depend on the numbering only through the node: labels by
    degree, embedding the degree and the first feature, a dict and a list of arrays."""

    _node_outputs = ("labels_", "embedding_", "by_name_", "listed_")

    def __init__(self, n_clusters=2, random_state=0):
        self.n_clusters = n_clusters
        self.random_state = random_state

    def fit(self, hypergraph, y=None):
        hg = check_hypergraph(hypergraph)
        self.seen_features_ = hg.features[:, 0].copy()
        deg = np.asarray(hg.incidence.sum(axis=1), dtype=np.float64).ravel()
        self.labels_ = (deg > np.median(deg)).astype(np.int64)
        self.embedding_ = np.column_stack([deg, hg.features[:, 0]])
        self.by_name_ = {"degree": deg}
        self.listed_ = [deg, 2 * deg]
        return self


@pytest.mark.parametrize("method", REORDERED_METHODS)
def test_reordered_fit_is_the_same_clustering_on_planted_inputs(method, monkeypatch):
    for seed in range(5):
        hg = planted(seed)
        given = fit(method, hg, seed, False, monkeypatch)
        renumbered = fit(method, hg, seed, True, monkeypatch)
        assert ari(renumbered.labels_, given.labels_) == pytest.approx(1.0), seed
        assert ari(renumbered.labels_, hg.labels) == pytest.approx(1.0), seed
        assert renumbered.embedding_.shape == given.embedding_.shape


def test_the_fit_sees_another_numbering_and_outputs_come_back_in_the_given_one(monkeypatch):
    hg = planted(0)
    monkeypatch.setattr(node_order, "MIN_INCIDENCES", 10**12)
    given = Degrees().fit(hg)
    monkeypatch.setattr(node_order, "MIN_INCIDENCES", 0)
    renumbered = Degrees().fit(hg)
    np.testing.assert_array_equal(given.seen_features_, hg.features[:, 0])
    assert not np.array_equal(renumbered.seen_features_, hg.features[:, 0])
    np.testing.assert_array_equal(np.sort(renumbered.seen_features_), np.sort(hg.features[:, 0]))
    for name in ("labels_", "embedding_"):
        np.testing.assert_array_equal(getattr(renumbered, name), getattr(given, name))
    np.testing.assert_array_equal(renumbered.by_name_["degree"], given.by_name_["degree"])
    np.testing.assert_array_equal(renumbered.listed_[1], given.listed_[1])
    assert isinstance(renumbered.listed_, list)


def test_hgnn_embedding_is_put_back_row_by_row(monkeypatch):
    # smoothed features (float32): the same rows whatever the numbering, up to summation order
    hg = planted(1)
    E = [fit("hgnn", hg, 1, reorder, monkeypatch).embedding_ for reorder in (False, True)]
    np.testing.assert_allclose(E[1], E[0], rtol=1e-5, atol=1e-6)


def test_ahcka_walk_is_the_given_hypergraphs(monkeypatch):
    hg = planted(2)
    given = fit("ahcka", hg, 2, False, monkeypatch)
    renumbered = fit("ahcka", hg, 2, True, monkeypatch)
    X = np.random.default_rng(0).standard_normal((hg.n_nodes, 3))
    np.testing.assert_allclose(renumbered.walk_ @ X, given.walk_ @ X, atol=1e-12)
    assert renumbered.walk_.hypergraph is hg
    assert renumbered.objective_ == pytest.approx(
        rwr_conductance(hg, renumbered.labels_, walk=renumbered.walk_))


def test_user_node_ids_are_kept(monkeypatch):
    base = planted(3)
    names = [f"user-{i}" for i in range(base.n_nodes)]
    hg = Hypergraph.from_edges([names_of(e, names) for e in base.edges()],
                               features=base.features, labels=base.labels, node_ids=names)
    est = fit("hgnn", hg, 3, True, monkeypatch)
    np.testing.assert_array_equal(est.node_ids_, hg.node_ids)
    assert ari(est.labels_, hg.labels) == pytest.approx(1.0)


def names_of(edge, names):
    return [names[i] for i in edge]


def test_small_inputs_and_prebuilt_walks_keep_the_given_numbering(monkeypatch):
    hg = planted(4)
    monkeypatch.setattr(node_order, "MIN_INCIDENCES", hg.incidence.nnz + 1)
    np.testing.assert_array_equal(Degrees().fit(hg).seen_features_, hg.features[:, 0])
    monkeypatch.setattr(node_order, "MIN_INCIDENCES", 0)
    calls, real = [], node_order.cache_order
    monkeypatch.setattr(node_order, "cache_order", lambda H: calls.append(H.shape) or real(H))
    from hyperclust.cluster import HGNNSmoothingKMeans
    from hyperclust.operators.knn import MixedWalk, knn_affinity

    walk = MixedWalk(hg, knn_affinity(hg.features, 5), beta=0.5, self_loops=1.0)
    HGNNSmoothingKMeans(3, input="structural", knn_beta=0.5).fit(hg, walk=walk)
    Degrees._cache_order_pays = lambda self, hg: False
    try:
        Degrees().fit(hg)
    finally:
        del Degrees._cache_order_pays
    assert calls == []


@pytest.mark.parametrize("method", ["unidhc", "hgnn"])
def test_a_features_input_keeps_the_given_numbering(method, monkeypatch):
    from hyperclust.cluster import HGNNSmoothingKMeans, UniDHC

    make = {"unidhc": lambda: UniDHC(3, hidden_dim=8, epochs=1),
            "hgnn": lambda: HGNNSmoothingKMeans(3)}[method]
    calls, real = [], node_order.cache_order
    monkeypatch.setattr(node_order, "cache_order", lambda H: calls.append(H.shape) or real(H))
    monkeypatch.setattr(node_order, "MIN_INCIDENCES", 0)
    hg = planted(5, n=60)
    make().fit(hg)
    assert calls == []
    make().fit(hg.replace(features=None))
    assert calls == [hg.incidence.shape]


def test_an_output_of_unknown_kind_is_refused():
    class Odd:
        _node_outputs = ("labels_",)

    est = Odd()
    est.labels_ = object()
    with pytest.raises(TypeError, match="cannot restore the node order of a object"):
        node_order.restore_node_order(est, np.arange(3), None)


def regular_planted(seed, n_per_group=20, groups=3):
    """Every node in exactly 4 hyperedges of 4 nodes (3 within its group, 1 across): all
    degrees tie, so the highest-degree seeds are decided by position alone."""
    rng = np.random.default_rng(seed)
    n = n_per_group * groups
    edges = []
    for g in range(groups):
        for _ in range(3):
            members = g * n_per_group + rng.permutation(n_per_group)
            edges += members.reshape(-1, 4).tolist()
    edges += rng.permutation(n).reshape(-1, 4).tolist()
    return Hypergraph.from_edges(edges, labels=np.repeat(np.arange(groups), n_per_group))


def test_ahcka_seeds_tie_break_by_the_given_position_on_a_renumbered_fit(monkeypatch):
    from hyperclust.cluster.ahcka import highest_degree_nodes

    for seed in range(3):
        hg = regular_planted(seed)
        given = fit("ahcka", hg, seed, False, monkeypatch)
        renumbered = fit("ahcka", hg, seed, True, monkeypatch)
        np.testing.assert_array_equal(renumbered.labels_, given.labels_)
        assert renumbered.n_iter_ == given.n_iter_
        # QR's column signs follow the first row, which the numbering changes
        np.testing.assert_allclose(np.abs(renumbered.embedding_), np.abs(given.embedding_),
                                   atol=1e-8)
    # the rule itself: degree first, then given position, whatever the array order
    rng = np.random.default_rng(0)
    deg = rng.integers(0, 4, 200).astype(float)
    positions = rng.permutation(200)
    expected = sorted(range(200), key=lambda i: (-deg[i], positions[i]))[:7]
    assert highest_degree_nodes(deg, 7, positions).tolist() == expected
    np.testing.assert_array_equal(highest_degree_nodes(deg, 7, np.arange(200)),
                                  np.argsort(-deg, kind="stable")[:7])
