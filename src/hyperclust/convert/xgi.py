"""Converters for XGI."""

from __future__ import annotations

import itertools

import numpy as np
import scipy.sparse as sp

from ..hypergraph import Hypergraph, map_ids
from ._common import (_build, _cluster_labels, _feature_rows, _features_from, _id_array,
                      _labels_from, _members, _require)

__all__ = ["from_xgi", "to_xgi"]


def from_xgi(H, *, weight: str = "weight", label: str = "label", features: str = "features",
             name=None, **options) -> Hypergraph:
    """Convert an ``xgi.Hypergraph``; ids kept, nodes in no hyperedge kept.

    Parameters
    ----------
    H : xgi.Hypergraph
    weight : str, default "weight"
        Hyperedge attribute holding the weight (1 where missing).
    label : str, default "label"
        Node attribute holding the class label (-1 where missing).
    features : str, default "features"
        Node attribute holding the feature row; all nodes or none.
    name : str, optional
        Display name; default the XGI ``name`` attribute.
    **options
        ``duplicates``, ``singletons``, ``empty`` of :meth:`Hypergraph.from_pairs`.

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
    """Convert a Hypergraph into an ``xgi.Hypergraph`` keyed by ``hg.node_ids`` / ``hg.edge_ids``.

    Parameters
    ----------
    hg : Hypergraph
    clusters : array-like of shape (n_nodes,) or a fitted estimator, optional
        Written as the node attribute ``cluster``.
    weight, label, features, cluster : str
        Attribute names; ``features=None`` leaves features out (needed before ``xgi.write_hif``
        when they are sparse). Weights are written only when some weight is not 1.

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
    nids, eids = hg.node_ids.tolist(), hg.edge_ids.tolist()
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
