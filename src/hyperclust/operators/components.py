"""Smallest eigenpairs of a symmetric operator block diagonal over the connected components: the
null space written down (:func:`null_basis`), the others per component
(:func:`nonzero_eigenpairs`: small ones batched densely, large ones iteratively), so the result
does not depend on a seed (docs/collapsed-operators.md).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp


__all__ = ["ComponentLayout", "canonical_signs", "null_basis", "nonzero_eigenpairs", "smallest_with_null",
           "normalized_laplacian_spectrum", "affinity_null_weights", "NormalizedAffinityApply",
           "DENSE_COMPONENT_MAX"]

#: Components up to this size are solved densely (all at once, batched by size).
DENSE_COMPONENT_MAX = 400
#: Columns of the identity-like block applied at once when extracting dense blocks.
_CHUNK = 64


def canonical_signs(V, rtol: float = 1e-6) -> np.ndarray:
    """A copy of ``V`` (n, k) with each column's first entry of largest magnitude (within ``rtol``)
    positive.

    Examples
    --------
    >>> canonical_signs(np.array([[-0.7071067811865475, 1.0], [0.7071067811865476, -3.0]])).tolist()
    [[0.7071067811865475, -1.0], [-0.7071067811865476, 3.0]]
    """
    V = np.array(V, dtype=np.float64, copy=True)
    if V.size == 0:
        return V
    mag = np.abs(V)
    top = mag >= (1.0 - rtol) * mag.max(axis=0, keepdims=True)
    first = np.argmax(top, axis=0)
    signs = np.sign(V[first, np.arange(V.shape[1])])
    signs[signs == 0] = 1.0
    return V * signs


class ComponentLayout:
    """Components of the nodes: labels renumbered by first node, sizes, each node's position inside
    its component, and each component's nodes in node order.

    Parameters
    ----------
    labels : array-like of int, shape (n,)

    Examples
    --------
    >>> lay = ComponentLayout([2, 2, 0, 1, 0])
    >>> lay.labels.tolist(), lay.sizes.tolist(), lay.position.tolist()
    ([0, 0, 1, 2, 1], [2, 2, 1], [0, 1, 0, 0, 1])
    """

    def __init__(self, labels):
        labels = np.asarray(labels).reshape(-1)
        _, first, inverse = np.unique(labels, return_index=True, return_inverse=True)
        rank = np.empty(first.size, dtype=np.int64)
        rank[np.argsort(first, kind="stable")] = np.arange(first.size)
        self.labels = rank[inverse]
        self.n = self.labels.size
        self.sizes = np.bincount(self.labels, minlength=first.size)
        self.order = np.argsort(self.labels, kind="stable")      # nodes grouped by component
        self.starts = np.concatenate([[0], np.cumsum(self.sizes)[:-1]])
        self.position = np.empty(self.n, dtype=np.int64)
        self.position[self.order] = np.arange(self.n) - self.starts[self.labels[self.order]]

    @property
    def n_components(self) -> int:
        return int(self.sizes.size)

    def members(self, comps) -> np.ndarray:
        """Nodes of the components ``comps`` (all of one size ``s``), shape ``(len(comps), s)``."""
        comps = np.asarray(comps, dtype=np.int64)
        s = int(self.sizes[comps[0]]) if comps.size else 0
        return self.order[self.starts[comps][:, None] + np.arange(s)[None, :]]


def null_basis(layout: ComponentLayout, weights) -> tuple[sp.csc_matrix, np.ndarray]:
    """Orthonormal null vectors: per component with nonzero ``weights``, the normalized weights.

    Returns
    -------
    Q : scipy.sparse CSC, shape (n, c0), in component order
    has_null : ndarray of bool, shape (n_components,)

    Examples
    --------
    >>> lay = ComponentLayout([0, 0, 1])
    >>> Q, has = null_basis(lay, [1.0, 1.0, 0.0])
    >>> np.round(Q.toarray(), 4).tolist(), has.tolist()
    ([[0.7071], [0.7071], [0.0]], [True, False])
    """
    w = np.asarray(weights, dtype=np.float64).reshape(-1)
    norms = np.sqrt(np.bincount(layout.labels, weights=w * w, minlength=layout.n_components))
    has_null = norms > 0
    col = np.cumsum(has_null) - 1
    keep = has_null[layout.labels] & (w != 0)
    rows = np.flatnonzero(keep)
    vals = w[rows] / norms[layout.labels[rows]]
    Q = sp.csc_matrix((vals, (rows, col[layout.labels[rows]])),
                      shape=(layout.n, int(has_null.sum())))
    return Q, has_null


def _householder(q):
    """Reflectors (count, s, s) whose columns 1.. span the complement of the unit rows of ``q``."""
    u = q.copy()
    sign = np.where(u[:, 0] >= 0, 1.0, -1.0)
    u[:, 0] += sign
    unorm2 = np.einsum("ij,ij->i", u, u)
    s = q.shape[1]
    return np.eye(s)[None] - 2.0 * u[:, :, None] * u[:, None, :] / unorm2[:, None, None]


def _dense_blocks(apply, layout, comps_by_size):
    """``{size: blocks (count, s, s)}`` of the operator restricted to each component, from products
    with identity-like blocks (never an ``n x n`` array).
    """
    chosen = np.concatenate([c for c in comps_by_size.values()]) if comps_by_size else []
    width = max(comps_by_size) if comps_by_size else 0
    on = np.zeros(layout.n_components, dtype=bool)
    on[np.asarray(chosen, dtype=np.int64)] = True
    nodes = np.flatnonzero(on[layout.labels])
    pos = layout.position[nodes]
    members = {s: layout.members(c) for s, c in comps_by_size.items()}
    blocks = {s: np.empty((m.shape[0], s, s)) for s, m in members.items()}
    for j0 in range(0, width, _CHUNK):
        j1 = min(j0 + _CHUNK, width)
        sel = (pos >= j0) & (pos < j1)
        E = np.zeros((layout.n, j1 - j0))
        E[nodes[sel], pos[sel] - j0] = 1.0
        SE = np.asarray(apply(E))
        for s, m in members.items():
            if s > j0:
                hi = min(j1, s)
                blocks[s][:, :, j0:hi] = SE[m][:, :, :hi - j0]
    return {s: 0.5 * (b + b.transpose(0, 2, 1)) for s, b in blocks.items()}


def _dense_candidates(blocks, members, null_w, r):
    """The ``t <= r`` smallest eigenpairs of each block off its null vector: (count, t), (count, s, t).
    """
    if null_w is None:
        vals, vecs = np.linalg.eigh(blocks)
    else:
        q = null_w[members]
        q = q / np.linalg.norm(q, axis=1, keepdims=True)
        Hh = _householder(q)[:, :, 1:]
        inner = Hh.transpose(0, 2, 1) @ blocks @ Hh
        vals, W = np.linalg.eigh(0.5 * (inner + inner.transpose(0, 2, 1)))
        vecs = Hh @ W
    t = min(r, vals.shape[1])
    return vals[:, :t], vecs[:, :, :t]


def nonzero_eigenpairs(apply, layout: ComponentLayout, weights, r: int, large_solver=None,
                       dense_max: int = DENSE_COMPONENT_MAX, extract=None):
    """The ``r`` smallest eigenpairs orthogonal to :func:`null_basis` of an operator block diagonal
    over ``layout``'s components.

    Parameters
    ----------
    apply : callable
        ``X (n, d) -> operator @ X``.
    layout : ComponentLayout
    weights : array-like, shape (n,)
        Null-vector weights (see :func:`null_basis`).
    r : int
    large_solver : callable, optional
        ``(nodes, m, q) -> (values (m,), vectors (len(nodes), m))`` off the unit vector ``q``
        (or None), for components over ``dense_max``; without it all are solved densely.
    dense_max : int
    extract : callable, optional
        ``members (count, s) -> blocks (count, s, s)`` when the operator is dense at hand.

    Returns
    -------
    values : ndarray, shape (r,), ascending (ties: by component, then index)
    vectors : ndarray, shape (n, r), each on one component, sign-fixed

    Examples
    --------
    >>> L = np.array([[1.0, -1, 0], [-1, 2, -1], [0, -1, 1]])
    >>> L2 = np.kron(np.eye(2), L)
    >>> vals, V = nonzero_eigenpairs(lambda X: L2 @ X, ComponentLayout([0, 0, 0, 1, 1, 1]),
    ...                              np.ones(6), 3)
    >>> np.round(vals, 12).tolist(), V.shape
    ([1.0, 1.0, 3.0], (6, 3))
    """
    w = np.asarray(weights, dtype=np.float64).reshape(-1)
    _, has_null = null_basis(layout, w)
    room = layout.sizes - has_null
    small = (layout.sizes <= dense_max) | (3 * np.minimum(r, room) >= layout.sizes) \
        if large_solver is not None else np.ones(layout.n_components, dtype=bool)
    small &= room > 0
    vals, where = [], []        # candidate values; rows (kind, key, component, row, index)
    store = {}
    for null in (True, False):
        pick = small & (has_null == null)
        by_size = {int(s): np.flatnonzero(pick & (layout.sizes == s))
                   for s in np.unique(layout.sizes[pick])}
        if not by_size:
            continue
        members = {s: layout.members(c) for s, c in by_size.items()}
        blocks = ({s: extract(m) for s, m in members.items()} if extract is not None
                  else _dense_blocks(apply, layout, by_size))
        for s, comps in by_size.items():
            v, V = _dense_candidates(blocks[s], members[s], w if null else None, r)
            store[(int(null), s)] = (members[s], V)
            t = v.shape[1]
            vals.append(v.ravel())
            where.append(np.column_stack([np.full(v.size, int(null)), np.full(v.size, s),
                                          np.repeat(comps, t), np.repeat(np.arange(comps.size), t),
                                          np.tile(np.arange(t), comps.size)]))
    for comp in np.flatnonzero(~small & (room > 0)):
        nodes = layout.members([comp])[0]
        q = w[nodes] / np.linalg.norm(w[nodes]) if has_null[comp] else None
        m = int(min(r, room[comp]))
        v, V = large_solver(nodes, m, q)
        store[(2, int(comp))] = (nodes[None, :], np.asarray(V)[None])
        vals.append(np.asarray(v, dtype=np.float64))
        where.append(np.column_stack([np.full(m, 2), np.full(m, comp), np.full(m, comp),
                                      np.zeros(m, dtype=np.int64), np.arange(m)]))
    return _select(vals, where, store, layout.n, r)


def _select(vals, where, store, n, r):
    """The ``r`` smallest candidates (ties by component, then index) as ``n``-vectors."""
    vals = np.concatenate(vals) if vals else np.zeros(0)
    where = np.concatenate(where).astype(np.int64) if where else np.zeros((0, 5), dtype=np.int64)
    if vals.size < r:
        raise ValueError(f"only {vals.size} eigenpairs exist off the null space, asked for {r}")
    order = np.lexsort((where[:, 4], where[:, 2], vals))[:r]
    out = np.zeros((n, r))
    for col, (kind, key, _, row, idx) in enumerate(where[order]):
        members, V = store[(int(kind), int(key))]
        out[members[row], col] = V[row, :, idx]
    return vals[order], canonical_signs(out)


def smallest_with_null(apply, labels, weights, k: int, large_solver=None,
                       dense_max: int = DENSE_COMPONENT_MAX, extract=None):
    """The ``k`` smallest eigenpairs: the null vectors of :func:`null_basis` first, then
    :func:`nonzero_eigenpairs`.

    Examples
    --------
    >>> L = np.array([[1.0, -1, 0], [-1, 1, 0], [0, 0, 0]])
    >>> vals, V = smallest_with_null(lambda X: L @ X, [0, 0, 1], np.ones(3), 3)
    >>> np.round(vals, 12).tolist(), np.round(V[:, 0], 4).tolist(), (np.round(V[:, 2], 4) + 0.0).tolist()
    ([0.0, 0.0, 2.0], [0.7071, 0.7071, 0.0], [0.7071, -0.7071, 0.0])
    """
    layout = ComponentLayout(labels)
    Q, _ = null_basis(layout, weights)
    c0 = Q.shape[1]
    if k <= c0:
        return np.zeros(k), Q[:, :k].toarray()
    vals, V = nonzero_eigenpairs(apply, layout, weights, k - c0, large_solver, dense_max, extract)
    return np.concatenate([np.zeros(c0), vals]), np.hstack([Q.toarray(), V])


def _normalized_large_solver(apply_n, tol, random_state):
    """Solver for ``L = I - N`` on one component: Lanczos on ``N``, its null vector moved to -2."""
    from scipy.sparse.linalg import LinearOperator, eigsh

    rng = np.random.default_rng(random_state)

    def solve(nodes, m, q):
        n = apply_n.n
        pad = np.zeros((n, 1))

        def matvec(v):
            v = np.ravel(v)
            qv = 0.0 if q is None else q @ v
            pad[:] = 0.0
            pad[nodes, 0] = v if q is None else v - q * qv
            y = np.ravel(apply_n(pad))[nodes]
            return y if q is None else y - q * (q @ y) - 2.0 * q * qv
        s = nodes.size
        OP = LinearOperator((s, s), matvec=matvec, dtype=np.float64)
        mu, V = eigsh(OP, k=m, which="LA", tol=tol, v0=rng.standard_normal(s))
        order = np.argsort(-mu, kind="stable")
        return 1.0 - mu[order], V[:, order]
    return solve


class NormalizedAffinityApply:
    """``X -> D^-1/2 M D^-1/2 X`` (zero rows where ``d = 0``).

    Examples
    --------
    >>> N = NormalizedAffinityApply(np.array([[0.0, 2.0], [2.0, 0.0]]), np.array([2.0, 2.0]))
    >>> (np.round(N(np.eye(2)), 12) + 0.0).tolist()
    [[0.0, 1.0], [1.0, 0.0]]
    """

    def __init__(self, M, degrees):
        d = np.asarray(degrees, dtype=np.float64)
        self.n = d.size
        self.M = M
        self.s = np.divide(1.0, np.sqrt(d, where=d > 0, out=np.zeros_like(d)),
                           out=np.zeros_like(d), where=d > 0)

    def __call__(self, X):
        return self.s[:, None] * np.asarray(self.M @ (self.s[:, None] * X))


def affinity_null_weights(M, degrees, layout: ComponentLayout, rtol: float = 1e-10) -> np.ndarray:
    """``sqrt(d)`` on the components where ``M 1 = d`` (to ``rtol``), zero on grounded ones.

    Examples
    --------
    >>> M = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.5]])
    >>> affinity_null_weights(M, np.ones(3), ComponentLayout([0, 0, 1])).tolist()
    [1.0, 1.0, 0.0]
    """
    d = np.asarray(degrees, dtype=np.float64).reshape(-1)
    leak = np.abs(d - np.ravel(M @ np.ones((d.size, 1))))
    c = layout.n_components
    grounded = (np.bincount(layout.labels, weights=leak, minlength=c)
                > rtol * np.bincount(layout.labels, weights=np.abs(d), minlength=c))
    return np.where(grounded[layout.labels], 0.0, np.sqrt(np.maximum(d, 0.0)))


def normalized_laplacian_spectrum(M, degrees, labels, k: int, grounded: bool | None = None,
                                  tol: float = 1e-10, random_state=0,
                                  dense_max: int = DENSE_COMPONENT_MAX):
    """Null space and the ``k`` smallest other eigenpairs of ``I - D^-1/2 M D^-1/2``.

    Parameters
    ----------
    M : operator, shape (n, n), symmetric non-negative, block diagonal over ``labels``
    degrees : ndarray, shape (n,)
        Degree-0 nodes have eigenvalue 1.
    labels : array-like, shape (n,)
    k : int
    grounded : bool, optional
        True: no null space; False: ``sqrt(d)`` per component; None: :func:`affinity_null_weights`.

    Returns
    -------
    null : scipy.sparse CSC, shape (n, c0)
    values : ndarray, shape (k,), ascending
    vectors : ndarray, shape (n, k), signs of :func:`canonical_signs`

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> M = sp.csr_matrix(np.kron(np.eye(2), [[0.0, 1.0], [1.0, 0.0]]))
    >>> M = sp.block_diag([M, sp.csr_matrix((1, 1))]).tocsr()
    >>> Q, vals, V = normalized_laplacian_spectrum(M, np.array([1.0] * 4 + [0.0]), [0, 0, 1, 1, 2], 3)
    >>> Q.shape, np.round(vals, 12).tolist()
    ((5, 2), [1.0, 2.0, 2.0])
    """
    d = np.asarray(degrees, dtype=np.float64)
    apply_n = NormalizedAffinityApply(M, d)
    layout = ComponentLayout(labels)
    if grounded is None:
        weights = affinity_null_weights(M, d, layout)
    else:
        weights = np.zeros_like(d) if grounded else np.sqrt(np.maximum(d, 0.0))
    Q, _ = null_basis(layout, weights)
    if k == 0:
        return Q, np.zeros(0), np.zeros((d.size, 0))
    vals, V = nonzero_eigenpairs(lambda X: X - apply_n(X), layout, weights, k,
                                 _normalized_large_solver(apply_n, tol, random_state), dense_max)
    return Q, vals, V
