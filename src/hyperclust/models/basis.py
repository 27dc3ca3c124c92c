"""Polynomial bases ``[T_0(P) X, ..., T_K(P) X]`` of a propagation operator, and named filters."""

from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp

from ..operators.propagation import PROPAGATION_DTYPES, check_dtype

__all__ = ["BASES", "FAMILIES", "family_coefficients", "polynomial_basis", "basis_response", "feature_neighbors",
           "borrow_for_isolated"]

BASES = ("power", "laplacian", "chebyshev")


def _check_order(order) -> int:
    if isinstance(order, bool) or not isinstance(order, numbers.Integral) or order < 0:
        raise ValueError(f"order must be a non-negative integer, got {order!r}")
    return int(order)


def polynomial_basis(operator, X, order: int, kind: str = "power", dtype=None,
                     scale=1) -> np.ndarray:
    """Stack ``T_k(P) X`` for ``k = 0..order``.

    Parameters
    ----------
    operator : LinearOperator, shape (n, n)
        The propagation operator ``P`` (eigenvalues in [0, 1]).
    X : ndarray or sparse matrix, shape (n, d)
    order : int
        Highest order ``K``.
    kind : {"power", "laplacian", "chebyshev"}, default "power"
        ``T_k = P^k``, ``(I - P)^k``, or the Chebyshev polynomials of ``2P - I``.
    dtype : {None, float32, float64}
        Of the result; default the operator's dtype (float64 for another type).
    scale : float, default 1
        The basis is that of ``X / scale`` (no copy of ``X``).

    Returns
    -------
    ndarray, shape (order + 1, n, d)

    Raises
    ------
    ValueError
        For a negative ``order``, an unknown ``kind`` or ``X`` of the wrong shape.

    Examples
    --------
    >>> from hyperclust import Hypergraph
    >>> from hyperclust.operators import PropagationOperator
    >>> P = PropagationOperator(Hypergraph.from_edges([[0, 1, 2], [2, 3]]))
    >>> B = polynomial_basis(P, np.eye(4), order=2)
    >>> B.shape, np.allclose(B[2], P.matmat(P.matmat(np.eye(4))))
    ((3, 4, 4), True)
    """
    order = _check_order(order)
    if kind not in BASES:
        raise ValueError(f"kind must be one of {BASES}, got {kind!r}")
    if dtype is None:
        op_dtype = np.dtype(getattr(operator, "dtype", np.float64))
        dtype = check_dtype(op_dtype if op_dtype in PROPAGATION_DTYPES else np.float64)
    else:
        dtype = check_dtype(dtype)
    X0 = X.toarray() if sp.issparse(X) else np.asarray(X)
    if X0.ndim != 2 or X0.shape[0] != operator.shape[0]:
        raise ValueError(f"X must have shape ({operator.shape[0]}, d), got {X0.shape}")
    out = np.empty((order + 1,) + X0.shape, dtype)
    np.divide(X0, scale, out=out[0])
    fast = hasattr(operator, "apply") and hasattr(operator, "workspace") \
        and np.dtype(operator.dtype) == dtype
    work = np.empty((operator.n_edges, X0.shape[1]), dtype) if fast and order else None
    for k in range(1, order + 1):
        prev, cur = out[k - 1], out[k]
        if fast:
            operator.apply(prev, out=cur, work=work)
        else:
            cur[...] = operator.matmat(prev)
        if kind == "laplacian":  # (I - P) prev
            np.subtract(prev, cur, out=cur)
        elif kind == "chebyshev":  # S = 2P - I: T_1 = S X, T_{k+1} = 2 S T_k - T_{k-1}
            cur *= 2
            cur -= prev
            if k > 1:
                cur *= 2
                cur -= out[k - 2]
    return out


def basis_response(lambdas, order: int, kind: str = "power") -> np.ndarray:
    """Values of the basis polynomials at Laplacian eigenvalues ``lambda`` (``P = 1 - lambda``).

    Parameters
    ----------
    lambdas : array-like, shape (t,)
    order : int
    kind : {"power", "laplacian", "chebyshev"}, default "power"

    Returns
    -------
    ndarray, shape (order + 1, t)
        Row ``k`` is ``T_k(1 - lambda)``: ``sum_k gamma_k T_k(P)`` responds ``gamma @ it``.

    Examples
    --------
    >>> basis_response([0.0, 0.5, 1.0], order=2).tolist()
    [[1.0, 1.0, 1.0], [1.0, 0.5, 0.0], [1.0, 0.25, 0.0]]
    >>> basis_response([0.0, 0.5, 1.0], order=2, kind="chebyshev").tolist()
    [[1.0, 1.0, 1.0], [1.0, 0.0, -1.0], [1.0, -1.0, 1.0]]
    """
    order = _check_order(order)
    if kind not in BASES:
        raise ValueError(f"kind must be one of {BASES}, got {kind!r}")
    lam = np.asarray(lambdas, dtype=np.float64).reshape(-1)
    p = 1.0 - lam
    out = np.empty((order + 1, lam.size))
    out[0] = 1.0
    for k in range(1, order + 1):
        if kind == "power":
            out[k] = out[k - 1] * p
        elif kind == "laplacian":
            out[k] = out[k - 1] * lam
        else:
            s = 2.0 * p - 1.0
            out[k] = s * out[k - 1] if k == 1 else 2.0 * s * out[k - 1] - out[k - 2]
    return out


