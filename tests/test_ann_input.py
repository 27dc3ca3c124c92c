"""The approximate search's index input: unit rows zero-padded to a multiple of 16 columns
(faiss's SIMD distances), which changes no inner product and no candidate."""

import numpy as np
import pytest
import scipy.sparse as sp

from hyperclust.operators import neighbors as nb


def _mixture(n, d, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(8, d))[rng.integers(8, size=n)] * 0.6 + rng.normal(size=(n, d))


@pytest.mark.parametrize("d, width", [(1, 16), (16, 16), (26, 32), (40, 48)])
def test_index_input_is_the_unit_rows_padded_with_zero_columns(d, width):
    X = _mixture(50, d)
    X[3] = 0.0
    Xf = nb._ann_input(X, 0)
    assert Xf.shape == (50, width) and Xf.dtype == np.float32 and Xf.flags["C_CONTIGUOUS"]
    assert np.array_equal(Xf[:, :d], nb._unit_rows(X).astype(np.float32))
    assert not Xf[:, d:].any()
    assert np.allclose(Xf @ Xf.T, nb._unit_rows(X) @ nb._unit_rows(X).T, atol=1e-6)


def test_wide_sparse_input_is_projected_to_128_columns():
    X = sp.random(300, 400, density=0.05, random_state=0, format="csr")
    assert nb._ann_input(X, 0).shape == (300, 128)


def test_padding_changes_no_candidate():
    pytest.importorskip("faiss")
    Xf = nb._ann_input(_mixture(3000, 26), 0)
    padded = nb._hnsw_candidates(Xf, 20, 32, 80, 96)
    bare = nb._hnsw_candidates(np.ascontiguousarray(Xf[:, :26]), 20, 32, 80, 96)
    assert np.array_equal(np.sort(padded, axis=1), np.sort(bare, axis=1))
