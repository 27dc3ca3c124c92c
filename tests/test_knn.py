"""Attribute kNN graphs and the mixed walk: brute-force references and walk properties."""

from __future__ import annotations

import time

import numpy as np
import pytest
import scipy.sparse as sp

from hyperclust.operators._rerank import rerank
from hyperclust.hypergraph import Hypergraph
from hyperclust.operators.knn import (MixedWalk, SymmetricMixedAffinity, ann_available,
                                      approximate_cosine_neighbors, cosine_knn,
                                      exact_cosine_neighbors, knn_affinity, knn_walk,
                                      mixed_walk)


def _brute_knn(X, k):
    """Dense reference: cosine matrix, self excluded, top k by (-sim, id)."""
    X = np.asarray(X.toarray() if sp.issparse(X) else X, dtype=np.float64)
    norms = np.linalg.norm(X, axis=1)
    Xn = X / np.where(norms > 0, norms, 1.0)[:, None]
    S = Xn @ Xn.T
    n = X.shape[0]
    idx = np.empty((n, k), dtype=np.int64)
    for i in range(n):  # reference only
        cand = [j for j in range(n) if j != i]
        cand.sort(key=lambda j: (-S[i, j], j))
        idx[i] = cand[:k]
    return idx, np.take_along_axis(S, idx, axis=1)


def _small_hg(seed=0, n=9, d=5):
    """8 connected nodes in two groups (+ node 8 in no hyperedge), Gaussian features."""
    rng = np.random.default_rng(seed)
    edges = [[0, 1, 2], [2, 3], [0, 3], [4, 5, 6], [6, 7], [4, 7], [1, 5]]
    X = rng.normal(size=(n, d)) + np.repeat([[2.0] * d, [-2.0] * d], [4, n - 4], axis=0)
    return Hypergraph.from_edges(edges, n_nodes=n, features=X, weights=[1, 2, 1, 1, 3, 1, 0.5])


def _dense_p(hg):
    H = hg.incidence.toarray()
    w, de, dv = hg.weights, H.sum(axis=0), H @ hg.weights
    A = H @ np.diag(w / de) @ H.T
    return np.divide(A, dv[:, None], out=np.zeros_like(A), where=dv[:, None] > 0)


@pytest.mark.parametrize("sparse_input", [False, True])
def test_exact_neighbors_equal_brute_force(sparse_input):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 6))
    X[rng.random(X.shape) < 0.3] = 0.0
    Xin = sp.csr_matrix(X) if sparse_input else X
    ref_idx, ref_sim = _brute_knn(X, 5)
    for backend in ("auto", "dense", "sparse"):
        idx, sim = exact_cosine_neighbors(Xin, 5, chunk_size=7, backend=backend)
        np.testing.assert_array_equal(idx, ref_idx)
        np.testing.assert_allclose(sim, ref_sim, atol=1e-12)


def test_exact_ties_keep_the_lowest_ids():
    """Binary rows with four ones: unit rows have entries 1/2, every similarity is a multiple
    of 1/4 computed exactly, so ties are exact; the kept neighbours are the lowest ids."""
    rng = np.random.default_rng(4)
    X = np.zeros((60, 8))
    for i in range(60):  # test data only
        X[i, rng.choice(8, 4, replace=False)] = 1.0
    ref_idx, _ = _brute_knn(X, 5)
    for backend in ("dense", "sparse"):
        idx, sim = exact_cosine_neighbors(X, 5, chunk_size=16, backend=backend)
        np.testing.assert_array_equal(idx, ref_idx)
        assert set(np.unique(sim * 4)) <= {0.0, 1.0, 2.0, 3.0, 4.0}


def test_similarities_equal_to_ten_decimals_are_ties_decided_by_the_rule():
    """Cosines a few ulps apart (what another BLAS kernel, block shape or library version
    returns for equal ones) are ties: the lowest id wins, in the exact search and the
    re-ranking alike, whatever the last bits say."""
    X = np.array([[1.0, 0.0], [1.0, 1.5e-7], [1.0, 0.0], [0.0, 1.0]])  # cos(0, 1) = 1 - 1e-14
    for backend in ("dense", "sparse"):
        idx, sim = exact_cosine_neighbors(X, 2, backend=backend)
        assert idx[0].tolist() == [1, 2] and sim[0].tolist() == [1.0, 1.0]
    idx, _ = rerank(X / np.linalg.norm(X, axis=1, keepdims=True), np.array([[2, 1]] * 4), 1)
    assert idx[0, 0] == 1


def test_exact_neighbors_queries_candidates_and_clipping():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(20, 4))
    q, c = np.array([0, 5, 7]), np.array([1, 2, 5, 9])
    idx, _ = exact_cosine_neighbors(X, 10, queries=q, candidates=c)
    assert idx.shape == (3, 3)  # clipped: one candidate is a query itself
    assert 5 not in idx[1]
    Xn = X / np.linalg.norm(X, axis=1, keepdims=True)
    best = c[np.argmax(Xn[q] @ Xn[c].T - 9 * (q[:, None] == c[None, :]), axis=1)]
    np.testing.assert_array_equal(idx[:, 0], best)
    with pytest.raises(ValueError, match="backend"):
        exact_cosine_neighbors(X, 3, backend="gpu")


