"""Structure contrast: a label-free objective for a polynomial filter whose optimum moves with
the data (docs/unidhc.md, "The filter objective").

The filter is a convex mixture of ``2K + 1`` atoms, ``g = sum_a c_a phi_a`` with
``phi = (I, P, ..., P^K, I - P, ..., (I - P)^K)``, ``c`` on the simplex (``c = softmax(theta)``):
non-negative mixtures of ``P^k`` are low-pass, of ``(I - P)^k`` high-pass, ``I`` is neutral.
Its score compares the energy of the filtered input with the energy of the same filter
applied to a row-shuffled copy of the input, where the hypergraph carries no information
about the features::

    J(c) = log ||g(P) Xs||^2 - log ||g(P) X||^2 + penalty * sum_a deg(a) c_a

(``X`` column-centred on the connected nodes, ``Xs`` its rows shuffled among them; both
restricted to connected nodes, whose rows are the only ones a filter changes).
``||g(P) X||^2 / ||g(P) Xs||^2`` is the filter's signal-to-chance ratio: with features
``S + N`` (``N`` white), shuffling spreads ``S``'s energy evenly over the spectrum of
``P``, so the ratio exceeds 1 exactly where the filter keeps the bands where the features
are more aligned with the hypergraph than by chance (low frequencies under homophily, high
under heterophily), and it is 1 for the identity. ``penalty`` (per propagation order) is
the smallest gain in log ratio an order must bring: below it the identity wins, which is
where smoothing mixes classes more than it removes noise.

Both energies are quadratic forms in the power coefficients of ``g``: with
``G_kl = <P^k X, P^l X> = tr(X^T P^(k+l) X)`` (``P`` symmetric), ``||g(P) X||^2 =
gamma^T G gamma``; ``G`` needs ``K`` products with ``P`` and ``O(n d)`` memory
(:func:`power_gram`). Everything else is on ``(2K+1)``-vectors.
"""

from __future__ import annotations

from math import comb

import numpy as np

__all__ = ["atom_coefficients", "atom_degrees", "power_gram", "contrast_grams",
           "structure_contrast", "learn_mixture", "low_pass_share"]


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
    """
    dtype = np.dtype(getattr(operator, "dtype", np.float64))
    rows = np.flatnonzero(connected)
    Xc = np.zeros(X.shape, dtype=dtype)
    Xc[rows] = X[rows] - X[rows].mean(axis=0)
    shuffled = np.zeros_like(Xc)
    shuffled[rows] = Xc[np.random.default_rng(random_state).permutation(rows)]
    return power_gram(operator, Xc, order), power_gram(operator, shuffled, order)


def structure_contrast(weights, G, G_shuffled, penalty: float):
    """``J(c)`` of the module docstring and its gradient in ``c``.

    Parameters
    ----------
    weights : ndarray, shape (2K + 1,)
        Atom weights ``c`` (any positive scale: the two log terms are scale-free).
    G, G_shuffled : ndarray, shape (K + 1, K + 1)
        Power Grams (:func:`contrast_grams`).
    penalty : float
        Per-order penalty.

    Returns
    -------
    value : float
    grad : ndarray, shape (2K + 1,)

    Examples
    --------
    The identity has ratio 1 and no penalty: J = 0.

    >>> G = np.array([[1.0, 0.5], [0.5, 0.4]]); Gs = np.array([[1.0, 0.3], [0.3, 0.2]])
    >>> float(structure_contrast(np.array([1.0, 0.0, 0.0]), G, Gs, 0.1)[0])
    0.0
    """
    order = G.shape[0] - 1
    M = atom_coefficients(order)
    gamma = np.asarray(weights, dtype=np.float64) @ M
    a, b = gamma @ G @ gamma, gamma @ G_shuffled @ gamma
    deg = atom_degrees(order)
    value = np.log(b) - np.log(a) + penalty * deg @ weights
    grad = M @ (2 * G_shuffled @ gamma / b - 2 * G @ gamma / a) + penalty * deg
    return float(value), grad


def learn_mixture(G, G_shuffled, penalty: float = 0.03, steps: int = 300, lr: float = 0.1,
                  record_every: int = 10):
    """Minimise :func:`structure_contrast` over the simplex from the uniform mixture.

    ``c = softmax(theta)``, ``theta = 0`` at the start (every atom the same weight: no
    family chosen beforehand), Adam on ``theta`` with the exact gradient. Deterministic.

    Parameters
    ----------
    G, G_shuffled : ndarray, shape (K + 1, K + 1)
    penalty : float
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
    >>> w, _ = learn_mixture(G, Gs, penalty=0.0)
    >>> bool(w[1:3].sum() > 0.9)
    True
    """
    order = G.shape[0] - 1
    M = atom_coefficients(order)
    theta = np.zeros(2 * order + 1)
    m1, m2 = np.zeros_like(theta), np.zeros_like(theta)
    beta1, beta2, eps = 0.9, 0.999, 1e-8
    trajectory = []
    for step in range(steps + 1):
        c = np.exp(theta - theta.max())
        c /= c.sum()
        value, grad_c = structure_contrast(c, G, G_shuffled, penalty)
        if step % record_every == 0 or step == steps:
            trajectory.append({"step": step, "objective": value, "gamma": (c @ M).tolist()})
        if step == steps:
            break
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
