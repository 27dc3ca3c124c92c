"""Converters between :class:`hyperclust.Hypergraph` and other hypergraph libraries.

Every ``from_*`` function returns a :class:`~hyperclust.Hypergraph`; every ``to_*`` function
returns the other library's object. What survives a round trip:

========================  ========  ===========  =======  ========  ======  ================
library                   node ids  hyperedge    weights  features  labels  nodes in no
                                    ids                                     hyperedge
========================  ========  ===========  =======  ========  ======  ================
XGI ``Hypergraph``        yes       yes          yes      yes       yes     yes
HyperNetX ``Hypergraph``  yes       yes          yes      yes       yes     opt-in [1]_
DHG ``Hypergraph``        no [2]_   no [2]_      yes      no [3]_   no      yes
PyG ``HyperGraphData``    yes       yes          yes      yes       yes     yes
networkx bipartite graph  yes       yes          yes      yes       yes     yes
pandas tables             yes       yes          yes      yes       yes     yes (node table)
========================  ========  ===========  =======  ========  ======  ================

.. [1] HyperNetX shows only nodes that are in a hyperedge; :func:`to_hypernetx` keeps the
   others in its node property store, and ``from_hypernetx(..., include_isolated=True)``
   reads them back.
.. [2] DHG numbers vertices ``0..n-1`` and hyperedges in its own order; pass ``node_ids=``
   to :func:`from_dhg` to put ids back.
.. [3] DHG keeps features and labels outside the hypergraph; pass them to :func:`from_dhg`.

Conventions: hyperedge weights are the ``"weight"`` attribute of a hyperedge, class labels the
``"label"`` attribute of a node and features the ``"features"`` attribute of a node (one
1-D array, or a 1-row sparse matrix, per node); every name is a keyword argument. String
labels become ``0..k-1`` in sorted order (as the file readers do); a node without a label
gets ``-1`` (unlabelled). Ids are ints or strings (other hashables become their ``str``).

Each library is imported only when a converter needs it; a missing one raises a one-line
``ImportError`` naming the extra to install (``pip install hyperclust[interop]``). Construction
goes through :meth:`Hypergraph.from_pairs`, so the usual cleaning applies (keyword arguments
``duplicates=``, ``singletons=``, ``empty=`` pass through; by default duplicate hyperedges
are merged, adding their weights).

:func:`from_any` picks the converter from the type of its argument.
"""

from __future__ import annotations

import importlib
import itertools
import math
import numbers
import re
import warnings

import numpy as np
import scipy.sparse as sp

from .hypergraph import Hypergraph, map_ids

__all__ = [
    "from_any",
    "from_xgi", "to_xgi",
    "from_hypernetx", "to_hypernetx",
    "from_dhg", "to_dhg",
    "from_pyg", "to_pyg", "to_hyperedge_index",
    "from_networkx", "to_networkx",
    "from_pandas", "to_pandas", "to_pandas_incidence",
]

_PIP_NAMES = {"torch_geometric": "torch_geometric"}
_EXTRAS = {"torch": "deep"}


def _require(module: str, caller: str):
    """Import ``module`` or raise a one-line ImportError naming the extra to install."""
    try:
        return importlib.import_module(module)
    except ImportError:
        extra = _EXTRAS.get(module, "interop")
        raise ImportError(f"{caller} needs the '{_PIP_NAMES.get(module, module)}' package, "
                          f"which is not installed: pip install hyperclust[{extra}]") from None


# ---------------------------------------------------------------------------- helpers
def _is_int(v) -> bool:
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def _id_array(values) -> np.ndarray:
    """Ids as an int64 array when all are integers, else an object array (ints kept, other
    values as ``str``), shape (len(values),)."""
    if isinstance(values, np.ndarray) and values.dtype.kind in "iu":
        return values.astype(np.int64).reshape(-1)
    vals = values.tolist() if isinstance(values, np.ndarray) else list(values)
    if all(map(_is_int, vals)):
        return np.fromiter(vals, dtype=np.int64, count=len(vals))
    return np.fromiter((v if _is_int(v) else str(v) for v in vals), dtype=object,
                       count=len(vals))


def _native(ids: np.ndarray) -> list:
    """Ids as Python objects (``int``/``str``), the form other libraries key by."""
    return ids.tolist()


def _is_missing(v) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def _labels_from(values, ids, what: str):
    """Integer labels, shape (n,), from one value per node (``None``/NaN = no label).

    Integral numbers are kept; anything else is mapped to ``0..k-1`` in sorted order.
    Returns None when no node has a label."""
    if values is None:
        return None
    if isinstance(values, np.ndarray) and values.dtype.kind in "iu":
        return values.astype(np.int64).reshape(-1)
    vals = values.tolist() if isinstance(values, np.ndarray) else list(values)
    missing = np.fromiter(map(_is_missing, vals), dtype=bool, count=len(vals))
    if missing.all():
        return None
    present = [v for v, m in zip(vals, missing) if not m]
    out = np.full(len(vals), -1, dtype=np.int64)
    if all(isinstance(v, numbers.Real) and not isinstance(v, bool) and float(v).is_integer()
           for v in present):
        out[~missing] = np.asarray(present, dtype=np.float64).astype(np.int64)
        return out
    _, codes = np.unique(np.asarray([str(v) for v in present], dtype=object).astype(str),
                         return_inverse=True)
    out[~missing] = codes.reshape(-1)
    return out


def _features_from(rows, ids, what: str):
    """Stack one feature row per node (1-D arrays, lists or 1-row sparse matrices) into an
    ndarray or CSR of shape (n_nodes, n_features); None when no node has one."""
    if rows is None:
        return None
    rows = list(rows)
    have = [not _is_missing(r) for r in rows]
    if not any(have):
        return None
    if not all(have):
        i = have.index(False)
        raise ValueError(f"node {ids[i]!r} has no {what!r} while other nodes have; give every "
                         "node a feature row or none")
    try:
        if any(sp.issparse(r) for r in rows):
            return sp.vstack([sp.csr_matrix(r).reshape(1, -1) for r in rows], format="csr")
        return np.vstack([np.asarray(r).reshape(1, -1) for r in rows])
    except ValueError:
        sizes = [int(np.prod(np.shape(r))) for r in rows]
        i = next(j for j, s in enumerate(sizes) if s != sizes[0])
        raise ValueError(f"{what!r} of node {ids[i]!r} has {sizes[i]} values, node "
                         f"{ids[0]!r} has {sizes[0]}") from None


