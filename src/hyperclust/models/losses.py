"""Uni-DHC's self-supervised losses on node / hyperedge batches of two views ``(b, d)``.

Sums go through :func:`thread_invariant_sum`: the same bits whatever torch's thread count.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

__all__ = ["node_consistency_loss", "decorrelation_loss", "thread_invariant_sum"]

#: torch reduces at most this many entries to one value on a single thread; longer full
#: reductions are split into one chunk per thread (ATen's ``GRAIN_SIZE``).
_SERIAL_REDUCTION = 32768
_ROW = 1024


def node_consistency_loss(z1: torch.Tensor, z2: torch.Tensor,
                          off_weight: float = 1.0) -> torch.Tensor:
    """``mean_i (1 - S_ii)^2 + off_weight * mean_{i != j} S_ij^2``, ``S`` the cross-view cosines.

    ``S`` (``(b, b)``) is formed only when ``d >= b``; otherwise ``sum S_ij^2`` comes from the
    two ``(d, d)`` Grams (``||A B^T||_F^2 = <A^T A, B^T B>_F``).

    Examples
    --------
    >>> z = torch.eye(3)
    >>> float(node_consistency_loss(z, z))
    0.0
    """
    b, d = z1.shape
    a, c = F.normalize(z1, dim=1), F.normalize(z2, dim=1)
    diag = (a * c).sum(dim=1)
    on = thread_invariant_sum((1.0 - diag) ** 2) / b
    if b < 2:
        return on
    if d < b:
        total = thread_invariant_sum((a.T @ a) * (c.T @ c))
    else:
        total = thread_invariant_sum((a @ c.T).pow(2))
    off = (total - thread_invariant_sum(diag.pow(2))) / (b * (b - 1))
    return on + off_weight * off


def decorrelation_loss(h1: torch.Tensor, h2: torch.Tensor, off_weight: float | None = None,
                       eps: float = 1e-6) -> torch.Tensor:
    """Barlow-Twins loss: ``(sum_i (1 - C_ii)^2 + off_weight sum_{i != j} C_ij^2) / d``.

    ``C = h1n^T h2n / b`` of the batch-standardised views; ``off_weight`` defaults to ``1 / d``.

    Examples
    --------
    >>> h = torch.tensor([[1.0, -1.0], [-1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]])
    >>> round(float(decorrelation_loss(h, h)), 6)
    0.0
    """
    b, d = h1.shape
    if off_weight is None:
        off_weight = 1.0 / d
    h1n = (h1 - h1.mean(0)) / (h1.std(0, unbiased=False) + eps)
    h2n = (h2 - h2.mean(0)) / (h2.std(0, unbiased=False) + eps)
    C = h1n.T @ h2n / b
    diag = torch.diagonal(C)
    on = thread_invariant_sum((1.0 - diag) ** 2)
    off = thread_invariant_sum(C.pow(2)) - thread_invariant_sum(diag.pow(2))
    return (on + off_weight * off) / d


def thread_invariant_sum(x: torch.Tensor) -> torch.Tensor:
    """Sum of all entries of ``x`` (any shape), bit-identical whatever torch's thread count.

    torch splits a long full reduction into one chunk per thread; rows of 1024 are summed first
    (one output per thread, fixed order) until one serial sum remains.

    Examples
    --------
    >>> x = torch.arange(70000, dtype=torch.float64)
    >>> float(thread_invariant_sum(x)) == float(x.sum())
    True
    """
    x = x.reshape(-1)
    while x.numel() > _SERIAL_REDUCTION:
        rows = -(-x.numel() // _ROW)
        x = F.pad(x, (0, rows * _ROW - x.numel())).reshape(rows, _ROW).sum(dim=1)
    return x.sum()
