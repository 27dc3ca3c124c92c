"""hyperclust.distributed: partitioned build, block operators, eigensolver, k-means, the
estimator and the CLI on a 2-worker LocalCluster, against the single-process library."""

from __future__ import annotations

import csv
import multiprocessing
import os
import signal

import numpy as np
import pytest
from scipy.linalg import orthogonal_procrustes

distributed = pytest.importorskip("distributed")
dask = pytest.importorskip("dask")

from hyperclust import Hypergraph  # noqa: E402
from hyperclust.cli import main  # noqa: E402
from hyperclust.cluster.spectral import SpectralHypergraphClustering  # noqa: E402
from hyperclust.datasets import hypergraph_sbm  # noqa: E402
from hyperclust.cluster import AHCKA  # noqa: E402
from hyperclust.distributed import (DistributedAHCKA,  # noqa: E402
                                    DistributedSpectralClustering, PartitionedHypergraph,
                                    partition_edgelists, write_partitioned)
from hyperclust.distributed.basis import read_power_basis, write_power_basis  # noqa: E402
from hyperclust.distributed.client import parse_scheduler  # noqa: E402
from hyperclust.distributed.kmeans import block_kmeans  # noqa: E402
from hyperclust.distributed.linalg import gather_blocks, scatter_blocks, tsqr  # noqa: E402
from hyperclust.distributed.operator import normalized_affinity, propagation  # noqa: E402
from hyperclust.io import read_edgelist  # noqa: E402
from hyperclust.models.basis import polynomial_basis  # noqa: E402
from hyperclust.operators.laplacians import ZhouLaplacian  # noqa: E402
from hyperclust.operators.propagation import PropagationOperator  # noqa: E402
from hyperclust.operators.eigensolvers import NormalizedAffinity  # noqa: E402


@pytest.fixture(scope="module")
def sbm():
    # three planted classes, a few small components (joined by the spectral tau > 0)
    return hypergraph_sbm(240, 3, homophily=0.9, random_state=1)


def _write_files(tmp_path, lines, n_files):
    files = []
    for i, chunk in enumerate(np.array_split(np.array(lines, dtype=object), n_files)):
        path = tmp_path / f"part{i}.txt"
        path.write_text("".join(f"{ln}\n" for ln in chunk))
        files.append(path)
    (tmp_path / "all.txt").write_text("".join(f"{ln}\n" for ln in lines))
    return files


def _same_hypergraph(got: Hypergraph, ref: Hypergraph):
    assert got.shape == ref.shape
    assert (got.incidence != ref.incidence).nnz == 0
    np.testing.assert_array_equal(got.weights, ref.weights)
    np.testing.assert_array_equal(got.node_ids, ref.node_ids)
    assert got.node_ids.dtype == ref.node_ids.dtype


# ------------------------------------------------------------------ partitioned build
@pytest.mark.parametrize("ids", ["int", "str"])
def test_partitioned_build_equals_reading_the_concatenation(tmp_path, client, ids):
    hg = hypergraph_sbm(150, 3, random_state=0)
    fmt = (lambda v: str(7 * int(v) + 1000)) if ids == "int" else (lambda v: f"u{v}")
    lines = [" ".join(fmt(v) for v in e[::-1]) for e in hg.edges()]
    lines += lines[:12] + [lines[3]]  # duplicates across files, merged with summed weights
    np.random.default_rng(0).shuffle(lines)
    files = _write_files(tmp_path, lines, 4)
    ref = read_edgelist(tmp_path / "all.txt")
    assert ref.cleaning.duplicate_edges >= 12
    phg = partition_edgelists(files, tmp_path / "out", block_size=40, edge_block_size=30,
                              client=client if ids == "int" else None)
    assert phg.n_blocks == 4 and len(phg.edge_blocks) > 1
    assert (phg.n_nodes, phg.n_edges, phg.nnz) == (ref.n_nodes, ref.n_edges, ref.incidence.nnz)
    _same_hypergraph(PartitionedHypergraph(tmp_path / "out").to_hypergraph(), ref)


def test_partitioned_build_weighted_and_drop_options(tmp_path):
    lines = ["1 2 3 2.5", "3 4 1.0", "5 0.5", "2 1 3 1.5", "4 3 2.0"]
    files = _write_files(tmp_path, lines, 2)
    for opts in ({"duplicates": "drop"}, {"duplicates": "keep", "singletons": "drop"}):
        ref = read_edgelist(tmp_path / "all.txt", weighted=True, **opts)
        phg = partition_edgelists(files, tmp_path / "out", block_size=2, weighted=True,
                                  overwrite=True, **opts)
        _same_hypergraph(phg.to_hypergraph(), ref)