def _feature_rows(X) -> list:
    """One feature row per node: 1-D arrays (dense) or 1-row CSR matrices (sparse)."""
    if sp.issparse(X):
        # One value per node is what these libraries store: a row per node, in a loop.
        return [X[i] for i in range(X.shape[0])]
    return list(np.array(X, copy=True))


def _members(hg: Hypergraph, ids=None) -> list:
    """Members of each hyperedge as Python lists (of ``ids`` when given, else positions)."""
    Ht = hg.incidence_t
    if hg.n_edges == 0:
        return []
    values = Ht.indices if ids is None else ids[Ht.indices]
    return [part.tolist() for part in np.split(values, Ht.indptr[1:-1])]


def _build(node_ids, edge_ids, rows, cols, *, weights=None, features=None, labels=None,
           name=None, node_names=None, **options) -> Hypergraph:
    """A Hypergraph from (node position, hyperedge position) pairs and the two id arrays."""
    return Hypergraph.from_pairs(
        np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64),
        n_nodes=len(node_ids), n_edges=len(edge_ids), node_ids=node_ids, edge_ids=edge_ids,
        weights=weights, features=features, labels=labels, node_names=node_names, name=name,
        **options)


def _to_numpy(a):
    """A torch tensor (dense or sparse) or array-like as an ndarray or CSR matrix."""
    if a is None:
        return None
    if type(a).__module__.startswith("torch"):
        a = a.detach().cpu()
        if a.layout != _require("torch", "from_pyg").strided:
            coo = a.to_sparse_coo().coalesce()
            idx = coo.indices().numpy()
            return sp.csr_matrix((coo.values().numpy(), (idx[0], idx[1])), shape=tuple(a.shape))
        return a.numpy()
    return a if sp.issparse(a) else np.asarray(a)


# ---------------------------------------------------------------------------- XGI
def from_xgi(H, *, weight: str = "weight", label: str = "label", features: str = "features",
             name=None, **options) -> Hypergraph:
    """Convert an XGI ``Hypergraph`` (``xgi.Hypergraph``) into a hyperclust Hypergraph.

    Parameters
    ----------
    H : xgi.Hypergraph
        Nodes and hyperedges keep their XGI ids (``node_ids``, ``edge_ids``); nodes in no
        hyperedge are kept.
    weight : str, default "weight"
        Hyperedge attribute holding the weight (default 1 where missing).
    label : str, default "label"
        Node attribute holding the class label (``-1`` where missing).
    features : str, default "features"
        Node attribute holding the feature row (a 1-D array or a 1-row sparse matrix); all
        nodes or none must have one.
    name : str, optional
        Display name; default the XGI ``name`` attribute, if any.
    **options
        ``duplicates``, ``singletons``, ``empty`` of :meth:`Hypergraph.from_pairs`.

    Returns
    -------
    Hypergraph
        Shape ``(H.num_nodes, H.num_edges)`` (fewer hyperedges if duplicates are merged).

    Examples
    --------
    >>> import xgi
    >>> H = xgi.Hypergraph({"e1": ["ana", "bo"], "e2": ["bo", "cy", "di"]})
    >>> hg = from_xgi(H)
    >>> hg.shape, hg.node_ids.tolist(), hg.edge_ids.tolist()
    ((4, 2), ['ana', 'bo', 'cy', 'di'], ['e1', 'e2'])
    """
    xgi = _require("xgi", "from_xgi")
    if not isinstance(H, xgi.Hypergraph) or isinstance(H, getattr(xgi, "DiHypergraph", ())):
        raise TypeError(f"from_xgi expects an xgi.Hypergraph, got {type(H).__name__}")
    node_ids = _id_array(list(H.nodes))
    edge_ids = _id_array(list(H.edges))
    # XGI exposes hyperedges only as Python sets: one pass over its own iteration API.
    members = H.edges.members()
    sizes = np.fromiter(map(len, members), dtype=np.int64, count=len(members))
    flat = _id_array(itertools.chain.from_iterable(members))
    rows, _ = map_ids(flat, node_ids)
    cols = np.repeat(np.arange(len(edge_ids)), sizes)
    w = None
    if len(edge_ids) and any(v is not None for v in H.edges.attrs(weight).asdict().values()):
        w = np.asarray(H.edges.attrs(weight, missing=1.0).asnumpy(), dtype=np.float64)
    node_attrs = list(H.nodes)
    y = _labels_from(list(H.nodes.attrs(label).asdict().values()), node_attrs, label) \
        if len(node_ids) else None
    X = _features_from(list(H.nodes.attrs(features).asdict().values()), node_attrs, features) \
        if len(node_ids) else None
    if name is None:
        try:
            name = H["name"]
        except (KeyError, xgi.exception.XGIError):
            name = None
    return _build(node_ids, edge_ids, rows, cols, weights=w, features=X, labels=y, name=name,
                  **options)


def to_xgi(hg: Hypergraph, *, weight: str = "weight", label: str = "label",
           features: str = "features"):
    """Convert a hyperclust Hypergraph into an XGI ``Hypergraph``.

    Parameters
    ----------
    hg : Hypergraph
    weight, label, features : str
        Attribute names (see :func:`from_xgi`). Weights are written only when some weight is
        not 1; labels and features when ``hg`` has them (sparse features as 1-row CSR
        matrices, dense as 1-D arrays).

    Returns
    -------
    xgi.Hypergraph
        Nodes keyed by ``hg.node_ids``, hyperedges by ``hg.edge_ids``; nodes in no hyperedge
        included.

    Examples
    --------
    >>> hg = Hypergraph.from_edges([["ana", "bo"], ["bo", "cy"]], edge_ids=["e1", "e2"])
    >>> H = to_xgi(hg)
    >>> H.edges.members(dtype=dict) == {"e1": {"ana", "bo"}, "e2": {"bo", "cy"}}
    True
    """
    xgi = _require("xgi", "to_xgi")
    H = xgi.Hypergraph()
    nids, eids = _native(hg.node_ids), _native(hg.edge_ids)
    H.add_nodes_from(nids)
    # XGI stores each hyperedge as a Python set: it needs one member list per hyperedge.
    H.add_edges_from(dict(zip(eids, _members(hg, hg.node_ids))))
    if np.any(hg.weights != 1.0):
        H.set_edge_attributes(dict(zip(eids, hg.weights.tolist())), name=weight)
    if hg.labels is not None:
        H.set_node_attributes(dict(zip(nids, hg.labels.tolist())), name=label)
    if hg.features is not None:
        H.set_node_attributes(dict(zip(nids, _feature_rows(hg.features))), name=features)
    if hg.name is not None:
        H["name"] = hg.name
    return H


