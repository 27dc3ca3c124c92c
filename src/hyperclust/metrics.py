"""Clustering quality against ground-truth labels: ACC, NMI, ARI, macro-F1. Any number of
clusters; ACC and F1 match clusters to classes one-to-one (Hungarian); negative labels are
unlabelled and ignored.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linear_sum_assignment
from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score

__all__ = ["contingency", "acc", "nmi", "ari", "f1_macro", "evaluate", "match_clusters"]


def _check(y_true, y_pred):
    y_true = np.asarray(y_true).reshape(-1)
    y_pred = np.asarray(y_pred).reshape(-1)
    if y_true.shape != y_pred.shape:
        raise ValueError(f"y_true and y_pred have different lengths ({y_true.size} != {y_pred.size})")
    if y_true.dtype.kind not in "biuf":  # names: every node is labelled
        return y_true, y_pred
    keep = y_true >= 0
    if not keep.any():
        raise ValueError("no labelled node to evaluate (all labels are negative)")
    return y_true[keep], y_pred[keep]


def contingency(y_true, y_pred) -> np.ndarray:
    """Contingency table (n_classes, n_clusters) of (class, cluster) counts, sorted values.

    Examples
    --------
    >>> contingency([0, 0, 1, 1], [5, 7, 7, 7])
    array([[1., 1.],
           [0., 2.]])
    """
    _, t = np.unique(y_true, return_inverse=True)
    _, p = np.unique(y_pred, return_inverse=True)
    C = sp.coo_matrix((np.ones(t.size), (t, p)), shape=(t.max() + 1, p.max() + 1))
    return C.toarray()


def match_clusters(y_true, y_pred) -> dict:
    """Best one-to-one mapping {cluster value -> class value}; unmatched clusters are absent.

    Examples
    --------
    >>> m = match_clusters(["a", "a", "b", "b"], [1, 1, 0, 0])
    >>> sorted((int(c), str(label)) for c, label in m.items())
    [(0, 'b'), (1, 'a')]
    """
    y_true, y_pred = _check(y_true, y_pred)
    classes, clusters = np.unique(y_true), np.unique(y_pred)
    C = contingency(y_true, y_pred)
    rows, cols = linear_sum_assignment(-C)
    return {clusters[c]: classes[r] for r, c in zip(rows, cols)}


def acc(y_true, y_pred) -> float:
    """Accuracy after the best one-to-one matching of clusters to classes.

    Examples
    --------
    >>> acc([0, 0, 1, 1, 2], [1, 1, 0, 0, 0])     # node 4 lands in class 1's cluster
    0.8
    >>> acc([0, 1, -1], [3, 4, 3])                # label -1: unlabelled, ignored
    1.0
    """
    y_true, y_pred = _check(y_true, y_pred)
    C = contingency(y_true, y_pred)
    rows, cols = linear_sum_assignment(-C)
    return float(C[rows, cols].sum() / y_true.size)


def nmi(y_true, y_pred) -> float:
    """Normalized mutual information (arithmetic normalization).

    Examples
    --------
    >>> nmi([0, 0, 1, 1], [1, 1, 0, 0])           # a renaming of the classes
    1.0
    >>> round(nmi([0, 0, 1, 1], [0, 1, 0, 1]), 6) # independent of the classes
    0.0
    """
    y_true, y_pred = _check(y_true, y_pred)
    return float(normalized_mutual_info_score(y_true, y_pred, average_method="arithmetic"))


def ari(y_true, y_pred) -> float:
    """Adjusted Rand index.

    Examples
    --------
    >>> ari([0, 0, 1, 1], [1, 1, 0, 0])
    1.0
    >>> ari([0, 0, 1, 1], [0, 1, 0, 1])
    -0.5
    """
    y_true, y_pred = _check(y_true, y_pred)
    return float(adjusted_rand_score(y_true, y_pred))


def f1_macro(y_true, y_pred) -> float:
    """Macro-averaged F1 over classes after the best matching (unmatched class: F1 0).

    Examples
    --------
    >>> f1_macro([0, 0, 1, 1], [0, 0, 0, 0])      # class 1 unmatched: F1 0
    0.3333333333333333
    """
    y_true, y_pred = _check(y_true, y_pred)
    C = contingency(y_true, y_pred)
    rows, cols = linear_sum_assignment(-C)
    class_sizes = C.sum(axis=1)
    cluster_sizes = C.sum(axis=0)
    f1 = np.zeros(C.shape[0])
    tp = C[rows, cols]
    prec = np.divide(tp, cluster_sizes[cols], out=np.zeros_like(tp), where=cluster_sizes[cols] > 0)
    rec = tp / class_sizes[rows]
    denom = prec + rec
    f1[rows] = np.divide(2 * prec * rec, denom, out=np.zeros_like(denom), where=denom > 0)
    return float(f1.mean())


def evaluate(y_true, y_pred) -> dict:
    """All four metrics as a dict ``{"acc", "nmi", "ari", "f1"}`` (negative labels ignored).

    Examples
    --------
    >>> evaluate([0, 0, 1, 1], [1, 1, 0, 0])
    {'acc': 1.0, 'nmi': 1.0, 'ari': 1.0, 'f1': 1.0}
    """
    return {"acc": acc(y_true, y_pred), "nmi": nmi(y_true, y_pred),
            "ari": ari(y_true, y_pred), "f1": f1_macro(y_true, y_pred)}
