"""Exact re-ranking of approximate nearest-neighbour candidates: the cosine similarity of
every (node, candidate) pair recomputed on the original rows, and the ``K`` best kept with
the exact search's tie rule.

Used by the approximate search of :mod:`hyperclust.operators.neighbors`, whose index may see
a projection of the rows (wide sparse inputs): the re-ranking is what makes its similarities,
and its choice among the candidates, exact.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ._topk import from_tie_grid, to_tie_grid

__all__ = ["pair_similarities", "rerank", "refine"]

_BLOCK_ENTRIES = 2 ** 22  # products (pairs x shared dimensions) per block


def pair_similarities(Xn, I, start: int = 0) -> np.ndarray:
    """``sim[i, j] = <Xn[start + i], Xn[I[i, j]]>``, float64, computed in row blocks.

    Parameters
    ----------
    Xn : ndarray or scipy.sparse.csr_matrix, shape (n, d)
        Unit rows.
    I : ndarray of int, shape (r, c)
        Candidate ids of the rows ``start .. start + r - 1``; ``-1`` marks a missing
        candidate (similarity 0).
    start : int, default 0

    Returns
    -------
    ndarray of float64, shape (r, c)

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> X = np.array([[1.0, 0.0], [0.6, 0.8], [0.0, 1.0]])
    >>> pair_similarities(X, np.array([[1, 2], [0, -1], [1, 0]])).round(2).tolist()
    [[0.6, 0.0], [0.6, 0.0], [0.8, 0.0]]
    >>> bool(np.allclose(pair_similarities(sp.csr_matrix(X), np.array([[1, 2], [0, -1], [1, 0]])),
    ...                  pair_similarities(X, np.array([[1, 2], [0, -1], [1, 0]]))))
    True
    """
    I = np.asarray(I, dtype=np.int64)
    n, c = I.shape
    sims = np.zeros((n, c), dtype=np.float64)
    if n == 0 or c == 0:
        return sims
    if sp.issparse(Xn):
        _sparse_pairs(sp.csr_matrix(Xn), I, start, sims)
        return sims
    Xn = np.asarray(Xn, dtype=np.float64)
    block = max(1, _BLOCK_ENTRIES // (c * max(1, Xn.shape[1])))
    for b in range(0, n, block):
        J = I[b:b + block]
        s = np.einsum("id,ijd->ij", Xn[start + b:start + b + J.shape[0]], Xn[np.maximum(J, 0)])
        sims[b:b + J.shape[0]] = np.where(J >= 0, s, 0.0)
    return sims


def _sparse_pairs(Xn, I, first, out):
    """:func:`pair_similarities` of CSR rows into ``out``: each block of pairs is two row
    gathers and scipy's elementwise product (a sorted merge per pair), ``O(n c nnz_row)``;
    the blocks hold about ``2^22`` stored entries, whatever ``c`` and the row lengths."""
    n, c = I.shape
    per_row = max(1, int(np.ceil(Xn.nnz / max(1, Xn.shape[0]))))
    block = max(1, _BLOCK_ENTRIES // (c * per_row))
    for b in range(0, n, block):
        J = I[b:b + block]
        rows = np.repeat(np.arange(first + b, first + b + J.shape[0]), c)
        s = np.asarray(Xn[rows].multiply(Xn[np.maximum(J, 0).ravel()]).sum(axis=1))
        out[b:b + J.shape[0]] = np.where(J >= 0, s.reshape(J.shape), 0.0)


def rerank(Xn, cand, k: int, tie_break: str = "id", random_state=0):
    """The ``k`` candidates of each row with the largest exact similarity.

    Parameters
    ----------
    Xn : ndarray or scipy.sparse.csr_matrix, shape (n, d)
        Unit rows.
    cand : ndarray of int, shape (n, c)
        Candidate ids per row, ``-1`` for none (a row's own id must not be among them).
    k : int
    tie_break : {"id", "random"}, default "id"
        Equal similarities by increasing node id, or by increasing rank of the permutation
        seeded by ``random_state`` (that of the exact search's ``tie_break="random"``).
    random_state : int, default 0

    Returns
    -------
    indices : ndarray of int64, shape (n, k)
        Most similar first; ``-1`` where fewer than ``k`` candidates exist.
    similarities : ndarray of float64, shape (n, k)
        Exact similarities (0 where the index is ``-1``).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 0.0], [0.6, 0.8], [0.0, 1.0], [1.0, 0.0]])
    >>> idx, sim = rerank(X, np.array([[2, 1, 3], [0, 2, -1], [0, 1, 3], [2, 1, 0]]), 2)
    >>> idx.tolist()
    [[3, 1], [2, 0], [1, 0], [0, 1]]
    """
    cand = np.asarray(cand, dtype=np.int64)
    return _select(Xn, k, cand.shape[1], lambda a, b: cand[a:b], tie_break, random_state)


def _select(Xn, k, width, candidates, tie_break, random_state):
    """:func:`rerank` of the candidates ``candidates(a, b)`` (shape (b - a, width)) of the
    rows ``a .. b - 1``, block by block: memory ``O(block * width)`` beyond the output."""
    n = Xn.shape[0]
    kk = min(k, width)
    I = np.empty((n, kk), dtype=np.int64)
    D = np.empty((n, kk), dtype=np.float64)
    rank = None
    if tie_break == "random":
        rank = np.empty(n, dtype=np.int64)
        rank[np.random.default_rng(random_state).permutation(n)] = np.arange(n)
    step = max(1, _BLOCK_ENTRIES // max(1, width))
    for a in range(0, n, step):
        b = min(n, a + step)
        cand = candidates(a, b)
        sims = to_tie_grid(pair_similarities(Xn, cand, start=a))
        sims[cand < 0] = -np.inf
        tie_rank = np.where(cand >= 0, cand if rank is None else rank[np.maximum(cand, 0)], n)
        order = np.lexsort((tie_rank, -sims), axis=1)[:, :kk]
        I[a:b] = np.take_along_axis(cand, order, axis=1)
        D[a:b] = from_tie_grid(np.take_along_axis(sims, order, axis=1))
    D[I < 0] = 0.0
    return I, D


def refine(Xn, idx, k: int, tie_break: str = "id", random_state=0):
    """One round of neighbours-of-neighbours: each row's ``k`` current neighbours joined with
    their own current neighbours (``k + k^2`` candidates, duplicates and the row itself
    dropped), re-ranked exactly by :func:`rerank`.

    A true neighbour missed by the index is often a neighbour of a neighbour found; the
    rows not in ``idx`` among the index's candidates need no second look (their exact
    similarity already ranked them below the ``k``-th).

    Parameters
    ----------
    Xn : ndarray or scipy.sparse.csr_matrix, shape (n, d)
        Unit rows.
    idx : ndarray of int64, shape (n, k)
        Current neighbours, ``-1`` for none (e.g. :func:`rerank`'s output).
    k, tie_break, random_state
        As in :func:`rerank`.

    Returns
    -------
    indices : ndarray of int64, shape (n, k)
    similarities : ndarray of float64, shape (n, k)

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 0.0], [0.9, 0.1], [0.8, 0.2], [0.0, 1.0]])
    >>> idx, _ = refine(X, np.array([[2], [2], [1], [2]]), 1)
    >>> idx.ravel().tolist()   # 0 finds 1 through 2's list
    [1, 2, 1, 2]
    """
    idx = np.asarray(idx, dtype=np.int64)

    def candidates(a, b):
        own = idx[a:b]
        more = np.where(own[:, :, None] >= 0, idx[np.maximum(own, 0)], -1)
        cand = np.sort(np.concatenate([own, more.reshape(b - a, -1)], axis=1), axis=1)
        cand[:, 1:][cand[:, 1:] == cand[:, :-1]] = -1
        cand[cand == np.arange(a, b)[:, None]] = -1
        return cand

    width = idx.shape[1] * (1 + idx.shape[1])
    return _select(Xn, k, width, candidates, tie_break, random_state)
