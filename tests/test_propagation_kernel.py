"""The folded propagation operator against the unfolded dense formula, its buffers and the
threaded CSR kernel."""

import numpy as np
import pytest
import scipy.sparse as sp

from hyperclust import Hypergraph
from hyperclust.datasets.synthetic import hypergraph_sbm
from hyperclust.models.basis import polynomial_basis
from hyperclust.operators import kernels
from hyperclust.operators.kernels import csr_matmat, resolve_threads, row_blocks
from hyperclust.operators.propagation import BASIS_DTYPE, PropagationOperator

TOL = {np.float32: 1e-5, np.float64: 1e-12}


def _hypergraph():
    # nodes 7 and 8 are isolated; unequal weights and sizes
    return Hypergraph.from_edges([[0, 1, 2], [2, 3], [3, 4, 5, 0], [1, 6], [5, 6, 0]],
                                 n_nodes=9, weights=[1.0, 2.0, 0.5, 3.0, 1.5])


def dense_reference(hg, s, kind):
    """The old, unfolded formula: D_l (H W De^-1 H^T + s I) D_r in float64."""
    H = hg.incidence.toarray()
    M = H @ np.diag(hg.weights / H.sum(axis=0)) @ H.T + s * np.eye(hg.n_nodes)
    dv = H @ hg.weights + s
    inv = np.divide(1.0, dv, out=np.zeros_like(dv), where=dv > 0)
    if kind == "sym":
        return np.diag(np.sqrt(inv)) @ M @ np.diag(np.sqrt(inv))
    return np.diag(inv) @ M


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kind", ["sym", "rw"])
@pytest.mark.parametrize("s", [0.0, 1.0, 2.5])
def test_folded_operator_matches_unfolded_formula(dtype, kind, s):
    hg = _hypergraph()
    D = dense_reference(hg, s, kind)
    P = PropagationOperator(hg, self_loops=s, kind=kind, dtype=dtype)
    assert P.dtype == dtype
    X = np.random.default_rng(0).normal(size=(hg.n_nodes, 4))
    tol = TOL[dtype]
    Y = P.matmat(X)
    assert Y.dtype == dtype
    np.testing.assert_allclose(Y, D @ X, atol=tol, rtol=tol)
    np.testing.assert_allclose(P.matvec(X[:, 0]), D @ X[:, 0], atol=tol, rtol=tol)
    # the adjoint: P^T (differs from P for "rw")
    np.testing.assert_allclose(P.rmatmat(X), D.T @ X, atol=tol, rtol=tol)
    np.testing.assert_allclose(P.H.matmat(X), D.T @ X, atol=tol, rtol=tol)
    np.testing.assert_allclose(P.rmatvec(X[:, 1]), D.T @ X[:, 1], atol=tol, rtol=tol)
    # sparse input stays sparse
    Ys = P.matmat(sp.csr_matrix(X))
    assert sp.issparse(Ys)
    np.testing.assert_allclose(Ys.toarray(), D @ X, atol=tol, rtol=tol)
    # the explicit matrix is the float64 reference
    np.testing.assert_allclose(P.to_sparse().toarray(), D, atol=1e-12)
    np.testing.assert_allclose(P.apply_power(X, 3), np.linalg.matrix_power(D, 3) @ X,
                               atol=10 * tol, rtol=10 * tol)
    # isolated nodes: identity rows with self loops, zero rows without
    iso = np.flatnonzero(hg.isolated)
    assert iso.tolist() == [7, 8]
    np.testing.assert_allclose(Y[iso], X[iso] if s else 0.0, atol=tol)


