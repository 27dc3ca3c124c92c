"""Graded complexes and the collapsed effective operator S_eps: dense agreement, PSD and
Loewner bounds, the star-collapse identity, invariance and the chain-complex pitfall."""

import numpy as np
import pytest
import scipy.linalg as sla
import scipy.sparse as sp

from hyperclust import Hypergraph
from hyperclust.operators import (GradedComplex, SchurComplement, StarCollapsedOperator,
                                  coboundary_complex, schur_split, star_complex)
from hyperclust.operators.collapsed import (CoboundaryCollapsed, clique_incidence,
                                           membership_incidence)


def _hypergraph(seed=0, n=16, m=10):
    rng = np.random.default_rng(seed)
    edges = [rng.choice(n - 1, size=rng.integers(2, 6), replace=False) for _ in range(m)]
    edges += [[0, 1], [1, 2], [2, 3]]
    return Hypergraph.from_edges(edges, n_nodes=n, weights=rng.uniform(0.5, 2, len(edges)))


def _random_complex(seed=0, n=(12, 20, 6)):
    rng = np.random.default_rng(seed)
    B1 = sp.random(n[0], n[1], density=0.25, random_state=rng, data_rvs=lambda k: rng.choice([-1.0, 1.0], k))
    B2 = sp.random(n[1], n[2], density=0.3, random_state=rng, data_rvs=lambda k: rng.choice([-1.0, 1.0], k))
    return B1.tocsr(), B2.tocsr()


def _dense_schur(cx, eps):
    L = cx.laplacian().toarray()
    n0 = cx.sizes[0]
    A, X, C = L[:n0, :n0], L[:n0, n0:], L[n0:, n0:]
    return A - X @ np.linalg.solve(C + eps * np.eye(C.shape[0]), X.T), A


def _rel(a, b):
    return np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-300)


def test_graded_laplacian_blocks():
    B1, B2 = _random_complex()
    beta, gamma = (1.5, 0.7), (0.3, 0.2)
    L = GradedComplex([B1, B2], beta, gamma).laplacian().toarray()
    b1, b2 = B1.toarray(), B2.toarray()
    o = np.cumsum([0, 12, 20, 6])
    ref = np.zeros((38, 38))
    ref[o[0]:o[1], o[0]:o[1]] = 1.5 * b1 @ b1.T
    ref[o[1]:o[2], o[1]:o[2]] = 1.5 * b1.T @ b1 + 0.7 * b2 @ b2.T
    ref[o[2]:, o[2]:] = 0.7 * b2.T @ b2
    ref[o[0]:o[1], o[1]:o[2]] = -0.3 * b1
    ref[o[1]:o[2], o[2]:] = -0.2 * b2
    ref = np.triu(ref) + np.triu(ref, 1).T
    assert np.allclose(L, ref)


def test_graded_shape_errors():
    with pytest.raises(ValueError, match="columns"):
        GradedComplex([sp.eye(3, 4), sp.eye(5, 2)])
    with pytest.raises(ValueError, match="entries"):
        GradedComplex([sp.eye(3, 4)], beta=[1, 2])
    with pytest.raises(TypeError):
        GradedComplex(["x"])


def test_psd_bounds():
    B1, _ = _random_complex(seed=2)
    cx = GradedComplex([B1], beta=1.0, gamma=1.0)
    bound = cx.psd_report()["sigma_bounds"][0]
    ok = GradedComplex([B1], beta=1.0, gamma=0.999 * bound).psd_report()
    assert ok["sigma_ok"] and ok["psd"]
    bad = GradedComplex([B1], beta=1.0, gamma=1.05 * bound).psd_report()
    assert not bad["sigma_ok"] and not bad["psd"] and bad["lambda_min"] < 0
    # eps widens the bound: gamma0^2 <= beta1 (beta1 sigma^2 + eps)
    eps = 0.5
    wide = GradedComplex([B1], beta=1.0, gamma=1.05 * bound).psd_report(eps=eps)
    assert wide["eps_ok"] and wide["psd"]
    over = GradedComplex([B1], beta=1.0, gamma=1.01 * wide["eps_bound"]).psd_report(eps=eps)
    assert not over["eps_ok"] and not over["psd"]


