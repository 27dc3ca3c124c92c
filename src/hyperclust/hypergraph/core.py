"""The :class:`Hypergraph` class and its constructors."""

from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np
import scipy.sparse as sp

from . import statistics as _statistics
from .cleaning import CleaningReport, clean_incidence
from .construction import edges_to_pairs, incidence_matrix, pairs_to_incidence
from .ids import _check_ids, _check_positions, _freeze_sparse, _frozen, map_ids
from .subhypergraphs import component_labels, induced_subhypergraph
from .validation import check_features, check_labels, check_names, check_weights

__all__ = ["Hypergraph"]


class Hypergraph:
    """An immutable hypergraph on nodes ``0..n_nodes-1``.

    Prefer the constructors :meth:`from_edges`, :meth:`from_incidence` and :meth:`from_pairs`,
    which validate and clean the input; the direct constructor expects a clean incidence.

    Parameters
    ----------
    incidence : scipy.sparse matrix, shape (n_nodes, n_edges)
        Nonzero = membership; stored as CSR float64 with entries 1.
    weights : array-like of shape (n_edges,), optional
        Positive, finite hyperedge weights; default all ones.
    features : ndarray or scipy.sparse matrix of shape (n_nodes, n_features), optional
    labels : array-like of int, shape (n_nodes,), optional
        Ground-truth classes, for evaluation only; negative = unlabelled.
    node_names, edge_names : sequence of str, optional
        Display names (not ids).
    parent_positions : array-like of int, shape (n_nodes,), optional
        Positions in the hypergraph this one was cut from (``original_ids`` is deprecated).
    cleaning : CleaningReport, optional
    name : str, optional
    node_ids, edge_ids : array-like, optional
        The user's ids (distinct ints or strings), kept through :meth:`subset` and written by
        every output; default ``0..n-1`` / ``0..m-1``.

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
        "_parent_positions", "_node_ids", "_edge_ids", "_cleaning", "_name", "_cache",
    )

    def __init__(self, incidence, weights=None, features=None, labels=None, node_names=None,
                 edge_names=None, parent_positions=None, cleaning=None, name=None,
                 node_ids=None, edge_ids=None, original_ids=None):
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
        self._weights = _frozen(check_weights(weights, m))
        self._features = check_features(features, n)
        self._labels = check_labels(labels, n)
        self._node_names = check_names(node_names, n, "node_names")
        self._edge_names = check_names(edge_names, m, "edge_names")
        if original_ids is not None:
            _deprecated_original_ids()
            parent_positions = original_ids if parent_positions is None else parent_positions
        self._parent_positions = _check_positions(parent_positions, n, "parent_positions")
        self._node_ids = _check_ids(node_ids, n, "node_ids")
        self._edge_ids = _check_ids(edge_ids, m, "edge_ids")
        self._cleaning = cleaning if cleaning is not None else CleaningReport()
        self._name = name
        self._cache = {}

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_edges(cls, edges: Iterable[Sequence], n_nodes: int | None = None, *,
                   weights=None, features=None, labels=None, node_names=None, edge_names=None,
                   node_ids=None, edge_ids=None, duplicates: str = "keep",
                   singletons: str = "keep", empty: str = "drop", name=None) -> "Hypergraph":
        """Build from a list of hyperedges, each a collection of node ids.

        Parameters
        ----------
        edges : iterable of collections of hashable
            Repeated ids inside one hyperedge collapse; ``None`` is refused. Integer ids are ids
            (``[[7, 900000]]`` is two nodes, ``node_ids`` sorted); they are positions
            ``0..n_nodes-1`` when ``n_nodes``, ``features``, ``labels`` or ``node_names`` say how
            many nodes there are. Names keep their order of first appearance.
        n_nodes : int, optional
            Makes integer ids positions; nodes in no hyperedge are isolated nodes.
        weights : array-like of shape (len(edges),), optional
        features, labels : optional
            One row per node (per entry of ``node_ids`` when given); labels may be names.
        node_ids : sequence, optional
            Every node's id, in the order of the rows of ``features``/``labels``; ids in no
            hyperedge are isolated nodes. Without it, non-integer members are numbered in order
            of first appearance and ``features``/``labels`` are refused (no row order to match).
        edge_ids : sequence, optional
            One distinct id per hyperedge (default ``0..len(edges)-1``).
        duplicates : {"keep", "merge", "drop"}, default "keep"
            Hyperedges with an identical member set: every copy kept, merged into the first copy
            (weights summed), or dropped after the first; counted in ``cleaning``.
        singletons : {"keep", "drop"}
            Size-1 hyperedges (they act as self loops).
        empty : {"drop", "error"}
            Hyperedges without members.

        Examples
        --------
        >>> hg = Hypergraph.from_edges([["alice", "bob"], ["bob", "carol", "dave"]])
        >>> hg.n_nodes, list(hg.node_ids)
        (4, ['alice', 'bob', 'carol', 'dave'])
        """
        nodes, eids, n_nodes, node_ids, n_edges = edges_to_pairs(
            edges, n_nodes, node_ids,
            has_rows=features is not None or labels is not None or node_names is not None)
        return cls.from_pairs(nodes, eids, n_nodes=n_nodes, n_edges=n_edges, weights=weights,
                              features=features, labels=labels, node_names=node_names,
                              edge_names=edge_names, node_ids=node_ids, edge_ids=edge_ids,
                              duplicates=duplicates, singletons=singletons, empty=empty,
                              name=name)

    @classmethod
    def from_pairs(cls, nodes, edges, n_nodes: int | None = None, n_edges: int | None = None, *,
                   weights=None, features=None, labels=None, node_names=None, edge_names=None,
                   node_ids=None, edge_ids=None, duplicates: str = "keep",
                   singletons: str = "keep", empty: str = "drop",
                   name=None) -> "Hypergraph":
        """Build from parallel arrays of (node id, hyperedge id) membership pairs.

        Parameters
        ----------
        nodes, edges : array-like of int, shape (n_pairs,)
            Node positions in ``[0, n_nodes)`` and hyperedge positions in ``[0, n_edges)``.
        n_nodes, n_edges : int, optional
            Default ``max + 1`` (or the length of ``node_ids``/``edge_ids``). Other
            parameters as in :meth:`from_edges`.

        Examples
        --------
        >>> hg = Hypergraph.from_pairs([0, 1, 1, 2], [0, 0, 1, 1], n_nodes=4)
        >>> hg.shape, hg.isolated.tolist()
        ((4, 2), [False, False, False, True])
        """
        if n_nodes is None and node_ids is not None:
            n_nodes = len(node_ids)
        if n_edges is None and edge_ids is not None:
            n_edges = len(edge_ids)
        H, n_pairs = pairs_to_incidence(nodes, edges, n_nodes, n_edges,
                                        rows_of=(labels, node_names, features))
        return cls._from_raw_incidence(H, n_pairs=n_pairs, weights=weights, features=features,
                                       labels=labels, node_names=node_names, edge_names=edge_names,
                                       duplicates=duplicates, singletons=singletons, empty=empty,
                                       name=name, node_ids=node_ids, edge_ids=edge_ids)

    @classmethod
    def from_incidence(cls, incidence, *, weights=None, features=None, labels=None,
                       node_names=None, edge_names=None, node_ids=None, edge_ids=None,
                       duplicates: str = "keep", singletons: str = "keep", empty: str = "drop",
                       name=None) -> "Hypergraph":
        """Build from an ``(n_nodes, n_edges)`` incidence matrix (dense or sparse).

        Any nonzero entry is a membership; negative, NaN or inf entries are errors. Other
        parameters as in :meth:`from_edges`.

        Examples
        --------
        >>> hg = Hypergraph.from_incidence([[1, 0], [1, 1], [0, 1]], edge_ids=["e1", "e2"])
        >>> hg.edge_sizes.tolist(), hg.edge_ids.tolist()
        ([2, 2], ['e1', 'e2'])
        """
        H = incidence_matrix(incidence)
        return cls._from_raw_incidence(H, n_pairs=H.nnz, weights=weights, features=features,
                                       labels=labels, node_names=node_names, edge_names=edge_names,
                                       duplicates=duplicates, singletons=singletons, empty=empty,
                                       name=name, node_ids=node_ids, edge_ids=edge_ids)

    @classmethod
    def _from_raw_incidence(cls, H, *, n_pairs, weights, features, labels, node_names, edge_names,
                            duplicates, singletons, empty, name, node_ids=None, edge_ids=None):
        kept = clean_incidence(H, n_pairs=n_pairs, weights=weights, edge_names=edge_names,
                               edge_ids=edge_ids, duplicates=duplicates, singletons=singletons,
                               empty=empty)
        return cls(kept.pop("incidence"), features=features, labels=labels,
                   node_names=node_names, name=name, node_ids=node_ids, **kept)

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
    def parent_positions(self) -> np.ndarray:
        """Positions of the nodes in the hypergraph this one was cut from (``0..n_nodes-1`` if none).
        """
        if self._parent_positions is None:
            return np.arange(self.n_nodes)
        return self._parent_positions

    @property
    def original_ids(self) -> np.ndarray:
        """Deprecated name of :attr:`parent_positions`."""
        _deprecated_original_ids()
        return self.parent_positions

    @property
    def node_ids(self) -> np.ndarray:
        """The user's node ids, shape (n_nodes,): int64, or object (strings); used by every output.
        """
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
        """Positions of the given node ids; ``ValueError`` naming the first unknown id.

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
        """Hyperedges as a list of sorted node-position arrays.

        Examples
        --------
        >>> [e.tolist() for e in Hypergraph.from_edges([[2, 0], [1, 2, 3]]).edges()]
        [[0, 2], [1, 2, 3]]
        """
        Ht = self.incidence_t
        return np.split(Ht.indices.copy(), Ht.indptr[1:-1])

    def replace(self, **changes) -> "Hypergraph":
        """A copy with some of ``weights, features, labels, node_names, edge_names, name`` replaced.

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
        return Hypergraph(self._H, parent_positions=self._parent_positions,
                          cleaning=self._cleaning, node_ids=self._node_ids,
                          edge_ids=self._edge_ids, **kw)

    # ------------------------------------------------------------------ structure
    def connected_components(self) -> tuple[int, np.ndarray]:
        """``(n_components, component per node)``: nodes sharing a hyperedge, transitively, numbered by
        decreasing size; isolated nodes are their own components.

        Examples
        --------
        >>> hg = Hypergraph.from_edges([[0, 1], [2, 3, 4]], n_nodes=6)
        >>> n, comp = hg.connected_components()
        >>> n, comp.tolist()
        (3, [1, 1, 0, 0, 0, 2])
        """
        if "components" not in self._cache:
            n_components, component = component_labels(self._H)
            self._cache["components"] = (n_components, _frozen(component))
        return self._cache["components"]

    def subset(self, nodes, *, keep_empty_edges: bool = False) -> "Hypergraph":
        """The sub-hypergraph induced on ``nodes`` (a boolean mask or position array).

        Empty hyperedges are removed unless ``keep_empty_edges``; ids are kept and
        ``parent_positions`` maps to this hypergraph's positions.

        Examples
        --------
        >>> hg = Hypergraph.from_edges([["a", "b"], ["b", "c"], ["c", "d"]])
        >>> sub = hg.subset([1, 2])
        >>> sub.node_ids.tolist(), sub.edge_ids.tolist(), sub.parent_positions.tolist()
        (['b', 'c'], [0, 1, 2], [1, 2])
        """
        return induced_subhypergraph(self, nodes, keep_empty_edges=keep_empty_edges)

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
        dict
            ``pairwise``: mean over hyperedges (>= 2 labelled members) of the share of same-label
            member pairs; ``pairwise_random``: the same for two random labelled nodes;
            ``majority``: mean share of a hyperedge's majority label; ``node``: mean over covered
            nodes of the share of same-label clique neighbours, with multiplicity.

        Examples
        --------
        >>> hg = Hypergraph.from_edges([[0, 1], [2, 3], [1, 2]], labels=[0, 0, 1, 1])
        >>> round(hg.homophily()["pairwise"], 3)
        0.667
        """
        return _statistics.homophily(self)

    def summary(self) -> dict:
        """``{statistic: value}``: sizes, degrees, isolated nodes, components, cleaning counts and
        homophily (when labelled).

        Examples
        --------
        >>> s = Hypergraph.from_edges([[0, 1, 2], [2, 3]], n_nodes=5).summary()
        >>> s["n_nodes"], s["nnz"], s["isolated_nodes"], s["components"]
        (5, 5, 1, 2)
        """
        return _statistics.summary(self)

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


def _deprecated_original_ids():
    import warnings

    warnings.warn("Hypergraph.original_ids is deprecated: it holds positions, not ids; use "
                  "parent_positions (or node_ids, which a subset keeps)", DeprecationWarning,
                  stacklevel=3)