@pytest.mark.parametrize("kind", ["sym", "rw"])
def test_apply_in_place_and_with_buffers(kind):
    hg = hypergraph_sbm(300, 3, n_features=0, isolated_fraction=0.1, random_state=3)
    P = PropagationOperator(hg, kind=kind, dtype=np.float32)
    X = np.random.default_rng(1).normal(size=(hg.n_nodes, 5)).astype(np.float32)
    ref = P.matmat(X)
    work = P.workspace(5)
    assert work.shape == (hg.n_edges, 5)
    out = np.full_like(X, np.nan)
    assert P.apply(X, out=out, work=work) is out
    np.testing.assert_array_equal(out, ref)
    Y = X.copy()
    assert P.apply(Y, out=Y, work=work) is Y  # in place
    np.testing.assert_array_equal(Y, ref)
    with pytest.raises(ValueError, match="out must be"):
        P.apply(X, out=np.empty((hg.n_nodes, 5)))  # float64 buffer
    with pytest.raises(ValueError, match="work must be"):
        P.apply(X, work=np.empty((3, 5), dtype=np.float32))
    with pytest.raises(ValueError, match="X must have shape"):
        P.apply(X[:-1])


def test_float32_and_float64_agree_on_a_larger_graph():
    hg = hypergraph_sbm(2000, 4, n_features=0, isolated_fraction=0.05, random_state=0)
    X = np.random.default_rng(0).normal(size=(hg.n_nodes, 8))
    P64 = PropagationOperator(hg)
    P32 = PropagationOperator(hg, dtype="float32")
    np.testing.assert_allclose(P32.apply_power(X, 4), P64.apply_power(X, 4), atol=1e-5)
    ref = P64.to_sparse() @ X
    np.testing.assert_allclose(P64.matmat(X), ref, atol=1e-12)


@pytest.mark.parametrize("kind", ["power", "laplacian", "chebyshev"])
def test_basis_float32_in_place_matches_float64_reference(kind):
    hg = _hypergraph()
    D = dense_reference(hg, 1.0, "sym")
    X = np.random.default_rng(2).normal(size=(hg.n_nodes, 3))
    S = {"power": D, "laplacian": np.eye(hg.n_nodes) - D,
         "chebyshev": 2 * D - np.eye(hg.n_nodes)}[kind]
    ref = [X, S @ X]
    for k in range(2, 5):
        ref.append(S @ ref[-1] if kind != "chebyshev" else 2 * S @ ref[-1] - ref[-2])
    for dtype in (np.float64, np.float32):
        B = polynomial_basis(PropagationOperator(hg, dtype=dtype), X, 4, kind)
        assert B.dtype == dtype and B.shape == (5, hg.n_nodes, 3)
        np.testing.assert_allclose(B, np.stack(ref), atol=TOL[dtype] * 10, rtol=TOL[dtype])
    # an explicit dtype differing from the operator's takes the generic path
    B = polynomial_basis(PropagationOperator(hg, dtype=np.float32), X, 4, kind, dtype=np.float64)
    assert B.dtype == np.float64
    np.testing.assert_allclose(B, np.stack(ref), atol=1e-4)
    with pytest.raises(ValueError, match="dtype must be"):
        polynomial_basis(PropagationOperator(hg), X, 2, dtype=np.int32)


def test_bad_parameters_are_one_line_errors():
    hg = _hypergraph()
    with pytest.raises(ValueError, match="dtype must be float32 or float64"):
        PropagationOperator(hg, dtype=np.int64)
    with pytest.raises(ValueError, match="dtype must be float32 or float64"):
        PropagationOperator(hg, dtype="nonsense")
    with pytest.raises(ValueError, match="n_threads must be"):
        PropagationOperator(hg, n_threads=0)
    with pytest.raises(ValueError, match="n_threads must be"):
        resolve_threads(True)


def test_basis_dtype_is_float32():
    assert BASIS_DTYPE == np.float32


# --- the CSR kernel ---------------------------------------------------------------------

