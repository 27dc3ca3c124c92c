"""hyperclust.distributed for AHCKA with node features: the blockwise exact kNN affinity
against knn_affinity, the mixed block walk against MixedWalk, DistributedAHCKA against
AHCKA(knn_method="exact"), and `hyperclust cluster DIR --scheduler ... --method ahcka`."""

from __future__ import annotations

import csv

import numpy as np
import pytest
import scipy.sparse as sp

distributed = pytest.importorskip("distributed")

from hyperclust import Hypergraph  # noqa: E402
from hyperclust.cli import main  # noqa: E402
from hyperclust.cluster import AHCKA  # noqa: E402
from hyperclust.datasets import hypergraph_sbm  # noqa: E402
from hyperclust.distributed import DistributedAHCKA, write_partitioned  # noqa: E402
from hyperclust.distributed.knn import knn_affinity_blocks  # noqa: E402
from hyperclust.distributed.linalg import gather_blocks, scatter_blocks  # noqa: E402
from hyperclust.distributed.walk import MixedBlockWalk  # noqa: E402
from hyperclust.io import read_edgelist  # noqa: E402
from hyperclust.operators.knn import MixedWalk, knn_affinity  # noqa: E402


def _features(kind, n, rng):
    if kind == "binary":  # dense 0/1 rows: many exactly tied similarities
        return (rng.random((n, 12)) < 0.25).astype(float)
    if kind == "sparse":  # under 5% nonzeros: the search's sparse products
        return (rng.random((n, 200)) < 0.02).astype(float)
    X = rng.normal(size=(n, 5))
    X[[3, 50]] = 0.0  # zero rows have no kNN edges
    return X


def _gathered(client, blocks):
    return sp.vstack(client.gather(blocks)).tocsr()


def _identical(A, B):
    return (A.shape == B.shape and np.array_equal(A.indptr, B.indptr)
            and np.array_equal(A.indices, B.indices) and np.array_equal(A.data, B.data))


# ------------------------------------------------------------------ kNN affinity
# block sizes: uneven blocks, and 13 leaves a last block of one node (a one-row product)
@pytest.mark.parametrize("kind, block_size, k, seed", [
    ("binary", 40, 5, 0), ("binary", 13, 10, 3), ("gauss", 13, 5, 0), ("gauss", 157, 1, 7),
    ("sparse", 40, 10, 3)])
def test_blockwise_knn_equals_knn_affinity_exact(tmp_path, client, kind, block_size, k, seed):
    n = 157
    X = _features(kind, n, np.random.default_rng(1))
    hg = Hypergraph.from_edges([[i, i + 1] for i in range(0, n - 1, 2)], n_nodes=n, features=X)
    phg = write_partitioned(hg, tmp_path, block_size=block_size)
    A = _gathered(client, knn_affinity_blocks(phg, client, k, random_state=seed))
    ref = knn_affinity(X, k, method="exact", random_state=seed)
    assert _identical(A, ref)  # same neighbour sets, same bits
    if kind == "binary":  # the seed decides ties: another one gives another graph
        other = knn_affinity(X, k, method="exact", random_state=seed + 1)
        assert not _identical(other, ref)


def test_knn_affinity_blocks_errors(tmp_path, client):
    phg = write_partitioned(Hypergraph.from_edges([[0, 1], [1, 2]]), tmp_path, block_size=2)
    with pytest.raises(ValueError, match="holds no node features"):
        knn_affinity_blocks(phg, client, 2)


# ------------------------------------------------------------------ the mixed walk
@pytest.fixture(scope="module")
def attributed():
    hg = hypergraph_sbm(200, 3, homophily=0.8, n_features=6, isolated_fraction=0.05,
                        random_state=4)
    X = np.asarray(hg.features, dtype=np.float64).copy()
    isolated = np.flatnonzero(np.asarray(hg.weighted_degrees) == 0)
    X[[5, 17, isolated[0]]] = 0.0  # no kNN edges; isolated[0] has neither kind of edge
    return hg.replace(features=X)


