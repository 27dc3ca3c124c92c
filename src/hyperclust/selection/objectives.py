"""Label-free objectives of a discrete clustering of a (possibly attributed) hypergraph.

All three are *lower is better*, lie in ``[0, 1]`` and cost ``O((nnz(H) + n K) k)`` for ``k``
clusters and ``K`` attribute neighbours (plus the kNN search when the walk is not given);
nothing ``n x n`` is formed. Let ``C_1..C_k`` be the non-empty clusters of ``labels`` and
``Y`` the ``(n, k)`` normalised indicator matrix, ``Y[v, c] = 1 / sqrt(|C_c|)`` for
``v in C_c``.

* :func:`rwr_conductance` -- AHCKA's model-selection objective (Li, Yang & Shi 2023): with
  the mixed walk ``M = (1 - beta) P + beta Q`` (:class:`~hyperclust.operators.knn.MixedWalk`),
  ``z_0 = Y``, ``z_{t+1} = alpha Y + (1 - alpha) M z_t`` for ``t < h`` (``h = n_hops``),

  .. math:: f_{RWR} = 1 - \\frac{1}{k} \\operatorname{tr}(Y^\\top z_h)
            = 1 - \\frac{1}{k} \\sum_c \\frac{1}{|C_c|} \\sum_{u \\in C_c} (R_h 1_{C_c})_u,
            \\quad R_h = \\alpha \\sum_{t<h} (1-\\alpha)^t M^t + (1-\\alpha)^h M^h,

  i.e. one minus the mean, over clusters, of the probability that an ``h``-hop random walk
  with restart (``R_h`` is row-stochastic) started at a uniform node of a cluster ends inside
  it. Structure-only hypergraphs use ``M = P``.
* :func:`hypergraph_ncut` -- Zhou, Huang & Schoelkopf's (2006) normalized hypergraph cut,
  averaged over clusters:

  .. math:: f_{NCut} = \\frac{1}{k} \\sum_c \\frac{\\operatorname{vol} \\partial C_c}
            {\\operatorname{vol} C_c}, \\quad
            \\operatorname{vol} \\partial C = \\sum_e \\frac{w_e |e \\cap C| |e \\setminus C|}{|e|},
            \\quad \\operatorname{vol} C = \\sum_{v \\in C} d(v),

  equal to ``1 - tr(Y_D^T Theta Y_D) / k`` with ``Theta = Dv^-1/2 H W De^-1 H^T Dv^-1/2`` and
  ``Y_D`` the degree-normalised indicators.
* :func:`knn_conductance` -- the same average conductance on the attribute kNN graph ``A``
  (:func:`~hyperclust.operators.knn.knn_affinity`):
  ``f_kNN = (1/k) sum_c cut_A(C_c) / vol_A(C_c)``.

Beside them, :func:`hyperedge_cohesion` (in ``[-1, 1]``, not a conductance): how much
more often than chance hyperedge members share a cluster; ``auto`` adds it to its score
when the hyperedges are heterophilic; and :func:`is_degenerate` (via
:func:`effective_n_clusters`): whether a clustering is a giant cluster plus slivers, which
``ahcka``, ``hsbm`` and ``auto`` refuse to return while a non-degenerate one is at hand.

A cluster of zero volume (only nodes without edges of the kind measured) counts as fully
cut (term 1): the operator gives no evidence for it, and the random walk stops on such nodes
(zero rows of ``M``), so it also scores as leaking in :func:`rwr_conductance`. All three are
invariant under permutations of the cluster ids and under relabelling of the nodes. A single
cluster scores 0: compare clusterings with the same number of clusters.
"""

from __future__ import annotations


import numpy as np
import scipy.sparse as sp

from .._validation import check_fraction, check_int
from ..hypergraph import Hypergraph
from ..operators.base import edge_scale
from ..operators.knn import KNN_METHODS, MixedWalk, knn_affinity, mixed_walk

__all__ = ["cluster_indicators", "rwr_conductance", "hypergraph_ncut", "knn_conductance",
           "hyperedge_cohesion", "clustering_objectives", "effective_n_clusters",
           "is_degenerate", "OBJECTIVES"]

OBJECTIVES = ("rwr", "ncut", "knn")


def _check_hypergraph(hg):
    if not isinstance(hg, Hypergraph):
        raise TypeError(f"expected a hyperclust.Hypergraph, got {type(hg).__name__}")
    return hg


