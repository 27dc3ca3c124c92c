"""Eigensolvers over any symmetric operator (seeded, sign-fixed), spectral embeddings, heat
kernel signatures, spectral positional encodings and label-free structural features."""

from __future__ import annotations

import numbers

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator, aslinearoperator, eigsh

from ..hypergraph import Hypergraph
from ..runtime.threads import kernel_thread_limit
from .base import SymmetricOperator
from .signs import fix_signs
from ..runtime.progress import progress_bar, progress_shown

__all__ = ["fix_signs", "eigsh_seeded", "smallest_eigenpairs", "NormalizedAffinity",
           "regularized_embedding", "heat_kernel_signature", "hks_times",
           "positional_encoding", "structural_features", "structural_width"]

DENSE_LIMIT = 1500


def _dense(op, n):
    if sp.issparse(op):
        return op.toarray()
    if isinstance(op, np.ndarray):
        return op
    if hasattr(op, "to_dense"):
        return op.to_dense()
    return aslinearoperator(op).matmat(np.eye(n))


def eigsh_seeded(op, k: int, which: str = "LA", random_state=0, tol: float = 1e-8,
                 maxiter: int | None = None, dense_limit: int = DENSE_LIMIT, ncv: int | None = None,
                 components=None, extreme_weights=None):
    """Extreme eigenpairs of a symmetric operator, deterministic given ``random_state``.

    Given ``components``, each is solved on its own, so every copy of an eigenvalue repeated
    across components is returned.

    Parameters
    ----------
    op : LinearOperator, sparse matrix or ndarray, shape (n, n), symmetric
    k : int
        ``1 <= k < n`` (``k <= n`` on the dense path).
    which : {"LA", "SA"}
        Largest or smallest algebraic.
    random_state : int
        Seeds the Lanczos start vector.
    dense_limit : int
        At or below this size (or when ``k > n / 3``) the operator is densified.
    components : array-like of int, shape (n,), optional
        Labels over which ``op`` is block diagonal.
    extreme_weights : array-like, shape (n,), optional
        Per component, a known eigenvector at the requested end, used where one product
        confirms it (only with ``components``).

    Returns
    -------
    values : ndarray, shape (k,), from the requested end
    vectors : ndarray, shape (n, k), sign-fixed

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> L = sp.csr_matrix(np.array([[1.0, -1.0, 0.0], [-1.0, 2.0, -1.0], [0.0, -1.0, 1.0]]))
    >>> vals, vecs = eigsh_seeded(L, 1, which="LA")
    >>> vals, np.round(vecs.ravel(), 4)
    (array([3.]), array([-0.4082,  0.8165, -0.4082]))
    """
    if which not in ("LA", "SA"):
        raise ValueError(f"which must be 'LA' or 'SA', got {which!r}")
    n = op.shape[0]
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}")
    if k > n:
        raise ValueError(f"k={k} eigenpairs requested but the operator has size {n}")
    if components is not None:
        labels = np.asarray(components).reshape(-1)
        if labels.shape[0] != n:
            raise ValueError(f"components has {labels.shape[0]} labels for an operator of size {n}")
        if np.unique(labels).size > 1:
            return _blockwise(op, k, which, labels, extreme_weights, random_state, tol, maxiter,
                              dense_limit, ncv)
    if n <= dense_limit or k > n / 3:
        if n > 20_000:
            raise ValueError(f"k={k} is too large for an iterative solver on n={n}")
        M = _dense(op, n)
        M = 0.5 * (M + M.T)
        idx = [n - k, n - 1] if which == "LA" else [0, k - 1]
        vals, vecs = sla.eigh(M, subset_by_index=idx)
    else:
        if k >= n - 1:
            raise ValueError(f"k={k} must be smaller than n - 1 = {n - 1} for the iterative solver")
        v0 = np.random.default_rng(random_state).standard_normal(n)
        basis = n * (ncv or min(n, max(2 * k + 1, 20)))  # ARPACK's Krylov basis, n x ncv
        with progress_bar("eigensolver", unit="product") as bar, \
                kernel_thread_limit("lanczos", basis):
            A = aslinearoperator(op) if not sp.issparse(op) or progress_shown() else op
            vals, vecs = eigsh(_counted(A, bar) if progress_shown() else A, k=k, which=which,
                               v0=v0, tol=tol, maxiter=maxiter, ncv=ncv)
    order = np.argsort(-vals if which == "LA" else vals, kind="stable")
    return vals[order], fix_signs(vecs[:, order])


