"""Parquet on any fsspec path: pairs and feature tables in, labels and embeddings out per
row block, read back; one-line errors for a missing path or column."""

from __future__ import annotations

import numpy as np
import pytest

pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")
distributed = pytest.importorskip("distributed")

from hyperclust.cli import main  # noqa: E402
from hyperclust.distributed import (DistributedSpectralClustering,  # noqa: E402
                                    PartitionedHypergraph, partition_edgelists)
from hyperclust.distributed.storage import (read_feature_table, read_node_table,  # noqa: E402
                                            read_pairs, write_node_table)
from hyperclust.io import read_edgelist  # noqa: E402

EDGES = [["a", "b", "c"], ["c", "d"], ["d", "e", "f"], ["f", "a"], ["b", "c", "a"], ["g"]]


def _pairs_frame(edges, first_edge=0, weights=None):
    rows = [(v, first_edge + j) for j, e in enumerate(edges) for v in e]
    frame = pd.DataFrame(rows, columns=["node", "hyperedge"])
    if weights is not None:
        frame["weight"] = [weights[j] for j, e in enumerate(edges) for _ in e]
    return frame


def _same(a, b):
    assert (a.incidence != b.incidence).nnz == 0
    np.testing.assert_array_equal(a.weights, b.weights)
    assert list(a.node_ids) == list(b.node_ids)


def test_read_pairs_known_answer(tmp_path):
    path = tmp_path / "pairs.parquet"
    _pairs_frame([["x", "y"], ["y", "z", "x"]], weights=[2.0, 0.5]).to_parquet(path)
    hg = read_pairs(path, weight="weight")
    assert hg.node_ids.tolist() == ["x", "y", "z"]
    assert [sorted(e.tolist()) for e in hg.edges()] == [[0, 1], [0, 1, 2]]
    assert hg.weights.tolist() == [2.0, 0.5]
    ints = tmp_path / "ints.parquet"
    pd.DataFrame({"node": [30, 10, 10], "hyperedge": ["e", "e", "f"]}).to_parquet(ints)
    hg = read_pairs(ints)
    assert hg.node_ids.tolist() == [10, 30]  # integer ids sorted, as in edge lists
    assert [sorted(e.tolist()) for e in hg.edges()] == [[0, 1], [0]]


