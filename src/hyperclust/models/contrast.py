"""Label-free objectives for a polynomial filter whose optimum moves with the data
(docs/unidhc.md, "The filter objective").

The filter is a convex mixture of ``2K + 1`` atoms, ``g = sum_a c_a phi_a`` with
``phi = (I, P, ..., P^K, I - P, ..., (I - P)^K)``, ``c`` on the simplex (``c = softmax(theta)``,
learned from ``theta = 0``, the uniform mixture): non-negative mixtures of ``P^k`` are
low-pass, of ``(I - P)^k`` high-pass, ``I`` is neutral (:func:`learn_mixture`).

The default objective is not here: Uni-DHC learns its filter by the canonical correlation
of :mod:`hyperclust.models.canonical` (``gamma_init="canonical"``). This module holds two
other objectives, still selectable.

Feature-split alignment (:func:`feature_split_alignment`, ``gamma_init="alignment"``): the
feature columns are split at random into halves ``X_a`` and ``X_b``. With features = class signal
+ noise independent across columns, the halves share only the class structure of the
nodes. The filter is scored by the centred kernel alignment (CKA) of the filtered half
``g(P) X_a`` with the raw other half ``X_b`` (both directions): smoothing along hyperedges
that join nodes of one class removes noise and raises it; smoothing across classes mixes
the signal the raw half still holds apart and lowers it; a high-pass filter raises it
where neighbours differ. Filtering both halves would not do: ``g(P) N_a`` and ``g(P) N_b``
share the smoothing pattern of ``P`` whatever the noise, and their alignment rewards
smoothing on any data. Everything reduces to small tensors of the basis
(:func:`alignment_parts`): ``O((K+1)^2 r d^2)`` once on at most
:data:`ALIGNMENT_ROWS` sampled connected nodes, then ``O((K+1)^4)`` per step.

Energy contrast (:func:`energy_contrast`, ``gamma_init="contrast"``). The filtered
input's energy against the same filter on a row-shuffled copy of the input (DGI-style
corruption: the hypergraph carries no information about the shuffled features):
``log ||g(P) Xs||^2 - log ||g(P) X||^2``. Its optimum moves with the data, but it counts
every structure-aligned variation as signal, including the within-class variation that
smoothing across classes creates, so it over-smooths at mid homophily.
"""

from __future__ import annotations

from math import comb

import numpy as np

__all__ = ["ALIGNMENT_ROWS", "atom_coefficients", "atom_degrees", "power_gram",
           "contrast_grams", "energy_contrast", "alignment_parts", "feature_split_alignment",
           "filter_objective", "learn_mixture", "low_pass_share"]

ALIGNMENT_ROWS = 2 ** 14
"""Most nodes (a seeded sample of the connected ones) in the alignment's tensors: the
criterion's cost stops growing with ``n``."""


