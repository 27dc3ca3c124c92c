"""Uni-DHC network and trainer: a learnable polynomial filter, an encoder, two views.

The filter output for a node batch is ``Z_b = sum_k gamma_k B[k, b]`` where ``B`` is the
precomputed basis ``[T_0(P) X, ..., T_K(P) X]`` (:mod:`hyperclust.models.basis`); ``gamma`` is
an unconstrained real vector (negative values allowed, so high-pass shapes are reachable).
Two views are feature-dropout copies of ``Z_b`` passed through one shared encoder (by
default residual: ``Z + MLP(Z)``, the identity at initialisation).
Losses: node-level consistency on a node batch, hyperedge-level decorrelation on the mean
embeddings of a hyperedge batch, and ``rho * ||gamma - gamma_init||^2`` that keeps the filter
near its (label-free) initial shape. No loss ever builds an n x n or m x m matrix.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
import torch
from torch import nn
import torch.nn.functional as F

from .losses import (decorrelation_loss, hyperedge_means, infonce_loss, node_consistency_loss,
                     similar_pair_weights)

__all__ = ["ENCODERS", "PolynomialFilter", "ResidualEncoder", "UniDHCNet", "sample_co_members",
           "train_unidhc"]


class PolynomialFilter(nn.Module):
    """``Z = sum_k gamma_k B[k]`` for a basis block ``B`` of shape ``(K+1, b, d)``.

    Parameters
    ----------
    gamma_init : array-like, shape (K+1,)
        Initial coefficients; the parameter is unconstrained (any sign).
    """

    def __init__(self, gamma_init):
        super().__init__()
        self.gamma = nn.Parameter(torch.as_tensor(np.asarray(gamma_init, dtype=np.float32)))

    def forward(self, basis: torch.Tensor) -> torch.Tensor:
        if basis.shape[0] != self.gamma.shape[0]:
            raise ValueError(f"basis has {basis.shape[0]} orders, gamma has {self.gamma.shape[0]}")
        return torch.einsum("k,kbd->bd", self.gamma, basis)


class ResidualEncoder(nn.Module):
    """``x + MLP(x)`` with the MLP's last layer zero-initialised: the identity at the start.

    Training then learns a correction of the filter output instead of a new representation,
    so the encoder cannot wander far from the filter's geometry when the losses give it no
    reason to (docs/unidhc.md, "Residual encoder").

    Parameters
    ----------
    dim : int
        Input and output width ``d``.
    hidden_dim : int
    """

    def __init__(self, dim: int, hidden_dim: int = 256):
        super().__init__()
        self.correction = nn.Sequential(nn.Linear(dim, hidden_dim), nn.PReLU(),
                                        nn.Linear(hidden_dim, dim))
        nn.init.zeros_(self.correction[2].weight)
        nn.init.zeros_(self.correction[2].bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.correction(x)


ENCODERS = ("residual", "mlp")


class UniDHCNet(nn.Module):
    """Polynomial filter followed by a two-layer encoder.

    Parameters
    ----------
    gamma_init : array-like, shape (K+1,)
    in_dim : int
        Feature dimension ``d`` of the basis.
    hidden_dim, out_dim : int
        ``out_dim`` is the output width of the ``"mlp"`` encoder; the residual encoder
        keeps the width ``d``.
    encoder : {"residual", "mlp"}, default "residual"
        :class:`ResidualEncoder` (``Z + MLP(Z)``, starts as the identity) or a plain MLP
        ``d -> hidden_dim -> out_dim``.
    """

    def __init__(self, gamma_init, in_dim: int, hidden_dim: int = 256, out_dim: int = 64,
                 encoder: str = "residual"):
        super().__init__()
        if encoder not in ENCODERS:
            raise ValueError(f"encoder must be one of {ENCODERS}, got {encoder!r}")
        self.filter = PolynomialFilter(gamma_init)
        if encoder == "residual":
            self.encoder = ResidualEncoder(in_dim, hidden_dim)
        else:
            self.encoder = nn.Sequential(nn.Linear(in_dim, hidden_dim), nn.PReLU(),
                                         nn.Linear(hidden_dim, out_dim))

    def forward(self, basis: torch.Tensor, dropout: float = 0.0):
        """Return ``(Z, H)`` of one view: filter output (b, d) and encoder output (b, d), or
        (b, out_dim) with the ``"mlp"`` encoder."""
        Z = self.filter(basis)
        return Z, self.encoder(F.dropout(Z, p=dropout, training=dropout > 0))


def _edge_batch(Ht: sp.csr_matrix, edges: np.ndarray, member_cap: int | None = None,
                rng: np.random.Generator | None = None):
    """Row-normalised incidence of a hyperedge batch over the union of its members.

    With ``member_cap``, a hyperedge larger than the cap is represented by ``member_cap`` of
    its members drawn uniformly without replacement (an unbiased estimate of its mean), so
    one step never touches more than ``len(edges) * member_cap`` nodes.
    """
    sub = Ht[edges]
    rows = np.repeat(np.arange(sub.shape[0]), np.diff(sub.indptr))
    cols = sub.indices
    if member_cap is not None and np.diff(sub.indptr).max(initial=0) > member_cap:
        order = np.lexsort((rng.random(cols.size), rows))
        rank = np.arange(cols.size) - sub.indptr[rows[order]]
        keep = np.sort(order[rank < member_cap])
        rows, cols = rows[keep], cols[keep]
    members, local = np.unique(cols, return_inverse=True)
    sizes = np.bincount(rows, minlength=sub.shape[0]).astype(np.float64)
    vals = 1.0 / sizes[rows]
    idx = torch.as_tensor(np.vstack([rows, local]), dtype=torch.long)
    M = torch.sparse_coo_tensor(idx, torch.as_tensor(vals, dtype=torch.float32),
                                (sub.shape[0], members.size), check_invariants=False).coalesce()
    return members, M


def sample_co_members(incidence: sp.csr_matrix, incidence_t: sp.csr_matrix, nodes: np.ndarray,
                      rng: np.random.Generator) -> np.ndarray:
    """One random co-member per node: a uniform incident hyperedge, then a uniform member of it.

    Parameters
    ----------
    incidence : CSR, shape (n, m); incidence_t : CSR, shape (m, n)
    nodes : ndarray of int, shape (b,)

    Returns
    -------
    ndarray of int, shape (b,)
        Nodes in no hyperedge get themselves. Vectorised (no loop over nodes).
    """
    nodes = np.asarray(nodes)
    degree = np.diff(incidence.indptr)[nodes]
    out = nodes.copy()
    has = degree > 0
    if has.any():
        v = nodes[has]
        e = incidence.indices[incidence.indptr[v] + (rng.random(v.size) * degree[has]).astype(np.int64)]
        size = np.diff(incidence_t.indptr)[e]
        out[has] = incidence_t.indices[incidence_t.indptr[e] + (rng.random(e.size) * size).astype(np.int64)]
    return out


def train_unidhc(basis: np.ndarray, incidence: sp.csr_matrix, gamma_init, *, hidden_dim=256,
                 out_dim=64, encoder="residual", epochs=20, lr=1e-3, gamma_lr=1e-3,
                 weight_decay=0.0, batch_size=512,
                 edge_batch_size=256, consistency="cosine", consistency_weight=1.0,
                 decorrelation_weight=1.0, gamma_reg=1.0, dropout=0.2, temperature=0.5,
                 positives="dropout", edge_member_cap=64, false_negative_fraction=None,
                 random_state=0, device="cpu", verbose=False):
    """Train :class:`UniDHCNet` with Adam on node / hyperedge mini-batches.

    Parameters
    ----------
    basis : ndarray, shape (K+1, n, d)
    incidence : CSR, shape (n, m)
        Node-hyperedge incidence; hyperedges with fewer than 2 members are not sampled.
    gamma_init : array-like, shape (K+1,)
    hidden_dim, out_dim, encoder
        Passed to :class:`UniDHCNet`.
    lr, gamma_lr : float
        Adam learning rates of the encoder and of gamma.
    epochs : int
        One epoch = one pass over the nodes in batches of ``batch_size``; each step also
        draws ``edge_batch_size`` hyperedges for the decorrelation loss.
    consistency : {"cosine", "infonce"}
    consistency_weight, decorrelation_weight, gamma_reg : float
        Loss weights; ``gamma_reg`` multiplies ``||gamma - gamma_init||^2``.
    dropout : float
        Feature-dropout rate that makes the two views.
    positives : {"dropout", "co-member"}
        Second view of node ``i``: a dropout copy of ``i`` itself, or of a random co-member
        of ``i`` (:func:`sample_co_members`), which pulls hyperedge neighbours together.
    edge_member_cap : int or None, default 64
        Hyperedges larger than this enter the decorrelation loss through a uniform sample
        of this many members (fresh every step); ``None`` uses all members.
    false_negative_fraction : float in (0, 1) or None
        With the cosine consistency, each node's most similar batch mates (this fraction of
        the batch, by the centred filter output) are not pushed apart
        (:func:`~hyperclust.models.losses.similar_pair_weights`); ``None`` pushes all pairs.
    random_state : int
    device : str or torch.device
    verbose : bool
        Show a tqdm progress bar.

    Returns
    -------
    net : UniDHCNet (in eval mode, on ``device``)
    history : list of dict
        Per-epoch mean losses: ``{"epoch", "total", "consistency", "decorrelation", "gamma_reg"}``.
    """
    from tqdm.auto import tqdm

    device = torch.device(device)
    torch.manual_seed(random_state)
    rng = np.random.default_rng(random_state)
    K1, n, d = basis.shape
    B = torch.as_tensor(basis, dtype=torch.float32, device=device)
    net = UniDHCNet(gamma_init, d, hidden_dim, out_dim, encoder).to(device)
    g0 = net.filter.gamma.detach().clone()
    enc_params = [p for name, p in net.named_parameters() if not name.startswith("filter.")]
    opt = torch.optim.Adam([{"params": enc_params, "weight_decay": weight_decay},
                            {"params": [net.filter.gamma], "lr": gamma_lr}], lr=lr)
    if positives not in ("dropout", "co-member"):
        raise ValueError(f"positives must be 'dropout' or 'co-member', got {positives!r}")
    if false_negative_fraction and consistency != "cosine":
        raise ValueError("false_negative_fraction applies to consistency='cosine' only")
    Hc = sp.csr_matrix(incidence)
    Ht = Hc.T.tocsr()
    usable = np.flatnonzero(np.diff(Ht.indptr) >= 2)
    steps = max(1, int(np.ceil(n / batch_size)))
    history = []
    bar = tqdm(range(int(epochs)), desc="Uni-DHC", disable=not verbose, leave=False)
    for epoch in bar:
        net.train()
        perm = rng.permutation(n)
        sums = np.zeros(4)
        for s in range(steps):
            batch = perm[s * batch_size:(s + 1) * batch_size]
            if batch.size < 2:
                continue
            Bb = B[:, torch.as_tensor(batch, device=device)]
            z, h1 = net(Bb, dropout)
            if positives == "co-member":
                mates = sample_co_members(Hc, Ht, batch, rng)
                _, h2 = net(B[:, torch.as_tensor(mates, device=device)], dropout)
            else:
                _, h2 = net(Bb, dropout)
            if consistency == "infonce":
                l_node = infonce_loss(h1, h2, temperature)
            else:
                weights = similar_pair_weights(z, false_negative_fraction) \
                    if false_negative_fraction else None
                l_node = node_consistency_loss(h1, h2, pair_weights=weights)
            l_edge = torch.zeros((), device=device)
            if decorrelation_weight and usable.size >= 2:
                eb = rng.choice(usable, size=min(edge_batch_size, usable.size), replace=False)
                members, M = _edge_batch(Ht, np.sort(eb), edge_member_cap, rng)
                Be = B[:, torch.as_tensor(members, device=device)]
                M = M.to(device)
                _, e1 = net(Be, dropout)
                _, e2 = net(Be, dropout)
                l_edge = decorrelation_loss(hyperedge_means(M, e1), hyperedge_means(M, e2))
            l_reg = (net.filter.gamma - g0).pow(2).sum()
            loss = consistency_weight * l_node + decorrelation_weight * l_edge + gamma_reg * l_reg
            opt.zero_grad()
            loss.backward()
            opt.step()
            sums += [loss.item(), l_node.item(), l_edge.item(), l_reg.item()]
        sums /= steps
        history.append({"epoch": epoch + 1, "total": sums[0], "consistency": sums[1],
                        "decorrelation": sums[2], "gamma_reg": sums[3]})
        bar.set_postfix(loss=f"{sums[0]:.4f}")
    net.eval()
    return net, history
