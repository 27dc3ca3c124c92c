"""Learned filter mixtures and two of their label-free objectives (docs/unidhc.md, "Feature-split
alignment" and "Energy contrast"; the default, canonical correlation, is in :mod:`.canonical`).

The filter is ``g = sum_a c_a phi_a`` over the atoms ``phi = (I, P, ..., P^K, I - P, ...,
(I - P)^K)``, ``c = softmax(theta)`` on the simplex (:func:`learn_mixture`).
"""

from __future__ import annotations

from math import comb

import numpy as np

__all__ = ["ALIGNMENT_ROWS", "atom_coefficients", "atom_degrees", "power_gram",
           "contrast_grams", "energy_contrast", "alignment_parts", "feature_split_alignment",
           "filter_objective", "learn_mixture", "low_pass_share"]

ALIGNMENT_ROWS = 2 ** 14
"""Most nodes (a seeded sample of the connected ones) in the alignment's tensors."""


def atom_coefficients(order: int) -> np.ndarray:
    """Power-basis coefficients ``M`` (2 order + 1, order + 1) of the atoms: atom ``a`` is
    ``sum_k M[a, k] P^k``.

    Examples
    --------
    >>> atom_coefficients(2).tolist()
    [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, -1.0, 0.0], [1.0, -2.0, 1.0]]
    """
    M = np.zeros((2 * order + 1, order + 1))
    M[np.arange(order + 1), np.arange(order + 1)] = 1.0
    for k in range(1, order + 1):
        M[order + k, :k + 1] = [comb(k, j) * (-1) ** j for j in range(k + 1)]
    return M


def atom_degrees(order: int) -> np.ndarray:
    """Polynomial degree of every atom, shape (2 order + 1,).

    Examples
    --------
    >>> atom_degrees(2).tolist()
    [0, 1, 2, 1, 2]
    """
    return np.r_[np.arange(order + 1), np.arange(1, order + 1)]


def power_gram(operator, X: np.ndarray, order: int) -> np.ndarray:
    """``G_kl = <P^k X, P^l X>``, shape (order + 1, order + 1), from ``order`` products.

    ``P`` is symmetric, so ``G_kl = tr(X^T P^(k+l) X)``; sums run in float64.

    Examples
    --------
    >>> from hyperclust import Hypergraph
    >>> from hyperclust.operators import PropagationOperator
    >>> P = PropagationOperator(Hypergraph.from_edges([[0, 1, 2], [2, 3]]))
    >>> X = np.arange(8.0).reshape(4, 2)
    >>> B = [X, P.matmat(X), P.matmat(P.matmat(X))]
    >>> ref = np.array([[np.sum(a * b) for b in B] for a in B])
    >>> np.allclose(power_gram(P, X, 2), ref)
    True
    """
    moments = np.empty(2 * order + 1)
    cur = np.asarray(X)
    for i in range(order + 1):
        moments[2 * i] = np.einsum("ij,ij->", cur, cur, dtype=np.float64)
        if i == order:
            break
        nxt = np.asarray(operator.matmat(cur), dtype=cur.dtype)
        moments[2 * i + 1] = np.einsum("ij,ij->", cur, nxt, dtype=np.float64)
        cur = nxt
    idx = np.add.outer(np.arange(order + 1), np.arange(order + 1))
    return moments[idx]


def contrast_grams(operator, X: np.ndarray, order: int, connected: np.ndarray, random_state):
    """:func:`power_gram` of the centred input and of a row-shuffled copy, on ``connected``
    rows (bool, shape (n,); the others set to 0); ``random_state`` seeds the shuffle.

    Examples
    --------
    >>> from hyperclust import Hypergraph
    >>> from hyperclust.operators import PropagationOperator
    >>> P = PropagationOperator(Hypergraph.from_edges([[0, 1, 2], [2, 3], [3, 4, 5]]))
    >>> X = np.arange(12.0).reshape(6, 2)
    >>> G, Gs = contrast_grams(P, X, 2, np.ones(6, dtype=bool), random_state=0)
    >>> G.shape, bool(np.isclose(G[0, 0], Gs[0, 0])), bool(np.allclose(G, G.T))
    ((3, 3), True, True)
    """
    dtype = np.dtype(getattr(operator, "dtype", np.float64))
    rows = np.flatnonzero(connected)
    Xc = np.zeros(X.shape, dtype=dtype)
    Xc[rows] = X[rows] - X[rows].mean(axis=0)
    shuffled = np.zeros_like(Xc)
    shuffled[rows] = Xc[np.random.default_rng(random_state).permutation(rows)]
    return power_gram(operator, Xc, order), power_gram(operator, shuffled, order)


