"""Self-supervised losses of Uni-DHC, computed on node / hyperedge batches (no n x n matrix).

Both functions take two views ``z1, z2`` of shape ``(b, d)`` for the same ``b`` items.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

__all__ = ["node_consistency_loss", "decorrelation_loss"]


def node_consistency_loss(z1: torch.Tensor, z2: torch.Tensor,
                          off_weight: float = 1.0) -> torch.Tensor:
    """Push the cross-view cosine-similarity matrix of a node batch towards the identity.

    With ``S = normalize(z1) normalize(z2)^T`` (shape ``(b, b)``) the loss is
    ``mean_i (1 - S_ii)^2 + off_weight * mean_{i != j} S_ij^2``. ``S`` is only formed when
    ``d >= b``: otherwise ``sum_ij S_ij^2 = ||A B^T||_F^2 = <A^T A, B^T B>_F`` (``A``, ``B``
    the normalised views) gives the same value from two ``(d, d)`` Gram matrices, in
    ``O(b d^2)`` instead of ``O(b^2 d)`` time and ``O(d^2)`` memory.

    Examples
    --------
    >>> z = torch.eye(3)
    >>> float(node_consistency_loss(z, z))
    0.0
    """
    b, d = z1.shape
    a, c = F.normalize(z1, dim=1), F.normalize(z2, dim=1)
    diag = (a * c).sum(dim=1)
    on = ((1.0 - diag) ** 2).mean()
    if b < 2:
        return on
    if d < b:
        total = ((a.T @ a) * (c.T @ c)).sum()
    else:
        total = (a @ c.T).pow(2).sum()
    off = (total - diag.pow(2).sum()) / (b * (b - 1))
    return on + off_weight * off


def decorrelation_loss(h1: torch.Tensor, h2: torch.Tensor, off_weight: float | None = None,
                       eps: float = 1e-6) -> torch.Tensor:
    """Barlow-Twins loss on hyperedge embeddings: the ``(d, d)`` cross-view correlation -> I.

    Columns are standardised over the batch; ``C = h1n^T h2n / b``; loss =
    ``sum_i (1 - C_ii)^2 / d + off_weight * sum_{i != j} C_ij^2 / d`` with default
    ``off_weight = 1 / d``. Cost O(b d^2), independent of the number of hyperedges.

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
    on = ((1.0 - diag) ** 2).sum()
    off = C.pow(2).sum() - diag.pow(2).sum()
    return (on + off_weight * off) / d
