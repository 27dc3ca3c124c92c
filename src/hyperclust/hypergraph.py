"""The :class:`Hypergraph`: an immutable incidence matrix with weights, features and labels.

One representation serves every algorithm: the incidence ``H`` as a scipy CSR matrix of
shape ``(n_nodes, n_edges)`` with ``H[v, e] = 1`` when node ``v`` is a member of hyperedge
``e``. Everything else (operators, statistics, subsets) is derived from it without forming
dense ``n x n`` matrices.
"""

from __future__ import annotations

import itertools
import numbers
from dataclasses import dataclass, field
from typing import Iterable, Sequence

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components as _cc

__all__ = ["Hypergraph", "CleaningReport"]

_DUPLICATE_OPTIONS = ("merge", "keep", "drop")
_SINGLETON_OPTIONS = ("keep", "drop")
_EMPTY_OPTIONS = ("drop", "error")
#: Above this many nodes implied by the largest integer id, a sparse id set is an error
#: (one id of 1e8 would otherwise allocate gigabytes of empty rows).
_MAX_IMPLIED_NODES = 1_000_000
#: Libraries whose objects go through :func:`hyperclust.convert.from_any`, not ``from_edges``.
_FOREIGN_MODULES = frozenset({"xgi", "hypernetx", "dhg", "torch_geometric", "networkx",
                              "pandas"})


@dataclass(frozen=True)
class CleaningReport:
    """What construction did to the raw hyperedges (all counts refer to the input).

    Attributes
    ----------
    repeated_members_collapsed : int
        Number of repeated (node, hyperedge) memberships collapsed into one.
    duplicate_edges : int
        Hyperedges whose member set equals an earlier hyperedge's.
    duplicate_policy : str
        ``"merge"`` (weights summed into the first copy), ``"keep"`` or ``"drop"``.
    singleton_edges : int
        Hyperedges with exactly one member (after collapsing repeats).
    singleton_policy : str
        ``"keep"`` or ``"drop"``.
    empty_edges_dropped : int
        Hyperedges without members, removed.

    Examples
    --------
    >>> hg = Hypergraph.from_edges([[0, 1], [1, 0], [2]])
    >>> hg.cleaning.duplicate_edges, hg.cleaning.singleton_edges, hg.weights.tolist()
    (1, 1, [2.0, 1.0])
    """

    repeated_members_collapsed: int = 0
    duplicate_edges: int = 0
    duplicate_policy: str = "merge"
    singleton_edges: int = 0
    singleton_policy: str = "keep"
    empty_edges_dropped: int = 0
    extra: dict = field(default_factory=dict)


def _frozen(a: np.ndarray) -> np.ndarray:
    a = np.asarray(a)
    a.flags.writeable = False
    return a


def _freeze_sparse(m: sp.csr_matrix) -> sp.csr_matrix:
    for arr in (m.data, m.indices, m.indptr):
        arr.flags.writeable = False
    return m


def _as_int_array(values, what: str) -> np.ndarray:
    arr = np.asarray(values)
    if arr.size == 0:
        return arr.astype(np.int64).reshape(-1)
    if arr.dtype == bool or not (
        np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)
    ):
        raise TypeError(f"{what} must be integers, got dtype {arr.dtype}")
    if np.issubdtype(arr.dtype, np.floating):
        bad = ~np.isfinite(arr) | (arr != np.round(arr))
        if bad.any():
            i = int(np.flatnonzero(bad.ravel())[0])
            raise TypeError(f"{what} must be integers; entry {i} is {arr.ravel()[i]!r}")
    return arr.astype(np.int64).reshape(-1)


def _all_integers(values: list) -> bool:
    """True when every value is an integer (or an integral float), i.e. a position."""
    if not values:
        return True
    arr = np.asarray(values) if all(not isinstance(v, (str, bytes)) for v in values[:64]) \
        else np.asarray(values, dtype=object)
    if arr.dtype == object:
        return all(isinstance(v, (numbers.Integral,)) and not isinstance(v, bool)
                   for v in values)
    return arr.dtype != bool and (np.issubdtype(arr.dtype, np.integer)
                                  or np.issubdtype(arr.dtype, np.floating))


def _check_ids(ids, count: int, what: str):
    """Validate user ids: distinct, one per item, ints (int64) or strings (object array).

    Returns None for the default ``0..count-1`` (so that it costs nothing to store)."""
    if ids is None:
        return None
    arr = np.asarray(ids)
    if arr.ndim != 1:
        arr = np.asarray(list(ids), dtype=object) if arr.ndim > 1 else arr.reshape(-1)
    if arr.shape[0] != count:
        raise ValueError(f"{what} has length {arr.shape[0]}, expected {count}")
    if arr.dtype == bool:
        raise TypeError(f"{what} must be integers or strings, got booleans")
    if np.issubdtype(arr.dtype, np.integer):
        arr = arr.astype(np.int64)
        if np.array_equal(arr, np.arange(count)):
            return None
    elif np.issubdtype(arr.dtype, np.floating):
        arr = _as_int_array(arr, what)
    else:
        arr = np.array([x if isinstance(x, (int, np.integer)) and not isinstance(x, bool)
                        else str(x) for x in arr.tolist()], dtype=object)
    if count:
        uniq = np.unique(arr.astype(str) if arr.dtype == object else arr)
        if uniq.size != count:
            _, first = np.unique(arr.astype(str) if arr.dtype == object else arr,
                                 return_index=True)
            dup = np.setdiff1d(np.arange(count), first)[0]
            raise ValueError(f"{what} must be distinct; {arr.tolist()[dup]!r} occurs more than "
                             "once")
    return _frozen(arr)


