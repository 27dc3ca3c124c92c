"""The collapsed factoring of the propagation operator: when it is attempted, formed and kept,
and that its products equal the pair's (the unfolded dense formula)."""

import numpy as np
import pytest
import scipy.sparse as sp

from hyperclust import Hypergraph
from hyperclust.operators import factoring
from hyperclust.operators.factoring import CollapsePlan, collapsed_matrix, estimated_nnz
from hyperclust.operators.propagation import PropagationOperator

from test_propagation_kernel import TOL, dense_reference


def _many_edges(n=7, m=300, seed=0):
    """More hyperedges than nodes, overlapping heavily: the collapsed matrix (at most n^2 =
    49 entries) is far smaller than the pair (2 nnz ~ 1,500); node 6 is isolated."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(2, 5, m)
    edges = [rng.choice(n - 1, s, replace=False) for s in sizes]
    return Hypergraph.from_edges(edges, n_nodes=n, weights=rng.uniform(0.5, 2.0, m))


def _run_until_switched(P, width=3, limit=10_000):
    X = np.ones((P.shape[0], width), dtype=P.dtype)
    for i in range(limit):
        if P._collapse.due():
            return i
        P.apply(X)
    raise AssertionError("never due")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kind", ["sym", "rw"])
@pytest.mark.parametrize("s", [0.0, 1.0])
def test_collapsed_products_equal_the_dense_formula(dtype, kind, s):
    hg = _many_edges()
    D = dense_reference(hg, s, kind)
    P = PropagationOperator(hg, self_loops=s, kind=kind, dtype=dtype)
    X = np.random.default_rng(1).standard_normal((hg.n_nodes, 4))
    before = P.apply(X)
    _run_until_switched(P)
    after = P.apply(X)
    assert P._collapsed[(False, np.dtype(dtype))] is not None  # the product used A
    for Y in (before, after):
        assert Y.dtype == dtype
        np.testing.assert_allclose(Y, D @ X, atol=TOL[dtype], rtol=TOL[dtype])
    np.testing.assert_allclose(P.apply(X, adjoint=True), D.T @ X, atol=TOL[dtype],
                               rtol=TOL[dtype])
    np.testing.assert_allclose(P.T @ X.astype(np.float32), D.T @ X, atol=1e-5, rtol=1e-5)
    Z = np.array(X, dtype=dtype)
    work = P.workspace(4)
    assert P.apply(Z, out=Z, work=work) is Z  # in place, through the work block
    np.testing.assert_allclose(Z, D @ X, atol=TOL[dtype], rtol=TOL[dtype])
    np.testing.assert_allclose(P.apply_power(X, 3), np.linalg.matrix_power(D, 3) @ X,
                               atol=10 * TOL[dtype], rtol=10 * TOL[dtype])


def test_it_switches_once_the_pair_has_done_the_forming_work():
    hg = _many_edges()
    P = PropagationOperator(hg)
    squares = int((hg.edge_sizes.astype(np.int64) ** 2).sum())
    assert P._collapse.budget == factoring.FORM_COST * squares
    done = _run_until_switched(P, width=3)
    assert done == int(np.ceil(P._collapse.budget / P._collapse.work(3)))
    assert not P._collapsed  # formed at the next product, not before
    P.apply(np.ones((hg.n_nodes, 3)))
    assert P._collapsed[(False, np.dtype(np.float64))].nnz <= hg.n_nodes ** 2


@pytest.mark.parametrize("estimate", ["sampled", "too low"])
def test_a_collapsed_matrix_larger_than_the_pair_is_dropped(estimate, monkeypatch):
    # a few large hyperedges over many nodes: A is nearly dense, far above 2 nnz(H)
    hg = Hypergraph.from_edges([list(range(0, 20)), list(range(10, 30))], n_nodes=30)
    P = PropagationOperator(hg)
    assert P._collapse.budget is None  # bound 30^2 > 4 * 2 * 40: never attempted
    plan = CollapsePlan(30, 40, np.array([20, 20]))
    assert not plan.keep(81) and plan.keep(80)
    if estimate == "too low":  # the estimate lets it through: the formed matrix is refused
        monkeypatch.setattr("hyperclust.operators.factoring.estimated_nnz", lambda H, Ht: 0)
    P._collapse.budget = 0.0  # force the attempt
    X = np.random.default_rng(0).standard_normal((30, 2))
    np.testing.assert_allclose(P.apply(X), dense_reference(hg, 1.0, "sym") @ X, atol=1e-12)
    assert P._collapsed == {(False, np.dtype(np.float64)): None}
    assert P._collapse.budget is None  # never attempted again


def test_the_estimate_counts_sampled_rows_and_the_diagonal():
    hg = _many_edges(n=3000, m=2000)
    H, Ht = hg.incidence.tocsr(), hg.incidence_t.tocsr()
    exact = (H @ Ht).nnz + int((np.diff(H.indptr) == 0).sum())
    assert abs(estimated_nnz(H, Ht) - exact) <= 0.05 * exact
    small = _many_edges()
    H, Ht = small.incidence.tocsr(), small.incidence_t.tocsr()
    assert estimated_nnz(H, Ht) == (H @ Ht).nnz + 1  # every row counted; node 6 isolated


def test_an_operator_used_once_never_forms_it():
    hg = _many_edges()
    P = PropagationOperator(hg)
    P.apply(np.ones((hg.n_nodes, 2)))
    assert not P._collapsed and not P._collapse.due()


def test_collapsed_matrix_is_sorted_and_equals_the_formula():
    rng = np.random.default_rng(3)
    H = sp.random(12, 40, density=0.3, random_state=4, format="csr")
    H.data[:] = 1.0
    es, left, right = rng.uniform(0.1, 1, 40), rng.uniform(0.1, 1, 12), rng.uniform(0.1, 1, 12)
    Hd = H.toarray()
    Hd[:, :3] = 0.0
    Hd[0] = 0.0  # node 0 isolated
    Hd[1] = 0.0
    Hd[1, 39] = 1.0  # node 1 only in a hyperedge of scale 0: no stored diagonal entry
    es[39] = 0.0
    H = sp.csr_matrix(Hd)
    for diagonal in (0.5, np.where(np.arange(12) < 2, 0.0, 0.5), 0.0):
        A = collapsed_matrix(H, H.T.tocsr(), es, left, right, diagonal, np.float32)
        ref = np.diag(left) @ (Hd @ np.diag(es) @ Hd.T + np.diag(
            np.broadcast_to(diagonal, (12,)))) @ np.diag(right)
        assert A.dtype == np.float32 and A.has_sorted_indices
        np.testing.assert_allclose(A.toarray(), ref, rtol=1e-6)


def test_products_are_deterministic_across_operators():
    hg = _many_edges()
    X = np.random.default_rng(5).standard_normal((hg.n_nodes, 3)).astype(np.float32)
    runs = []
    for _ in range(2):
        P = PropagationOperator(hg, dtype=np.float32)
        runs.append(np.stack([P.apply(X) for _ in range(300)]))
    assert np.array_equal(runs[0], runs[1])


@pytest.mark.parametrize("tau", [0.0, 0.5])
def test_the_spectral_affinity_switches_too_and_keeps_its_values(tau):
    from hyperclust.operators import ZhouLaplacian
    from hyperclust.operators.eigensolvers import NormalizedAffinity

    hg = _many_edges()
    M, d = ZhouLaplacian(hg, kind="unnormalized").affinity()
    N = NormalizedAffinity(M, d, tau)
    Md = M.to_dense()
    dt = d + tau
    s = np.divide(1.0, np.sqrt(dt), out=np.zeros_like(dt), where=dt > 0)
    ref = s[:, None] * (Md + tau / hg.n_nodes) * s[None, :]
    X = np.random.default_rng(2).standard_normal((hg.n_nodes, 2))
    results = []
    for _ in range(200):
        results.append(N @ X)
    assert N._collapsed is not None and N._collapsed.nnz <= hg.n_nodes ** 2
    for Y in (results[0], results[-1]):
        np.testing.assert_allclose(Y, ref @ X, atol=1e-12)


def test_collapsed_products_do_not_depend_on_the_threads(monkeypatch):
    from hyperclust.operators import kernels

    monkeypatch.setattr(kernels, "PARALLEL_MIN_WORK", 1)
    hg = _many_edges(n=40, m=2000)
    X = np.random.default_rng(6).standard_normal((hg.n_nodes, 5))
    runs = []
    for threads in (1, 2, 3):
        P = PropagationOperator(hg, n_threads=threads)
        _run_until_switched(P, width=5)
        runs.append(P.apply(X))
        assert P._collapsed[(False, np.dtype(np.float64))] is not None
    assert all(np.array_equal(runs[0], r) for r in runs[1:])
