"""Hypergraph constructions of the collapsed effective operator S_eps: the star expansion and the
coboundary complex, both invariant under node relabelling (docs/collapsed-operators.md).
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
from scipy.sparse.linalg import splu

from ..hypergraph import Hypergraph
from ..runtime.progress import elapsed_bar
from .base import (FactoredOperator, Operator, as_dense_block, check_hypergraph,
                   check_sparse_budget, clique_nnz_estimate, safe_inverse)
from .collapsed_iterative import CoboundaryIterative
from .expansions import clique_adjacency, clique_pair_weights
from .graded import GradedComplex, SchurComplement, eps_gamma_bound
from .laplacians import GramOperator

__all__ = ["auto_route", "CoboundaryCollapsed", "StarCollapsedOperator", "star_collapsed", "star_complex", "clique_incidence",
           "membership_incidence", "coboundary_complex"]


def star_complex(hypergraph: Hypergraph, eps: float = 0.0, **kwargs) -> SchurComplement:
    """The star expansion's Laplacian ``[[Dv, -H W], [-W H^T, W De]]`` collapsed onto the vertices
    (:class:`SchurComplement`, ``eps`` on the hyperedge block), solved per component.

    Examples
    --------
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [2, 3]])
    >>> np.allclose(star_complex(hg, eps=1.0).to_dense(),
    ...             StarCollapsedOperator(hg, eps=1.0) @ np.eye(4))
    True
    """
    check_hypergraph(hypergraph)
    w = hypergraph.weights
    A = sp.diags(hypergraph.weighted_degrees).tocsr()
    X = -(hypergraph.incidence @ sp.diags(w)).tocsr()
    C = sp.diags(w * hypergraph.edge_sizes.astype(np.float64)).tocsr()
    # Block diagonal over the hypergraph's components; the indicators are its null space
    # when eps = 0 (with eps > 0 the check in smallest_eigenpairs drops them).
    kwargs = {"components": hypergraph.connected_components()[1],
              "null_weights": np.ones(hypergraph.n_nodes), **kwargs}
    return SchurComplement(A, X, C, eps=eps, **kwargs)


class StarCollapsedOperator(FactoredOperator):
    """Matrix-free star-expansion collapse ``S_eps = Dv - H diag(w_e^2 / (w_e |e| + eps)) H^T``.

    Parameters
    ----------
    hypergraph : Hypergraph
    eps : float, default 1.0
        Leak of each hyperedge node (``0`` gives the unnormalized Zhou Laplacian).
    normalized : bool, default False
        ``Dv^-1/2 S_eps Dv^-1/2`` (identity rows for isolated nodes) instead.

    Examples
    --------
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [2, 3]])
    >>> np.round(StarCollapsedOperator(hg, eps=0.0) @ np.ones(4), 12) + 0.0
    array([0., 0., 0., 0.])
    >>> np.round(StarCollapsedOperator(hg, eps=1.0).grounding(), 4)
    array([0.25  , 0.25  , 0.5833, 0.3333])
    """

    def __init__(self, hypergraph: Hypergraph, eps: float = 1.0, normalized: bool = False):
        check_hypergraph(hypergraph)
        if not np.isfinite(eps) or eps < 0:
            raise ValueError(f"eps must be finite and non-negative, got {eps!r}")
        super().__init__(hypergraph.n_nodes)
        self.hypergraph = hypergraph
        self.eps = float(eps)
        self.normalized = bool(normalized)
        w = hypergraph.weights
        size_w = w * hypergraph.edge_sizes.astype(np.float64)
        self.edge_scale = w * w * safe_inverse(size_w + self.eps)
        self._M = GramOperator(hypergraph.incidence, self.edge_scale, Ht=hypergraph.incidence_t)
        self.degrees = hypergraph.weighted_degrees
        self._s = np.sqrt(safe_inverse(self.degrees))

    def affinity(self):
        """``(M, Dv)`` with ``M = H diag(w^2 / (w|e| + eps)) H^T``; ``S_eps = Dv - M``."""
        return self._M, self.degrees

    def grounding(self) -> np.ndarray:
        """``S_eps 1`` per node: ``H (w eps / (w|e| + eps))``."""
        hg = self.hypergraph
        w = hg.weights
        return hg.incidence @ (w * self.eps * safe_inverse(w * hg.edge_sizes + self.eps))

    def _apply(self, X):
        if self.normalized:
            # Isolated nodes have s = 0, so their rows reduce to the identity.
            return X - self._s[:, None] * self._M._apply(self._s[:, None] * X)
        return self.degrees[:, None] * X - self._M._apply(X)

    def _sparse_nnz_estimate(self):
        return clique_nnz_estimate(self.hypergraph) + self.shape[0]

    def _build_sparse(self):
        S = sp.diags(self.degrees) - self._M._build_sparse()
        if self.normalized:
            D = sp.diags(self._s)
            return D @ S @ D + sp.diags((self.degrees == 0).astype(np.float64))
        return S


def star_collapsed(hypergraph: Hypergraph, eps: float = 1.0, normalized: bool = False):
    """Shorthand for :class:`StarCollapsedOperator`.

    Examples
    --------
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [2, 3]])
    >>> star_collapsed(hg, eps=0.5).shape
    (4, 4)
    """
    return StarCollapsedOperator(hypergraph, eps=eps, normalized=normalized)


def clique_incidence(hypergraph: Hypergraph, weighting: str = "normalized", max_nnz=None,
                     memory_budget=None):
    """Signed weighted incidence ``B1`` (shape (n, n_pairs)) of the clique expansion, and its
    ``pairs`` (shape (n_pairs, 2), each edge ``u < v`` oriented ``u -> v``).

    Examples
    --------
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [2, 3]])
    >>> B1, pairs = clique_incidence(hg, "unit")
    >>> pairs.tolist(), (B1 @ B1.T).toarray()[2].tolist()
    ([[0, 1], [0, 2], [1, 2], [2, 3]], [-1.0, -1.0, 3.0, -1.0])
    """
    check_hypergraph(hypergraph)
    check_sparse_budget(clique_nnz_estimate(hypergraph), "clique incidence", max_nnz, memory_budget)
    A, _ = clique_adjacency(hypergraph, weighting)
    U = sp.triu(A._build_sparse(), k=1).tocoo()
    keep = U.data > 0
    u, v, c = U.row[keep], U.col[keep], U.data[keep]
    order = np.lexsort((v, u))
    u, v, c = u[order], v[order], c[order]
    n1 = u.size
    rows = np.concatenate([u, v])
    cols = np.concatenate([np.arange(n1), np.arange(n1)])
    s = np.sqrt(c)
    B1 = sp.csr_matrix((np.concatenate([-s, s]), (rows, cols)), shape=(hypergraph.n_nodes, n1))
    return B1, np.column_stack([u, v])


def membership_incidence(hypergraph: Hypergraph, pairs: np.ndarray) -> sp.csr_matrix:
    """Unsigned ``B_2[j, e] = 1`` when both ends of clique edge ``j`` lie in hyperedge ``e``.

    With a signed ``B_1`` this depends on the node numbering; it demonstrates that pitfall.

    Examples
    --------
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [2, 3]])
    >>> membership_incidence(hg, clique_incidence(hg)[1]).toarray().tolist()
    [[1.0, 0.0], [1.0, 0.0], [1.0, 0.0], [0.0, 1.0]]
    """
    H = hypergraph.incidence
    both = H[pairs[:, 0]].multiply(H[pairs[:, 1]])
    return sp.csr_matrix(both)


def coboundary_complex(hypergraph: Hypergraph, beta=(1.0, 1.0), gamma="auto",
                       weighting: str = "normalized", max_nnz=None,
                       memory_budget=None, eps: float = 1e-2) -> GradedComplex:
    """Vertices, clique edges and hyperedges as ranks 0, 1, 2 with ``B_2 = B_1^T H W^1/2``.

    ``gamma="auto"`` takes the PSD-safe couplings ``sqrt(beta eps)`` for this ``eps``.

    Examples
    --------
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [2, 3]])
    >>> cx = coboundary_complex(hg, eps=1e-2)
    >>> cx.sizes, cx.psd_report(1e-2)["eps_gamma_ok"]
    ([4, 4, 2], True)
    """
    B1, _ = clique_incidence(hypergraph, weighting, max_nnz, memory_budget)
    R = hypergraph.incidence @ sp.diags(np.sqrt(hypergraph.weights))
    B2 = sp.csr_matrix(B1.T @ R)
    B2.eliminate_zeros()
    return GradedComplex([B1, B2], beta=beta, gamma=_resolve_gamma(gamma, beta, eps))


#: Up to this many nodes ``"auto"`` takes the dense route (seconds at most; the factored LU
#: and the iterative CG solves can take minutes on inputs a tenth of this size).
DENSE_CHEAP_NODES = 2000


def auto_route(hypergraph: Hypergraph, dense_max_nodes: int = 5000, psd_safe: bool = True) -> str:
    """The route ``CoboundaryCollapsed(method="auto")`` takes.

    Dense up to ``min(DENSE_CHEAP_NODES, dense_max_nodes)`` nodes, or up to ``dense_max_nodes``
    when the clique expansion has over ``50 n`` nonzeros; factored when no component is larger or
    the couplings are not PSD-safe; else iterative.

    Examples
    --------
    >>> auto_route(Hypergraph.from_edges([[0, 1, 2], [2, 3]]))
    'dense'
    >>> auto_route(Hypergraph.from_edges([[0, 1, 2], [2, 3]]), dense_max_nodes=3)
    'iterative'
    >>> auto_route(Hypergraph.from_edges([[0, 1, 2], [3, 4]]), dense_max_nodes=3)
    'factored'
    """
    n = hypergraph.n_nodes
    small = min(DENSE_CHEAP_NODES, dense_max_nodes)
    if n <= small or (n <= dense_max_nodes and clique_nnz_estimate(hypergraph) > 50 * n):
        return "dense"
    largest = np.bincount(hypergraph.connected_components()[1]).max()
    # The iterative route needs the PSD-safe gamma_0; other couplings keep the LU.
    return "factored" if largest <= small or not psd_safe else "iterative"


def _resolve_gamma(gamma, beta, eps) -> np.ndarray:
    """Two couplings from ``"auto"`` (``sqrt(beta eps)``) or user values."""
    if not np.isfinite(eps) or eps <= 0:
        raise ValueError(f"eps must be positive, got {eps!r}")
    if isinstance(gamma, str):
        if gamma != "auto":
            raise ValueError(f"gamma must be 'auto' or two non-negative numbers, got {gamma!r}")
        gamma = eps_gamma_bound(beta, eps)
    gamma = np.asarray(gamma, dtype=np.float64).reshape(-1)
    if gamma.shape != (2,) or not np.all(np.isfinite(gamma)) or np.any(gamma < 0):
        raise ValueError(f"gamma must be 'auto' or two non-negative numbers, got {gamma.tolist()}")
    return gamma


class CoboundaryCollapsed(Operator):
    """S_eps of :func:`coboundary_complex`, computed through ``H`` (never edge- or clique-sized).

    The push-through formulas and the routes are derived in docs/collapsed-operators.md;
    timings in docs/results/collapsed.md.

    Parameters
    ----------
    hypergraph : Hypergraph
    beta : (float, float), default (1, 1)
    gamma : (float, float) or "auto", default "auto"
        Couplings; ``"auto"`` is the PSD-safe ``sqrt(beta_{k+1} eps)``; larger values warn.
    eps : float, > 0, default 1e-2
    weighting : {"normalized", "unit"}
        Clique edge weights of ``L_0`` (see :func:`clique_adjacency`).
    method : {"auto", "factored", "dense", "iterative"}, default "auto"
        Sparse LU, ``n x n`` array, or LOBPCG with CG solves (:class:`CoboundaryIterative`,
        needs the PSD-safe ``gamma_0``); ``"auto"``: :func:`auto_route`.
    dense_max_nodes : int, default 5000
        Above this, ``"auto"`` never builds the ``n x n`` array.

    Examples
    --------
    >>> from hyperclust import Hypergraph
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [1, 2, 3], [3, 4], [4, 5, 6], [5, 6]])
    >>> S = CoboundaryCollapsed(hg)
    >>> S.method, S.shape
    ('dense', (7, 7))
    >>> vals, vecs = S.smallest_eigenpairs(2)
    >>> abs(float(vals[0])) < 1e-10, vecs.shape
    (True, (7, 2))
    >>> bool(np.all(np.linalg.eigvalsh(S.to_dense()) > -1e-10))
    True
    """

    def __init__(self, hypergraph: Hypergraph, beta=(1.0, 1.0), gamma="auto", eps: float = 1e-2,
                 weighting: str = "normalized", method: str = "auto", dense_max_nodes: int = 5000):
        check_hypergraph(hypergraph)
        if method not in ("auto", "factored", "dense", "iterative"):
            raise ValueError(f"method must be 'auto', 'factored', 'dense' or 'iterative', got {method!r}")
        beta = np.asarray(beta, dtype=np.float64).reshape(-1)
        if beta.shape != (2,) or not np.all(np.isfinite(beta)) or np.any(beta <= 0):
            raise ValueError(f"beta must be two positive numbers, got {beta.tolist()}")
        gamma = _resolve_gamma(gamma, beta, eps)
        pair = clique_pair_weights(hypergraph, weighting)
        bound = eps_gamma_bound(beta, eps)
        if np.any(gamma > bound * (1 + 1e-12)):
            warnings.warn(
                f"gamma={gamma.tolist()} exceeds the PSD-guaranteeing bound sqrt(beta*eps)="
                f"{bound.tolist()}; S_eps may be indefinite (check coboundary_complex(...)"
                ".psd_report(eps)) and its 'smallest' eigenpairs then start below zero",
                UserWarning, stacklevel=2)
        n = hypergraph.n_nodes
        super().__init__(dtype=np.float64, shape=(n, n))
        self.hypergraph = hypergraph
        self.weighting = weighting
        self.b1, self.b2 = map(float, beta)
        self.g0, self.g1 = map(float, gamma)
        self.eps = float(eps)
        sizes = hypergraph.edge_sizes.astype(np.float64)
        w = hypergraph.weights
        H = sp.csr_matrix(hypergraph.incidence, dtype=np.float64)
        self._delta = H @ (pair * sizes)
        used = pair > 0
        self._Hq = sp.csr_matrix(H[:, used])              # hyperedges that carry clique edges
        self._HC = sp.csr_matrix(self._Hq @ sp.diags(pair[used]))
        self.R = sp.csr_matrix(H @ sp.diags(np.sqrt(w)))
        if method == "auto":
            psd_safe = np.isclose(self.g0 ** 2, self.b1 * self.eps, rtol=1e-9) \
                and self.g1 ** 2 <= self.b2 * self.eps * (1 + 1e-9)
            method = auto_route(hypergraph, dense_max_nodes, psd_safe)
        self.method = method
        with elapsed_bar(f"S_eps {method} build"):
            self._dense = self._dense_matrix() if method == "dense" else None
            self._sub_lu = splu(self._system(None)) if method == "factored" else None
        self._iterative = (CoboundaryIterative(self._delta, self._Hq, self._HC, self.R, beta, gamma,
                                               self.eps) if method == "iterative" else None)

    def _dense_matrix(self) -> np.ndarray:
        """``S_eps`` as an array, by push-through with ``G = R R^T``."""
        n = self.shape[0]
        eye = np.eye(n)
        L0 = self.laplacian0_apply(eye)
        G = (self.R @ self.R.T).toarray()
        K = self.eps * eye + self.b2 * (L0 @ G)
        N = self.b1 * eye + self.b2 * G - self.g1 ** 2 * sla.solve(K.T, G).T
        S = self.b1 * L0 - self.g0 ** 2 * sla.solve(L0 @ N + self.eps * eye, L0)
        return 0.5 * (S + S.T)

    def laplacian0_apply(self, U):
        """``L_0 U`` through ``H`` (the clique Laplacian, never formed)."""
        return self._delta[:, None] * U - self._HC @ (self._Hq.T @ U)

    def _system(self, sigma):
        """Sparse system in ``(y, x, a, t, q_x, q_a, r, s)``; with ``sigma`` also ``(u, q_u)`` for
        ``(S - sigma I)^-1``.
        """
        n, m = self.R.shape
        mq = self._Hq.shape[1]
        I_n, I_m, I_q = (sp.identity(k, format="csr") for k in (n, m, mq))
        D = sp.diags(self._delta).tocsr()
        HC, Hqt, R, Rt = self._HC, sp.csr_matrix(self._Hq.T), self.R, sp.csr_matrix(self.R.T)
        b1, b2, g0, g1, eps = self.b1, self.b2, self.g0, self.g1, self.eps
        rows = [  # y         x     a      t         q_x    q_a    r         s
            [eps * I_n,  D,    None,  None,     -HC,   None,  None,     None],         # y
            [-b1 * I_n,  I_n,  None,  None,     None,  None,  -b2 * R,  g1 ** 2 * R],  # x
            [None,       None, I_n,   None,     None,  None,  None,     -R],           # a
            [None,       None, -D,    I_n,      None,  HC,    None,     None],         # t = L0 a
            [None,       -Hqt, None,  None,     I_q,   None,  None,     None],         # q_x
            [None,       None, -Hqt,  None,     None,  I_q,   None,     None],         # q_a
            [-Rt,        None, None,  None,     None,  None,  I_m,      None],         # r
            [None,       None, None,  b2 * Rt,  None,  None,  -I_m,     eps * I_m],    # s
        ]
        if sigma is None:
            return sp.bmat(rows, format="csc")
        # unknowns u, q_u in front; L0 u = D u - HC q_u
        full = [[b1 * D - sigma * I_n, -b1 * HC, -g0 ** 2 * I_n] + [None] * 7,
                [-Hqt, I_q] + [None] * 8]
        front = {0: [-D, HC]}
        for i, row in enumerate(rows):
            full.append(front.get(i, [None, None]) + row)
        return sp.bmat(full, format="csc")

    def _matmat(self, U):
        U, _ = as_dense_block(U)
        if self._dense is not None:
            return self._dense @ U
        if self._iterative is not None:
            return self._iterative.apply(U)
        n = self.shape[0]
        rhs = np.zeros((self._sub_lu.shape[0], U.shape[1]))
        LU = self.laplacian0_apply(U)
        rhs[:n] = LU
        Y = self._sub_lu.solve(rhs)[:n]
        return self.b1 * LU - self.g0 ** 2 * Y

    def _matvec(self, u):
        return self._matmat(np.asarray(u, dtype=np.float64).reshape(-1, 1)).ravel()

    def _rmatvec(self, u):
        return self._matvec(u)

    def _adjoint(self):
        return self

    def to_dense(self) -> np.ndarray:
        """Dense S_eps (small n only)."""
        if self._dense is not None:
            return self._dense.copy()
        S = self._matmat(np.eye(self.shape[0]))
        return 0.5 * (S + S.T)

    def smallest_eigenpairs(self, k: int = 10, sigma: float | None = None, tol: float | None = None,
                            random_state=0):
        """The ``k`` smallest eigenpairs: the null space (component indicators) first, the rest per
        component (:mod:`~hyperclust.operators.collapsed_eigen`), sign-fixed.

        ``sigma`` (default just below 0) and ``tol`` (ARPACK's, default 1e-10; LOBPCG's relative
        residual, default 1e-5, for ``"iterative"``) tune the solver. Warns when S_eps is indefinite.

        Returns
        -------
        values : ndarray (k,), ascending; vectors : ndarray (n, k)
        """
        from .collapsed_eigen import coboundary_eigenpairs

        return coboundary_eigenpairs(self, k, sigma, tol, random_state)

    def spectrum(self, r: int, random_state=0):
        """``(null, values, vectors)``: the component indicators (sparse ``(n, c)``) and the ``r``
        smallest eigenpairs off them.
        """
        from .collapsed_eigen import coboundary_spectrum

        return coboundary_spectrum(self, r, random_state=random_state)