@pytest.mark.parametrize("method", ["exact", "cg"])
def test_schur_matrix_free_equals_dense(method):
    B1, B2 = _random_complex(seed=1)
    cx = GradedComplex([B1, B2], beta=(1.0, 1.0), gamma=(0.2, 0.2))
    S_ref, A = _dense_schur(cx, 0.1)
    S = cx.collapsed(eps=0.1, method=method, tol=1e-13)
    assert S.method_ == method
    V = np.random.default_rng(0).standard_normal((S.shape[0], 4))
    assert _rel(S.matmat(V), S_ref @ V) < 1e-8
    assert _rel(S.to_dense(), S_ref) < 1e-8
    if method == "cg":
        assert len(S.cg_iterations_) > 0


def test_schur_psd_and_loewner_interlacing():
    hg = _hypergraph(seed=4)
    cx = coboundary_complex(hg, beta=(1.0, 1.0), gamma=(0.5, 0.3))
    rep = cx.psd_report()
    assert rep["psd"]
    for eps in (1e-3, 0.1, 1.0):
        S = cx.collapsed(eps=eps).to_dense()
        A = cx.split()[0].toarray()
        ls, la = np.linalg.eigvalsh(S), np.linalg.eigvalsh(A)
        assert ls.min() > -1e-9
        assert np.all(ls <= la + 1e-9)
        assert np.linalg.eigvalsh(A - S).min() > -1e-9  # S <= A


def test_auto_method_and_singular_c():
    B1, _ = _random_complex(seed=3)
    cx = GradedComplex([B1], gamma=0.1)
    assert cx.collapsed(eps=1e-2).method_ == "exact"
    A, X, C = cx.split()
    S = SchurComplement(A, X, sp.linalg.aslinearoperator(C), eps=1e-2)
    assert S.method_ == "cg"
    with pytest.raises(ValueError, match="method"):
        SchurComplement(A, X, C, method="bad")
    with pytest.raises(ValueError, match="eps"):
        SchurComplement(A, X, C, eps=-1.0)


def test_shift_invert_eigenpairs_match_dense():
    hg = _hypergraph(seed=6, n=40, m=25)
    cx = coboundary_complex(hg, beta=(1.0, 1.0), gamma=(0.4, 0.3))
    S = cx.collapsed(eps=0.05)
    ref = np.linalg.eigvalsh(S.to_dense())[:6]
    for method in ("shift-invert", "lobpcg", "dense"):
        vals, vecs = S.smallest_eigenpairs(6, method=method, tol=1e-12)
        assert np.allclose(vals, ref, atol=1e-7, rtol=1e-7), method
        if method != "lobpcg":
            assert _rel(S.matmat(vecs), vecs * vals) < 1e-6
    with pytest.raises(ValueError):
        S.smallest_eigenpairs(hg.n_nodes)


def test_star_collapse_identity():
    hg = _hypergraph(seed=8)
    H, w = hg.incidence.toarray(), hg.weights
    zhou = np.diag(H @ w) - H @ np.diag(w / H.sum(axis=0)) @ H.T
    assert _rel(star_complex(hg, eps=0.0).to_dense(), zhou) < 1e-12
    assert _rel(StarCollapsedOperator(hg, eps=0.0).to_dense(), zhou) < 1e-12
    # the same generic Kron reduction from the star graph Laplacian itself
    from hyperclust.operators import StarLaplacian
    L = StarLaplacian(hg, normalized=False).to_sparse()
    keep = np.r_[np.ones(hg.n_nodes, bool), np.zeros(hg.n_edges, bool)]
    S = SchurComplement(*schur_split(L, keep), eps=0.0)
    assert _rel(S.to_dense(), zhou) < 1e-12
    # eps > 0: the closed form equals the generic collapse, and grounds every covered node
    for eps in (0.3, 2.0):
        closed = StarCollapsedOperator(hg, eps=eps)
        assert _rel(closed.to_dense(), star_complex(hg, eps=eps).to_dense()) < 1e-12
        assert np.allclose(closed.matvec(np.ones(hg.n_nodes)), closed.grounding())
        assert np.all(closed.grounding()[~hg.isolated] > 0)


def _relabel(hg, perm):
    inv = np.argsort(perm)
    return Hypergraph.from_edges([inv[e] for e in hg.edges()], n_nodes=hg.n_nodes, weights=hg.weights)


