"""Eigensolvers, diffusion, HKS, structural features and spectral clustering."""

import numpy as np
import pytest
import scipy.linalg as sla
import scipy.sparse as sp

from hyperclust import Hypergraph
from hyperclust.cluster.registry import available_methods
from hyperclust.cluster.spectral import OPERATORS, SpectralHypergraphClustering
from hyperclust.metrics import ari
from hyperclust.operators import (GradedComplex, StarCollapsedOperator, ZhouLaplacian,
                                  coboundary_complex, heat_diffusion, resolvent_smooth)
from hyperclust.operators.eigensolvers import (eigsh_seeded, fix_signs, heat_kernel_signature, hks_times,
                                 positional_encoding, structural_features)


def planted(n_per=60, k=3, m=260, p_in=0.9, n_isolated=0, n_pairs=0, seed=0):
    """Planted partition: hyperedges of size 2-5 inside one class with prob. p_in; then
    isolated nodes and ``n_pairs`` small two-node components appended (labels random)."""
    rng = np.random.default_rng(seed)
    n = n_per * k
    y = np.repeat(np.arange(k), n_per)
    edges = []
    for _ in range(m):
        size = rng.integers(2, 6)
        if rng.random() < p_in:
            c = rng.integers(k)
            edges.append(rng.choice(np.flatnonzero(y == c), size, replace=False))
        else:
            edges.append(rng.choice(n, size, replace=False))
    extra = n_isolated + 2 * n_pairs
    for j in range(n_pairs):
        edges.append([n + n_isolated + 2 * j, n + n_isolated + 2 * j + 1])
    labels = np.r_[y, rng.integers(0, k, extra)]
    return Hypergraph.from_edges(edges, n_nodes=n + extra, labels=labels), n


def test_fix_signs_and_seeded_eigsh_deterministic():
    V = np.array([[1.0, -3.0], [-2.0, 1.0]])
    assert np.allclose(fix_signs(V), [[-1.0, 3.0], [2.0, -1.0]])
    hg, _ = planted(n_per=530, k=3, m=1900)
    L = ZhouLaplacian(hg)
    v1, x1 = eigsh_seeded(L, 4, which="SA", random_state=0)
    v2, x2 = eigsh_seeded(L, 4, which="SA", random_state=0)
    assert np.array_equal(x1, x2)
    dense = np.linalg.eigvalsh(L.to_sparse().toarray())[:4]
    assert np.allclose(v1, dense, atol=1e-8)
    with pytest.raises(ValueError):
        eigsh_seeded(L, hg.n_nodes + 1)


def _dense_L(hg):
    return ZhouLaplacian(hg, kind="unnormalized").to_sparse().toarray()


@pytest.mark.parametrize("method", ["chebyshev", "expm"])
def test_heat_diffusion_matches_dense(method):
    hg, _ = planted(n_per=15, m=40)
    L = ZhouLaplacian(hg, kind="unnormalized")
    V = np.random.default_rng(0).standard_normal((hg.n_nodes, 3))
    for t in (0.0, 0.3, 4.0):
        ref = sla.expm(-t * _dense_L(hg)) @ V
        out = heat_diffusion(L, V, t, method=method)
        assert np.linalg.norm(out - ref) / np.linalg.norm(ref) < 1e-8


def test_diffusion_on_collapsed_operator():
    hg, _ = planted(n_per=10, m=30, seed=2)
    cx = coboundary_complex(hg, beta=(1.0, 1.0), gamma=(0.5, 0.3))
    S = cx.collapsed(eps=0.1)
    Sd = S.to_dense()
    v = np.random.default_rng(1).standard_normal(hg.n_nodes)
    ref = sla.expm(-0.5 * Sd) @ v
    assert np.linalg.norm(heat_diffusion(S, v, 0.5) - ref) / np.linalg.norm(ref) < 1e-8
    ref = np.linalg.solve(np.eye(hg.n_nodes) + 2.0 * Sd, v)
    for method in ("direct", "cg"):
        out = resolvent_smooth(S, v, 2.0, method=method, tol=1e-13)
        assert np.linalg.norm(out - ref) / np.linalg.norm(ref) < 1e-8


def test_resolvent_sparse_and_operator():
    hg, _ = planted(n_per=15, m=40)
    L = ZhouLaplacian(hg, kind="unnormalized")
    V = np.random.default_rng(0).standard_normal((hg.n_nodes, 2))
    ref = np.linalg.solve(np.eye(hg.n_nodes) + 0.7 * _dense_L(hg), V)
    assert np.allclose(resolvent_smooth(L, V, 0.7, tol=1e-13), ref, atol=1e-9)
    assert np.allclose(resolvent_smooth(L.to_sparse(), V, 0.7), ref, atol=1e-10)
    with pytest.raises(ValueError):
        resolvent_smooth(L, V, -1.0)