def test_partitioned_build_errors(tmp_path):
    files = _write_files(tmp_path, ["1 2", "a b"], 2)
    with pytest.raises(ValueError, match="integer node ids and others not"):
        partition_edgelists(files, tmp_path / "out")
    ok = _write_files(tmp_path, ["1 2", "2 3"], 2)
    partition_edgelists(ok, tmp_path / "out2")
    with pytest.raises(FileExistsError, match="overwrite"):
        partition_edgelists(ok, tmp_path / "out2")
    with pytest.raises(FileNotFoundError, match="nope.txt"):
        partition_edgelists([tmp_path / "nope.txt"], tmp_path / "out3")
    with pytest.raises(ValueError, match="block_size"):
        partition_edgelists(ok, tmp_path / "out4", block_size=0)
    with pytest.raises(FileNotFoundError, match="not a partitioned hypergraph"):
        PartitionedHypergraph(tmp_path)


def test_write_partitioned_round_trip_keeps_isolated_nodes(tmp_path):
    import scipy.sparse as sp

    H = sp.csr_matrix([[1, 0], [1, 1], [0, 1], [0, 1], [0, 0]])
    hg = Hypergraph(H, weights=[2.0, 1.0], node_ids=["a", "b", "c", "d", "e"])
    assert hg.isolated.tolist() == [False] * 4 + [True]
    _same_hypergraph(write_partitioned(hg, tmp_path, block_size=2).to_hypergraph(), hg)


# ------------------------------------------------------------------ block operators
@pytest.fixture(scope="module")
def blocked(sbm, tmp_path_factory):
    return write_partitioned(sbm, tmp_path_factory.mktemp("sbm"), block_size=100,
                             edge_block_size=120)


@pytest.mark.parametrize("kind,adjoint,loops", [("sym", False, 1.0), ("rw", False, 0.0),
                                                ("rw", True, 0.5)])
def test_block_propagation_matches_propagation_operator(client, sbm, blocked, kind, adjoint,
                                                        loops):
    X = np.random.default_rng(0).standard_normal((sbm.n_nodes, 3))
    P = propagation(blocked, client, self_loops=loops, kind=kind, adjoint=adjoint)
    assert P.n_blocks == 3 and max(len(t) for t in P.touched) > 1
    got = gather_blocks(client, P.apply(scatter_blocks(client, X, blocked.block_bounds)))
    ref = PropagationOperator(sbm, self_loops=loops, kind=kind)
    np.testing.assert_allclose(got, ref.T @ X if adjoint else ref @ X, rtol=0, atol=1e-12)


def test_block_affinity_and_power_basis(client, sbm, blocked, tmp_path):
    X = np.random.default_rng(1).standard_normal((sbm.n_nodes, 2))
    M, d = ZhouLaplacian(sbm, kind="unnormalized").affinity()
    A = normalized_affinity(blocked, client, tau=1.5)
    got = gather_blocks(client, A.apply(scatter_blocks(client, X, blocked.block_bounds)))
    np.testing.assert_allclose(got, NormalizedAffinity(M, d, 1.5) @ X, rtol=0, atol=1e-12)
    files = write_power_basis(propagation(blocked, client), X, 3, tmp_path, dtype=np.float64)
    assert len(files) == 3 and np.load(files[0]).shape == (4, 100, 2)
    ref = polynomial_basis(PropagationOperator(sbm), X, 3, dtype=np.float64)
    np.testing.assert_allclose(read_power_basis(tmp_path), ref, rtol=0, atol=1e-12)


def test_tsqr(client):
    X = np.random.default_rng(2).standard_normal((50, 4))
    Q, R = tsqr(client, scatter_blocks(client, X, [0, 3, 20, 50]))  # a block shorter than k
    Q = gather_blocks(client, Q)
    np.testing.assert_allclose(Q @ R, X, atol=1e-12)
    np.testing.assert_allclose(Q.T @ Q, np.eye(4), atol=1e-12)
    assert np.all(np.diag(R) > 0) and np.allclose(R, np.triu(R))


# ------------------------------------------------------------------ methods
def test_spectral_equals_single_process(client, sbm, blocked):
    tau = 2.0
    ref = SpectralHypergraphClustering(3, operator="zhou", regularization=tau,
                                       random_state=5).fit(sbm)
    est = DistributedSpectralClustering(3, regularization=tau, tol=1e-9, client=client,
                                        random_state=5).fit(blocked)
    rot, _ = orthogonal_procrustes(est.embedding_, ref.embedding_)
    np.testing.assert_allclose(est.embedding_ @ rot, ref.embedding_, rtol=0, atol=1e-6)
    np.testing.assert_allclose(est.eigenvalues_, ref.eigenvalues_, rtol=0, atol=1e-9)
    np.testing.assert_array_equal(est.labels_, ref.labels_)
    np.testing.assert_array_equal(est.node_ids_, sbm.node_ids)
    assert 1 <= est.n_iter_ < 30


