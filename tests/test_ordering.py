"""The cache-friendly numbering: a permutation of both sides that brings co-members close,
a renumbered copy whose ids and data follow their nodes, and products and clusterings that
are the same up to the permutation."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from hyperclust import Hypergraph
from hyperclust.datasets.synthetic import hypergraph_sbm
from hyperclust.hypergraph.ordering import cache_order, reordered
from hyperclust.metrics import ari


def member_spans(H):
    """Sum over hyperedges of (largest - smallest member position)."""
    Ht = sp.csr_matrix(H).T.tocsr()
    nz = np.diff(Ht.indptr) > 0
    starts = Ht.indptr[:-1][nz]
    return int(np.sum(np.maximum.reduceat(Ht.indices, starts)
                      - np.minimum.reduceat(Ht.indices, starts)))


def test_orders_are_permutations_that_shorten_spans():
    hg = hypergraph_sbm(3000, 4, homophily=0.9, n_features=0, random_state=0)
    nodes, edges = cache_order(hg.incidence)
    np.testing.assert_array_equal(np.sort(nodes), np.arange(hg.n_nodes))
    np.testing.assert_array_equal(np.sort(edges), np.arange(hg.n_edges))
    H = hg.incidence[nodes][:, edges]
    assert member_spans(H) < 0.75 * member_spans(hg.incidence)  # 0.63 measured


def test_reordered_copy_keeps_ids_data_and_hyperedges():
    hg = hypergraph_sbm(500, 3, homophily=0.8, n_features=4, random_state=2)
    hg = hg.replace(node_names=[f"v{i}" for i in range(hg.n_nodes)])
    new, order = reordered(hg)
    np.testing.assert_array_equal(new.node_ids, hg.node_ids[order])
    np.testing.assert_array_equal(new.labels, hg.labels[order])
    np.testing.assert_array_equal(new.features, hg.features[order])
    assert list(new.node_names) == [hg.node_names[i] for i in order]
    np.testing.assert_array_equal(new.parent_positions, hg.parent_positions[order])
    as_sets = lambda g: sorted(tuple(sorted(g.node_ids[e].tolist())) for e in g.edges())
    assert as_sets(new) == as_sets(hg)
    np.testing.assert_array_equal(np.sort(new.weights), np.sort(hg.weights))


def test_products_and_clusters_match_up_to_the_permutation():
    from hyperclust.cluster import SpectralHypergraphClustering
    from hyperclust.operators.propagation import PropagationOperator

    hg = hypergraph_sbm(2000, 3, homophily=0.95, n_features=0, random_state=3)
    new, order = reordered(hg)
    X = np.random.default_rng(0).standard_normal((hg.n_nodes, 5))
    np.testing.assert_allclose(PropagationOperator(new) @ X[order],
                               (PropagationOperator(hg) @ X)[order], rtol=1e-12, atol=1e-12)
    est = lambda: SpectralHypergraphClustering(3, operator="zhou", random_state=0)
    assert ari(est().fit(new).labels_, est().fit(hg).labels_[order]) == pytest.approx(1.0)


def test_edge_order_must_be_a_permutation():
    from hyperclust.hypergraph.subhypergraphs import induced_subhypergraph

    hg = Hypergraph.from_edges([[0, 1], [1, 2]])
    for kwargs in ({"keep_empty_edges": True, "edge_order": [0, 0]},
                   {"keep_empty_edges": False, "edge_order": [1, 0]}):
        with pytest.raises(ValueError, match="edge_order must be a permutation"):
            induced_subhypergraph(hg, [0, 1, 2], **kwargs)
