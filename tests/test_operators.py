"""Hypergraph operators: matrix-free vs dense references, PSD/spectrum, relabelling
invariance, isolated nodes, memory guard, torch conversion."""

import numpy as np
import pytest
import scipy.sparse as sp

from hyperclust import Hypergraph
from hyperclust.operators import (CliqueLaplacian, OperatorTooLargeError, StarCollapsedOperator,
                                  StarLaplacian, ZhouLaplacian, to_torch_sparse)


def _hypergraph(seed=0, n=14, m=9, isolated=2):
    rng = np.random.default_rng(seed)
    edges = [rng.choice(n - isolated, size=rng.integers(2, 6), replace=False) for _ in range(m)]
    edges.append([3])  # a singleton hyperedge
    w = rng.uniform(0.5, 2.0, size=len(edges))
    return Hypergraph.from_edges(edges, n_nodes=n, weights=w)


def _dense_parts(hg):
    H = hg.incidence.toarray()
    w = hg.weights
    de = H.sum(axis=0)
    dv = H @ w
    return H, w, de, dv


def _inv(x):
    return np.where(x > 0, 1.0 / np.where(x > 0, x, 1.0), 0.0)


def zhou_dense(hg, kind, s):
    H, w, de, dv = _dense_parts(hg)
    M = H @ np.diag(w / de) @ H.T + s * np.eye(hg.n_nodes)
    d = dv + s
    if kind == "unnormalized":
        return np.diag(d) - M
    if kind == "sym":
        return np.eye(hg.n_nodes) - np.diag(np.sqrt(_inv(d))) @ M @ np.diag(np.sqrt(_inv(d)))
    return np.eye(hg.n_nodes) - np.diag(_inv(d)) @ M


def clique_dense(hg, weighting, normalized):
    H, w, de, _ = _dense_parts(hg)
    n = hg.n_nodes
    A = np.zeros((n, n))
    for e in range(H.shape[1]):
        mem = np.flatnonzero(H[:, e])
        if mem.size < 2:
            continue
        c = w[e] / (mem.size - 1) if weighting == "normalized" else w[e]
        for u in mem:
            for v in mem:
                if u != v:
                    A[u, v] += c
    d = A.sum(axis=1)
    if not normalized:
        return np.diag(d) - A
    s = np.sqrt(_inv(d))
    return np.eye(n) - s[:, None] * A * s[None, :]


def star_dense(hg, normalized):
    H, w, de, dv = _dense_parts(hg)
    n, m = H.shape
    B = np.zeros((n + m, n + m))
    B[:n, n:] = H * w
    B[n:, :n] = (H * w).T
    d = B.sum(axis=1)
    if not normalized:
        return np.diag(d) - B
    s = np.sqrt(_inv(d))
    return np.eye(n + m) - s[:, None] * B * s[None, :]


def collapsed_dense(hg, eps, normalized):
    H, w, de, dv = _dense_parts(hg)
    S = np.diag(dv) - H @ np.diag(w ** 2 / (w * de + eps)) @ H.T
    if normalized:
        s = np.sqrt(_inv(dv))
        S = s[:, None] * S * s[None, :] + np.diag((dv == 0).astype(float))
    return S


CASES = (
    [(f"zhou-{k}-s{s}", lambda hg, k=k, s=s: ZhouLaplacian(hg, kind=k, self_loops=s),
      lambda hg, k=k, s=s: zhou_dense(hg, k, s)) for k in ("sym", "rw", "unnormalized") for s in (0.0, 1.0)]
    + [(f"clique-{wt}-{nm}", lambda hg, wt=wt, nm=nm: CliqueLaplacian(hg, wt, nm),
        lambda hg, wt=wt, nm=nm: clique_dense(hg, wt, nm))
       for wt in ("normalized", "unit") for nm in (True, False)]
    + [(f"star-{nm}", lambda hg, nm=nm: StarLaplacian(hg, nm), lambda hg, nm=nm: star_dense(hg, nm))
       for nm in (True, False)]
    + [(f"collapsed-{e}-{nm}", lambda hg, e=e, nm=nm: StarCollapsedOperator(hg, e, nm),
        lambda hg, e=e, nm=nm: collapsed_dense(hg, e, nm)) for e in (0.0, 0.7) for nm in (True, False)]
)


def _rel(a, b):
    return np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-300)