def _random_csr(r, c, nnz, dtype, seed=0):
    rng = np.random.default_rng(seed)
    A = sp.csr_matrix((rng.normal(size=nnz), (rng.integers(0, r, nnz), rng.integers(0, c, nnz))),
                      shape=(r, c), dtype=dtype)
    A.sum_duplicates()
    return A


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n_threads", [1, 2, 3])
def test_csr_matmat_matches_scipy_on_row_blocks(dtype, n_threads, monkeypatch):
    monkeypatch.setattr(kernels, "PARALLEL_MIN_WORK", 0)  # force the threaded path
    A = _random_csr(501, 203, 3000, dtype)
    X = np.random.default_rng(1).normal(size=(203, 7)).astype(dtype)
    ref = (A.astype(np.float64) @ X.astype(np.float64))
    out = csr_matmat(A, X, n_threads=n_threads)
    np.testing.assert_allclose(out, ref, rtol=TOL[dtype], atol=TOL[dtype])
    acc = np.ones((501, 7), dtype=dtype)
    csr_matmat(A, X, acc, accumulate=True, n_threads=n_threads)
    np.testing.assert_allclose(acc, ref + 1, rtol=TOL[dtype], atol=TOL[dtype])
    junk = np.full((501, 7), 5.0, dtype=dtype)
    csr_matmat(A, X, junk, n_threads=n_threads)  # overwrite, not accumulate
    np.testing.assert_allclose(junk, ref, rtol=TOL[dtype], atol=TOL[dtype])


def test_csr_matmat_rejects_bad_buffers():
    A = _random_csr(10, 6, 20, np.float32)
    X = np.ones((6, 2), dtype=np.float32)
    with pytest.raises(ValueError, match="X must be a C-contiguous float32"):
        csr_matmat(A, X.astype(np.float64))
    with pytest.raises(ValueError, match="X must be a C-contiguous"):
        csr_matmat(A, np.ones((2, 6), dtype=np.float32).T)
    with pytest.raises(ValueError, match="out must be"):
        csr_matmat(A, X, np.ones((9, 2), dtype=np.float32))
    with pytest.raises(ValueError, match="must not overlap"):
        sq = _random_csr(6, 6, 10, np.float32)
        csr_matmat(sq, X, X)
    with pytest.raises(TypeError, match="CSR"):
        csr_matmat(A.tocoo(), X)


def test_row_blocks_balance_nonzeros():
    A = _random_csr(1000, 50, 8000, np.float64, seed=4)
    for k in (1, 2, 3, 7):
        b = row_blocks(A.indptr, k)
        assert b[0] == 0 and b[-1] == 1000 and len(b) == k + 1
        assert np.all(np.diff(b) >= 0)
        per = np.diff(A.indptr[b])
        assert per.sum() == A.nnz
        assert per.max() <= A.nnz / k + np.diff(A.indptr).max()
    # an all-empty matrix still gives valid bounds
    b = row_blocks(np.zeros(6, dtype=np.int32), 3)
    assert b[0] == 0 and b[-1] == 5 and np.all(np.diff(b) >= 0)


def test_threads_follow_the_thread_policy():
    from hyperclust.runtime.threads import thread_limit

    with thread_limit(3):
        assert resolve_threads() == 3
    assert resolve_threads(2) == 2


# --- the folded normalized affinity of the spectral path ---------------------------------