def test_ahcka_equals_single_process(client):
    hg = hypergraph_sbm(200, 3, homophily=0.8, n_features=0, isolated_fraction=0.03,
                        random_state=4)
    ref = AHCKA(3, max_iter=8, check_interval=4).fit(hg)
    est = DistributedAHCKA(3, max_iter=8, check_interval=4, client=client,
                           block_size=100).fit(hg)
    assert len(est.objective_history_) == len(ref.objective_history_) == 3
    np.testing.assert_allclose([f for _, f in est.objective_history_],
                               [f for _, f in ref.objective_history_], rtol=0, atol=1e-10)
    assert (est.n_iter_, est.best_iter_) == (ref.n_iter_, ref.best_iter_)
    np.testing.assert_array_equal(est.labels_, ref.labels_)
    signs = np.sign(np.sum(est.embedding_ * ref.embedding_, axis=0))
    np.testing.assert_allclose(est.embedding_ * signs, ref.embedding_, rtol=0, atol=1e-8)


def test_block_kmeans_is_sklearn_on_all_rows_and_seeded_on_a_sample(client):
    from sklearn.cluster import KMeans
    from sklearn.metrics import adjusted_rand_score

    rng = np.random.default_rng(3)
    X = np.concatenate([rng.normal(c, 0.6, (60, 2)) for c in ((0, 0), (3, 0), (0, 3))])
    blocks = scatter_blocks(client, X, [0, 70, 130, 180])
    labels, centers, _ = block_kmeans(client, blocks, 180, 3, random_state=4)
    ref = KMeans(3, n_init=10, random_state=4).fit(X)
    np.testing.assert_array_equal(np.concatenate(client.gather(labels)), ref.labels_)
    np.testing.assert_allclose(centers, ref.cluster_centers_, atol=1e-10)
    runs = [np.concatenate(client.gather(block_kmeans(client, blocks, 180, 3, sample_size=50,
                                                      random_state=4)[0])) for _ in range(2)]
    np.testing.assert_array_equal(runs[0], runs[1])
    assert adjusted_rand_score(runs[0], ref.labels_) > 0.9  # the same clusters, any names


def test_block_kmeans_keeps_the_restart_best_over_all_rows(client):
    # four noisy groups on the unit sphere: k-means has local optima of nearly equal
    # inertia. The restart best on a 300-row sample is not the one best over all 2,000 rows
    # (it gave ARI .92 to the best; seed-picked, deterministic)
    from sklearn.cluster import KMeans
    from sklearn.metrics import adjusted_rand_score

    rng = np.random.default_rng(2)
    X = np.eye(8)[rng.integers(0, 4, 2000)] + rng.normal(0, 0.55, (2000, 8))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    blocks = scatter_blocks(client, X, [0, 700, 1300, 2000])
    labels, centers, _ = block_kmeans(client, blocks, 2000, 4, n_init=3, sample_size=300,
                                      random_state=2)
    best = KMeans(4, n_init=20, random_state=0).fit(X)
    assert adjusted_rand_score(np.concatenate(client.gather(labels)), best.labels_) > 0.99


def test_subspace_iteration_stops_filtering_converged_columns(client, monkeypatch, tmp_path):
    # on a block model the clusters' columns converge first: they are locked, so later
    # filters (every product moves the exchanged rows of each column) take fewer columns
    from hyperclust.distributed import eigen

    hg = hypergraph_sbm(600, 3, homophily=0.8, random_state=0)
    phg = write_partitioned(hg, tmp_path, block_size=200)
    M, d = ZhouLaplacian(hg, kind="unnormalized").affinity()
    widths, filtered = [], eigen._filtered

    def spy(operator, V, *args):
        widths.append(client.submit(np.shape, V[0]).result()[1])
        return filtered(operator, V, *args)

    monkeypatch.setattr(eigen, "_filtered", spy)
    mu, V, _ = eigen.top_eigenpairs(normalized_affinity(phg, client, tau=float(np.mean(d))), 6)
    dense = np.linalg.eigvalsh(NormalizedAffinity(M, d, float(np.mean(d))) @ np.eye(600))
    np.testing.assert_allclose(mu, dense[::-1][:6], atol=1e-10)
    assert len(widths) > 2 and widths[0] == 6 + 8 and widths[-1] < widths[0]
    assert widths == sorted(widths, reverse=True)


