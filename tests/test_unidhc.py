"""Uni-DHC: polynomial basis, learnable filter, losses, estimator behaviour."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
import torch
import torch.nn.functional as F

from hyperclust.cluster.unidhc import METHODS, UniDHC, family_coefficients
from hyperclust.hypergraph import Hypergraph
from hyperclust.models.adaptivity import choose_family, smoothness_quotient, smoothness_zscore
from hyperclust.models.basis import (basis_response, borrow_for_isolated, feature_neighbors,
                                     polynomial_basis)
from hyperclust.models.losses import (decorrelation_loss, hyperedge_means, infonce_loss,
                                      node_consistency_loss, similar_pair_weights)
from hyperclust.models.unidhc import PolynomialFilter, UniDHCNet, _edge_batch, train_unidhc
from hyperclust.operators.propagation import PropagationOperator
from hyperclust.threads import thread_limit


def _two_blocks(n_per=12, d=6, seed=0, hetero=False):
    """Two planted classes; hyperedges inside a class (or across, if hetero) + features."""
    rng = np.random.default_rng(seed)
    n = 2 * n_per
    y = np.repeat([0, 1], n_per)
    edges = []
    for _ in range(3 * n):
        if hetero:
            a = rng.choice(np.flatnonzero(y == 0), 1)
            b = rng.choice(np.flatnonzero(y == 1), 2, replace=False)
            edges.append(np.concatenate([a, b]))
        else:
            c = rng.integers(2)
            edges.append(rng.choice(np.flatnonzero(y == c), 3, replace=False))
    centres = rng.normal(size=(2, d)) * 1.5
    X = centres[y] + rng.normal(size=(n, d))
    return Hypergraph.from_edges(edges, n_nodes=n, features=X, labels=y)


def _dense_P(hg, s=1.0):
    H = hg.incidence.toarray()
    W = np.diag(hg.weights)
    De = np.diag(1.0 / H.sum(axis=0))
    dv = (H * hg.weights).sum(axis=1) + s
    Dm = np.diag(1.0 / np.sqrt(dv))
    return Dm @ (H @ W @ De @ H.T + s * np.eye(hg.n_nodes)) @ Dm


@pytest.fixture(scope="module")
def hg():
    return _two_blocks()


# ---------------------------------------------------------------- basis and filter
@pytest.mark.parametrize("kind", ["power", "laplacian", "chebyshev"])
def test_basis_matches_explicit_polynomials(hg, kind):
    P = _dense_P(hg)
    X = hg.features
    B = polynomial_basis(PropagationOperator(hg), X, 3, kind)
    I = np.eye(hg.n_nodes)
    if kind == "power":
        T = [I, P, P @ P, P @ P @ P]
    elif kind == "laplacian":
        L = I - P
        T = [I, L, L @ L, L @ L @ L]
    else:
        S = 2 * P - I
        T = [I, S, 2 * S @ S - I, 4 * S @ S @ S - 3 * S]
    for k in range(4):
        np.testing.assert_allclose(B[k], T[k] @ X, atol=1e-10)


def test_basis_accepts_sparse_input(hg):
    op = PropagationOperator(hg)
    dense = polynomial_basis(op, hg.features, 2)
    np.testing.assert_allclose(polynomial_basis(op, sp.csr_matrix(hg.features), 2), dense)


def test_filter_equals_explicit_polynomial(hg):
    P = _dense_P(hg)
    X = hg.features
    gamma = np.array([0.5, -1.25, 0.75])
    B = polynomial_basis(PropagationOperator(hg), X, 2)
    out = PolynomialFilter(gamma)(torch.as_tensor(B, dtype=torch.float32)).detach().numpy()
    expected = (0.5 * np.eye(hg.n_nodes) - 1.25 * P + 0.75 * P @ P) @ X
    np.testing.assert_allclose(out, expected, atol=1e-4)


@pytest.mark.parametrize("kind", ["power", "laplacian", "chebyshev"])
def test_spectral_response_is_the_filter_on_eigenvectors(hg, kind):
    P = _dense_P(hg)
    lam_P, V = np.linalg.eigh(P)
    gamma = np.array([0.3, -0.7, 1.1, 0.2])
    B = polynomial_basis(PropagationOperator(hg), V, 3, kind)
    filtered = np.tensordot(gamma, B, axes=1)  # g(P) V = V diag(g(lambda))
    g = gamma @ basis_response(1.0 - lam_P, 3, kind)
    np.testing.assert_allclose(filtered, V * g, atol=1e-8)


def test_family_coefficients_same_filter_in_every_basis():
    lam = np.linspace(0, 1, 17)
    for fam in ["low-pass", "high-pass", "identity", "uniform"]:
        ref = family_coefficients(fam, 4, "power") @ basis_response(lam, 4, "power")
        for kind in ["laplacian", "chebyshev"]:
            got = family_coefficients(fam, 4, kind) @ basis_response(lam, 4, kind)
            np.testing.assert_allclose(got, ref, atol=1e-10)
    np.testing.assert_allclose(family_coefficients("high-pass", 3) @ basis_response(lam, 3), lam)


def test_gradients_reach_gamma_and_gamma_can_turn_negative(hg):
    B = torch.as_tensor(polynomial_basis(PropagationOperator(hg), hg.features, 2),
                        dtype=torch.float32)
    target = B[0] - B[1]  # the high-pass filter (I - P) X
    filt = PolynomialFilter([1 / 3, 1 / 3, 1 / 3])
    opt = torch.optim.Adam(filt.parameters(), lr=0.05)
    first = (filt(B) - target).pow(2).mean().item()
    for _ in range(300):
        loss = (filt(B) - target).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        assert filt.gamma.grad is not None and torch.any(filt.gamma.grad != 0)
        opt.step()
    assert filt.gamma[1].item() < -0.1
    assert (filt(B) - target).pow(2).mean().item() < 0.1 * first


# ---------------------------------------------------------------- losses
def test_node_consistency_matches_dense_formula():
    g = torch.Generator().manual_seed(0)
    z1, z2 = torch.randn(7, 4, generator=g), torch.randn(7, 4, generator=g)
    a = z1.numpy() / np.linalg.norm(z1.numpy(), axis=1, keepdims=True)
    b = z2.numpy() / np.linalg.norm(z2.numpy(), axis=1, keepdims=True)
    S = a @ b.T
    off = ~np.eye(7, dtype=bool)
    expected = np.mean((1 - np.diag(S)) ** 2) + 0.3 * np.mean(S[off] ** 2)
    assert node_consistency_loss(z1, z2, off_weight=0.3).item() == pytest.approx(expected, rel=1e-5)
    same = node_consistency_loss(z1, z1, off_weight=0.0).item()
    assert same == pytest.approx(0.0, abs=1e-6)


def test_node_consistency_pair_weights_dense_formula():
    g = torch.Generator().manual_seed(1)
    z1, z2 = torch.randn(6, 3, generator=g), torch.randn(6, 3, generator=g)
    everyone = 1.0 - torch.eye(6)
    assert node_consistency_loss(z1, z2, pair_weights=everyone).item() == pytest.approx(
        node_consistency_loss(z1, z2).item(), rel=1e-6)
    w = torch.rand(6, 6, generator=g) * everyone
    a = F.normalize(z1, dim=1).numpy()
    b = F.normalize(z2, dim=1).numpy()
    S = a @ b.T
    W = w.numpy()
    expected = np.mean((1 - np.diag(S)) ** 2) + np.sum(W * S ** 2) / np.sum(W)
    assert node_consistency_loss(z1, z2, pair_weights=w).item() == pytest.approx(expected,
                                                                                rel=1e-5)


def test_similar_pair_weights_spare_each_nodes_group():
    g = torch.Generator().manual_seed(2)
    centres = torch.tensor([[5.0, 0.0, 0.0], [0.0, 5.0, 0.0], [0.0, 0.0, 5.0]])
    group = torch.arange(12) % 3
    z = centres[group] + 0.1 * torch.randn(12, 3, generator=g)
    w = similar_pair_weights(z, 3 / 11)  # 3 spared mates = the node's own group
    same = group[:, None] == group[None, :]
    expected = (~same).float()
    assert torch.equal(w, expected)
    perm = torch.randperm(12, generator=g)
    assert torch.equal(similar_pair_weights(z[perm], 3 / 11), expected[perm][:, perm])


def test_infonce_matches_dense_formula():
    g = torch.Generator().manual_seed(1)
    z1, z2 = torch.randn(6, 3, generator=g), torch.randn(6, 3, generator=g)
    a = z1.numpy() / np.linalg.norm(z1.numpy(), axis=1, keepdims=True)
    b = z2.numpy() / np.linalg.norm(z2.numpy(), axis=1, keepdims=True)
    S = a @ b.T / 0.5

    def ce(M):
        M = M - M.max(axis=1, keepdims=True)
        return np.mean(np.log(np.exp(M).sum(axis=1)) - np.diag(M))

    expected = 0.5 * (ce(S) + ce(S.T))
    assert infonce_loss(z1, z2, 0.5).item() == pytest.approx(expected, rel=1e-5)


def test_decorrelation_matches_dense_formula():
    g = torch.Generator().manual_seed(2)
    h1, h2 = torch.randn(9, 4, generator=g), torch.randn(9, 4, generator=g)
    a, b = h1.numpy().astype(np.float64), h2.numpy().astype(np.float64)
    a = (a - a.mean(0)) / a.std(0)
    b = (b - b.mean(0)) / b.std(0)
    C = a.T @ b / 9
    off = ~np.eye(4, dtype=bool)
    expected = (np.sum((1 - np.diag(C)) ** 2) + 0.5 * np.sum(C[off] ** 2)) / 4
    got = decorrelation_loss(h1, h2, off_weight=0.5).item()
    assert got == pytest.approx(expected, rel=1e-4)
    # identical, decorrelated views cost (almost) nothing
    q = torch.as_tensor(np.linalg.qr(np.random.default_rng(0).normal(size=(40, 4)))[0] * np.sqrt(40))
    q = q - q.mean(0)
    assert decorrelation_loss(q, q).item() < 0.05


def test_hyperedge_means_match_dense(hg):
    Ht = hg.incidence_t
    edges = np.array([0, 3, 5])
    members, M = _edge_batch(Ht, edges)
    z = torch.randn(hg.n_nodes, 3, generator=torch.Generator().manual_seed(3))
    got = hyperedge_means(M, z[torch.as_tensor(members)]).numpy()
    for r, e in enumerate(edges):
        idx = Ht[e].indices
        np.testing.assert_allclose(got[r], z.numpy()[idx].mean(axis=0), rtol=1e-5)


def test_capped_hyperedge_means_sample_members_without_bias():
    big = Hypergraph.from_edges([list(range(40)), [0, 1, 2], list(range(10, 30))], n_nodes=40)
    Ht = big.incidence_t
    z = torch.arange(40, dtype=torch.float32).reshape(-1, 1)
    rng = np.random.default_rng(0)
    draws = []
    for _ in range(400):
        members, M = _edge_batch(Ht, np.array([0, 1, 2]), member_cap=5, rng=rng)
        dense = M.to_dense().numpy()
        counts = (dense > 0).sum(axis=1)
        assert counts.tolist() == [5, 3, 5]
        np.testing.assert_allclose(dense.sum(axis=1), 1.0, rtol=1e-6)
        for r, e in enumerate([0, 1, 2]):  # only true members are drawn
            assert set(members[dense[r] > 0]) <= set(Ht[e].indices)
        draws.append(hyperedge_means(M, z[torch.as_tensor(members)]).numpy()[:, 0])
    means = np.mean(draws, axis=0)
    # exact for the small hyperedge, unbiased (within sampling error) for the capped ones
    assert means[1] == pytest.approx(1.0)
    assert means[0] == pytest.approx(19.5, abs=1.0) and means[2] == pytest.approx(19.5, abs=0.6)


# ---------------------------------------------------------------- adaptivity
def test_smoothness_quotient_dense_reference(hg):
    X = hg.features
    Xc = X - X.mean(0)
    L = np.eye(hg.n_nodes) - _dense_P(hg)
    expected = np.trace(Xc.T @ L @ Xc) / np.trace(Xc.T @ Xc)
    assert smoothness_quotient(PropagationOperator(hg), X) == pytest.approx(expected)


def test_zscore_sign_follows_homophily():
    homo, hetero = _two_blocks(20, seed=1), _two_blocks(20, seed=1, hetero=True)
    z_homo = smoothness_zscore(PropagationOperator(homo), homo.features, random_state=0)
    z_het = smoothness_zscore(PropagationOperator(hetero), hetero.features, random_state=0)
    assert z_homo < -2 < 2 < z_het
    assert choose_family(z_homo) == "low-pass" and choose_family(z_het) == "high-pass"
    assert choose_family(0.5) == "identity"


# ---------------------------------------------------------------- training and estimator
def test_training_moves_gamma_and_records_history(hg):
    B = polynomial_basis(PropagationOperator(hg), hg.features, 2)
    net, hist = train_unidhc(B, hg.incidence, [1.0, 0.0, 0.0], epochs=3, batch_size=8,
                             edge_batch_size=8, gamma_reg=0.0, hidden_dim=8, out_dim=4)
    assert len(hist) == 3 and all(np.isfinite(h["total"]) for h in hist)
    assert not np.allclose(net.filter.gamma.detach().numpy(), [1.0, 0.0, 0.0])


def test_residual_encoder_starts_as_identity_and_learns_a_correction(hg):
    B = polynomial_basis(PropagationOperator(hg), hg.features, 2)
    Z = torch.as_tensor(B[2], dtype=torch.float32)
    fresh = UniDHCNet([0.0, 0.0, 1.0], B.shape[2], hidden_dim=8)
    with torch.no_grad():
        torch.testing.assert_close(fresh.encoder(Z), Z)
    net, _ = train_unidhc(B, hg.incidence, [0.0, 0.0, 1.0], epochs=2, batch_size=8,
                          edge_batch_size=8, hidden_dim=8)
    last = net.encoder.correction[2]
    assert last.weight.abs().sum() > 0  # gradients pass the zero-initialised layer
    with torch.no_grad():
        assert not torch.allclose(net.encoder(Z), Z)


def test_untrained_residual_encoder_block_equals_filter_block(hg):
    m = _small(random_state=0, epochs=0).fit(hg)
    d = m.n_filter_columns_
    assert m.embedding_.shape[1] == 2 * d
    np.testing.assert_allclose(m.embedding_[:, d:], m.embedding_[:, :d], atol=1e-6)


def test_mlp_encoder_width_is_out_dim(hg):
    m = _small(random_state=0, encoder="mlp", epochs=1).fit(hg)
    assert m.embedding_.shape == (hg.n_nodes, 6 + 8)


def _small(**kw):
    params = dict(epochs=3, hidden_dim=16, out_dim=8, batch_size=16, edge_batch_size=16,
                  n_init=3)
    params.update(kw)
    return UniDHC(2, **params)


def test_fit_attributes_and_planted_clusters(hg):
    m = _small(random_state=0).fit(hg)
    n = hg.n_nodes
    assert m.labels_.shape == (n,) and m.embedding_.shape == (n, 6 + 6)  # residual: width d
    assert m.coefficients_.shape == (5,) and len(m.loss_history_) == 3
    assert m.input_kind_ == "features" and m.filter_family_ == "low-pass"
    assert m.smoothness_z_ < 0
    from hyperclust.metrics import acc

    assert acc(hg.labels, m.labels_) >= 0.9
    lam = np.linspace(0, 1, 5)
    np.testing.assert_allclose(m.spectral_response(lam),
                               m.coefficients_ @ basis_response(lam, 4, "power"))


@pytest.mark.parametrize("mask", [None, "1/k"])
def test_same_seed_same_labels(hg, mask):
    # the thread count is pinned: torch's results differ at ~1e-10 between 1 and 2 threads,
    # and the default follows the machine's load (hyperclust.threads)
    with thread_limit(1):
        a = _small(random_state=3, false_negative_mask=mask).fit(hg)
        b = _small(random_state=3, false_negative_mask=mask).fit(hg)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    np.testing.assert_array_equal(a.coefficients_, b.coefficients_)


def test_false_negative_mask_changes_training_only_when_set(hg):
    with thread_limit(1):  # see test_same_seed_same_labels
        plain = _small(random_state=0).fit(hg)
        masked = _small(random_state=0, false_negative_mask="1/k").fit(hg)
        explicit = _small(random_state=0, false_negative_mask=0.5).fit(hg)  # k = 2
    assert masked.loss_history_ != plain.loss_history_
    assert masked.loss_history_ == explicit.loss_history_


def test_invariant_to_node_relabelling(hg):
    perm = np.random.default_rng(0).permutation(hg.n_nodes)
    inv = np.argsort(perm)
    edges = [inv[e] for e in hg.edges()]
    hg2 = Hypergraph.from_edges(edges, n_nodes=hg.n_nodes, features=hg.features[perm],
                                labels=hg.labels[perm])
    from hyperclust.metrics import ari

    a = _small(random_state=0, gamma_init="low-pass", epochs=0).fit(hg).labels_
    b = _small(random_state=0, gamma_init="low-pass", epochs=0).fit(hg2).labels_
    assert ari(a[perm], b) == pytest.approx(1.0)


def test_heterophilic_input_gets_high_pass_init():
    het = _two_blocks(20, seed=2, hetero=True)
    m = _small(random_state=0, epochs=1).fit(het)
    assert m.filter_family_ == "high-pass"
    assert m.initial_coefficients_[1] < 0


def test_structural_input_without_features(hg):
    bare = hg.replace(features=None)
    m = _small(random_state=0, n_structural=4, epochs=1).fit(bare)
    assert m.input_kind_ == "structural" and m.labels_.shape == (hg.n_nodes,)
    assert m.coefficients_.shape == (m.order + 1,) and m.embedding_.shape[1] == 4 + 4
    auto = _small(random_state=0, epochs=1).fit(bare)
    assert auto.embedding_.shape[1] == 4 + 4  # 2 * n_clusters columns by default


@pytest.mark.parametrize("params, err", [
    ({"order": -1}, ValueError), ({"basis": "fourier"}, ValueError),
    ({"gamma_init": [1.0, 2.0]}, ValueError), ({"gamma_init": "band"}, ValueError),
    ({"dropout": 1.0}, ValueError), ({"lr": -1.0}, ValueError),
    ({"embedding": "both"}, ValueError), ({"consistency": "mse"}, ValueError),
    ({"n_structural": 0}, ValueError), ({"n_structural": "many"}, ValueError),
    ({"isolated_neighbors": -1}, ValueError), ({"isolated_neighbors": 2.5}, ValueError),
    ({"false_negative_mask": 1.0}, ValueError), ({"false_negative_mask": "half"}, ValueError),
    ({"false_negative_mask": True}, ValueError),
    ({"false_negative_mask": 0.2, "consistency": "infonce"}, ValueError),
    ({"encoder": "cnn"}, ValueError),
])
def test_bad_params_raise(hg, params, err):
    with pytest.raises(err):
        UniDHC(2, **params).fit(hg)


def test_bad_inputs_raise(hg):
    with pytest.raises(ValueError, match="exceeds"):
        UniDHC(hg.n_nodes + 1).fit(hg)
    with pytest.raises(TypeError):
        UniDHC(2).fit(hg.incidence)
    with pytest.raises(AttributeError):
        UniDHC(2).spectral_response([0.5])


def test_registry_entries(hg):
    assert "unidhc" in METHODS
    est = METHODS["unidhc"][0](2, 0, "cpu")
    assert isinstance(est, UniDHC) and est.n_clusters == 2 and est.device == "cpu"


# ---------------------------------------------------------------- isolated nodes
def test_feature_neighbors_match_brute_force():
    X = np.random.default_rng(0).normal(size=(40, 5))
    queries, candidates = np.arange(7), np.arange(7, 40)
    Xn = X / np.linalg.norm(X, axis=1, keepdims=True)
    ref = candidates[np.argsort(-(Xn[queries] @ Xn[candidates].T), axis=1)[:, :4]]
    np.testing.assert_array_equal(feature_neighbors(X, queries, candidates, 4, chunk_size=3), ref)
    assert feature_neighbors(X, queries, candidates[:2], 10).shape == (7, 2)


def test_borrow_for_isolated_dense_reference():
    rng = np.random.default_rng(1)
    B = rng.normal(size=(3, 10, 4))
    isolated, neighbors = np.array([2, 7]), np.array([[0, 1, 5], [3, 4, 9]])
    out = borrow_for_isolated(B.copy(), isolated, neighbors)
    keep = np.setdiff1d(np.arange(10), isolated)
    np.testing.assert_array_equal(out[:, keep], B[:, keep])
    np.testing.assert_array_equal(out[0], B[0])  # the raw input is never changed
    for k in (1, 2):
        for i, nb in zip(isolated, neighbors):
            np.testing.assert_allclose(out[k, i], 0.5 * (B[k, i] + B[k, nb].mean(axis=0)))


def _with_isolated(hg, n_iso=5, seed=3):
    rng = np.random.default_rng(seed)
    X = np.vstack([hg.features, rng.normal(size=(n_iso, hg.features.shape[1]))])
    return Hypergraph.from_edges(hg.edges(), n_nodes=hg.n_nodes + n_iso, features=X)


def test_isolated_nodes_take_half_of_their_neighbours_filter(hg):
    g = _with_isolated(hg)
    iso = np.flatnonzero(g.isolated)
    fixed = dict(epochs=0, embedding="filter", gamma_init="low-pass", random_state=0)
    m = _small(isolated_neighbors=3, **fixed).fit(g)
    X, _ = m._prepare_input(g, 0, 2)
    P2X = np.linalg.matrix_power(_dense_P(g), 2) @ X
    connected = np.flatnonzero(~g.isolated)
    Xn = X / np.linalg.norm(X, axis=1, keepdims=True)
    nb = connected[np.argsort(-(Xn[iso] @ Xn[connected].T), axis=1)[:, :3]]
    expect = 0.5 * (P2X[iso] + P2X[nb].mean(axis=1))
    expect /= np.linalg.norm(expect, axis=1, keepdims=True)
    np.testing.assert_allclose(m.embedding_[iso], expect, atol=1e-6)
    assert m.n_isolated_borrowing_ == iso.size
    off = _small(isolated_neighbors=None, **fixed).fit(g)
    np.testing.assert_allclose(off.embedding_[iso], Xn[iso], atol=1e-6)  # P^2 x_i = x_i
    np.testing.assert_allclose(off.embedding_[connected], m.embedding_[connected], atol=1e-9)
    assert off.n_isolated_borrowing_ == 0


def test_isolated_borrowing_invariant_to_node_relabelling(hg):
    g = _with_isolated(hg)
    perm = np.random.default_rng(4).permutation(g.n_nodes)
    inv = np.argsort(perm)
    g2 = Hypergraph.from_edges([inv[e] for e in g.edges()], n_nodes=g.n_nodes,
                               features=g.features[perm])
    fixed = dict(epochs=0, embedding="filter", gamma_init="low-pass", random_state=0)
    a = _small(**fixed).fit(g).embedding_
    b = _small(**fixed).fit(g2).embedding_
    np.testing.assert_allclose(a[perm], b, atol=1e-6)


def test_isolated_neighbour_search_samples_candidates_beyond_budget(hg, monkeypatch):
    import hyperclust.cluster.unidhc as unidhc_module

    g = _with_isolated(hg)
    monkeypatch.setattr(unidhc_module, "NEIGHBOR_PAIR_BUDGET", 10)
    fixed = dict(epochs=0, embedding="filter", gamma_init="low-pass", random_state=0)
    with pytest.warns(RuntimeWarning, match="budget"):
        m = _small(isolated_neighbors=1, **fixed).fit(g)
    assert m.n_isolated_borrowing_ == int(g.isolated.sum())
    again = _small(isolated_neighbors=1, **fixed)
    with pytest.warns(RuntimeWarning):
        again.fit(g)
    np.testing.assert_array_equal(m.embedding_, again.embedding_)  # seeded sample


# ---------------------------------------------------------------- label-free output selection
def test_auto_embedding_keeps_the_lowest_objective(hg):
    from hyperclust.objectives import rwr_conductance
    from hyperclust.operators.knn import MixedWalk, knn_affinity

    est = _small(random_state=0, embedding="auto").fit(hg)
    assert set(est.scores_) == {"concat", "filter", "encoder", "fixed-low-pass", "input"}
    assert est.selected_ == min(est.scores_, key=est.scores_.get)
    np.testing.assert_array_equal(est.labels_, est.candidate_labels_[est.selected_])
    walk = MixedWalk(hg, knn_affinity(hg.features, 10, random_state=0), beta=0.5)
    for name, labels in est.candidate_labels_.items():  # the scores are the objective's
        assert est.scores_[name] == pytest.approx(
            rwr_conductance(hg, labels, walk=walk, balance="min"))
    # the concat candidate is what embedding="concat" returns
    plain = _small(random_state=0).fit(hg)
    np.testing.assert_array_equal(est.candidate_labels_["concat"], plain.labels_)
    assert est.embedding_.shape[0] == hg.n_nodes
    again = _small(random_state=0, embedding="auto").fit(hg)
    assert again.selected_ == est.selected_
    np.testing.assert_array_equal(again.labels_, est.labels_)
