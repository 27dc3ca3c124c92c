"""Extreme eigenpairs of a symmetric operator block diagonal over known components, solved
component by component (every copy of a repeated eigenvalue returned); a component's known
extreme eigenvector is written down once one product confirms it.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator, eigsh

from .components import DENSE_COMPONENT_MAX, ComponentLayout, nonzero_eigenpairs, null_basis

__all__ = ["verified_null", "blockwise_smallest", "restricted_lanczos_solver",
           "shift_invert_solver", "row_components"]


def verified_null(apply, layout: ComponentLayout, weights, rtol: float = 1e-8):
    """Keep the per-component vectors ``weights`` only where they are eigenvectors of the operator.

    A component's unit vector ``q`` counts when ``||A q - rho q|| <= rtol * max(1, |rho|)``,
    ``rho = q^T A q``.

    Returns
    -------
    weights : ndarray, shape (n,), zero where not eigenvectors
    rho : ndarray, shape (n_components,), the Rayleigh quotients (0 where no vector)

    Examples
    --------
    >>> L = np.array([[1.0, -1, 0], [-1, 1, 0], [0, 0, 2]])
    >>> w, rho = verified_null(lambda X: L @ X, ComponentLayout([0, 0, 1]), np.ones(3))
    >>> w.tolist(), rho.tolist()
    ([1.0, 1.0, 1.0], [0.0, 2.0])
    """
    w = np.asarray(weights, dtype=np.float64).reshape(-1)
    Q, has = null_basis(layout, w)
    q = np.asarray(Q.sum(axis=1)).ravel()      # each component's unit vector, one product
    Aq = np.ravel(apply(q[:, None]))
    c = layout.n_components
    rho = np.bincount(layout.labels, weights=q * Aq, minlength=c)
    res = np.sqrt(np.bincount(layout.labels, weights=(Aq - rho[layout.labels] * q) ** 2,
                              minlength=c))
    ok = has & (res <= rtol * np.maximum(1.0, np.abs(rho)))
    return np.where(ok[layout.labels], w, 0.0), np.where(ok, rho, 0.0)


def blockwise_smallest(apply, layout: ComponentLayout, weights, k: int, large_solver=None,
                       dense_max: int = DENSE_COMPONENT_MAX, extract=None):
    """The ``k`` smallest eigenpairs of a symmetric operator block diagonal over ``layout``.

    Vectors confirmed by :func:`verified_null` are taken, the rest computed on their complement
    (parameters as in :func:`~hyperclust.operators.components.nonzero_eigenpairs`).

    Returns
    -------
    values : ndarray, shape (k,), ascending (ties: known vectors first)
    vectors : ndarray, shape (n, k), each on one component, sign-fixed

    Examples
    --------
    >>> L = np.kron(np.eye(3), [[1.0, -1.0], [-1.0, 1.0]])
    >>> vals, V = blockwise_smallest(lambda X: L @ X, ComponentLayout([0, 0, 1, 1, 2, 2]),
    ...                              np.ones(6), 4)
    >>> np.round(vals, 12).tolist(), (np.round(V[:, 3], 4) + 0.0).tolist()
    ([0.0, 0.0, 0.0, 2.0], [0.7071, -0.7071, 0.0, 0.0, 0.0, 0.0])
    """
    w, rho = verified_null(apply, layout, weights)
    Q, has = null_basis(layout, w)
    c0 = Q.shape[1]
    r = min(int(k), layout.n - c0)
    if r > 0:
        vals, V = nonzero_eigenpairs(apply, layout, w, r, large_solver, dense_max, extract)
    else:
        vals, V = np.zeros(0), np.zeros((layout.n, 0))
    every = np.concatenate([rho[has], vals])
    order = np.argsort(every, kind="stable")[:k]
    known = order[order < c0]
    out = np.empty((layout.n, order.size))
    out[:, order < c0] = Q[:, known].toarray()
    out[:, order >= c0] = V[:, order[order >= c0] - c0]
    return every[order], out


def restricted_lanczos_solver(apply, n: int, tol: float, random_state, maxiter=None, ncv=None):
    """``(nodes, m, q) -> (values, vectors)``: the ``m`` smallest eigenpairs of the operator
    restricted to ``nodes``, orthogonal to the unit vector ``q`` (or None), by Lanczos.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> path = sp.diags([[-1.0] * 5, [-1.0] * 5], [-1, 1]).tolil()
    >>> path.setdiag(-np.asarray(path.sum(axis=1)).ravel())
    >>> L = sp.block_diag([path, path]).tocsr()  # two paths of 6 nodes
    >>> q = np.full(6, 6 ** -0.5)  # each component's null vector
    >>> solve = restricted_lanczos_solver(lambda X: L @ X, 12, tol=1e-12, random_state=0)
    >>> vals, V = solve(np.arange(6, 12), 2, q)  # the path's 2 - 2 cos(pi j / 6), j = 1, 2
    >>> np.round(vals, 6), V.shape
    (array([0.267949, 1.      ]), (6, 2))
    """
    rng = np.random.default_rng(random_state)

    def solve(nodes, m, q):
        pad = np.zeros((n, 1))

        def matvec(v):
            pad[:] = 0.0
            pad[nodes, 0] = np.ravel(v)
            return np.ravel(apply(pad))[nodes]
        s = nodes.size
        extra = 0 if q is None else 1
        OP = LinearOperator((s, s), matvec=matvec, dtype=np.float64)
        vals, V = eigsh(OP, k=m + extra, which="SA", tol=tol, v0=rng.standard_normal(s),
                        maxiter=maxiter, ncv=ncv)
        order = np.argsort(vals, kind="stable")
        vals, V = vals[order], V[:, order]
        if q is not None:
            keep = np.arange(m + 1) != np.argmax(np.abs(q @ V))
            vals, V = vals[keep], V[:, keep] - np.outer(q, q @ V[:, keep])
            V /= np.linalg.norm(V, axis=0)
        return vals, V
    return solve


def shift_invert_solver(system, sigma: float, tol: float, random_state):
    """``(nodes, m, q) -> (values, vectors)``: the ``m`` eigenvalues nearest ``sigma`` on one
    component, orthogonal to ``q``, by Lanczos on ``(S - sigma I)^-1``.

    ``system()`` returns a sparse matrix whose solve with ``[v; 0]`` gives ``(S - sigma I)^-1 v``
    in its first ``n`` entries; one LU of it serves every component.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> path = sp.diags([[-1.0] * 5, [-1.0] * 5], [-1, 1]).tolil()
    >>> path.setdiag(-np.asarray(path.sum(axis=1)).ravel())
    >>> L = sp.block_diag([path, path]).tocsr()  # two paths of 6 nodes
    >>> q = np.full(6, 6 ** -0.5)  # each component's null vector
    >>> solve = shift_invert_solver(lambda: L + 0.1 * sp.identity(12), -0.1, tol=1e-12,
    ...                             random_state=0)
    >>> vals, V = solve(np.arange(6), 2, q)
    >>> np.round(vals, 6), V.shape
    (array([0.267949, 1.      ]), (6, 2))
    """
    from scipy.sparse.linalg import splu

    rng = np.random.default_rng(random_state)
    state = {}

    def solve(nodes, m, q):
        if "lu" not in state:
            state["lu"] = splu(sp.csc_matrix(system()))
        lu = state["lu"]
        pad = np.zeros(lu.shape[0])

        def deflate(v):
            return v if q is None else v - q * (q @ v)

        def opinv(v):
            pad[:] = 0.0
            pad[nodes] = deflate(np.ravel(v))
            return deflate(lu.solve(pad)[nodes])
        s = nodes.size
        OP = LinearOperator((s, s), matvec=opinv, dtype=np.float64)
        mu, V = eigsh(OP, k=m, which="LM", tol=tol, v0=deflate(rng.standard_normal(s)))
        vals = sigma + 1.0 / mu
        order = np.argsort(vals)
        return vals[order], V[:, order]
    return solve


def row_components(hypergraph, n_rows: int) -> np.ndarray:
    """Component labels of an operator's rows: the nodes' components, then (for ``n_rows`` past the
    nodes) each hyperedge in its nodes' component (an empty one on its own).

    Examples
    --------
    >>> from hyperclust import Hypergraph
    >>> hg = Hypergraph.from_edges([[0, 1], [2, 3]], n_nodes=5)
    >>> row_components(hg, 5).tolist(), row_components(hg, 7).tolist()[5:]
    ([0, 0, 1, 1, 2], [0, 1])
    """
    n_comp, labels = hypergraph.connected_components()
    extra = n_rows - hypergraph.n_nodes
    if extra <= 0:
        return np.asarray(labels)
    Ht = sp.csr_matrix(hypergraph.incidence_t)
    first = Ht.indices[np.minimum(Ht.indptr[:-1], max(Ht.nnz - 1, 0))] if Ht.nnz else np.zeros(extra, dtype=np.int64)
    empty = np.diff(Ht.indptr) == 0
    edge_labels = np.where(empty, n_comp + np.cumsum(empty) - 1, np.asarray(labels)[first])
    return np.concatenate([labels, edge_labels])