def _blockwise(op, k, which, labels, extreme_weights, random_state, tol, maxiter, dense_limit, ncv):
    """:func:`eigsh_seeded` per component ("LA" as the smallest of ``-op``)."""
    from .blockwise import blockwise_smallest, restricted_lanczos_solver
    from .components import ComponentLayout

    n = op.shape[0]
    sign = -1.0 if which == "LA" else 1.0
    A = op if sp.issparse(op) or isinstance(op, np.ndarray) else aslinearoperator(op)

    def apply(X):
        return sign * np.asarray(A @ X)
    weights = np.zeros(n) if extreme_weights is None else extreme_weights
    solver = restricted_lanczos_solver(apply, n, tol, random_state, maxiter, ncv)
    vals, vecs = blockwise_smallest(apply, ComponentLayout(labels), weights, k, solver,
                                    dense_max=min(dense_limit, n))
    return sign * vals, vecs


def _counted(A, bar):
    """``A`` whose products advance ``bar``."""
    def matvec(x):
        bar.update()
        return A.matvec(x)

    return LinearOperator(A.shape, matvec=matvec, dtype=A.dtype)


def smallest_eigenpairs(op, k: int, random_state=0, tol: float | None = None, **kwargs):
    """The ``k`` smallest eigenpairs (ascending, sign-fixed) of a symmetric PSD operator.

    An operator's own ``smallest_eigenpairs`` method is used when it has one; else
    :func:`eigsh_seeded` (``tol`` default 1e-8).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> L = sp.csr_matrix(np.array([[1.0, -1.0, 0.0], [-1.0, 2.0, -1.0], [0.0, -1.0, 1.0]]))
    >>> vals, vecs = smallest_eigenpairs(L, 2)
    >>> np.round(vals, 8) + 0.0, vecs.shape
    (array([0., 1.]), (3, 2))
    """
    own = getattr(op, "smallest_eigenpairs", None)
    if callable(own):
        if tol is not None:
            kwargs["tol"] = tol
        return own(k, random_state=random_state, **kwargs)
    return eigsh_seeded(op, k, which="SA", random_state=random_state,
                        tol=1e-8 if tol is None else tol, **kwargs)


class NormalizedAffinity(SymmetricOperator):
    """Regularized normalized affinity ``D_tau^-1/2 (M + (tau / n) 1 1^T) D_tau^-1/2``, float64.

    ``D_tau = diag(d + tau)``; the rank-one term (Amini et al. 2013) is applied in factored form.
    A :class:`~hyperclust.operators.GramOperator` ``M`` is folded into two CSR products.

    Parameters
    ----------
    M : LinearOperator, shape (n, n), symmetric, nonnegative affinity
    degrees : ndarray, shape (n,)
    tau : float, default 0

    Examples
    --------
    >>> from hyperclust import Hypergraph
    >>> from hyperclust.operators import ZhouLaplacian
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [1, 2], [3, 4, 5], [4, 5], [2, 3]])
    >>> M, d = ZhouLaplacian(hg, kind="unnormalized").affinity()
    >>> N = NormalizedAffinity(M, d)
    >>> bool(np.allclose(N @ np.sqrt(d), np.sqrt(d)))
    True
    """

    def __init__(self, M, degrees, tau: float = 0.0):
        n = M.shape[0]
        super().__init__(n)
        if not np.isfinite(tau) or tau < 0:
            raise ValueError(f"tau must be finite and non-negative, got {tau!r}")
        self.M = M
        self.tau = float(tau)
        dt = np.asarray(degrees, dtype=np.float64) + self.tau
        self._s = np.zeros(n)
        np.divide(1.0, np.sqrt(dt, where=dt > 0, out=np.zeros(n)), out=self._s, where=dt > 0)
        self._folded = self._fold(M)

    def _fold(self, M):
        from .factoring import CollapsePlan
        from .laplacians import GramOperator
        from .propagation import _scaled_csr

        if type(M) is not GramOperator or np.any(M.edge_scale < 0):
            return None
        root = np.sqrt(M.edge_scale)
        down = _scaled_csr(sp.csr_matrix(M._Ht), root, self._s, np.float64)
        up = _scaled_csr(M._H, self._s, root, np.float64)
        # the collapsed s (H c H^T + g) s where it is smaller than the pair and has been paid
        # for (:mod:`~hyperclust.operators.factoring`)
        self._collapse = CollapsePlan(M.shape[0], M._H.nnz, np.diff(down.indptr))
        self._collapsed = None
        return down, up, M.node_shift * self._s * self._s

    def _collapsed_affinity(self):
        if self._collapsed is None and self._collapse.due():
            from .factoring import collapsed_matrix

            M = self.M
            self._collapsed = self._collapse.settle(
                M._H, self._folded[0],
                lambda: collapsed_matrix(M._H, M._Ht, M.edge_scale, self._s, self._s,
                                         M.node_shift, np.float64))
        return self._collapsed

    def _apply(self, X):
        if self._folded is not None:
            from .kernels import csr_matmat

            down, up, diag = self._folded
            X = np.ascontiguousarray(X)
            A = self._collapsed_affinity()
            if A is not None:
                out = csr_matmat(A, X)
            else:
                self._collapse.record(X.shape[1])
                work = csr_matmat(down, X)
                out = diag[:, None] * X
                csr_matmat(up, work, out, accumulate=True)
            if self.tau:
                _add_outer(out, self._s, (self.tau / self.shape[0]) * (self._s @ X))
            return out
        Y = self._s[:, None] * X
        out = np.asarray(self.M @ Y)
        if self.tau:
            out = out + (self.tau / self.shape[0]) * Y.sum(axis=0, keepdims=True)
        return self._s[:, None] * out