# ---------------------------------------------------------------------------- HyperNetX
def from_hypernetx(H, *, weight: str = "weight", label: str = "label",
                   features: str = "features", include_isolated: bool = False, name=None,
                   **options) -> Hypergraph:
    """Convert a HyperNetX ``Hypergraph`` (``hypernetx.Hypergraph``) into a hyperclust one.

    The incidence comes in one piece from ``H.incidence_matrix(index=True)``; edge and node
    properties from ``H.edges.properties`` / ``H.nodes.properties`` (pandas tables).

    Parameters
    ----------
    H : hypernetx.Hypergraph
    weight : str, default "weight"
        Edge property holding the weight (HyperNetX's default weight, 1, where unset).
    label, features : str
        Node properties holding the class label and the feature row.
    include_isolated : bool, default False
        Also read the nodes that are only in the node property store (HyperNetX does not
        show nodes in no hyperedge; :func:`to_hypernetx` keeps them there) as nodes in no
        hyperedge.
    name : str, optional
        Default ``H.name``.
    **options
        ``duplicates``, ``singletons``, ``empty`` of :meth:`Hypergraph.from_pairs`.

    Returns
    -------
    Hypergraph
        Nodes and hyperedges in HyperNetX's index order, with its uids as ids.

    Examples
    --------
    >>> import hypernetx as hnx
    >>> hg = from_hypernetx(hnx.Hypergraph({"e1": ["ana", "bo"], "e2": ["bo", "cy"]}))
    >>> hg.shape, hg.node_ids.tolist(), hg.edge_ids.tolist()
    ((3, 2), ['ana', 'bo', 'cy'], ['e1', 'e2'])
    """
    hnx = _require("hypernetx", "from_hypernetx")
    if not isinstance(H, hnx.Hypergraph):
        raise TypeError(f"from_hypernetx expects a hypernetx.Hypergraph, got {type(H).__name__}")
    if len(H.edges) == 0 or len(H.nodes) == 0:
        node_idx, edge_idx = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        M = sp.csr_matrix((0, 0))
    else:
        M, node_idx, edge_idx = H.incidence_matrix(index=True)
    node_ids, edge_ids = _id_array(node_idx), _id_array(edge_idx)
    M = sp.csr_matrix(M)
    nprops = H.nodes.properties
    if include_isolated:
        store = H.nodes.property_store.properties
        extra = store.index[~store.index.isin(list(node_idx))]
        if len(extra):
            node_ids = _id_array(list(node_ids.tolist()) + list(extra))
            nprops = store
            M = sp.vstack([M, sp.csr_matrix((len(extra), M.shape[1]))], format="csr")
    coo = M.tocoo()
    node_keys = node_ids.tolist()
    w = None
    eprops = H.edges.properties
    if weight in eprops.columns and len(edge_ids):
        col = eprops[weight].reindex(list(edge_idx))
        w = col.astype(np.float64).fillna(1.0).to_numpy()
    y = X = None
    if label in nprops.columns:
        y = _labels_from(nprops[label].reindex(node_keys).tolist(), node_keys, label)
    if features in nprops.columns:
        X = _features_from(nprops[features].reindex(node_keys).tolist(), node_keys, features)
    if name is None:
        name = getattr(H, "name", None) or None
    return _build(node_ids, edge_ids, coo.row, coo.col, weights=w, features=X, labels=y,
                  name=name, **options)


def to_hypernetx(hg: Hypergraph, *, weight: str = "weight", label: str = "label",
                 features: str = "features"):
    """Convert a hyperclust Hypergraph into a HyperNetX ``Hypergraph``.

    Built in one call from pandas tables: the incidence pairs, the edge properties (uid,
    weight) and the node properties (uid, label, features). Nodes in no hyperedge are kept in
    the node property store only (HyperNetX does not show them; see :func:`from_hypernetx`).

    Parameters
    ----------
    hg : Hypergraph
    weight, label, features : str
        Property names (see :func:`from_hypernetx`).

    Returns
    -------
    hypernetx.Hypergraph

    Examples
    --------
    >>> hg = Hypergraph.from_edges([["ana", "bo"], ["bo", "cy"]], edge_ids=["e1", "e2"])
    >>> H = to_hypernetx(hg)
    >>> sorted(H.incidence_dict["e2"])
    ['bo', 'cy']
    """
    hnx = _require("hypernetx", "to_hypernetx")
    pd = _require("pandas", "to_hypernetx")
    Ht = hg.incidence_t.tocoo()
    incidence = pd.DataFrame({"edges": hg.edge_ids[Ht.row], "nodes": hg.node_ids[Ht.col]})
    edge_props = pd.DataFrame({"uid": hg.edge_ids, weight: hg.weights})
    node_cols = {"uid": hg.node_ids}
    if hg.labels is not None:
        node_cols[label] = hg.labels
    if hg.features is not None:
        node_cols[features] = _feature_rows(hg.features)
    node_props = pd.DataFrame(node_cols) if len(node_cols) > 1 or hg.isolated.any() else None
    return hnx.Hypergraph(incidence, edge_col="edges", node_col="nodes",
                          edge_properties=edge_props, edge_weight_prop_col=weight,
                          node_properties=node_props, name=hg.name)


