"""Eigenvectors of repeated eigenvalues: the block solver finds every copy (Lanczos does
not), and the canonical basis depends on the eigenspaces only, so the single-process and
the distributed structural inputs agree."""

from __future__ import annotations

import numpy as np
import pytest

from hyperclust import Hypergraph
from hyperclust.operators.eigenbasis import canonical_rotation, probe_vectors, repeated_runs
from hyperclust.operators.laplacians import ZhouLaplacian
from hyperclust.operators.signs import fix_signs
from hyperclust.operators.subspace import subspace_eigenpairs
from hyperclust.operators.eigensolvers import NormalizedAffinity, eigsh_seeded, structural_features


def _orthonormal(rng, n, k):
    return np.linalg.qr(rng.normal(size=(n, k)))[0]


def _rotation(rng, m):
    return np.linalg.qr(rng.normal(size=(m, m)))[0]


def test_repeated_runs_known_answers():
    assert repeated_runs([0.1, 0.2, 0.3]) == []
    assert repeated_runs([0.5, 0.5, 0.5]) == [(0, 3)]
    assert repeated_runs([0.0, 0.4, 0.4 + 5e-7, 0.9, 0.9]) == [(1, 3), (3, 5)]
    assert repeated_runs([0.0, 0.4, 0.4 + 5e-6]) == []


@pytest.mark.parametrize("seed", range(5))
def test_canonical_basis_ignores_rotations_inside_repeated_eigenvalues(seed):
    rng = np.random.default_rng(seed)
    n, values = 40, np.array([0.0, 0.2, 0.2, 0.2, 0.5, 0.7, 0.7, 0.9])
    V = _orthonormal(rng, n, values.size)
    W = V.copy()
    for start, stop in [(1, 4), (5, 7)]:
        W[:, start:stop] = V[:, start:stop] @ _rotation(rng, stop - start)
    R = probe_vectors(np.arange(n), values.size)
    for k in (5, 7):
        a = V @ canonical_rotation(values, V.T @ R, k)
        b = W @ canonical_rotation(values, W.T @ R, k)
        np.testing.assert_allclose(a, b, atol=1e-12)
        assert a.shape == (n, k)
        np.testing.assert_allclose(a.T @ a, np.eye(k), atol=1e-12)  # still orthonormal
        # the columns stay in their eigenspaces
        for start, stop in [(1, 4), (5, 7)]:
            P = V[:, start:stop] @ V[:, start:stop].T
            np.testing.assert_allclose(P @ a[:, start:stop], a[:, start:stop], atol=1e-12)
    # a repeated eigenvalue continuing past the cut is dropped whole
    assert canonical_rotation(values, V.T @ R, 2).shape == (values.size, 1)
    assert canonical_rotation(values, V.T @ R, 6).shape == (values.size, 5)
    # one starting at column 0 is kept as given (nothing would be left)
    same = np.full(4, 0.3)
    np.testing.assert_array_equal(canonical_rotation(same, np.eye(4), 2), np.eye(4)[:, :2])


def _copies():
    """Six identical triangles hung on one hub: eigenvalues repeated 5 times (the
    triangles can be permuted)."""
    edges = []
    for c in range(6):
        base = 1 + 3 * c
        edges += [[base, base + 1, base + 2], [0, base]]
    return Hypergraph.from_edges(edges)


def test_block_solver_finds_every_copy():
    hg = _copies()
    M, d = ZhouLaplacian(hg, kind="unnormalized").affinity()
    N = NormalizedAffinity(M, d, float(d.mean()))
    A = N @ np.eye(hg.n_nodes)
    exact = np.linalg.eigvalsh((A + A.T) / 2)[::-1]
    k = 7
    values, V = subspace_eigenpairs(N, k, random_state=0)
    np.testing.assert_allclose(values, exact[:k], atol=1e-10)
    np.testing.assert_allclose(V.T @ V, np.eye(k), atol=1e-10)
    np.testing.assert_allclose(A @ V, V * values, atol=1e-7)
    assert repeated_runs(exact[:k]) == [(2, 7)]


def _dense_structural(hg, n_columns):
    """The reference: dense ``eigh`` of the regularized affinity, the same canonical rule."""
    M, d = ZhouLaplacian(hg, kind="unnormalized").affinity()
    A = NormalizedAffinity(M, d, float(d.mean())) @ np.eye(hg.n_nodes)
    values, V = np.linalg.eigh((A + A.T) / 2)
    values, V = values[::-1][:n_columns + 1], V[:, ::-1][:, :n_columns + 1]
    T = canonical_rotation(values, V.T @ probe_vectors(np.arange(hg.n_nodes), values.size),
                           n_columns)
    out = np.zeros((hg.n_nodes, n_columns))
    out[:, :T.shape[1]] = fix_signs(V @ T) * np.sqrt(hg.n_nodes)
    return out


def test_structural_features_follow_the_eigenspaces_on_cora_ca(shared_data):
    # cora-ca with its 320 nodes in no hyperedge: an eigenvalue repeated 7 times at columns
    # 11-17, across the cut of 14 columns (ARPACK returned one copy of it)
    from hyperclust.datasets import resolve_dataset

    hg = resolve_dataset("cora-ca", shared_data).replace(features=None)
    got = structural_features(hg, 14, random_state=0)
    ref = _dense_structural(hg, 14)
    np.testing.assert_allclose(got, ref, atol=1e-5)
    assert np.all(got[:, 11:] == 0) and np.all(np.abs(got[:, :11]).max(axis=0) > 1)
    np.testing.assert_allclose(structural_features(hg, 14, random_state=3), got, atol=1e-5)
    # why the block solver: Lanczos from one start vector returns one copy
    M, d = ZhouLaplacian(hg, kind="unnormalized").affinity()
    lanczos, _ = eigsh_seeded(NormalizedAffinity(M, d, float(d.mean())), 15, random_state=0)
    assert np.sum(np.abs(lanczos - lanczos[11]) < 1e-6) < 4


def test_distributed_structural_input_equals_the_single_process(tmp_path, client,
                                                                shared_data):
    from hyperclust.datasets import resolve_dataset
    from hyperclust.distributed import write_partitioned
    from hyperclust.distributed.structural import structural_blocks

    hg = resolve_dataset("cora-ca", shared_data).replace(features=None)
    phg = write_partitioned(hg, tmp_path / "parts", block_size=1000)
    got = np.concatenate(client.gather(structural_blocks(phg, client, 14, 0)))
    np.testing.assert_allclose(got, structural_features(hg, 14, random_state=0), atol=1e-5)
