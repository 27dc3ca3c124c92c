"""The Schur complement ``S_eps = A - X (C + eps I)^-1 X^T`` of a symmetric block matrix: exact
(one sparse LU), matrix-free (CG) or lifted, with its smallest eigenpairs by shift-invert on
the whole block system.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator, aslinearoperator, cg, eigsh, splu

from .base import Operator, OperatorTooLargeError, as_dense_block
from .signs import fix_signs

__all__ = ["SchurComplement", "schur_split", "SCHUR_METHODS"]

SCHUR_METHODS = ("auto", "exact", "cg", "lifted")


def schur_split(M, keep):
    """``(A, X, C) = (M[keep, keep], M[keep, ~keep], M[~keep, ~keep])`` of a symmetric sparse matrix.

    Examples
    --------
    >>> M = np.array([[2.0, -1.0, 0.0], [-1.0, 2.0, -1.0], [0.0, -1.0, 2.0]])
    >>> A, X, C = schur_split(M, [True, False, True])
    >>> A.toarray().tolist(), X.toarray().ravel().tolist(), C.toarray().tolist()
    ([[2.0, 0.0], [0.0, 2.0]], [-1.0, -1.0], [[2.0]])
    """
    M = sp.csr_matrix(M)
    keep = np.asarray(keep, dtype=bool)
    if keep.shape[0] != M.shape[0]:
        raise ValueError(f"keep has length {keep.shape[0]}, expected {M.shape[0]}")
    k, d = np.flatnonzero(keep), np.flatnonzero(~keep)
    return M[k][:, k].tocsr(), M[k][:, d].tocsr(), M[d][:, d].tocsr()


class SchurComplement(Operator):
    """``S_eps = A - X (C + eps I)^-1 X^T``, exact or matrix-free.

    Parameters
    ----------
    A : sparse matrix or LinearOperator, shape (n0, n0)
    X : sparse matrix, shape (n0, nh)
    C : sparse matrix or LinearOperator, shape (nh, nh), symmetric PSD
    eps : float, default 1e-3
        Regularization of ``C`` (``0`` when ``C`` is nonsingular).
    method : {"auto", "exact", "cg", "lifted"}
        Sparse LU of ``C + eps I``, Jacobi CG per application, or the lifted system of
        ``lifted``; ``"auto"``: exact when ``C`` is sparse and within ``exact_max_size`` /
        ``exact_max_nnz`` (CG on MemoryError).
    tol : float, default 1e-10
        CG relative residual.
    maxiter : int, optional
        CG iteration cap (default ``10 nh``).
    lifted : GradedComplex, optional
        Set by :meth:`GradedComplex.collapsed`.
    components : array-like of int, shape (n0,), optional
        Labels over which ``S_eps`` is block diagonal; eigenpairs are then solved per component.
    null_weights : array-like, shape (n0,), optional
        Per component, a null vector, written down where one product confirms it.

    Attributes
    ----------
    method_ : str
    cg_iterations_ : list of int

    Examples
    --------
    >>> from hyperclust.operators import GradedComplex
    >>> B1 = sp.csr_matrix(np.array([[-1.0, 0.0], [1.0, -1.0], [0.0, 1.0]]))
    >>> S = GradedComplex([B1], gamma=0.3).collapsed(eps=0.1)
    >>> S.method_, np.round(S.to_dense(), 3)
    ('exact', array([[ 0.945, -0.971,  0.026],
           [-0.971,  1.942, -0.971],
           [ 0.026, -0.971,  0.945]]))
    """

    def __init__(self, A, X, C, eps: float = 1e-3, method: str = "auto", tol: float = 1e-10,
                 maxiter: int | None = None, exact_max_size: int = 500_000,
                 exact_max_nnz: int = 20_000_000, lifted=None, components=None,
                 null_weights=None):
        if method not in SCHUR_METHODS:
            raise ValueError(f"method must be one of {SCHUR_METHODS}, got {method!r}")
        if not np.isfinite(eps) or eps < 0:
            raise ValueError(f"eps must be a finite non-negative number, got {eps!r}")
        n0, nh = X.shape
        if A.shape != (n0, n0) or C.shape != (nh, nh):
            raise ValueError(f"shape mismatch: A {A.shape}, X {X.shape}, C {C.shape}")
        super().__init__(dtype=np.float64, shape=(n0, n0))
        self.A, self.X, self.C = A, sp.csr_matrix(X), C
        self.Xt = sp.csr_matrix(self.X.T)
        self.eps = float(eps)
        self.tol = float(tol)
        self.maxiter = maxiter
        self.cg_iterations_ = []
        self._lu = None
        self.lifted = lifted
        self.components = None if components is None else np.asarray(components).reshape(-1)
        if self.components is not None and self.components.shape[0] != n0:
            raise ValueError(f"components has {self.components.shape[0]} labels, expected {n0}")
        self.null_weights = null_weights
        if method == "lifted":
            if lifted is None:
                raise ValueError("method='lifted' needs the GradedComplex (use GradedComplex.collapsed)")
            self.method_ = "lifted"
            Kc, self._lifted_slice = lifted.lifted_matrix(None, self.eps)
            self._lu = splu(Kc)
            self._lifted_n = Kc.shape[0]
        elif method == "auto":
            fits = sp.issparse(C) and nh <= exact_max_size and C.nnz <= exact_max_nnz
            method = "exact" if fits else "cg"
            if method == "exact":
                try:
                    self._factor()
                except MemoryError:
                    method = "cg"
        elif method == "exact":
            if not sp.issparse(C):
                raise TypeError("method='exact' needs C as a scipy sparse matrix")
            self._factor()
        self.method_ = method
        if method == "cg":
            diag = C.diagonal() if sp.issparse(C) else getattr(C, "diagonal", lambda: np.ones(nh))()
            self._jacobi = 1.0 / np.maximum(np.asarray(diag) + self.eps, 1e-300)
            self._Ceps = aslinearoperator(C) + self.eps * aslinearoperator(sp.identity(nh))

    def _factor(self):
        nh = self.C.shape[0]
        M = sp.csc_matrix(self.C + self.eps * sp.identity(nh))
        try:
            self._lu = splu(M, permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.0,
                            options={"SymmetricMode": True})
        except RuntimeError as exc:
            raise ValueError(f"C + eps I is singular (eps={self.eps}); use eps > 0 ({exc})") from None

    def solve_c(self, Y: np.ndarray) -> np.ndarray:
        """``(C + eps I)^-1 Y`` for a dense ``(nh, d)`` block."""
        if self._lu is not None and self.method_ == "lifted":
            rhs = np.zeros((self._lifted_n, Y.shape[1]))
            rhs[:Y.shape[0]] = Y
            return self._lu.solve(rhs)[:Y.shape[0]]
        if self._lu is not None:
            return self._lu.solve(np.asfortranarray(Y))
        out = np.empty_like(Y)
        maxiter = self.maxiter or 10 * Y.shape[0]
        P = sp.diags(self._jacobi)
        for j in range(Y.shape[1]):
            it = [0]

            def count(_):
                it[0] += 1
            out[:, j], info = cg(self._Ceps, Y[:, j], rtol=self.tol, atol=0.0, maxiter=maxiter,
                                 M=P, callback=count)
            self.cg_iterations_.append(it[0])
            if info > 0:
                raise RuntimeError(f"CG did not reach rtol={self.tol} in {maxiter} iterations "
                                   f"(eps={self.eps}); raise eps or maxiter")
        return out

    def _matmat(self, V):
        V, _ = as_dense_block(V)
        Z = self.solve_c(np.asarray(self.Xt @ V))
        return np.asarray(self.A @ V) - self.X @ Z

    def _matvec(self, v):
        return self._matmat(np.asarray(v, dtype=np.float64).reshape(-1, 1)).ravel()

    def _rmatvec(self, v):
        return self._matvec(v)

    def _adjoint(self):
        return self

    def to_dense(self) -> np.ndarray:
        """Dense ``S_eps`` (n0 <= 20,000)."""
        n0 = self.shape[0]
        if n0 > 20_000:
            raise OperatorTooLargeError(f"to_dense refuses n0={n0} > 20,000")
        Z = self.solve_c(self.Xt.toarray())
        A = self.A.toarray() if sp.issparse(self.A) else self.A @ np.eye(n0)
        S = A - self.X @ Z
        return 0.5 * (S + S.T)

    def diagonal(self) -> np.ndarray:
        """Diagonal of ``S_eps`` (dense-size inputs only)."""
        return np.diag(self.to_dense()).copy()

    def block_system(self, sigma: float) -> sp.csc_matrix:
        """The sparse block matrix ``[[A - sigma I, X], [X^T, C + eps I]]``."""
        if not (sp.issparse(self.A) and sp.issparse(self.C)):
            raise TypeError("the block system needs A and C as sparse matrices")
        n0, nh = self.X.shape
        return sp.bmat([[self.A - sigma * sp.identity(n0), self.X],
                        [self.Xt, self.C + self.eps * sp.identity(nh)]], format="csc")

    def smallest_eigenpairs(self, k: int = 10, sigma: float | None = None, tol: float = 1e-10,
                            random_state=0, method: str = "auto"):
        """The ``k`` smallest eigenpairs of ``S_eps``.

        Parameters
        ----------
        k : int
        sigma : float, optional
            Shift below the spectrum; default ``-1e-3`` times the mean diagonal of ``A``.
        method : {"auto", "shift-invert", "lifted", "dense", "lobpcg"}
            ``"auto"``: dense for n0 <= 500, else shift-invert (lifted when built so; LOBPCG when
            nothing can be factored or on MemoryError).

        Returns
        -------
        values : ndarray, shape (k,), ascending
        vectors : ndarray, shape (n0, k), sign-fixed
        """
        n0 = self.shape[0]
        if k >= n0:
            raise ValueError(f"k={k} must be smaller than the number of vertices ({n0})")
        rng = np.random.default_rng(random_state)
        if sigma is None:
            dA = self.A.diagonal() if sp.issparse(self.A) else np.ones(n0)
            sigma = -1e-3 * max(float(np.mean(np.abs(dA))), 1e-12)
        if method == "auto":
            method = "dense" if n0 <= 500 else "shift-invert"
            if method == "shift-invert" and self.lifted is not None and self.method_ == "lifted":
                method = "lifted"
            if method == "shift-invert" and not (sp.issparse(self.A) and sp.issparse(self.C)):
                method = "lobpcg"
        if (method in ("dense", "shift-invert", "lifted") and self.components is not None
                and np.unique(self.components).size > 1):
            return self._blockwise_eigenpairs(k, sigma, tol, random_state, method)
        if method == "dense":
            vals, vecs = sla.eigh(self.to_dense(), subset_by_index=[0, k - 1])
        elif method in ("shift-invert", "lifted"):
            try:
                if method == "lifted":
                    if self.lifted is None:
                        raise ValueError("method='lifted' needs a SchurComplement built by GradedComplex.collapsed")
                    K, _ = self.lifted.lifted_matrix(-sigma, self.eps)
                    lu = splu(K)
                else:
                    K = self.block_system(sigma)
                    lu = splu(K, permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.0,
                              options={"SymmetricMode": True})
            except MemoryError:
                return self.smallest_eigenpairs(k, sigma, tol, random_state, "lobpcg")
            pad = np.zeros(K.shape[0])

            def opinv(v):
                pad[:] = 0.0
                pad[:n0] = v
                return lu.solve(pad)[:n0]
            OP = LinearOperator((n0, n0), matvec=opinv, dtype=np.float64)
            mu, vecs = eigsh(OP, k=k, which="LA", tol=tol, v0=rng.standard_normal(n0))
            vals = sigma + 1.0 / mu
            order = np.argsort(vals)
            vals, vecs = vals[order], vecs[:, order]
        elif method == "lobpcg":
            from scipy.sparse.linalg import lobpcg
            Mprec = None
            if sp.issparse(self.A):
                luA = splu(sp.csc_matrix(self.A - sigma * sp.identity(n0)))
                Mprec = LinearOperator((n0, n0), matvec=luA.solve, matmat=luA.solve, dtype=np.float64)
            X0 = rng.standard_normal((n0, k))
            vals, vecs = lobpcg(self, X0, M=Mprec, largest=False, tol=max(tol, 1e-8), maxiter=500)
            order = np.argsort(vals)
            vals, vecs = vals[order], vecs[:, order]
        else:
            raise ValueError(f"unknown method {method!r}")
        return vals, fix_signs(vecs)

    def _blockwise_eigenpairs(self, k, sigma, tol, random_state, method):
        """:meth:`smallest_eigenpairs` per component."""
        from .blockwise import blockwise_smallest, shift_invert_solver
        from .components import ComponentLayout

        n0 = self.shape[0]
        layout = ComponentLayout(self.components)
        weights = np.zeros(n0) if self.null_weights is None else self.null_weights
        if method == "dense":
            D = self.to_dense()
            return blockwise_smallest(lambda X: D @ X, layout, weights, k,
                                      extract=lambda m: D[m[:, :, None], m[:, None, :]])
        if method == "lifted":
            if self.lifted is None:
                raise ValueError("method='lifted' needs a SchurComplement built by GradedComplex.collapsed")
            system = lambda: self.lifted.lifted_matrix(-sigma, self.eps)[0]  # noqa: E731
        else:
            system = lambda: self.block_system(sigma)  # noqa: E731
        solver = shift_invert_solver(system, sigma, tol, random_state)
        return blockwise_smallest(self._matmat, layout, weights, k, large_solver=solver)
