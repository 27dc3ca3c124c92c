"""The distributed estimators give the single process's results by construction: the same
parameters and defaults as their twins, the same ``regularization="auto"`` decision, and the
same labels where most nodes are in no hyperedge (80%, as pubmed-cc)."""

from __future__ import annotations

import csv
import inspect

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")

from hyperclust import Hypergraph  # noqa: E402
from hyperclust.cli import main  # noqa: E402
from hyperclust.cluster import AHCKA  # noqa: E402
from hyperclust.cluster.spectral import SpectralHypergraphClustering  # noqa: E402
from hyperclust.metrics import ari  # noqa: E402
from hyperclust.operators.thin_qr import thin_qr  # noqa: E402
from hyperclust.cluster.unidhc import UniDHC  # noqa: E402
from hyperclust.datasets import hypergraph_sbm  # noqa: E402
from hyperclust.distributed import (DistributedAHCKA,  # noqa: E402
                                    DistributedSpectralClustering, DistributedUniDHC,
                                    write_partitioned)
from hyperclust.distributed.components import more_components_than  # noqa: E402
from hyperclust.distributed.linalg import gather_blocks, scatter_blocks, tsqr  # noqa: E402
from hyperclust.distributed.operator import propagation  # noqa: E402


def _params(cls):
    return {name: p.default for name, p in inspect.signature(cls).parameters.items()}


@pytest.mark.parametrize("dist, twin", [
    (DistributedSpectralClustering, SpectralHypergraphClustering),
    (DistributedAHCKA, AHCKA),
    (DistributedUniDHC, UniDHC)])
def test_defaults_are_the_twins(dist, twin):
    ours, theirs = _params(dist), _params(twin)
    not_taken = set(getattr(dist, "NOT_DISTRIBUTED", ()))
    assert not_taken <= set(theirs)
    shared = set(theirs) - not_taken
    assert shared <= set(ours), f"{dist.__name__} lacks {sorted(shared - set(ours))}"
    assert {name: ours[name] for name in shared} == {name: theirs[name] for name in shared}


def test_twin_init_follows_the_estimator_contract():
    from sklearn.base import clone

    est = DistributedAHCKA(4, alpha=0.3, block_size=7)
    assert (est.n_clusters, est.alpha, est.block_size, est.beta) == (4, 0.3, 7, 0.5)
    assert clone(est).get_params() == est.get_params()
    assert "alpha=0.3" in repr(est) and "beta" not in repr(est)
    with pytest.raises(TypeError):
        DistributedAHCKA(4, knn_method="exact")
    with pytest.raises(TypeError):
        DistributedAHCKA(4, 0.3)  # keyword-only after n_clusters, as the twin


# --------------------------------------------------------- regularization="auto"
def _random_hypergraph(rng, n, n_edges, max_size):
    edges = [rng.choice(n, size=rng.integers(1, max_size + 1), replace=False).tolist()
             for _ in range(n_edges)]
    return Hypergraph.from_edges(edges, n_nodes=n)


@pytest.mark.parametrize("seed", range(6))
def test_component_decision_equals_connected_components(tmp_path, client, seed):
    rng = np.random.default_rng(seed)
    # sparse random hypergraphs: from many small components to a few long chains
    hg = _random_hypergraph(rng, 40, int(rng.integers(5, 30)), 3)
    phg = write_partitioned(hg, tmp_path, block_size=int(rng.integers(3, 17)))
    P = propagation(phg, client)
    n_comp = hg.connected_components()[0]
    for k in sorted({1, max(1, n_comp - 1), n_comp, n_comp + 1, 39}):
        assert more_components_than(P, k) == (n_comp > k), (n_comp, k)


