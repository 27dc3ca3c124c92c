"""AHCKA's fused iteration loop, buffered walk and thin QR: each equals the plain computation."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from hyperclust.cluster.ahcka import AHCKA, adaptive_iterations, discretize
from hyperclust.operators.buffered_walk import BufferedMixedWalk
from hyperclust.operators.thin_qr import thin_qr
from hyperclust.datasets.synthetic import hypergraph_sbm
from hyperclust.selection.objectives import is_degenerate, rwr_conductance
from hyperclust.operators import kernels
from hyperclust.operators.knn import MixedWalk, knn_affinity


def plain_iterations(hg, M, q, init_labels, *, k, start, alpha, max_iter, check_interval,
                     patience, n_hops):
    """The loop as the paper states it: QR(M q) every iteration, every check scored by
    rwr_conductance with its own products, stop after ``patience`` rises in a row; the best
    check is the lowest-scoring non-degenerate one (any, when all are degenerate)."""
    def score(labels):
        return rwr_conductance(hg, labels, walk=M, alpha=alpha, n_hops=n_hops)

    def rank(f, labels):
        return (is_degenerate(labels, k), f)

    best = (score(init_labels), init_labels, q[:, :k].copy(), 0)
    history, rises, last, it = [(0, best[0])], 0, best[0], 0
    for it in range(1, max_iter + 1):
        q, _ = np.linalg.qr(np.asarray(M @ q))
        if it % check_interval:
            continue
        labels = discretize(q[:, :k], start=start)
        f = score(labels)
        history.append((it, f))
        if rank(f, labels) < rank(best[0], best[1]):
            best = (f, labels, q[:, :k].copy(), it)
        rises = rises + 1 if f > last else 0
        last = f
        if rises >= patience:
            break
    return best, history, it


def _walk(attributed, seed=0, n=300):
    hg = hypergraph_sbm(n, 3, homophily=0.6, n_features=8 if attributed else 0,
                        feature_snr=0.5, isolated_fraction=0.05, random_state=seed)
    knn = knn_affinity(hg.features, 6) if attributed else None
    return hg, MixedWalk(hg, knn, beta=0.4)


@pytest.mark.parametrize("attributed", [True, False])
@pytest.mark.parametrize("params", [
    dict(max_iter=200, check_interval=5, patience=3, n_hops=3),   # the defaults
    dict(max_iter=60, check_interval=1, patience=2, n_hops=3),    # checks overlap in flight
    dict(max_iter=23, check_interval=4, patience=1, n_hops=5),
    dict(max_iter=17, check_interval=5, patience=3, n_hops=0),    # score needs no product
    dict(max_iter=0, check_interval=5, patience=3, n_hops=3),
])
def test_fused_loop_equals_the_plain_loop(attributed, params):
    hg, M = _walk(attributed)
    k = 3
    rng = np.random.default_rng(1)
    q, _ = np.linalg.qr(rng.normal(size=(hg.n_nodes, k + 1)))
    init = rng.integers(k, size=hg.n_nodes)
    kw = dict(k=k, start=5, alpha=0.2, **params)
    got_best, got_hist, got_iter = adaptive_iterations(M, q, init, **kw)
    ref_best, ref_hist, ref_iter = plain_iterations(hg, M, q, init, **kw)
    assert got_iter == ref_iter
    assert [it for it, _ in got_hist] == [it for it, _ in ref_hist]
    np.testing.assert_allclose([f for _, f in got_hist], [f for _, f in ref_hist],
                               rtol=1e-12, atol=1e-14)
    np.testing.assert_array_equal(got_best[1], ref_best[1])
    assert got_best[3] == ref_best[3]
    np.testing.assert_allclose(got_best[2], ref_best[2], atol=1e-12)


def test_early_stop_fires_where_the_plain_loop_stops():
    # a weak planted structure: the score rises three checks in a row well before max_iter
    hg, M = _walk(False, seed=3, n=600)
    q, _ = np.linalg.qr(np.random.default_rng(0).normal(size=(600, 4)))
    init = np.zeros(600, dtype=np.int64)
    kw = dict(k=3, start=0, alpha=0.2, max_iter=200, check_interval=5, patience=3, n_hops=3)
    _, hist, n_iter = adaptive_iterations(M, q, init, **kw)
    assert n_iter < 200 and hist[-1][0] == n_iter
    f = [v for _, v in hist]
    assert f[-1] > f[-2] > f[-3] > f[-4]  # the three rises that stopped it
    assert n_iter == plain_iterations(hg, M, q, init, **kw)[2]


def test_fit_uses_the_fused_loop_and_matches_the_plain_one():
    hg = hypergraph_sbm(500, 3, homophily=0.7, n_features=8, feature_snr=0.5, random_state=4)
    est = AHCKA(3).fit(hg)
    M = est.walk_
    deg = np.asarray(hg.weighted_degrees, dtype=np.float64)
    seeds = np.argsort(-deg, kind="stable")[:3]
    from hyperclust.cluster.ahcka import _indicator_columns, rwr_seed_assignment
    init = rwr_seed_assignment(M, seeds, 0.2, 5)
    Y0 = np.zeros((500, 3))
    Y0[init >= 0] = _indicator_columns(init[init >= 0], 3)
    q, _ = np.linalg.qr(np.column_stack([Y0, np.full(500, 1 / np.sqrt(500))]))
    best, hist, n_iter = plain_iterations(hg, M, q, np.where(init >= 0, init, 0), k=3,
                                          start=int(seeds[0]), alpha=0.2, max_iter=200,
                                          check_interval=5, patience=3, n_hops=3)
    np.testing.assert_array_equal(est.labels_, best[1])
    assert (est.n_iter_, est.best_iter_) == (n_iter, best[3])
    assert est.objective_ == pytest.approx(best[0], rel=1e-12)


@pytest.mark.parametrize("attributed,self_loops", [(True, 0.0), (False, 0.0), (True, 0.5)])
@pytest.mark.parametrize("threads", [1, 2])
def test_buffered_walk_equals_the_walk_bit_for_bit(monkeypatch, attributed, self_loops,
                                                   threads):
    monkeypatch.setattr(kernels, "PARALLEL_MIN_WORK", 0)  # run the threaded path at this size
    hg, _ = _walk(attributed, seed=2)
    knn = knn_affinity(hg.features, 6) if attributed else None
    M = MixedWalk(hg, knn, beta=0.4, self_loops=self_loops)
    apply_walk = BufferedMixedWalk(M, n_threads=threads)
    rng = np.random.default_rng(0)
    for width in (5, 9, 1, 5):  # buffers are reused across widths
        X = rng.normal(size=(hg.n_nodes, width))
        expected = M @ X
        np.testing.assert_array_equal(apply_walk(X), expected)
        out = apply_walk(X, overwrite_input=True)  # the same product, written over X
        np.testing.assert_array_equal(out, expected)
        assert (out is X) == (self_loops == 0)  # self loops read X after the product


def test_buffered_walk_of_another_operator_is_its_product():
    A = sp.random(30, 30, density=0.2, random_state=0, format="csr")
    X = np.random.default_rng(0).normal(size=(30, 4))
    np.testing.assert_array_equal(BufferedMixedWalk(A)(X), A @ X)


@pytest.mark.parametrize("shape", [(200, 5), (120, 40), (7, 7), (4, 6)])
def test_thin_qr_is_numpys_q(shape):
    A = np.random.default_rng(0).normal(size=shape)
    Q = thin_qr(A)
    np.testing.assert_allclose(Q, np.linalg.qr(A)[0], atol=1e-12)  # signs included
    np.testing.assert_allclose(Q.T @ Q, np.eye(min(shape)), atol=1e-12)


def test_thin_qr_rejects_an_empty_block():
    with pytest.raises(ValueError, match="non-empty block"):
        thin_qr(np.ones((2, 0)))


def test_as_many_clusters_as_nodes():
    # the start block (k + 1 columns) is then wider than tall: Q is square, as numpy's
    from hyperclust import Hypergraph
    hg = Hypergraph.from_edges([[0, 1], [1, 2], [3, 4]], n_nodes=5)
    M = MixedWalk(hg)
    q, _ = np.linalg.qr(np.random.default_rng(0).normal(size=(5, 6)))
    kw = dict(k=5, start=0, alpha=0.2, max_iter=20, check_interval=5, patience=3, n_hops=3)
    got = adaptive_iterations(M, q, np.arange(5), **kw)
    ref = plain_iterations(hg, M, q, np.arange(5), **kw)
    np.testing.assert_array_equal(got[0][1], ref[0][1])
    assert [i for i, _ in got[1]] == [i for i, _ in ref[1]] and got[2] == ref[2]
    np.testing.assert_allclose([f for _, f in got[1]], [f for _, f in ref[1]], rtol=1e-12)
    assert AHCKA(5).fit(hg).labels_.shape == (5,)


@pytest.mark.parametrize("name", ["bench_ahcka_phases", "bench_ahcka_identity"])
def test_benchmark_scripts_answer_help(name, capsys):
    import importlib.util
    from pathlib import Path

    folder = Path(__file__).resolve().parents[1] / "benchmarks"
    path = next(p for p in (folder / f"{name}.py", folder / "studies" / f"{name}.py")
                if p.exists())
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(SystemExit) as exit_:
        module.main(["--help"])
    assert exit_.value.code == 0 and capsys.readouterr().out.startswith("usage:")


def test_thin_qr_into_a_work_array_is_the_fresh_factor():
    A = np.random.default_rng(1).normal(size=(40, 4))
    A[[3, 17]] = 0.0
    work = np.asfortranarray(np.full((40, 4), 7.0))
    got = thin_qr(A, out=work)
    assert got is work
    np.testing.assert_array_equal(got, thin_qr(A))
    # a work array of another shape or layout, or one that is A, is not used
    for bad in (np.empty((40, 3), order="F"), np.empty((40, 4)), None):
        assert thin_qr(A, out=bad) is not bad
    F = np.asfortranarray(A)
    np.testing.assert_array_equal(thin_qr(F, out=F), thin_qr(A))


def test_single_cluster_keeps_each_checks_embedding():
    # k = 1: the embedding column is contiguous either way (a view of the iterate block,
    # which the next QR rewrites, unless copied); the caller's start block is not modified
    hg, M = _walk(False)
    q, _ = np.linalg.qr(np.random.default_rng(2).normal(size=(hg.n_nodes, 2)))
    start_block = q.copy()
    kw = dict(k=1, start=0, alpha=0.2, max_iter=12, check_interval=3, patience=3, n_hops=3)
    got = adaptive_iterations(M, q, np.zeros(hg.n_nodes, dtype=np.int64), **kw)
    ref = plain_iterations(hg, M, q, np.zeros(hg.n_nodes, dtype=np.int64), **kw)
    np.testing.assert_array_equal(q, start_block)
    assert got[0][3] == ref[0][3] and got[2] == ref[2]
    np.testing.assert_allclose(got[0][2], ref[0][2], atol=1e-12)
