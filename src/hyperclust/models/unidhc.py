"""Uni-DHC network and trainer: a learnable polynomial filter, a residual encoder, two views.

Losses: node-level consistency, hyperedge-level decorrelation on the encoded mean filter
output of each hyperedge's members, and ``gamma_reg * ||gamma - gamma_init||^2``; a step's
cost is fixed by the batch sizes (docs/unidhc.md, "Pipeline").
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
import torch
from torch import nn
import torch.nn.functional as F

from .adam import adam
from .array_batches import ArrayBatches, hyperedge_basis_means
from .losses import decorrelation_loss, node_consistency_loss, thread_invariant_sum

__all__ = ["MAX_BATCHES_PER_EPOCH", "TRAINING_THREADS", "PolynomialFilter", "ScalarPReLU",
           "ResidualEncoder", "UniDHCNet", "hyperedge_basis_means", "ArrayBatches", "train_unidhc",
           "train_on_batches", "planned_draws", "drawn_hyperedges"]

TRAINING_THREADS = 1
"""Torch threads of the training on CPU, whatever torch is set to: on narrow layers torch
splits gradient sums between threads, so the bits would depend on the thread count
(docs/unidhc.md, "Determinism")."""

MAX_BATCHES_PER_EPOCH = 8
"""Most node batches an epoch (a fresh seeded sample of the nodes each epoch), so training
cost stops growing with ``n`` (docs/unidhc.md, "Fit time")."""


class PolynomialFilter(nn.Module):
    """``Z = sum_k gamma_k B[k]`` for a basis block ``B`` of shape ``(K+1, b, d)``.

    Parameters
    ----------
    gamma_init : array-like, shape (K+1,)
        Initial coefficients; the parameter is unconstrained (any sign).

    Examples
    --------
    >>> import torch
    >>> basis = torch.stack([torch.ones(2, 3), 2 * torch.ones(2, 3)])  # (K+1, b, d) = (2, 2, 3)
    >>> PolynomialFilter([1.0, -0.5])(basis).tolist()
    [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
    """

    def __init__(self, gamma_init):
        super().__init__()
        self.gamma = nn.Parameter(torch.as_tensor(np.asarray(gamma_init, dtype=np.float32)))

    def forward(self, basis: torch.Tensor) -> torch.Tensor:
        if basis.shape[0] != self.gamma.shape[0]:
            raise ValueError(f"basis has {basis.shape[0]} orders, gamma has {self.gamma.shape[0]}")
        return torch.einsum("k,kbd->bd", self.gamma, basis)


class _ScalarPReLUFunction(torch.autograd.Function):
    """``torch.nn.functional.prelu`` with one weight, through the leaky-ReLU kernels."""

    @staticmethod
    def forward(ctx, x, slope):
        ctx.save_for_backward(x, slope)
        return F.leaky_relu(x, float(slope))

    @staticmethod
    def backward(ctx, grad):
        x, slope = ctx.saved_tensors
        grad_x = torch.ops.aten.leaky_relu_backward(grad, x, float(slope), False)
        grad_slope = thread_invariant_sum(grad * x.clamp(max=0)).reshape(slope.shape)
        return grad_x, grad_slope


class ScalarPReLU(nn.Module):
    """``torch.nn.PReLU()`` (one learned slope, initial value 0.25) on faster CPU kernels.

    Same values, gradients and parameter as ``nn.PReLU()``; the slope's gradient may differ
    in the last bits (another summation order).

    Examples
    --------
    >>> import torch
    >>> ScalarPReLU()(torch.tensor([-2.0, 0.0, 3.0])).tolist()
    [-0.5, 0.0, 3.0]
    """

    def __init__(self, init: float = 0.25):
        super().__init__()
        self.weight = nn.Parameter(torch.full((1,), float(init)))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _ScalarPReLUFunction.apply(x, self.weight)


class ResidualEncoder(nn.Module):
    """``x + MLP(x)`` with the MLP's last layer zero-initialised: the identity at the start.

    Parameters
    ----------
    dim : int
        Input and output width ``d``.
    hidden_dim : int, default 256

    Examples
    --------
    >>> import torch
    >>> x = torch.arange(6.0).reshape(2, 3)  # (b, d)
    >>> torch.equal(ResidualEncoder(3, hidden_dim=4)(x), x)  # identity at initialisation
    True
    """

    def __init__(self, dim: int, hidden_dim: int = 256):
        super().__init__()
        self.correction = nn.Sequential(nn.Linear(dim, hidden_dim), ScalarPReLU(),
                                        nn.Linear(hidden_dim, dim))
        nn.init.zeros_(self.correction[2].weight)
        nn.init.zeros_(self.correction[2].bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.correction(x)


class UniDHCNet(nn.Module):
    """Polynomial filter followed by a residual encoder.

    Parameters
    ----------
    gamma_init : array-like, shape (K+1,)
    in_dim : int
        Feature dimension ``d`` of the basis (also the encoder's output width).
    hidden_dim : int, default 256

    Examples
    --------
    >>> import torch
    >>> net = UniDHCNet([1.0, 1.0], in_dim=3, hidden_dim=4)
    >>> Z, h1, h2 = net.views(torch.ones(2, 5, 3), dropout=0.0)  # basis (K+1, b, d)
    >>> Z.shape, bool((Z == 2).all()), torch.equal(h1, Z)
    (torch.Size([5, 3]), True, True)
    """

    def __init__(self, gamma_init, in_dim: int, hidden_dim: int = 256):
        super().__init__()
        self.filter = PolynomialFilter(gamma_init)
        self.encoder = ResidualEncoder(in_dim, hidden_dim)

    def views(self, basis: torch.Tensor, dropout: float):
        """Filter output ``Z`` (b, d) and two encoded feature-dropout views of it (b, d)."""
        Z = self.filter(basis)
        return (Z,) + self.paired_views([Z], dropout)

    def paired_views(self, blocks, dropout: float, views: str = "dropout") -> tuple:
        """Two encoded views of each block (b_i, d), in one encoder call.

        ``views="dropout"``: two feature-dropout copies (rate ``dropout``);
        ``"complementary"``: a random half of each row's entries in the first view, the
        other half in the second, both scaled by 2 (docs/unidhc.md, "The deep part").
        Returns ``(view1 of block 0, view2 of block 0, view1 of block 1, ...)``.
        """
        doubled = [blk for blk in blocks for _ in (0, 1)]
        if views == "complementary":
            halves = []
            for blk in blocks:
                keep = torch.bernoulli(torch.full_like(blk, 0.5))
                halves += [2 * blk * keep, 2 * blk * (1 - keep)]
            Z = torch.cat(halves) if len(halves) > 1 else halves[0]
        else:
            Z = torch.cat(doubled) if len(doubled) > 1 else doubled[0]
            Z = F.dropout(Z, p=dropout, training=dropout > 0)
        H = self.encoder(Z)
        return tuple(torch.split(H, [blk.shape[0] for blk in doubled]))


def train_unidhc(basis: np.ndarray, incidence: sp.spmatrix, gamma_init, *, device="cpu",
                 **options):
    """Train :class:`UniDHCNet` with Adam on node / hyperedge mini-batches of an in-memory
    basis: :func:`train_on_batches` on :class:`ArrayBatches`.

    Parameters
    ----------
    basis : ndarray, shape (K+1, n, d)
    incidence : sparse, shape (n, m)
        Node-hyperedge incidence; hyperedges with fewer than 2 members are not sampled.
    gamma_init : array-like, shape (K+1,)
    device : str or torch.device, default "cpu"
    **options
        The training options of :func:`train_on_batches`, which gives the returns.

    Examples
    --------
    >>> from hyperclust import Hypergraph
    >>> from hyperclust.models.basis import polynomial_basis
    >>> from hyperclust.operators import PropagationOperator
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [2, 3]])
    >>> B = polynomial_basis(PropagationOperator(hg), np.eye(4), order=1)
    >>> net, history = train_unidhc(B, hg.incidence, [0.5, 0.5], hidden_dim=8, epochs=1)
    >>> sorted(history[0]), net.training
    (['consistency', 'decorrelation', 'epoch', 'gamma_reg', 'threads', 'total'], False)
    """
    source = ArrayBatches(basis, incidence, device,
                          edge_means=bool(options.get("decorrelation_weight", 0.1)))
    return train_on_batches(source, gamma_init, device=device, **options)


def _adam(net, lr: float, gamma_lr: float, device):
    """Adam over the encoder's parameters (``lr``) and gamma (``gamma_lr``), without
    ``torch.optim`` on CPU (:mod:`hyperclust.models.adam`)."""
    encoder = [p for name, p in net.named_parameters() if not name.startswith("filter.")]
    return adam([{"params": encoder}, {"params": [net.filter.gamma], "lr": gamma_lr}],
                lr=lr, device=device)


def _epoch_draws(rng, n_nodes, n_edges, batch_size, edge_batch):
    """One epoch's ``(node indices, hyperedge indices or None)`` per step, lazily."""
    steps = min(max(1, int(np.ceil(n_nodes / batch_size))), MAX_BATCHES_PER_EPOCH)
    perm = rng.permutation(n_nodes)
    for s in range(steps):
        batch = perm[s * batch_size:(s + 1) * batch_size]
        if batch.size < 2:
            continue
        eb = rng.choice(n_edges, size=min(edge_batch, n_edges), replace=False) \
            if edge_batch else None
        yield batch, eb


