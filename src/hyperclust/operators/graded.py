"""Graded complexes, their graded Laplacian L* and the collapsed effective operator S_eps.

A graded structure has ranks ``0..K``; ``B_k`` (shape ``(n_{k-1}, n_k)``) maps rank ``k`` to
rank ``k-1``. The graded Laplacian is block tridiagonal: diagonal block ``k`` is
``beta_k B_k^T B_k + beta_{k+1} B_{k+1} B_{k+1}^T`` and the block coupling ranks ``k`` and
``k+1`` is ``-gamma_k B_{k+1}``. Splitting ``L* = [[A, X], [X^T, C]]`` with ``A`` the rank-0
block, the collapsed effective operator is ``S_eps = A - X (C + eps I)^-1 X^T``.

:class:`SchurComplement` applies ``S_eps`` exactly (one sparse LU of ``C + eps I``) or
matrix-free (Jacobi-preconditioned CG per column), and computes its smallest eigenpairs by
shift-invert on the whole block system: ``(S - sigma I)^-1 v`` is the first block of
``[[A - sigma I, X], [X^T, C + eps I]]^-1 [v; 0]``, so one sparse factorization serves all
Lanczos steps.
"""

from __future__ import annotations

import numbers

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator, aslinearoperator, cg, eigsh, splu

from .base import OperatorTooLargeError, as_dense_block, fix_signs

__all__ = ["GradedComplex", "SchurComplement", "schur_split", "eps_gamma_bound", "SCHUR_METHODS"]

SCHUR_METHODS = ("auto", "exact", "cg", "lifted")


def _positive_vector(values, length, what):
    if values is None:
        return np.ones(length)
    if isinstance(values, numbers.Real):
        values = [values] * length
    v = np.asarray(values, dtype=np.float64).reshape(-1)
    if v.shape[0] != length:
        raise ValueError(f"{what} must have {length} entries (one per rank pair), got {v.shape[0]}")
    if not np.all(np.isfinite(v)) or np.any(v < 0):
        raise ValueError(f"{what} must be finite and non-negative, got {v.tolist()}")
    return v


def eps_gamma_bound(beta, eps: float) -> np.ndarray:
    """Largest couplings that keep S_eps PSD on *any* complex: ``gamma_k <= sqrt(beta_{k+1} eps)``.

    Completing the square in the quadratic form of ``L* + eps (0 (+) I)`` absorbs the coupling
    ``-2 gamma_k <B_{k+1}^T x_k, x_{k+1}>`` with ``beta_{k+1} |B_{k+1}^T x_k|^2`` (from rank k's
    diagonal block) and ``(gamma_k^2 / beta_{k+1}) |x_{k+1}|^2``, which ``eps |x_{k+1}|^2``
    covers. Sufficient, not necessary: larger couplings may still be PSD on a given complex.

    Examples
    --------
    >>> eps_gamma_bound([1.0, 4.0], 0.01).tolist()
    [0.1, 0.2]
    """
    return np.sqrt(np.asarray(beta, dtype=np.float64) * float(eps))


