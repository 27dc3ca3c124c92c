"""The structure contrast that learns Uni-DHC's filter (hyperclust.models.contrast)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from hyperclust import Hypergraph
from hyperclust.cluster.unidhc import UniDHC
from hyperclust.datasets import hypergraph_sbm
from hyperclust.models.basis import polynomial_basis
from hyperclust.models.contrast import (alignment_parts, atom_coefficients, contrast_grams,
                                        energy_contrast, feature_split_alignment,
                                        learn_mixture, low_pass_share, power_gram)
from hyperclust.operators.propagation import PropagationOperator


def _tiny():
    hg = Hypergraph.from_edges([[0, 1, 2], [2, 3], [3, 4, 5], [5, 6, 0], [4]],
                               n_nodes=8)  # node 7 isolated
    X = np.random.default_rng(3).normal(size=(8, 3))
    return hg, PropagationOperator(hg), X


def test_power_gram_matches_the_basis_gram():
    hg, P, X = _tiny()
    B = polynomial_basis(P, X, 3)
    assert np.allclose(power_gram(P, X, 3), np.einsum("knd,lnd->kl", B, B))


def test_atoms_are_the_named_polynomials():
    hg, P, X = _tiny()
    dense = P.matmat(np.eye(8))
    M = atom_coefficients(2)
    lap = np.eye(8) - dense
    expected = [np.eye(8), dense, dense @ dense, lap, lap @ lap]
    for row, ref in zip(M, expected):
        assert np.allclose(sum(c * np.linalg.matrix_power(dense, k) for k, c in enumerate(row)),
                           ref)


def _dense_filter(P, gamma):
    """``sum_k gamma_k P^k`` as a dense torch matrix (gamma a torch vector)."""
    Pd = torch.tensor(P.matmat(np.eye(P.shape[0])))
    out, power = 0, torch.eye(P.shape[0], dtype=torch.float64)
    for g in gamma:
        out, power = out + g * power, power @ Pd
    return out


def test_energy_contrast_value_and_gradient_match_a_dense_autograd_reference():
    hg, P, X = _tiny()
    G, Gs = contrast_grams(P, X, 2, ~hg.isolated, random_state=5)
    # dense reference: rebuild both inputs exactly as contrast_grams does
    rows = np.flatnonzero(~hg.isolated)
    Xc = np.zeros_like(X)
    Xc[rows] = X[rows] - X[rows].mean(axis=0)
    Xs = np.zeros_like(X)
    Xs[rows] = Xc[np.random.default_rng(5).permutation(rows)]
    gamma = torch.tensor([0.4, -0.3, 0.25], dtype=torch.float64, requires_grad=True)
    g = _dense_filter(P, gamma)
    J = (torch.log((g @ torch.tensor(Xs)).pow(2).sum())
         - torch.log((g @ torch.tensor(Xc)).pow(2).sum()))
    J.backward()
    value, grad = energy_contrast(gamma.detach().numpy(), G, Gs)
    assert value == pytest.approx(J.item(), rel=1e-9, abs=1e-12)
    assert np.allclose(grad, gamma.grad.numpy(), rtol=1e-8, atol=1e-12)


def _cka(Z, R):
    Z, R = Z - Z.mean(0), R - R.mean(0)
    return (Z.T @ R).pow(2).sum() / torch.sqrt((Z.T @ Z).pow(2).sum() * (R.T @ R).pow(2).sum())


def test_alignment_value_and_gradient_match_a_dense_autograd_reference():
    hg, P, X = _tiny()
    X = np.random.default_rng(4).normal(size=(8, 5))
    B = polynomial_basis(P, X, 2)
    rows = np.array([0, 1, 2, 3, 4, 5, 6])
    parts = alignment_parts(B, rows, random_state=2)
    cols = np.random.default_rng(2).permutation(5)
    a, b = cols[:2], cols[2:]
    gamma = torch.tensor([0.3, 0.5, -0.2], dtype=torch.float64, requires_grad=True)
    Z = (_dense_filter(P, gamma) @ torch.tensor(X))[rows]
    Xt = torch.tensor(X)[rows]
    J = -0.5 * (torch.log(_cka(Z[:, a], Xt[:, b])) + torch.log(_cka(Z[:, b], Xt[:, a])))
    J.backward()
    value, grad = feature_split_alignment(gamma.detach().numpy(), parts)
    assert value == pytest.approx(J.item(), rel=1e-9)
    assert np.allclose(grad, gamma.grad.numpy(), rtol=1e-7, atol=1e-12)


def test_alignment_is_scale_free_and_the_energy_contrast_is_zero_for_the_identity():
    hg, P, X = _tiny()
    parts = alignment_parts(polynomial_basis(P, X, 2), np.arange(7), random_state=0)
    g = np.array([0.2, 0.5, 0.3])
    assert feature_split_alignment(g, parts)[0] == pytest.approx(
        feature_split_alignment(4 * g, parts)[0])
    G, Gs = contrast_grams(P, X, 2, ~hg.isolated, random_state=0)
    assert energy_contrast(np.array([1.0, 0, 0]), G, Gs)[0] == pytest.approx(0.0)


@pytest.mark.parametrize("seed", range(5))
def test_learned_filter_is_high_pass_on_heterophily_and_low_pass_on_homophily(seed):
    shares = {}
    for h in (0.0, 1.0):
        hg = hypergraph_sbm(1000, 4, homophily=h, n_features=32, random_state=seed)
        est = UniDHC(4, epochs=0, embedding="filter", random_state=seed).fit(hg)
        shares[h] = low_pass_share(est.coefficients_)
        assert est.filter_trajectory_[0]["step"] == 0  # a neutral start: all atoms equal
        assert np.allclose(est.filter_trajectory_[0]["gamma"],
                           np.full(5, 1 / 5) @ atom_coefficients(2))
    assert shares[0.0] < -0.5 and shares[1.0] > 0.5


def test_energy_contrast_keeps_the_identity_when_features_ignore_the_hypergraph():
    # no structure: features independent of the hypergraph -> ratio about 1 for every
    # filter, and no order pays its penalty
    hg = hypergraph_sbm(1000, 4, homophily=1.0, n_features=32, random_state=0)
    noise = np.random.default_rng(1).normal(size=hg.features.shape)
    est = UniDHC(4, gamma_init="contrast", epochs=0, random_state=0).fit(
        hg.replace(features=noise))
    assert est.mixture_weights_[0] > 0.9


def test_fit_is_deterministic_for_a_seed():
    hg = hypergraph_sbm(400, 3, homophily=0.2, n_features=8, random_state=0)
    a = UniDHC(3, epochs=2, hidden_dim=16, random_state=4).fit(hg)
    b = UniDHC(3, epochs=2, hidden_dim=16, random_state=4).fit(hg)
    assert np.array_equal(a.coefficients_, b.coefficients_)
    assert np.array_equal(a.embedding_, b.embedding_)
    assert np.array_equal(a.labels_, b.labels_)


def test_learn_mixture_records_a_trajectory_that_decreases():
    G = np.array([[1.0, .9, .8], [.9, .8, .75], [.8, .75, .7]])
    Gs = np.array([[1.0, .5, .3], [.5, .3, .2], [.3, .2, .15]])
    w, traj = learn_mixture(lambda g: energy_contrast(g, G, Gs), 2, penalty=0.01, steps=200,
                            record_every=50)
    assert [t["step"] for t in traj] == [0, 50, 100, 150, 200]
    assert traj[-1]["objective"] < traj[0]["objective"]
    assert w.sum() == pytest.approx(1.0) and (w >= 0).all()


def test_bad_order_penalty_is_a_clear_error():
    hg = hypergraph_sbm(60, 2, homophily=0.9, n_features=4, random_state=0)
    with pytest.raises(ValueError, match="order_penalty"):
        UniDHC(2, order_penalty=-1.0, epochs=0).fit(hg)


def test_order_zero_keeps_the_identity():
    hg = hypergraph_sbm(60, 2, homophily=0.9, n_features=4, random_state=0)
    est = UniDHC(2, order=0, epochs=0).fit(hg)
    assert est.coefficients_.tolist() == [1.0] and est.filter_family_ == "canonical"