def _edge_batch(batch_size, decorrelation_weight, n_edges) -> int:
    """Hyperedges a step draws (0: no decorrelation term)."""
    return max(2, batch_size // 2) if bool(decorrelation_weight) and n_edges >= 2 else 0


def planned_draws(n_nodes, n_edges, *, epochs=20, batch_size=512, decorrelation_weight=0.1,
                  random_state=0) -> list:
    """The batches :func:`train_on_batches` draws with these settings, without training.

    They depend only on the seed and the two counts; a source that must know them first
    draws them once and hands them to the training (``draws=``).

    Parameters
    ----------
    n_nodes, n_edges : int
        ``source.n_nodes`` and ``source.n_edges``.
    epochs, batch_size, decorrelation_weight, random_state
        As in :func:`train_on_batches`.

    Returns
    -------
    list of list of (ndarray of int64, ndarray of int64 or None)
        Per epoch and step: the node batch and the step's hyperedges (None without the
        decorrelation term).

    Examples
    --------
    >>> draws = planned_draws(10_000, 50_000, epochs=2, batch_size=64)
    >>> len(draws), len(draws[0]), draws[0][0][0].shape, draws[0][0][1].shape
    (2, 8, (64,), (32,))
    """
    edge_batch = _edge_batch(batch_size, decorrelation_weight, n_edges)
    return [list(steps) for steps in _epoch_steps(None, epochs, random_state, n_nodes, n_edges,
                                                  batch_size, edge_batch)]


def _epoch_steps(draws, epochs, random_state, n_nodes, n_edges, batch_size, edge_batch):
    """Each epoch's steps: ``draws`` (checked to hold ``epochs``), or drawn from the seed."""
    if draws is None:
        rng = np.random.default_rng(random_state)
        return [_epoch_draws(rng, n_nodes, n_edges, batch_size, edge_batch)
                for _ in range(int(epochs))]
    if len(draws) != int(epochs):
        raise ValueError(f"draws holds {len(draws)} epochs, the training {int(epochs)}")
    return draws


def drawn_hyperedges(draws) -> np.ndarray:
    """The hyperedges a training on ``draws`` (:func:`planned_draws`) reads (``source.edges``).

    Returns sorted, distinct hyperedge indices, shape (r,), int64.

    Examples
    --------
    >>> drawn_hyperedges(planned_draws(100, 50, decorrelation_weight=0.0)).size
    0
    """
    drawn = [eb for epoch in draws for _, eb in epoch if eb is not None]
    return np.unique(np.concatenate(drawn)).astype(np.int64) if drawn \
        else np.zeros(0, dtype=np.int64)


def _train_epoch(net, source, opt, steps, g0, *, edge_batch, weights, dropout, views,
                 device):
    """One epoch's Adam steps; the mean ``(total, consistency, decorrelation, gamma_reg)``."""
    consistency_weight, decorrelation_weight, gamma_reg = weights
    net.train()
    sums, taken = np.zeros(4), 0
    for batch, eb in steps:
        blocks = [net.filter(source.nodes(batch))]
        if edge_batch:
            blocks.append(net.filter(source.edges(eb)))
        encoded = net.paired_views(blocks, dropout, views)
        l_node = node_consistency_loss(encoded[0], encoded[1])
        l_edge = torch.zeros((), device=device)
        if edge_batch:
            l_edge = decorrelation_loss(encoded[2], encoded[3])
        l_reg = (net.filter.gamma - g0).pow(2).sum()
        loss = (consistency_weight * l_node + decorrelation_weight * l_edge
                + gamma_reg * l_reg)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sums += [loss.item(), l_node.item(), l_edge.item(), l_reg.item()]
        taken += 1
    return sums / max(taken, 1)


def _network(gamma_init, dim, hidden_dim, lr, gamma_lr, device):
    """``(net, gamma_init as a tensor, Adam)`` of a training, on ``device``."""
    net = UniDHCNet(gamma_init, dim, hidden_dim).to(device)
    # a gamma at lr 0 needs no gradient: backward skips the encoder's input gradient
    net.filter.gamma.requires_grad_(gamma_lr > 0)
    return net, net.filter.gamma.detach().clone(), _adam(net, lr, gamma_lr, device)


def train_on_batches(source, gamma_init, *, hidden_dim=256, epochs=20, lr=1e-3, gamma_lr=1e-3,
                     batch_size=512, decorrelation_weight=0.1, gamma_reg=1.0, dropout=0.2,
                     consistency_weight=1.0, views="dropout", random_state=0, device="cpu",
                     verbose=False, draws=None):
    """Train :class:`UniDHCNet` with Adam on node / hyperedge mini-batches of a batch source.

    The batches depend only on ``random_state``, ``source.n_nodes`` and ``source.n_edges``;
    on CPU it runs on :data:`TRAINING_THREADS` torch threads (restored on return).

    Parameters
    ----------
    source : batch source
        :class:`ArrayBatches`, or any object with its attributes and methods.
    gamma_init : array-like, shape (K+1,)
    hidden_dim, epochs, lr, gamma_lr, batch_size, decorrelation_weight, gamma_reg, \
dropout, consistency_weight, views, random_state, device, verbose
        As in :class:`hyperclust.cluster.UniDHC` (same defaults but ``gamma_lr=1e-3``).
    draws : list, optional
        The batches drawn earlier by :func:`planned_draws` with the same settings.

    Returns
    -------
    net : UniDHCNet (in eval mode, on ``device``)
    history : list of dict
        Per-epoch mean losses (``total``, ``consistency``, ``decorrelation``, ``gamma_reg``)
        and the torch ``threads`` the epoch ran with.

    Examples
    --------
    >>> H = sp.csr_matrix(np.array([[1, 0], [1, 1], [0, 1], [0, 1]]))
    >>> basis = np.random.default_rng(0).normal(size=(2, 4, 3))
    >>> net, history = train_on_batches(ArrayBatches(basis, H, "cpu"), [1.0, 0.0],
    ...                                 hidden_dim=4, epochs=2, batch_size=4)
    >>> [h["epoch"] for h in history], tuple(net.filter.gamma.shape)
    ([1, 2], (2,))
    """
    from tqdm.auto import tqdm

    device = torch.device(device)
    torch.manual_seed(random_state)
    net, g0, opt = _network(gamma_init, source.dim, hidden_dim, lr, gamma_lr, device)
    edge_batch = _edge_batch(batch_size, decorrelation_weight, source.n_edges)
    epoch_steps = _epoch_steps(draws, epochs, random_state, source.n_nodes, source.n_edges,
                               batch_size, edge_batch)
    history = []
    bar = tqdm(range(int(epochs)), desc="Uni-DHC", disable=not verbose, leave=False)
    threads_before = torch.get_num_threads()
    try:
        if device.type == "cpu":
            torch.set_num_threads(TRAINING_THREADS)
        threads = torch.get_num_threads()
        for epoch in bar:
            sums = _train_epoch(net, source, opt, epoch_steps[epoch], g0, edge_batch=edge_batch,
                                weights=(consistency_weight, decorrelation_weight, gamma_reg),
                                dropout=dropout, views=views, device=device)
            history.append({"epoch": epoch + 1, "total": sums[0], "consistency": sums[1],
                            "decorrelation": sums[2], "gamma_reg": sums[3], "threads": threads})
            bar.set_postfix(loss=f"{sums[0]:.4f}")
    finally:
        torch.set_num_threads(threads_before)
    net.eval()
    return net, history
