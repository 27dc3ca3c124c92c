"""The optional compiled CSR kernel (hyperclust.operators.compiled_spmm): scipy's bits, and
the rule that chooses it; without numba (or switched off) csr_matmat stays on scipy's."""

import sys

import numpy as np
import pytest
import scipy.sparse as sp

import hyperclust.operators.compiled_spmm as compiled_spmm
from hyperclust.operators import kernels
from hyperclust.operators.kernels import csr_matmat


def _scipy_product(A, X, out):
    from scipy.sparse._sparsetools import csr_matvecs

    csr_matvecs(A.shape[0], A.shape[1], X.shape[1], A.indptr, A.indices, A.data,
                X.reshape(-1), out.reshape(-1))
    return out


def _matrix(rows, cols, density, dtype, index_dtype=np.int32, seed=0):
    A = sp.random(rows, cols, density=density, format="csr", dtype=dtype, random_state=seed)
    A.indices = A.indices.astype(index_dtype)
    A.indptr = A.indptr.astype(index_dtype)
    return A


@pytest.fixture
def always_compiled(monkeypatch):
    """Every product on the compiled kernel (no size or amortisation gate)."""
    pytest.importorskip("numba")
    monkeypatch.setattr(compiled_spmm, "MIN_WORK", 0)
    monkeypatch.setattr(compiled_spmm, "MIN_WIDTH", 0)
    monkeypatch.setattr(compiled_spmm, "MIN_DENSE_BYTES", 0)
    monkeypatch.setattr(compiled_spmm, "AMORTISE_WORK", 0)
    monkeypatch.delenv(compiled_spmm.ENV, raising=False)
    assert compiled_spmm.kernel() is not None


@pytest.mark.parametrize("dtype,index_dtype,width", [
    (np.float32, np.int32, 64), (np.float32, np.int32, 7), (np.float64, np.int64, 1),
    (np.float64, np.int64, 3)])
def test_compiled_is_bit_identical_to_scipy(always_compiled, dtype, index_dtype, width):
    A = _matrix(300, 200, 0.05, dtype, index_dtype)
    X = np.random.default_rng(1).standard_normal((200, width)).astype(dtype)
    out0 = np.random.default_rng(2).standard_normal((300, width)).astype(dtype)
    ref = _scipy_product(A, X, out0.copy())
    got = out0.copy()
    compiled_spmm.kernel()(A.indptr, A.indices, A.data, X, got, 0, 300, 16)
    assert np.array_equal(got, ref)  # accumulation into a nonzero out: same order too


def test_unsorted_duplicates_empty_rows_and_row_ranges(always_compiled):
    """Stored order is kept (unsorted indices, duplicate entries), empty rows add nothing,
    and ``lo:hi`` touches only its rows, with a prefetch distance past the last nonzero."""
    indptr = np.array([0, 3, 3, 5, 6], dtype=np.int32)
    indices = np.array([2, 0, 2, 1, 1, 0], dtype=np.int32)
    data = np.array([1e8, 1.0, -1e8, 0.5, 0.25, 3.0], dtype=np.float32)
    A = sp.csr_matrix((data, indices, indptr), shape=(4, 3))
    X = np.arange(6, dtype=np.float32).reshape(3, 2) + 0.1
    ref = _scipy_product(A, X, np.zeros((4, 2), np.float32))
    got = np.zeros((4, 2), np.float32)
    add = compiled_spmm.kernel()
    add(indptr, indices, data, X, got, 0, 2, 1000)
    assert np.array_equal(got[:2], ref[:2]) and not got[2:].any()
    add(indptr, indices, data, X, got, 2, 4, 1)
    assert np.array_equal(got, ref)


def test_csr_matmat_on_threads_matches_scipy(always_compiled, monkeypatch):
    """Row blocks on two threads or one, compiled or (HYPERCLUST_COMPILED=0) scipy's."""
    A = _matrix(500, 400, 0.03, np.float32)
    X = np.random.default_rng(3).standard_normal((400, 16)).astype(np.float32)
    ref = _scipy_product(A, X, np.zeros((500, 16), np.float32))
    monkeypatch.setattr(kernels, "PARALLEL_MIN_WORK", 0)
    calls = []
    add = compiled_spmm.kernel()
    monkeypatch.setattr(compiled_spmm, "_compiled", lambda *a: calls.append(a) or add(*a))
    assert np.array_equal(csr_matmat(A, X, n_threads=2), ref)
    assert np.array_equal(csr_matmat(A, X, n_threads=1), ref) and len(calls) == 3
    monkeypatch.setenv(compiled_spmm.ENV, "0")
    assert np.array_equal(csr_matmat(A, X, n_threads=2), ref) and len(calls) == 3


