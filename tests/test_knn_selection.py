"""The exact kNN's top-k selection against a dense stable-sort reference, on inputs with
many exact ties, zero rows and self exclusion."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from hyperclust.operators._topk import order_by_value, top_k_lowest_id, top_k_sorted
from hyperclust.operators.neighbors import exact_cosine_neighbors


def _reference_top_k(sim, k):
    """Largest first, equal values by increasing column: a stable sort of ``-sim``."""
    return np.argsort(-sim, axis=1, kind="stable")[:, :k]


def _reference_neighbors(X, k, perm=None):
    """Dense cosine matrix, self excluded, neighbours by a stable sort over the candidate
    order ``perm`` (identity by default)."""
    X = np.asarray(X.toarray() if sp.issparse(X) else X, dtype=np.float64)
    norms = np.linalg.norm(X, axis=1, keepdims=True)
    Xn = X / np.where(norms > 0, norms, 1.0)
    n = X.shape[0]
    perm = np.arange(n) if perm is None else perm
    S = (Xn @ Xn.T)[:, perm]
    S[np.arange(n), np.argsort(perm)] = -np.inf
    top = _reference_top_k(S, k)
    return perm[top], np.take_along_axis(S, top, axis=1)


def _tied_features(rng, n, d, zero_share=0.1):
    """Binary rows with three ones (every cosine a multiple of 1/3, exact in float64: massive
    exact ties) and some zero rows."""
    X = np.zeros((n, d))
    rows = np.repeat(np.arange(n), 3)
    X[rows, np.concatenate([rng.choice(d, 3, replace=False) for _ in range(n)])] = 1.0
    X[rng.random(n) < zero_share] = 0.0
    return X


@pytest.mark.parametrize("seed", range(4))
def test_top_k_sorted_equals_stable_sort(seed):
    rng = np.random.default_rng(seed)
    for rows, cols, k in [(7, 1000, 1), (9, 3000, 10), (5, 300, 40), (6, 129, 5), (4, 20, 19),
                          (3, 10, 10)]:
        sim = rng.integers(0, 4, size=(rows, cols)).astype(float)  # four values: all tied
        sim[0] = 0.0                                  # a constant row: the full-row rule
        sim[1, rng.integers(cols)] = -np.inf
        sim[2] = rng.normal(size=cols)                # no ties
        ref = _reference_top_k(sim, k)
        np.testing.assert_array_equal(top_k_sorted(sim, k), ref)
        np.testing.assert_array_equal(order_by_value(sim, top_k_lowest_id(sim, k)), ref)


def test_top_k_sorted_on_a_non_contiguous_block():
    sim = np.random.default_rng(5).integers(0, 3, size=(600, 8)).astype(float).T
    np.testing.assert_array_equal(top_k_sorted(sim, 7), _reference_top_k(sim, 7))


@pytest.mark.parametrize("backend", ["dense", "sparse"])
@pytest.mark.parametrize("k", [1, 10, 25])
def test_exact_neighbors_with_ties_equal_dense_reference(backend, k):
    """Binary rows with many exact ties and zero rows: neighbours and weights equal the stable
    reference, for the lowest-id rule and the seeded random one, over several block sizes."""
    rng = np.random.default_rng(k)
    X = _tied_features(rng, 700, 12)
    ref_idx, ref_sim = _reference_neighbors(X, k)
    for chunk in (None, 33):
        idx, sim = exact_cosine_neighbors(X, k, backend=backend, chunk_size=chunk)
        np.testing.assert_array_equal(idx, ref_idx)
        np.testing.assert_allclose(sim, ref_sim, atol=1e-12)
    perm = np.random.default_rng(3).permutation(700)
    ref_idx, ref_sim = _reference_neighbors(X, k, perm)
    idx, sim = exact_cosine_neighbors(X, k, backend=backend, tie_break="random", random_state=3)
    np.testing.assert_array_equal(idx, ref_idx)
    np.testing.assert_allclose(sim, ref_sim, atol=1e-12)


def test_exact_neighbors_of_query_subset_with_ties():
    rng = np.random.default_rng(9)
    X = _tied_features(rng, 900, 10, zero_share=0.0)
    q = rng.choice(900, 50, replace=False)
    ref_idx, _ = _reference_neighbors(X, 8)
    idx, _ = exact_cosine_neighbors(X, 8, queries=q)
    np.testing.assert_array_equal(idx, ref_idx[q])
