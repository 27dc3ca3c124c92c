"""Smallest eigenpairs of :class:`~hyperclust.operators.CoboundaryCollapsed` on every route: the
null space (one indicator per component of the clique expansion) written down, the rest per
component by :func:`~hyperclust.operators.components.nonzero_eigenpairs`.
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from ..runtime.progress import elapsed_bar
from .blockwise import shift_invert_solver
from .components import ComponentLayout, canonical_signs, nonzero_eigenpairs, null_basis

__all__ = ["clique_components", "coboundary_spectrum", "coboundary_eigenpairs"]


def clique_components(Hq) -> np.ndarray:
    """Component label of every node in the clique expansion of the hyperedges ``Hq`` (n x m_q).

    Examples
    --------
    >>> H = sp.csr_matrix(np.array([[1.0, 0], [1, 0], [0, 1], [0, 1], [0, 0]]))
    >>> clique_components(H).tolist()
    [0, 0, 1, 1, 2]
    """
    n = Hq.shape[0]
    bip = sp.bmat([[None, sp.csr_matrix(Hq)], [sp.csr_matrix(Hq).T, None]], format="csr")
    _, comp = connected_components(bip, directed=False)
    return comp[:n]


def coboundary_spectrum(op, r: int, sigma: float | None = None, tol: float | None = None,
                        random_state=0):
    """``(null, values, vectors)``: the orthonormal component indicators (CSC, (n, c)) and the ``r``
    smallest nonzero eigenpairs of ``op``, ascending, sign-fixed.

    Examples
    --------
    >>> from hyperclust import Hypergraph
    >>> from hyperclust.operators import CoboundaryCollapsed
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [3, 4]], n_nodes=6)
    >>> null, vals, vecs = coboundary_spectrum(CoboundaryCollapsed(hg), 2)
    >>> null.shape, vals.shape, bool(np.all(vals > 0)), vecs.shape
    ((6, 3), (2,), True, (6, 2))
    """
    n = op.shape[0]
    labels = clique_components(op._Hq)
    layout = ComponentLayout(labels)
    Q, _ = null_basis(layout, np.ones(n))
    if not 0 <= r <= n - Q.shape[1]:
        raise ValueError(f"r={r} nonzero eigenpairs asked for; {n - Q.shape[1]} exist")
    if r == 0:
        return Q, np.zeros(0), np.zeros((n, 0))
    if op._iterative is not None:
        c = op._iterative.n_components
        vals, V = op._iterative.smallest_eigenpairs(c + r, tol=1e-5 if tol is None else tol,
                                                    random_state=random_state)
        vals, V = vals[c:], canonical_signs(V[:, c:])
    else:
        with elapsed_bar(f"S_eps {op.method} eigenpairs"):
            vals, V = _listed_eigenpairs(op, layout, r, sigma, tol, random_state)
    if vals.size and vals.min() < -1e-8 * max(1.0, float(np.abs(vals).max())):
        warnings.warn(f"S_eps has an eigenvalue {vals.min():.3g} < 0: it is indefinite with "
                      f"gamma={[op.g0, op.g1]}, eps={op.eps}", UserWarning, stacklevel=3)
    return Q, vals, V


def _listed_eigenpairs(op, layout, r, sigma, tol, random_state):
    """The ``r`` smallest nonzero eigenpairs on the dense or the factored route."""
    n = op.shape[0]
    if op._dense is not None:
        D = op._dense
        return nonzero_eigenpairs(lambda X: D @ X, layout, np.ones(n), r,
                                  extract=lambda m: D[m[:, :, None], m[:, None, :]])
    if sigma is None:
        sigma = -1e-3 * max(float(np.abs(op._delta).mean()) * op.b1, 1e-12)
    solver = shift_invert_solver(lambda: op._system(sigma), sigma,
                                 1e-10 if tol is None else tol, random_state)
    return nonzero_eigenpairs(op._matmat, layout, np.ones(n), r, large_solver=solver)


def coboundary_eigenpairs(op, k: int, sigma: float | None = None, tol: float | None = None,
                          random_state=0):
    """The ``k`` smallest eigenpairs of ``op``: see :meth:`CoboundaryCollapsed.smallest_eigenpairs`.

    Examples
    --------
    >>> from hyperclust import Hypergraph
    >>> from hyperclust.operators import CoboundaryCollapsed
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [3, 4]], n_nodes=6)
    >>> vals, vecs = coboundary_eigenpairs(CoboundaryCollapsed(hg), 4)
    >>> vals[:3].tolist(), np.round(vecs[:, 2], 4).tolist()
    ([0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 1.0])
    """
    n = op.shape[0]
    if not 0 < k < n:
        raise ValueError(f"k={k} must be in [1, {n - 1}] (smaller than the number of vertices)")
    labels = clique_components(op._Hq)
    c = int(np.unique(labels).size)
    Q, vals, V = coboundary_spectrum(op, max(k - c, 0), sigma, tol, random_state)
    if k <= c:
        return np.zeros(k), Q[:, :k].toarray()
    vals, V = np.concatenate([np.zeros(c), vals]), np.hstack([Q.toarray(), V])
    order = np.argsort(vals, kind="stable")   # an indefinite S_eps puts values below 0
    return vals[order], V[:, order]