def test_knn_affinity_is_symmetrised_clipped_similarity():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 5))
    X[4] = 0.0  # a zero attribute row: no kNN edges
    A = knn_affinity(X, 4, method="exact")
    idx, sim = _brute_knn(X, 4)
    S = np.zeros((30, 30))
    np.put_along_axis(S, idx, np.maximum(sim, 0), axis=1)
    S[4] = 0.0
    np.testing.assert_allclose(A.toarray(), S + S.T, atol=1e-12)
    assert A.diagonal().max() == 0.0 and A.data.min() > 0
    assert A[4].nnz == 0
    Q = knn_walk(X, 4, method="exact")
    sums = np.asarray(Q.sum(axis=1)).ravel()
    np.testing.assert_allclose(sums[np.arange(30) != 4], 1.0)
    assert sums[4] == 0.0


def test_mixed_walk_matches_dense_definition_and_rows_sum_to_one():
    hg = _small_hg()
    A = knn_affinity(hg.features, 3)
    beta = 0.3
    M = MixedWalk(hg, A, beta=beta)
    P = _dense_p(hg)
    Q = A.toarray() / A.toarray().sum(axis=1, keepdims=True)
    ref = (1 - beta) * P + beta * Q
    ref[8] = Q[8]  # node 8 is in no hyperedge: it walks on Q only
    np.testing.assert_allclose(M.to_sparse().toarray(), ref, atol=1e-12)
    X = np.random.default_rng(0).normal(size=(9, 3))
    np.testing.assert_allclose(M @ X, ref @ X, atol=1e-12)
    np.testing.assert_allclose(M.T @ X, ref.T @ X, atol=1e-12)
    np.testing.assert_allclose(M @ np.ones(9), 1.0, atol=1e-12)
    np.testing.assert_allclose((M @ np.eye(9))[8], Q[8], atol=1e-12)


def test_mixed_walk_structure_only_and_self_loops():
    edges = [[0, 1, 2], [2, 3]]
    hg = Hypergraph.from_edges(edges, n_nodes=5)  # node 4 isolated, no features
    M = mixed_walk(hg)
    assert M.knn_walk is None
    dense = M @ np.eye(5)
    np.testing.assert_allclose(dense, _dense_p(hg), atol=1e-12)
    np.testing.assert_allclose(dense.sum(axis=1), [1, 1, 1, 1, 0])  # the walk stops at node 4
    Ms = MixedWalk(hg, None, self_loops=1.0) @ np.eye(5)
    np.testing.assert_allclose(Ms.sum(axis=1), 1.0)
    assert Ms[4, 4] == 1.0
    with pytest.raises(ValueError, match="beta"):
        MixedWalk(hg, None, beta=1.5)
    with pytest.raises(ValueError, match="knn"):
        MixedWalk(hg, np.eye(5), beta=0.5)


def test_mixed_walk_beta_zero_ignores_knn():
    hg = _small_hg()
    M0 = MixedWalk(hg, knn_affinity(hg.features, 3), beta=0.0) @ np.eye(9)
    np.testing.assert_allclose(M0, _dense_p(hg), atol=1e-12)


def test_symmetric_mixed_affinity_bounds():
    hg = _small_hg()
    from hyperclust.operators.eigensolvers import NormalizedAffinity
    from hyperclust.operators.laplacians import ZhouLaplacian

    Mh, d = ZhouLaplacian(hg, kind="unnormalized").affinity()
    A = knn_affinity(hg.features, 3)
    Nh = NormalizedAffinity(Mh, d)
    Nq = NormalizedAffinity(A, np.asarray(A.sum(axis=1)).ravel())
    a, b = MixedWalk(hg, A, beta=0.5).row_weights_
    N = SymmetricMixedAffinity(Nh, Nq, a, b).to_dense()
    np.testing.assert_allclose(N, N.T, atol=1e-12)
    ev = np.linalg.eigvalsh(N)
    assert ev.max() <= 1 + 1e-10 and ev.min() >= -1 - 1e-10
    a0, b0 = MixedWalk(hg, None).row_weights_  # no kNN part: exactly N_h
    np.testing.assert_allclose(SymmetricMixedAffinity(Nh, Nq, a0, b0).to_dense(), Nh.to_dense())


def test_cosine_knn_validation():
    X = np.eye(4)
    with pytest.raises(ValueError, match="method"):
        cosine_knn(X, 2, method="annoy")
    with pytest.raises(ValueError, match="n_neighbors"):
        cosine_knn(X, 0)


@pytest.mark.skipif(not ann_available(), reason="faiss-cpu (extra 'ann') is not installed")
def test_approximate_neighbors_recall_and_determinism():
    """Recall@10 of the HNSW path against the exact search on a fixed 4000-node mixture."""
    rng = np.random.default_rng(0)
    centres = rng.normal(size=(8, 32))
    X = centres[rng.integers(8, size=4000)] * 0.8 + rng.normal(size=(4000, 32))
    t0 = time.perf_counter()
    ia, sa = approximate_cosine_neighbors(X, 10)
    ie, se = exact_cosine_neighbors(X, 10)
    recall = np.mean([np.intersect1d(a, e).size / 10 for a, e in zip(ia, ie)])
    print(f"recall@10 = {recall:.4f} ({time.perf_counter() - t0:.2f} s with the exact search)")
    assert recall >= 0.95
    assert (ia != np.arange(4000)[:, None]).all()  # the query itself is never returned
    ib, sb = approximate_cosine_neighbors(X, 10)
    np.testing.assert_array_equal(ia, ib)
    idx, _ = cosine_knn(X, 10, method="auto", exact_max_nodes=100)
    np.testing.assert_array_equal(idx, ia)