# ---------------------------------------------------------------------------- DHG
def from_dhg(hg, *, features=None, labels=None, node_ids=None, edge_ids=None, name=None,
             **options) -> Hypergraph:
    """Convert a DHG ``Hypergraph`` (``dhg.Hypergraph``) into a hyperclust Hypergraph.

    The incidence comes in one piece from DHG's sparse ``H`` (shape ``(num_v, num_e)``), the
    weights from ``W_e``.

    Parameters
    ----------
    hg : dhg.Hypergraph
    features : ndarray, torch tensor or sparse matrix of shape (num_v, n_features), optional
        DHG keeps node features outside the hypergraph (e.g. ``data["features"]``).
    labels : array-like or torch tensor of shape (num_v,), optional
    node_ids : sequence of shape (num_v,), optional
        Ids of DHG's vertices ``0..num_v-1`` (default those numbers).
    edge_ids : sequence of shape (num_e,), optional
        Ids of DHG's hyperedges in its order (default ``0..num_e-1``).
    name : str, optional
    **options
        ``duplicates``, ``singletons``, ``empty`` of :meth:`Hypergraph.from_pairs`.

    Returns
    -------
    Hypergraph

    Examples
    --------
    >>> import dhg
    >>> hg = from_dhg(dhg.Hypergraph(4, [[0, 1], [1, 2, 3]], e_weight=[1.0, 2.0]))
    >>> hg.shape, hg.weights.tolist()
    ((4, 2), [1.0, 2.0])
    """
    dhg = _require("dhg", "from_dhg")
    if not isinstance(hg, dhg.Hypergraph):
        raise TypeError(f"from_dhg expects a dhg.Hypergraph, got {type(hg).__name__}")
    n, m = int(hg.num_v), int(hg.num_e)
    if m:
        H = hg.H.detach().cpu().coalesce()
        rows, cols = H.indices().numpy()
        W = hg.W_e.detach().cpu().coalesce()
        w = np.ones(m)
        w[W.indices().numpy()[0]] = W.values().numpy()
    else:
        rows = cols = np.zeros(0, dtype=np.int64)
        w = None
    nid = _id_array(range(n) if node_ids is None else node_ids)
    eid = _id_array(range(m) if edge_ids is None else edge_ids)
    if nid.shape[0] != n:
        raise ValueError(f"node_ids has length {nid.shape[0]}, expected num_v = {n}")
    if eid.shape[0] != m:
        raise ValueError(f"edge_ids has length {eid.shape[0]}, expected num_e = {m}")
    y = _to_numpy(labels)
    return _build(nid, eid, rows, cols, weights=w, features=_to_numpy(features),
                  labels=None if y is None else y.reshape(-1), name=name, **options)


def to_dhg(hg: Hypergraph, *, device: str = "cpu"):
    """Convert a hyperclust Hypergraph into a DHG ``Hypergraph``.

    DHG numbers vertices ``0..n_nodes-1`` (row order of ``hg``) and keeps no ids, features or
    labels: use ``hg.node_ids``, ``hg.features``, ``hg.labels`` beside it. Duplicate
    hyperedges (only with ``duplicates="keep"``) are merged by DHG, adding their weights.

    Parameters
    ----------
    hg : Hypergraph
    device : str, default "cpu"
        Torch device of the DHG object.

    Returns
    -------
    dhg.Hypergraph
        ``num_v = hg.n_nodes``; hyperedge ``j`` of ``hg`` is DHG's hyperedge ``j``.

    Examples
    --------
    >>> hg = Hypergraph.from_edges([[0, 1], [1, 2, 3]], weights=[1.0, 2.0])
    >>> G = to_dhg(hg)
    >>> G.num_v, G.num_e
    (4, 2)
    """
    dhg = _require("dhg", "to_dhg")
    # dhg.Hypergraph takes nothing but a Python list of member lists.
    return dhg.Hypergraph(hg.n_nodes, _members(hg), e_weight=hg.weights.tolist() or None,
                          merge_op="sum", device=device)


# ---------------------------------------------------------------------------- PyG
def to_hyperedge_index(hg: Hypergraph):
    """The ``hyperedge_index`` of PyTorch Geometric's ``HypergraphConv``: a LongTensor of
    shape (2, nnz), row 0 the node position, row 1 the hyperedge position, sorted by
    hyperedge. Needs torch only.

    Examples
    --------
    >>> hg = Hypergraph.from_edges([[0, 1], [1, 2, 3]])
    >>> to_hyperedge_index(hg).tolist()
    [[0, 1, 1, 2, 3], [0, 0, 1, 1, 1]]
    """
    torch = _require("torch", "to_hyperedge_index")
    Ht = hg.incidence_t
    cols = np.repeat(np.arange(hg.n_edges, dtype=np.int64), np.diff(Ht.indptr))
    return torch.from_numpy(np.vstack([Ht.indices.astype(np.int64), cols]))


def to_pyg(hg: Hypergraph, *, dense_features: bool = True):
    """Convert a hyperclust Hypergraph into a PyG ``HyperGraphData``.

    Parameters
    ----------
    hg : Hypergraph
    dense_features : bool, default True
        Sparse features become a dense tensor (what most PyG layers take); ``False`` keeps
        them as a torch sparse CSR tensor.

    Returns
    -------
    torch_geometric.data.HyperGraphData
        ``edge_index`` (the hyperedge index, shape (2, nnz), as ``HypergraphConv`` takes
        it), ``num_nodes``, ``hyperedge_weight`` (shape (n_edges,)), ``x`` (features, as
        stored: float64 stays float64), ``y`` (labels), ``node_ids`` and ``edge_ids``
        (LongTensors, or lists of strings).

    Examples
    --------
    >>> hg = Hypergraph.from_edges([["ana", "bo"], ["bo", "cy"]])
    >>> data = to_pyg(hg)
    >>> data.edge_index.tolist(), data.num_nodes, data.node_ids
    ([[0, 1, 1, 2], [0, 0, 1, 1]], 3, ['ana', 'bo', 'cy'])
    """
    torch = _require("torch", "to_pyg")
    _require("torch_geometric", "to_pyg")
    from torch_geometric.data.hypergraph_data import HyperGraphData

    def ids(a):
        return torch.from_numpy(a.astype(np.int64)) if a.dtype != object else a.tolist()

    kw = {}
    X = hg.features
    if X is not None:
        if sp.issparse(X) and not dense_features:
            X = sp.csr_matrix(X)
            with warnings.catch_warnings():  # "sparse CSR support is in beta"
                warnings.simplefilter("ignore", UserWarning)
                kw["x"] = torch.sparse_csr_tensor(torch.from_numpy(X.indptr.astype(np.int64)),
                                                  torch.from_numpy(X.indices.astype(np.int64)),
                                                  torch.from_numpy(X.data.copy()), size=X.shape)
        else:
            kw["x"] = torch.from_numpy(X.toarray() if sp.issparse(X) else np.array(X))
    if hg.labels is not None:
        kw["y"] = torch.from_numpy(np.array(hg.labels))
    data = HyperGraphData(edge_index=to_hyperedge_index(hg), num_nodes=hg.n_nodes, **kw)
    data.hyperedge_weight = torch.from_numpy(np.array(hg.weights))
    data.node_ids = ids(hg.node_ids)
    data.edge_ids = ids(hg.edge_ids)
    return data


