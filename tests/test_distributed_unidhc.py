"""hyperclust.distributed for Uni-DHC: node features stored with a partitioned hypergraph,
the hyperedge means and the file-backed batch source, DistributedUniDHC against UniDHC, and
`hyperclust cluster DIR --scheduler ... --method unidhc`."""

from __future__ import annotations

import csv
import functools
import inspect

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")
torch = pytest.importorskip("torch")

from hyperclust import Hypergraph  # noqa: E402
from hyperclust.cli import main  # noqa: E402
from hyperclust.cluster import UniDHC  # noqa: E402
from hyperclust.datasets import hypergraph_sbm  # noqa: E402
from hyperclust.distributed import (DistributedUniDHC, partition_edgelists,  # noqa: E402
                                    write_partitioned)
from hyperclust.distributed.basis import (read_power_basis, write_hyperedge_means,  # noqa: E402
                                          write_power_basis)
from hyperclust.distributed.batches import BasisFileBatches  # noqa: E402
from hyperclust.distributed.operator import propagation  # noqa: E402
from hyperclust.io import read_edgelist  # noqa: E402
from hyperclust.io.node_data import attach_node_data  # noqa: E402
from hyperclust.models.unidhc import ArrayBatches  # noqa: E402


def _dense(X):
    return X.toarray() if hasattr(X, "toarray") else np.asarray(X)


# ------------------------------------------------------------------ features on disk
def test_features_are_partitioned_with_the_hypergraph(tmp_path):
    hg = hypergraph_sbm(60, 2, n_features=5, isolated_fraction=0.1, random_state=0)
    phg = write_partitioned(hg, tmp_path / "parts", block_size=25)
    assert phg.n_features == 5 and phg.n_blocks == 3
    np.testing.assert_array_equal(phg.to_hypergraph().features, _dense(hg.features))
    plain = write_partitioned(hg.replace(features=None), tmp_path / "plain", block_size=25)
    assert plain.n_features is None and plain.to_hypergraph().features is None


def test_partition_edgelists_matches_features_by_node_id(tmp_path):
    edges = ["a b c", "c d", "d e f", "f a"]
    files = []
    for i, chunk in enumerate((edges[:2], edges[2:])):
        files.append(tmp_path / f"part{i}.txt")
        files[-1].write_text("\n".join(chunk) + "\n")
    (tmp_path / "all.txt").write_text("\n".join(edges) + "\n")
    ids = ["f", "c", "a", "e", "b", "d"]  # rows in another order than the nodes
    rows = np.arange(12.0).reshape(6, 2)
    table = tmp_path / "features.csv"
    table.write_text("node,x,y\n" + "".join(f"{i},{r[0]},{r[1]}\n" for i, r in zip(ids, rows)))
    phg = partition_edgelists(files, tmp_path / "parts", block_size=4, features=table)
    ref = attach_node_data(read_edgelist(tmp_path / "all.txt"), features=rows, feature_ids=ids)
    got = phg.to_hypergraph()
    np.testing.assert_array_equal(got.node_ids, ref.node_ids)
    np.testing.assert_array_equal(got.features, ref.features)
    five = "node,x,y\n" + "".join(f"{i},{r[0]},{r[1]}\n" for i, r in zip(ids, rows[:5]))
    for message, text in (("node without a feature row", five),
                          ("names a node twice", five + "d,1,1\nd,2,2\n")):
        table.write_text(text)
        with pytest.raises(ValueError, match=message):
            partition_edgelists(files, tmp_path / "parts", features=table, overwrite=True)
    table.write_text(five)
    with pytest.raises(ValueError, match="node without a feature row"):
        partition_edgelists(files, tmp_path / "fresh", features=table)
    assert not (tmp_path / "fresh").exists()  # a failed build leaves no folder behind


def test_partition_keeps_feature_rows_of_nodes_in_no_hyperedge(tmp_path):
    # a full feature table: nodes in no hyperedge are appended in table order, as
    # `hyperclust cluster FILE --features` keeps them

    (tmp_path / "edges.txt").write_text("a b\nb c\n")
    table = tmp_path / "features.csv"
    table.write_text("node,x\nzz,5\nc,3\nb,2\nyy,6\na,1\n")
    with pytest.warns(UserWarning, match="2 node ids of the features file are in no hyperedge"):
        phg = partition_edgelists([tmp_path / "edges.txt"], tmp_path / "parts", block_size=2,
                                  features=table)
    got = phg.to_hypergraph()
    assert list(got.node_ids) == ["a", "b", "c", "zz", "yy"]
    np.testing.assert_array_equal(_dense(got.features).ravel(), [1, 2, 3, 5, 6])
    np.testing.assert_array_equal(got.isolated, [False, False, False, True, True])