def test_coboundary_complex_invariant_and_hyperedges_matter():
    hg = _hypergraph(seed=9)
    perm = np.random.default_rng(1).permutation(hg.n_nodes)
    kw = dict(beta=(1.0, 1.0), gamma=(0.5, 0.4))
    S = coboundary_complex(hg, **kw).collapsed(eps=0.1).to_dense()
    S2 = coboundary_complex(_relabel(hg, perm), **kw).collapsed(eps=0.1).to_dense()
    assert _rel(S2, S[np.ix_(perm, perm)]) < 1e-10
    # flipping clique-edge orientations (signs of B_1 columns and B_2 rows) changes nothing
    cx = coboundary_complex(hg, **kw)
    B1, B2 = cx.boundaries
    D = sp.diags(np.random.default_rng(2).choice([-1.0, 1.0], B1.shape[1]))
    flipped = GradedComplex([B1 @ D, D @ B2], **kw).collapsed(eps=0.1).to_dense()
    assert _rel(flipped, S) < 1e-10
    # the hyperedge cells do change the operator
    no_h = GradedComplex([B1], beta=1.0, gamma=0.5).collapsed(eps=0.1).to_dense()
    assert _rel(S, no_h) > 1e-3


def _triangle_cycles(B1, pairs, hg):
    """B_2 whose columns are oriented triangle boundaries inside hyperedges, divided by the
    edge scales of the weighted B_1, so that B_1 B_2 = 0."""
    scale = np.asarray(abs(B1).max(axis=0).todense()).ravel()
    index = {tuple(p): j for j, p in enumerate(pairs.tolist())}
    cols, rows, vals = [], [], []
    c = 0
    for e in hg.edges():
        if e.size < 3:
            continue
        a, b, d = sorted(e[:3])
        for (u, v), s in (((a, b), 1.0), ((b, d), 1.0), ((a, d), -1.0)):
            j = index[(u, v)]
            rows.append(j); cols.append(c); vals.append(s / scale[j])
        c += 1
    return sp.csr_matrix((vals, (rows, cols)), shape=(len(pairs), c))


def test_chain_complex_pitfall_higher_cells_change_nothing():
    hg = _hypergraph(seed=10)
    B1, pairs = clique_incidence(hg)
    B2 = _triangle_cycles(B1, pairs, hg)
    assert B2.shape[1] > 0 and abs(B1 @ B2).max() < 1e-12
    b1, g0, eps = 1.0, 0.6, 0.05
    S_chain = GradedComplex([B1, B2], beta=(b1, 1.0), gamma=(g0, 0.5)).collapsed(eps=eps).to_dense()
    S_edges = GradedComplex([B1], beta=b1, gamma=g0).collapsed(eps=eps).to_dense()
    assert _rel(S_chain, S_edges) < 1e-10
    lam, U = np.linalg.eigh((B1 @ B1.T).toarray())
    f = b1 * lam - g0 ** 2 * lam / (b1 * lam + eps)
    assert _rel(S_chain, (U * f) @ U.T) < 1e-10


def test_signed_b1_with_membership_b2_depends_on_numbering():
    hg = _hypergraph(seed=11)
    perm = np.random.default_rng(3).permutation(hg.n_nodes)

    def S_of(h):
        B1, pairs = clique_incidence(h)
        B2 = membership_incidence(h, pairs)
        return GradedComplex([B1, B2], beta=(1.0, 1.0), gamma=(0.4, 0.2)).collapsed(eps=0.1).to_dense()
    S, S2 = S_of(hg), S_of(_relabel(hg, perm))
    assert _rel(S2, S[np.ix_(perm, perm)]) > 1e-4  # the pitfall: not invariant


def test_factored_coboundary_equals_generic():
    hg = _hypergraph(seed=12)
    for weighting, method in (("normalized", "factored"), ("unit", "factored"), ("normalized", "dense")):
        for eps in (0.1, 1e-3):
            kw = dict(beta=(1.2, 0.8), weighting=weighting)
            auto = CoboundaryCollapsed(hg, eps=eps, method=method, **kw)
            ref = coboundary_complex(hg, gamma=(auto.g0, auto.g1), **kw).collapsed(eps=eps, method="exact").to_dense()
            assert _rel(auto.to_dense(), ref) < 1e-8
            vals, _ = auto.smallest_eigenpairs(5)
            assert np.allclose(vals, np.linalg.eigvalsh(ref)[:5], atol=1e-8)
            with pytest.warns(UserWarning, match="exceeds"):
                big = CoboundaryCollapsed(hg, gamma=(0.5, 0.4), eps=eps, method=method, **kw)
            ref = coboundary_complex(hg, gamma=(0.5, 0.4), **kw).collapsed(eps=eps, method="exact").to_dense()
            assert _rel(big.to_dense(), ref) < 1e-8


