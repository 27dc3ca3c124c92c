"""Extreme eigenpairs of block-diagonal operators per component (``spectral.eigsh_seeded``
with ``components``, the plain normalized embedding at tau = 0, the generic
``SchurComplement`` of a graded complex) against dense ``eigh`` on inputs with many
components: every copy of an eigenvalue repeated across components is returned."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.linalg import subspace_angles

from hyperclust import Hypergraph
from hyperclust.cluster import SpectralHypergraphClustering
from hyperclust.operators import GradedComplex, ZhouLaplacian
from hyperclust.operators.blockwise import blockwise_smallest, row_components, verified_null
from hyperclust.operators.collapsed import coboundary_complex
from hyperclust.operators.components import ComponentLayout
from hyperclust.operators.eigensolvers import NormalizedAffinity, eigsh_seeded, regularized_embedding
from test_collapsed_eigen import gapped_k, many_component_hypergraph


def assert_equal_to_dense(vals, V, w, U, k):
    np.testing.assert_allclose(vals, w[:k], atol=1e-8, rtol=0)
    assert np.max(subspace_angles(V, U[:, :k])) < 1e-6
    np.testing.assert_allclose(V.T @ V, np.eye(k), atol=1e-8)


@pytest.fixture(scope="module")
def zhou_many():
    """The normalized Zhou affinity (tau = 0) of a 596-node, 40-component input, its
    component labels and the dense spectrum of ``-N`` (ascending)."""
    hg = many_component_hypergraph()
    M, d = ZhouLaplacian(hg, kind="unnormalized").affinity()
    N = NormalizedAffinity(M, d, 0.0)
    dense = N @ np.eye(hg.n_nodes)
    w, U = np.linalg.eigh(-0.5 * (dense + dense.T))
    return hg, M, d, N, w, U


def test_plain_lanczos_misses_the_repeated_top_eigenvalue(zhou_many):
    """The defect the components fix: one start vector finds only part of a 33-fold eigenvalue
    (isolated nodes have eigenvalue 0, so 33 components of positive degree give 1)."""
    hg, _, _, N, w, _ = zhou_many
    n_ones = int(np.sum(np.abs(w + 1) < 1e-9))
    assert n_ones == 33
    mu, _ = eigsh_seeded(N, n_ones + 4, which="LA", dense_limit=10)
    assert int(np.sum(np.abs(mu - 1) < 1e-6)) < n_ones


@pytest.mark.parametrize("dense_limit", [10, 100, 1500])
@pytest.mark.parametrize("extra", [1, 12, 40])
@pytest.mark.parametrize("known", [False, True])
def test_eigsh_seeded_per_component_equals_dense(zhou_many, dense_limit, extra, known):
    hg, _, d, N, w, U = zhou_many
    k = gapped_k(w, 33 + extra)
    labels = hg.connected_components()[1]
    mu, V = eigsh_seeded(N, k, which="LA", dense_limit=dense_limit, components=labels,
                         extreme_weights=np.sqrt(d) if known else None, tol=1e-12)
    assert np.all(np.diff(mu) <= 1e-12)                      # descending for "LA"
    assert_equal_to_dense(-mu, V, w, U, k)


def test_eigsh_seeded_smallest_of_a_laplacian_with_identical_components():
    """50 identical paths and 5 isolated nodes: the 55 zeros and the 50-fold next eigenvalue."""
    path = sp.csr_matrix(np.array([[1.0, -1, 0], [-1, 2, -1], [0, -1, 1]]))
    L = sp.block_diag([path] * 50 + [sp.csr_matrix((5, 5))], format="csr")
    labels = np.concatenate([np.repeat(np.arange(50), 3), 50 + np.arange(5)])
    w, U = np.linalg.eigh(L.toarray())
    for weights in (None, np.ones(155)):
        vals, V = eigsh_seeded(L, 105, which="SA", dense_limit=2, components=labels,
                               extreme_weights=weights)
        assert_equal_to_dense(vals, V, w, U, 105)
        np.testing.assert_allclose(vals[55:], 1.0, atol=1e-10)


def test_regularized_embedding_at_tau_zero_uses_the_components(zhou_many):
    hg, M, d, _, w, U = zhou_many
    k = gapped_k(w, 40)
    vals, V = regularized_embedding(M, d, k, tau=0.0, components=hg.connected_components()[1])
    assert_equal_to_dense(vals - 1.0, V, w, U, k)


def test_verified_null_drops_vectors_that_are_not_eigenvectors():
    L = np.array([[1.0, -1, 0, 0], [-1, 1, 0, 0], [0, 0, 2, -1], [0, 0, -1, 1]])
    w, rho = verified_null(lambda X: L @ X, ComponentLayout([0, 0, 1, 1]), np.ones(4))
    assert w.tolist() == [1.0, 1.0, 0.0, 0.0] and rho.tolist() == [0.0, 0.0]
    vals, _ = blockwise_smallest(lambda X: L @ X, ComponentLayout([0, 0, 1, 1]), np.ones(4), 4)
    np.testing.assert_allclose(vals, np.linalg.eigvalsh(L), atol=1e-12)


def test_row_components_of_the_star_expansion():
    hg = Hypergraph.from_edges([[0, 1], [2, 3], [4]], n_nodes=6)
    labels = row_components(hg, hg.n_nodes + hg.n_edges)
    node = labels[:6]
    assert node[0] == node[1] != node[2] == node[3] != node[4] != node[5]
    assert labels[6:].tolist() == [node[0], node[2], node[4]]


def test_spectral_clustering_without_regularization_on_many_components():
    """tau = 0 on many components: the embedding is the dense reference's eigenspace."""
    hg = many_component_hypergraph()
    model = SpectralHypergraphClustering(n_clusters=45, regularization=0.0, random_state=0).fit(hg)
    M, d = ZhouLaplacian(hg, kind="unnormalized").affinity()
    dense = NormalizedAffinity(M, d, 0.0) @ np.eye(hg.n_nodes)
    w = np.linalg.eigvalsh(-0.5 * (dense + dense.T))
    np.testing.assert_allclose(model.eigenvalues_, w[:45] + 1.0, atol=1e-8)


