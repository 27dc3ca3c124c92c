"""Heat diffusion ``exp(-t S) V`` and resolvent smoothing ``(I + tau S)^-1 V`` for any
symmetric PSD operator, without densifying it."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator, aslinearoperator, cg, eigsh, expm_multiply, splu
from scipy.special import ive

from .base import as_dense_block
from .schur import SchurComplement

__all__ = ["spectral_upper_bound", "heat_diffusion", "resolvent_smooth"]


def spectral_upper_bound(op) -> float:
    """An upper bound on the largest eigenvalue of a symmetric PSD operator (Gershgorin for sparse
    matrices, ``A``'s for a :class:`SchurComplement`, else Lanczos inflated by 5%).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> L = sp.csr_matrix(np.array([[1.0, -1.0, 0.0], [-1.0, 2.0, -1.0], [0.0, -1.0, 1.0]]))
    >>> spectral_upper_bound(L)
    4.0
    """
    if sp.issparse(op):
        return float(abs(op).sum(axis=1).max())
    if isinstance(op, SchurComplement) and sp.issparse(op.A):
        return spectral_upper_bound(op.A)
    n = op.shape[0]
    if n <= 3:
        M = aslinearoperator(op).matmat(np.eye(n))
        return float(np.linalg.eigvalsh(0.5 * (M + M.T)).max())
    v0 = np.random.default_rng(0).standard_normal(n)
    val = eigsh(aslinearoperator(op), k=1, which="LA", tol=1e-3, v0=v0, return_eigenvectors=False)
    return float(val[0]) * 1.05 + 1e-12


def heat_diffusion(op, V, t: float, method: str = "chebyshev", tol: float = 1e-10,
                   lambda_max: float | None = None, max_terms: int = 10_000):
    """``exp(-t S) V`` for a symmetric PSD operator ``S``, same shape as ``V``.

    ``method="chebyshev"``: Chebyshev expansion on ``[0, lambda_max]`` (default
    :func:`spectral_upper_bound`); ``"expm"``: scipy's ``expm_multiply``.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> L = sp.csr_matrix(np.array([[1.0, -1.0, 0.0], [-1.0, 2.0, -1.0], [0.0, -1.0, 1.0]]))
    >>> heat_diffusion(L, np.ones(3), t=1.0)
    array([1., 1., 1.])
    >>> np.allclose(heat_diffusion(L, np.array([1.0, 0.0, -1.0]), t=1.0), np.exp(-1) * np.array([1, 0, -1]))
    True
    """
    if not np.isfinite(t) or t < 0:
        raise ValueError(f"t must be finite and non-negative, got {t!r}")
    X, was_1d = as_dense_block(V)
    if X.shape[0] != op.shape[0]:
        raise ValueError(f"V has {X.shape[0]} rows, expected {op.shape[0]}")
    L = aslinearoperator(op)
    if method == "expm":
        if sp.issparse(op):
            Y = expm_multiply(-t * sp.csr_matrix(op), X)
        else:
            trace = float(np.trace(L.matmat(np.eye(op.shape[0])))) if op.shape[0] <= 5000 else None
            if trace is None:
                raise ValueError("method='expm' on a matrix-free operator needs n <= 5000; use 'chebyshev'")
            Y = expm_multiply(-t * L, X, traceA=-t * trace)
    elif method == "chebyshev":
        lam = spectral_upper_bound(op) if lambda_max is None else float(lambda_max)
        b = lam / 2.0
        z = t * b
        # exp(-t(b + b y)) = e^{-z} [I0(z) + 2 sum_k (-1)^k I_k(z) T_k(y)],  y = (x - b)/b
        def Ly(Z):
            return (L.matmat(Z) - b * Z) / b if b > 0 else np.zeros_like(Z)
        T0, T1 = X, Ly(X)
        Y = ive(0, z) * T0 + 2 * (-ive(1, z)) * T1
        k = 1
        while k < max_terms:
            c = ive(k + 1, z)
            if c < tol and k > z:
                break
            T0, T1 = T1, 2 * Ly(T1) - T0
            k += 1
            Y = Y + 2 * ((-1) ** k) * c * T1
    else:
        raise ValueError(f"method must be 'chebyshev' or 'expm', got {method!r}")
    Y = np.asarray(Y)
    return Y.ravel() if was_1d else Y


def resolvent_smooth(op, V, tau: float, tol: float = 1e-10, maxiter: int | None = None,
                     method: str = "auto"):
    """``(I + tau S)^-1 V`` for a symmetric PSD operator ``S``, same shape as ``V``.

    ``method``: ``"direct"`` (sparse LU, of the block system for a :class:`SchurComplement`),
    ``"cg"`` (per column), or ``"auto"`` (direct when possible).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> L = sp.csr_matrix(np.array([[1.0, -1.0, 0.0], [-1.0, 2.0, -1.0], [0.0, -1.0, 1.0]]))
    >>> resolvent_smooth(L, np.array([1.0, 0.0, -1.0]), tau=1.0)
    array([ 0.5,  0. , -0.5])
    """
    if not np.isfinite(tau) or tau < 0:
        raise ValueError(f"tau must be finite and non-negative, got {tau!r}")
    X, was_1d = as_dense_block(V)
    n = op.shape[0]
    if X.shape[0] != n:
        raise ValueError(f"V has {X.shape[0]} rows, expected {n}")
    schur_sparse = isinstance(op, SchurComplement) and sp.issparse(op.A) and sp.issparse(op.C)
    if method == "auto":
        method = "direct" if (sp.issparse(op) or schur_sparse) else "cg"
    if method == "direct":
        if sp.issparse(op):
            Y = splu(sp.csc_matrix(sp.identity(n) + tau * op)).solve(X)
        elif schur_sparse:
            nh = op.C.shape[0]
            K = sp.bmat([[sp.identity(n) + tau * op.A, tau * op.X],
                         [tau * op.Xt, tau * (op.C + op.eps * sp.identity(nh))]], format="csc")
            if tau == 0:
                return X.ravel() if was_1d else X.copy()
            rhs = np.vstack([X, np.zeros((nh, X.shape[1]))])
            Y = splu(K).solve(rhs)[:n]
        else:
            raise TypeError("method='direct' needs a sparse matrix or a sparse SchurComplement")
    elif method == "cg":
        L = aslinearoperator(op)
        Aop = LinearOperator((n, n), matvec=lambda v: v + tau * L.matvec(v), dtype=np.float64)
        Y = np.empty_like(X)
        for j in range(X.shape[1]):
            Y[:, j], info = cg(Aop, X[:, j], rtol=tol, atol=0.0, maxiter=maxiter or 10 * n)
            if info > 0:
                raise RuntimeError(f"CG did not converge for column {j}; raise maxiter")
    else:
        raise ValueError(f"method must be 'auto', 'direct' or 'cg', got {method!r}")
    return Y.ravel() if was_1d else Y
