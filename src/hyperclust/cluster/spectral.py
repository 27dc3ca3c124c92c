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

#: Operators spectral clustering can embed: those of the operator registry
#: (:data:`hyperclust.operators.registry.OPERATORS`) meeting the ``"affinity"`` protocol, then
#: those with only their own eigensolver (``"eigenpairs"``: the smallest eigenpairs of the
#: operator on the covered nodes, e.g. ``collapsed-cells``).
def spectral_operators() -> tuple:
    """The registry's operators spectral clustering can embed, read now (plugins included).

    Examples
    --------
    >>> spectral_operators()[:2]
    ('zhou', 'clique')
    """
    with_affinity = operator_names("affinity")
    return with_affinity + tuple(n for n in operator_names("eigenpairs")
                                 if n not in with_affinity)


# The operators registered when this module was imported (the tests run over them); the
# estimator and the spectral-<operator> methods of the method registry read the registry
# live through spectral_operators(), so an operator registered later is embeddable too.
OPERATORS = spectral_operators()
ASSIGNERS = ("kmeans", "cpqr")


#: From this many nodes on, ``tol="auto"`` and ``n_init="auto"`` take the faster settings.
LARGE_GRAPH = 100_000
_AUTO = {"small": (1e-8, 10), "large": (1e-3, 3)}
#: What ``tol`` and ``n_init`` accept (the estimator's table and :func:`resolve_settings`).
TOL = ["auto", Interval(float, 0)]
N_INIT = [Interval(int, 1), "auto"]