@pytest.mark.parametrize("tau", [0.0, 0.7])
@pytest.mark.parametrize("which", ["zhou", "zhou-loops", "collapsed"])
def test_folded_normalized_affinity_matches_unfolded(tau, which):
    from scipy.sparse.linalg import LinearOperator, aslinearoperator

    from hyperclust.operators import StarCollapsedOperator, ZhouLaplacian
    from hyperclust.operators.eigensolvers import NormalizedAffinity

    hg = _hypergraph()  # isolated nodes 7, 8
    if which == "collapsed":
        M, d = StarCollapsedOperator(hg, eps=1.0).affinity()
    else:
        M, d = ZhouLaplacian(hg, kind="unnormalized",
                             self_loops=0.5 if which == "zhou-loops" else 0.0).affinity()
    folded = NormalizedAffinity(M, d, tau)
    wrapped = LinearOperator(M.shape, matvec=M.matvec, matmat=M.matmat, dtype=np.float64)
    plain = NormalizedAffinity(wrapped, d, tau)
    assert folded._folded is not None and plain._folded is None
    Md = M.to_dense() if hasattr(M, "to_dense") else aslinearoperator(M).matmat(np.eye(9))
    dt = d + tau
    s = np.divide(1.0, np.sqrt(dt), out=np.zeros_like(dt), where=dt > 0)
    ref = np.diag(s) @ (Md + tau / 9 * np.ones((9, 9))) @ np.diag(s)
    X = np.random.default_rng(0).normal(size=(9, 3))
    np.testing.assert_allclose(folded.matmat(X), ref @ X, atol=1e-12)
    np.testing.assert_allclose(plain.matmat(X), ref @ X, atol=1e-12)
    np.testing.assert_allclose(folded.matvec(X[:, 0]), ref @ X[:, 0], atol=1e-12)


@pytest.mark.parametrize("kind", ["sym", "rw"])
@pytest.mark.parametrize("self_loops", [0.0, 1.0])
def test_column_quadratic_forms_equal_the_dense_formula(kind, self_loops):
    from hyperclust.datasets import hypergraph_sbm
    from hyperclust.operators import PropagationOperator
    hg = hypergraph_sbm(120, 3, isolated_fraction=0.1, random_state=2)
    X = np.random.default_rng(0).normal(size=(120, 5))
    for dtype, rtol in ((np.float64, 1e-10), (np.float32, 1e-4)):
        P = PropagationOperator(hg, kind=kind, self_loops=self_loops, dtype=dtype)
        dense = PropagationOperator(hg, kind=kind, self_loops=self_loops).to_sparse().toarray()
        expected = np.einsum("ij,ik,kj->j", X, dense, X)
        got = P.column_quadratic_forms(X)
        assert got.dtype == np.float64 and got.shape == (5,)
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=rtol * np.abs(expected).max())


@pytest.mark.parametrize("kind", ["sym", "rw"])
@pytest.mark.parametrize("op_dtype", [np.float32, np.float64])
@pytest.mark.parametrize("in_dtype", [np.float32, np.float64])
def test_matmul_keeps_float32_input_in_float32(kind, op_dtype, in_dtype):
    """``P @ X``, ``P.T @ X`` and ``P @ x``: float32 in, float32 out, whatever the operator's
    dtype; float64 in, the operator's dtype out (a float32 operator stays float32). Values
    equal the float64 dense formula to the precision of the narrower dtype."""
    hg = _hypergraph()
    P = PropagationOperator(hg, self_loops=1.0, kind=kind, dtype=op_dtype)
    D = dense_reference(hg, 1.0, kind)
    X = np.random.default_rng(0).normal(size=(hg.n_nodes, 3)).astype(in_dtype)
    expected = np.float32 if np.float32 in (in_dtype, op_dtype) else np.float64
    for got, ref in [(P @ X, D @ X), (P.T @ X, D.T @ X), (P @ X[:, 0], D @ X[:, 0]),
                     (P.T @ X[:, 0], D.T @ X[:, 0]), (P.matmat(X), D @ X)]:
        assert got.dtype == expected and got.shape == ref.shape
        np.testing.assert_allclose(got, ref, atol=TOL[expected])


def test_float32_product_on_a_float64_operator_equals_the_float32_operator():
    hg = hypergraph_sbm(300, 3, random_state=0)
    X = np.random.default_rng(1).normal(size=(300, 4)).astype(np.float32)
    P64 = PropagationOperator(hg, kind="rw")
    P32 = PropagationOperator(hg, kind="rw", dtype=np.float32)
    np.testing.assert_array_equal(P64 @ X, P32.apply(X))
    np.testing.assert_array_equal(P64.T @ X, P32.apply(X, adjoint=True))
    assert (P64 @ X.astype(np.float64)).dtype == np.float64
