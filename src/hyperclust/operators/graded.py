"""Graded complexes, their block-tridiagonal graded Laplacian L* and the collapsed effective
operator ``S_eps = A - X (C + eps I)^-1 X^T`` onto rank 0 (docs/collapsed-operators.md).
"""

from __future__ import annotations

import numbers

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
from scipy.sparse.linalg import eigsh

from .schur import SCHUR_METHODS, SchurComplement, schur_split

__all__ = ["GradedComplex", "SchurComplement", "schur_split", "eps_gamma_bound", "SCHUR_METHODS"]


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
    """Largest couplings that keep S_eps PSD on any complex: ``gamma_k <= sqrt(beta_{k+1} eps)``
    (completing the square; sufficient, not necessary).

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
        ``B_k`` of shape ``(n_{k-1}, n_k)``; consecutive shapes must chain.
    beta : float or sequence of K floats, default 1
        Rank weights ``beta_1..beta_K``.
    gamma : float or sequence of K floats, default 1
        Couplings ``gamma_0..gamma_{K-1}`` (``gamma_k`` couples ranks ``k`` and ``k+1``).

    Examples
    --------
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
        """``(A, X, C)`` blocks of L*: vertex block, coupling, higher block."""
        L = self.laplacian()
        n0 = self.sizes[0]
        return L[:n0, :n0].tocsr(), L[:n0, n0:].tocsr(), L[n0:, n0:].tocsr()

    def collapsed(self, eps: float = 1e-3, method: str = "auto", **kwargs) -> "SchurComplement":
        """``S_eps`` onto rank 0 as a :class:`SchurComplement`; ``"auto"`` takes ``"lifted"`` (never
        forms ``B^T B``) when the higher block is large.
        """
        A, X, C = self.split()
        if method == "auto" and C.shape[0] > 5000:
            method = "lifted"
        known = {"components": self.vertex_components(), "null_weights": np.ones(self.sizes[0])}
        if method == "lifted":
            return SchurComplement(A, X, C, eps=eps, method="lifted", lifted=self, **known, **kwargs)
        return SchurComplement(A, X, C, eps=eps, method=method, **known, **kwargs)

    def vertex_components(self) -> np.ndarray:
        """Connected component of every vertex in the sparsity graph of L* (``S_eps`` is block diagonal
        over them).

        Examples
        --------
        >>> B1 = sp.csr_matrix(np.array([[-1.0], [1.0], [0.0]]))
        >>> GradedComplex([B1]).vertex_components().tolist()
        [0, 0, 1]
        """
        from scipy.sparse.csgraph import connected_components

        _, labels = connected_components(self.laplacian(), directed=False)
        return labels[:self.sizes[0]]

    def lifted_matrix(self, shift0: float | None, eps: float) -> tuple[sp.csc_matrix, slice]:
        """A sparse symmetric indefinite system equivalent to ``L* + diag(shift0 I, eps I, ...)``: each
        ``beta B^T B`` replaced by an auxiliary ``p = B u`` (rank 0 left out when ``shift0`` is None).

        Returns
        -------
        K : scipy.sparse CSC, symmetric
        primal : slice
            Positions of the first kept rank's variables.
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
        """Smallest nonzero singular value of ``B_k`` (``nan`` above ``dense_limit``)."""
        B = self.boundaries[k - 1]
        if min(B.shape) == 0 or B.nnz == 0:
            return float("nan")
        if min(B.shape) > dense_limit:
            return float("nan")
        s = sla.svdvals(B.toarray())
        s = s[s > tol * max(s.max(), 1.0)]
        return float(s.min()) if s.size else float("nan")

    def lambda_min(self, eps: float = 0.0) -> float:
        """Smallest eigenvalue of L* (``eps`` added to the higher-rank block)."""
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
        """PSD diagnostics: ``{sigma_bounds, sigma_ok, eps_bound, eps_ok, eps_gamma_bounds,
        eps_gamma_ok, lambda_min, psd}`` (the bounds on ``gamma_k``, whether they hold, and the
        smallest eigenvalue of L* with ``eps`` on the higher block).
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