def _dense_codes(y: np.ndarray):
    """``(codes, counts)``: integer labels renumbered ``0..k-1`` in sorted order (as
    ``np.unique(..., return_inverse=True)``) and each code's count; ``O(n + max - min)`` by
    counting when the ids span at most ``4 n`` values, a sort otherwise."""
    y = y.reshape(-1)
    if y.size and np.issubdtype(y.dtype, np.integer):
        lo, hi = int(y.min()), int(y.max())
        if hi - lo < 4 * y.size + 16:
            counts = np.bincount(y - lo, minlength=hi - lo + 1)
            present = counts > 0
            codes = (np.cumsum(present) - 1)[y - lo]
            return codes.astype(np.int64), counts[present]
    _, inv, counts = np.unique(y, return_inverse=True, return_counts=True)
    return inv.reshape(-1).astype(np.int64), counts


def _check_labels(labels, n: int) -> np.ndarray:
    y = np.asarray(labels)
    if y.ndim != 1 or y.shape[0] != n:
        raise ValueError(f"labels must have shape ({n},), got {y.shape}")
    if y.dtype == bool or not np.issubdtype(y.dtype, np.integer):
        if np.issubdtype(y.dtype, np.floating) and np.all(np.isfinite(y)) and np.all(y == np.round(y)):
            y = y.astype(np.int64)
        else:
            raise TypeError(f"labels must be integers, got dtype {y.dtype}")
    return _dense_codes(y)[0]


def _edge_cluster_counts(hg, y: np.ndarray):
    """``(counts, k)``: the ``(m, k)`` CSR matrix ``|e cap C_c|`` for dense codes ``y``."""
    k = int(y.max()) + 1 if y.size else 1
    B = sp.csr_matrix((np.ones(y.size), (np.arange(y.size), y)), shape=(y.size, k))
    return (hg.incidence_t @ B).tocsr(), k


def cluster_indicators(labels) -> sp.csr_matrix:
    """Normalised cluster indicators ``Y[v, c] = 1 / sqrt(|C_c|)``.

    Parameters
    ----------
    labels : array-like of int, shape (n,)
        Any integer cluster ids; empty ids are skipped (columns follow sorted ids).

    Returns
    -------
    scipy.sparse.csr_matrix, shape (n, k)
        ``Y^T Y = I_k``.

    Examples
    --------
    >>> cluster_indicators([0, 0, 1]).toarray().round(3).tolist()
    [[0.707, 0.0], [0.707, 0.0], [0.0, 1.0]]
    """
    y = np.asarray(labels).reshape(-1)
    inv, counts = _dense_codes(y)
    vals = 1.0 / np.sqrt(counts[inv])
    return sp.csr_matrix((vals, (np.arange(y.size), inv)), shape=(y.size, counts.size))


