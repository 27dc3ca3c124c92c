"""AHCKA's check on the kernel threads: the one-pass labels and label sums of the
discretisation, the restart-walk hops and objective in place, the indicators built dense,
and the start block freed at the first product."""

from __future__ import annotations

import weakref

import numpy as np
import pytest
import scipy.sparse as sp

import hyperclust.cluster.ahcka as ahcka
import hyperclust.cluster.block_argmax as block_argmax
from hyperclust.cluster.ahcka_checks import CheckQueue, dense_indicators
from hyperclust.cluster.block_argmax import (BLOCK_ENTRIES, first_near_maximum_down_columns,
                                             rotated_labels_and_sums)
from hyperclust.cluster.rounding import first_near_maximum
from hyperclust.datasets.synthetic import hypergraph_sbm
from hyperclust.runtime.threads import KERNELS, Kernel
from hyperclust.operators import kernels, row_ranges
from hyperclust.operators.row_ranges import csr_matmat_scaled, run_on_ranges
from hyperclust.selection.objectives import cluster_indicators
from hyperclust.runtime.threads import thread_limit


def test_first_near_maximum_down_columns_known_answers():
    Pt = np.array([[0.5, 1.0, np.nan, 0.0],
                   [0.5 + 1e-11, 2.0, 1.0, 0.0],
                   [0.1, 2.0 + 1e-11, 2.0, 0.0]])
    assert first_near_maximum_down_columns(Pt).tolist() == [0, 1, 0, 0]