def atom_coefficients(order: int) -> np.ndarray:
    """Power-basis coefficients of the atoms ``(I, P, ..., P^K, I-P, ..., (I-P)^K)``.

    Returns
    -------
    ndarray, shape (2 order + 1, order + 1)
        Row ``a`` holds atom ``a`` as ``sum_k M[a, k] P^k``.

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
    """``G_kl = <P^k X, P^l X>`` for ``k, l = 0..order`` from ``order`` products with ``P``.

    ``P`` is symmetric, so ``G_kl = m_(k+l)`` with ``m_j = tr(X^T P^j X)``, and
    ``m_(2i) = <V_i, V_i>``, ``m_(2i+1) = <V_i, V_(i+1)>`` with ``V_i = P^i X``.
    Inner products accumulate in float64 (numpy's einsum: one thread, a fixed order).

    Parameters
    ----------
    operator : LinearOperator, shape (n, n)
        Symmetric propagation operator ``P``.
    X : ndarray, shape (n, d)
    order : int

    Returns
    -------
    ndarray of float64, shape (order + 1, order + 1)

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
    """Power Grams of the centred input and of a row-shuffled copy, on connected nodes.

    Parameters
    ----------
    operator : LinearOperator, shape (n, n)
    X : ndarray, shape (n, d)
    order : int
    connected : ndarray of bool, shape (n,)
        Nodes in at least one hyperedge; the other rows are set to 0 (a filter multiplies
        an isolated node's row by a constant, the same in both views: it only dilutes).
    random_state : int
        Seed of the shuffle.

    Returns
    -------
    (G, G_shuffled) : two ndarrays of float64, shape (order + 1, order + 1)

    Examples
    --------
    A row shuffle keeps the input's energy (``G[0, 0]``), not its smoothness:

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
    """``log ||g(P) Xs||^2 - log ||g(P) X||^2`` and its gradient in gamma (power basis).

    The filter's signal-to-chance energy ratio (module docstring, "Energy contrast").

    Parameters
    ----------
    gamma : ndarray, shape (K + 1,)
        Power coefficients (any scale: the value is scale-free).
    G, G_shuffled : ndarray, shape (K + 1, K + 1)
        Power Grams (:func:`contrast_grams`).

    Returns
    -------
    value : float
    grad : ndarray, shape (K + 1,)

    Examples
    --------
    The identity has ratio 1:

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
    """Minimise ``objective(c M) + penalty * sum_a deg(a) c_a`` over the simplex from the
    uniform mixture.

    ``c = softmax(theta)``, ``theta = 0`` at the start (every atom the same weight: no
    family chosen beforehand), Adam on ``theta`` with the exact gradient. Deterministic.

    Parameters
    ----------
    objective : callable
        ``gamma (K+1,) -> (value, grad (K+1,))`` in power coefficients, e.g.
        :func:`feature_split_alignment` or :func:`energy_contrast` with their tensors bound.
    order : int
        ``K``.
    penalty : float
        Per-order penalty on the atom weights.
    steps : int
    lr : float
    record_every : int
        Trajectory resolution (steps).

    Returns
    -------
    weights : ndarray, shape (2K + 1,)
        Learned atom weights (sum 1).
    trajectory : list of dict
        ``{"step", "objective", "gamma"}`` (power coefficients) every ``record_every`` steps
        and at the end.

    Examples
    --------
    Features aligned with the low band (``G`` grows with the order relative to the
    shuffled copy): the weight goes to the low-pass atoms.

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
    """``(g(0) - g(1)) / max |g|`` over the Laplacian spectrum ``[0, 1]``, in ``[-2, 2]``.

    ``g(lambda) = sum_k gamma_k (1 - lambda)^k``; +1 for a pure low-pass mixture (``P^k``,
    k >= 1), -1 for a pure high-pass one (``(I-P)^k``), 0 for the identity.

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

    The feature columns are split at random into two halves ``a`` and ``b``; for each
    direction (filter ``a``, raw ``b``; filter ``b``, raw ``a``) with ``A_k`` = the
    column-centred ``B[k][rows][:, a]`` and ``R`` = the column-centred ``B[0][rows][:, b]``:
    ``N_kl = <A_k^T R, A_l^T R>``, ``T_klmn = <A_k^T A_l, A_m^T A_n>``, ``q = ||R^T R||^2``.

    Parameters
    ----------
    basis : ndarray, shape (K+1, n, d), d >= 2
    rows : ndarray of int
        Nodes that enter the criterion.
    random_state : int
        Seed of the column split.

    Returns
    -------
    list of (N, T, q), one per direction

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
    # one BLAS thread: the same bits whatever the thread count (a product's rounding
    # depends on how many threads split it)
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

    CKA is the linear centred kernel alignment ``||Z^T R||^2 / (||Z^T Z|| ||R^T R||)``
    between the filtered half ``Z = g(P) X_a`` and the raw other half ``R = X_b``: the
    noise of two halves is independent, so only what both halves share (the class signal)
    can align, and smoothing across classes lowers it (docs/unidhc.md).

    Parameters
    ----------
    gamma : ndarray, shape (K+1,)
        Power coefficients (scale-free).
    parts : list of (N, T, q)
        From :func:`alignment_parts`.

    Returns
    -------
    value : float
    grad : ndarray, shape (K+1,)

    Examples
    --------
    The value does not depend on the filter's scale:

    >>> basis = np.random.default_rng(0).normal(size=(3, 10, 4))
    >>> parts = alignment_parts(basis, np.arange(10), random_state=0)
    >>> gamma = np.array([1.0, 0.5, -0.2])
    >>> a, b = feature_split_alignment(gamma, parts)[0], feature_split_alignment(3 * gamma, parts)[0]
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

    Parameters
    ----------
    kind : {"canonical", "alignment", "contrast"}
        :func:`hyperclust.models.canonical.canonical_correlation` (``n_clusters - 1``
        directions), :func:`feature_split_alignment` (both without penalty) or
        :func:`energy_contrast` (``order_penalty`` per order).
    operator : LinearOperator, shape (n, n)
    X : ndarray, shape (n, d)
        The input of ``basis``.
    basis : ndarray, shape (K+1, n, d)
    connected : ndarray of bool, shape (n,)
    random_state : int
    order_penalty : float
    n_clusters : int

    Returns
    -------
    (objective, penalty)
        ``objective``: ``gamma -> (value, grad)``; ``(None, 0.0)`` when there is nothing
        to learn (``K = 0``, fewer than 2 connected nodes, or one column for a feature split).

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
