"""Exact re-ranking of ANN candidates (operators/_rerank.py) and the candidate count of the
approximate search on SVD-projected inputs."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from hyperclust.operators import _rerank
from hyperclust.operators import neighbors as nb
from hyperclust.operators._rerank import pair_similarities, rerank


def _binary_rows(n=50, d=10, ones=3, seed=7):
    """Binary rows with ``ones`` ones each: cosines are multiples of 1/3, heavily tied."""
    rng = np.random.default_rng(seed)
    X = np.zeros((n, d))
    X[np.repeat(np.arange(n), ones), np.argsort(rng.random((n, d)), axis=1)[:, :ones].ravel()] = 1
    return X


def _candidates_with_truth(X, k, extra, seed, tie_break="id", random_state=0):
    """Per row: every node at or above the exact ``k``-th similarity (all tied ones) plus
    ``extra`` random others, shuffled, self excluded, padded with -1."""
    n = X.shape[0]
    D = X / np.linalg.norm(X, axis=1, keepdims=True)
    S = D @ D.T
    np.fill_diagonal(S, -np.inf)
    kth = -np.sort(-S, axis=1)[:, k - 1:k]
    rng = np.random.default_rng(seed)
    width = n - 1
    cand = np.full((n, width), -1, dtype=np.int64)
    for i in range(n):  # test fixture only: a few dozen rows
        true = np.flatnonzero(S[i] >= kth[i] - 1e-12)
        others = rng.permutation(np.setdiff1d(np.arange(n), np.append(true, i)))[:extra]
        row = rng.permutation(np.concatenate([true, others]))
        cand[i, :row.size] = row
    return cand


@pytest.mark.parametrize("layout", ["dense", "sparse"])
@pytest.mark.parametrize("tie_break", ["id", "random"])
def test_rerank_equals_exact_when_candidates_hold_the_true_neighbours(layout, tie_break):
    """Candidates = all nodes tied with or above the K-th (in random order, with decoys and
    -1 padding): the re-ranked lists are the exact search's, ties included."""
    X = _binary_rows()
    cand = _candidates_with_truth(X, 4, extra=6, seed=1)
    Xin = sp.csr_matrix(X) if layout == "sparse" else X
    idx, sim = rerank(nb._unit_rows(Xin), cand, 4, tie_break, random_state=5)
    ref_idx, ref_sim = nb.exact_cosine_neighbors(Xin, 4, tie_break=tie_break, random_state=5)
    np.testing.assert_array_equal(idx, ref_idx)
    np.testing.assert_allclose(sim, ref_sim, atol=1e-12)


def test_rerank_ties_do_not_depend_on_candidate_order():
    """Permuting each row's candidates changes nothing (the tie rule is by id)."""
    X = nb._unit_rows(sp.csr_matrix(_binary_rows()))
    cand = _candidates_with_truth(_binary_rows(), 3, extra=10, seed=2)
    idx, sim = rerank(X, cand, 3)
    shuffled = np.random.default_rng(0).permuted(cand, axis=1)
    idx2, sim2 = rerank(X, shuffled, 3)
    np.testing.assert_array_equal(idx, idx2)
    np.testing.assert_array_equal(sim, sim2)
    # within equal similarities, increasing id
    for row_i, row_s in zip(idx, sim):
        for a in range(len(row_i) - 1):
            assert row_s[a] > row_s[a + 1] or row_i[a] < row_i[a + 1]


def test_rerank_hand_made_known_answer_and_missing_candidates():
    X = np.array([[1.0, 0.0], [0.6, 0.8], [0.0, 1.0], [1.0, 0.0]])
    cand = np.array([[2, 1, 3], [0, 2, -1], [-1, -1, -1], [2, 1, 0]])
    idx, sim = rerank(X, cand, 2)
    assert idx.dtype == np.int64 and sim.dtype == np.float64 and idx.shape == (4, 2)
    np.testing.assert_array_equal(idx, [[3, 1], [2, 0], [-1, -1], [0, 1]])
    np.testing.assert_allclose(sim, [[1.0, 0.6], [0.8, 0.6], [0.0, 0.0], [1.0, 0.6]])


@pytest.mark.parametrize("block", [1, 7, 2 ** 22])
def test_pair_similarities_sparse_dense_and_brute_force_agree(block, monkeypatch):
    """Both layouts, any block size: the cosines of the pairs, 0 for -1."""
    monkeypatch.setattr(_rerank, "_BLOCK_ENTRIES", block)
    rng = np.random.default_rng(3)
    X = sp.random(40, 30, density=0.2, random_state=rng, format="csr")
    Xn = nb._unit_rows(X)
    I = rng.integers(-1, 40, size=(40, 9))
    D = Xn.toarray()
    ref = np.where(I >= 0, np.einsum("id,ijd->ij", D, D[np.maximum(I, 0)]), 0.0)
    for layout in (Xn, D):
        out = pair_similarities(layout, I)
        assert out.shape == (40, 9) and out.dtype == np.float64
        np.testing.assert_allclose(out, ref, atol=1e-12)
    assert pair_similarities(D, np.empty((40, 0), dtype=np.int64)).shape == (40, 0)


