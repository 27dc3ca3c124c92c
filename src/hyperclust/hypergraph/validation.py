"""Checks of what a ``Hypergraph`` holds: weights, features, labels, names, the node count."""

from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp

from .ids import _as_int_array, _freeze_sparse, _frozen

__all__ = ["check_weights", "check_features", "check_labels", "check_names", "infer_n_nodes"]

#: Above this many nodes implied by the largest integer id, a sparse id set is an error
#: (one id of 1e8 would otherwise allocate gigabytes of empty rows).
_MAX_IMPLIED_NODES = 1_000_000
#: Largest sum of hyperedge weights: degrees, their square roots and products stay far
#: from the float64 limit (1.8e308), so every method computes the same clustering as for
#: weights rescaled to a mean of 1.
_MAX_TOTAL_WEIGHT = 1e100


def check_weights(weights, m):
    """Hyperedge weights as a new float64 array of shape (m,), positive and finite; ones when None.

    Examples
    --------
    >>> check_weights(None, 2).tolist(), check_weights([1, 2.5], 2).tolist()
    ([1.0, 1.0], [1.0, 2.5])
    >>> check_weights([1.0, 0.0], 2)
    Traceback (most recent call last):
    ...
    ValueError: weights must be positive; hyperedge 1 has weight 0.0 (1 non-positive in all)
    """
    if weights is None:
        return np.ones(m)
    w = np.array(weights, dtype=np.float64).reshape(-1)
    if w.shape[0] != m:
        raise ValueError(f"weights has length {w.shape[0]}, expected one per hyperedge ({m})")
    bad = np.flatnonzero(~np.isfinite(w))
    if bad.size:
        raise ValueError(f"weights contain NaN/inf (hyperedge {bad[0]}: {w[bad[0]]})")
    bad = np.flatnonzero(w <= 0)
    if bad.size:
        raise ValueError(f"weights must be positive; hyperedge {bad[0]} has weight {w[bad[0]]} "
                         f"({bad.size} non-positive in all)")
    total = float(np.sum(w / _MAX_TOTAL_WEIGHT))  # scaled first: the plain sum may overflow
    if total > 1.0:
        raise ValueError(f"weights sum to more than {_MAX_TOTAL_WEIGHT:g} (largest "
                         f"{w.max():.3g}): node degrees and their products would overflow; "
                         "rescale the weights (e.g. divide by their mean)")
    return w


def check_features(features, n):
    """Node features as a read-only float ndarray or CSR of shape (n, n_features), or None.

    Examples
    --------
    >>> check_features([1, 2, 3], 3).shape
    (3, 1)
    >>> check_features([[True], [False]], 2).tolist()
    [[1.0], [0.0]]
    """
    if features is None:
        return None
    if getattr(features, "dtype", None) is not None and features.dtype.kind == "c":
        raise TypeError("features are complex numbers; give real ones (e.g. the real and "
                        "imaginary parts as two columns each)")
    if sp.issparse(features):
        X = sp.csr_matrix(features, dtype=np.float64 if features.dtype.kind != "f" else features.dtype,
                          copy=True)
        if X.ndim != 2:
            raise ValueError("features must be 2-dimensional")
        data = X.data
    else:
        X = np.array(features, copy=True)
        if X.dtype == bool:
            X = X.astype(np.float64)  # True/False features are 1/0
        if X.dtype.kind == "c":
            return check_features(X, n)
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

def check_labels(labels, n):
    """Labels as a read-only int64 array (negative = unlabelled), or None; names become ``0..k-1``
    in sorted order.

    Examples
    --------
    >>> check_labels([0.0, 1.0, -1.0], 3).tolist()
    [0, 1, -1]
    >>> check_labels(["b", "a", "b"], 3).tolist()
    [1, 0, 1]
    """
    if labels is None:
        return None
    raw = np.asarray(labels)
    if raw.dtype.kind in "OU" and raw.size and all(isinstance(v, str) for v in raw.tolist()):
        y = np.unique(raw.astype(str), return_inverse=True)[1].reshape(-1).astype(np.int64)
    else:
        y = _as_int_array(labels, "labels")
    if y.shape[0] != n:
        raise ValueError(f"labels has length {y.shape[0]}, expected one per node ({n})")
    return _frozen(y)

def check_names(names, count, what):
    """Names as a tuple of ``count`` strings, or None.

    Examples
    --------
    >>> check_names([1, "b"], 2, "node_names")
    ('1', 'b')
    """
    if names is None:
        return None
    names = [str(s) for s in names]
    if len(names) != count:
        raise ValueError(f"{what} has length {len(names)}, expected {count}")
    return tuple(names)


def infer_n_nodes(n_nodes, v, features, labels, node_names):
    """``(number of nodes, where it comes from)``: ``n_nodes`` when given, else the rows of
    labels, node names or features, else the largest node id + 1.

    Examples
    --------
    >>> import numpy as np
    >>> infer_n_nodes(None, np.array([0, 3]), None, [0, 1, 0, 1], None)
    (4, 'the length of labels')
    """
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
