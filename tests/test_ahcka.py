"""AHCKA estimator: planted-partition recovery, determinism, structure-only input, parts."""

from __future__ import annotations

import numpy as np
import pytest

from hyperclust.cluster import AHCKA, make_estimator
from hyperclust.cluster.ahcka import discretize, rwr_seed_assignment
from hyperclust.datasets.synthetic import hypergraph_sbm
from hyperclust.hypergraph import Hypergraph
from hyperclust.metrics import acc, nmi
from hyperclust.selection.objectives import rwr_conductance
from hyperclust.operators.knn import MixedWalk


def test_recovers_planted_attributed_partition():
    hg = hypergraph_sbm(600, 3, homophily=0.85, feature_snr=0.8, isolated_fraction=0.1,
                        random_state=0)
    est = AHCKA(3).fit(hg)
    assert acc(hg.labels, est.labels_) >= 0.95
    assert est.labels_.shape == (600,) and est.embedding_.shape == (600, 3)
    # the selected clustering is the best-scoring one seen, and it is scored correctly
    assert est.objective_ == min(f for _, f in est.objective_history_)
    assert not est.degenerate_
    assert est.objective_ == pytest.approx(rwr_conductance(hg, est.labels_, walk=est.walk_))


def test_kNN_augmentation_helps_when_hyperedges_are_weak():
    hg = hypergraph_sbm(600, 3, homophily=0.45, feature_snr=1.0, random_state=1)
    with_knn = acc(hg.labels, AHCKA(3).fit(hg).labels_)
    without = acc(hg.labels, AHCKA(3, beta=0.0).fit(hg).labels_)
    assert with_knn > without + 0.1


def test_deterministic_for_a_seed():
    hg = hypergraph_sbm(300, 3, homophily=0.8, random_state=2)
    a = AHCKA(3, random_state=7).fit(hg).labels_
    b = AHCKA(3, random_state=7).fit(hg).labels_
    np.testing.assert_array_equal(a, b)
    # continuous features have no kNN ties: the seed then changes nothing
    np.testing.assert_array_equal(a, AHCKA(3, random_state=8).fit(hg).labels_)


def test_structure_only_with_isolated_nodes():
    hg = hypergraph_sbm(400, 2, homophily=0.95, n_features=0, isolated_fraction=0.05,
                        random_state=3)
    assert hg.features is None
    est = AHCKA(2).fit(hg)
    covered = np.asarray(hg.node_degrees) > 0
    assert acc(np.asarray(hg.labels)[covered], est.labels_[covered]) >= 0.95
    assert est.walk_.knn_walk is None
    assert np.isfinite(est.objective_)


def test_registry_and_validation():
    hg = hypergraph_sbm(60, 2, random_state=4)
    est = make_estimator("ahcka", 2, random_state=3)
    assert isinstance(est, AHCKA) and est.random_state == 3
    assert nmi(hg.labels, est.fit_predict(hg)) >= 0.0
    for bad, match in [(dict(beta=1.5), "beta"), (dict(alpha=0.0), "alpha"),
                       (dict(n_neighbors=0), "n_neighbors"), (dict(max_iter=-1), "max_iter"),
                       (dict(check_interval=0), "check_interval"),
                       (dict(knn_method="lsh"), "knn_method")]:
        with pytest.raises(ValueError, match=match):
            AHCKA(2, **bad).fit(hg)
    with pytest.raises(TypeError):
        AHCKA(2).fit(np.eye(3))
    with pytest.raises(ValueError, match="walk has shape"):
        AHCKA(2).fit(hg, walk=MixedWalk(hypergraph_sbm(30, 2, random_state=0)))


def test_discretize_recovers_a_rotated_indicator_embedding():
    rng = np.random.default_rng(0)
    y = rng.integers(4, size=200)
    Y = np.eye(4)[y] / np.sqrt(np.bincount(y)[y])[:, None]
    Q, _ = np.linalg.qr(rng.normal(size=(4, 4)))
    V = Y @ Q + 0.01 * rng.normal(size=(200, 4))
    labels = discretize(V, start=3)
    assert acc(y, labels) == 1.0
    np.testing.assert_array_equal(labels, discretize(V, start=3))


def test_rwr_seed_assignment_follows_components():
    hg = Hypergraph.from_edges([[0, 1, 2], [2, 3], [4, 5], [5, 6, 7]], n_nodes=9)
    lab = rwr_seed_assignment(MixedWalk(hg), np.array([2, 5]), 0.2, 5)
    np.testing.assert_array_equal(lab, [0, 0, 0, 0, 1, 1, 1, 1, -1])
