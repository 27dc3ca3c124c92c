"""The NN-descent study's search (benchmarks/studies/knn_descent.py, docs/results/knn_descent.md)
finds what it claims: exact neighbours when one leaf holds every row, a converged graph from a
random seed, and pools that do not depend on the thread count."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

from hyperclust.operators.neighbors import exact_cosine_neighbors
from hyperclust.runtime.threads import thread_limit

_PATH = Path(__file__).resolve().parents[1] / "benchmarks" / "studies" / "knn_descent.py"
_spec = importlib.util.spec_from_file_location("knn_descent", _PATH)
study = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(study)


def _unit_rows(n, d, seed=0):
    X = np.random.default_rng(seed).normal(size=(n, d))
    return X, (X / np.linalg.norm(X, axis=1, keepdims=True)).astype(np.float32)


def _recall(ids, exact):
    return np.mean([np.intersect1d(a, b).size / exact.shape[1] for a, b in zip(ids, exact)])


def test_one_leaf_is_the_exact_search_and_leaves_are_balanced():
    X, Xf = _unit_rows(300, 8)
    exact, _ = exact_cosine_neighbors(X, 5)
    rng = np.random.default_rng(0)
    cand = study.rp_forest_candidates(Xf, 1, 300, 5, rng)
    assert _recall(cand, exact) == 1.0
    perm, starts = study._rp_tree(Xf, 40, rng)
    assert np.array_equal(np.sort(perm), np.arange(300))
    assert set(np.diff(starts)) <= {37, 38}  # 300 / 8, every cell halved at its median


def test_rounds_converge_from_a_random_seed():
    X, Xf = _unit_rows(500, 6)
    exact, _ = exact_cosine_neighbors(X, 5)
    rng = np.random.default_rng(1)
    seed = rng.integers(0, 500, size=(500, 10)).astype(np.int32)
    pools = [ids.copy() for _, ids in study.descent(Xf, seed, 10, 8, 10, rng)]
    assert _recall(pools[0][:, :5], exact) < 0.1
    assert _recall(pools[-1][:, :5], exact) > 0.99
    assert all((p != np.arange(500)[:, None]).all() for p in pools)  # never the row itself
    for p in pools:  # no duplicates
        s = np.sort(p, axis=1)
        assert not ((s[:, 1:] == s[:, :-1]) & (s[:, 1:] >= 0)).any()
    assert (pools[-1] >= 0).all()


def test_pools_do_not_depend_on_threads():
    _, Xf = _unit_rows(2000, 16)
    runs = []
    for threads in (1, 2):
        with thread_limit(threads):
            runs.append([ids.copy() for _, _, ids in study.run_variant(Xf, "rp2x32:p12:w6:r3")])
    assert all(np.array_equal(a, b) for a, b in zip(*runs))