def _path_hypergraph(n=60):
    """A long chain of pairs and triples: tiny lambda_2(L_0), the case where large couplings
    make S_eps indefinite."""
    edges = [[i, i + 1] for i in range(0, n - 1, 2)] + [[i, i + 1, i + 2] for i in range(1, n - 2, 2)]
    return Hypergraph.from_edges(edges, n_nodes=n)


def test_auto_gamma_keeps_coboundary_psd_where_fixed_gamma_does_not():
    hg = _path_hypergraph()
    with pytest.warns(UserWarning, match="exceeds"):
        bad = CoboundaryCollapsed(hg, gamma=(0.5, 0.5), eps=1e-2, method="factored")
    assert np.linalg.eigvalsh(bad.to_dense())[0] < -1e-3
    with pytest.warns(UserWarning, match="indefinite"):
        bad.smallest_eigenpairs(3)
    with pytest.warns(UserWarning):
        dense_bad = CoboundaryCollapsed(hg, gamma=(0.5, 0.5), eps=1e-2, method="dense")
    with pytest.warns(UserWarning, match="indefinite"):
        dense_bad.smallest_eigenpairs(3)
    for h in (hg, _hypergraph(seed=3), _hypergraph(seed=4)):
        for eps in (1e-1, 1e-2, 1e-4):
            S = CoboundaryCollapsed(h, eps=eps)
            S_dense = S.to_dense()
            lam = np.linalg.eigvalsh(S_dense)
            L0 = S.laplacian0_apply(np.eye(h.n_nodes))
            assert lam[0] >= -1e-9 * max(1.0, lam[-1])
            # the generic PSD check agrees
            report = coboundary_complex(h, gamma=(S.g0, S.g1)).psd_report(eps)
            assert report["eps_gamma_ok"] and report["psd"]
            # lambda_k(S_eps) <= lambda_k(beta_1 L_0): the collapse only removes energy
            assert np.all(lam <= np.linalg.eigvalsh(L0) + 1e-9)


def test_coboundary_complex_auto_gamma_matches_factored_operator():
    hg = _path_hypergraph(30)
    cx = coboundary_complex(hg, eps=0.05)
    assert np.allclose(cx.gamma, np.sqrt(0.05))
    S = cx.collapsed(eps=0.05, method="exact").to_dense()
    assert np.linalg.eigvalsh(S)[0] >= -1e-10
    assert _rel(CoboundaryCollapsed(hg, eps=0.05).to_dense(), S) < 1e-8
    with pytest.raises(ValueError, match="gamma"):
        coboundary_complex(hg, gamma="large")


def test_factored_coboundary_invariant_under_relabelling():
    hg = _hypergraph(seed=13)
    perm = np.random.default_rng(5).permutation(hg.n_nodes)
    S = CoboundaryCollapsed(hg, eps=0.05).to_dense()
    S2 = CoboundaryCollapsed(_relabel(hg, perm), eps=0.05).to_dense()
    assert _rel(S2, S[np.ix_(perm, perm)]) < 1e-10


def test_factored_coboundary_rejects_bad_parameters():
    hg = _hypergraph(seed=1)
    for kw, match in ((dict(eps=0.0), "eps"), (dict(gamma="big"), "gamma"),
                      (dict(beta=(1.0, -1.0)), "beta"), (dict(weighting="x"), "weighting"),
                      (dict(method="lu"), "method")):
        with pytest.raises(ValueError, match=match):
            CoboundaryCollapsed(hg, **kw)
    with pytest.raises(ValueError, match="k="):
        CoboundaryCollapsed(hg).smallest_eigenpairs(hg.n_nodes)


def test_lifted_system_equals_block_system():
    B1, B2 = _random_complex(seed=1)
    cx = GradedComplex([B1, B2], beta=(1.3, 0.7), gamma=(0.2, 0.1))
    S_ref, _ = _dense_schur(cx, 0.1)
    S = cx.collapsed(eps=0.1, method="lifted")
    assert _rel(S.to_dense(), S_ref) < 1e-10
    vals, _ = S.smallest_eigenpairs(4, method="lifted")
    assert np.allclose(vals, np.linalg.eigvalsh(S_ref)[:4], atol=1e-8)