def resolve_settings(n_nodes: int, tol="auto", n_init="auto") -> tuple[float, int]:
    """The eigensolver tolerance and k-means restarts used for a graph of ``n_nodes`` nodes.

    ``"auto"``: ``tol=1e-8, n_init=10`` below :data:`LARGE_GRAPH` nodes, ``tol=1e-3,
    n_init=3`` from there on (see :class:`SpectralHypergraphClustering`). Explicit values
    are validated and returned unchanged.

    Returns
    -------
    (float, int)

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
    """Whether a column of the embedding ``V`` lives on fewer than ``min(LOCALIZED_SUPPORT,
    n / (2 n_clusters))`` nodes (effective support ``(sum v^2)^2 / sum v^4``: ``|S|`` for an
    indicator of ``S``; the second bound keeps tiny inputs, where every column is that small,
    as they are).

    Without regularization, the smallest eigenvalues of a sparse hypergraph's normalized
    Laplacian belong to dangling sets (a few low-degree nodes hanging off the rest by one
    hyperedge) rather than to the clusters, and k-means then gives those few nodes clusters
    of their own. On the largest component of ``hypergraph_sbm(10**4, 4, homophily=0.7)``
    the three nontrivial columns have supports 3.4, 4.2 and 2.6 of 9,802 nodes; on the
    largest components of the shared real sets the smallest supports are 9.6 (cora-cc) to 14
    (dblp-ca), except walmart-trips (2.2), where regularizing raises NMI .006 -> .114.

    Examples
    --------
    A column on 3 of 100 nodes is localized; on 3 of 6 nodes it is not:

    >>> three = (np.arange(100) < 3).astype(float)[:, None]
    >>> spread = np.full((100, 1), 0.1)
    >>> localized(spread, 2), localized(np.hstack([spread, three]), 2), localized(three[:6], 2)
    (False, True, False)
    """
    sq = np.square(V)
    return localized_moments(sq.sum(axis=0), np.square(sq).sum(axis=0), V.shape[0], n_clusters)


def localized_moments(mass: np.ndarray, fourth: np.ndarray, n: int, n_clusters: int) -> bool:
    """:func:`localized` from the column sums of ``v^2`` (``mass``) and ``v^4`` (``fourth``),
    both shape (n_components,), of an ``n``-row embedding (row blocks add them up).

    Examples
    --------
    An indicator of 3 of 100 nodes (``v^2`` and ``v^4`` sum to 3) is localized:

    >>> localized_moments(np.array([3.0]), np.array([3.0]), 100, 2)
    True
    """
    ok = mass > 0
    support = min(LOCALIZED_SUPPORT, n / (2 * n_clusters))
    return bool(np.any(mass[ok] ** 2 < support * fourth[ok]))


def cpqr_assign(V: np.ndarray) -> np.ndarray:
    """Cluster assignment by column-pivoted QR of the embedding (Damle, Minden & Ying 2019):
    deterministic, no random restarts.

    Parameters
    ----------
    V : ndarray, shape (n_nodes, k)
        Spectral embedding (k clusters).

    Returns
    -------
    ndarray of int, shape (n_nodes,)

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

    The embedding is the top ``n_components`` eigenvectors of the regularized normalized
    affinity ``D_tau^-1/2 (M + tau/N 1 1^T) D_tau^-1/2`` (``M`` the operator's affinity, ``N``
    its size), i.e. the smallest eigenvectors of the regularized normalized Laplacian; rows
    are normalized to unit length and assigned by k-means (or CPQR).

    Parameters
    ----------
    n_clusters : int
    operator : {"zhou", "clique", "clique-unit", "star", "collapsed"}
        ``"zhou"``: ``H W De^-1 H^T`` (Zhou et al. 2006); ``"clique"``: clique expansion with
        pair weight ``w_e / (|e| - 1)``; ``"clique-unit"``: pair weight ``w_e``; ``"star"``:
        bipartite star expansion (vertex rows of its eigenvectors); ``"collapsed"``: the star
        expansion collapsed onto the vertices with leak ``eps``
        (``M = H diag(w^2 / (w|e| + eps)) H^T``, ``d = Dv``).
    assign : {"kmeans", "cpqr"}
    regularization : "auto", float or None, default "auto"
        ``tau``: "auto" = mean degree (Qin & Rohe 2013) when the hypergraph has more connected
        components than clusters, or when the embedding without it is :func:`localized`
        (dangling sets of a sparse input), else 0; ``None`` or ``0`` disables it. Without
        it, hypergraphs with more connected components than clusters (isolated nodes, small
        components) give component indicators as leading eigenvectors. With
        ``knn_beta > 0`` "auto" counts the components only.
    eps : float, default 1.0
        Hyperedge leak of ``operator="collapsed"``.
    n_components : int, optional
        Embedding dimension (default ``n_clusters``).
    row_normalize : bool, default True
    n_init : int or "auto", default "auto"
        k-means restarts; "auto": 10 below :data:`LARGE_GRAPH` (10^5) nodes, 3 from there on.
    tol : float or "auto", default "auto"
        Eigensolver (ARPACK) tolerance; "auto": 1e-8 below 10^5 nodes, 1e-3 from there on.
        The eigensolver always runs in float64 (float32 products would cap the attainable
        accuracy near 1e-6). Measured with ``benchmarks/studies/bench_settings.py --experiment
        spectral`` (docs/results/bench/spectral_settings.md, 5 seeds, ``operator="zhou"``):
        on the shared sets below 10^5 nodes, ``n_init=1`` or ``3`` lowers ACC (zoo
        0.970 -> 0.909 ± 0.086 with 1; cora-cc 0.411 -> 0.401 with 3) and ``tol=1e-3``
        changes labels (ARI to the 1e-8 labels 0.89 on cora-ca), so small graphs keep
        ``1e-8, 10``. On ``synthetic-h0.7-n100000`` and ``-n1000000`` every setting gave the
        same ACC (0.883-0.884) and NMI (0.652-0.654) on all 5 seeds; ``tol=1e-3`` left the
        labels unchanged (ARI to the ``1e-8`` labels 0.999 at 10^5, 1.000 at 10^6, with 10
        restarts) and ``n_init=3`` moved only ambiguous nodes (ARI 0.96 / 0.92, same
        ACC). At 10^6 nodes (one thread, load average ~4.5) a fit with one restart took 6.7 s
        instead of 7.5 s (median) and k-means 0.5 s instead of 1.6 s.
    knn_beta : float in [0, 1], default 0.0
        Weight of the attribute kNN graph. ``0`` (default): the operator alone, as above.
        ``> 0`` (needs node features, ignored without them; not with ``operator="star"``):
        the embedding is the top eigenvectors of the symmetric mixed affinity
        ``S_a N_h S_a + S_b N_q S_b`` (:class:`~hyperclust.operators.knn.SymmetricMixedAffinity`)
        of the regularized normalized operator ``N_h`` and the normalized cosine kNN graph
        ``N_q``, ``a = 1 - beta``, ``b = beta`` (``a = 0, b = 1`` for nodes in no hyperedge),
        the symmetric counterpart of the mixed walk ``(1 - beta) P + beta Q``.
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
        """The checks that need the data or several parameters (the table is checked by
        ``fit``); returns ``(n_clusters, n_components)``."""
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
        """Cluster the nodes of ``hypergraph``; sets ``labels_`` and ``embedding_``.

        ``walk``: an optional prebuilt :class:`~hyperclust.operators.knn.MixedWalk` whose
        kNN graph and row weights are used when ``knn_beta > 0`` (saves the kNN search).
        """
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
            # Regularize when the spectrum would be flooded by component indicators; on other
            # inputs only once the plain embedding proves localized (below): regularizing
            # every connected input measurably hurts (contact-high-school NMI 0.99 -> 0.87).
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
    """Smallest eigenpairs of an operator with its own eigensolver (registry protocol
    ``"eigenpairs"``) on the covered nodes (zero rows for the isolated ones), past the
    component indicators when there are more components than ``k``."""
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