#: Rows per block of :func:`_add_outer`: the block's (rows, d) product stays in the caches.
OUTER_BLOCK_ROWS = 8192


def _add_outer(out, u, v):
    """``out += outer(u, v)`` by row blocks, without an (n, d) temporary."""
    for lo in range(0, out.shape[0], OUTER_BLOCK_ROWS):
        out[lo:lo + OUTER_BLOCK_ROWS] += np.outer(u[lo:lo + OUTER_BLOCK_ROWS], v)


def regularized_embedding(M, degrees, k: int, tau: float = 0.0, random_state=0,
                          tol: float = 1e-8, row_normalize: bool = False, components=None):
    """Top-``k`` eigenvectors of :class:`NormalizedAffinity` (the smallest of the normalized Laplacian).

    With ``tau = 0`` and ``components`` given, solved per component.

    Returns
    -------
    values : ndarray, shape (k,), Laplacian eigenvalues ``1 - mu`` ascending
    embedding : ndarray, shape (n, k), sign-fixed; unit rows when ``row_normalize``

    Examples
    --------
    >>> from hyperclust import Hypergraph
    >>> from hyperclust.operators import ZhouLaplacian
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [1, 2], [3, 4, 5], [4, 5], [2, 3]])
    >>> M, d = ZhouLaplacian(hg, kind="unnormalized").affinity()
    >>> vals, V = regularized_embedding(M, d, 2)
    >>> np.round(vals, 4) + 0.0, V.shape
    (array([0.    , 0.1075]), (6, 2))
    """
    N = NormalizedAffinity(M, degrees, tau)
    blocks = {} if tau or components is None else {
        "components": components,
        "extreme_weights": np.sqrt(np.maximum(np.asarray(degrees, dtype=np.float64), 0.0))}
    mu, V = eigsh_seeded(N, k, which="LA", random_state=random_state, tol=tol, **blocks)
    if row_normalize:
        norms = np.linalg.norm(V, axis=1, keepdims=True)
        V = np.divide(V, norms, out=np.zeros_like(V), where=norms > 0)
    return 1.0 - mu, V


def hks_times(values: np.ndarray, n_times: int = 8) -> np.ndarray:
    """Log-spaced diffusion times from ``4 ln 10 / lambda_max`` to ``4 ln 10 / lambda_min+``.

    Examples
    --------
    >>> np.round(hks_times([0.0, 1.0, 3.0], 3), 3)
    array([3.07 , 5.318, 9.21 ])
    """
    vals = np.asarray(values, dtype=np.float64)
    pos = vals[vals > 1e-10]
    if pos.size == 0:
        return np.ones(n_times)
    t_min = 4 * np.log(10) / pos.max()
    t_max = 4 * np.log(10) / pos.min()
    if t_max <= t_min:
        t_max = 10 * t_min
    return np.geomspace(t_min, t_max, n_times)