def rwr_conductance(hypergraph, labels, *, walk=None, beta: float = 0.5, alpha: float = 0.2,
                    n_hops: int = 3, n_neighbors: int = 10, knn_method: str = "auto",
                    balance: str = "mean", random_state=0) -> float:
    """AHCKA's random-walk-with-restart conductance on the mixed walk (lower is better).

    ``f = 1 - tr(Y^T z_h) / k`` with ``z_0 = Y``, ``z_{t+1} = alpha Y + (1 - alpha) M z_t``
    (see the module docstring). ``f = 0`` when no walk leaves its cluster.

    Parameters
    ----------
    hypergraph : Hypergraph, n nodes
    labels : array-like of int, shape (n,)
    walk : MixedWalk or LinearOperator, shape (n, n), optional
        A prebuilt row-stochastic walk ``M`` (share it when scoring many clusterings); by
        default :func:`~hyperclust.operators.knn.mixed_walk` of the hypergraph with
        ``beta``, ``n_neighbors``, ``knn_method`` (structure-only when there are no features).
    beta : float in [0, 1], default 0.5
        Weight of the attribute kNN walk.
    alpha : float in (0, 1], default 0.2
        Restart probability.
    n_hops : int, default 3
        ``h``, the number of walk steps.
    n_neighbors : int, default 10
    knn_method : {"auto", "exact", "approximate"}, default "auto"
    balance : {"mean", "min"}, default "mean"
        ``"mean"``: AHCKA's ``1 - tr(Y^T z)/k``, the mean leak ``l_c`` over clusters.
        ``"min"``: the mean of ``l_c * max(1, |C_c| / (n - |C_c|))``, i.e. each cluster's
        leak measured against the smaller side, as conductance ``cut / min(vol C, vol rest)``
        is; identical to ``"mean"`` when no cluster holds more than half of the nodes, and it
        stops a giant cluster plus a small peeled-off set from scoring as a good partition.
    random_state : int, default 0
        Seeds the kNN tie-breaking and the approximate kNN.

    Returns
    -------
    float, ``[0, 1]`` for ``"mean"``

    Examples
    --------
    >>> from hyperclust import Hypergraph
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [1, 2], [3, 4, 5], [4, 5]])
    >>> rwr_conductance(hg, [0, 0, 0, 1, 1, 1]) < rwr_conductance(hg, [0, 1, 0, 1, 0, 1])
    True
    """
    hg = _check_hypergraph(hypergraph)
    y = _check_labels(labels, hg.n_nodes)
    if balance not in ("mean", "min"):
        raise ValueError(f"balance must be 'mean' or 'min', got {balance!r}")
    alpha = check_fraction(alpha, "alpha", lo_open=True)
    n_hops = check_int(n_hops, "n_hops", 0)
    if walk is None:
        if knn_method not in KNN_METHODS:
            raise ValueError(f"knn_method must be one of {KNN_METHODS}, got {knn_method!r}")
        walk = mixed_walk(hg, beta=beta, n_neighbors=n_neighbors, method=knn_method,
                          random_state=random_state)
    elif walk.shape != (hg.n_nodes, hg.n_nodes):
        raise ValueError(f"walk has shape {walk.shape}, expected {(hg.n_nodes,) * 2}")
    Y = cluster_indicators(y).toarray()
    k = Y.shape[1]
    z = Y
    for _ in range(n_hops):
        z = alpha * Y + (1.0 - alpha) * np.asarray(walk @ z)
    if balance == "mean":
        return float(1.0 - np.sum(Y * z) / k)
    leak = 1.0 - np.sum(Y * z, axis=0)  # per cluster, shape (k,)
    sizes = np.bincount(y).astype(np.float64)
    rest = y.size - sizes
    scale = np.where(rest > 0, np.maximum(1.0, sizes / np.where(rest > 0, rest, 1.0)), 1.0)
    return float(np.mean(leak * scale))


def effective_n_clusters(labels) -> float:
    """``exp(H)``, ``H`` the entropy of the cluster sizes: ``k`` for ``k`` equal clusters,
    about 1 for one giant cluster plus slivers. ``O(n)``.

    Parameters
    ----------
    labels : array-like of int, shape (n,)

    Returns
    -------
    float in [1, number of distinct labels]

    Examples
    --------
    >>> round(effective_n_clusters([0, 0, 1, 1, 2, 2]), 2), round(effective_n_clusters([0] * 98 + [1, 2]), 2)
    (3.0, 1.12)
    """
    y = np.asarray(labels).reshape(-1)
    if y.size == 0:
        return 1.0
    return _effective_count(_dense_codes(y)[1])


def _effective_count(sizes) -> float:
    """``exp(entropy)`` of the cluster shares of positive ``sizes``, shape (n_clusters,)."""
    p = sizes / sizes.sum()
    return float(np.exp(-np.sum(p * np.log(p))))


def _below_halfway(effective: float, n_clusters: int) -> bool:
    """The degeneracy rule: fewer than ``1 + (n_clusters - 1) / 2`` effective clusters."""
    return effective < 1.0 + (int(n_clusters) - 1) / 2.0


def is_degenerate(labels, n_clusters: int) -> bool:
    """Whether a clustering asked for ``n_clusters`` is effectively a giant cluster plus
    slivers: fewer than ``1 + (n_clusters - 1) / 2`` effective clusters
    (:func:`effective_n_clusters`), i.e. less than halfway from one cluster to the
    ``n_clusters`` asked for. Label-free; a convention, not fitted to any data set. For
    ``k = 2`` it flags a largest cluster above ~86% of the nodes; for ``k = 3`` one of
    80% with the rest split evenly; unequal real classes (e.g. zoo's 41/20/13/10/8/5/4,
    5.3 effective clusters of 7) pass.

    Parameters
    ----------
    labels : array-like of int, shape (n,)
    n_clusters : int
        The number of clusters asked for.

    Returns
    -------
    bool

    Examples
    --------
    >>> is_degenerate([0] * 9944 + [1] * 56, 2), is_degenerate([0] * 60 + [1] * 40, 2)
    (True, False)
    """
    return _below_halfway(effective_n_clusters(labels), n_clusters)


