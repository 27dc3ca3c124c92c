"""The label-free heterophily test: hyperedge members vs random pairs, in attribute space."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.sparse as sp

from hyperclust import Hypergraph
from hyperclust.selection.alignment import HETEROPHILY_T, attribute_alignment
from hyperclust.datasets import hypergraph_sbm


def _brute_force(edges, X):
    Xn = X / np.linalg.norm(X, axis=1, keepdims=True)
    cos = Xn @ Xn.T
    per_edge = [np.mean([cos[u, v] for u, v in itertools.permutations(e, 2)])
                for e in edges if len(e) >= 2]
    n = X.shape[0]
    random = (cos.sum() - np.trace(cos)) / (n * (n - 1))
    s = np.array(per_edge)
    return s.mean(), random, (s.mean() - random) / (s.std(ddof=1) / np.sqrt(s.size))


def test_equals_the_pairwise_definition_dense_and_sparse():
    rng = np.random.default_rng(0)
    X = rng.random((30, 5))
    edges = [sorted(rng.choice(30, size=rng.integers(1, 6), replace=False)) for _ in range(25)]
    within, random, t = _brute_force(edges, X)
    for feats in (X, sp.csr_matrix(X)):
        a = attribute_alignment(Hypergraph.from_edges(edges, n_nodes=30, features=feats))
        assert a.within == pytest.approx(within) and a.random == pytest.approx(random)
        assert a.t == pytest.approx(t)
        assert a.n_edges == sum(len(e) >= 2 for e in edges)


def test_invariant_under_node_relabelling():
    hg = hypergraph_sbm(300, 3, homophily=0.8, n_features=6, random_state=1)
    perm = np.random.default_rng(2).permutation(hg.n_nodes)
    edges = [perm[hg.incidence_t[e].indices] for e in range(hg.n_edges)]
    feats = np.empty_like(hg.features)
    feats[perm] = hg.features
    a, b = attribute_alignment(hg), attribute_alignment(
        Hypergraph.from_edges(edges, n_nodes=hg.n_nodes, features=feats))
    assert (a.within, a.random, a.t) == pytest.approx((b.within, b.random, b.t))


@pytest.mark.parametrize("homophily, heterophilic", [(0.0, True), (0.9, False)])
def test_detects_heterophily_of_a_planted_hypergraph(homophily, heterophilic):
    hg = hypergraph_sbm(2000, 4, homophily=homophily, n_features=32, random_state=0)
    a = attribute_alignment(hg)
    assert a.heterophilic is heterophilic
    assert (a.within < a.random) is heterophilic


def test_attributes_unrelated_to_the_hyperedges_are_not_called_heterophilic():
    ts = [attribute_alignment(hypergraph_sbm(1000, 4, homophily=0.9, n_features=16,
                                             feature_snr=0.0, random_state=s)).t
          for s in range(5)]
    assert all(t > HETEROPHILY_T for t in ts), ts


def test_needs_attributes():
    with pytest.raises(ValueError, match="node attributes"):
        attribute_alignment(Hypergraph.from_edges([[0, 1], [1, 2]]))
    with pytest.raises(TypeError, match="Hypergraph"):
        attribute_alignment([[0, 1]])