# ------------------------------------------------------------------ batches from block files
def test_file_batches_equal_in_memory_batches(tmp_path, client):
    hg = hypergraph_sbm(90, 2, n_features=3, random_state=5)
    phg = write_partitioned(hg, tmp_path / "parts", block_size=40, edge_block_size=30)
    P = propagation(phg, client)
    X = np.random.default_rng(0).standard_normal((hg.n_nodes, 3))
    write_power_basis(P, X, 2, tmp_path / "basis")
    counts = write_hyperedge_means(P, tmp_path / "basis")
    assert sum(counts) == int(np.sum(hg.edge_sizes >= 2))
    assert len(counts) == len(phg.edge_blocks) > 1
    ref = ArrayBatches(read_power_basis(tmp_path / "basis"), hg.incidence, "cpu")
    src = BasisFileBatches(tmp_path / "basis", "cpu")
    assert (src.n_nodes, src.dim, src.n_edges) == (ref.n_nodes, ref.dim, ref.n_edges)
    rng = np.random.default_rng(1)
    nodes = rng.permutation(hg.n_nodes)[:50]
    edges = rng.choice(ref.n_edges, 20, replace=False)
    assert torch.equal(src.nodes(nodes), ref.nodes(nodes))
    # the means: float32 sums on one side, float64 sums rounded to float32 on the other
    torch.testing.assert_close(src.edges(edges), ref.edges(edges), rtol=0, atol=1e-6)


def test_hyperedge_means_of_a_partition_of_one_member_hyperedges(tmp_path, client):
    # the last hyperedge partition holds only one-member hyperedges: none is usable
    hg = Hypergraph.from_edges([[0, 1, 2], [2, 3], [3, 4], [5], [6], [7]])
    phg = write_partitioned(hg, tmp_path / "parts", block_size=4, edge_block_size=3)
    P = propagation(phg, client)
    write_power_basis(P, np.arange(16.0).reshape(8, 2), 1, tmp_path / "basis")
    assert write_hyperedge_means(P, tmp_path / "basis") == [3, 0]
    src = BasisFileBatches(tmp_path / "basis", "cpu")
    assert src.n_edges == 3
    np.testing.assert_allclose(src.edges(np.array([1]))[0].numpy(), [[5.0, 6.0]])  # (2 + 3) / 2


# ------------------------------------------------------------------ the estimator
# features: the input is the same array, coefficients agree to float32 rounding (7e-7
# measured); structural: the two eigensolvers (ARPACK, block Chebyshev) agree to their 1e-8
# residual, and Adam's normalised steps carry that into gamma (1e-5 measured). The default
# start (the canonical correlation) and the z-score start (gamma_init="auto"), with isolated nodes.
_ZSCORE_START = dict(order=4, gamma_init="auto", gamma_lr=1e-3)


@pytest.mark.parametrize("n_features, gamma_tol, start", [
    (12, 1e-6, {}), (0, 5e-5, {}), (12, 1e-6, _ZSCORE_START), (0, 5e-5, _ZSCORE_START)])
def test_unidhc_equals_single_process(client, n_features, gamma_tol, start):
    hg = hypergraph_sbm(240, 3, homophily=0.85, n_features=n_features, isolated_fraction=0.1,
                        random_state=3)
    kw = dict(epochs=3, hidden_dim=16, batch_size=64, n_init=4, random_state=2, **start)
    ref = UniDHC(3, isolated_neighbors=None, **kw).fit(hg)
    est = DistributedUniDHC(3, block_size=100, client=client, **kw).fit(hg)
    assert est.input_kind_ == ref.input_kind_ == ("features" if n_features else "structural")
    assert est.filter_family_ == ref.filter_family_
    if not start and n_features:
        assert est.filter_family_ == "canonical" and est.smoothness_z_ is None
        np.testing.assert_allclose(est.mixture_weights_, ref.mixture_weights_, atol=1e-6)
    elif not start:  # structural input: P^K, as UniDHC (nothing for a feature split to learn)
        assert est.filter_family_ == "low-pass" and est.mixture_weights_ is None
    else:
        assert est.smoothness_z_ == pytest.approx(ref.smoothness_z_, abs=1e-4)
        assert est.mixture_weights_ is None
    np.testing.assert_allclose(est.initial_coefficients_, ref.initial_coefficients_,
                               rtol=0, atol=1e-6)
    np.testing.assert_allclose(est.coefficients_, ref.coefficients_, rtol=0, atol=gamma_tol)
    np.testing.assert_allclose([h["total"] for h in est.loss_history_],
                               [h["total"] for h in ref.loss_history_], rtol=1e-5)
    assert est.n_filter_columns_ == ref.n_filter_columns_
    np.testing.assert_allclose(est.embedding_, ref.embedding_, rtol=0, atol=1e-5)
    np.testing.assert_array_equal(est.labels_, ref.labels_)
    np.testing.assert_array_equal(est.node_ids_, hg.node_ids)
    assert est.n_init_ == ref.n_init_ == 4