def test_hks_definition_and_positional_encoding():
    hg, _ = planted(n_per=12, m=40)
    Ld = _dense_L(hg)
    lam, phi = np.linalg.eigh(Ld)
    t = hks_times(lam[:6], 4)
    assert np.all(np.diff(t) > 0)
    ref = np.stack([sum(np.exp(-lam[i] * tt) * phi[:, i] ** 2 for i in range(6)) for tt in t], axis=1)
    assert np.allclose(heat_kernel_signature(lam[:6], phi[:, :6], t), ref)
    pe = positional_encoding(sp.csr_matrix(Ld), k=5, kind="hks", n_times=3)
    assert pe.shape == (hg.n_nodes, 3) and np.isfinite(pe).all()
    S = StarCollapsedOperator(hg, eps=1.0)
    pe = positional_encoding(S, k=4)
    assert pe.shape == (hg.n_nodes, 4)
    assert np.allclose(np.abs(pe), np.abs(np.linalg.eigh(S.to_dense())[1][:, :4]), atol=1e-6)


def test_structural_features_isolated_and_components():
    hg, n = planted(n_per=30, m=100, n_isolated=20, n_pairs=40)
    F = structural_features(hg, n_components=16, random_state=0)
    assert F.shape == (hg.n_nodes, 16) and np.isfinite(F).all()
    assert np.array_equal(F, structural_features(hg, n_components=16, random_state=0))
    iso = np.flatnonzero(hg.isolated)
    # isolated nodes share their rows except in the degenerate null space of the rank-one term
    assert np.allclose(F[iso, 0], F[iso[0], 0])
    tiny = Hypergraph.from_edges([[0, 1]], n_nodes=3)
    assert structural_features(tiny, n_components=8).shape == (3, 8)
    with pytest.raises(ValueError):
        structural_features(hg, n_components=0)


@pytest.mark.parametrize("operator", OPERATORS)
def test_planted_clusters_recovered(operator):
    hg, n = planted(seed=1)
    model = SpectralHypergraphClustering(3, operator=operator, random_state=0).fit(hg)
    assert ari(hg.labels[:n], model.labels_[:n]) > 0.85
    assert model.embedding_.shape == (hg.n_nodes, 3)
    again = SpectralHypergraphClustering(3, operator=operator, random_state=0).fit_predict(hg)
    assert np.array_equal(again, model.labels_)


def test_regularization_handles_many_components():
    hg, n = planted(seed=2, n_isolated=30, n_pairs=60)
    assert hg.connected_components()[0] > 60
    reg = SpectralHypergraphClustering(3, operator="zhou", random_state=0).fit(hg)
    plain = SpectralHypergraphClustering(3, operator="zhou", regularization=None, random_state=0).fit(hg)
    score_reg = ari(hg.labels[:n], reg.labels_[:n])
    score_plain = ari(hg.labels[:n], plain.labels_[:n])
    assert score_reg > 0.8
    assert score_reg > score_plain + 0.3
    assert np.isfinite(reg.embedding_).all()


def test_sparse_connected_input_not_harder_than_with_its_small_components():
    """Without regularization the largest component's embedding is localized on dangling
    sets (one giant cluster); "auto" must see that although the input is connected."""
    from hyperclust.datasets.synthetic import hypergraph_sbm
    from sklearn.metrics import normalized_mutual_info_score as nmi

    hg = hypergraph_sbm(1000, 2, homophily=0.7, random_state=0)
    lcc = hg.largest_component()
    assert lcc.connected_components()[0] == 1 < hg.connected_components()[0]
    whole = SpectralHypergraphClustering(2, random_state=0).fit(hg)
    part = SpectralHypergraphClustering(2, random_state=0).fit(lcc)
    plain = SpectralHypergraphClustering(2, regularization=None, random_state=0).fit(lcc)
    assert part.tau_ > 0
    assert nmi(lcc.labels, part.labels_) >= nmi(hg.labels, whole.labels_) - 0.02
    assert nmi(lcc.labels, part.labels_) > nmi(lcc.labels, plain.labels_) + 0.2


def test_connected_input_with_spread_embedding_stays_unregularized():
    hg, n = planted(seed=1)
    assert hg.connected_components()[0] == 1
    model = SpectralHypergraphClustering(3, random_state=0).fit(hg)
    assert model.tau_ == 0.0
    assert ari(hg.labels, model.labels_) > 0.85


def test_cpqr_assignment_and_errors():
    hg, n = planted(seed=3)
    m = SpectralHypergraphClustering(3, assign="cpqr").fit(hg)
    assert ari(hg.labels[:n], m.labels_[:n]) > 0.85
    with pytest.raises(ValueError, match="n_clusters < n_nodes"):
        SpectralHypergraphClustering(hg.n_nodes).fit(hg)
    for bad in (dict(operator="nope"), dict(assign="nope"), dict(regularization=-1.0)):
        with pytest.raises(ValueError):
            SpectralHypergraphClustering(3, **bad).fit(hg)
    with pytest.raises(TypeError):
        SpectralHypergraphClustering(3).fit("not a hypergraph")


def test_registry_methods():
    from hyperclust.cluster.registry import make_estimator
    assert {"spectral-zhou", "spectral-clique", "spectral-star",
            "spectral-collapsed"} <= set(available_methods())
    est = make_estimator("spectral-collapsed", 4, random_state=1, device="cpu")
    assert isinstance(est, SpectralHypergraphClustering) and est.n_clusters == 4