def energy_contrast(gamma, G, G_shuffled):
    """``(log ||g(P) Xs||^2 - log ||g(P) X||^2, its gradient)`` for power coefficients
    ``gamma`` (K + 1,) and the Grams ``G, G_shuffled`` of :func:`contrast_grams`.

    Examples
    --------
    >>> G = np.array([[1.0, 0.5], [0.5, 0.4]]); Gs = np.array([[1.0, 0.3], [0.3, 0.2]])
    >>> float(energy_contrast(np.array([1.0, 0.0]), G, Gs)[0])
    0.0
    """
    gamma = np.asarray(gamma, dtype=np.float64)
    a, b = gamma @ G @ gamma, gamma @ G_shuffled @ gamma
    grad = 2 * G_shuffled @ gamma / b - 2 * G @ gamma / a
    return float(np.log(b) - np.log(a)), grad


def learn_mixture(objective, order: int, penalty: float = 0.0, steps: int = 300,
                  lr: float = 0.1, record_every: int = 10):
    """Minimise ``objective(c M) + penalty * sum_a deg(a) c_a`` over the simplex by Adam on
    ``theta`` (``c = softmax(theta)``), from the uniform mixture.

    Parameters
    ----------
    objective : callable
        ``gamma (K+1,) -> (value, grad (K+1,))`` in power coefficients.
    order : int
        ``K``.
    penalty : float, default 0.0
        Per-order penalty on the atom weights.
    steps : int, default 300
    lr : float, default 0.1
    record_every : int, default 10
        Steps between trajectory entries.

    Returns
    -------
    weights : ndarray, shape (2K + 1,)
        Atom weights (sum 1).
    trajectory : list of dict
        ``{"step", "objective", "gamma"}`` every ``record_every`` steps and at the end.

    Examples
    --------
    >>> G = np.array([[1.0, .9, .8], [.9, .8, .75], [.8, .75, .7]])
    >>> Gs = np.array([[1.0, .5, .3], [.5, .3, .2], [.3, .2, .15]])
    >>> w, _ = learn_mixture(lambda g: energy_contrast(g, G, Gs), order=2)
    >>> bool(w[1:3].sum() > 0.9)
    True
    """
    M = atom_coefficients(order)
    deg = atom_degrees(order)
    theta = np.zeros(2 * order + 1)
    m1, m2 = np.zeros_like(theta), np.zeros_like(theta)
    beta1, beta2, eps = 0.9, 0.999, 1e-8
    trajectory = []
    for step in range(steps + 1):
        c = np.exp(theta - theta.max())
        c /= c.sum()
        value, grad_gamma = objective(c @ M)
        value += penalty * float(deg @ c)
        if step % record_every == 0 or step == steps:
            trajectory.append({"step": step, "objective": value, "gamma": (c @ M).tolist()})
        if step == steps:
            break
        grad_c = M @ grad_gamma + penalty * deg
        grad = c * (grad_c - grad_c @ c)  # through the softmax
        m1 = beta1 * m1 + (1 - beta1) * grad
        m2 = beta2 * m2 + (1 - beta2) * grad * grad
        t = step + 1
        theta -= lr * (m1 / (1 - beta1 ** t)) / (np.sqrt(m2 / (1 - beta2 ** t)) + eps)
    return c, trajectory


def low_pass_share(gamma, n_points: int = 201) -> float:
    """``(g(0) - g(1)) / max |g|`` over the Laplacian spectrum ``[0, 1]``, in ``[-2, 2]``,
    ``g(lambda) = sum_k gamma_k (1 - lambda)^k``: +1 low-pass, -1 high-pass, 0 identity.

    Examples
    --------
    >>> [round(low_pass_share(g), 3) for g in ([0, 0, 1], [1, 0, 0], [1, -1, 0])]
    [1.0, 0.0, -1.0]
    """
    from .basis import basis_response

    gamma = np.asarray(gamma, dtype=np.float64)
    g = gamma @ basis_response(np.linspace(0.0, 1.0, n_points), len(gamma) - 1)
    top = np.abs(g).max()
    return 0.0 if top == 0 else float((g[0] - g[-1]) / top)