def sizes_are_degenerate(sizes, n_clusters: int) -> bool:
    """:func:`is_degenerate` from the cluster sizes alone (e.g. summed over the blocks of a
    partitioned hypergraph, without gathering the labels).

    Parameters
    ----------
    sizes : array-like of int, shape (n_clusters_found,)
        Nodes per cluster (zeros are ignored).
    n_clusters : int

    Returns
    -------
    bool

    Examples
    --------
    >>> sizes_are_degenerate([9944, 56], 2), sizes_are_degenerate([60, 0, 40], 2)
    (True, False)
    """
    sizes = np.asarray(sizes, dtype=np.float64).reshape(-1)
    sizes = sizes[sizes > 0]
    if sizes.size == 0:
        return True
    return _below_halfway(_effective_count(sizes), n_clusters)


def _average_conductance(A_inner, vol) -> float:
    """``mean_c (1 - inner_c / vol_c)``, a zero-volume cluster counting 1."""
    terms = np.ones_like(vol)
    ok = vol > 0
    terms[ok] = 1.0 - A_inner[ok] / vol[ok]
    return float(np.clip(terms, 0.0, 1.0).mean())


def hypergraph_ncut(hypergraph, labels) -> float:
    """Zhou's normalized hypergraph cut, averaged over clusters (lower is better).

    ``f = (1/k) sum_c vol(boundary C_c) / vol(C_c)``, computed as
    ``vol C - sum_e w_e |e cap C|^2 / |e|`` over the boundary from the ``(m, k)`` matrix of
    cluster counts per hyperedge, ``O(nnz(H))``.

    Parameters
    ----------
    hypergraph : Hypergraph, n nodes
    labels : array-like of int, shape (n,)

    Returns
    -------
    float in [0, 1]

    Examples
    --------
    >>> from hyperclust import Hypergraph
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [1, 2], [3, 4, 5], [4, 5]])
    >>> hypergraph_ncut(hg, [0, 0, 0, 1, 1, 1]), round(hypergraph_ncut(hg, [0, 1, 0, 1, 0, 1]), 3)
    (0.0, 0.467)
    """
    hg = _check_hypergraph(hypergraph)
    y = _check_labels(labels, hg.n_nodes)
    counts, k = _edge_cluster_counts(hg, y)
    scale = edge_scale(hg)
    inner = np.asarray((sp.diags(scale) @ counts.multiply(counts)).sum(axis=0)).ravel()
    vol = np.bincount(y, weights=np.asarray(hg.weighted_degrees, dtype=np.float64), minlength=k)
    return _average_conductance(inner, vol)


def hyperedge_cohesion(hypergraph, labels) -> float:
    """How much more often hyperedge members share a cluster than chance says.

    For every hyperedge ``e`` with at least two members, the share of its member pairs that
    lie in one cluster, ``s_e = sum_c |e cap C_c| (|e cap C_c| - 1) / (|e| (|e| - 1))``; the
    result is ``mean_e s_e - sum_c (|C_c| / n)^2``, the mean share minus the share two
    random nodes would have. About 0 when the clusters ignore the hyperedges, positive when
    they keep hyperedges together, negative when they split them. ``auto`` adds it to its
    score on hypergraphs whose hyperedges join *less* similar nodes than random pairs (there
    a clustering of the attributes should split hyperedges). ``O(nnz(H))``.

    Parameters
    ----------
    hypergraph : Hypergraph, n nodes
    labels : array-like of int, shape (n,)

    Returns
    -------
    float in [-1, 1] (0.0 when no hyperedge has two members)

    Examples
    --------
    >>> from hyperclust import Hypergraph
    >>> hg = Hypergraph.from_edges([[0, 1], [2, 3]])
    >>> hyperedge_cohesion(hg, [0, 0, 1, 1]), hyperedge_cohesion(hg, [0, 1, 0, 1])
    (0.5, -0.5)
    """
    hg = _check_hypergraph(hypergraph)
    y = _check_labels(labels, hg.n_nodes)
    counts, k = _edge_cluster_counts(hg, y)
    size = np.asarray(counts.sum(axis=1)).ravel()
    kept = size >= 2
    if not kept.any():
        return 0.0
    pairs = np.asarray(counts.multiply(counts).sum(axis=1)).ravel() - size
    share = pairs[kept] / (size[kept] * (size[kept] - 1))
    p = np.bincount(y, minlength=k) / y.size
    return float(share.mean() - np.sum(p * p))