def from_pyg(data=None, *, hyperedge_index=None, x=None, y=None, hyperedge_weight=None,
             num_nodes=None, node_ids=None, edge_ids=None, name=None,
             **options) -> Hypergraph:
    """Convert PyTorch Geometric hypergraph data into a hyperclust Hypergraph.

    Parameters
    ----------
    data : HyperGraphData, Data, tensor or array, optional
        A ``HyperGraphData`` (its ``edge_index`` is the hyperedge index), a ``Data`` with a
        ``hyperedge_index`` attribute, or the hyperedge index itself. Attributes ``x``,
        ``y``, ``hyperedge_weight``, ``num_nodes``, ``node_ids``, ``edge_ids`` are read from
        it unless given as keywords.
    hyperedge_index : tensor or array of int, shape (2, nnz), optional
        Row 0 node positions, row 1 hyperedge positions (as ``HypergraphConv`` takes it).
    x : tensor or array, shape (num_nodes, n_features), optional
        Node features (a torch sparse tensor becomes a CSR matrix).
    y : tensor or array, shape (num_nodes,), optional
        Class labels (a one-hot ``(num_nodes, k)`` matrix is read by its argmax).
    hyperedge_weight : tensor or array, shape (n_edges,), optional
    num_nodes : int, optional
        Default: rows of ``x``, else largest node position + 1.
    node_ids, edge_ids : sequence, optional
        Ids of the node and hyperedge positions (default the positions).
    name : str, optional
    **options
        ``duplicates``, ``singletons``, ``empty`` of :meth:`Hypergraph.from_pairs`.

    Returns
    -------
    Hypergraph
        Hyperedge positions with no member are dropped (their ids with them).

    Examples
    --------
    >>> import torch
    >>> hg = from_pyg(torch.tensor([[0, 1, 1, 2, 3], [0, 0, 1, 1, 1]]))
    >>> hg.shape
    (4, 2)
    """
    def attr(key, given):
        if given is not None or data is None or not hasattr(data, "keys"):
            return given
        return data[key] if key in data.keys() else None

    index = hyperedge_index
    if data is not None and index is None:
        if hasattr(data, "keys") and callable(getattr(data, "keys")):
            keys = data.keys()
            if "hyperedge_index" in keys:
                index = data["hyperedge_index"]
            elif type(data).__name__ == "HyperGraphData":
                index = data.edge_index
            else:
                raise ValueError("this PyG Data has no hyperedge_index (its edge_index is a "
                                 "graph); pass hyperedge_index= or a HyperGraphData")
        else:
            index = data
    if index is None:
        raise ValueError("from_pyg needs data or hyperedge_index")
    x, y = attr("x", x), attr("y", y)
    hyperedge_weight = attr("hyperedge_weight", hyperedge_weight)
    node_ids, edge_ids = attr("node_ids", node_ids), attr("edge_ids", edge_ids)
    if num_nodes is None and data is not None and hasattr(data, "keys") and \
            "num_nodes" in data.keys():
        num_nodes = int(data["num_nodes"])  # stored value (the property fails on no edges)
    idx = _to_numpy(index)
    if sp.issparse(idx) or idx.ndim != 2 or idx.shape[0] != 2:
        raise ValueError(f"hyperedge_index must have shape (2, nnz), got {tuple(np.shape(idx))}")
    if idx.size and idx.dtype.kind not in "iu":
        raise TypeError(f"hyperedge_index must hold integers, got dtype {idx.dtype}")
    idx = idx.astype(np.int64)
    if idx.size and idx.min() < 0:
        raise ValueError("hyperedge_index holds a negative position")
    X = _to_numpy(x)
    w = None if hyperedge_weight is None else _to_numpy(hyperedge_weight).astype(np.float64)
    n = num_nodes if num_nodes is not None else (
        X.shape[0] if X is not None else (int(idx[0].max()) + 1 if idx.size else 0))
    m = w.shape[0] if w is not None else (int(idx[1].max()) + 1 if idx.size else 0)
    labels = _to_numpy(y)
    if labels is not None:
        if labels.ndim == 2 and labels.shape[1] > 1:
            if not np.all(labels.sum(axis=1) == 1):
                raise ValueError("y has several labels per node; hyperclust takes one label "
                                 "per node")
            labels = labels.argmax(axis=1)
        labels = labels.reshape(-1)
    nid = _id_array(range(n) if node_ids is None else _to_numpy(node_ids)
                    if not isinstance(node_ids, list) else node_ids)
    eid = _id_array(range(m) if edge_ids is None else _to_numpy(edge_ids)
                    if not isinstance(edge_ids, list) else edge_ids)
    if nid.shape[0] != n:
        raise ValueError(f"node_ids has length {nid.shape[0]}, expected {n} nodes")
    if eid.shape[0] != m:
        raise ValueError(f"edge_ids has length {eid.shape[0]}, expected {m} hyperedges")
    if idx.size and idx[0].max() >= n:
        raise ValueError(f"hyperedge_index names node {idx[0].max()} but there are {n} nodes")
    if idx.size and idx[1].max() >= m:
        raise ValueError(f"hyperedge_index names hyperedge {idx[1].max()} but "
                         f"hyperedge_weight has {m} entries")
    return _build(nid, eid, idx[0], idx[1], weights=w, features=X, labels=labels, name=name,
                  **options)