def feature_neighbors(X, queries: np.ndarray, candidates: np.ndarray, n_neighbors: int,
                      chunk_size: int | None = None, scale=1) -> np.ndarray:
    """Exact cosine nearest neighbours of the ``queries`` rows of ``X`` among ``candidates``.

    Parameters
    ----------
    X : ndarray, shape (n, d)
    queries, candidates : ndarray of int, shapes (q,) and (c,)
    n_neighbors : int
        Clipped to ``c``.
    chunk_size : int, optional
        Queries per chunk; default keeps a chunk's similarities under 2 ** 22 entries.
    scale : float, default 1
        Search ``X[rows] / scale``.

    Returns
    -------
    ndarray of int, shape (q, min(n_neighbors, c))
        Node ids, nearest first (ties by node id).

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [0.1, 0.9]])
    >>> feature_neighbors(X, np.array([0, 3]), np.array([1, 2]), n_neighbors=1).tolist()
    [[1], [2]]
    """
    from ..operators.knn import exact_cosine_neighbors

    if chunk_size is None:
        chunk_size = max(1, 2 ** 22 // max(1, len(candidates)))
    # only the rows searched (the search normalises every row it is given); positions in
    # the sorted rows keep the ids' order, hence the same ties
    rows, positions = np.unique(np.concatenate([queries, candidates]), return_inverse=True)
    idx, _ = exact_cosine_neighbors(np.asarray(X[rows] / scale, dtype=np.float64), n_neighbors,
                                    queries=positions[:len(queries)],
                                    candidates=positions[len(queries):], exclude_self=False,
                                    chunk_size=chunk_size, backend="dense",
                                    tie_break="partition")
    return rows[idx]


def borrow_for_isolated(basis: np.ndarray, isolated: np.ndarray,
                        neighbors: np.ndarray) -> np.ndarray:
    """Set an isolated node's terms of order ``k >= 1`` to ``(B[k, i] + mean_N(i) B[k]) / 2``.

    ``N(i)`` are its nearest connected nodes in feature space (propagation never reaches it);
    order 0 and connected nodes are untouched.

    Parameters
    ----------
    basis : ndarray, shape (K+1, n, d)
        Modified in place and returned.
    isolated : ndarray of int, shape (q,)
    neighbors : ndarray of int, shape (q, r)
        Rows from :func:`feature_neighbors`.

    Examples
    --------
    >>> B = np.array([[[1.0], [2.0], [3.0]], [[10.0], [20.0], [3.0]]])
    >>> borrow_for_isolated(B, np.array([2]), np.array([[0]]))[:, :, 0].tolist()
    [[1.0, 2.0, 3.0], [10.0, 20.0, 6.5]]
    """
    isolated = np.asarray(isolated, dtype=np.int64)
    if isolated.size == 0 or neighbors.shape[1] == 0:
        return basis
    for k in range(1, basis.shape[0]):  # loop over the K orders, not over nodes
        borrowed = basis[k][neighbors].mean(axis=1)
        basis[k, isolated] = 0.5 * (basis[k, isolated] + borrowed)
    return basis


FAMILIES = ("low-pass", "identity", "high-pass", "uniform")
"""Named fixed filters (:func:`family_coefficients`)."""


def _family_power(family: str, order: int) -> np.ndarray:
    """Coefficients of a named filter in the power basis ``P^0..P^order``."""
    g = np.zeros(order + 1)
    if family == "low-pass":
        g[min(2, order)] = 1.0  # P^2 X: the most reliable fixed filter on real data
    elif family == "identity":
        g[0] = 1.0
    elif family == "high-pass":
        if order < 1:
            raise ValueError("a high-pass filter needs order >= 1")
        g[0], g[1] = 1.0, -1.0  # (I - P) X
    elif family == "uniform":
        g[:] = 1.0 / (order + 1)
    else:
        raise ValueError(f"unknown filter family {family!r}; expected one of {FAMILIES}")
    return g


def family_coefficients(family: str, order: int, basis: str = "power") -> np.ndarray:
    """Coefficients gamma, shape (order + 1,), of a :data:`FAMILIES` filter in ``basis``.

    Examples
    --------
    >>> family_coefficients("high-pass", 2).tolist()
    [1.0, -1.0, 0.0]
    """
    g = _family_power(family, order)
    if basis == "power":
        return g
    lam = np.linspace(0.0, 1.0, 4 * (order + 1))
    target = g @ basis_response(lam, order, "power")
    A = basis_response(lam, order, basis).T
    coef, *_ = np.linalg.lstsq(A, target, rcond=None)
    return coef