def test_component_decision_on_a_path_needs_its_diameter(tmp_path, client):
    # a path whose smallest node is at one end: 19 rounds to reach the other end
    hg = Hypergraph.from_edges([[i, i + 1] for i in range(19)], n_nodes=20)
    phg = write_partitioned(hg, tmp_path, block_size=6)
    assert not more_components_than(propagation(phg, client), 1)
    hg2 = Hypergraph.from_edges([[i, i + 1] for i in range(19) if i != 12], n_nodes=20)
    phg2 = write_partitioned(hg2, tmp_path / "cut", block_size=6)
    assert more_components_than(propagation(phg2, client), 1)
    assert not more_components_than(propagation(phg2, client), 2)


@pytest.fixture(scope="module")
def mostly_isolated():
    # 80% of the nodes in no hyperedge (pubmed-cc's share), three planted groups
    core = hypergraph_sbm(60, 3, homophily=0.9, n_edges=90, random_state=3)
    n = 300
    perm = np.random.default_rng(0).permutation(n)[:core.n_nodes]
    return Hypergraph.from_edges([perm[e].tolist() for e in core.edges()], n_nodes=n)


def test_spectral_defaults_equal_single_process_with_isolated_nodes(client, mostly_isolated):
    ref = SpectralHypergraphClustering(3).fit(mostly_isolated)
    est = DistributedSpectralClustering(3, client=client, block_size=70).fit(mostly_isolated)
    assert ref.tau_ > 0 and est.tau_ == pytest.approx(ref.tau_, rel=1e-12)
    assert (est.tol_, est.n_init_) == (ref.tol_, ref.n_init_)
    np.testing.assert_array_equal(est.labels_, ref.labels_)


def test_spectral_regularizes_a_localized_connected_input_as_the_single_process(client,
                                                                               tmp_path):
    """A connected input whose plain embedding is localized: the same "auto" decision."""
    lcc = hypergraph_sbm(1000, 2, homophily=0.7, random_state=0).largest_component()
    ref = SpectralHypergraphClustering(2).fit(lcc)
    est = DistributedSpectralClustering(2, client=client, block_size=300).fit(lcc)
    assert ref.tau_ > 0 and est.tau_ == pytest.approx(ref.tau_, rel=1e-12)
    assert ari(est.labels_, ref.labels_) > 0.95


# 70 nodes a block: stored blocks and merged 3 + 2; 64: block edges elsewhere, merged
@pytest.mark.parametrize("block_size, blocks_per_worker", [(70, None), (70, 1), (64, 1)])
def test_ahcka_equals_single_process_with_isolated_nodes(client, mostly_isolated, block_size,
                                                         blocks_per_worker):
    ref = AHCKA(3, max_iter=60).fit(mostly_isolated)
    est = DistributedAHCKA(3, max_iter=60, client=client, block_size=block_size,
                           blocks_per_worker=blocks_per_worker).fit(mostly_isolated)
    assert est.n_iter_ == ref.n_iter_
    history = dict(est.objective_history_)
    np.testing.assert_allclose(list(history.values()),
                               [f for _, f in ref.objective_history_], rtol=0, atol=1e-10)
    # the checks from 5 on tie to 1 ulp (0.3186208365433948 / ..950), so which one is
    # "best" follows the summation order (70 nodes a block merged 3 + 2: check 10); the
    # best check's objective is the single process's best to rounding
    assert abs(history[est.best_iter_] - dict(ref.objective_history_)[ref.best_iter_]) <= 1e-15
    np.testing.assert_array_equal(est.labels_, ref.labels_)


def test_qr_factors_are_exactly_zero_on_zero_rows(client):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 4))
    X[[0, 2, 3, 10, 11, 29]] = 0.0  # zero rows at the heads of the matrix and of blocks
    zero = ~np.any(X != 0, axis=1)
    assert np.all(thin_qr(X)[zero] == 0.0)
    Q, _ = tsqr(client, scatter_blocks(client, X, [0, 10, 20, 30]))
    Q = gather_blocks(client, Q)
    assert np.all(Q[zero] == 0.0) and np.allclose(Q.T @ Q, np.eye(4))


# --------------------------------------------------------- the CLI on shared data
@pytest.mark.parametrize("name, method", [("pubmed-cc", "spectral-zhou"), ("pubmed-cc", "ahcka"),
                                          ("cora-ca", "spectral-zhou"), ("cora-ca", "ahcka"),
                                          ("cora-ca", "unidhc")])