def test_estimator_contract_and_errors(client, sbm):
    from sklearn.base import clone

    est = DistributedSpectralClustering(3, client=None, tol=1e-6)
    assert clone(est).get_params() == est.get_params()
    with pytest.raises(ValueError, match="n_components"):
        DistributedSpectralClustering(3, n_components=0, client=client).fit(sbm)
    with pytest.raises(TypeError, match="fit expects"):
        DistributedSpectralClustering(3, client=client).fit(42)
    with pytest.raises(TypeError, match="client must be"):
        DistributedSpectralClustering(3, client=3.5).fit(sbm)
    assert parse_scheduler("local:3") == ("local", 3)
    with pytest.raises(ValueError, match="local:N"):
        parse_scheduler("")


# ------------------------------------------------------------------ CLI
def test_cli_partition_then_cluster_on_a_scheduler(tmp_path, client, capsys):
    hg = hypergraph_sbm(80, 2, homophily=0.85, n_edges=200, random_state=2)
    assert hg.connected_components()[0] == 1  # "auto" (the default) gives tau = 0 here
    lines = [" ".join(f"v{v}" for v in e) for e in hg.edges()]
    files = _write_files(tmp_path, lines, 2)
    out_dir, labels_csv = tmp_path / "parts", tmp_path / "labels.csv"
    assert main(["partition", *map(str, files), "--out", str(out_dir),
                 "--block-size", "40"]) == 0
    address = client.scheduler.address
    assert main(["cluster", str(out_dir), "--scheduler", address, "--k", "2",
                 "--out", str(labels_csv), "--quiet"]) == 0
    with open(labels_csv, newline="") as fh:
        rows = list(csv.reader(fh))
    ref_hg = read_edgelist(tmp_path / "all.txt")
    ref = SpectralHypergraphClustering(2, operator="zhou").fit(ref_hg)
    assert rows[0] == ["node", "cluster"]
    assert [r[0] for r in rows[1:]] == list(ref_hg.node_ids)
    assert [int(r[1]) for r in rows[1:]] == ref.labels_.tolist()
    assert main(["cluster", str(out_dir), "--scheduler", address, "--k", "3",
                 "--method", "hgnn"]) == 2
    assert "no distributed version" in capsys.readouterr().err
    assert main(["cluster", str(out_dir), "--scheduler", address, "--k", "2",
                 "--features", str(files[0])]) == 2
    assert "--features cannot be used with --scheduler" in capsys.readouterr().err


def test_cli_parquet_out_holds_labels_only_and_says_how_many_files(tmp_path, client, capsys):
    pd = pytest.importorskip("pandas")
    hg = hypergraph_sbm(80, 2, homophily=0.85, n_edges=200, random_state=2)
    files = _write_files(tmp_path, [" ".join(f"v{v}" for v in e) for e in hg.edges()], 1)
    parts, out = tmp_path / "parts", tmp_path / "labels.parquet"
    assert main(["partition", *map(str, files), "--out", str(parts), "--block-size", "20"]) == 0
    capsys.readouterr()
    assert main(["cluster", str(parts), "--scheduler", client.scheduler.address, "--k", "2",
                 "--out", str(out), "--quiet"]) == 0
    printed = capsys.readouterr().out
    n = len(list(out.glob("*.parquet")))
    assert f"({n} parquet file{'' if n == 1 else 's'} written by the workers, 80 rows: node id, " \
           "cluster)" in printed, printed
    assert list(pd.read_parquet(out).columns) == ["node", "cluster"]  # no embedding asked for
    assert "filtered subspace iterations" in printed  # 80 nodes: the subspace route


def test_cli_summary_names_the_eigensolver_that_ran():
    import argparse

    from hyperclust.cli.partition import _estimator

    est, steps = _estimator("spectral-zhou", argparse.Namespace(k=2, scheduler=None,
                                                                quiet=True, seed=0))
    est.n_iter_, est.eigensolver_ = 7, "lanczos"
    assert steps() == "7 Lanczos products"
    est.eigensolver_ = "subspace"
    assert steps() == "7 filtered subspace iterations"


# ------------------------------------------------------------------ fault tolerance
def test_killed_worker_is_recovered(tmp_path, sbm):
    phg = write_partitioned(sbm, tmp_path, block_size=120)
    X = np.random.default_rng(6).standard_normal((sbm.n_nodes, 2))
    ref = PropagationOperator(sbm).apply_power(X, 8)
    # forked worker processes start in ~1 s instead of ~4-12 s for spawned ones
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    with dask.config.set({"distributed.worker.multiprocessing-method": method}), \
            distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                     dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as c:
        P = propagation(phg, c)
        Y = scatter_blocks(c, X, phg.block_bounds)
        for _ in range(8):
            Y = P.apply(Y)
        victim = max(c.run(os.getpid).values())
        running = not all(f.done() for f in Y)
        os.kill(victim, signal.SIGKILL)  # the nanny restarts it; lost blocks are recomputed
        got = gather_blocks(c, Y)
    assert running, "the products finished before the kill: the test proved nothing"
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-12)