def test_read_errors_are_one_line(tmp_path):
    path = tmp_path / "pairs.parquet"
    _pairs_frame([["x", "y"]], weights=[1.0]).to_parquet(path)
    with pytest.raises(FileNotFoundError, match="parquet pairs table not found"):
        read_pairs(tmp_path / "nowhere.parquet")
    with pytest.raises(ValueError, match=r"no column 'member' \(columns: node, hyperedge"):
        read_pairs(path, node="member")
    bad = tmp_path / "bad.parquet"
    pd.DataFrame({"node": [1, 2], "hyperedge": [0, 0], "weight": [1.0, 2.0]}).to_parquet(bad)
    with pytest.raises(ValueError, match="different weights"):
        read_pairs(bad, weight="weight")
    only_ids = tmp_path / "ids.parquet"
    pd.DataFrame({"node": ["a"]}).to_parquet(only_ids)
    with pytest.raises(ValueError, match="no feature column"):
        read_feature_table(only_ids)
    with pytest.raises(ValueError, match="no column 'cluster'"):
        read_node_table(path)
    with pytest.raises(ValueError, match="at a URL give .parquet pair tables"):
        partition_edgelists(["memory://x/edges.txt"], tmp_path / "out")
    with pytest.raises(FileNotFoundError, match="edge-list file not found: memory://x/no"):
        partition_edgelists(["memory://x/no.parquet"], tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_partition_from_parquet_equals_edge_lists(tmp_path):
    weights = [1.0, 2.0, 1.5, 1.0, 3.0, 1.0]
    text = tmp_path / "all.txt"
    text.write_text("".join(" ".join(e) + f" {w}\n" for e, w in zip(EDGES, weights)))
    parts = []
    for i, (lo, hi) in enumerate([(0, 3), (3, 6)]):
        parts.append(tmp_path / f"part{i}.parquet")
        _pairs_frame(EDGES[lo:hi], lo, weights[lo:hi]).to_parquet(parts[-1])
    table = tmp_path / "features.parquet"
    ids = ["g", "f", "e", "d", "c", "b", "a", "h"]  # "h" in no hyperedge
    pd.DataFrame({"node": ids, "x": np.arange(8.0), "y": -np.arange(8.0)}).to_parquet(table)
    with pytest.warns(UserWarning, match="in no hyperedge"):
        phg = partition_edgelists(parts, tmp_path / "out", block_size=3, features=table,
                                  pair_columns=("node", "hyperedge", "weight"))
    got = phg.to_hypergraph()
    ref = read_edgelist(text, weighted=True)  # "a b c" and "b c a" merged, weights summed
    assert list(got.node_ids) == [*ref.node_ids, "h"]  # the table's extra node appended
    assert (got.incidence[:7] != ref.incidence).nnz == 0 and got.incidence[7].nnz == 0
    np.testing.assert_array_equal(got.weights, ref.weights)
    rows = {v: i for i, v in enumerate(ids)}
    np.testing.assert_array_equal(got.features[:, 0], [rows[v] for v in got.node_ids])


def test_memory_filesystem_in_and_out(tmp_path, client):
    import fsspec

    fs = fsspec.filesystem("memory")
    urls = []
    for i, (lo, hi) in enumerate([(0, 2), (2, 6)]):
        urls.append(f"memory://hc-test/in/part{i}.parquet")
        with fs.open(urls[-1].removeprefix("memory://"), "wb") as fh:
            _pairs_frame(EDGES[lo:hi], lo).to_parquet(fh)
    text = tmp_path / "all.txt"
    text.write_text("".join(" ".join(e) + "\n" for e in EDGES))
    phg = partition_edgelists(urls, tmp_path / "out", block_size=2, client=client)
    _same(phg.to_hypergraph(), read_edgelist(text))
    est = DistributedSpectralClustering(2, client=client).fit(phg)
    out = "memory://hc-test/labels.parquet"
    write_node_table(out, est.node_ids_, est.labels_, est.embedding_,
                     bounds=phg.block_bounds, client=client)
    assert len(fs.ls("hc-test/labels.parquet")) == phg.n_blocks
    ids, labels, emb = read_node_table(out)
    assert ids.tolist() == list(est.node_ids_)
    np.testing.assert_array_equal(labels, est.labels_)
    np.testing.assert_array_equal(emb, est.embedding_)
    fs.rm("hc-test", recursive=True)


@pytest.mark.parametrize("ids", [np.arange(40) * 7, np.array([f"n{i}" for i in range(40)])])
def test_node_table_keeps_the_row_order_of_many_blocks(tmp_path, ids):
    labels = np.random.default_rng(0).integers(0, 5, size=40)
    bounds = list(range(0, 40, 3)) + [40]  # 14 blocks: part-00010 after part-00009
    write_node_table(tmp_path / "out.parquet", ids, labels, bounds=bounds)
    got_ids, got_labels, emb = read_node_table(tmp_path / "out.parquet")
    assert got_ids.tolist() == ids.tolist() and emb is None
    np.testing.assert_array_equal(got_labels, labels)


def test_cli_parquet_in_and_out(tmp_path, client, capsys):
    inp = tmp_path / "pairs.parquet"
    frame = _pairs_frame(EDGES[:5], weights=[1.0, 2.0, 1.5, 1.0, 3.0])
    frame.rename(columns={"node": "author", "hyperedge": "paper", "weight": "w"}).to_parquet(inp)
    parts = tmp_path / "parts"
    assert main(["partition", str(inp), "--out", str(parts), "--block-size", "2",
                 "--pair-columns", "author,paper,w"]) == 0
    text = tmp_path / "all.txt"
    text.write_text("".join(" ".join(e) + f" {w}\n"
                            for e, w in zip(EDGES[:5], [1.0, 2.0, 1.5, 1.0, 3.0])))
    _same(PartitionedHypergraph(parts).to_hypergraph(), read_edgelist(text, weighted=True))
    out, emb, csv_out = (tmp_path / "labels.parquet", tmp_path / "emb.parquet",
                         tmp_path / "labels.csv")
    args = ["cluster", str(parts), "--scheduler", client.scheduler.address, "--k", "2",
            "--quiet"]
    assert main([*args, "--out", str(out), "--embedding-out", str(emb)]) == 0
    assert "wrote" in capsys.readouterr().out
    assert main([*args, "--out", str(csv_out)]) == 0
    ids, labels, none = read_node_table(out)
    rows = [line.split(",") for line in csv_out.read_text().split()[1:]]
    assert ids.tolist() == [r[0] for r in rows] and none is None
    assert labels.tolist() == [int(r[1]) for r in rows]
    emb_ids, emb_labels, emb_values = read_node_table(emb)
    assert emb_values.shape == (6, 2) and emb_labels.tolist() == labels.tolist()
    assert len(list(out.iterdir())) == 3  # one file per row block
    capsys.readouterr()
    assert main([*args, "--out", str(out)]) == 2  # exists, no --force
    assert "exists; pass --force" in capsys.readouterr().err
    # --out alone: the workers write it (labels only, as gathered), nothing gathered here
    assert main([*args, "--out", str(out), "--force"]) == 0
    assert "written by the workers" in capsys.readouterr().out
    by_workers = read_node_table(out)
    assert by_workers[0].tolist() == ids.tolist() and by_workers[2] is None
    np.testing.assert_array_equal(by_workers[1], labels)
    assert main(["partition", str(inp), "--out", str(tmp_path / "p2"),
                 "--pair-columns", "author,article"]) == 2
    assert "no column 'article' (columns: author, paper, w)" in capsys.readouterr().err


@pytest.mark.parametrize("method", ["spectral", "ahcka", "unidhc"])
def test_output_written_by_the_workers_equals_the_gathered_one(tmp_path, client, method):
    from hyperclust.datasets import hypergraph_sbm
    from hyperclust.distributed import DistributedAHCKA, DistributedUniDHC, write_partitioned

    cls = {"spectral": DistributedSpectralClustering, "ahcka": DistributedAHCKA,
           "unidhc": DistributedUniDHC}[method]
    from hyperclust import Hypergraph

    hg = hypergraph_sbm(150, 3, homophily=0.8, n_features=0, isolated_fraction=0.1,
                        random_state=1)
    named = Hypergraph.from_incidence(hg.incidence, node_ids=np.array(
        [f"v{i}" for i in range(150)], dtype=object))  # string ids
    phg = write_partitioned(named, tmp_path / "parts", block_size=40)
    kw = {"spectral": {}, "ahcka": {"max_iter": 10},
          "unidhc": {"epochs": 2, "hidden_dim": 8, "random_state": 0}}[method]
    ref = cls(3, client=client, **kw).fit(phg)
    out = tmp_path / "out.parquet"
    est = cls(3, client=client, output=str(out), **kw).fit(phg)
    assert est.labels_ is None and est.embedding_ is None and est.node_ids_ is None
    # one file per row block of the fit: every method merges the stored blocks into one per
    # worker (blocks_per_worker=1)
    assert len(list(out.iterdir())) == 2 < phg.n_blocks
    ids, labels, emb = read_node_table(out)
    assert ids.tolist() == ref.node_ids_.tolist()
    np.testing.assert_array_equal(labels, ref.labels_)
    np.testing.assert_array_equal(emb, ref.embedding_)