def test_alignment_samples_the_single_process_rows(tmp_path, client, monkeypatch):
    from hyperclust.distributed import alignment
    from hyperclust.models import contrast

    hg = hypergraph_sbm(300, 3, n_features=6, isolated_fraction=0.3, random_state=4)
    phg = write_partitioned(hg, tmp_path / "parts", block_size=70)
    connected = np.flatnonzero(~hg.isolated)
    # every connected node when they fit the budget
    np.testing.assert_array_equal(alignment.sampled_connected_rows(phg, client, 5), connected)
    monkeypatch.setattr(alignment, "ALIGNMENT_ROWS", 40)
    monkeypatch.setattr(contrast, "ALIGNMENT_ROWS", 40)
    expected = np.sort(np.random.default_rng(5).choice(connected, size=40, replace=False))
    np.testing.assert_array_equal(alignment.sampled_connected_rows(phg, client, 5), expected)
    # with the budget below the connected nodes, the learned start still agrees
    kw = dict(epochs=1, hidden_dim=8, n_init=2, random_state=5)
    ref = UniDHC(3, isolated_neighbors=None, **kw).fit(hg)
    est = DistributedUniDHC(3, block_size=70, client=client, **kw).fit(hg)
    np.testing.assert_allclose(est.mixture_weights_, ref.mixture_weights_, atol=1e-6)


def test_every_shared_parameter_is_used():
    from hyperclust.distributed.unidhc import FIT_PARAMETERS, training_parameters

    shared = set(inspect.signature(UniDHC).parameters) - {"n_clusters"} \
        - set(DistributedUniDHC.NOT_DISTRIBUTED)
    used = set(FIT_PARAMETERS) | set(training_parameters())
    assert shared <= used, f"taken but not passed on: {sorted(shared - used)}"
    assert {"consistency_weight", "dropout", "epochs"} <= set(training_parameters())


def test_unidhc_errors(tmp_path, client):
    hg = hypergraph_sbm(40, 2, n_features=3, random_state=0)
    with pytest.raises(ValueError, match="embedding must be one of"):
        DistributedUniDHC(2, embedding="auto", client=client).fit(hg)
    with pytest.raises(ValueError, match="has no node features"):
        DistributedUniDHC(2, input="features", client=client).fit(hg.replace(features=None))
    wide = hg.replace(features=np.ones((hg.n_nodes, 257)))
    with pytest.raises(ValueError, match="at most 256"):
        DistributedUniDHC(2, client=client).fit(wide)
    with pytest.raises(ValueError, match="gamma_init"):
        DistributedUniDHC(2, gamma_init=[1.0], client=client).fit(hg)
    with pytest.raises(ValueError, match="gamma_init='contrast' is not distributed"):
        DistributedUniDHC(2, gamma_init="contrast", client=client).fit(hg)
    with pytest.raises(ValueError, match="n_components=2 asks for a truncated SVD of the 3"):
        DistributedUniDHC(2, n_components=2, client=client).fit(hg)
    with pytest.raises(ValueError, match="n_components must be"):
        DistributedUniDHC(2, n_components="many", client=client).fit(hg)
    with pytest.raises(TypeError, match="isolated_neighbors"):
        DistributedUniDHC(2, isolated_neighbors=10)
    with pytest.raises(FileNotFoundError, match="scratch_dir"):
        DistributedUniDHC(2, scratch_dir=str(tmp_path / "nowhere"), client=client).fit(hg)
    phg = write_partitioned(hg.replace(features=None), tmp_path / "parts", block_size=20)
    with pytest.raises(ValueError, match="has no node features"):  # after the scratch is made
        DistributedUniDHC(2, input="features", client=client).fit(phg.path)
    assert sorted(p.name for p in phg.path.iterdir() if p.name.startswith("_unidhc")) == []