def test_rows_kernel_rule(monkeypatch):
    """Small, narrow, cached or non-float blocks and the switch stay on scipy's kernel; an
    eligible block runs on scipy's until AMORTISE_WORK multiply-adds have, then compiled."""
    monkeypatch.setattr(compiled_spmm, "_compiled", "kernel")  # as if numba had loaded
    monkeypatch.setattr(compiled_spmm, "AMORTISE_WORK", 10)
    monkeypatch.setattr(compiled_spmm, "MIN_WORK", 4)
    monkeypatch.setattr(compiled_spmm, "MIN_WIDTH", 2)
    monkeypatch.setattr(compiled_spmm, "MIN_DENSE_BYTES", 64)
    monkeypatch.delenv(compiled_spmm.ENV, raising=False)
    X = np.zeros((8, 2), np.float32)  # 64 bytes
    assert compiled_spmm.rows_kernel(3, X) is None
    assert compiled_spmm.rows_kernel(100, np.zeros((16, 1), np.float32)) is None
    assert compiled_spmm.rows_kernel(100, np.zeros((7, 2), np.float32)) is None
    assert compiled_spmm.rows_kernel(100, X.astype(np.int32)) is None
    assert compiled_spmm.rows_kernel(100, X) == "kernel"
    monkeypatch.setenv(compiled_spmm.ENV, "0")
    assert compiled_spmm.rows_kernel(100, X) is None
    monkeypatch.delenv(compiled_spmm.ENV)
    monkeypatch.setattr(compiled_spmm, "_compiled", None)
    monkeypatch.setattr(compiled_spmm, "_scipy_work", 0)
    monkeypatch.setattr(compiled_spmm, "kernel", lambda: "loaded")
    assert compiled_spmm.rows_kernel(6, X) is None  # 6 of 10 on scipy's
    assert compiled_spmm.rows_kernel(6, X) is None  # 12: paid for
    assert compiled_spmm.rows_kernel(6, X) == "loaded"


def test_without_numba_scipy_runs(monkeypatch):
    """No numba (or numba's JIT switched off): kernel() is None, products unchanged."""
    monkeypatch.setattr(compiled_spmm, "_compiled", None)
    monkeypatch.setattr(compiled_spmm, "MIN_WORK", 0)
    monkeypatch.setattr(compiled_spmm, "MIN_WIDTH", 0)
    monkeypatch.setattr(compiled_spmm, "MIN_DENSE_BYTES", 0)
    monkeypatch.setattr(compiled_spmm, "AMORTISE_WORK", 0)
    monkeypatch.setitem(sys.modules, "numba", None)
    monkeypatch.delitem(sys.modules, "hyperclust.operators._numba_spmm", raising=False)
    assert compiled_spmm.kernel() is None
    A = _matrix(50, 40, 0.1, np.float64)
    X = np.ones((40, 3))
    assert np.array_equal(csr_matmat(A, X), A @ X)


def test_disabled_jit_keeps_scipy(monkeypatch):
    numba = pytest.importorskip("numba")
    monkeypatch.setattr(compiled_spmm, "_compiled", None)
    monkeypatch.setattr(numba.config, "DISABLE_JIT", True)
    assert compiled_spmm.kernel() is None


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_one_column_on_csr_matvec_is_scipys_matvecs(monkeypatch, dtype):
    """Width 1 runs scipy's csr_matvec (sum in a register): the bits of csr_matvecs, also
    accumulating into a nonzero output and on a row range."""
    monkeypatch.setenv(compiled_spmm.ENV, "0")
    A = _matrix(300, 200, 0.05, dtype)
    X = np.random.default_rng(4).standard_normal((200, 1)).astype(dtype)
    out0 = np.random.default_rng(5).standard_normal((300, 1)).astype(dtype)
    ref = _scipy_product(A, X, out0.copy())
    got = out0.copy()
    kernels.add_product_rows(A, X, got, 0, 120)
    kernels.add_product_rows(A, X, got, 120, 300)
    assert np.array_equal(got, ref)
