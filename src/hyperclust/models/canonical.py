"""Feature-split canonical correlation: the label-free objective of Uni-DHC's filter
(docs/unidhc.md, "Feature-split canonical correlation").

A filter ``g`` is scored by the ``k - 1`` largest squared canonical correlations of
``g(P) X_a`` with the raw other half ``X_b`` of a random column split, from small tensors
of the basis (:func:`canonical_parts`).
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

__all__ = ["RIDGE", "split_directions", "canonical_parts", "canonical_correlation"]

RIDGE = 0.01
"""Ridge on each side's covariance, a fraction of its mean eigenvalue (keeps chance
correlations of few rows out)."""


def split_directions(basis: np.ndarray, rows: np.ndarray, random_state) -> list:
    """Both directions ``[(W, R), (W', R')]`` of a seeded random split of the feature columns.

    ``W = [A_0 | ... | A_K]`` (r, (K+1) d_a), ``A_k`` the centred ``basis[k][rows]`` on one
    half; ``R`` (r, d_b) the centred ``basis[0][rows]`` on the other; then halves swapped.

    Examples
    --------
    >>> basis = np.random.default_rng(0).normal(size=(3, 10, 5))
    >>> [(W.shape, R.shape) for W, R in split_directions(basis, np.arange(10), 0)]
    [((10, 6), (10, 3)), ((10, 9), (10, 2))]
    """
    d = basis.shape[2]
    cols = np.random.default_rng(random_state).permutation(d)
    block = np.asarray(basis[:, rows], dtype=np.float64)
    block -= block.mean(axis=1, keepdims=True)
    r = block.shape[1]
    return [(block[:, :, a].transpose(1, 0, 2).reshape(r, -1), block[0][:, b])
            for a, b in ((cols[:d // 2], cols[d // 2:]), (cols[d // 2:], cols[:d // 2]))]


def _inverse_sqrt(C, ridge):
    """``(C + ridge * mean eig(C) I)^(-1/2)`` of a symmetric PSD matrix."""
    w, V = np.linalg.eigh(C)
    w = np.maximum(w, 0) + ridge * max(np.trace(C) / len(C), np.finfo(float).tiny)
    return (V / np.sqrt(w)) @ V.T


def canonical_parts(basis: np.ndarray, rows: np.ndarray, random_state, ridge: float = RIDGE):
    """Small tensors that give :func:`canonical_correlation` for any filter.

    A list of ``(G, C)``, one per direction of :func:`split_directions` (``d >= 2``):
    ``G[k, :, l, :] = A_k^T A_l``, shape (K+1, d_a, K+1, d_a), and
    ``C[k] = A_k^T R (R^T R + ridge mean eig I)^(-1/2)``, shape (K+1, d_a, d_b).

    Examples
    --------
    >>> basis = np.random.default_rng(0).normal(size=(3, 10, 4))  # K = 2, n = 10, d = 4
    >>> parts = canonical_parts(basis, np.arange(10), random_state=0)
    >>> len(parts), parts[0][0].shape, parts[0][1].shape
    (2, (3, 2, 3, 2), (3, 2, 2))
    """
    from threadpoolctl import threadpool_limits

    n_orders = basis.shape[0]
    parts = []
    # one BLAS thread: the same bits whatever the thread count
    with threadpool_limits(1, user_api="blas"):
        for W, R in split_directions(basis, rows, random_state):
            Rw = R @ _inverse_sqrt(R.T @ R, ridge)
            d_a = W.shape[1] // n_orders
            G = (W.T @ W).reshape(n_orders, d_a, n_orders, d_a)
            C = (W.T @ Rw).reshape(n_orders, d_a, R.shape[1])
            parts.append((G, C))
    return parts


def canonical_correlation(gamma, parts, n_components: int, ridge: float = RIDGE):
    """``-mean log`` (sum of the ``n_components`` largest squared canonical correlations of
    ``g(P) X_a`` with ``X_b``) over both directions, and its gradient in gamma.

    The correlations are the eigenvalues of ``M M^T v = lambda S v``, ``S = Z^T Z + eps I``
    (``eps = ridge tr(Z^T Z) / d_a``), ``M = Z^T R_w``.

    ``gamma`` (K+1,) are power coefficients (scale-free), ``parts`` from
    :func:`canonical_parts`; ``n_components`` (``k - 1`` for ``k`` clusters) is clipped to
    the halves' widths. Returns ``(value, grad)``.

    Examples
    --------
    >>> basis = np.random.default_rng(0).normal(size=(3, 10, 4))
    >>> parts = canonical_parts(basis, np.arange(10), random_state=0)
    >>> gamma = np.array([1.0, 0.5, -0.2])
    >>> a = canonical_correlation(gamma, parts, 1)[0]
    >>> bool(np.isclose(a, canonical_correlation(3 * gamma, parts, 1)[0]))
    True
    """
    gamma = np.asarray(gamma, dtype=np.float64)
    value, grad = 0.0, np.zeros_like(gamma)
    for G, C in parts:
        da = G.shape[1]
        H = np.einsum("kalb,l->kab", G, gamma)  # H_k = sum_l gamma_l A_k^T A_l
        S = np.einsum("k,kab->ab", gamma, H)
        S = 0.5 * (S + S.T)
        eps = ridge * np.trace(S) / da
        M = np.einsum("k,kab->ab", gamma, C)
        m = max(1, min(int(n_components), da, C.shape[2]))
        lam, V = scipy.linalg.eigh(M @ M.T, S + eps * np.eye(da),
                                   subset_by_index=[da - m, da - 1])
        total = lam.sum()
        MtV = M.T @ V  # (d_b, m)
        d_mm = 2 * np.einsum("kab,ai,bi->k", C, V, MtV)
        d_s = (2 * np.einsum("kab,ai,bi,i->k", H, V, V, lam)
               + 2 * ridge / da * np.einsum("kaa->k", H) * np.einsum("ai,ai,i->", V, V, lam))
        value -= np.log(total)
        grad -= (d_mm - d_s) / total
    return float(value / len(parts)), grad / len(parts)