@pytest.mark.parametrize("adjoint", [False, True])
def test_mixed_block_walk_matches_mixed_walk(tmp_path, client, attributed, adjoint):
    hg = attributed
    phg = write_partitioned(hg, tmp_path, block_size=70)
    ref = MixedWalk(hg, knn_affinity(hg.features, 5, method="exact", random_state=2),
                    beta=0.3)
    a, b = ref.row_weights_  # every rule of MixedWalk occurs
    assert {(0.7, 0.3), (0.0, 1.0), (1.0, 0.0), (0.0, 0.0)} <= set(zip(a.round(6), b.round(6)))
    M = MixedBlockWalk(phg, client, knn_affinity_blocks(phg, client, 5, random_state=2), 0.3,
                       adjoint=adjoint)
    V = np.random.default_rng(0).normal(size=(hg.n_nodes, 4))
    Y = gather_blocks(client, M.apply(scatter_blocks(client, V, M.bounds)))
    np.testing.assert_allclose(Y, ref.T @ V if adjoint else ref @ V, rtol=0, atol=1e-13)


# ------------------------------------------------------------------ the estimator
@pytest.mark.parametrize("block_size, kw", [(70, {}),
                                            (50, dict(beta=0.7, n_neighbors=4,
                                                      random_state=3))])
def test_ahcka_with_features_equals_single_process(client, attributed, block_size, kw):
    hg = attributed
    ref = AHCKA(3, max_iter=8, check_interval=4, knn_method="exact", **kw).fit(hg)
    est = DistributedAHCKA(3, max_iter=8, check_interval=4, client=client,
                           block_size=block_size, **kw).fit(hg)
    assert len(est.objective_history_) == len(ref.objective_history_) == 3
    np.testing.assert_allclose([f for _, f in est.objective_history_],
                               [f for _, f in ref.objective_history_], rtol=0, atol=1e-10)
    assert (est.n_iter_, est.best_iter_) == (ref.n_iter_, ref.best_iter_)
    np.testing.assert_array_equal(est.labels_, ref.labels_)
    signs = np.sign(np.sum(est.embedding_ * ref.embedding_, axis=0))
    np.testing.assert_allclose(est.embedding_ * signs, ref.embedding_, rtol=0, atol=1e-8)
    # the kNN walk is in use: without it the objective history is another one
    plain = AHCKA(3, max_iter=8, check_interval=4, beta=0.0).fit(hg)
    assert not np.allclose([f for _, f in plain.objective_history_],
                           [f for _, f in est.objective_history_], rtol=0, atol=1e-6)


def test_ahcka_parameters_are_checked(client, attributed):
    from sklearn.base import clone

    est = DistributedAHCKA(3, n_neighbors=4, beta=0.2, random_state=5)
    assert clone(est).get_params() == est.get_params()
    with pytest.raises(ValueError, match="beta"):
        DistributedAHCKA(3, beta=1.5, client=client).fit(attributed)
    with pytest.raises(ValueError, match="n_neighbors"):
        DistributedAHCKA(3, n_neighbors=0, client=client).fit(attributed)


# ------------------------------------------------------------------ CLI
def test_cli_partition_with_features_then_ahcka(tmp_path, client, capsys):
    # 20 orthogonal iterations before the objective has risen 3 checks in a row
    hg = hypergraph_sbm(60, 2, homophily=0.7, n_features=6, n_edges=120, random_state=16)
    edges = tmp_path / "edges.txt"
    edges.write_text("".join(" ".join(f"v{v}" for v in e) + "\n" for e in hg.edges()))
    ref_hg = read_edgelist(edges)
    index = {f"v{i}": i for i in range(hg.n_nodes)}
    X = np.asarray(hg.features)[[index[v] for v in ref_hg.node_ids]]
    table = tmp_path / "features.csv"
    table.write_text("node," + ",".join(f"f{j}" for j in range(6)) + "\n" + "".join(
        f"{v}," + ",".join(repr(float(x)) for x in row) + "\n"
        for v, row in zip(ref_hg.node_ids, X)))
    parts, labels_csv = tmp_path / "parts", tmp_path / "labels.csv"
    assert main(["partition", str(edges), "--out", str(parts), "--block-size", "30",
                 "--features", str(table)]) == 0
    capsys.readouterr()
    assert main(["cluster", str(parts), "--scheduler", client.scheduler.address, "--k", "2",
                 "--method", "ahcka", "--seed", "1", "--out", str(labels_csv)]) == 0
    assert "(20 orthogonal iterations)" in capsys.readouterr().out
    with open(labels_csv, newline="") as fh:
        rows = list(csv.reader(fh))
    ref = AHCKA(2, knn_method="exact", random_state=1).fit(ref_hg.replace(features=X))
    assert [r[0] for r in rows[1:]] == list(ref_hg.node_ids)
    assert [int(r[1]) for r in rows[1:]] == ref.labels_.tolist()
