"""The raw input of the ``Hypergraph`` constructors as an incidence matrix: hyperedge lists
flattened, membership pairs and dense or sparse matrices checked."""

from __future__ import annotations

import itertools

import numpy as np
import scipy.sparse as sp

from .ids import _all_integers, _as_int_array, map_ids
from .validation import infer_n_nodes

__all__ = ["flatten_edges", "integer_members", "edges_to_pairs", "pairs_to_incidence",
           "incidence_matrix"]

#: Libraries whose objects go through :func:`hyperclust.convert.from_any`, not ``from_edges``.
_FOREIGN_MODULES = frozenset({"xgi", "hypernetx", "dhg", "torch_geometric", "networkx",
                              "pandas"})


def flatten_edges(edges):
    """``(edges as a list, every member in order, the hyperedge of each member)``.

    Examples
    --------
    >>> _, flat, eids = flatten_edges([["a", "b"], ["b", "c", "d"]])
    >>> flat, eids.tolist()
    (['a', 'b', 'b', 'c', 'd'], [0, 0, 1, 1, 1])
    >>> flatten_edges(["ab", "cd"])
    Traceback (most recent call last):
    ...
    TypeError: hyperedge 0 must be a collection of node ids, got 'ab'
    """
    root = type(edges).__module__.split(".")[0]
    if root in _FOREIGN_MODULES:
        raise TypeError(f"from_edges takes a list of hyperedges, not a {root} "
                        f"{type(edges).__name__}; use hyperclust.convert.from_any(obj)")
    edges = list(edges)
    bad = next((j for j, e in enumerate(edges)
                if isinstance(e, (str, bytes)) or not hasattr(e, "__len__")), None)
    if bad is not None:
        raise TypeError(f"hyperedge {bad} must be a collection of node ids, got {edges[bad]!r}")
    lengths = np.fromiter(map(len, edges), dtype=np.int64, count=len(edges))
    flat = list(itertools.chain.from_iterable(edges))
    return edges, flat, np.repeat(np.arange(len(edges)), lengths)


def integer_members(flat, edges) -> np.ndarray:
    """The members as int64 positions; the error names the first hyperedge with another id.

    Examples
    --------
    >>> integer_members([0, 2.0, 1], [[0, 2.0], [1]]).tolist()
    [0, 2, 1]
    >>> integer_members([0, 1.5], [[0], [1.5]])
    Traceback (most recent call last):
    ...
    TypeError: node ids must be integers; entry 1 is ... (hyperedge 1: [1.5])
    """
    try:
        return _as_int_array(np.asarray(flat) if flat else np.zeros(0, np.int64), "node ids")
    except (TypeError, ValueError) as exc:
        where = ""
        for j, e in enumerate(edges):  # error path only: find the offending hyperedge
            try:
                _as_int_array(np.asarray(list(e)), "node ids")
            except (TypeError, ValueError):
                where = f" (hyperedge {j}: {list(e)[:5]!r})"
                break
        raise TypeError(f"{exc}{where}") from None


def _refuse_missing(flat, edges) -> None:
    """None (or NaN) is no node id: an error naming its hyperedge, not the id ``'None'``."""
    for j, e in enumerate(edges):  # only reached when a member is None or a float NaN
        bad = next((v for v in e if v is None or isinstance(v, float) and v != v), "ok")
        if bad != "ok":
            raise TypeError(f"node id {bad!r} in hyperedge {j} ({list(e)[:5]!r}): a node id "
                            "must be an integer or a string")


