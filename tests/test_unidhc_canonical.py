"""The feature-split canonical correlation that learns Uni-DHC's filter by default
(hyperclust.models.canonical)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from hyperclust import Hypergraph
from hyperclust.cluster.unidhc import UniDHC
from hyperclust.datasets import hypergraph_sbm
from hyperclust.models.basis import polynomial_basis
from hyperclust.models.canonical import RIDGE, canonical_correlation, canonical_parts
from hyperclust.operators.propagation import PropagationOperator
from test_unidhc_contrast import _dense_filter


def _tiny(d=6, seed=4):
    hg = Hypergraph.from_edges([[0, 1, 2], [2, 3], [3, 4, 5], [5, 6, 0], [4, 8, 9], [9, 1]],
                               n_nodes=11)  # node 7 and 10 isolated
    X = np.random.default_rng(seed).normal(size=(11, d))
    return hg, PropagationOperator(hg), X


def _ridged(C):
    return C + RIDGE * torch.trace(C) / len(C) * torch.eye(len(C), dtype=C.dtype)


def _top_squared_correlations(Z, R, m):
    """Sum of the m largest squared canonical correlations of Z and R, the textbook way:
    eigenvalues of Cz^-1/2 Czr Cr^-1 Crz Cz^-1/2 (ridge on both covariances)."""
    Z, R = Z - Z.mean(0), R - R.mean(0)
    L = torch.linalg.cholesky(_ridged(Z.T @ Z))
    A = torch.linalg.solve_triangular(L, Z.T @ R, upper=False)
    K = A @ torch.linalg.solve(_ridged(R.T @ R), A.T)
    return torch.linalg.eigvalsh(0.5 * (K + K.T))[-m:].sum()


@pytest.mark.parametrize("m", [1, 2, 3])
def test_value_and_gradient_match_a_dense_autograd_reference(m):
    hg, P, X = _tiny()
    B = polynomial_basis(P, X, 2)
    rows = np.flatnonzero(~hg.isolated)
    parts = canonical_parts(B, rows, random_state=2)
    cols = np.random.default_rng(2).permutation(6)
    a, b = cols[:3], cols[3:]
    gamma = torch.tensor([0.3, 0.5, -0.2], dtype=torch.float64, requires_grad=True)
    Z = (_dense_filter(P, gamma) @ torch.tensor(X))[rows]
    Xt = torch.tensor(X)[rows]
    J = -0.5 * (torch.log(_top_squared_correlations(Z[:, a], Xt[:, b], m))
                + torch.log(_top_squared_correlations(Z[:, b], Xt[:, a], m)))
    J.backward()
    value, grad = canonical_correlation(gamma.detach().numpy(), parts, n_components=m)
    assert value == pytest.approx(J.item(), rel=1e-9)
    assert np.allclose(grad, gamma.grad.numpy(), rtol=1e-6, atol=1e-10)


def test_value_is_scale_free_and_clipped_components_sum_every_correlation():
    hg, P, X = _tiny()
    parts = canonical_parts(polynomial_basis(P, X, 2), np.flatnonzero(~hg.isolated), 0)
    g = np.array([0.2, 0.5, 0.3])
    assert canonical_correlation(g, parts, 2)[0] == pytest.approx(
        canonical_correlation(5 * g, parts, 2)[0])
    # more components than the halves have columns: all of them, the same as exactly 3
    assert canonical_correlation(g, parts, 10)[0] == pytest.approx(
        canonical_correlation(g, parts, 3)[0])


def test_a_filter_that_recovers_the_shared_signal_scores_higher():
    # two halves share a class signal; a filter that averages within the classes (P over
    # class cliques) raises the correlation, one that averages across classes lowers it
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1, 2], 20)
    signal = rng.normal(size=(3, 8))[y] * 0.7
    X = signal + rng.normal(size=(60, 8))
    within = [list(np.flatnonzero(y == c)[i:i + 5]) for c in range(3) for i in range(0, 20, 5)]
    across = [[int(np.flatnonzero(y == c)[i]) for c in range(3)] for i in range(20)]
    scores = {}
    for name, edges in (("within", within), ("across", across)):
        hg = Hypergraph.from_edges(edges, n_nodes=60)
        B = polynomial_basis(PropagationOperator(hg), X, 1)
        parts = canonical_parts(B, np.arange(60), random_state=0)
        scores[name] = -canonical_correlation(np.array([0.0, 1.0]), parts, 2)[0]
        scores[name + " identity"] = -canonical_correlation(np.array([1.0, 0.0]), parts, 2)[0]
    assert scores["within"] > scores["within identity"]
    assert scores["across"] < scores["across identity"]


@pytest.mark.parametrize("seed", range(5))
def test_mid_homophily_filter_is_less_smooth_than_the_kernel_alignments(seed):
    # h = .4, 4 classes: P X beats P^2 X (docs/unidhc.md); the alignment puts most of the
    # weight on P^2, the canonical correlation keeps more of it on lower orders
    hg = hypergraph_sbm(1000, 4, homophily=0.4, n_features=32, random_state=seed)
    canonical = UniDHC(4, epochs=0, embedding="filter", random_state=seed).fit(hg)
    alignment = UniDHC(4, gamma_init="alignment", epochs=0, embedding="filter",
                       random_state=seed).fit(hg)
    assert canonical.filter_family_ == "canonical"
    assert canonical.mixture_weights_[2] < alignment.mixture_weights_[2]


def test_fit_is_deterministic_for_a_seed():
    hg = hypergraph_sbm(400, 3, homophily=0.5, n_features=8, random_state=0)
    a = UniDHC(3, epochs=0, random_state=4).fit(hg)
    b = UniDHC(3, epochs=0, random_state=4).fit(hg)
    assert np.array_equal(a.mixture_weights_, b.mixture_weights_)
    assert np.array_equal(a.labels_, b.labels_)