@pytest.mark.parametrize("k", [1, 2, 4, 7])
def test_rotated_labels_and_sums_agree_with_the_whole_product_for_any_threads(k, monkeypatch):
    # several row blocks and a partial last one; ties in repeated and zero rows
    ranges = []
    monkeypatch.setattr(block_argmax, "run_on_ranges",
                        lambda task, bounds: ranges.append(len(bounds) - 1)
                        or run_on_ranges(task, bounds))
    rng = np.random.default_rng(k)
    n = 5 * (BLOCK_ENTRIES // k) + 13
    X = rng.normal(size=(n, k))
    X[::5] = X[1]
    X[::7] = 0.0
    R = np.linalg.qr(rng.normal(size=(k, k)))[0]
    labels = first_near_maximum(X @ R)
    sums = np.stack([np.bincount(labels, weights=X[:, j], minlength=k) for j in range(k)],
                    axis=1)
    got = []
    for threads in (1, 2, 3):
        got.append(rotated_labels_and_sums(X, R, n_threads=threads))
        np.testing.assert_array_equal(got[-1][0], labels)
        np.testing.assert_allclose(got[-1][1], sums, rtol=1e-12, atol=1e-12 * n)
    # block sums are added in block order: the same bits for any thread count
    assert all(np.array_equal(g[1], got[0][1]) for g in got)
    assert ranges == [1, 2, 3]


def test_rotated_labels_and_sums_known_answer_and_empty_input():
    X = np.array([[1.0, 0.0], [0.0, 1.0], [0.6, 0.8], [0.0, 0.0]])
    labels, sums = rotated_labels_and_sums(X, np.eye(2))
    assert labels.tolist() == [0, 1, 1, 0]
    assert sums.tolist() == [[1.0, 0.0], [0.6, 1.8]]
    labels, sums = rotated_labels_and_sums(X[:0], np.eye(2))
    assert labels.shape == (0,) and sums.tolist() == [[0.0, 0.0], [0.0, 0.0]]


def test_run_on_ranges_covers_every_range_once():
    out = np.zeros(10, dtype=int)

    def add_one(lo, hi):
        out[lo:hi] += 1

    run_on_ranges(add_one, [0, 3, 3, 7, 10])
    assert out.tolist() == [1] * 10
    run_on_ranges(add_one, [4])  # no range
    run_on_ranges(add_one, [0, 10])  # one range, on the calling thread
    assert out.tolist() == [2] * 10


@pytest.mark.parametrize("n_threads", [1, 2, 3])
def test_csr_matmat_scaled_is_the_separate_products_bit_for_bit(n_threads, monkeypatch):
    monkeypatch.setattr(row_ranges, "PARALLEL_MIN_WORK", 0)  # force the threaded path
    rng = np.random.default_rng(2)
    A = sp.random(501, 203, density=0.03, random_state=1, format="csr")
    X = rng.normal(size=(203, 5))
    s1, s2 = rng.random((501, 1)) + 0.5, rng.random((501, 1)) + 0.5
    expected = A @ X
    expected *= s1
    expected *= s2
    junk = np.full((501, 5), 5.0)  # overwritten, row block by row block
    out = csr_matmat_scaled(A, X, junk, (s1, s2), n_threads)
    assert out is junk
    np.testing.assert_array_equal(out, expected)
    empty = sp.csr_matrix((501, 203))
    assert not csr_matmat_scaled(empty, X, junk, (s1,), n_threads).any()


def test_dense_indicators_equal_the_sparse_ones():
    labels = np.array([3, 0, 3, 3, 5, 0, 5])  # empty ids 1, 2, 4 are skipped
    np.testing.assert_array_equal(dense_indicators(labels),
                                  cluster_indicators(labels).toarray())


def test_check_hops_and_objective_are_the_plain_expressions_bit_for_bit():
    # large enough for the row ranges to go to 2 threads
    rng = np.random.default_rng(0)
    n, k, alpha = 2**20 // 4 + 5, 4, 0.2
    labels = rng.integers(0, k, n)
    MZ = [rng.normal(size=(n, k)) for _ in range(2)]
    Y = cluster_indicators(labels).toarray()
    z = Y
    for hop in MZ:
        z = (1.0 - alpha) * hop + alpha * Y
    expected = float(1.0 - np.sum(Y * z) / k)
    with thread_limit(2):
        checks = CheckQueue(k, patience=3, n_hops=2)
        checks.add(0, labels, np.zeros((n, k)))
        for hop in MZ:
            assert checks.take_walks()[0].shape == (n, k)
            checks.walk_one_hop(hop, alpha)
            checks.close_finished()
    assert checks.history == [(0, expected)]


def test_the_start_block_does_not_outlive_the_first_product(monkeypatch):
    first_blocks = []
    alive_at_later_qrs = []
    thin_qr = ahcka.thin_qr

    def watched_thin_qr(X, out=None):
        q = thin_qr(X, out=out)
        if not first_blocks:
            first_blocks.append(weakref.ref(q))
        else:
            alive_at_later_qrs.append(first_blocks[0]() is not None)
        return q

    monkeypatch.setattr(ahcka, "thin_qr", watched_thin_qr)
    hg = hypergraph_sbm(300, 3, homophily=0.8, n_features=0, random_state=0)
    ahcka.AHCKA(3, max_iter=6, random_state=0).fit(hg)
    assert alive_at_later_qrs and not any(alive_at_later_qrs)


def test_fit_on_two_threads_is_the_one_thread_fit_bit_for_bit(monkeypatch):
    # every row-range pass and product split across threads at this small size
    monkeypatch.setitem(KERNELS, "row_ranges", Kernel(0, "entries"))
    monkeypatch.setattr(row_ranges, "PARALLEL_MIN_WORK", 0)
    monkeypatch.setattr(kernels, "PARALLEL_MIN_WORK", 0)
    monkeypatch.setitem(KERNELS, "discretize", Kernel(0, "entries"))
    monkeypatch.setattr(block_argmax, "BLOCK_ENTRIES", 64)  # many blocks per Yu-Shi step
    split = []
    plain = block_argmax.rotated_labels_and_sums

    def watched(X, R, tol=block_argmax.TIE_TOLERANCE, n_threads=1):
        split.append(n_threads)
        return plain(X, R, tol, n_threads)

    monkeypatch.setattr(ahcka, "rotated_labels_and_sums", watched)
    hg = hypergraph_sbm(600, 3, homophily=0.8, n_features=8, random_state=1)
    fits = []
    for threads in (1, 2):
        with thread_limit(threads):
            fits.append(ahcka.AHCKA(3, random_state=0).fit(hg))
    one, two = fits
    assert 1 in split and 2 in split  # the checks' steps ran on 1, then on 2 threads
    np.testing.assert_array_equal(one.labels_, two.labels_)
    np.testing.assert_array_equal(one.embedding_, two.embedding_)
    assert one.objective_history_ == two.objective_history_
    assert (one.n_iter_, one.best_iter_) == (two.n_iter_, two.best_iter_)
