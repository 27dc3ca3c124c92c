"""Converters for pandas (incidence and node tables)."""

from __future__ import annotations

import re

import numpy as np
import scipy.sparse as sp

from ..hypergraph import Hypergraph, map_ids
from ._common import _build, _cluster_labels, _id_array, _labels_from, _require

__all__ = ["to_pandas", "to_pandas_incidence", "from_pandas"]


_FEATURE_COLUMN = re.compile(r"^f(\d+)$")


def to_pandas(hg: Hypergraph, labels=None, clusters=None, *, features: bool = False):
    """A node table (``pandas.DataFrame``), one row per node in ``hg``'s order.

    Parameters
    ----------
    hg : Hypergraph
    labels : array-like of shape (n_nodes,), optional
        Default ``hg.labels``.
    clusters : array-like of shape (n_nodes,) or a fitted estimator, optional
    features : bool, default False
        Add the features as columns ``f0 .. f{d-1}`` (sparse stays sparse).

    Returns
    -------
    pandas.DataFrame
        Columns ``node``, then ``name``, ``label``, ``cluster``, features, as available.

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
    values = hg.labels if labels is None else labels
    if values is not None:
        values = np.asarray(values).reshape(-1)
        if values.shape[0] != n:
            raise ValueError(f"labels has length {values.shape[0]}, expected one per node ({n})")
        cols["label"] = values
    clusters = _cluster_labels(hg, clusters)
    if clusters is not None:
        cols["cluster"] = clusters
    table = pd.DataFrame(cols)
    X = hg.features
    if features and X is not None:
        names = [f"f{j}" for j in range(X.shape[1])]
        block = (pd.DataFrame.sparse.from_spmatrix(sp.csr_matrix(X), columns=names)
                 if sp.issparse(X) else pd.DataFrame(np.asarray(X), columns=names))
        table = pd.concat([table, block], axis=1)
    return table


def to_pandas_incidence(hg: Hypergraph):
    """The incidence as a ``pandas.DataFrame``: ``node``, ``hyperedge``, ``weight`` per membership.

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
    """(codes, ids) of a column: ids sorted when integers, else in order of first appearance."""
    values = column.to_numpy()
    if values.dtype.kind in "iu":
        codes, uniques = pd.factorize(values, sort=True)
        return codes, np.asarray(uniques, dtype=np.int64)
    ids = _id_array(values)
    keys = ids.astype(str) if ids.dtype == object else ids
    codes, uniques = pd.factorize(keys, sort=False)
    _, first = np.unique(codes, return_index=True)
    return codes, ids[first]


def _edge_weights(incidence, weight_col, cols, edge_ids, pd):
    """Hyperedge weights from column ``weight_col`` (equal on a hyperedge's rows), or None."""
    if weight_col is None or weight_col not in incidence.columns:
        return None
    values = pd.to_numeric(incidence[weight_col], errors="raise").to_numpy(np.float64)
    w = np.ones(len(edge_ids))
    w[cols] = values
    clash = np.flatnonzero(w[cols] != values)
    if clash.size:
        raise ValueError(f"hyperedge {edge_ids[cols[clash[0]]].item()!r} has different weights "
                         f"in different rows of column {weight_col!r}")
    return w


def _feature_block(nodes, feature_cols, pd):
    """Node-table features: ``feature_cols`` (default ``f0, f1, ...``) as CSR or float64, or None."""
    if feature_cols is None:
        found = [(int(mt.group(1)), c) for c in nodes.columns
                 if isinstance(c, str) and (mt := _FEATURE_COLUMN.match(c))]
        feature_cols = [c for _, c in sorted(found)]
    missing = [c for c in feature_cols if c not in nodes.columns]
    if missing:
        raise ValueError(f"the node table has no feature column {missing[0]!r}")
    if not feature_cols:
        return None
    block = nodes[list(feature_cols)]
    if all(isinstance(t, pd.SparseDtype) for t in block.dtypes):
        return sp.csr_matrix(block.sparse.to_coo())
    return block.to_numpy(dtype=np.float64)


def from_pandas(incidence, *, node_col: str = "node", edge_col: str = "hyperedge",
                weight_col: str | None = "weight", nodes=None, node_id_col: str = "node",
                label_col: str = "label", feature_cols=None, name=None,
                **options) -> Hypergraph:
    """Build a Hypergraph from pandas tables.

    Parameters
    ----------
    incidence : pandas.DataFrame
        One row per (node, hyperedge) membership.
    node_col, edge_col : str
        Columns of ``incidence`` holding the node id and the hyperedge id.
    weight_col : str or None, default "weight"
        Column of ``incidence`` holding the hyperedge weight, used when present.
    nodes : pandas.DataFrame, optional
        A node table (as :func:`to_pandas` writes it): every node, in this order, with optional
        label and feature columns; default the ids in ``incidence``.
    node_id_col : str, default "node"
    label_col : str, default "label"
    feature_cols : list of str, optional
        Default the columns named ``f0, f1, ...``.
    name : str, optional
    **options
        ``duplicates``, ``singletons``, ``empty`` of :meth:`Hypergraph.from_pairs`.

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
    w = _edge_weights(incidence, weight_col, cols, edge_ids, pd)
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
        X = _feature_block(nodes, feature_cols, pd)
        if "name" in nodes.columns:
            node_names = nodes["name"].astype(str).tolist()
    return _build(node_ids, edge_ids, rows, cols, weights=w, features=X, labels=y,
                  node_names=node_names, name=name, **options)
