"""The distributed thick-restart Lanczos eigensolver: agreement with a dense reference,
restarts, a repeated eigenvalue found through an invariant subspace, and the spectral
estimator's choice of eigensolver."""

import numpy as np
import pytest
from sklearn.metrics import adjusted_rand_score

from hyperclust import Hypergraph
from hyperclust.cluster.spectral import SpectralHypergraphClustering
from hyperclust.datasets import hypergraph_sbm
from hyperclust.operators import ZhouLaplacian
from hyperclust.operators.eigensolvers import NormalizedAffinity

pytest.importorskip("distributed")

from hyperclust.distributed import DistributedSpectralClustering  # noqa: E402
from hyperclust.distributed import write_partitioned  # noqa: E402
from hyperclust.distributed.kmeans import node_rank_blocks  # noqa: E402
from hyperclust.distributed.lanczos import lanczos_eigenpairs  # noqa: E402
from hyperclust.distributed.linalg import gather_blocks  # noqa: E402
from hyperclust.distributed.operator import normalized_affinity  # noqa: E402


def _dense_affinity(hg, tau):
    M, d = ZhouLaplacian(hg, kind="unnormalized").affinity()
    N = NormalizedAffinity(M, d, tau) @ np.eye(hg.n_nodes)
    return (N + N.T) / 2


@pytest.mark.parametrize("ncv", [None, 7])
def test_lanczos_matches_the_dense_eigenpairs(client, tmp_path, ncv):
    # ncv = 7 for k = 4 restarts every 2 products (kept: 5 Ritz vectors)
    hg = hypergraph_sbm(300, 4, homophily=0.7, random_state=1)
    phg = write_partitioned(hg, tmp_path, block_size=110)
    N = _dense_affinity(hg, 1.0)
    ref = np.linalg.eigvalsh(N)[::-1][:4]
    values, vectors, products = lanczos_eigenpairs(normalized_affinity(phg, client, tau=1.0),
                                                   4, tol=1e-10, ncv=ncv)
    U = gather_blocks(client, vectors)
    np.testing.assert_allclose(values, ref, rtol=0, atol=1e-12)
    np.testing.assert_allclose(U.T @ U, np.eye(4), atol=1e-10)
    assert np.abs(N @ U - U * values).max() < 1e-8
    if ncv == 7:
        assert products > 7  # it restarted
    # the largest-magnitude entry of each column is positive (fix_signs)
    assert np.all(U[np.abs(U).argmax(axis=0), np.arange(4)] > 0)


def test_lanczos_finds_both_copies_of_a_repeated_eigenvalue(client, tmp_path):
    # two identical components and no regularization: eigenvalue 1 twice. One start vector
    # spans an invariant subspace holding one copy; the fresh direction drawn after the
    # breakdown finds the other.
    one = [[0, 1, 2], [1, 2], [2, 3]]
    hg = Hypergraph.from_edges(one + [[v + 4 for v in e] for e in one])
    phg = write_partitioned(hg, tmp_path, block_size=3)
    ref = np.linalg.eigvalsh(_dense_affinity(hg, 0.0))[::-1][:3]
    assert abs(ref[0] - ref[1]) < 1e-12 and ref[1] - ref[2] > 0.1
    values, vectors, _ = lanczos_eigenpairs(normalized_affinity(phg, client, tau=0.0), 3,
                                            tol=1e-10)
    np.testing.assert_allclose(values, ref, rtol=0, atol=1e-12)
    U = gather_blocks(client, vectors)
    np.testing.assert_allclose(U.T @ U, np.eye(3), atol=1e-10)


def test_lanczos_start_follows_the_node_ranks_not_the_blocks(client, tmp_path):
    # far from converged (no restart allowed, 6 vectors): the iterate still carries its
    # start, drawn by node rank, so two blockings give each node the same rows
    hg = hypergraph_sbm(400, 3, homophily=0.6, random_state=6)
    rows = []
    for size in (100, 170):
        phg = write_partitioned(hg, tmp_path / str(size), block_size=size)
        with pytest.warns(Warning, match="did not reach"):
            _, vectors, products = lanczos_eigenpairs(
                normalized_affinity(phg, client, tau=1.0), 3, tol=1e-14, ncv=6, max_iter=0,
                row_keys=node_rank_blocks(client, phg))
        assert products == 6
        rows.append(gather_blocks(client, vectors))
    assert np.abs(rows[0] - rows[1]).max() < 1e-10


def test_spectral_auto_eigensolver_takes_the_single_process_route(client, tmp_path):
    # above DENSE_LIMIT with tau > 0 the single process runs ARPACK's Lanczos: so does
    # "auto", with the same labels; below it (dense eigh there) the block iteration
    big = hypergraph_sbm(2000, 3, homophily=0.8, isolated_fraction=0.05, random_state=3)
    ref = SpectralHypergraphClustering(3, random_state=0).fit(big)
    est = DistributedSpectralClustering(3, client=client, random_state=0,
                                        block_size=700).fit(big)
    assert est.eigensolver_ == "lanczos" and est.tau_ == ref.tau_ > 0
    np.testing.assert_allclose(est.eigenvalues_, ref.eigenvalues_, rtol=0, atol=1e-7)
    assert adjusted_rand_score(ref.labels_, est.labels_) == 1.0
    block = DistributedSpectralClustering(3, client=client, random_state=0, block_size=700,
                                          eigensolver="subspace").fit(big)
    assert block.eigensolver_ == "subspace"
    np.testing.assert_array_equal(block.labels_, est.labels_)
    small = hypergraph_sbm(300, 3, homophily=0.8, random_state=3)
    assert DistributedSpectralClustering(3, client=client, random_state=0).fit(
        small).eigensolver_ == "subspace"


def test_spectral_auto_keeps_the_block_iteration_on_disconnected_unregularized_input(
        client):
    # tau = 0 and two components: the single process solves per component, "auto" takes
    # the block iteration (one Lanczos start would find one copy of the eigenvalue 1)
    a = hypergraph_sbm(1000, 2, homophily=0.9, random_state=0)
    edges = [list(e) for e in a.edges()]
    hg = Hypergraph.from_edges(edges + [[v + 1000 for v in e] for e in edges], n_nodes=2000)
    est = DistributedSpectralClustering(3, client=client, regularization=0.0,
                                        random_state=0, block_size=700).fit(hg)
    assert est.eigensolver_ == "subspace"
    with pytest.raises(ValueError, match="eigensolver"):
        DistributedSpectralClustering(3, client=client, eigensolver="arpack").fit(hg)
