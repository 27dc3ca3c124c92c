"""Smallest eigenpairs of the coboundary collapse S_eps without any factorization: LOBPCG on
``T = beta_1^-1 L_0^+ (J's Schur complement) L_0^+``, whose largest eigenvalues are the
reciprocals of S_eps's smallest nonzero ones, with Jacobi-preconditioned CG solves through
``H`` (``O(nnz(H))`` per column). The derivation is in docs/collapsed-operators.md.
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from scipy.sparse.linalg import lobpcg

from ..runtime.progress import progress_bar

__all__ = ["pcg_columns", "CoboundaryIterative"]


def pcg_columns(apply, B, inv_diag, tol, maxiter, project=None):
    """Jacobi-preconditioned conjugate gradients on every column of ``B`` at once.

    ``project`` (optional) keeps iterates in a subspace, for consistent singular systems.

    Returns
    -------
    X : ndarray, same shape as ``B``
    iterations : int
    converged : bool
        Whether every column reached ``||r|| <= tol ||b||``.

    Examples
    --------
    >>> A = np.diag([1.0, 2.0, 4.0])
    >>> X, its, ok = pcg_columns(lambda V: A @ V, np.ones((3, 2)), 1 / np.diag(A), 1e-12, 10)
    >>> np.round(X[:, 0], 6).tolist(), ok
    ([1.0, 0.5, 0.25], True)
    """
    R = np.array(B, dtype=np.float64, copy=True)
    if project is not None:
        R = project(R)
    X = np.zeros_like(R)
    bnorm = np.linalg.norm(R, axis=0)
    bnorm[bnorm == 0] = 1.0
    Z = inv_diag[:, None] * R
    if project is not None:
        Z = project(Z)
    P = Z.copy()
    rz = np.einsum("ij,ij->j", R, Z)
    for it in range(1, maxiter + 1):
        AP = apply(P)
        pap = np.einsum("ij,ij->j", P, AP)
        alpha = np.divide(rz, pap, out=np.zeros_like(rz), where=pap > 0)
        X += alpha * P
        R -= alpha * AP
        if np.max(np.linalg.norm(R, axis=0) / bnorm) <= tol:
            return X, it, True
        Z = inv_diag[:, None] * R
        if project is not None:
            Z = project(Z)
        rz_new = np.einsum("ij,ij->j", R, Z)
        beta = np.divide(rz_new, rz, out=np.zeros_like(rz), where=rz > 0)
        P = Z + beta * P
        rz = rz_new
    return X, maxiter, False


class CoboundaryIterative:
    """The factorization-free route of :class:`~hyperclust.operators.CoboundaryCollapsed`.

    Parameters
    ----------
    delta : ndarray (n,)
        Diagonal of ``L_0``.
    Hq, HC : sparse (n, m_q)
        ``L_0 = diag(delta) - HC Hq^T``.
    R : sparse (n, m)
        ``H W^1/2``.
    beta, gamma : (float, float)
    eps : float
    laplacian_tol : float, default 1e-8
        Relative residual of the ``L_0`` solves.
    schur_tol : float, default 1e-2
        Relative residual of the ``N`` solves during LOBPCG (a final Rayleigh-Ritz step uses 1e-10).
    maxiter : int, default 20000
        CG iteration cap per solve.

    Examples
    --------
    >>> from hyperclust import Hypergraph
    >>> from hyperclust.operators import CoboundaryCollapsed
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [2, 3], [3, 4, 5], [5, 0]])
    >>> it = CoboundaryCollapsed(hg, method="iterative")
    >>> dense = CoboundaryCollapsed(hg, method="dense")
    >>> vals, _ = it.smallest_eigenpairs(3)
    >>> np.allclose(vals, dense.smallest_eigenpairs(3)[0], atol=1e-8)
    True
    """

    def __init__(self, delta, Hq, HC, R, beta, gamma, eps, laplacian_tol=1e-8, schur_tol=1e-2,
                 maxiter=20_000):
        self.b1, self.b2 = map(float, beta)
        self.g0, self.g1 = map(float, gamma)
        self.eps = float(eps)
        if abs(self.g0 ** 2 - self.b1 * self.eps) > 1e-9 * self.b1 * self.eps:
            raise ValueError(
                "the iterative route needs gamma_0 = sqrt(beta_1 eps) (gamma='auto'); got "
                f"gamma_0={self.g0:.6g}, sqrt(beta_1 eps)={np.sqrt(self.b1 * self.eps):.6g}")
        if self.g1 ** 2 > self.b2 * self.eps * (1 + 1e-9):
            raise ValueError("the iterative route needs gamma_1 <= sqrt(beta_2 eps) (PSD-safe)")
        self.delta = np.asarray(delta, dtype=np.float64)
        self.Hq, self.HC = sp.csr_matrix(Hq), sp.csr_matrix(HC)
        self.Hqt = sp.csr_matrix(self.Hq.T)
        self.R = sp.csr_matrix(R)
        self.Rt = sp.csr_matrix(self.R.T)
        self.laplacian_tol, self.schur_tol, self.maxiter = float(laplacian_tol), float(schur_tol), int(maxiter)
        self.final_tol = 1e-10
        self.n, self.m = self.R.shape
        self.iterations_ = {"laplacian": [], "schur": []}
        self.column_iterations_ = {"laplacian": 0, "schur": 0}
        n = self.n
        bip = sp.bmat([[None, self.Hq], [self.Hqt, None]], format="csr")
        _, comp = connected_components(bip, directed=False)
        _, comp = np.unique(comp[:n], return_inverse=True)
        self.component = comp
        self.component_sizes = np.bincount(comp).astype(np.float64)
        self._l0_inv_diag = np.divide(1.0, self.delta, out=np.zeros(n), where=self.delta > 0)
        RtHC = self.Rt @ self.HC
        HqR = self.Hqt @ self.R
        diag_k = (np.asarray(self.R.multiply(self.R).T @ self.delta).ravel()
                  - np.asarray(RtHC.multiply(HqR.T).sum(axis=1)).ravel())
        diag_g = np.asarray(self.R.multiply(self.R).sum(axis=1)).ravel()
        self._n_inv_diag = 1.0 / np.concatenate([self.b1 + self.b2 * diag_g,
                                                 self.b2 * np.maximum(diag_k, 0) + self.eps])
        # N^-1 1 splits by component into N^-1 q_c (N is block diagonal over components).
        self._nq = self.schur_solve(np.ones((n, 1)), tol=self.laplacian_tol)[:, 0]
        self._qnq = np.bincount(comp, weights=self._nq, minlength=self.component_sizes.size)

    # ---------------------------------------------------------------- building blocks
    @property
    def n_components(self) -> int:
        return int(self.component_sizes.size)

    def laplacian(self, U):
        """``L_0 U`` through ``H``."""
        return self.delta[:, None] * U - self.HC @ (self.Hqt @ U)

    def _component_sums(self, U):
        out = np.zeros((self.component_sizes.size, U.shape[1]))
        np.add.at(out, self.component, U)
        return out

    def project(self, U):
        """Remove every component's mean from each column."""
        means = self._component_sums(U) / self.component_sizes[:, None]
        return U - means[self.component]

    def _solve(self, apply, B, inv_diag, tol, kind, project=None):
        X, its, ok = pcg_columns(apply, B, inv_diag, tol, self.maxiter, project)
        self.iterations_[kind].append(its)
        self.column_iterations_[kind] += its * B.shape[1]
        if not ok:
            warnings.warn(f"CG on the {kind} system stopped at maxiter={self.maxiter} above "
                          f"rtol={tol:g}; the S_eps eigenpairs may be inaccurate", RuntimeWarning,
                          stacklevel=3)
        return X

    def laplacian_pinv(self, U, tol=None):
        """``L_0^+ U`` (CG on the range of ``L_0``)."""
        tol = self.laplacian_tol if tol is None else tol
        X = self._solve(self.laplacian, self.project(U), self._l0_inv_diag, tol, "laplacian",
                        self.project)
        return self.project(X)

    def _schur_block(self, Z):
        n = self.n
        A, Y = Z[:n], Z[n:]
        RtA = self.Rt @ A
        RY = self.R @ Y
        top = self.b1 * A + self.b2 * (self.R @ RtA) + self.g1 * RY
        bottom = self.g1 * RtA + self.b2 * (self.Rt @ self.laplacian(RY)) + self.eps * Y
        return np.vstack([top, bottom])

    def schur_solve(self, U, tol=None):
        """``N^-1 U``, the first block of a solve with the SPD block matrix."""
        B = np.vstack([U, np.zeros((self.m, U.shape[1]))])
        tol = self.schur_tol if tol is None else tol
        return self._solve(self._schur_block, B, self._n_inv_diag, tol, "schur")[:self.n]

    def t_apply(self, X, tol=None, laplacian_tol=None):
        """``T X``; columns orthogonal to ``null(L_0)`` in and out."""
        Y = self.laplacian_pinv(X, laplacian_tol)
        NY = self.schur_solve(Y, tol)
        coef = self._component_sums(self._nq[:, None] * Y) / self._qnq[:, None]
        M = NY - self._nq[:, None] * coef[self.component]
        return self.laplacian_pinv(self.project(X) + self.eps * M, laplacian_tol) / self.b1

    def null_vectors(self) -> np.ndarray:
        """Orthonormal component indicators (the null space of S_eps)."""
        n, c = self.n, self.n_components
        Q = np.zeros((n, c))
        Q[np.arange(n), self.component] = 1.0 / np.sqrt(self.component_sizes[self.component])
        return Q

    def apply(self, U):
        """``S_eps U`` with nested CG (accurate, slow: occasional products only)."""
        LU = self.laplacian(U)

        def j_apply(Z):
            return self.laplacian(Z) + self.eps * self.schur_solve(Z, tol=1e-12)
        inv_diag = 1.0 / (self.delta + self.eps / self.b1)
        Z = self._solve(j_apply, LU, inv_diag, 1e-12, "laplacian")
        return self.b1 * self.laplacian(Z)

    # ---------------------------------------------------------------- eigenpairs
    def smallest_eigenpairs(self, k: int, tol: float = 1e-5, random_state=0, maxiter: int = 500,
                           guard: int | None = None):
        """The ``k`` smallest eigenpairs of S_eps: the component indicators, then LOBPCG on ``T``.

        Parameters
        ----------
        tol : float
            LOBPCG residual tolerance relative to the largest eigenvalue of ``T``.
        guard : int, optional
            Extra LOBPCG columns (default ``max(4, k - c)``).

        Returns
        -------
        values : ndarray (k,), ascending; vectors : ndarray (n, k), orthonormal columns
        """
        n, c = self.n, self.n_components
        Q = self.null_vectors()
        if k <= c:
            return np.zeros(k), Q[:, :k]
        r = k - c
        if r > n - c:
            raise ValueError(f"k={k} exceeds the number of vertices {n}")
        guard = max(4, r) if guard is None else int(guard)
        block = min(r + guard, n - c)
        rng = np.random.default_rng(random_state)
        X0 = self.project(rng.standard_normal((n, block)))
        # one bar step per block product: first L_0^+, then T (each runs its CG solves)
        with warnings.catch_warnings(), \
                progress_bar("S_eps iterative eigenpairs", unit="step") as bar:
            warnings.filterwarnings("ignore", message=".*(Exited|not reaching|ill-conditioned).*")
            warnings.filterwarnings("ignore", message=".*The problem size.*")

            def counted(apply):
                def step(Y):
                    bar.update()
                    return apply(Y)
                return step
            mu0, X0 = lobpcg(counted(lambda V: self.laplacian_pinv(V) / self.b1), X0,
                             largest=True, tol=1e-3 * float(np.max(np.abs(self._guess(X0)))),
                             maxiter=200)
            scale = float(np.max(mu0))
            # Below the default tol the inner solves run at tol too, or the vectors stall at
            # the inner error: 1.8e-5 radians at tol=1e-9 on a 596-node, 40-component test
            # input with the loose inner tolerances (1e3 * tol instead of tol: 6x slower).
            inner = ((self.schur_tol, self.laplacian_tol) if tol >= 1e-5
                     else (min(self.schur_tol, tol), min(self.laplacian_tol, tol)))
            mu, V = lobpcg(counted(lambda Y: self.t_apply(Y, *inner)), X0, largest=True,
                           tol=tol * scale, maxiter=maxiter)
        # Rayleigh-Ritz with an accurate T: eigenvalue errors become quadratic in the
        # eigenvector errors left by the loose inner solves.
        V, _ = np.linalg.qr(self.project(V))
        TV = self.t_apply(V, tol=self.final_tol, laplacian_tol=self.final_tol)
        mu, W = np.linalg.eigh(0.5 * (V.T @ TV + TV.T @ V))
        order = np.argsort(-mu)[:r]
        vals = np.concatenate([np.zeros(c), 1.0 / mu[order]])
        vecs = np.hstack([Q, V @ W[:, order]])
        return vals, vecs

    def _guess(self, X):
        """Rough size of ``L_0^+``, for the first pass's absolute tolerance."""
        LX = self.laplacian(X)
        q = np.einsum("ij,ij->j", X, LX) / np.maximum(np.einsum("ij,ij->j", X, X), 1e-300)
        return 1.0 / np.maximum(q, 1e-300) / self.b1