# ---------------------------------------------------------------------------- networkx
def to_networkx(hg: Hypergraph, *, id_attr: str = "id", weight: str = "weight",
                label: str = "label", features: str = "features"):
    """Convert a hyperclust Hypergraph into its bipartite star graph (``networkx.Graph``).

    Vertices ``0..n_nodes-1`` are the nodes (``bipartite=0``), vertices
    ``n_nodes..n_nodes+n_edges-1`` the hyperedges (``bipartite=1``), as in
    ``xgi.to_bipartite_graph``; a graph edge joins a node and each hyperedge it is in.

    Parameters
    ----------
    hg : Hypergraph
    id_attr : str, default "id"
        Vertex attribute holding the node id or hyperedge id.
    weight : str, default "weight"
        Hyperedge-vertex attribute holding the weight.
    label, features : str
        Node-vertex attributes (written when ``hg`` has labels / features).

    Returns
    -------
    networkx.Graph
        ``n_nodes + n_edges`` vertices, ``nnz`` edges; ``G.graph["name"]`` is ``hg.name``.

    Examples
    --------
    >>> hg = Hypergraph.from_edges([["ana", "bo"], ["bo", "cy"]])
    >>> G = to_networkx(hg)
    >>> G.number_of_nodes(), G.number_of_edges(), G.nodes[3]
    (5, 4, {'bipartite': 1, 'id': 0, 'weight': 1.0})
    """
    nx = _require("networkx", "to_networkx")
    n, m = hg.shape
    G = nx.Graph(name=hg.name) if hg.name is not None else nx.Graph()
    G.add_nodes_from(range(n), bipartite=0)
    G.add_nodes_from(range(n, n + m), bipartite=1)
    nx.set_node_attributes(G, dict(zip(range(n), _native(hg.node_ids))), id_attr)
    nx.set_node_attributes(G, dict(zip(range(n, n + m), _native(hg.edge_ids))), id_attr)
    nx.set_node_attributes(G, dict(zip(range(n, n + m), hg.weights.tolist())), weight)
    if hg.labels is not None:
        nx.set_node_attributes(G, dict(zip(range(n), hg.labels.tolist())), label)
    if hg.features is not None:
        nx.set_node_attributes(G, dict(zip(range(n), _feature_rows(hg.features))), features)
    coo = hg.incidence.tocoo()
    G.add_edges_from(zip(coo.row.tolist(), (coo.col + n).tolist()))
    return G


def from_networkx(G, *, node_side=0, id_attr: str = "id", weight: str = "weight",
                  label: str = "label", features: str = "features", name=None,
                  **options) -> Hypergraph:
    """Convert a bipartite star graph (``networkx.Graph``) into a hyperclust Hypergraph.

    Every vertex needs a ``bipartite`` attribute, 0 or 1: vertices with ``node_side`` are
    the nodes, the others the hyperedges (XGI writes nodes as 0, HyperNetX's
    ``H.bipartite()`` writes them as 1: pass ``node_side=1`` for it). The incidence is read in
    one piece with ``networkx.to_scipy_sparse_array``.

    Parameters
    ----------
    G : networkx.Graph (or DiGraph, MultiGraph)
    node_side : {0, 1}, default 0
    id_attr : str, default "id"
        Vertex attribute holding the id; where a side's vertices lack it, their keys are
        the ids.
    weight, label, features : str
        Attributes of hyperedge vertices (weight) and node vertices (label, features).
    name : str, optional
        Default ``G.graph["name"]``.
    **options
        ``duplicates``, ``singletons``, ``empty`` of :meth:`Hypergraph.from_pairs`.

    Returns
    -------
    Hypergraph
        Nodes and hyperedges in the graph's vertex order.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.Graph()
    >>> G.add_nodes_from(["ana", "bo", "cy"], bipartite=0)
    >>> G.add_nodes_from(["e1", "e2"], bipartite=1)
    >>> G.add_edges_from([("ana", "e1"), ("bo", "e1"), ("bo", "e2"), ("cy", "e2")])
    >>> hg = from_networkx(G)
    >>> hg.shape, hg.edge_ids.tolist()
    ((3, 2), ['e1', 'e2'])
    """
    nx = _require("networkx", "from_networkx")
    if not isinstance(G, nx.Graph):
        raise TypeError(f"from_networkx expects a networkx graph, got {type(G).__name__}")
    if node_side not in (0, 1):
        raise ValueError(f"node_side must be 0 or 1, got {node_side!r}")
    vertices = list(G)
    # networkx keeps vertex attributes in per-vertex dicts: read them through its iterator.
    sides = [s for _, s in G.nodes(data="bipartite")]
    bad = next((i for i, s in enumerate(sides) if s not in (0, 1)), None)
    if bad is not None:
        raise ValueError(f"vertex {vertices[bad]!r} has bipartite={sides[bad]!r}; every vertex "
                         "needs bipartite=0 or 1 (nodes and hyperedges)")
    is_node = np.asarray(sides) == node_side
    A = nx.to_scipy_sparse_array(G, nodelist=vertices, weight=None, format="csr")
    A = sp.csr_matrix(A)
    if G.is_directed():
        A = A + A.T
    nodes_at, edges_at = np.flatnonzero(is_node), np.flatnonzero(~is_node)
    if A[nodes_at][:, nodes_at].nnz or A[edges_at][:, edges_at].nnz:
        raise ValueError("the graph is not bipartite between its bipartite=0 and bipartite=1 "
                         "vertices")
    B = A[nodes_at][:, edges_at].tocoo()

    def side_ids(at):
        keys = [vertices[i] for i in at]
        given = [G.nodes[v].get(id_attr) for v in keys]
        return _id_array(given if all(g is not None for g in given) else keys)

    node_ids, edge_ids = side_ids(nodes_at), side_ids(edges_at)
    node_keys = [vertices[i] for i in nodes_at]
    w_raw = [G.nodes[vertices[i]].get(weight) for i in edges_at]
    w = None if all(v is None for v in w_raw) else np.asarray(
        [1.0 if v is None else v for v in w_raw], dtype=np.float64)
    y = _labels_from([G.nodes[v].get(label) for v in node_keys], node_ids.tolist(), label)
    X = _features_from([G.nodes[v].get(features) for v in node_keys], node_ids.tolist(),
                       features)
    if name is None:
        name = G.graph.get("name") or None
    return _build(node_ids, edge_ids, B.row, B.col, weights=w, features=X, labels=y,
                  name=name, **options)


