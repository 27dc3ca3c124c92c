"""No collapse: on balanced planted partitions with isolated and featureless nodes no method
returns a giant cluster plus slivers; the label-free degeneracy test behind it."""

from __future__ import annotations

import numpy as np
import pytest

from hyperclust import Hypergraph
from hyperclust.cluster import AHCKA
from hyperclust.cluster.auto import CANDIDATES, STRUCTURE_CANDIDATES
from hyperclust.cluster.candidates import make_candidate
from hyperclust.datasets.synthetic import hypergraph_sbm
from hyperclust.selection.objectives import effective_n_clusters, is_degenerate


def _planted(k, seed, features):
    """Balanced classes, small hyperedges, 20% isolated nodes; with features, the isolated
    nodes and 5% of the others have all-zero (featureless) rows."""
    hg = hypergraph_sbm(1500, k, homophily=0.4, n_features=16 if features else 0,
                        edge_sizes=(2, 3), isolated_fraction=0.2, random_state=seed)
    if not features:
        return hg
    X = np.asarray(hg.features).copy()
    rng = np.random.default_rng(seed)
    X[np.asarray(hg.weighted_degrees) == 0] = 0.0
    X[rng.choice(hg.n_nodes, hg.n_nodes // 20, replace=False)] = 0.0
    return hg.replace(features=X)


def test_effective_clusters_and_degeneracy_known_answers():
    assert effective_n_clusters([0, 1, 2, 3]) == pytest.approx(4.0)
    assert effective_n_clusters([5, 5, 5]) == pytest.approx(1.0)
    # relabelling and permuting nodes change nothing
    y = np.array([0] * 50 + [1] * 30 + [2] * 20)
    assert effective_n_clusters(y) == pytest.approx(effective_n_clusters(7 - y[::-1]))
    assert is_degenerate([0] * 4169 + [1] * 6 + [2] * 5, 3)     # the collapse
    assert not is_degenerate([0] * 1960 + [1] * 1609 + [2] * 611, 3)  # the public code's
    assert is_degenerate([0] * 80 + [1] * 19 + [2] * 1, 3)
    assert not is_degenerate([0] * 41 + [1] * 20 + [2] * 13 + [3] * 10 + [4] * 8 + [5] * 5
                             + [6] * 4, 7)                      # zoo's classes


@pytest.mark.parametrize("k,seed", [(3, 0), (3, 1), (4, 0), (5, 0)])
def test_ahcka_does_not_collapse_on_a_balanced_planted_partition(k, seed):
    # before the degeneracy rule AHCKA returned e.g. 1455 / 37 / 8 nodes here (k=3, seed 0
    # at homophily .4): the iterations localise on loosely attached nodes
    hg = _planted(k, seed, features=False)
    est = AHCKA(k).fit(hg)
    assert np.bincount(est.labels_).max() <= 0.8 * hg.n_nodes
    assert not is_degenerate(est.labels_, k)


@pytest.mark.parametrize("features", [True, False])
def test_no_candidate_collapses(features):
    k = 3
    hg = _planted(k, 0, features)
    names = CANDIDATES if features else STRUCTURE_CANDIDATES
    for name in names + ("hsbm",):
        est, _ = make_candidate(name, k, 0, {"beta": 0.5, "n_neighbors": 10,
                                             "knn_method": "auto"})
        labels = est.fit(hg).labels_
        largest = np.bincount(labels).max()
        assert largest <= 0.8 * hg.n_nodes, (name, np.bincount(labels).tolist())


def test_fallback_when_every_check_is_degenerate():
    # the three highest-degree nodes sit together at one end of a long path: 5 restart-walk
    # steps from them reach few nodes, the rest start in cluster 0, and with max_iter=0 that
    # start is the only check, so it is degenerate and k-means on the embedding replaces it
    edges = [[0, 1, 2]] * 6 + [[i, i + 1] for i in range(2, 99)]
    hg = Hypergraph.from_edges(edges, n_nodes=100, duplicates="keep")
    est = AHCKA(3, max_iter=0, random_state=0).fit(hg)
    assert est.degenerate_
    from threadpoolctl import threadpool_limits

    from hyperclust.cluster.rounding import kmeans_on_rows
    with threadpool_limits(1):  # the fit of an input this small runs on one thread
        np.testing.assert_array_equal(est.labels_, kmeans_on_rows(est.embedding_, 3, 0))
    assert est.best_iter_ == 0
    # with the iterations running, a non-degenerate check exists and is taken
    est = AHCKA(3, random_state=0).fit(hg)
    assert not est.degenerate_ and not is_degenerate(est.labels_, 3)
