"""Signed affinity, hyperedge cohesion and the heterophilic mode of ``auto``."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.sparse as sp

from hyperclust import Hypergraph
from hyperclust.cluster.auto import HETEROPHILIC_CANDIDATES, AutoClusterer
from hyperclust.cluster.signed import SignedSpectralClustering
from hyperclust.datasets.synthetic import hypergraph_sbm
from hyperclust.metrics import acc
from hyperclust.selection.objectives import hyperedge_cohesion, rwr_conductance
from hyperclust.operators.signed import SignedAffinity


def _random_hypergraph(seed, n=12, m=7):
    rng = np.random.default_rng(seed)
    edges = [rng.choice(n, size=rng.integers(1, 5), replace=False).tolist() for _ in range(m)]
    return Hypergraph.from_edges(edges, n_nodes=n, weights=rng.uniform(0.5, 2.0, size=m))


def _dense_signed(hg, A, r):
    H = hg.incidence.toarray().astype(bool).astype(float)
    sizes = H.sum(axis=0)
    n = H.shape[0]
    C = np.zeros((n, n))
    for e in range(H.shape[1]):
        members = np.flatnonzero(H[:, e])
        for u, v in itertools.permutations(members, 2):  # ordered pairs u != v
            C[u, v] += hg.weights[e] / (sizes[e] - 1)

    def norm(M):
        d = M.sum(axis=1)
        s = np.where(d > 0, 1 / np.sqrt(np.where(d > 0, d, 1)), 0.0)
        return s[:, None] * M * s[None, :]
    return norm(A) - r * norm(C)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_signed_affinity_equals_the_dense_formula(seed):
    hg = _random_hypergraph(seed)
    rng = np.random.default_rng(seed + 10)
    A = sp.random(12, 12, density=0.3, random_state=seed).toarray()
    A = A + A.T
    np.fill_diagonal(A, 0)
    r = rng.uniform(0.5, 2.0)
    S = SignedAffinity(hg, sp.csr_matrix(A), repulsion=r).to_dense()
    np.testing.assert_allclose(S, _dense_signed(hg, A, r), atol=1e-12)
    np.testing.assert_allclose(S, S.T, atol=1e-12)


def test_signed_affinity_rejects_a_wrong_shape():
    hg = _random_hypergraph(0)
    with pytest.raises(ValueError, match="affinity has shape"):
        SignedAffinity(hg, sp.identity(5))


def _dense_cohesion(hg, labels):
    H = hg.incidence.toarray().astype(bool)
    shares = []
    for e in range(H.shape[1]):
        members = np.flatnonzero(H[:, e])
        if members.size >= 2:
            pairs = list(itertools.combinations(members, 2))
            shares.append(np.mean([labels[u] == labels[v] for u, v in pairs]))
    p = np.bincount(labels) / labels.size
    return np.mean(shares) - np.sum(p ** 2)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_hyperedge_cohesion_equals_the_pair_count(seed):
    hg = _random_hypergraph(seed)
    labels = np.random.default_rng(seed).integers(0, 3, size=hg.n_nodes)
    assert hyperedge_cohesion(hg, labels) == pytest.approx(_dense_cohesion(hg, labels), abs=1e-12)


def test_hyperedge_cohesion_is_invariant_to_relabelling():
    hg = _random_hypergraph(3)
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 3, size=hg.n_nodes)
    value = hyperedge_cohesion(hg, labels)
    assert hyperedge_cohesion(hg, (labels + 1) % 3 + 7) == pytest.approx(value)  # cluster ids
    perm = rng.permutation(hg.n_nodes)  # node ids: node perm[i] of the copy is node i
    edges = [[int(perm[v]) for v in e] for e in hg.edges()]
    moved = Hypergraph.from_edges(edges, n_nodes=hg.n_nodes, weights=hg.weights)
    relabelled = np.empty_like(labels)
    relabelled[perm] = labels
    assert hyperedge_cohesion(moved, relabelled) == pytest.approx(value)


def test_signed_spectral_needs_features():
    with pytest.raises(ValueError, match="needs node features"):
        SignedSpectralClustering(2).fit(Hypergraph.from_edges([[0, 1], [2, 3], [1, 2]]))


def test_auto_uses_the_hyperedges_as_repulsion_when_they_are_heterophilic():
    hg = hypergraph_sbm(600, 3, homophily=0.0, n_features=16, feature_snr=0.6, random_state=1)
    est = AutoClusterer(3, selection="rwr", random_state=0).fit(hg)
    assert est.heterophilic_ and est.beta_ == 1.0
    assert set(HETEROPHILIC_CANDIDATES) <= set(est.scores_)
    for name, labels in est.candidates_.items():  # every score = rwr + cohesion
        expected = rwr_conductance(hg, labels, walk=est.walk_, balance="min") \
            + hyperedge_cohesion(hg, labels)
        assert est.scores_[name] == pytest.approx(expected)
    again = AutoClusterer(3, selection="rwr", random_state=0).fit(hg)
    assert np.array_equal(est.labels_, again.labels_)
    # the signed candidate sees what the kNN walk alone does not
    assert acc(hg.labels, est.candidates_["spectral-signed"]) \
        > acc(hg.labels, est.candidates_["spectral-zhou-mixed"])


def test_auto_keeps_its_candidates_on_homophilic_hyperedges():
    hg = hypergraph_sbm(300, 3, homophily=0.9, n_features=8, random_state=0)
    est = AutoClusterer(3, random_state=0).fit(hg)
    assert not est.heterophilic_ and not set(HETEROPHILIC_CANDIDATES) & set(est.scores_)
