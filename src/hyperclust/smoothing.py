"""Smoothing of node features with a hypergraph Laplacian scaled to unit largest eigenvalue:
resolvent ``(I + tau L)^-1 X`` or heat ``exp(-tau L) X``.
"""

from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator

from .operators.encodings import encoding_affinity, encoding_operator
from .hypergraph import Hypergraph

__all__ = ["SMOOTHING_KINDS", "laplacian_operator", "smooth_features"]

#: ``"resolvent"``: ``(I + tau L)^-1 X`` (Tikhonov); ``"heat"``: ``exp(-tau L) X``.
SMOOTHING_KINDS = ("resolvent", "heat")


def laplacian_operator(hypergraph: Hypergraph, operator: str = "collapsed-cells",
                       eps: float | None = None) -> LinearOperator:
    """The Laplacian named ``operator`` as a symmetric PSD ``LinearOperator`` of shape (n, n).

    Names as :func:`~hyperclust.operators.encodings.laplacian_spectrum` takes them.

    Examples
    --------
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [2, 3]])
    >>> L = laplacian_operator(hg, "zhou")
    >>> np.round(L @ np.sqrt(hg.weighted_degrees), 12) + 0.0
    array([0., 0., 0., 0.])
    """
    from .operators.components import NormalizedAffinityApply
    from .operators.registry import OPERATORS

    n = hypergraph.n_nodes
    op = encoding_operator(hypergraph, operator, eps)
    if "affinity" not in OPERATORS[operator].protocols:
        return op
    M, d = encoding_affinity(hypergraph, operator, eps)
    N = NormalizedAffinityApply(M, d)

    def matmat(X):
        X = np.asarray(X, dtype=np.float64)
        return X - N(X)
    return LinearOperator((n, n), matvec=lambda v: matmat(np.reshape(v, (-1, 1))).ravel(),
                          matmat=matmat, rmatvec=lambda v: matmat(np.reshape(v, (-1, 1))).ravel(),
                          dtype=np.float64)


def smooth_features(hypergraph: Hypergraph, features=None, kind: str = "resolvent",
                    tau: float = 1.0, operator: str = "collapsed-cells", eps: float | None = None,
                    tol: float = 1e-8) -> np.ndarray:
    """``(I + tau L')^-1 X`` or ``exp(-tau L') X``, ``L'`` the Laplacian scaled to unit norm.

    Parameters
    ----------
    hypergraph : Hypergraph
    features : ndarray or sparse, shape (n_nodes, d), optional
        Default: ``hypergraph.features``; the result is dense.
    kind : {"resolvent", "heat"}
    tau : float, >= 0
    operator : str, default "collapsed-cells"
        A name of :func:`~hyperclust.operators.encodings.encoding_operator_names`.
    eps : float, optional
    tol : float
        Block CG relative residual (resolvent) or Chebyshev cut-off (heat).

    Returns
    -------
    ndarray, shape (n_nodes, d)

    Examples
    --------
    Constants are in the null space of every unnormalized Laplacian, so they do not move:

    >>> hg = Hypergraph.from_edges([[0, 1, 2], [2, 3]])
    >>> np.round(smooth_features(hg, np.ones((4, 1)), tau=5.0).ravel(), 8).tolist()
    [1.0, 1.0, 1.0, 1.0]
    """
    from .operators.collapsed_iterative import pcg_columns
    from .operators.diffusion import heat_diffusion, spectral_upper_bound

    if kind not in SMOOTHING_KINDS:
        raise ValueError(f"kind must be one of {SMOOTHING_KINDS}, got {kind!r}")
    if isinstance(tau, bool) or not isinstance(tau, numbers.Real) or not np.isfinite(tau) or tau < 0:
        raise ValueError(f"tau must be a non-negative number, got {tau!r}")
    X = hypergraph.features if features is None else features
    if X is None:
        raise ValueError("smoothing needs node features: the hypergraph has none")
    X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] != hypergraph.n_nodes:
        raise ValueError(f"features must have shape (n_nodes={hypergraph.n_nodes}, d), got {X.shape}")
    L = laplacian_operator(hypergraph, operator, eps)
    lam = max(float(spectral_upper_bound(L)), 1e-300)
    if kind == "heat":
        return heat_diffusion(L, X, t=float(tau) / lam, tol=tol, lambda_max=lam)
    scale = float(tau) / lam
    Y, _, ok = pcg_columns(lambda V: V + scale * np.asarray(L @ V), X, np.ones(X.shape[0]),
                           tol, 10 * X.shape[0] + 100)
    if not ok:
        raise RuntimeError(f"conjugate gradients did not reach tol={tol}")
    return Y