@pytest.mark.skipif(not nb.ann_available(), reason="faiss-cpu (extra 'ann') is not installed")
def test_projected_inputs_rerank_eight_k_candidates(monkeypatch):
    """SVD-projected (wide sparse) inputs ask the index for 8K candidates, others for 2K;
    the search beam stays max(96, C + 1)."""
    seen = []
    real = nb._hnsw_candidates

    def spy(Xf, n_cand, hnsw_m, ef_construction, ef_search):
        seen.append((n_cand, ef_search))
        return real(Xf, n_cand, hnsw_m, ef_construction, ef_search)

    monkeypatch.setattr(nb, "_hnsw_candidates", spy)
    rng = np.random.default_rng(0)
    wide = sp.random(300, 400, density=0.05, random_state=rng, format="csr")
    idx, sim = nb.approximate_cosine_neighbors(wide, 5)
    assert idx.shape == (300, 5) and idx.dtype == np.int64 and sim.dtype == np.float64
    nb.approximate_cosine_neighbors(rng.normal(size=(300, 8)), 5)
    nb.approximate_cosine_neighbors(sp.csr_matrix(rng.normal(size=(300, 8))), 5)
    assert seen == [(40, 96), (10, 96), (10, 96)]


@pytest.mark.parametrize("layout", ["dense", "sparse"])
def test_refine_keeps_exact_lists_and_recovers_neighbours_of_neighbours(layout):
    """The exact lists are a fixed point of a refinement round; lists holding one true
    neighbour each gain more through the neighbours' lists."""
    from hyperclust.operators._rerank import refine

    rng = np.random.default_rng(2)
    X = rng.normal(size=(60, 6))
    Xin = sp.csr_matrix(X) if layout == "sparse" else X
    Xn = nb._unit_rows(Xin)
    exact_idx, exact_sim = nb.exact_cosine_neighbors(Xin, 4)
    idx, sim = refine(Xn, exact_idx, 4)
    np.testing.assert_array_equal(idx, exact_idx)
    np.testing.assert_allclose(sim, exact_sim, atol=1e-12)
    start = np.full_like(exact_idx, -1)
    start[:, 0] = exact_idx[:, 0]  # one true neighbour each
    once = refine(Xn, start, 4)[0]
    assert idx.dtype == np.int64 and once.shape == (60, 4)
    assert not (once == np.arange(60)[:, None]).any()
    assert all(np.unique(r[r >= 0]).size == (r >= 0).sum() for r in once)
    hit = [np.intersect1d(a, b).size for a, b in zip(once, exact_idx)]
    assert min(hit) >= 1 and np.mean(hit) > 1.1  # the one given stays, others are found


@pytest.mark.skipif(not nb.ann_available(), reason="faiss-cpu (extra 'ann') is not installed")
def test_refine_rounds_parameter():
    X = np.random.default_rng(1).normal(size=(200, 8))
    with pytest.raises(ValueError, match="refine_rounds"):
        nb.approximate_cosine_neighbors(X, 5, refine_rounds=-1)
    a = nb.approximate_cosine_neighbors(X, 5, refine_rounds=0)
    b = nb.approximate_cosine_neighbors(X, 5)  # dense: no refinement by default
    np.testing.assert_array_equal(a[0], b[0])
    c = nb.approximate_cosine_neighbors(X, 5, n_candidates=199, refine_rounds=2)
    np.testing.assert_array_equal(c[0], nb.exact_cosine_neighbors(X, 5)[0])


@pytest.mark.parametrize("layout", ["dense", "sparse"])
def test_row_blocks_do_not_change_rerank_or_refine(layout, monkeypatch):
    """Blocks of one or a few rows give the same lists and similarities as one block."""
    from hyperclust.operators._rerank import refine

    X = _binary_rows(n=40)
    Xn = nb._unit_rows(sp.csr_matrix(X) if layout == "sparse" else X)
    cand = _candidates_with_truth(X, 3, extra=5, seed=4)
    whole = rerank(Xn, cand, 3, "random", 2)
    again = refine(Xn, whole[0], 3, "random", 2)
    for block in (1, 50):
        monkeypatch.setattr(_rerank, "_BLOCK_ENTRIES", block)
        for got, ref in zip(rerank(Xn, cand, 3, "random", 2) + refine(Xn, whole[0], 3,
                                                                         "random", 2),
                            whole + again):
            np.testing.assert_array_equal(got, ref)