@pytest.mark.parametrize("name,make,dense", CASES, ids=[c[0] for c in CASES])
def test_matrix_free_equals_dense(name, make, dense):
    hg = _hypergraph()
    op, ref = make(hg), dense(hg)
    X = np.random.default_rng(1).standard_normal((op.shape[0], 3))
    assert _rel(op.matmat(X), ref @ X) < 1e-8
    assert _rel(op.matvec(X[:, 0]), ref @ X[:, 0]) < 1e-8
    assert _rel(op.rmatvec(X[:, 0]), ref.T @ X[:, 0]) < 1e-8
    assert _rel(op.H.matmat(X), ref.T @ X) < 1e-8
    assert _rel(op.to_sparse().toarray(), ref) < 1e-12
    assert np.isfinite(op.to_sparse().data).all()


@pytest.mark.parametrize("name,make,dense", CASES, ids=[c[0] for c in CASES])
def test_relabelling_permutes_operator(name, make, dense):
    hg = _hypergraph(seed=3)
    rng = np.random.default_rng(7)
    perm = rng.permutation(hg.n_nodes)          # new node i is old node perm[i]
    eperm = rng.permutation(hg.n_edges)
    inv = np.argsort(perm)
    edges = [inv[e] for e in hg.edges()]
    hg2 = Hypergraph.from_edges([edges[j] for j in eperm], n_nodes=hg.n_nodes,
                                weights=hg.weights[eperm])
    A = make(hg).to_sparse().toarray()
    B = make(hg2).to_sparse().toarray()
    n = hg.n_nodes
    if A.shape[0] > n:  # star: vertices then hyperedges
        full = np.concatenate([perm, n + eperm])
    else:
        full = perm
    assert np.allclose(B, A[np.ix_(full, full)], atol=1e-12)


def test_zhou_spectrum_and_isolated_rows():
    hg = _hypergraph()
    L = ZhouLaplacian(hg, "sym").to_sparse().toarray()
    vals = np.linalg.eigvalsh(L)
    assert vals.min() > -1e-10 and vals.max() < 1 + 1e-10
    iso = np.flatnonzero(hg.isolated)
    assert iso.size >= 2
    assert np.allclose(L[iso][:, iso], np.eye(iso.size))
    assert np.allclose(L[iso][:, ~hg.isolated], 0.0)
    for op in (CliqueLaplacian(hg), StarLaplacian(hg), StarCollapsedOperator(hg, 1.0, True)):
        assert np.isfinite(op.to_sparse().data).all()
        assert np.isfinite(op.matvec(np.ones(op.shape[0]))).all()


def test_normalized_laplacians_are_psd():
    hg = _hypergraph(seed=5)
    for op in (CliqueLaplacian(hg), CliqueLaplacian(hg, "unit", False), StarLaplacian(hg),
               StarCollapsedOperator(hg, 0.5)):
        assert np.linalg.eigvalsh(op.to_sparse().toarray()).min() > -1e-10


def test_explicit_clique_refuses_when_too_large():
    edges = [np.arange(0, 400), np.arange(200, 700)]
    hg = Hypergraph.from_edges(edges)
    op = CliqueLaplacian(hg)
    with pytest.raises(OperatorTooLargeError, match=r"nonzeros.*GiB"):
        op.to_sparse(max_nnz=10_000)
    with pytest.raises(OperatorTooLargeError, match="memory_budget"):
        op.to_sparse(memory_budget=1024)
    # the matrix-free operator still works
    assert np.isfinite(op.matvec(np.ones(hg.n_nodes))).all()
    # the star expansion is linear in nnz(H) and passes the same budget
    StarLaplacian(hg).to_sparse(max_nnz=10_000)


def test_torch_sparse_matches():
    torch = pytest.importorskip("torch")
    hg = _hypergraph()
    op = ZhouLaplacian(hg)
    T = to_torch_sparse(op, device="cpu", dtype=torch.float64)
    assert T.is_sparse and T.device.type == "cpu"
    assert np.allclose(T.to_dense().numpy(), op.to_sparse().toarray())
    T2 = to_torch_sparse(sp.identity(3))
    assert T2.dtype == torch.float32
    with pytest.raises(TypeError):
        to_torch_sparse(object())


def test_bad_arguments():
    hg = _hypergraph()
    with pytest.raises(ValueError, match="kind"):
        ZhouLaplacian(hg, kind="bad")
    with pytest.raises(ValueError, match="weighting"):
        CliqueLaplacian(hg, weighting="bad")
    with pytest.raises(TypeError):
        ZhouLaplacian("not a hypergraph")
    with pytest.raises(ValueError, match="eps"):
        StarCollapsedOperator(hg, eps=-1)
