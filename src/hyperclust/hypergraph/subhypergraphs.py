"""Sub-hypergraphs: the one induced on a node set, and the connected components."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components as _cc

from .ids import _as_int_array

__all__ = ["component_labels", "node_positions", "induced_subhypergraph"]


def component_labels(H) -> tuple[int, np.ndarray]:
    """``(number of components, component of each node)`` of the incidence ``H``, numbered by
    decreasing size (ties by first node); isolated nodes are their own components.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> n, comp = component_labels(sp.csr_matrix([[1, 0], [0, 0], [0, 1], [0, 1], [1, 0]]))
    >>> n, comp.tolist()
    (3, [0, 2, 1, 1, 0])
    """
    n = H.shape[0]
    B = sp.bmat([[None, H], [H.T, None]], format="csr")
    _, comp = _cc(B, directed=False)
    _, comp = np.unique(comp[:n], return_inverse=True)
    sizes = np.bincount(comp)
    order = np.argsort(-sizes, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return int(sizes.size), rank[comp]


def node_positions(nodes, n_nodes: int) -> np.ndarray:
    """The positions named by ``nodes``: a boolean mask of length ``n_nodes`` or distinct positions.

    Examples
    --------
    >>> node_positions([True, False, True], 3).tolist(), node_positions([2, 0], 3).tolist()
    ([0, 2], [2, 0])
    >>> node_positions([1, 1], 3)
    Traceback (most recent call last):
    ...
    ValueError: node ids passed to subset() must be distinct
    """
    idx = np.asarray(nodes)
    if idx.dtype == bool:
        if idx.shape[0] != n_nodes:
            raise ValueError(f"node mask has length {idx.shape[0]}, expected {n_nodes}")
        return np.flatnonzero(idx)
    idx = _as_int_array(idx, "node ids")
    if idx.size and (idx.min() < 0 or idx.max() >= n_nodes):
        raise ValueError(f"node ids must lie in [0, {n_nodes})")
    if np.unique(idx).size != idx.size:
        raise ValueError("node ids passed to subset() must be distinct")
    return idx


def induced_subhypergraph(hg, nodes, *, keep_empty_edges: bool = False, edge_order=None):
    """The sub-hypergraph of ``hg`` induced on ``nodes``; empty hyperedges removed unless
    ``keep_empty_edges``, then optionally put in ``edge_order`` (a permutation).

    Examples
    --------
    >>> from hyperclust import Hypergraph
    >>> sub = induced_subhypergraph(Hypergraph.from_edges([[0, 1], [2, 3]]), [3, 2])
    >>> [e.tolist() for e in sub.edges()], sub.parent_positions.tolist(), sub.edge_ids.tolist()
    ([[0, 1]], [3, 2], [1])
    """
    idx = node_positions(nodes, hg.n_nodes)
    H = hg.incidence[idx]
    sizes = np.asarray(H.sum(axis=0)).ravel()
    cols = np.arange(hg.n_edges) if keep_empty_edges else np.flatnonzero(sizes > 0)
    if edge_order is not None:
        cols = np.asarray(edge_order, dtype=np.int64)
        if not keep_empty_edges or not np.array_equal(np.sort(cols), np.arange(hg.n_edges)):
            raise ValueError("edge_order must be a permutation of the hyperedges, with "
                             "keep_empty_edges=True")
    H = H[:, cols]
    features = None if hg.features is None else hg.features[idx]
    labels = None if hg.labels is None else hg.labels[idx]
    nn = None if hg.node_names is None else [hg.node_names[i] for i in idx]
    en = None if hg.edge_names is None else [hg.edge_names[j] for j in cols]
    return type(hg)(H, weights=hg.weights[cols], features=features, labels=labels,
                    node_names=nn, edge_names=en, parent_positions=hg.parent_positions[idx],
                    cleaning=hg.cleaning, name=hg.name, node_ids=hg.node_ids[idx],
                    edge_ids=hg.edge_ids[cols])