def heat_kernel_signature(values: np.ndarray, vectors: np.ndarray, times) -> np.ndarray:
    """``HKS(x, t) = sum_i exp(-lambda_i t) phi_i(x)^2``, shape (n, len(times)).

    Examples
    --------
    >>> heat_kernel_signature([0.0, 1.0], np.eye(2), [0.0, 1.0]).round(4)
    array([[1.    , 1.    ],
           [1.    , 0.3679]])
    """
    values = np.asarray(values, dtype=np.float64)
    times = np.asarray(times, dtype=np.float64).reshape(-1)
    weights = np.exp(-np.outer(values, times))  # (k, T)
    return (np.asarray(vectors) ** 2) @ weights


def positional_encoding(op, k: int = 16, kind: str = "eigvec", n_times: int = 8,
                        random_state=0, skip_first: bool = False) -> np.ndarray:
    """Spectral positional encodings of a symmetric PSD operator.

    Parameters
    ----------
    op : LinearOperator / sparse matrix / SchurComplement, shape (n, n)
    k : int, default 16
        Number of smallest eigenpairs used.
    kind : {"eigvec", "hks"}
        Eigenvectors ``(n, k)``, or heat kernel signatures ``(n, n_times)``.
    skip_first : bool
        Drop the first eigenvector.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> L = sp.csr_matrix(np.array([[1.0, -1.0, 0.0], [-1.0, 2.0, -1.0], [0.0, -1.0, 1.0]]))
    >>> positional_encoding(L, k=2).shape, positional_encoding(L, k=2, kind="hks", n_times=3).shape
    ((3, 2), (3, 3))
    """
    if kind not in ("eigvec", "hks"):
        raise ValueError(f"kind must be 'eigvec' or 'hks', got {kind!r}")
    kk = k + int(skip_first)
    vals, vecs = smallest_eigenpairs(op, kk, random_state=random_state)
    if skip_first:
        vals, vecs = vals[1:], vecs[:, 1:]
    if kind == "eigvec":
        return vecs
    return heat_kernel_signature(vals, vecs, hks_times(vals, n_times))


def structural_features(hypergraph: Hypergraph, n_components: int = 32, random_state=0) -> np.ndarray:
    """Label-free spectral node features, shape (n_nodes, n_components), for feature-less hypergraphs.

    The top eigenvectors of the regularized normalized Zhou affinity (``tau`` = mean weighted
    degree), scaled by ``sqrt(n)``, in a basis that depends only on the eigenspaces
    (:mod:`hyperclust.operators.eigenbasis`); a repeated eigenvalue that continues past column
    ``n_components`` is dropped (zero columns).

    Examples
    --------
    >>> from hyperclust import Hypergraph
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [1, 2], [3, 4, 5], [4, 5], [2, 3]])
    >>> structural_features(hg, 3).shape
    (6, 3)
    """
    from .laplacians import ZhouLaplacian

    if not isinstance(hypergraph, Hypergraph):
        raise TypeError(f"expected a Hypergraph, got {type(hypergraph).__name__}")
    if isinstance(n_components, bool) or not isinstance(n_components, numbers.Integral) or n_components < 1:
        raise ValueError(f"n_components must be a positive integer, got {n_components!r}")
    from .eigenbasis import canonical_rotation, probe_vectors
    from .subspace import subspace_eigenpairs

    n = hypergraph.n_nodes
    out = np.zeros((n, n_components))
    k = min(n_components, n if n <= DENSE_LIMIT else n - 2)
    if k < 1:
        return out
    M, d = ZhouLaplacian(hypergraph, kind="unnormalized").affinity()
    tau = float(d.mean()) if d.size and d.mean() > 0 else 1.0
    width = structural_width(k, n)
    if n <= DENSE_LIMIT:
        values, V = regularized_embedding(M, d, width, tau=tau, random_state=random_state)
    else:  # a block solver: Lanczos misses copies of repeated eigenvalues
        values, V = subspace_eigenpairs(NormalizedAffinity(M, d, tau), width,
                                        random_state=random_state)
    T = canonical_rotation(values, V.T @ probe_vectors(np.arange(n), width), k)
    out[:, :T.shape[1]] = fix_signs(V @ T) * np.sqrt(n)
    return out


def structural_width(k: int, n: int) -> int:
    """Eigenpairs computed for ``k`` structural columns of ``n`` nodes (one more when possible).

    Examples
    --------
    >>> structural_width(14, 2708), structural_width(4, 6)
    (15, 4)
    """
    return k + 1 if k + 1 <= n - 2 else k