def edges_to_pairs(edges, n_nodes=None, node_ids=None, *, has_rows: bool = False):
    """A list of hyperedges as ``(node positions, hyperedge of each, n_nodes, node_ids, n_edges)``.

    Integer members are ids (sorted), unless ``n_nodes`` or ``has_rows`` make them positions;
    other members, or any with ``node_ids``, are mapped by
    :func:`~hyperclust.hypergraph.ids.map_ids`. Names with ``has_rows`` but no ``node_ids``, and
    ``None`` members, are errors.

    Examples
    --------
    >>> nodes, eids, n, ids, m = edges_to_pairs([["a", "b"], ["b", "c"]])
    >>> nodes.tolist(), eids.tolist(), n, ids.tolist(), m
    ([0, 1, 1, 2], [0, 0, 1, 1], 3, ['a', 'b', 'c'], 2)
    >>> nodes, _, n, ids, _ = edges_to_pairs([[7, 900000], [-1, 7]])
    >>> nodes.tolist(), n, ids.tolist()
    ([1, 2, 0, 1], 3, [-1, 7, 900000])
    >>> edges_to_pairs([[0, 2]], n_nodes=4)[2:]
    (4, None, 1)
    """
    edges, flat, eids = flatten_edges(edges)
    if any(v is None or isinstance(v, float) and v != v for v in flat):
        _refuse_missing(flat, edges)
    if node_ids is None and _all_integers(flat):
        members = integer_members(flat, edges)
        if n_nodes is not None or has_rows:
            return members, eids, n_nodes, None, len(edges)
        ids, index = np.unique(members, return_inverse=True)
        dense = ids.size == 0 or (ids[0] == 0 and ids[-1] == ids.size - 1)
        return (index.reshape(-1).astype(np.int64), eids, int(ids.size),
                None if dense else ids.astype(np.int64), len(edges))
    if node_ids is None and has_rows:
        raise ValueError("the hyperedges name nodes by non-integer ids; pass node_ids= "
                         "(one id per row of features/labels) so rows can be matched")
    index, ids = map_ids(np.asarray(flat, dtype=object) if flat else np.zeros(0, np.int64),
                         node_ids)
    if n_nodes is not None and n_nodes != ids.shape[0]:
        raise ValueError(f"n_nodes={n_nodes} disagrees with the {ids.shape[0]} node ids")
    return index, eids, ids.shape[0], ids, len(edges)


def pairs_to_incidence(nodes, edges, n_nodes=None, n_edges=None, rows_of=(None, None, None)):
    """``(incidence, number of pairs)`` of (node, hyperedge) membership pairs.

    ``n_nodes`` defaults as :func:`~hyperclust.hypergraph.validation.infer_n_nodes` says (from
    ``rows_of = (labels, node_names, features)``), ``n_edges`` to the largest id + 1.

    Examples
    --------
    >>> H, n_pairs = pairs_to_incidence([0, 1, 1], [0, 0, 1], n_nodes=3)
    >>> H.toarray().tolist(), n_pairs
    ([[1.0, 0.0], [1.0, 1.0], [0.0, 0.0]], 3)
    """
    v = _as_int_array(nodes, "node ids")
    e = _as_int_array(edges, "hyperedge ids")
    if v.shape != e.shape:
        raise ValueError(f"nodes and edges must have the same length ({v.shape[0]} != {e.shape[0]})")
    if v.size and v.min() < 0:
        i = int(np.argmin(v))
        raise ValueError(f"node ids must be non-negative; pair {i} has node id {v[i]}")
    if e.size and e.min() < 0:
        i = int(np.argmin(e))
        raise ValueError(f"hyperedge ids must be non-negative; pair {i} has hyperedge id {e[i]}")
    labels, node_names, features = rows_of
    n, source = infer_n_nodes(n_nodes, v, features, labels, node_names)
    if v.size and v.max() >= n:
        i = int(np.argmax(v))
        raise ValueError(f"node id {v[i]} (pair {i}) is out of range for n_nodes={n} "
                         f"({source})")
    m = int(e.max()) + 1 if (n_edges is None and e.size) else (n_edges or 0)
    if e.size and e.max() >= m:
        raise ValueError(f"hyperedge id {e.max()} is out of range for n_edges={m}")
    return sp.csr_matrix((np.ones(v.shape[0]), (v, e)), shape=(n, m)), v.shape[0]


def incidence_matrix(incidence) -> sp.csr_matrix:
    """A dense or sparse incidence as CSR, repeats summed, zeros removed; negative, NaN or inf
    entries are errors.

    Examples
    --------
    >>> incidence_matrix([[1, 0], [2, 1]]).nnz
    3
    >>> incidence_matrix([[1, -1]])
    Traceback (most recent call last):
    ...
    ValueError: incidence contains negative entries; it must be a 0/1 membership matrix
    """
    if sp.issparse(incidence):
        H = sp.csr_matrix(incidence, copy=True)
    else:
        arr = np.asarray(incidence)
        if arr.ndim != 2:
            raise ValueError(f"incidence must be 2-dimensional, got shape {arr.shape}")
        if not np.issubdtype(arr.dtype, np.number) and arr.dtype != bool:
            raise TypeError(f"incidence must be numeric, got dtype {arr.dtype}")
        H = sp.csr_matrix(arr.astype(np.float64))
    if H.ndim != 2:
        raise ValueError("incidence must be 2-dimensional")
    H.sum_duplicates()
    data = H.data.astype(np.float64)
    if not np.isfinite(data).all():
        raise ValueError("incidence contains NaN/inf")
    if (data < 0).any():
        raise ValueError("incidence contains negative entries; it must be a 0/1 membership matrix")
    H.eliminate_zeros()
    return H
