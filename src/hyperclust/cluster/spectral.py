"""Spectral clustering of hypergraph nodes over any of hyperclust's operators."""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla

from .._validation import Interval, Options, check_parameter
from ..operators.blockwise import row_components
from ..operators.registry import OPERATORS as _OPERATOR_REGISTRY
from ..operators.registry import affinity, operator_names
from ..operators.eigensolvers import NormalizedAffinity, eigsh_seeded, regularized_embedding
from .base import SHARED_CONSTRAINTS, HypergraphClusterer, check_hypergraph, check_n_clusters
from .rounding import kmeans_labels

__all__ = ["SpectralHypergraphClustering", "OPERATORS", "spectral_operators", "resolve_settings",
           "LARGE_GRAPH", "localized", "localized_moments", "LOCALIZED_SUPPORT"]

def spectral_operators() -> tuple:
    """The registry's operators spectral clustering can embed, read now: those with an
    ``"affinity"``, then those with only their own ``"eigenpairs"``.

    Examples
    --------
    >>> spectral_operators()[:2]
    ('zhou', 'clique')
    """
    with_affinity = operator_names("affinity")
    return with_affinity + tuple(n for n in operator_names("eigenpairs")
                                 if n not in with_affinity)


# The operators registered at import; the estimator reads the registry live.
OPERATORS = spectral_operators()
ASSIGNERS = ("kmeans", "cpqr")


#: From this many nodes on, ``tol="auto"`` and ``n_init="auto"`` take the faster settings.
LARGE_GRAPH = 100_000
_AUTO = {"small": (1e-8, 10), "large": (1e-3, 3)}
#: What ``tol`` and ``n_init`` accept (the estimator's table and :func:`resolve_settings`).
TOL = ["auto", Interval(float, 0)]
N_INIT = [Interval(int, 1), "auto"]


def resolve_settings(n_nodes: int, tol="auto", n_init="auto") -> tuple[float, int]:
    """``(tol, n_init)`` for ``n_nodes`` nodes: ``"auto"`` is ``(1e-8, 10)`` below
    :data:`LARGE_GRAPH`, ``(1e-3, 3)`` from there on; explicit values are validated.

    Examples
    --------
    >>> resolve_settings(2708), resolve_settings(10**6), resolve_settings(50, 1e-4, 2)
    ((1e-08, 10), (0.001, 3), (0.0001, 2))
    """
    key = "large" if n_nodes >= LARGE_GRAPH else "small"
    tol, n_init = check_parameter("tol", tol, TOL), check_parameter("n_init", n_init, N_INIT)
    tol = _AUTO[key][0] if isinstance(tol, str) else tol
    n_init = _AUTO[key][1] if isinstance(n_init, str) else n_init
    return float(tol), int(n_init)


#: An eigenvector whose effective support ``(sum v^2)^2 / sum v^4`` is below this many nodes is
#: localized (:func:`localized`).
LOCALIZED_SUPPORT = 8


def localized(V: np.ndarray, n_clusters: int) -> bool:
    """Whether a column of ``V`` has an effective support ``(sum v^2)^2 / sum v^4`` below
    ``min(LOCALIZED_SUPPORT, n / (2 n_clusters))`` nodes (a dangling set of a sparse input).

    Examples
    --------
    >>> three = (np.arange(100) < 3).astype(float)[:, None]
    >>> spread = np.full((100, 1), 0.1)
    >>> localized(spread, 2), localized(np.hstack([spread, three]), 2), localized(three[:6], 2)
    (False, True, False)
    """
    sq = np.square(V)
    return localized_moments(sq.sum(axis=0), np.square(sq).sum(axis=0), V.shape[0], n_clusters)


def localized_moments(mass: np.ndarray, fourth: np.ndarray, n: int, n_clusters: int) -> bool:
    """:func:`localized` from the column sums of ``v^2`` (``mass``) and ``v^4`` (``fourth``)
    of an ``n``-row embedding.

    Examples
    --------
    >>> localized_moments(np.array([3.0]), np.array([3.0]), 100, 2)
    True
    """
    ok = mass > 0
    support = min(LOCALIZED_SUPPORT, n / (2 * n_clusters))
    return bool(np.any(mass[ok] ** 2 < support * fourth[ok]))


def cpqr_assign(V: np.ndarray) -> np.ndarray:
    """Labels (n_nodes,) by column-pivoted QR of the embedding ``V`` (n_nodes, k) (Damle,
    Minden & Ying 2019): deterministic.

    Examples
    --------
    >>> V = np.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [0.1, 0.9]])
    >>> cpqr_assign(V).tolist()
    [0, 0, 1, 1]
    """
    k = V.shape[1]
    _, _, piv = sla.qr(V.T, pivoting=True, mode="economic")
    Q, _ = np.linalg.qr(V[piv[:k]].T)
    U, _, Wt = np.linalg.svd(Q, full_matrices=False)
    R = V @ (U @ Wt)
    return np.argmax(np.abs(R), axis=1)


