"""Converters for XGI; see :mod:`hyperclust.convert`."""

from __future__ import annotations

import itertools

import numpy as np
import scipy.sparse as sp

from ..hypergraph import Hypergraph, map_ids
from ._common import (_build, _cluster_labels, _feature_rows, _features_from, _id_array,
                      _labels_from, _members, _native, _require)

__all__ = ["from_xgi", "to_xgi"]


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


def to_xgi(hg: Hypergraph, *, clusters=None, weight: str = "weight", label: str = "label",
           features: str = "features", cluster: str = "cluster"):
    """Convert a hyperclust Hypergraph into an XGI ``Hypergraph``.

    Parameters
    ----------
    hg : Hypergraph
    clusters : array-like of shape (n_nodes,) or a fitted estimator, optional
        Cluster of each node (``hg``'s node order; an estimator gives its ``labels_``),
        written as the node attribute ``cluster``.
    weight, label, features, cluster : str
        Attribute names (see :func:`from_xgi`); ``features=None`` leaves the features out.
        Weights are written only when some weight is not 1; labels and features when ``hg``
        has them. Every value is a plain Python object (ints, floats, lists of floats for
        dense features), so ``xgi.write_hif`` writes the result; sparse features are 1-row
        CSR matrices, which JSON cannot hold: pass ``features=None`` before ``write_hif``.

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
    >>> to_xgi(hg, clusters=[0, 0, 1]).nodes.attrs("cluster").asdict()
    {'ana': 0, 'bo': 0, 'cy': 1}
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
    if hg.features is not None and features is not None:
        rows = _feature_rows(hg.features) if sp.issparse(hg.features) else hg.features.tolist()
        H.set_node_attributes(dict(zip(nids, rows)), name=features)
    labels = _cluster_labels(hg, clusters)
    if labels is not None:
        H.set_node_attributes(dict(zip(nids, labels.tolist())), name=cluster)
    if hg.name is not None:
        H["name"] = hg.name
    return H