def alignment_parts(basis: np.ndarray, rows: np.ndarray, random_state):
    """Small tensors that give :func:`feature_split_alignment` for any filter.

    Per direction of :func:`~hyperclust.models.canonical.split_directions` (``basis`` (K+1, n,
    d >= 2), ``rows``, ``random_state``): ``N_kl = <A_k^T R, A_l^T R>``,
    ``T_klmn = <A_k^T A_l, A_m^T A_n>``, ``q = ||R^T R||^2``; a list of ``(N, T, q)``.

    Examples
    --------
    >>> basis = np.random.default_rng(0).normal(size=(3, 10, 4))  # K = 2, n = 10, d = 4
    >>> parts = alignment_parts(basis, np.arange(10), random_state=0)
    >>> len(parts), parts[0][0].shape, parts[0][1].shape
    (2, (3, 3), (3, 3, 3, 3))
    """
    from threadpoolctl import threadpool_limits

    from .canonical import split_directions

    n_orders = basis.shape[0]
    parts = []
    # one BLAS thread: the same bits whatever the thread count
    with threadpool_limits(1, user_api="blas"):
        for W, R in split_directions(basis, rows, random_state):
            d_a = W.shape[1] // n_orders
            C = (W.T @ R).reshape(n_orders, -1)  # row k: A_k^T R, flattened
            gram = (W.T @ W).reshape(n_orders, d_a, n_orders, d_a)  # A_k^T A_l
            T = np.einsum("kalb,manb->klmn", gram, gram)
            parts.append((C @ C.T, T, float(np.sum((R.T @ R) ** 2))))
    return parts


def feature_split_alignment(gamma, parts):
    """``-mean log CKA(g(P) X_a, X_b)`` over both directions, and its gradient in gamma.

    CKA is ``||Z^T R||^2 / (||Z^T Z|| ||R^T R||)``; ``gamma`` (K+1,) are power coefficients
    (scale-free), ``parts`` from :func:`alignment_parts`.

    Examples
    --------
    >>> basis = np.random.default_rng(0).normal(size=(3, 10, 4))
    >>> parts = alignment_parts(basis, np.arange(10), random_state=0)
    >>> gamma = np.array([1.0, 0.5, -0.2])
    >>> a, b = (feature_split_alignment(s * gamma, parts)[0] for s in (1, 3))
    >>> bool(np.isclose(a, b))
    True
    """
    gamma = np.asarray(gamma, dtype=np.float64)
    value, grad = 0.0, np.zeros_like(gamma)
    for N, T, q in parts:
        num = gamma @ N @ gamma
        den = np.einsum("klmn,k,l,m,n->", T, gamma, gamma, gamma, gamma)
        dden = (np.einsum("klmn,l,m,n->k", T, gamma, gamma, gamma)
                + np.einsum("klmn,k,m,n->l", T, gamma, gamma, gamma)
                + np.einsum("klmn,k,l,n->m", T, gamma, gamma, gamma)
                + np.einsum("klmn,k,l,m->n", T, gamma, gamma, gamma))
        # log CKA = log num - log den / 2 - log q / 2
        value -= np.log(num) - 0.5 * np.log(den) - 0.5 * np.log(q)
        grad -= 2 * N @ gamma / num - 0.5 * dden / den
    return float(value / len(parts)), grad / len(parts)


def filter_objective(kind: str, operator, X, basis, connected, random_state,
                     order_penalty: float = 0.03, n_clusters: int = 2):
    """The objective :func:`learn_mixture` minimises for a learned filter of ``kind``.

    ``kind`` is ``"canonical"`` (``n_clusters - 1`` directions), ``"alignment"`` or
    ``"contrast"`` (the one with ``order_penalty``, and the one that reads ``operator`` and
    ``X``, the input of ``basis``). Returns ``(objective, penalty)``; ``(None, 0.0)`` when
    there is nothing to learn (``K = 0``, < 2 ``connected`` nodes, or one column to split).

    Examples
    --------
    >>> basis = np.random.default_rng(0).normal(size=(3, 10, 4))
    >>> objective, penalty = filter_objective("alignment", None, None, basis,
    ...                                       np.ones(10, dtype=bool), random_state=0)
    >>> value, grad = objective(np.ones(3)); grad.shape, penalty
    ((3,), 0.0)
    >>> filter_objective("alignment", None, None, basis[:1], np.ones(10, dtype=bool), 0)
    (None, 0.0)
    """
    from functools import partial

    order = basis.shape[0] - 1
    rows = np.flatnonzero(connected)
    if order < 1 or rows.size < 2 or (kind != "contrast" and basis.shape[2] < 2):
        return None, 0.0
    if kind == "contrast":
        G, G_shuffled = contrast_grams(operator, X, order, connected, random_state)
        return partial(energy_contrast, G=G, G_shuffled=G_shuffled), float(order_penalty)
    if rows.size > ALIGNMENT_ROWS:
        rows = np.sort(np.random.default_rng(random_state).choice(rows, size=ALIGNMENT_ROWS,
                                                                   replace=False))
    if kind == "canonical":
        from .canonical import canonical_correlation, canonical_parts

        return partial(canonical_correlation, parts=canonical_parts(basis, rows, random_state),
                       n_components=max(1, int(n_clusters) - 1)), 0.0
    return partial(feature_split_alignment, parts=alignment_parts(basis, rows, random_state)), 0.0
