"""The block eigensolver's pieces: the blocked orthonormalisation (TSQR), the in-place
Chebyshev recurrence and the blocked rank-one term, against dense references."""

from __future__ import annotations

import numpy as np
import pytest

from hyperclust.datasets.synthetic import hypergraph_sbm
from hyperclust.operators import eigensolvers, subspace
from hyperclust.operators.eigensolvers import NormalizedAffinity
from hyperclust.operators.laplacians import ZhouLaplacian


@pytest.fixture
def small_blocks(monkeypatch):
    """Row blocks of 16, so that a few hundred rows take the blocked paths."""
    monkeypatch.setattr(subspace, "QR_BLOCK_ROWS", 16)
    monkeypatch.setattr(eigensolvers, "OUTER_BLOCK_ROWS", 16)


@pytest.mark.parametrize("n", [40, 47, 333])
def test_blocked_qr_spans_the_columns_of_householder_qr(small_blocks, n):
    # columns scaled over 12 orders of magnitude: a Cholesky QR would lose orthogonality
    V = np.random.default_rng(n).normal(size=(n, 5)) * np.geomspace(1.0, 1e12, 5)
    Q = subspace.orthonormal_basis(V)
    reference = np.linalg.qr(V)[0]
    assert Q.shape == (n, 5)
    np.testing.assert_allclose(Q.T @ Q, np.eye(5), atol=1e-13)
    # the same columns up to sign: Q^T Q_ref is diagonal with entries +-1
    np.testing.assert_allclose(np.abs(Q.T @ reference), np.eye(5), atol=1e-10)


def test_one_block_is_householder_qr_bit_for_bit(small_blocks):
    V = np.random.default_rng(0).normal(size=(31, 4))  # under two blocks of 16 rows
    np.testing.assert_array_equal(subspace.orthonormal_basis(V), np.linalg.qr(V)[0])


def _operator(n=300, tau=True):
    hg = hypergraph_sbm(n, 3, homophily=0.8, n_features=0, random_state=1)
    M, d = ZhouLaplacian(hg, kind="unnormalized").affinity()
    return NormalizedAffinity(M, d, float(d.mean()) if tau else 0.0)


def test_chebyshev_in_place_is_the_recurrence_bit_for_bit():
    N = _operator()
    V = np.random.default_rng(2).normal(size=(N.shape[0], 6))
    c = e = 0.35 / 2.0
    prev, cur = V, (N @ V - c * V) / e
    for _ in range(5):
        prev, cur = cur, 2.0 * (N @ cur - c * cur) / e - prev
    before = V.copy()
    np.testing.assert_array_equal(subspace._chebyshev(N, V, 6, 0.35), cur)
    np.testing.assert_array_equal(V, before)  # the start block is not written


def test_blocked_rank_one_term_is_the_outer_product_bit_for_bit(small_blocks):
    rng = np.random.default_rng(3)
    out, u, v = rng.normal(size=(70, 4)), rng.normal(size=70), rng.normal(size=4)
    expected = out + np.outer(u, v)
    eigensolvers._add_outer(out, u, v)
    np.testing.assert_array_equal(out, expected)


def test_blocked_solver_matches_dense_eigenpairs(small_blocks):
    N = _operator()
    dense = N @ np.eye(N.shape[0])
    values, V = subspace.subspace_eigenpairs(N, 5, random_state=0)
    expected = np.linalg.eigvalsh((dense + dense.T) / 2)[::-1][:5]
    np.testing.assert_allclose(values, expected, atol=1e-10)
    np.testing.assert_allclose(dense @ V, V * values, atol=1e-7)


def test_chebyshev_leaves_the_start_block_of_an_identity_operator_alone():
    from scipy.sparse.linalg import aslinearoperator

    V = np.random.default_rng(4).normal(size=(20, 3))
    before = V.copy()
    identity = aslinearoperator(np.eye(20))
    identity._matmat = lambda X: X  # hands back its input, as scipy's IdentityOperator does
    out = subspace._chebyshev(identity, V, 4, 0.5)
    np.testing.assert_array_equal(V, before)
    # T_4 at x = (1 - c) / e = 3 (c = e = 0.25) on every column: T_4(3) = 577
    np.testing.assert_allclose(out, 577.0 * before)


def test_a_ranking_tolerance_stops_earlier_and_only_inside_its_block():
    hg = hypergraph_sbm(600, 3, homophily=0.8, n_features=0, random_state=0)
    M, d = ZhouLaplacian(hg, kind="unnormalized").affinity()
    op = NormalizedAffinity(M, d, float(d.mean()))
    steps = []
    step = subspace._rayleigh_ritz

    def counted(op, V, k):
        mu, V, res = step(op, V, k)
        steps.append(res.max())
        return mu, V, res

    def solve():
        steps.clear()
        values, V = subspace.subspace_eigenpairs(op, 6)
        W = op @ V
        return np.linalg.norm(W - V * values, axis=0).max(), len(steps)

    subspace._rayleigh_ritz = counted
    try:
        strict, strict_steps = solve()
        with subspace.ranking_tolerance(1e-3):
            assert subspace.stop_tolerance() == 1e-3
            loose, loose_steps = solve()
        again, again_steps = solve()
    finally:
        subspace._rayleigh_ritz = step
    assert strict <= subspace.TOL and 1e-3 >= loose > subspace.TOL
    assert loose_steps < strict_steps == again_steps and again == strict
    assert subspace.stop_tolerance() == subspace.TOL