# ---------------------------------------------------------------------------- pandas
_FEATURE_COLUMN = re.compile(r"^f(\d+)$")


def to_pandas(hg: Hypergraph, labels=None, clusters=None, *, features: bool = False):
    """A node table (``pandas.DataFrame``), one row per node in ``hg``'s order.

    Parameters
    ----------
    hg : Hypergraph
    labels : array-like of shape (n_nodes,), optional
        Class labels; default ``hg.labels`` (the column is left out when there are none).
    clusters : array-like of shape (n_nodes,) or a fitted estimator, optional
        Cluster assignments (an estimator gives its ``labels_``).
    features : bool, default False
        Add the features as columns ``f0 .. f{d-1}`` (sparse features as sparse columns).

    Returns
    -------
    pandas.DataFrame
        Columns ``node`` (the node id), then ``name`` (when the nodes have names),
        ``label``, ``cluster``, feature columns, as available.

    Examples
    --------
    >>> hg = Hypergraph.from_edges([["ana", "bo"], ["bo", "cy"]])
    >>> to_pandas(hg, clusters=[0, 0, 1])
      node  cluster
    0  ana        0
    1   bo        0
    2   cy        1
    """
    pd = _require("pandas", "to_pandas")
    n = hg.n_nodes
    cols = {"node": hg.node_ids}
    if hg.node_names is not None:
        cols["name"] = list(hg.node_names)
    for key, values in (("label", hg.labels if labels is None else labels),
                        ("cluster", getattr(clusters, "labels_", clusters))):
        if values is None:
            continue
        values = np.asarray(values).reshape(-1)
        if values.shape[0] != n:
            raise ValueError(f"{key}s has length {values.shape[0]}, expected one per node ({n})")
        cols[key] = values
    table = pd.DataFrame(cols)
    X = hg.features
    if features and X is not None:
        names = [f"f{j}" for j in range(X.shape[1])]
        block = (pd.DataFrame.sparse.from_spmatrix(sp.csr_matrix(X), columns=names)
                 if sp.issparse(X) else pd.DataFrame(np.asarray(X), columns=names))
        table = pd.concat([table, block], axis=1)
    return table


def to_pandas_incidence(hg: Hypergraph):
    """The incidence as a ``pandas.DataFrame``, one row per (node, hyperedge) membership.

    Returns
    -------
    pandas.DataFrame
        Columns ``node`` (node id), ``hyperedge`` (hyperedge id), ``weight`` (the
        hyperedge's weight), ``nnz`` rows sorted by hyperedge.

    Examples
    --------
    >>> hg = Hypergraph.from_edges([["ana", "bo"], ["bo", "cy"]], weights=[1.0, 2.0])
    >>> to_pandas_incidence(hg)
      node  hyperedge  weight
    0  ana          0     1.0
    1   bo          0     1.0
    2   bo          1     2.0
    3   cy          1     2.0
    """
    pd = _require("pandas", "to_pandas_incidence")
    Ht = hg.incidence_t.tocoo()
    return pd.DataFrame({"node": hg.node_ids[Ht.col], "hyperedge": hg.edge_ids[Ht.row],
                         "weight": hg.weights[Ht.row]})


def _codes(column, pd):
    """(codes, ids): positions of a column's values, ids sorted when integers, else in
    order of first appearance (as :meth:`Hypergraph.from_edges` orders them)."""
    values = column.to_numpy()
    if values.dtype.kind in "iu":
        codes, uniques = pd.factorize(values, sort=True)
        return codes, np.asarray(uniques, dtype=np.int64)
    ids = _id_array(values)
    keys = ids.astype(str) if ids.dtype == object else ids
    codes, uniques = pd.factorize(keys, sort=False)
    _, first = np.unique(codes, return_index=True)
    return codes, ids[first]


