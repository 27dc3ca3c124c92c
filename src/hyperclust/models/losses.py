"""Self-supervised losses of Uni-DHC, computed on node / hyperedge batches (no n x n matrix).

All functions take two views ``z1, z2`` of shape ``(b, d)`` for the same ``b`` items.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

__all__ = ["node_consistency_loss", "infonce_loss", "decorrelation_loss", "hyperedge_means",
           "similar_pair_weights"]


def node_consistency_loss(z1: torch.Tensor, z2: torch.Tensor, off_weight: float = 1.0,
                          pair_weights: torch.Tensor | None = None) -> torch.Tensor:
    """Push the cross-view cosine-similarity matrix of a node batch towards the identity.

    ``S = normalize(z1) normalize(z2)^T`` (shape ``(b, b)``, ``b`` = batch size, kept small by
    sampling); loss = ``mean_i (1 - S_ii)^2 + off_weight * mean_{i != j} S_ij^2``. With
    ``pair_weights`` (b, b), zero on the diagonal, the second mean is the
    ``pair_weights``-weighted mean of ``S_ij^2`` (see :func:`similar_pair_weights`).
    """
    b = z1.shape[0]
    S = F.normalize(z1, dim=1) @ F.normalize(z2, dim=1).T
    diag = torch.diagonal(S)
    on = ((1.0 - diag) ** 2).mean()
    if b < 2:
        return on
    if pair_weights is not None:
        off = (S.pow(2) * pair_weights).sum() / pair_weights.sum().clamp(min=1e-12)
    else:
        off = (S.pow(2).sum() - diag.pow(2).sum()) / (b * (b - 1))
    return on + off_weight * off


def similar_pair_weights(z: torch.Tensor, fraction: float) -> torch.Tensor:
    """Repulsion weights that spare each node's most similar batch mates.

    Pair ``(i, j)`` gets weight 0 when ``j`` is one of the ``max(1, round(fraction * (b - 1)))``
    batch mates most similar to ``i`` by cosine similarity of the batch-centred ``z`` (likely
    the same cluster: a "false negative" of instance discrimination), 1 otherwise; the
    diagonal is 0. Not symmetric in general.

    Parameters
    ----------
    z : tensor, shape (b, d)
    fraction : float in (0, 1)

    Returns
    -------
    tensor, shape (b, b), not attached to the autograd graph
    """
    b = z.shape[0]
    weights = 1.0 - torch.eye(b, dtype=z.dtype, device=z.device)
    if b < 2:
        return weights
    with torch.no_grad():
        zn = F.normalize(z - z.mean(0), dim=1)
        S = zn @ zn.T
        S.fill_diagonal_(float("-inf"))
        n_spared = min(b - 1, max(1, round(fraction * (b - 1))))
        return weights.scatter_(1, S.topk(n_spared, dim=1).indices, 0.0)


def infonce_loss(z1: torch.Tensor, z2: torch.Tensor, temperature: float = 0.5) -> torch.Tensor:
    """Symmetric InfoNCE on a node batch: node ``i`` of view 1 must pick node ``i`` of view 2."""
    S = F.normalize(z1, dim=1) @ F.normalize(z2, dim=1).T / temperature
    target = torch.arange(S.shape[0], device=S.device)
    return 0.5 * (F.cross_entropy(S, target) + F.cross_entropy(S.T, target))


def decorrelation_loss(h1: torch.Tensor, h2: torch.Tensor, off_weight: float | None = None,
                       eps: float = 1e-6) -> torch.Tensor:
    """Barlow-Twins loss on hyperedge embeddings: the ``(d, d)`` cross-view correlation -> I.

    Columns are standardised over the batch; ``C = h1n^T h2n / b``; loss =
    ``sum_i (1 - C_ii)^2 / d + off_weight * sum_{i != j} C_ij^2 / d`` with default
    ``off_weight = 1 / d``. Cost O(b d^2), independent of the number of hyperedges.
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


def hyperedge_means(incidence_t: torch.Tensor, z: torch.Tensor) -> torch.Tensor:
    """Mean member embedding of each hyperedge.

    Parameters
    ----------
    incidence_t : torch sparse tensor, shape (m_b, u)
        Rows = hyperedges of the batch, columns = their member nodes (local ids), entries
        = hyperedge weight / (weighted) size, so each row sums to 1.
    z : tensor, shape (u, d)

    Returns
    -------
    tensor, shape (m_b, d)
    """
    return torch.sparse.mm(incidence_t, z)