def map_ids(values, ids=None, what: str = "node id"):
    """Map arbitrary hashable ids to a dense index.

    Parameters
    ----------
    values : sequence of hashable, shape (n_entries,)
        Ids as they occur (e.g. the flattened members of every hyperedge).
    ids : sequence, optional
        The full id list, defining the index order. Default: the distinct ``values``, sorted
        when they are all integers, else in order of first appearance.

    Returns
    -------
    index : ndarray of int64, shape (n_entries,)
        Position of each value in ``ids``.
    ids : ndarray, shape (n_ids,)
        int64 when every id is an integer, else an object array of strings.
    """
    vals = np.asarray(values) if not isinstance(values, np.ndarray) else values
    if vals.dtype == object or vals.dtype.kind in "USb":
        vals = np.asarray([v.decode() if isinstance(v, bytes) else v for v in vals.tolist()],
                          dtype=object)
        if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in vals):
            vals = vals.astype(np.int64)
    if ids is None:
        if vals.dtype != object and np.issubdtype(vals.dtype, np.integer):
            ids, index = np.unique(vals, return_inverse=True)
            return index.reshape(-1).astype(np.int64), ids.astype(np.int64)
        keys = np.array([str(v) for v in vals.tolist()], dtype=object)
        uniq, first, inverse = np.unique(keys.astype(str), return_index=True, return_inverse=True)
        order = np.argsort(first, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        return rank[inverse.reshape(-1)].astype(np.int64), keys[first[order]]
    ids = np.asarray(ids)
    if ids.dtype != object and np.issubdtype(ids.dtype, np.integer) and \
            vals.dtype != object and np.issubdtype(vals.dtype, np.integer):
        order = np.argsort(ids, kind="stable")
        sorted_ids = ids[order]
        pos = np.searchsorted(sorted_ids, vals)
        pos = np.minimum(pos, max(sorted_ids.size - 1, 0))
        ok = sorted_ids[pos] == vals if sorted_ids.size else np.zeros(vals.shape, bool)
        if not ok.all():
            bad = vals[np.flatnonzero(~ok)[0]].item()
            raise ValueError(f"{what} {bad!r} is not among the {ids.size} given ids")
        return order[pos].astype(np.int64), ids.astype(np.int64)
    lookup = {str(k): i for i, k in enumerate(ids.tolist())}
    if len(lookup) != ids.size:
        raise ValueError(f"the given {what}s are not distinct")
    try:
        index = np.fromiter((lookup[str(v)] for v in vals.tolist()), dtype=np.int64,
                            count=vals.size)
    except KeyError as exc:
        raise ValueError(f"{what} {exc.args[0]!r} is not among the {ids.size} given ids") \
            from None
    return index, ids


class Hypergraph:
    """An immutable hypergraph on nodes ``0..n_nodes-1``.

    Prefer the constructors :meth:`from_edges`, :meth:`from_incidence` and
    :meth:`from_pairs`, which validate and clean the input. The direct constructor expects an
    already clean binary incidence matrix.

    Parameters
    ----------
    incidence : scipy.sparse matrix, shape (n_nodes, n_edges)
        Binary incidence (nonzero = membership). Converted to CSR float64 with entries 1.
    weights : array-like of shape (n_edges,), optional
        Positive, finite hyperedge weights; default all ones.
    features : ndarray or scipy.sparse matrix of shape (n_nodes, n_features), optional
        Node features; sparse input is kept as CSR.
    labels : array-like of int, shape (n_nodes,), optional
        Ground-truth classes, used only for evaluation and statistics. Negative values mean
        "unlabelled".
    node_names, edge_names : sequence of str, optional
        Names of lengths ``n_nodes`` and ``n_edges``.
    original_ids : array-like of int, shape (n_nodes,), optional
        Positions of these nodes in the hypergraph this one was cut from (set by
        :meth:`subset`).
    cleaning : CleaningReport, optional
        What construction did to the raw input; shown in :meth:`summary`.
    name : str, optional
        A display name (e.g. the dataset name).
    node_ids, edge_ids : array-like of shape (n_nodes,) / (n_edges,), optional
        The user's ids of the nodes and hyperedges (distinct ints or strings), kept through
        :meth:`subset` and written by every output. Default ``0..n-1`` / ``0..m-1``.

    See Also
    --------
    hyperclust.convert.from_any : objects of XGI, HyperNetX, DHG, PyG, networkx, pandas.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> hg = Hypergraph(sp.csr_matrix([[1, 0], [1, 1], [0, 1]]), weights=[1.0, 2.0])
    >>> hg
    Hypergraph(n_nodes=3, n_edges=2)
    >>> hg.edges()[1].tolist(), hg.weighted_degrees.tolist()
    ([1, 2], [1.0, 3.0, 2.0])
    """

    __slots__ = (
        "_H", "_Ht", "_weights", "_features", "_labels", "_node_names", "_edge_names",
        "_original_ids", "_node_ids", "_edge_ids", "_cleaning", "_name", "_cache",
    )

    def __init__(self, incidence, weights=None, features=None, labels=None, node_names=None,
                 edge_names=None, original_ids=None, cleaning=None, name=None, node_ids=None,
                 edge_ids=None):
        if not sp.issparse(incidence):
            raise TypeError(
                f"incidence must be a scipy.sparse matrix, got {type(incidence).__name__}; "
                "use Hypergraph.from_edges for a list of hyperedges")
        H = sp.csr_matrix(incidence, dtype=np.float64, copy=True)
        H.sum_duplicates()
        H.eliminate_zeros()
        H.data[:] = 1.0
        n, m = H.shape
        self._H = _freeze_sparse(H)
        self._Ht = None
        if weights is None:
            w = np.ones(m)
        else:
            w = np.asarray(weights, dtype=np.float64).reshape(-1)
            if w.shape[0] != m:
                raise ValueError(f"weights has length {w.shape[0]}, expected one per hyperedge ({m})")
            bad = np.flatnonzero(~np.isfinite(w))
            if bad.size:
                raise ValueError(f"weights contain NaN/inf (hyperedge {bad[0]}: {w[bad[0]]})")
            bad = np.flatnonzero(w <= 0)
            if bad.size:
                raise ValueError(
                    f"weights must be positive; hyperedge {bad[0]} has weight {w[bad[0]]} "
                    f"({bad.size} non-positive in all)")
        self._weights = _frozen(w.copy())
        self._features = self._check_features(features, n)
        self._labels = self._check_labels(labels, n)
        self._node_names = self._check_names(node_names, n, "node_names")
        self._edge_names = self._check_names(edge_names, m, "edge_names")
        if original_ids is None:
            self._original_ids = None
        else:
            oid = _as_int_array(original_ids, "original_ids")
            if oid.shape[0] != n:
                raise ValueError(f"original_ids has length {oid.shape[0]}, expected {n}")
            self._original_ids = _frozen(oid)
        self._node_ids = _check_ids(node_ids, n, "node_ids")
        self._edge_ids = _check_ids(edge_ids, m, "edge_ids")
        self._cleaning = cleaning if cleaning is not None else CleaningReport()
        self._name = name
        self._cache = {}

    # ------------------------------------------------------------------ validation
    @staticmethod
    def _check_features(features, n):
        if features is None:
            return None
        if sp.issparse(features):
            X = sp.csr_matrix(features, dtype=np.float64 if features.dtype.kind != "f" else features.dtype,
                              copy=True)
            if X.ndim != 2:
                raise ValueError("features must be 2-dimensional")
            data = X.data
        else:
            X = np.array(features, copy=True)
            if X.dtype == object or not np.issubdtype(X.dtype, np.number):
                raise TypeError(f"features must be numeric, got dtype {X.dtype}")
            if X.ndim == 1:
                X = X.reshape(-1, 1)
            if X.ndim != 2:
                raise ValueError(f"features must be 2-dimensional, got shape {X.shape}")
            if not np.issubdtype(X.dtype, np.floating):
                X = X.astype(np.float64)
            data = X
        if X.shape[0] != n:
            raise ValueError(f"features has {X.shape[0]} rows, expected one per node ({n})")
        if not np.isfinite(data).all():
            if sp.issparse(X):
                raise ValueError("features contain NaN/inf")
            r, c = np.argwhere(~np.isfinite(X))[0]
            raise ValueError(f"features contain NaN/inf (first at node {r}, feature {c})")
        if sp.issparse(X):
            return _freeze_sparse(X)
        return _frozen(X)

    @staticmethod
    def _check_labels(labels, n):
        if labels is None:
            return None
        y = _as_int_array(labels, "labels")
        if y.shape[0] != n:
            raise ValueError(f"labels has length {y.shape[0]}, expected one per node ({n})")
        return _frozen(y)

    @staticmethod
    def _check_names(names, count, what):
        if names is None:
            return None
        names = [str(s) for s in names]
        if len(names) != count:
            raise ValueError(f"{what} has length {len(names)}, expected {count}")
        return tuple(names)

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_edges(cls, edges: Iterable[Sequence], n_nodes: int | None = None, *,
                   weights=None, features=None, labels=None, node_names=None, edge_names=None,
                   node_ids=None, edge_ids=None, duplicates: str = "merge",
                   singletons: str = "keep", empty: str = "drop", name=None) -> "Hypergraph":
        """Build from a list of hyperedges, each a collection of node ids.

        Parameters
        ----------
        edges : iterable of collections of hashable
            Hyperedges as node-id collections. Repeated ids inside one hyperedge collapse.
            Integer ids without ``node_ids`` are positions ``0..n_nodes-1`` (ids that are
            not, such as names, are mapped to positions and kept as ``node_ids``).
        n_nodes : int, optional
            Number of nodes for integer positions; default ``max id + 1``. Nodes in no
            hyperedge are kept as isolated nodes.
        weights : array-like of shape (len(edges),), optional
            Positive hyperedge weights.
        features, labels : optional
            One row per node: per position, or per entry of ``node_ids`` when given.
        node_ids : sequence, optional
            Every node's id (distinct ints or strings), in the order of the rows of
            ``features``/``labels``; hyperedge members must be among them; ids that occur
            in no hyperedge are isolated nodes. Without it, non-integer members get the
            order of first appearance (and ``features``/``labels`` are refused, since their
            rows could not be matched to nodes).
        edge_ids : sequence, optional
            One distinct id per hyperedge (default ``0..len(edges)-1``).
        duplicates : {"merge", "keep", "drop"}
            Hyperedges with an identical member set: ``"merge"`` keeps one copy whose weight is
            the sum (every operator in hyperclust is then unchanged), ``"keep"`` keeps all
            copies, ``"drop"`` keeps the first copy with its own weight.
        singletons : {"keep", "drop"}
            Size-1 hyperedges: kept (they act as self loops) or removed.
        empty : {"drop", "error"}
            Hyperedges without members: removed (counted) or an error.

        Examples
        --------
        >>> hg = Hypergraph.from_edges([["alice", "bob"], ["bob", "carol", "dave"]])
        >>> hg.n_nodes, list(hg.node_ids)
        (4, ['alice', 'bob', 'carol', 'dave'])
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
        eids = np.repeat(np.arange(len(edges)), lengths)
        common = dict(n_edges=len(edges), weights=weights, features=features, labels=labels,
                      node_names=node_names, edge_names=edge_names, edge_ids=edge_ids,
                      duplicates=duplicates, singletons=singletons, empty=empty, name=name)
        if node_ids is not None or not _all_integers(flat):
            if node_ids is None and (features is not None or labels is not None):
                raise ValueError("the hyperedges name nodes by non-integer ids; pass node_ids= "
                                 "(one id per row of features/labels) so rows can be matched")
            index, ids = map_ids(np.asarray(flat, dtype=object) if flat else
                                 np.zeros(0, np.int64), node_ids)
            if n_nodes is not None and n_nodes != ids.shape[0]:
                raise ValueError(f"n_nodes={n_nodes} disagrees with the {ids.shape[0]} node ids")
            return cls.from_pairs(index, eids, n_nodes=ids.shape[0], node_ids=ids, **common)
        try:
            nodes = _as_int_array(np.asarray(flat) if flat else np.zeros(0, np.int64), "node ids")
        except (TypeError, ValueError) as exc:
            where = ""
            for j, e in enumerate(edges):  # error path only: find the offending hyperedge
                try:
                    _as_int_array(np.asarray(list(e)), "node ids")
                except (TypeError, ValueError):
                    where = f" (hyperedge {j}: {list(e)[:5]!r})"
                    break
            raise TypeError(f"{exc}{where}") from None
        return cls.from_pairs(nodes, eids, n_nodes=n_nodes, **common)

    @classmethod
    def from_pairs(cls, nodes, edges, n_nodes: int | None = None, n_edges: int | None = None, *,
                   weights=None, features=None, labels=None, node_names=None, edge_names=None,
                   node_ids=None, edge_ids=None, duplicates: str = "merge",
                   singletons: str = "keep", empty: str = "drop",
                   name=None) -> "Hypergraph":
        """Build from parallel arrays of (node id, hyperedge id) membership pairs.

        Parameters
        ----------
        nodes, edges : array-like of int, shape (n_pairs,)
            Node ids in ``[0, n_nodes)`` and hyperedge ids in ``[0, n_edges)``.
        n_nodes, n_edges : int, optional
            Default to ``max id + 1`` (or the length of ``node_ids``/``edge_ids``). Other
            parameters as in :meth:`from_edges`; ``node_ids``/``edge_ids`` give the user's id
            of each position.

        Returns
        -------
        Hypergraph

        Examples
        --------
        >>> hg = Hypergraph.from_pairs([0, 1, 1, 2], [0, 0, 1, 1], n_nodes=4)
        >>> hg.shape, hg.isolated.tolist()
        ((4, 2), [False, False, False, True])
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
        if n_nodes is None and node_ids is not None:
            n_nodes = len(node_ids)
        if n_edges is None and edge_ids is not None:
            n_edges = len(edge_ids)
        n, source = cls._infer_n(n_nodes, v, features, labels, node_names)
        if v.size and v.max() >= n:
            i = int(np.argmax(v))
            raise ValueError(f"node id {v[i]} (pair {i}) is out of range for n_nodes={n} "
                             f"({source})")
        m = int(e.max()) + 1 if (n_edges is None and e.size) else (n_edges or 0)
        if e.size and e.max() >= m:
            raise ValueError(f"hyperedge id {e.max()} is out of range for n_edges={m}")
        H = sp.csr_matrix((np.ones(v.shape[0]), (v, e)), shape=(n, m))
        return cls._from_raw_incidence(H, n_pairs=v.shape[0], weights=weights, features=features,
                                       labels=labels, node_names=node_names, edge_names=edge_names,
                                       duplicates=duplicates, singletons=singletons, empty=empty,
                                       name=name, node_ids=node_ids, edge_ids=edge_ids)

    @classmethod
    def from_incidence(cls, incidence, *, weights=None, features=None, labels=None,
                       node_names=None, edge_names=None, node_ids=None, edge_ids=None,
                       duplicates: str = "merge", singletons: str = "keep", empty: str = "drop",
                       name=None) -> "Hypergraph":
        """Build from an ``(n_nodes, n_edges)`` incidence matrix (dense or sparse).

        Any nonzero entry is a membership; negative, NaN or inf entries are errors. Other
        parameters as in :meth:`from_edges`.

        Returns
        -------
        Hypergraph

        Examples
        --------
        >>> hg = Hypergraph.from_incidence([[1, 0], [1, 1], [0, 1]], edge_ids=["e1", "e2"])
        >>> hg.edge_sizes.tolist(), hg.edge_ids.tolist()
        ([2, 2], ['e1', 'e2'])
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
        return cls._from_raw_incidence(H, n_pairs=H.nnz, weights=weights, features=features,
                                       labels=labels, node_names=node_names, edge_names=edge_names,
                                       duplicates=duplicates, singletons=singletons, empty=empty,
                                       name=name, node_ids=node_ids, edge_ids=edge_ids)

    @staticmethod
    def _infer_n(n_nodes, v, features, labels, node_names):
        if n_nodes is not None:
            if not isinstance(n_nodes, numbers.Integral) or n_nodes < 0:
                raise ValueError(f"n_nodes must be a non-negative integer, got {n_nodes!r}")
            return int(n_nodes), "given"
        by_ids = int(v.max()) + 1 if v.size else 0
        for other, what in ((labels, "the length of labels"),
                            (node_names, "the length of node_names"),
                            (features, "the rows of features")):
            if other is None:
                continue
            rows = other.shape[0] if hasattr(other, "shape") and len(other.shape) else len(other)
            if rows > by_ids:
                raise ValueError(
                    f"{what.split()[-1]} has {rows} rows but the hyperedges use node ids up to "
                    f"{by_ids - 1}; pass n_nodes={rows} to keep the other rows as nodes in no "
                    "hyperedge (or drop the extra rows)")
            return rows, what
        if by_ids > _MAX_IMPLIED_NODES:
            distinct = int(np.unique(v).size)
            if by_ids > 16 * distinct:
                raise ValueError(
                    f"node id {by_ids - 1} would make {by_ids} nodes (integer ids are positions "
                    f"0..n-1) but only {distinct} distinct ids occur; pass node_ids= (the list "
                    "of all ids) to keep them as ids, or n_nodes= to confirm the size")
        return by_ids, "largest id + 1"

    @classmethod
    def _from_raw_incidence(cls, H, *, n_pairs, weights, features, labels, node_names, edge_names,
                            duplicates, singletons, empty, name, node_ids=None, edge_ids=None):
        if duplicates not in _DUPLICATE_OPTIONS:
            raise ValueError(f"duplicates must be one of {_DUPLICATE_OPTIONS}, got {duplicates!r}")
        if singletons not in _SINGLETON_OPTIONS:
            raise ValueError(f"singletons must be one of {_SINGLETON_OPTIONS}, got {singletons!r}")
        if empty not in _EMPTY_OPTIONS:
            raise ValueError(f"empty must be one of {_EMPTY_OPTIONS}, got {empty!r}")
        H = sp.csr_matrix(H, dtype=np.float64)
        H.sum_duplicates()
        repeated = int(n_pairs - H.nnz)
        H.data[:] = 1.0
        n, m = H.shape
        if weights is None:
            w = np.ones(m)
        else:
            w = np.asarray(weights, dtype=np.float64).reshape(-1)
            if w.shape[0] != m:
                raise ValueError(f"weights has length {w.shape[0]}, expected one per hyperedge ({m})")
            bad = np.flatnonzero(~np.isfinite(w))
            if bad.size:
                raise ValueError(f"weights contain NaN/inf (hyperedge {bad[0]}: {w[bad[0]]})")
            bad = np.flatnonzero(w <= 0)
            if bad.size:
                raise ValueError(f"weights must be positive; hyperedge {bad[0]} has weight {w[bad[0]]}")
        names = None if edge_names is None else np.asarray([str(s) for s in edge_names], dtype=object)
        if names is not None and names.shape[0] != m:
            raise ValueError(f"edge_names has length {names.shape[0]}, expected {m}")

        Hc = H.tocsc()
        Hc.sort_indices()
        sizes = np.diff(Hc.indptr)
        keep = np.ones(m, dtype=bool)
        empty_mask = sizes == 0
        if empty_mask.any() and empty == "error":
            raise ValueError(f"hyperedge {int(np.flatnonzero(empty_mask)[0])} is empty "
                             f"({int(empty_mask.sum())} empty in all)")
        keep &= ~empty_mask
        singleton_mask = sizes == 1
        if singletons == "drop":
            keep &= ~singleton_mask

        # Duplicate detection: hash each column's sorted member list, then confirm equality.
        dup_of = np.arange(m)
        if m:
            ptr, idx = Hc.indptr, Hc.indices
            col_of = np.repeat(np.arange(m), sizes)
            rng = np.random.default_rng(12345)
            r1 = rng.integers(1, 2**61 - 1, size=max(n, 1), dtype=np.int64)
            r2 = rng.integers(1, 2**61 - 1, size=max(n, 1), dtype=np.int64)
            h1 = np.zeros(m, dtype=np.int64)
            h2 = np.zeros(m, dtype=np.int64)
            with np.errstate(over="ignore"):
                np.add.at(h1, col_of, r1[idx])
                np.add.at(h2, col_of, r2[idx])
            key = np.stack([sizes, h1, h2], axis=1)
            _, first, inverse = np.unique(key, axis=0, return_index=True, return_inverse=True)
            inverse = inverse.reshape(-1)
            dup_of = first[inverse]
            cand = np.flatnonzero((dup_of != np.arange(m)) & keep)
            # verify hash collisions are true duplicates (vectorised row comparison)
            if cand.size:
                a = Hc[:, cand]
                b = Hc[:, dup_of[cand]]
                differs = np.asarray(abs(a - b).sum(axis=0)).ravel() > 0
                dup_of[cand[differs]] = cand[differs]
        is_dup = (dup_of != np.arange(m)) & keep
        n_dup = int(is_dup.sum())
        if duplicates in ("merge", "drop") and n_dup:
            if duplicates == "merge":
                np.add.at(w, dup_of[is_dup], w[is_dup])
            keep &= ~is_dup
        report = CleaningReport(
            repeated_members_collapsed=repeated,
            duplicate_edges=n_dup,
            duplicate_policy=duplicates,
            singleton_edges=int((singleton_mask & ~empty_mask).sum()),
            singleton_policy=singletons,
            empty_edges_dropped=int(empty_mask.sum()),
        )
        kept = np.flatnonzero(keep)
        H = Hc[:, kept].tocsr()
        eids = _check_ids(edge_ids, m, "edge_ids")
        if eids is None and edge_ids is not None and kept.size != m:
            eids = np.arange(m)  # given ids 0..m-1 stay the ids of the kept hyperedges
        return cls(H, weights=w[kept], features=features, labels=labels, node_names=node_names,
                   edge_names=None if names is None else names[kept], cleaning=report, name=name,
                   node_ids=node_ids, edge_ids=None if eids is None else eids[kept])

    # ------------------------------------------------------------------ accessors
    @property
    def incidence(self) -> sp.csr_matrix:
        """Binary incidence matrix, CSR of shape (n_nodes, n_edges), read-only."""
        return self._H

    @property
    def incidence_t(self) -> sp.csr_matrix:
        """Transpose of the incidence, CSR of shape (n_edges, n_nodes) (cached)."""
        if self._Ht is None:
            Ht = self._H.T.tocsr()
            Ht.sort_indices()
            object.__setattr__(self, "_Ht", _freeze_sparse(Ht))
        return self._Ht

    @property
    def n_nodes(self) -> int:
        return self._H.shape[0]

    @property
    def n_edges(self) -> int:
        return self._H.shape[1]

    @property
    def shape(self) -> tuple[int, int]:
        return self._H.shape

    @property
    def weights(self) -> np.ndarray:
        """Hyperedge weights, shape (n_edges,)."""
        return self._weights

    @property
    def features(self):
        """Node features, ndarray or CSR of shape (n_nodes, n_features), or None."""
        return self._features

    @property
    def labels(self):
        """Integer labels, shape (n_nodes,), negative = unlabelled; or None."""
        return self._labels

    @property
    def node_names(self):
        return self._node_names

    @property
    def edge_names(self):
        return self._edge_names

    @property
    def original_ids(self) -> np.ndarray:
        """Node ids in the hypergraph this one was cut from (identity when not a subset)."""
        if self._original_ids is None:
            return np.arange(self.n_nodes)
        return self._original_ids

    @property
    def node_ids(self) -> np.ndarray:
        """The user's node ids, shape (n_nodes,): int64, or object (strings).

        ``node_ids[i]`` is the id of node ``i`` in the input it was read from; every output
        (``--out``, embeddings, subsets) uses these, never the dense positions."""
        if self._node_ids is None:
            return np.arange(self.n_nodes)
        return self._node_ids

    @property
    def edge_ids(self) -> np.ndarray:
        """The user's hyperedge ids, shape (n_edges,) (default ``0..n_edges-1``)."""
        if self._edge_ids is None:
            return np.arange(self.n_edges)
        return self._edge_ids

    def index_of(self, node_ids) -> np.ndarray:
        """Positions (``0..n_nodes-1``) of the given node ids, shape (len(node_ids),).

        Raises ``ValueError`` naming the first id that is not a node of this hypergraph.

        Examples
        --------
        >>> hg = Hypergraph.from_edges([["ana", "bo"], ["bo", "cy"]])
        >>> hg.index_of(["cy", "ana"]).tolist()
        [2, 0]
        """
        index, _ = map_ids(np.asarray(node_ids if not np.isscalar(node_ids) else [node_ids]),
                           self.node_ids)
        return index

    @property
    def cleaning(self) -> CleaningReport:
        return self._cleaning

    @property
    def name(self):
        return self._name

    @property
    def n_classes(self) -> int:
        """Number of distinct non-negative labels (0 when unlabelled)."""
        if self._labels is None:
            return 0
        y = self._labels
        return int(np.unique(y[y >= 0]).size)

    @property
    def edge_sizes(self) -> np.ndarray:
        """Number of members of each hyperedge, shape (n_edges,)."""
        return np.diff(self.incidence_t.indptr)

    @property
    def node_degrees(self) -> np.ndarray:
        """Unweighted degree (number of hyperedges) of each node, shape (n_nodes,)."""
        return np.diff(self._H.indptr)

    @property
    def weighted_degrees(self) -> np.ndarray:
        """Weighted degree ``sum_e w_e H[v, e]``, shape (n_nodes,)."""
        return self._H @ self._weights

    @property
    def isolated(self) -> np.ndarray:
        """Boolean mask of nodes in no hyperedge, shape (n_nodes,)."""
        return self.node_degrees == 0

    def edges(self) -> list[np.ndarray]:
        """Hyperedges as a list of sorted node-position arrays (for export; O(nnz)).

        Examples
        --------
        >>> [e.tolist() for e in Hypergraph.from_edges([[2, 0], [1, 2, 3]]).edges()]
        [[0, 2], [1, 2, 3]]
        """
        Ht = self.incidence_t
        return np.split(Ht.indices.copy(), Ht.indptr[1:-1])

    def replace(self, **changes) -> "Hypergraph":
        """A copy with some of ``weights, features, labels, node_names, edge_names, name``
        replaced (``features=None`` removes features).

        Examples
        --------
        >>> hg = Hypergraph.from_edges([[0, 1], [1, 2]])
        >>> hg.replace(labels=[0, 0, 1], name="toy")
        Hypergraph('toy', n_nodes=3, n_edges=2, n_classes=2)
        """
        allowed = {"weights", "features", "labels", "node_names", "edge_names", "name"}
        unknown = set(changes) - allowed
        if unknown:
            raise TypeError(f"replace() got unexpected fields {sorted(unknown)}")
        kw = dict(weights=self._weights, features=self._features, labels=self._labels,
                  node_names=self._node_names, edge_names=self._edge_names, name=self._name)
        kw.update(changes)
        return Hypergraph(self._H, original_ids=self._original_ids, cleaning=self._cleaning,
                          node_ids=self._node_ids, edge_ids=self._edge_ids, **kw)

    # ------------------------------------------------------------------ structure
    def connected_components(self) -> tuple[int, np.ndarray]:
        """Connected components of the nodes (two nodes are connected when they share a
        hyperedge, transitively). Isolated nodes are their own components.

        Returns
        -------
        n_components : int
        component : ndarray of int, shape (n_nodes,)
            Component id per node, numbered by decreasing component size.

        Examples
        --------
        >>> hg = Hypergraph.from_edges([[0, 1], [2, 3, 4]], n_nodes=6)
        >>> n, comp = hg.connected_components()
        >>> n, comp.tolist()
        (3, [1, 1, 0, 0, 0, 2])
        """
        if "components" not in self._cache:
            n, m = self.shape
            B = sp.bmat([[None, self._H], [self._H.T, None]], format="csr")
            _, comp = _cc(B, directed=False)
            comp = comp[:n]
            _, comp = np.unique(comp, return_inverse=True)
            sizes = np.bincount(comp)
            order = np.argsort(-sizes, kind="stable")
            rank = np.empty_like(order)
            rank[order] = np.arange(order.size)
            comp = rank[comp]
            self._cache["components"] = (int(sizes.size), _frozen(comp))
        return self._cache["components"]

    def subset(self, nodes, *, keep_empty_edges: bool = False) -> "Hypergraph":
        """The sub-hypergraph induced on ``nodes`` (a boolean mask or id array).

        Hyperedges are restricted to the kept nodes; those left empty are removed unless
        ``keep_empty_edges``. ``node_ids`` and ``edge_ids`` are kept; ``original_ids`` maps
        the new nodes to this hypergraph's positions (composed with its own ``original_ids``).

        Examples
        --------
        >>> hg = Hypergraph.from_edges([["a", "b"], ["b", "c"], ["c", "d"]])
        >>> sub = hg.subset([1, 2])
        >>> sub.node_ids.tolist(), sub.edge_ids.tolist(), sub.original_ids.tolist()
        (['b', 'c'], [0, 1, 2], [1, 2])
        """
        idx = np.asarray(nodes)
        if idx.dtype == bool:
            if idx.shape[0] != self.n_nodes:
                raise ValueError(f"node mask has length {idx.shape[0]}, expected {self.n_nodes}")
            idx = np.flatnonzero(idx)
        else:
            idx = _as_int_array(idx, "node ids")
            if idx.size and (idx.min() < 0 or idx.max() >= self.n_nodes):
                raise ValueError(f"node ids must lie in [0, {self.n_nodes})")
            if np.unique(idx).size != idx.size:
                raise ValueError("node ids passed to subset() must be distinct")
        H = self._H[idx]
        sizes = np.asarray(H.sum(axis=0)).ravel()
        cols = np.arange(self.n_edges) if keep_empty_edges else np.flatnonzero(sizes > 0)
        H = H[:, cols]
        feats = None if self._features is None else self._features[idx]
        labels = None if self._labels is None else self._labels[idx]
        nn = None if self._node_names is None else [self._node_names[i] for i in idx]
        en = None if self._edge_names is None else [self._edge_names[j] for j in cols]
        return Hypergraph(H, weights=self._weights[cols], features=feats, labels=labels,
                          node_names=nn, edge_names=en, original_ids=self.original_ids[idx],
                          cleaning=self._cleaning, name=self._name,
                          node_ids=self.node_ids[idx], edge_ids=self.edge_ids[cols])

    def drop_isolated(self) -> "Hypergraph":
        """The sub-hypergraph on nodes that belong to at least one hyperedge.

        Examples
        --------
        >>> Hypergraph.from_edges([[0, 1]], n_nodes=3).drop_isolated().n_nodes
        2
        """
        return self.subset(~self.isolated)

    def largest_component(self) -> "Hypergraph":
        """The sub-hypergraph on the largest connected component.

        Examples
        --------
        >>> Hypergraph.from_edges([[0, 1], [2, 3, 4]]).largest_component().node_ids.tolist()
        [2, 3, 4]
        """
        _, comp = self.connected_components()
        return self.subset(comp == 0)

    # ------------------------------------------------------------------ statistics
    def homophily(self) -> dict:
        """Label homophily measures (labelled nodes only; requires labels).

        Returns
        -------
        dict with keys
            ``pairwise``: mean over hyperedges (with >= 2 labelled members) of the share of
            member pairs with the same label; ``pairwise_random``: the same rate for two
            random labelled nodes (sum of squared class shares); ``majority``: mean share of
            the majority label in a hyperedge; ``node``: mean over covered nodes of the share
            of same-label clique neighbours, counted with multiplicity (a neighbour met in two
            hyperedges counts twice).

        Examples
        --------
        >>> hg = Hypergraph.from_edges([[0, 1], [2, 3], [1, 2]], labels=[0, 0, 1, 1])
        >>> round(hg.homophily()["pairwise"], 3)
        0.667
        """
        if self._labels is None:
            raise ValueError("homophily needs labels; this hypergraph has none")
        y = self._labels
        lab = y >= 0
        classes, y_idx = np.unique(y[lab], return_inverse=True)
        k = max(classes.size, 1)
        yi = np.full(self.n_nodes, -1, dtype=np.int64)
        yi[lab] = y_idx
        coo = self._H.tocoo()
        keep = yi[coo.row] >= 0
        rows, cols = coo.row[keep], coo.col[keep].astype(np.int64)
        # (hyperedge, class) member counts over the nonzeros only: O(nnz), no m x k array
        key = cols * k + yi[rows]
        uniq, inverse, counts = np.unique(key, return_inverse=True, return_counts=True)
        m = self.n_edges
        edge_of = uniq // k
        s = np.bincount(cols, minlength=m).astype(np.float64)
        same_pairs = np.bincount(edge_of, weights=counts * (counts - 1) / 2, minlength=m)
        largest = np.zeros(m)
        np.maximum.at(largest, edge_of, counts)
        ok = s >= 2
        all_pairs = s * (s - 1) / 2
        pairwise = float(np.mean(same_pairs[ok] / all_pairs[ok])) if ok.any() else float("nan")
        majority = float(np.mean(largest[ok] / s[ok])) if ok.any() else float("nan")
        shares = np.bincount(y_idx, minlength=k) / max(y_idx.size, 1)
        rand_pair = float((shares ** 2).sum())
        own = np.bincount(rows, weights=counts[inverse.reshape(-1)] - 1.0, minlength=self.n_nodes)
        tot = np.bincount(rows, weights=s[cols] - 1.0, minlength=self.n_nodes)
        covered = lab & (tot > 0)
        node = float(np.mean(own[covered] / tot[covered])) if covered.any() else float("nan")
        return {"pairwise": pairwise, "pairwise_random": rand_pair, "majority": majority,
                "node": node}

    def summary(self) -> dict:
        """Sizes, degrees, isolated nodes, components, cleaning counts and homophily.

        Returns
        -------
        dict
            ``{statistic name: value}`` (``homophily_*`` keys when labelled).

        Examples
        --------
        >>> s = Hypergraph.from_edges([[0, 1, 2], [2, 3]], n_nodes=5).summary()
        >>> s["n_nodes"], s["nnz"], s["isolated_nodes"], s["components"]
        (5, 5, 1, 2)
        """
        sizes = self.edge_sizes
        deg = self.node_degrees
        n_comp, comp = self.connected_components()
        covered = ~self.isolated
        n_comp_cov = int(np.unique(comp[covered]).size)
        feats = self._features
        out = {
            "name": self._name,
            "n_nodes": self.n_nodes,
            "n_edges": self.n_edges,
            "nnz": int(self._H.nnz),
            "edge_size_min": int(sizes.min()) if sizes.size else 0,
            "edge_size_mean": float(sizes.mean()) if sizes.size else 0.0,
            "edge_size_max": int(sizes.max()) if sizes.size else 0,
            "degree_mean": float(deg.mean()) if deg.size else 0.0,
            "degree_max": int(deg.max()) if deg.size else 0,
            "isolated_nodes": int(self.isolated.sum()),
            "components": n_comp,
            "components_covered": n_comp_cov,
            "largest_component": int((comp == 0).sum()) if comp.size else 0,
            "weighted": bool(np.any(self._weights != 1.0)),
            "features": None if feats is None else (
                f"{feats.shape[1]} ({'sparse' if sp.issparse(feats) else 'dense'})"),
            "classes": self.n_classes if self._labels is not None else None,
            "duplicate_edges": self._cleaning.duplicate_edges,
            "duplicate_policy": self._cleaning.duplicate_policy,
            "singleton_edges": self._cleaning.singleton_edges,
            "singleton_policy": self._cleaning.singleton_policy,
            "empty_edges_dropped": self._cleaning.empty_edges_dropped,
            "repeated_members_collapsed": self._cleaning.repeated_members_collapsed,
        }
        if self._labels is not None and self.n_classes > 0:
            out.update({f"homophily_{k}": v for k, v in self.homophily().items()})
        return out

    def __repr__(self) -> str:
        parts = [f"n_nodes={self.n_nodes}", f"n_edges={self.n_edges}"]
        if self._features is not None:
            parts.append(f"n_features={self._features.shape[1]}")
        if self._labels is not None:
            parts.append(f"n_classes={self.n_classes}")
        if self._name:
            parts.insert(0, repr(self._name))
        return f"Hypergraph({', '.join(parts)})"

    def __setattr__(self, key, value):
        if key in Hypergraph.__slots__ and not hasattr(self, key):
            object.__setattr__(self, key, value)
        else:
            raise AttributeError("Hypergraph is immutable; use replace() or subset()")
