"""Converters for DHG (Deep Hypergraph)."""

from __future__ import annotations

import warnings

import numpy as np

from ..hypergraph import Hypergraph
from ..hypergraph.cleaning import clean_incidence
from ._common import _build, _id_array, _members, _require, _to_numpy

__all__ = ["from_dhg", "to_dhg"]


def from_dhg(hg, *, features=None, labels=None, node_ids=None, edge_ids=None, name=None,
             **options) -> Hypergraph:
    """Convert a ``dhg.Hypergraph``; features, labels and ids come as arguments (DHG keeps none).

    Parameters
    ----------
    hg : dhg.Hypergraph
    features : ndarray, torch tensor or sparse matrix of shape (num_v, n_features), optional
    labels : array-like or torch tensor of shape (num_v,), optional
    node_ids : sequence of shape (num_v,), optional
        Default ``0..num_v-1``.
    edge_ids : sequence of shape (num_e,), optional
        Default ``0..num_e-1``.
    name : str, optional
    **options
        ``duplicates``, ``singletons``, ``empty`` of :meth:`Hypergraph.from_pairs`.

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
    """Convert a Hypergraph into a ``dhg.Hypergraph`` (no ids, features or labels).

    DHG merges identical hyperedges; a ``UserWarning`` says so when ``hg`` has any.

    Parameters
    ----------
    hg : Hypergraph
    device : str, default "cpu"
        Torch device of the DHG object.

    Examples
    --------
    >>> hg = Hypergraph.from_edges([[0, 1], [1, 2, 3]], weights=[1.0, 2.0])
    >>> G = to_dhg(hg)
    >>> G.num_v, G.num_e
    (4, 2)
    """
    dhg = _require("dhg", "to_dhg")
    copies = clean_incidence(hg.incidence, n_pairs=hg.incidence.nnz)["cleaning"].duplicate_edges
    if copies:
        warnings.warn(f"DHG merges identical hyperedges: {copies} duplicate hyperedge(s) of this "
                      "hypergraph become one each (weights added), so DHG's hyperedge j is no "
                      "longer hg's hyperedge j", UserWarning, stacklevel=2)
    # dhg.Hypergraph takes nothing but a Python list of member lists.
    return dhg.Hypergraph(hg.n_nodes, _members(hg), e_weight=hg.weights.tolist() or None,
                          merge_op="sum", device=device)
