"""Converters for PyTorch Geometric."""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp

from ..hypergraph import Hypergraph
from ._common import _build, _cluster_labels, _id_array, _require, _to_numpy

__all__ = ["to_hyperedge_index", "to_pyg", "from_pyg"]


def to_hyperedge_index(hg: Hypergraph):
    """``HypergraphConv``'s hyperedge index: LongTensor (2, nnz), node then hyperedge positions.

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


def to_pyg(hg: Hypergraph, *, clusters=None, dense_features: bool = True,
           dtype="float32"):
    """Convert a Hypergraph into a PyG ``HyperGraphData``.

    Parameters
    ----------
    hg : Hypergraph
    clusters : array-like of shape (n_nodes,) or a fitted estimator, optional
        Stored as ``data.cluster``.
    dense_features : bool, default True
        Sparse features become dense; ``False`` keeps a torch sparse CSR tensor.
    dtype : str or None, default "float32"
        Type of ``x`` and ``hyperedge_weight``; ``None`` keeps float64 (exact round trip).

    Returns
    -------
    torch_geometric.data.HyperGraphData
        ``edge_index`` (hyperedge index), ``num_nodes``, ``hyperedge_weight``, ``x``, ``y``,
        ``cluster``, ``node_ids``, ``edge_ids``, as available.

    Examples
    --------
    >>> hg = Hypergraph.from_edges([["ana", "bo"], ["bo", "cy"]])
    >>> data = to_pyg(hg)
    >>> data.edge_index.tolist(), data.num_nodes, data.node_ids
    ([[0, 1, 1, 2], [0, 0, 1, 1]], 3, ['ana', 'bo', 'cy'])
    >>> to_pyg(hg, clusters=[0, 0, 1]).cluster.tolist(), data.hyperedge_weight.dtype
    ([0, 0, 1], torch.float32)
    """
    torch = _require("torch", "to_pyg")
    _require("torch_geometric", "to_pyg")
    from torch_geometric.data.hypergraph_data import HyperGraphData

    def ids(a):
        return torch.from_numpy(a.astype(np.int64)) if a.dtype != object else a.tolist()

    def floats(a):
        return a if dtype is None else a.astype(np.dtype(dtype), copy=False)

    kw = {}
    X = hg.features
    if X is not None:
        if sp.issparse(X) and not dense_features:
            X = sp.csr_matrix(X)
            with warnings.catch_warnings():  # "sparse CSR support is in beta"
                warnings.simplefilter("ignore", UserWarning)
                kw["x"] = torch.sparse_csr_tensor(torch.from_numpy(X.indptr.astype(np.int64)),
                                                  torch.from_numpy(X.indices.astype(np.int64)),
                                                  torch.from_numpy(floats(X.data.copy())),
                                                  size=X.shape)
        else:
            kw["x"] = torch.from_numpy(floats(X.toarray() if sp.issparse(X) else np.array(X)))
    if hg.labels is not None:
        kw["y"] = torch.from_numpy(np.array(hg.labels))
    data = HyperGraphData(edge_index=to_hyperedge_index(hg), num_nodes=hg.n_nodes, **kw)
    data.hyperedge_weight = torch.from_numpy(floats(np.array(hg.weights)))
    labels = _cluster_labels(hg, clusters)
    if labels is not None:
        data.cluster = torch.from_numpy(labels)
    data.node_ids = ids(hg.node_ids)
    data.edge_ids = ids(hg.edge_ids)
    return data


def _hyperedge_index(data, hyperedge_index) -> np.ndarray:
    """The hyperedge index of ``data`` (or ``hyperedge_index``), int64 (2, nnz), checked."""
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
    idx = _to_numpy(index)
    if sp.issparse(idx) or idx.ndim != 2 or idx.shape[0] != 2:
        raise ValueError(f"hyperedge_index must have shape (2, nnz), got {tuple(np.shape(idx))}")
    if idx.size and idx.dtype.kind not in "iu":
        raise TypeError(f"hyperedge_index must hold integers, got dtype {idx.dtype}")
    idx = idx.astype(np.int64)
    if idx.size and idx.min() < 0:
        raise ValueError("hyperedge_index holds a negative position")
    return idx


def _one_label_per_node(labels):
    """Labels (n,) from (n,) or one-hot (n, k); None stays None."""
    if labels is None:
        return None
    if labels.ndim == 2 and labels.shape[1] > 1:
        if not np.all(labels.sum(axis=1) == 1):
            raise ValueError("y has several labels per node; hyperclust takes one label per node")
        labels = labels.argmax(axis=1)
    return labels.reshape(-1)


def from_pyg(data=None, *, hyperedge_index=None, x=None, y=None, hyperedge_weight=None,
             num_nodes=None, node_ids=None, edge_ids=None, name=None,
             **options) -> Hypergraph:
    """Convert PyTorch Geometric hypergraph data into a Hypergraph.

    Parameters
    ----------
    data : HyperGraphData, Data, tensor or array, optional
        A ``HyperGraphData``, a ``Data`` with ``hyperedge_index``, or the index itself; the
        other arguments are read from its attributes unless given.
    hyperedge_index : tensor or array of int, shape (2, nnz), optional
        Row 0 node positions, row 1 hyperedge positions.
    x : tensor or array, shape (num_nodes, n_features), optional
    y : tensor or array, shape (num_nodes,) or one-hot (num_nodes, k), optional
    hyperedge_weight : tensor or array, shape (n_edges,), optional
    num_nodes : int, optional
        Default: rows of ``x``, else largest node position + 1.
    node_ids, edge_ids : sequence, optional
        Ids of the positions (default the positions).
    name : str, optional
    **options
        ``duplicates``, ``singletons``, ``empty`` of :meth:`Hypergraph.from_pairs`.

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

    idx = _hyperedge_index(data, hyperedge_index)
    x, y = attr("x", x), attr("y", y)
    hyperedge_weight = attr("hyperedge_weight", hyperedge_weight)
    node_ids, edge_ids = attr("node_ids", node_ids), attr("edge_ids", edge_ids)
    if num_nodes is None and data is not None and hasattr(data, "keys") and \
            "num_nodes" in data.keys():
        num_nodes = int(data["num_nodes"])  # stored value (the property fails on no edges)
    X = _to_numpy(x)
    w = None if hyperedge_weight is None else _to_numpy(hyperedge_weight).astype(np.float64)
    n = num_nodes if num_nodes is not None else (
        X.shape[0] if X is not None else (int(idx[0].max()) + 1 if idx.size else 0))
    m = w.shape[0] if w is not None else (int(idx[1].max()) + 1 if idx.size else 0)
    labels = _one_label_per_node(_to_numpy(y))
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