class GradedComplex:
    """A graded structure given by incidence matrices ``B_1..B_K`` (signs used as given).

    Parameters
    ----------
    boundaries : sequence of scipy.sparse matrices
        ``B_k`` of shape ``(n_{k-1}, n_k)``, ``k = 1..K``; consecutive shapes must chain.
    beta : float or sequence of K floats, default 1
        Rank weights ``beta_1..beta_K`` (``beta_0`` never enters L*).
    gamma : float or sequence of K floats, default 1
        Couplings ``gamma_0..gamma_{K-1}`` (``gamma_k`` couples ranks ``k`` and ``k+1``).

    Examples
    --------
    A path on 3 vertices with its 2 edges as rank 1:

    >>> import scipy.sparse as sp
    >>> B1 = sp.csr_matrix(np.array([[-1.0, 0.0], [1.0, -1.0], [0.0, 1.0]]))
    >>> cx = GradedComplex([B1], gamma=0.3)
    >>> cx.sizes, cx.laplacian().shape, cx.psd_report(eps=0.1)["psd"]
    ([3, 2], (5, 5), True)
    """

    def __init__(self, boundaries, beta=None, gamma=None):
        if sp.issparse(boundaries) or isinstance(boundaries, np.ndarray):
            boundaries = [boundaries]
        Bs = []
        for k, B in enumerate(boundaries, start=1):
            if not (sp.issparse(B) or isinstance(B, np.ndarray)):
                raise TypeError(f"B_{k} must be a scipy.sparse matrix or ndarray, got {type(B).__name__}")
            B = sp.csr_matrix(B, dtype=np.float64)
            if not np.all(np.isfinite(B.data)):
                raise ValueError(f"B_{k} contains NaN/inf")
            Bs.append(B)
        if not Bs:
            raise ValueError("a graded complex needs at least one incidence matrix B_1")
        for k in range(1, len(Bs)):
            if Bs[k - 1].shape[1] != Bs[k].shape[0]:
                raise ValueError(
                    f"B_{k} has {Bs[k - 1].shape[1]} columns but B_{k + 1} has {Bs[k].shape[0]} rows; "
                    "B_k must be (n_(k-1), n_k)")
        self.boundaries = Bs
        self.K = len(Bs)
        self.beta = _positive_vector(beta, self.K, "beta")
        self.gamma = _positive_vector(gamma, self.K, "gamma")
        self.sizes = [Bs[0].shape[0]] + [B.shape[1] for B in Bs]
        self.offsets = np.concatenate([[0], np.cumsum(self.sizes)])

    def laplacian(self) -> sp.csr_matrix:
        """The graded Laplacian L*, sparse symmetric of shape ``(sum n_k, sum n_k)``."""
        K, Bs, beta, gamma = self.K, self.boundaries, self.beta, self.gamma
        blocks = [[None] * (K + 1) for _ in range(K + 1)]
        for k in range(K + 1):
            D = sp.csr_matrix((self.sizes[k], self.sizes[k]))
            if k >= 1:
                D = D + beta[k - 1] * (Bs[k - 1].T @ Bs[k - 1])
            if k < K:
                D = D + beta[k] * (Bs[k] @ Bs[k].T)
                blocks[k][k + 1] = -gamma[k] * Bs[k]
                blocks[k + 1][k] = -gamma[k] * Bs[k].T
            blocks[k][k] = D
        L = sp.bmat(blocks, format="csr")
        L.sum_duplicates()
        return L

    def split(self, eps: float = 0.0):
        """``(A, X, C)`` blocks of L*: vertex block, vertex-to-higher coupling, higher block."""
        L = self.laplacian()
        n0 = self.sizes[0]
        return L[:n0, :n0].tocsr(), L[:n0, n0:].tocsr(), L[n0:, n0:].tocsr()

    def collapsed(self, eps: float = 1e-3, method: str = "auto", **kwargs) -> "SchurComplement":
        """The collapsed effective operator ``S_eps`` onto rank 0 (a :class:`SchurComplement`).

        ``method="lifted"`` (the default via ``"auto"`` when the higher block is large)
        factors the lifted sparse system (see :meth:`lifted_matrix`) instead of
        ``C + eps I``: the products ``B^T B`` (line-graph sized fill) are never formed.
        Other methods as in :class:`SchurComplement`.
        """
        A, X, C = self.split()
        if method == "auto" and C.shape[0] > 5000:
            method = "lifted"
        if method == "lifted":
            return SchurComplement(A, X, C, eps=eps, method="lifted", lifted=self, **kwargs)
        return SchurComplement(A, X, C, eps=eps, method=method, **kwargs)

    def lifted_matrix(self, shift0: float | None, eps: float) -> tuple[sp.csc_matrix, slice]:
        """A sparse symmetric indefinite system equivalent to the shifted L*.

        Every product ``beta B^T B`` or ``beta B B^T`` in L* is replaced by an auxiliary
        variable ``p = B u`` with the block ``[[0, beta B^T], [beta B, -beta I]]``; eliminating
        the auxiliaries gives back ``L* + diag(shift0 I, eps I, ..., eps I)``. With
        ``shift0=None`` rank 0 is left out and the system is equivalent to ``C + eps I``.

        Returns
        -------
        K : scipy.sparse CSC, symmetric
        primal : slice
            Positions of the primal variables of the first kept rank.
        """
        Bs, beta, gamma, K = self.boundaries, self.beta, self.gamma, self.K
        first = 0 if shift0 is not None else 1
        ranks = list(range(first, K + 1))
        # primal variables
        sizes = [self.sizes[k] for k in ranks]
        pos = {k: i for i, k in enumerate(ranks)}
        rows, cols, vals = [], [], []
        offsets = list(np.cumsum([0] + sizes))
        n_total = offsets[-1]

        def add(block, r0, c0, sym=True):
            b = sp.coo_matrix(block)
            rows.append(b.row + r0); cols.append(b.col + c0); vals.append(b.data)
            if sym:
                rows.append(b.col + c0); cols.append(b.row + r0); vals.append(b.data)

        for k in ranks:
            o = offsets[pos[k]]
            shift = (shift0 if k == 0 else eps)
            if shift:
                add(sp.identity(self.sizes[k]) * shift, o, o, sym=False)
            if k + 1 <= K and k + 1 in pos:
                add(-gamma[k] * Bs[k], o, offsets[pos[k + 1]])
        aux = n_total
        for k in ranks:
            o = offsets[pos[k]]
            if k >= 1:  # beta_k B_k^T B_k on rank k: aux p = B_k u_k (size n_{k-1})
                b, m = beta[k - 1], self.sizes[k - 1]
                add(b * Bs[k - 1].T, o, aux)
                add(-b * sp.identity(m), aux, aux, sym=False)
                aux += m
            if k < K:  # beta_{k+1} B_{k+1} B_{k+1}^T on rank k: aux q = B_{k+1}^T u_k
                b, m = beta[k], self.sizes[k + 1]
                add(b * Bs[k], o, aux)
                add(-b * sp.identity(m), aux, aux, sym=False)
                aux += m
        Kmat = sp.csc_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                             shape=(aux, aux))
        Kmat.sum_duplicates()
        return Kmat, slice(0, sizes[0])

    # ------------------------------------------------------------------ PSD checks
    def sigma_min_plus(self, k: int, tol: float = 1e-9, dense_limit: int = 4000) -> float:
        """Smallest nonzero singular value of ``B_k`` (dense SVD; ``nan`` above ``dense_limit``)."""
        B = self.boundaries[k - 1]
        if min(B.shape) == 0 or B.nnz == 0:
            return float("nan")
        if min(B.shape) > dense_limit:
            return float("nan")
        s = sla.svdvals(B.toarray())
        s = s[s > tol * max(s.max(), 1.0)]
        return float(s.min()) if s.size else float("nan")

    def lambda_min(self, eps: float = 0.0) -> float:
        """Numerical smallest eigenvalue of L* (``eps`` added to the higher-rank block)."""
        L = self.laplacian()
        n0 = self.sizes[0]
        if eps:
            d = np.zeros(L.shape[0])
            d[n0:] = eps
            L = L + sp.diags(d)
        N = L.shape[0]
        if N <= 3000:
            return float(sla.eigvalsh(L.toarray(), subset_by_index=[0, 0])[0])
        shift = -1e-3 * max(abs(L.diagonal()).mean(), 1e-12)
        vals = eigsh(L.tocsc(), k=1, sigma=shift, which="LM", return_eigenvectors=False,
                     v0=np.random.default_rng(0).standard_normal(N))
        return float(vals.min())

    def psd_report(self, eps: float = 0.0) -> dict:
        """PSD diagnostics.

        Returns
        -------
        dict
            ``sigma_bounds``: per k, ``beta_{k+1} sigma_min+(B_{k+1})`` (the sufficient bound on
            ``gamma_k``); ``sigma_ok``: whether every ``gamma_k`` is within it; ``eps_bound``:
            ``sqrt(beta_1 (beta_1 sigma_min+(B_1)^2 + eps))``, the eps-widened bound on
            ``gamma_0`` (two-rank case); ``eps_ok``; ``eps_gamma_bounds``: per k,
            ``sqrt(beta_{k+1} eps)``, a bound on ``gamma_k`` that guarantees PSD of S_eps for any
            complex (completing the square); ``eps_gamma_ok``; ``lambda_min``: numerical smallest
            eigenvalue of L* (with ``eps`` on the higher block); ``psd``: ``lambda_min >= -tol``.
        """
        sig = [self.sigma_min_plus(k + 1) for k in range(self.K)]
        bounds = [self.beta[k] * s for k, s in enumerate(sig)]
        ok = all((not np.isfinite(b)) or self.gamma[k] <= b * (1 + 1e-12) for k, b in enumerate(bounds))
        eps_bound = float(np.sqrt(self.beta[0] * (self.beta[0] * sig[0] ** 2 + eps))) if np.isfinite(sig[0]) else float("nan")
        lam = self.lambda_min(eps)
        eps_bounds = eps_gamma_bound(self.beta, eps)
        scale = max(1.0, float(np.max(self.beta)) * max((B.multiply(B).sum(axis=0).max() for B in self.boundaries), default=1.0))
        return {"sigma_bounds": bounds, "sigma_ok": bool(ok), "eps_bound": eps_bound,
                "eps_ok": bool(self.gamma[0] <= eps_bound * (1 + 1e-12)) if np.isfinite(eps_bound) else None,
                "eps_gamma_bounds": eps_bounds.tolist(),
                "eps_gamma_ok": bool(np.all(self.gamma <= eps_bounds * (1 + 1e-12))),
                "lambda_min": lam, "psd": bool(lam >= -1e-9 * scale)}


