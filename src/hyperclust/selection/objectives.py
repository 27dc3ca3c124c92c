"""Label-free objectives of a clustering of a (possibly attributed) hypergraph.

:func:`rwr_conductance` (AHCKA's, Li, Yang & Shi 2023), :func:`hypergraph_ncut` (Zhou, Huang &
Schoelkopf 2006) and :func:`knn_conductance` are lower-is-better, in ``[0, 1]``, invariant under
relabelling, and cost ``O((nnz(H) + n K) k)``; a cluster of zero volume counts as fully cut, and a
single cluster scores 0. Also :func:`hyperedge_cohesion` and :func:`is_degenerate`.
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
    """``(codes, counts)`` as ``np.unique(y, return_inverse=True, return_counts=True)``;
    counting instead of sorting when the ids span at most about ``4 n`` values."""
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
    """Normalised cluster indicators ``Y[v, c] = 1 / sqrt(|C_c|)``, CSR (n, k), ``Y^T Y = I_k``.

    Columns follow the sorted ids of ``labels`` (any integers, shape (n,)).

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

    ``f = 1 - tr(Y^T z_h) / k`` with ``Y`` the :func:`cluster_indicators`, ``z_0 = Y``,
    ``z_{t+1} = alpha Y + (1 - alpha) M z_t``: one minus the mean, over clusters, of the
    probability that an ``h``-hop walk with restart from a uniform node of a cluster ends in it.

    Parameters
    ----------
    hypergraph : Hypergraph, n nodes
    labels : array-like of int, shape (n,)
    walk : MixedWalk or LinearOperator, shape (n, n), optional
        A prebuilt row-stochastic walk ``M``; default :func:`~hyperclust.operators.knn.mixed_walk`
        with ``beta``, ``n_neighbors``, ``knn_method``.
    beta : float in [0, 1], default 0.5
        Weight of the attribute kNN walk.
    alpha : float in (0, 1], default 0.2
        Restart probability.
    n_hops : int, default 3
        ``h``, the number of walk steps.
    n_neighbors : int, default 10
    knn_method : {"auto", "exact", "approximate"}, default "auto"
    balance : {"mean", "min"}, default "mean"
        ``"mean"``: the mean leak ``l_c`` over clusters. ``"min"``: the mean of
        ``l_c * max(1, |C_c| / (n - |C_c|))`` (leak against the smaller side, so a giant
        cluster plus a sliver does not score well; not bounded by 1).
    random_state : int, default 0
        Seeds the kNN.

    Examples
    --------
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
    """``exp`` of the entropy of the cluster sizes: ``k`` for ``k`` equal clusters, about 1
    for one giant cluster plus slivers.

    Examples
    --------
    >>> [round(effective_n_clusters(y), 2) for y in ([0, 0, 1, 1, 2, 2], [0] * 98 + [1, 2])]
    [3.0, 1.12]
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
    """Whether a clustering has fewer than ``1 + (n_clusters - 1) / 2``
    :func:`effective_n_clusters` (for ``k = 2``: a largest cluster above ~86%).

    Parameters
    ----------
    labels : array-like of int, shape (n,)
    n_clusters : int
        The number of clusters asked for.

    Examples
    --------
    >>> is_degenerate([0] * 9944 + [1] * 56, 2), is_degenerate([0] * 60 + [1] * 40, 2)
    (True, False)
    """
    return _below_halfway(effective_n_clusters(labels), n_clusters)


def sizes_are_degenerate(sizes, n_clusters: int) -> bool:
    """:func:`is_degenerate` from the cluster ``sizes`` alone (zeros ignored; none: True).

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
    """Zhou's normalized hypergraph cut averaged over clusters, in [0, 1] (lower is better).

    ``f = (1/k) sum_c vol(boundary C_c) / vol(C_c)`` with
    ``vol boundary C = sum_e w_e |e cap C| |e minus C| / |e|`` and ``vol C`` the degree sum.

    Examples
    --------
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
    """Mean share of a hyperedge's member pairs in one cluster minus that of random pairs.

    In [-1, 1]: about 0 when the clusters ignore the hyperedges, negative when they split them;
    0.0 when no hyperedge has two members.

    Examples
    --------
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
    """Average conductance ``(1/k) sum_c cut_A(C_c) / vol_A(C_c)`` on the attribute kNN graph.

    Parameters
    ----------
    hypergraph : Hypergraph, n nodes
        Must have features unless ``affinity`` is given.
    labels : array-like of int, shape (n,)
    affinity : sparse matrix, shape (n, n), optional
        A prebuilt symmetric kNN graph (:func:`~hyperclust.operators.knn.knn_affinity`).
    n_neighbors, knn_method, random_state
        As in :func:`rwr_conductance`.

    Examples
    --------
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
    """``{"rwr", "ncut", "knn"}`` on one shared kNN graph (``"knn"`` is ``None`` without
    features). Parameters as in :func:`rwr_conductance` and :func:`knn_conductance`.

    Examples
    --------
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
