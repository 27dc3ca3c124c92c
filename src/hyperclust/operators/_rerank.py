"""Exact re-ranking of approximate nearest-neighbour candidates: cosine similarities recomputed
on the original rows, the ``K`` best kept with the exact search's tie rule.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ._topk import from_tie_grid, to_tie_grid

__all__ = ["pair_similarities", "rerank", "refine"]

_BLOCK_ENTRIES = 2 ** 22  # products (pairs x shared dimensions) per block


def pair_similarities(Xn, I, start: int = 0) -> np.ndarray:
    """``sim[i, j] = <Xn[start + i], Xn[I[i, j]]>`` (0 where ``I`` is -1), float64, in row blocks.
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
    """:func:`pair_similarities` of CSR rows into ``out``, in blocks of about ``2^22`` entries."""
    n, c = I.shape
    per_row = max(1, int(np.ceil(Xn.nnz / max(1, Xn.shape[0]))))
    block = max(1, _BLOCK_ENTRIES // (c * per_row))
    for b in range(0, n, block):
        J = I[b:b + block]
        rows = np.repeat(np.arange(first + b, first + b + J.shape[0]), c)
        s = np.asarray(Xn[rows].multiply(Xn[np.maximum(J, 0).ravel()]).sum(axis=1))
        out[b:b + J.shape[0]] = np.where(J >= 0, s.reshape(J.shape), 0.0)


def rerank(Xn, cand, k: int, tie_break: str = "id", random_state=0):
    """The ``k`` candidates (``cand``, shape (n, c), -1 for none) of each unit row of ``Xn`` with the
    largest exact similarity.

    ``tie_break``: equal similarities by node id (``"id"``) or by the exact search's permutation
    seeded by ``random_state`` (``"random"``). Returns ``(indices, similarities)``, shape (n, k),
    most similar first, ``-1`` / 0 where fewer than ``k`` candidates exist.
    """
    cand = np.asarray(cand, dtype=np.int64)
    return _select(Xn, k, cand.shape[1], lambda a, b: cand[a:b], tie_break, random_state)


def _select(Xn, k, width, candidates, tie_break, random_state):
    """:func:`rerank` of ``candidates(a, b)`` block by block."""
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
    """One round of neighbours-of-neighbours: each row's neighbours ``idx`` (n, k) joined with
    theirs, re-ranked by :func:`rerank`.
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