@pytest.fixture(scope="module")
def graded_many():
    """S_eps of the coboundary complex of the many-component input through the generic
    SchurComplement, and its dense spectrum."""
    hg = many_component_hypergraph()
    cx = coboundary_complex(hg, eps=1e-2)
    S = cx.collapsed(eps=1e-2, method="exact")
    w, U = np.linalg.eigh(S.to_dense())
    return hg, cx, S, w, U


def test_graded_complex_knows_its_components(graded_many):
    hg, cx, S, w, _ = graded_many
    n_zero = int(np.sum(np.abs(w) < 1e-9))
    assert n_zero == np.unique(S.components).size == 40
    B1 = sp.csr_matrix(np.array([[-1.0, 0], [1, 0], [0, -1], [0, 1], [0, 0]]))
    assert GradedComplex([B1]).vertex_components().tolist() == [0, 0, 1, 1, 2]


@pytest.mark.parametrize("method, extra", [("dense", 1), ("dense", 40), ("shift-invert", 1),
                                           ("shift-invert", 12), ("shift-invert", 40),
                                           ("lifted", 12)])
def test_schur_complement_eigenpairs_equal_dense(graded_many, method, extra):
    hg, cx, _, w, U = graded_many
    k = gapped_k(w, 40 + extra)
    S = cx.collapsed(eps=1e-2, method="lifted" if method == "lifted" else "exact")
    vals, V = S.smallest_eigenpairs(k, method=method)
    assert_equal_to_dense(vals, V, w, U, k)
    assert np.all(np.abs(vals[:40]) < 1e-12)        # the written-down indicators


@pytest.mark.parametrize("eps", [0.0, 0.5])
def test_star_complex_eigenpairs_equal_dense(eps):
    """The star collapse through the generic Schur complement: at eps = 0 its null space is
    one indicator per component (40 here), at eps > 0 it is positive definite."""
    from hyperclust.operators.collapsed import star_complex

    hg = many_component_hypergraph()
    S = star_complex(hg, eps=eps)
    w, U = np.linalg.eigh(S.to_dense())
    assert int(np.sum(np.abs(w) < 1e-9)) == (40 if eps == 0 else 7)   # isolated nodes: 0 rows
    k = gapped_k(w, 52)
    for method in ("dense", "shift-invert"):
        vals, V = S.smallest_eigenpairs(k, method=method)
        assert_equal_to_dense(vals, V, w, U, k)
