"""Label-free homophily test: is the input smoother on the hypergraph than its row-permuted copies?

Strongly negative z (:func:`smoothness_zscore`) = homophily, positive = heterophily.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["smoothness_quotient", "smoothness_zscore", "choose_family"]


def smoothness_quotient(operator, X) -> float:
    """``tr(Xc^T (I - P) Xc) / tr(Xc^T Xc)``, ``Xc`` the column-centred ``X``; 0 if constant.

    Parameters
    ----------
    operator : LinearOperator, shape (n, n)
        Propagation operator ``P``.
    X : ndarray or sparse, shape (n, d)

    Examples
    --------
    >>> from hyperclust import Hypergraph
    >>> from hyperclust.operators import PropagationOperator
    >>> P = PropagationOperator(Hypergraph.from_edges([[0, 1, 2], [3, 4, 5]]))
    >>> abs(smoothness_quotient(P, np.array([[0.0], [0], [0], [1], [1], [1]]))) < 1e-12
    True
    >>> round(smoothness_quotient(P, np.array([[0.0], [1], [0], [1], [0], [1]])), 4)
    0.4444
    """
    X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=np.float64)
    Xc = X - X.mean(axis=0)
    den = float(np.sum(Xc * Xc))
    if den <= 0:
        return 0.0
    return float(den - np.sum(Xc * operator.matmat(Xc))) / den


def smoothness_zscore(operator, X, n_permutations: int = 20, random_state=0) -> float:
    """z-score of :func:`smoothness_quotient` against row-permuted copies of ``X`` (0.0 when
    the permuted quotients do not vary, e.g. constant ``X``).

    Parameters
    ----------
    operator : LinearOperator, shape (n, n)
    X : ndarray or sparse, shape (n, d)
    n_permutations : int, default 20
    random_state : int, default 0

    Raises
    ------
    ValueError
        If ``n_permutations < 2``.

    Examples
    --------
    >>> from hyperclust import Hypergraph
    >>> from hyperclust.operators import PropagationOperator
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10, 11]])
    >>> X = np.repeat(np.arange(4.0), 3)[:, None]
    >>> z = smoothness_zscore(PropagationOperator(hg), X, n_permutations=10)
    >>> z < -2
    True
    >>> choose_family(z)
    'low-pass'
    """
    if n_permutations < 2:
        raise ValueError(f"n_permutations must be >= 2, got {n_permutations}")
    X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=np.float64)
    rng = np.random.default_rng(random_state)
    r = smoothness_quotient(operator, X)
    n, d = X.shape
    orders = [rng.permutation(n) for _ in range(int(n_permutations))]
    Xc = X - X.mean(axis=0)
    # a row permutation keeps every column's sum of squares: one denominator for all copies
    den = float(np.sum(Xc * Xc))
    # permuted copies side by side: one wider product amortises reading P
    group = max(1, 128 // max(1, d))
    block_dtype = getattr(operator, "dtype", np.float64)
    block_dtype = block_dtype if np.dtype(block_dtype) in (np.float32, np.float64) else np.float64
    # x^T P x per column through the operator's factor when it has one (one product, not two)
    forms = getattr(operator, "column_quadratic_forms", None)
    Xs = Xc.astype(block_dtype, copy=False)
    perm = []
    for start in range(0, len(orders), group):
        chunk = orders[start:start + group]
        block = np.empty((n, len(chunk), d), dtype=block_dtype)
        for j, o in enumerate(chunk):
            np.take(Xs, o, axis=0, out=block[:, j], mode="clip")  # = Xs[o], unbuffered
        block = block.reshape(n, len(chunk) * d)
        if forms is not None:
            per_column = forms(block)
        else:
            per_column = np.einsum("ij,ij->j", block, operator.matmat(block), dtype=np.float64)
        for num in per_column.reshape(len(chunk), d).sum(axis=1):
            perm.append(0.0 if den <= 0 else float(den - num) / den)
    perm = np.array(perm)
    sd = perm.std(ddof=1)
    if not np.isfinite(sd) or sd <= 1e-12:
        return 0.0
    return float((r - perm.mean()) / sd)


def choose_family(z: float, threshold: float = 2.0) -> str:
    """``"high-pass"`` if ``z > threshold``, ``"low-pass"`` if ``z < -threshold``, else identity.

    Examples
    --------
    >>> [choose_family(z) for z in (-5.0, 0.3, 2.5)]
    ['low-pass', 'identity', 'high-pass']
    """
    if z > threshold:
        return "high-pass"
    if z < -threshold:
        return "low-pass"
    return "identity"