def test_cli_scheduler_labels_equal_single_process(tmp_path, client, shared_data, name,
                                                   method):
    from sklearn.metrics import adjusted_rand_score

    from hyperclust.datasets import resolve_dataset

    hg = resolve_dataset(name, shared_data)
    lines = ["".join(" ".join(str(v) for v in e) + "\n") for e in hg.edges()]
    thirds = [tmp_path / f"part{i}.txt" for i in range(3)]  # the edges in 3 files
    for i, path in enumerate(thirds):
        path.write_text("".join(lines[i::3]))
    edges = tmp_path / "edges.txt"
    # Uni-DHC's training draws hyperedges by position: the same order on both sides
    edges.write_text("".join(lines[0::3] + lines[1::3] + lines[2::3] if method == "unidhc"
                             else lines))
    parts, ours, theirs = tmp_path / "parts", tmp_path / "dist.csv", tmp_path / "single.csv"
    # several blocks on both sets; pubmed-cc in 4 (its 20 blocks of 1,000 rows cost 80 s
    # of AHCKA's per-iteration round trips for the same check)
    assert main(["partition", *map(str, thirds), "--out", str(parts),
                 "--block-size", "5000" if name == "pubmed-cc" else "1000"]) == 0
    common = ["--method", method, "--k", str(hg.n_classes), "--quiet"]
    assert main(["cluster", str(parts), "--scheduler", client.scheduler.address,
                 "--out", str(ours), *common]) == 0
    assert main(["cluster", str(edges), "--out", str(theirs), *common]) == 0

    def read(path):
        with open(path, newline="") as fh:
            return dict(list(csv.reader(fh))[1:])

    a, b = read(ours), read(theirs)
    assert set(b) <= set(a)
    nodes = sorted(b)
    assert adjusted_rand_score([a[v] for v in nodes], [b[v] for v in nodes]) >= 0.99


@pytest.mark.parametrize("flags, options", [
    ([], {}),
    (["--header", "--duplicates", "drop", "--singletons", "drop"],
     {"header": True, "duplicates": "drop", "singletons": "drop"}),
    (["--duplicates", "keep"], {"duplicates": "keep"})])
def test_cli_partition_reads_as_cluster_does(tmp_path, flags, options):
    from hyperclust.distributed import PartitionedHypergraph
    from hyperclust.io import read_edgelist

    head = "node_a node_b\n" if options.get("header") else ""
    path = tmp_path / "edges.txt"
    path.write_text(head + "0 1 2\n3\n0 1 2\n3 4\n2 3 4\n1 2 0\n")
    assert main(["partition", str(path), "--out", str(tmp_path / "p"), "--block-size", "2",
                 *flags]) == 0
    got = PartitionedHypergraph(tmp_path / "p").to_hypergraph()
    ref = read_edgelist(path, **options)
    assert (got.incidence != ref.incidence).nnz == 0
    np.testing.assert_array_equal(got.weights, ref.weights)
    assert list(got.node_ids) == list(ref.node_ids)


def test_ahcka_labels_do_not_depend_on_the_order_of_the_hyperedges(shared_data):
    # cora-ca: nodes the leading iterates do not reach have rows of rounding noise (~1e-18),
    # which the order of the hyperedges changes; they count as zero rows (ARI 0.45 before)
    from hyperclust.datasets import resolve_dataset

    hg = resolve_dataset("cora-ca", shared_data)
    edges = [list(e) for e in hg.edges()]
    fits = [AHCKA(7).fit(Hypergraph.from_edges(order, n_nodes=hg.n_nodes))
            for order in (edges, edges[0::3] + edges[1::3] + edges[2::3])]
    np.testing.assert_array_equal(fits[0].labels_, fits[1].labels_)
    np.testing.assert_allclose(np.array(fits[0].objective_history_),
                               np.array(fits[1].objective_history_), rtol=0, atol=1e-12)
