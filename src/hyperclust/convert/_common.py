"""What the converters share: on-demand imports, ids, labels, features, construction."""

from __future__ import annotations

import importlib
import math
import numbers
import warnings

import numpy as np
import scipy.sparse as sp

from ..hypergraph import Hypergraph
from ..hypergraph.ids import check_text_distinct

#: What every way in from outside (converters, :func:`from_any`, file readers, the command
#: line) does with duplicate hyperedges by default: merge them, weights summed.
DUPLICATES = "merge"
# The extra of pyproject.toml that installs each optional library.
_EXTRAS = {"torch": "deep", "torch_geometric": "pyg", "xgi": "xgi", "hypernetx": "hypernetx",
           "dhg": "dhg", "networkx": "networkx", "pandas": "pandas"}


def _require(module: str, caller: str):
    """Import ``module`` or raise a one-line ImportError naming the extra to install."""
    try:
        return importlib.import_module(module)
    except ImportError:
        extra = _EXTRAS.get(module, "interop")
        raise ImportError(f"{caller} needs the '{module}' package, "
                          f"which is not installed: pip install hyperclust[{extra}]") from None


def _is_int(v) -> bool:
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def _id_array(values) -> np.ndarray:
    """Ids as int64 when all are integers, else objects (non-str values as ``str``, warned)."""
    if isinstance(values, np.ndarray) and values.dtype.kind in "iu":
        return values.astype(np.int64).reshape(-1)
    vals = values.tolist() if isinstance(values, np.ndarray) else list(values)
    if all(map(_is_int, vals)):
        return np.fromiter(vals, dtype=np.int64, count=len(vals))
    other = next((v for v in vals if not _is_int(v) and not isinstance(v, str)), None)
    if other is not None:
        warnings.warn(f"ids must be ints or strings: ids such as {other!r} "
                      f"({type(other).__name__}) are kept as their str, {str(other)!r}",
                      UserWarning, stacklevel=3)
    check_text_distinct(vals, "id")
    return np.fromiter((v if _is_int(v) else str(v) for v in vals), dtype=object,
                       count=len(vals))


def _is_missing(v) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def _labels_from(values, ids, what: str):
    """Integer labels, shape (n,), from one value per node (None/NaN: -1); None when none."""
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
    """Stack one feature row per node into an ndarray or CSR; None when no node has one."""
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
    """One feature row per node: 1-D arrays, or 1-row CSR matrices."""
    if sp.issparse(X):
        # One value per node is what these libraries store: a row per node, in a loop.
        return [X[i] for i in range(X.shape[0])]
    return list(np.array(X, copy=True))


def _members(hg: Hypergraph, ids=None) -> list:
    """Members of each hyperedge as lists (of ``ids`` when given, else positions)."""
    Ht = hg.incidence_t
    if hg.n_edges == 0:
        return []
    values = Ht.indices if ids is None else ids[Ht.indices]
    return [part.tolist() for part in np.split(values, Ht.indptr[1:-1])]


def _build(node_ids, edge_ids, rows, cols, *, weights=None, features=None, labels=None,
           name=None, node_names=None, **options) -> Hypergraph:
    """A Hypergraph from (node, hyperedge) position pairs and the two id arrays."""
    return Hypergraph.from_pairs(
        np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64),
        n_nodes=len(node_ids), n_edges=len(edge_ids), node_ids=node_ids, edge_ids=edge_ids,
        weights=weights, features=features, labels=labels, node_names=node_names, name=name,
        **{"duplicates": DUPLICATES, **options})


def _to_numpy(a):
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


def _cluster_labels(hg: Hypergraph, clusters):
    """``clusters`` (labels or a fitted estimator on ``hg``'s nodes) as int64 (n_nodes,), or None."""
    if clusters is None:
        return None
    if hasattr(clusters, "get_params") or hasattr(clusters, "fit"):
        if not hasattr(clusters, "labels_"):
            raise ValueError(f"clusters: this {type(clusters).__name__} is not fitted (no "
                             "labels_); fit it first or pass the labels")
        fitted_on = getattr(clusters, "node_ids_", None)
        if fitted_on is not None and (len(fitted_on) != hg.n_nodes or not np.array_equal(
                np.asarray(fitted_on, dtype=object), np.asarray(hg.node_ids, dtype=object))):
            raise ValueError("clusters: the estimator was fitted on other nodes (its node_ids_ "
                             "differ from this hypergraph's node_ids)")
        clusters = clusters.labels_
    values = np.asarray(clusters)
    if values.ndim != 1:
        raise ValueError(f"clusters has shape {values.shape}, expected ({hg.n_nodes},)")
    if values.shape[0] != hg.n_nodes:
        raise ValueError(f"clusters has length {values.shape[0]}, expected one per node "
                         f"({hg.n_nodes})")
    if values.size and values.dtype.kind not in "iu":
        if values.dtype.kind != "f" or not np.all(np.isfinite(values)) or \
                not np.all(values == np.round(values)):
            raise ValueError(f"clusters must be integers, got dtype {values.dtype}")
    return values.astype(np.int64)