def schur_split(M, keep):
    """Split a symmetric sparse matrix into ``(A, X, C)`` by a boolean ``keep`` mask
    (``A = M[keep, keep]``, ``X = M[keep, ~keep]``, ``C = M[~keep, ~keep]``).

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


class SchurComplement(LinearOperator):
    """``S_eps = A - X (C + eps I)^-1 X^T``, exact or matrix-free.

    Parameters
    ----------
    A : sparse matrix or LinearOperator, shape (n0, n0)
    X : sparse matrix, shape (n0, nh)
    C : sparse matrix or LinearOperator, shape (nh, nh), symmetric PSD
    eps : float, default 1e-3
        Regularization of ``C`` (``C`` is singular when the complex has homology). ``0`` is
        allowed when ``C`` is nonsingular.
    method : {"auto", "exact", "cg"}
        ``"exact"``: sparse LU of ``C + eps I`` (scipy ``splu``) once, then direct solves.
        ``"cg"``: Jacobi-preconditioned CG for every application (no factorization).
        ``"auto"``: exact when ``C`` is sparse with ``nh <= exact_max_size`` and
        ``nnz(C) <= exact_max_nnz``, and falls back to CG if the factorization runs out of memory.
    tol : float, default 1e-10
        Relative residual tolerance of CG.
    maxiter : int, optional
        CG iteration cap (default ``10 nh``).

    Attributes
    ----------
    method_ : str
        The method in use (``"exact"`` or ``"cg"``).
    cg_iterations_ : list of int
        Iterations of the CG solves done so far (``"cg"`` only).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> B1 = sp.csr_matrix(np.array([[-1.0, 0.0], [1.0, -1.0], [0.0, 1.0]]))
    >>> S = GradedComplex([B1], gamma=0.3).collapsed(eps=0.1)
    >>> S.method_, np.round(S.to_dense(), 3)
    ('exact', array([[ 0.945, -0.971,  0.026],
           [-0.971,  1.942, -0.971],
           [ 0.026, -0.971,  0.945]]))
    """

    def __init__(self, A, X, C, eps: float = 1e-3, method: str = "auto", tol: float = 1e-10,
                 maxiter: int | None = None, exact_max_size: int = 500_000,
                 exact_max_nnz: int = 20_000_000, lifted: "GradedComplex | None" = None):
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
        """Dense ``S_eps`` (n0 x n0) from one blocked solve: small n0 only."""
        n0 = self.shape[0]
        if n0 > 20_000:
            raise OperatorTooLargeError(f"to_dense refuses n0={n0} > 20,000")
        Z = self.solve_c(self.Xt.toarray())
        A = self.A.toarray() if sp.issparse(self.A) else self.A @ np.eye(n0)
        S = A - self.X @ Z
        return 0.5 * (S + S.T)

    def diagonal(self) -> np.ndarray:
        """Diagonal of ``S_eps`` (needs one solve per vertex: dense-size inputs only)."""
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
            Shift (below the spectrum); default ``-1e-3`` times the mean diagonal of ``A``.
        method : {"auto", "shift-invert", "lifted", "dense", "lobpcg"}
            ``"shift-invert"``: one sparse LU of the whole block system, Lanczos on
            ``(S - sigma I)^-1``. ``"dense"``: dense ``S`` and ``eigh`` (n0 <= 3000).
            ``"lobpcg"``: LOBPCG on the matrix-free ``S`` preconditioned by ``(A - sigma I)^-1``
            (``S <= A``), for when no factorization fits. ``"auto"``: dense for n0 <= 500,
            otherwise shift-invert, falling back to LOBPCG on MemoryError. ``"lifted"``:
            shift-invert through the lifted system of the graded complex (no ``B^T B``
            products); the default when the operator was built with ``method="lifted"``.

        Returns
        -------
        values : ndarray, shape (k,), ascending
        vectors : ndarray, shape (n0, k), sign-fixed (largest-magnitude entry positive)
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