def knn_conductance(hypergraph, labels, *, affinity=None, n_neighbors: int = 10,
                    knn_method: str = "auto", random_state=0) -> float:
    """Average conductance of the clusters on the attribute kNN graph (lower is better).

    ``f = (1/k) sum_c cut_A(C_c) / vol_A(C_c) = 1 - (1/k) sum_c (1_c^T A 1_c) / (1_c^T A 1)``.

    Parameters
    ----------
    hypergraph : Hypergraph, n nodes
        Must have features unless ``affinity`` is given.
    labels : array-like of int, shape (n,)
    affinity : sparse matrix, shape (n, n), optional
        A prebuilt symmetric kNN graph (:func:`~hyperclust.operators.knn.knn_affinity`).
    n_neighbors, knn_method, random_state
        As in :func:`rwr_conductance`.

    Returns
    -------
    float in [0, 1]

    Examples
    --------
    >>> import numpy as np
    >>> from hyperclust import Hypergraph
    >>> X = np.repeat(np.eye(2), 6, axis=0) + 0.01 * np.arange(12)[:, None]
    >>> hg = Hypergraph.from_edges([], n_nodes=12, features=X)
    >>> knn_conductance(hg, [0] * 6 + [1] * 6, n_neighbors=3)
    0.0
    """
    hg = _check_hypergraph(hypergraph)
    y = _check_labels(labels, hg.n_nodes)
    if affinity is None:
        if hg.features is None:
            raise ValueError("knn_conductance needs node features (or a prebuilt affinity)")
        affinity = knn_affinity(hg.features, n_neighbors, method=knn_method,
                                random_state=random_state)
    elif not sp.issparse(affinity) or affinity.shape != (hg.n_nodes, hg.n_nodes):
        raise ValueError(f"affinity must be a sparse ({hg.n_nodes}, {hg.n_nodes}) matrix")
    A = sp.coo_matrix(affinity)
    k = int(y.max()) + 1
    same = y[A.row] == y[A.col]
    inner = np.bincount(y[A.row[same]], weights=A.data[same], minlength=k)
    vol = np.bincount(y[A.row], weights=A.data, minlength=k)
    return _average_conductance(inner, vol)


def clustering_objectives(hypergraph, labels, *, walk=None, affinity=None, beta: float = 0.5,
                          alpha: float = 0.2, n_hops: int = 3, n_neighbors: int = 10,
                          knn_method: str = "auto", random_state=0) -> dict:
    """All three objectives, ``{"rwr", "ncut", "knn"}`` (``"knn"`` is ``None`` without
    features). The kNN graph is built once and shared. Parameters as in
    :func:`rwr_conductance` and :func:`knn_conductance`.

    Returns
    -------
    dict of str -> float or None

    Examples
    --------
    >>> from hyperclust import Hypergraph
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [1, 2], [3, 4, 5], [4, 5]])
    >>> scores = clustering_objectives(hg, [0, 0, 0, 1, 1, 1])
    >>> sorted(scores), scores["knn"] is None   # no attributes: no kNN graph
    (['knn', 'ncut', 'rwr'], True)
    """
    hg = _check_hypergraph(hypergraph)
    if affinity is None and hg.features is not None:
        affinity = knn_affinity(hg.features, n_neighbors, method=knn_method,
                                random_state=random_state)
    if walk is None:
        beta = check_fraction(beta, "beta")
        walk = MixedWalk(hg, affinity if beta > 0 else None, beta=beta)
    return {"rwr": rwr_conductance(hg, labels, walk=walk, alpha=alpha, n_hops=n_hops),
            "ncut": hypergraph_ncut(hg, labels),
            "knn": None if affinity is None else knn_conductance(hg, labels, affinity=affinity)}