# ------------------------------------------------------------------ CLI
def test_cli_partition_with_features_then_unidhc(tmp_path, client, capsys):
    hg = hypergraph_sbm(80, 2, homophily=0.9, n_features=6, n_edges=200, random_state=2)
    edges = tmp_path / "edges.txt"
    edges.write_text("".join(" ".join(f"v{v}" for v in e) + "\n" for e in hg.edges()))
    ref_hg = read_edgelist(edges)
    index = {f"v{i}": i for i in range(hg.n_nodes)}
    X = _dense(hg.features)[[index[v] for v in ref_hg.node_ids]]
    table = tmp_path / "features.csv"
    table.write_text("node," + ",".join(f"f{j}" for j in range(6)) + "\n" + "".join(
        f"{v}," + ",".join(repr(float(x)) for x in row) + "\n"
        for v, row in zip(ref_hg.node_ids, X)))
    parts, labels_csv = tmp_path / "parts", tmp_path / "labels.csv"
    assert main(["partition", str(edges), "--out", str(parts), "--block-size", "30",
                 "--features", str(table)]) == 0
    assert "6 feature columns" in capsys.readouterr().out
    assert main(["cluster", str(parts), "--scheduler", client.scheduler.address, "--k", "2",
                 "--method", "unidhc", "--seed", "1", "--out", str(labels_csv),
                 "--quiet"]) == 0
    assert "epochs, input features" in capsys.readouterr().out
    with open(labels_csv, newline="") as fh:
        rows = list(csv.reader(fh))
    ref = UniDHC(2, isolated_neighbors=None, random_state=1).fit(
        ref_hg.replace(features=X))
    assert [r[0] for r in rows[1:]] == list(ref_hg.node_ids)
    assert [int(r[1]) for r in rows[1:]] == ref.labels_.tolist()


def test_bytes_sent_do_not_grow_with_the_epochs(tmp_path, client, monkeypatch):
    # the trainer reads its batches from the block files: the workers send nothing while it
    # runs. More epochs draw more hyperedges, whose means (float64 sums of (K+1) d columns,
    # one per row block and hyperedge) are the only bytes that grow: bounded by the
    # hyperedges, not by n x epochs
    from hyperclust.models import unidhc as models_unidhc

    def sent():
        return sum(client.run(lambda dask_worker: dask_worker.transfer_outgoing_bytes_total)
                   .values())

    during, train = [], models_unidhc.train_on_batches

    @functools.wraps(train)  # the estimator reads the training options from its signature
    def spy(*args, **kwargs):
        before = sent()
        out = train(*args, **kwargs)
        during.append(sent() - before)
        return out

    monkeypatch.setattr(models_unidhc, "train_on_batches", spy)
    hg = hypergraph_sbm(1200, 3, homophily=0.85, n_features=8, random_state=0)
    phg = write_partitioned(hg, tmp_path / "parts", block_size=300)
    total = []
    for epochs in (1, 8):
        before = sent()
        est = DistributedUniDHC(3, epochs=epochs, hidden_dim=16, batch_size=64, client=client,
                                blocks_per_worker=None).fit(phg)
        total.append(sent() - before)
    assert during == [0, 0]
    means = phg.n_blocks * hg.n_edges * est.coefficients_.size * 8 * 8
    assert 0 < total[1] - total[0] <= means


def test_kmeans_runs_on_every_row_up_to_the_byte_budget(client, monkeypatch):
    # on a sample the restarts are drawn apart from UniDHC's, and an embedding with local
    # optima of nearly equal inertia ends in another one (ARI .90 at 250,000 nodes): below
    # KMEANS_BYTES of embedding every row is used, whatever the row floor SAMPLE_SIZE
    from hyperclust.distributed import unidhc

    hg = hypergraph_sbm(240, 3, homophily=0.85, isolated_fraction=0.1, random_state=3)
    kw = dict(hidden_dim=16, batch_size=64, n_init=4, random_state=2)
    ref = UniDHC(3, isolated_neighbors=None, **kw).fit(hg)
    seen, kmeans = [], unidhc.block_kmeans

    def spy(*args, sample_size, **kwargs):
        seen.append(sample_size)
        return kmeans(*args, sample_size=sample_size, **kwargs)

    monkeypatch.setattr(unidhc, "block_kmeans", spy)
    monkeypatch.setattr(unidhc, "SAMPLE_SIZE", 50)
    est = DistributedUniDHC(3, block_size=100, client=client, **kw).fit(hg)
    np.testing.assert_array_equal(est.labels_, ref.labels_)
    assert seen[-1] >= hg.n_nodes
    monkeypatch.setattr(unidhc, "KMEANS_BYTES", 4 * est.embedding_.shape[1] * 60)
    DistributedUniDHC(3, block_size=100, client=client, **kw).fit(hg)
    assert seen[-1] == 60  # float32 rows of the budget, above the floor