def from_pandas(incidence, *, node_col: str = "node", edge_col: str = "hyperedge",
                weight_col: str | None = "weight", nodes=None, node_id_col: str = "node",
                label_col: str = "label", feature_cols=None, name=None,
                **options) -> Hypergraph:
    """Build a hyperclust Hypergraph from pandas tables.

    Parameters
    ----------
    incidence : pandas.DataFrame
        One row per (node, hyperedge) membership.
    node_col, edge_col : str
        Columns of ``incidence`` holding the node id and the hyperedge id.
    weight_col : str or None, default "weight"
        Column of ``incidence`` holding the hyperedge weight, used when present (equal in
        all rows of a hyperedge).
    nodes : pandas.DataFrame, optional
        A node table (as :func:`to_pandas` writes it): every node, including those in no
        hyperedge, in this order, with optional label and feature columns. Without it the
        nodes are the ids in ``incidence`` (sorted when integers, else in order of first
        appearance).
    node_id_col : str, default "node"
        Column of ``nodes`` holding the node id.
    label_col : str, default "label"
        Column of ``nodes`` holding the class label, used when present.
    feature_cols : list of str, optional
        Columns of ``nodes`` holding the features; default the columns named ``f0, f1, ...``
        (as :func:`to_pandas` writes them), all sparse columns giving a CSR matrix.
    name : str, optional
    **options
        ``duplicates``, ``singletons``, ``empty`` of :meth:`Hypergraph.from_pairs`.

    Returns
    -------
    Hypergraph

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"node": ["ana", "bo", "bo", "cy"], "hyperedge": [7, 7, 9, 9]})
    >>> hg = from_pandas(df)
    >>> hg.shape, hg.node_ids.tolist(), hg.edge_ids.tolist()
    ((3, 2), ['ana', 'bo', 'cy'], [7, 9])
    """
    pd = _require("pandas", "from_pandas")
    if not isinstance(incidence, pd.DataFrame):
        raise TypeError(f"from_pandas expects a pandas.DataFrame, got {type(incidence).__name__}")
    for col in (node_col, edge_col):
        if col not in incidence.columns:
            raise ValueError(f"the incidence table has no column {col!r} (columns: "
                             f"{', '.join(map(str, incidence.columns))})")
    if incidence[[node_col, edge_col]].isna().to_numpy().any():
        raise ValueError(f"the incidence table has an empty {node_col!r} or {edge_col!r} cell")
    cols, edge_ids = _codes(incidence[edge_col], pd)
    w = None
    if weight_col is not None and weight_col in incidence.columns:
        values = pd.to_numeric(incidence[weight_col], errors="raise").to_numpy(np.float64)
        w = np.ones(len(edge_ids))
        w[cols] = values
        clash = np.flatnonzero(w[cols] != values)
        if clash.size:
            raise ValueError(f"hyperedge {edge_ids[cols[clash[0]]].item()!r} has different weights in "
                             f"different rows of column {weight_col!r}")
    y = X = node_names = None
    if nodes is None:
        rows, node_ids = _codes(incidence[node_col], pd)
    else:
        if not isinstance(nodes, pd.DataFrame):
            raise TypeError(f"nodes must be a pandas.DataFrame, got {type(nodes).__name__}")
        if node_id_col not in nodes.columns:
            raise ValueError(f"the node table has no column {node_id_col!r}")
        node_ids = _id_array(nodes[node_id_col].to_numpy())
        try:
            rows, _ = map_ids(_id_array(incidence[node_col].to_numpy()), node_ids, "node")
        except ValueError as exc:
            raise ValueError(f"{str(exc).split(' is not')[0]} of the incidence table is not in "
                             "the node table") from None
        if label_col in nodes.columns:
            y = _labels_from(nodes[label_col].to_numpy(), node_ids, label_col)
        if feature_cols is None:
            found = [(int(mt.group(1)), c) for c in nodes.columns
                     if isinstance(c, str) and (mt := _FEATURE_COLUMN.match(c))]
            feature_cols = [c for _, c in sorted(found)]
        missing = [c for c in feature_cols if c not in nodes.columns]
        if missing:
            raise ValueError(f"the node table has no feature column {missing[0]!r}")
        if feature_cols:
            block = nodes[list(feature_cols)]
            if all(isinstance(t, pd.SparseDtype) for t in block.dtypes):
                X = sp.csr_matrix(block.sparse.to_coo())
            else:
                X = block.to_numpy(dtype=np.float64)
        if "name" in nodes.columns:
            node_names = nodes["name"].astype(str).tolist()
    return _build(node_ids, edge_ids, rows, cols, weights=w, features=X, labels=y,
                  node_names=node_names, name=name, **options)


# ---------------------------------------------------------------------------- dispatch
def _roots(obj) -> set:
    """Top-level package names of the classes of ``obj`` (its MRO)."""
    return {cls.__module__.split(".")[0] for cls in type(obj).__mro__}


def from_any(obj, **kwargs) -> Hypergraph:
    """Convert any supported hypergraph object into a hyperclust Hypergraph.

    Dispatches on the type of ``obj``: ``xgi.Hypergraph`` (:func:`from_xgi`),
    ``hypernetx.Hypergraph`` (:func:`from_hypernetx`), ``dhg.Hypergraph`` (:func:`from_dhg`),
    a PyG ``HyperGraphData``/``Data`` or a torch hyperedge index of shape (2, nnz)
    (:func:`from_pyg`), a networkx bipartite graph (:func:`from_networkx`), a pandas
    incidence table (:func:`from_pandas`), a scipy sparse incidence matrix
    (:meth:`Hypergraph.from_incidence`), a list of hyperedges or a dict
    ``{hyperedge id: members}`` (:meth:`Hypergraph.from_edges`); a Hypergraph is returned
    as it is.

    Parameters
    ----------
    obj : object
    **kwargs
        Passed to the converter.

    Returns
    -------
    Hypergraph

    Raises
    ------
    TypeError
        For any other type.

    Examples
    --------
    >>> from_any({"e1": ["ana", "bo"], "e2": ["bo", "cy"]}).edge_ids.tolist()
    ['e1', 'e2']
    >>> from_any(42)
    Traceback (most recent call last):
    ...
    TypeError: cannot convert a int to a hyperclust Hypergraph; supported: xgi/hypernetx/dhg Hypergraph, PyG HyperGraphData or hyperedge_index, networkx bipartite graph, pandas DataFrame, scipy sparse incidence, list or dict of hyperedges
    """
    if isinstance(obj, Hypergraph):
        return obj
    roots = _roots(obj)
    if "xgi" in roots:
        return from_xgi(obj, **kwargs)
    if "hypernetx" in roots:
        return from_hypernetx(obj, **kwargs)
    if "dhg" in roots:
        return from_dhg(obj, **kwargs)
    if "torch_geometric" in roots or ("torch" in roots and getattr(obj, "ndim", 0) == 2):
        return from_pyg(obj, **kwargs)
    if "networkx" in roots:
        return from_networkx(obj, **kwargs)
    if "pandas" in roots and type(obj).__name__ == "DataFrame":
        return from_pandas(obj, **kwargs)
    if sp.issparse(obj):
        return Hypergraph.from_incidence(obj, **kwargs)
    if isinstance(obj, dict):
        return Hypergraph.from_edges(list(obj.values()), edge_ids=list(obj.keys()), **kwargs)
    if isinstance(obj, (list, tuple)):
        return Hypergraph.from_edges(obj, **kwargs)
    raise TypeError(
        f"cannot convert a {type(obj).__qualname__} to a hyperclust Hypergraph; supported: "
        "xgi/hypernetx/dhg Hypergraph, PyG HyperGraphData or hyperedge_index, networkx "
        "bipartite graph, pandas DataFrame, scipy sparse incidence, list or dict of "
        "hyperedges")
