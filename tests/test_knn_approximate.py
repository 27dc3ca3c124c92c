"""The approximate kNN path: exact re-ranking, tie rules, determinism, thread independence."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from hyperclust.operators.knn import (ann_available, approximate_cosine_neighbors, cosine_knn,
                                      exact_cosine_neighbors)
from hyperclust.runtime.threads import thread_limit

pytestmark = pytest.mark.skipif(not ann_available(),
                                reason="faiss-cpu (extra 'ann') is not installed")


def _binary_rows(n=60, d=8, ones=4, seed=4):
    """Binary rows with ``ones`` ones: every cosine is a multiple of 1/ones, exactly tied."""
    rng = np.random.default_rng(seed)
    X = np.zeros((n, d))
    rows = np.repeat(np.arange(n), ones)
    cols = np.argsort(rng.random((n, d)), axis=1)[:, :ones].ravel()
    X[rows, cols] = 1.0
    return X


@pytest.mark.parametrize("tie_break", ["id", "random"])
def test_all_candidates_reproduce_the_exact_search_and_its_ties(tie_break):
    """With every other node a candidate, re-ranking is an exact search: the same neighbours,
    ties included, as the exact path with the same tie rule and seed."""
    X = _binary_rows()
    idx, sim = approximate_cosine_neighbors(X, 5, n_candidates=59, tie_break=tie_break,
                                            random_state=3)
    ref_idx, ref_sim = exact_cosine_neighbors(X, 5, tie_break=tie_break, random_state=3)
    np.testing.assert_array_equal(idx, ref_idx)
    np.testing.assert_allclose(sim, ref_sim, atol=1e-12)
    assert set(np.unique(np.round(sim * 4, 9))) <= {0.0, 1.0, 2.0, 3.0, 4.0}


def test_wide_sparse_input_is_reranked_on_the_original_rows():
    """The index sees an SVD projection of a 300-column sparse input; the returned
    similarities are the true cosines of the returned pairs, and with all candidates the
    result is the exact one."""
    rng = np.random.default_rng(5)
    X = sp.random(80, 300, density=0.05, random_state=rng, format="csr")
    X.data[:] = 1.0
    X = X[np.asarray(X.sum(axis=1)).ravel() > 0]
    n = X.shape[0]
    idx, sim = approximate_cosine_neighbors(X, 4, n_candidates=n - 1)
    ref_idx, ref_sim = exact_cosine_neighbors(X, 4)
    np.testing.assert_array_equal(idx, ref_idx)
    np.testing.assert_allclose(sim, ref_sim, atol=1e-12)
    idx, sim = approximate_cosine_neighbors(X, 4)
    D = X.toarray()
    D /= np.linalg.norm(D, axis=1, keepdims=True)
    np.testing.assert_allclose(sim, np.einsum("id,ikd->ik", D, D[idx]), atol=1e-12)
    assert (np.diff(sim, axis=1) <= 1e-15).all()  # most similar first


def test_deterministic_and_thread_independent():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(8, 16))[rng.integers(8, size=3000)] + rng.normal(size=(3000, 16))
    with thread_limit(1):
        one = approximate_cosine_neighbors(X, 10, tie_break="random", random_state=2)
    with thread_limit(2):
        two = approximate_cosine_neighbors(X, 10, tie_break="random", random_state=2)
        again = approximate_cosine_neighbors(X, 10, tie_break="random", random_state=2)
    for a, b in ((one, two), (two, again)):
        np.testing.assert_array_equal(a[0], b[0])
        np.testing.assert_array_equal(a[1], b[1])
    assert (one[0] != np.arange(3000)[:, None]).all()


def test_auto_uses_the_approximate_path_with_cosine_knns_tie_rule():
    X = _binary_rows(n=80, d=10, ones=3, seed=7)
    idx, _ = cosine_knn(X, 4, exact_max_nodes=10, random_state=6)
    ref, _ = approximate_cosine_neighbors(X, 4, tie_break="random", random_state=6)
    np.testing.assert_array_equal(idx, ref)


def test_fewer_nodes_than_neighbours():
    X = np.random.default_rng(0).normal(size=(4, 3))
    idx, sim = approximate_cosine_neighbors(X, 10)
    assert idx.shape == (4, 3)
    np.testing.assert_array_equal(np.sort(idx, axis=1),
                                  [[1, 2, 3], [0, 2, 3], [0, 1, 3], [0, 1, 2]])


@pytest.mark.parametrize("kwargs, message", [
    ({"hnsw_m": 1}, "hnsw_m must be an integer >= 2"),
    ({"ef_construction": 0}, "ef_construction must be a positive integer"),
    ({"ef_search": 0}, "ef_search must be a positive integer"),
    ({"n_candidates": 3}, "n_candidates must be an integer >= 5"),
    ({"tie_break": "partition"}, "tie_break must be one of 'id', 'random'"),
    ({"n_neighbors": 0}, "n_neighbors must be a positive integer"),
])
def test_parameter_validation(kwargs, message):
    X = np.eye(6)
    kwargs = {"n_neighbors": 5, **kwargs}
    with pytest.raises(ValueError, match=message):
        approximate_cosine_neighbors(X, **kwargs)
