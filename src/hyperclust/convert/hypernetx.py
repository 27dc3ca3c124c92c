"""Converters for HyperNetX."""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp

from ..hypergraph import Hypergraph
from ._common import (_build, _cluster_labels, _feature_rows, _features_from, _id_array,
                      _labels_from, _require)

__all__ = ["from_hypernetx", "to_hypernetx"]


def from_hypernetx(H, *, weight: str = "weight", label: str = "label",
                   features: str = "features", include_isolated: bool = False, name=None,
                   **options) -> Hypergraph:
    """Convert a ``hypernetx.Hypergraph``; nodes and hyperedges in its index order, uids as ids.

    Parameters
    ----------
    H : hypernetx.Hypergraph
    weight : str, default "weight"
        Edge property holding the weight (1 where unset).
    label, features : str
        Node properties holding the class label and the feature row.
    include_isolated : bool, default False
        Also read the nodes only in the node property store (where :func:`to_hypernetx` keeps
        nodes in no hyperedge); left out, a ``UserWarning`` names them.
    name : str, optional
        Default ``H.name``.
    **options
        ``duplicates``, ``singletons``, ``empty`` of :meth:`Hypergraph.from_pairs`.

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
    store = H.nodes.property_store.properties
    extra = store.index[~store.index.isin(list(node_idx))]
    if len(extra) and not include_isolated:
        warnings.warn(f"{len(extra)} node(s) of the HyperNetX node property store are in no "
                      f"hyperedge (e.g. {extra[0]!r}) and were left out; "
                      "include_isolated=True keeps them", UserWarning, stacklevel=2)
    if include_isolated:
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


def to_hypernetx(hg: Hypergraph, *, clusters=None, weight: str = "weight",
                 label: str = "label", features: str = "features", cluster: str = "cluster"):
    """Convert a Hypergraph into a ``hypernetx.Hypergraph``; nodes in no hyperedge go to the property store.

    Parameters
    ----------
    hg : Hypergraph
    clusters : array-like of shape (n_nodes,) or a fitted estimator, optional
        Written as the node property ``cluster``.
    weight, label, features, cluster : str
        Property names.

    Examples
    --------
    >>> hg = Hypergraph.from_edges([["ana", "bo"], ["bo", "cy"]], edge_ids=["e1", "e2"])
    >>> H = to_hypernetx(hg)
    >>> sorted(H.incidence_dict["e2"])
    ['bo', 'cy']
    >>> to_hypernetx(hg, clusters=[0, 0, 1]).nodes.properties["cluster"].to_dict()
    {'ana': 0, 'bo': 0, 'cy': 1}
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
    labels = _cluster_labels(hg, clusters)
    if labels is not None:
        node_cols[cluster] = labels
    node_props = pd.DataFrame(node_cols) if len(node_cols) > 1 or hg.isolated.any() else None
    return hnx.Hypergraph(incidence, edge_col="edges", node_col="nodes",
                          edge_properties=edge_props, edge_weight_prop_col=weight,
                          node_properties=node_props, name=hg.name)