class SpectralHypergraphClustering(HypergraphClusterer):
    """Regularized normalized spectral clustering on a hypergraph operator.

    The top eigenvectors of ``D_tau^-1/2 (M + tau/N 1 1^T) D_tau^-1/2`` (``M`` the operator's
    affinity), rows normalized, assigned by k-means (or CPQR).

    Parameters
    ----------
    n_clusters : int
    operator : str, default "zhou"
        A name of :func:`spectral_operators` (``"zhou"``, ``"clique"``, ``"clique-unit"``,
        ``"star"``, ``"collapsed"``, ...).
    assign : {"kmeans", "cpqr"}
    regularization : "auto", float or None, default "auto"
        ``tau``; "auto": the mean degree (Qin & Rohe 2013) when there are more connected
        components than clusters or the plain embedding is :func:`localized`, else 0.
    eps : float, default 1.0
        Hyperedge leak of ``operator="collapsed"``.
    n_components : int, optional
        Embedding dimension (default ``n_clusters``).
    row_normalize : bool, default True
    n_init : int or "auto", default "auto"
        k-means restarts (:func:`resolve_settings`).
    tol : float or "auto", default "auto"
        ARPACK tolerance, float64 (:func:`resolve_settings`;
        docs/results/bench/spectral_settings.md).
    knn_beta : float in [0, 1], default 0.0
        ``> 0`` (with node features; not with ``operator="star"``): embed the symmetric mixed
        affinity of the operator and the cosine kNN graph
        (:class:`~hyperclust.operators.knn.SymmetricMixedAffinity`).
    knn_neighbors : int, default 10
        ``K`` of the kNN graph when ``knn_beta > 0``.
    random_state : int, default 0
        Seeds the Lanczos start vector, k-means and the kNN tie-breaking.

    Attributes
    ----------
    labels_ : ndarray of int, shape (n_nodes,)
    embedding_ : ndarray, shape (n_nodes, n_components)
    eigenvalues_ : ndarray, shape (n_components,)
        Eigenvalues of the regularized normalized Laplacian, ascending.
    tau_ : float
    tol_, n_init_ : float, int
        The settings used (``"auto"`` resolved).

    Examples
    --------
    >>> from hyperclust import Hypergraph
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [1, 2], [3, 4, 5], [4, 5], [2, 3]])
    >>> est = SpectralHypergraphClustering(2, operator="zhou", random_state=0).fit(hg)
    >>> est.labels_.tolist(), est.embedding_.shape
    ([1, 1, 1, 0, 0, 0], (6, 2))
    """

    _parameter_constraints = {
        **SHARED_CONSTRAINTS,
        "operator": [Options(spectral_operators)],
        "assign": [Options(ASSIGNERS)],
        "regularization": ["auto", Interval(float, 0), None],
        "eps": [Interval(float, 0)],
        "n_components": [Interval(int, 1), None],
        "row_normalize": [bool],
        "n_init": N_INIT,
        "tol": TOL,
        "knn_beta": [Interval(float, 0, 1)],
        "knn_neighbors": [Interval(int, 1)],
    }

    def __init__(self, n_clusters=2, operator="zhou", assign="kmeans", regularization="auto",
                 eps=1.0, n_components=None, row_normalize=True, n_init="auto", tol="auto",
                 knn_beta=0.0, knn_neighbors=10, random_state=0):
        self.n_clusters = n_clusters
        self.operator = operator
        self.assign = assign
        self.regularization = regularization
        self.eps = eps
        self.n_components = n_components
        self.row_normalize = row_normalize
        self.n_init = n_init
        self.tol = tol
        self.knn_beta = knn_beta
        self.knn_neighbors = knn_neighbors
        self.random_state = random_state

    def _validate(self, hg):
        """Checks needing the data or several parameters; ``(n_clusters, n_components)``."""
        own_solver = "affinity" not in _OPERATOR_REGISTRY[self.operator].protocols
        k = check_n_clusters(self.n_clusters, hg.n_nodes)
        if k >= hg.n_nodes:
            raise ValueError(f"spectral clustering needs n_clusters < n_nodes; got n_clusters={k} "
                             f"for {hg.n_nodes} nodes")
        dim = k if self.n_components is None else self.n_components
        if dim >= hg.n_nodes:
            raise ValueError(f"n_components must be an integer in [1, n_nodes), got {dim!r}")
        if own_solver and self.eps == 0:
            raise ValueError(f"operator={self.operator!r} needs eps > 0")
        if self.knn_beta > 0 and own_solver:
            raise ValueError(f"knn_beta > 0 is not available with operator={self.operator!r}")
        if self.knn_beta > 0 and not _OPERATOR_REGISTRY[self.operator].node_rows_only:
            raise ValueError("knn_beta > 0 needs a node operator; operator='star' embeds "
                             "nodes and hyperedges")
        return k, int(dim)

    def fit(self, hypergraph, y=None, *, walk=None):
        """Cluster the nodes of ``hypergraph``; ``walk``: a prebuilt
        :class:`~hyperclust.operators.knn.MixedWalk` used when ``knn_beta > 0``."""
        hg = check_hypergraph(hypergraph)
        k, dim = self._validate(hg)
        self.tol_, self.n_init_ = resolve_settings(hg.n_nodes, self.tol, self.n_init)
        seed = self._rng_seed(self.random_state)
        if "affinity" not in _OPERATOR_REGISTRY[self.operator].protocols:
            vals, V = _own_eigenpairs_embedding(self.operator, hg, k, dim, float(self.eps), seed)
            return self._assign(V, vals, k, seed, tau=0.0)
        M, d = affinity(self.operator, hg, eps=float(self.eps))
        n = hg.n_nodes
        reg = self.regularization
        mean_degree = float(d.mean()) if d.mean() > 0 else 1.0
        if reg == "auto":
            # regularizing every connected input hurts: only once the plain embedding proves
            # localized (below)
            tau = mean_degree if hg.connected_components()[0] > k else 0.0
        else:
            tau = float(reg or 0.0)
        if self.knn_beta > 0 and hg.features is not None and n > 1:
            vals, V = self._mixed_embedding(hg, M, d, tau, dim, seed, walk)
        else:
            labels = None if tau else row_components(hg, M.shape[0])
            vals, V = regularized_embedding(M, d, dim, tau=tau, random_state=seed, tol=self.tol_,
                                            components=labels)
            if reg == "auto" and not tau and localized(V, k):
                tau = mean_degree
                vals, V = regularized_embedding(M, d, dim, tau=tau, random_state=seed,
                                                tol=self.tol_)
        return self._assign(V[:n], vals, k, seed, tau)

    def _assign(self, V, vals, k, seed, tau):
        """Row-normalize the embedding, assign the clusters, set the fitted attributes."""
        if self.row_normalize:
            norms = np.linalg.norm(V, axis=1, keepdims=True)
            V = np.divide(V, norms, out=np.zeros_like(V), where=norms > 0)
        if self.assign == "kmeans":
            labels = kmeans_labels(V, k, self.n_init_, seed)
        else:
            labels = cpqr_assign(V[:, :k] if V.shape[1] >= k else V)
        self.labels_ = np.asarray(labels, dtype=np.int64)
        self.embedding_ = V
        self.eigenvalues_ = vals
        self.tau_ = tau
        return self

    def _mixed_embedding(self, hg, M, d, tau, dim, seed, walk):
        """Top eigenpairs of the symmetric hypergraph + kNN affinity (``knn_beta > 0``)."""
        from ..operators.knn import MixedWalk, SymmetricMixedAffinity, knn_affinity

        if walk is None:
            walk = MixedWalk(hg, knn_affinity(hg.features, int(self.knn_neighbors),
                                              random_state=seed), beta=float(self.knn_beta))
        elif walk.shape != (hg.n_nodes, hg.n_nodes) or walk.knn_affinity is None:
            raise ValueError("walk must be a MixedWalk of this hypergraph with a kNN graph")
        A = walk.knn_affinity
        a, b = walk.row_weights_
        N = SymmetricMixedAffinity(NormalizedAffinity(M, d, tau),
                                   NormalizedAffinity(A, np.asarray(A.sum(axis=1)).ravel()), a, b)
        mu, V = eigsh_seeded(N, dim, which="LA", random_state=seed, tol=self.tol_)
        return 1.0 - mu, V


def _own_eigenpairs_embedding(name, hg, k, dim, eps, seed):
    """Smallest eigenpairs of an ``"eigenpairs"`` operator on the covered nodes (zero rows
    for the others), past the component indicators when there are more than ``k``."""
    from ..operators.registry import make_operator

    covered = np.flatnonzero(~hg.isolated)
    sub = hg.subset(covered) if covered.size < hg.n_nodes else hg
    if sub.n_nodes <= dim + 1:
        raise ValueError(f"operator={name!r} needs more than {dim + 1} covered nodes, "
                         f"got {sub.n_nodes}")
    n_comp = sub.connected_components()[0]
    skip = n_comp if n_comp > k else 0
    if skip + dim >= sub.n_nodes:
        raise ValueError(f"{n_comp} connected components and n_components={dim} leave no room "
                         f"in {sub.n_nodes} covered nodes")
    vals, V = make_operator(name, sub, eps=eps).smallest_eigenpairs(skip + dim,
                                                                     random_state=seed)
    out = np.zeros((hg.n_nodes, dim))
    out[covered] = V[:, skip:]
    return vals[skip:], out
