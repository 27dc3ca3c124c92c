"""Users' own data: node ids kept, outputs that never destroy data, one-line errors.

Each test is one of the failures reported by a new user (issue "Your own data, safely").
"""

from __future__ import annotations

import csv
import json
import shutil
import time
import warnings

import numpy as np
import pytest

from hyperclust import Hypergraph
from hyperclust.cli import main
from hyperclust.io import DataFormatError, attach_node_data, from_hif, read_edgelist, \
    read_hypergraph, read_node_table, write_edgelist


def _rows(path):
    with open(path, newline="") as fh:
        return list(csv.reader(fh))


def _one_error_line(capsys, *needles):
    err = capsys.readouterr().err.strip().splitlines()
    errors = [ln for ln in err if ln.startswith("hyperclust: error:")]
    assert len(errors) == 1, err
    assert not any(ln.startswith("Traceback") for ln in err), err
    for needle in needles:
        assert needle in errors[0], errors[0]
    return errors[0]


@pytest.fixture
def gap(tmp_path):
    path = tmp_path / "gap.txt"
    path.write_text("0 1\n1 2\n4 5\n5 6\n")
    return path


# ------------------------------------------------------------------ outputs never destroy data
def test_out_onto_the_input_is_refused_and_input_intact(gap, capsys):
    before = gap.read_bytes()
    assert main(["cluster", str(gap), "--method", "hgnn", "--k", "3", "--out", str(gap)]) == 2
    _one_error_line(capsys, "input")
    assert gap.read_bytes() == before
    # not even --force writes onto an input
    assert main(["cluster", str(gap), "--method", "hgnn", "--k", "3", "--out", str(gap),
                 "--force"]) == 2
    assert gap.read_bytes() == before


def test_existing_out_needs_force(gap, tmp_path, capsys):
    out = tmp_path / "labels.csv"
    out.write_text("keep me\n")
    assert main(["cluster", str(gap), "--method", "hgnn", "--k", "2", "--out", str(out)]) == 2
    _one_error_line(capsys, "--force")
    assert out.read_text() == "keep me\n"
    assert main(["cluster", str(gap), "--method", "hgnn", "--k", "2", "--out", str(out),
                 "--force"]) == 0
    assert _rows(out)[0] == ["node", "cluster"]


def test_unwritable_out_is_reported_before_the_fit(gap, tmp_path, capsys, monkeypatch):
    import hyperclust.cluster.registry as registry

    def no_fit(*args, **kwargs):
        raise AssertionError("the estimator was built although --out cannot be written")

    monkeypatch.setattr(registry, "make_estimator", no_fit)
    target = tmp_path / "missing-folder" / "labels.csv"
    assert main(["cluster", str(gap), "--method", "hgnn", "--k", "2", "--out", str(target)]) == 2
    _one_error_line(capsys, "cannot write")
    assert main(["cluster", str(gap), "--method", "hgnn", "--k", "2", "--out",
                 str(tmp_path)]) == 2
    _one_error_line(capsys, "directory")


def test_interrupted_write_leaves_no_partial_file(gap, tmp_path, monkeypatch):
    import hyperclust.cli as cli

    def broken(fh, hg, labels):
        fh.write("node,cluster\n0,")
        raise OSError("disk full")

    monkeypatch.setattr(cli.cluster, "write_labels", broken)
    out = tmp_path / "labels.csv"
    assert main(["cluster", str(gap), "--method", "hgnn", "--k", "2", "--out", str(out)]) == 2
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir()] == ["gap.txt"]


# ------------------------------------------------------------------ node ids are data
def test_drop_isolated_keeps_original_ids(gap, tmp_path, capsys):
    out = tmp_path / "gap.csv"
    assert main(["cluster", str(gap), "--method", "spectral-zhou", "--k", "2",
                 "--drop-isolated", "--out", str(out)]) == 0
    rows = _rows(out)
    assert [r[0] for r in rows[1:]] == ["0", "1", "2", "4", "5", "6"]
    clusters = {r[0]: r[1] for r in rows[1:]}
    # the two components are the two clusters, whatever their numbers
    assert clusters["0"] == clusters["1"] == clusters["2"] != clusters["4"]
    assert clusters["4"] == clusters["5"] == clusters["6"]


def test_drop_isolated_on_cora_writes_original_ids(shared_data, tmp_path, capsys):
    out = tmp_path / "cora.csv"
    assert main(["cluster", "cora-ca", "--data-dir", str(shared_data), "--method", "kmeans",
                 "--drop-isolated", "--out", str(out)]) == 0
    ids = np.array([int(r[0]) for r in _rows(out)[1:]])
    hg = read_hypergraph(shared_data / "cora-ca")
    covered = np.flatnonzero(~hg.isolated)
    assert ids.size == covered.size == 2388
    assert np.array_equal(ids, covered) and ids.max() > 2387


def test_one_based_file_has_no_phantom_node(tmp_path):
    path = tmp_path / "one.txt"
    path.write_text("1 2 3\n3 4\n")
    hg = read_hypergraph(path)
    assert hg.n_nodes == 4 and hg.node_ids.tolist() == [1, 2, 3, 4]
    assert not hg.isolated.any()


def test_names_header_and_string_ids(tmp_path):
    names = tmp_path / "names.txt"
    names.write_text("alice bob\nbob carol\n")
    hg = read_hypergraph(names)
    assert hg.node_ids.tolist() == ["alice", "bob", "carol"]
    with_header = tmp_path / "pairs.csv"
    with_header.write_text("author,paper\n10,20\n20,30\n")
    with pytest.warns(UserWarning, match="header"):
        hg = read_hypergraph(with_header)
    assert hg.node_ids.tolist() == [10, 20, 30] and hg.n_edges == 2
    assert read_hypergraph(with_header, header=True).n_nodes == 3
    hg = Hypergraph.from_edges([["a", "b"], ["b", "c"]])
    assert hg.node_ids.tolist() == ["a", "b", "c"]
    assert hg.subset([2, 0]).node_ids.tolist() == ["c", "a"]


def test_sep_splits_names_with_spaces(tmp_path):
    path = tmp_path / "semi.txt"
    path.write_text("Ada Lovelace;Charles Babbage\nCharles Babbage;Mary Somerville\n")
    hg = read_hypergraph(path, sep=";")
    assert hg.node_ids.tolist() == ["Ada Lovelace", "Charles Babbage", "Mary Somerville"]


def test_huge_ids_are_ids_not_sizes(tmp_path):
    path = tmp_path / "big.txt"
    path.write_text("0 100000000\n100000000 1000000000000\n")
    t0 = time.perf_counter()
    hg = read_hypergraph(path)
    assert time.perf_counter() - t0 < 5  # was 24 s then a 15 GiB allocation
    assert hg.node_ids.tolist() == [0, 100000000, 1000000000000]
    # the API reads integer members as ids too: two nodes, not 10^8 + 1 positions
    assert Hypergraph.from_edges([[0, 10**8]]).node_ids.tolist() == [0, 10**8]
    assert Hypergraph.from_edges([[0, 10**8]], node_ids=[0, 10**8]).n_nodes == 2


def test_extra_feature_or_label_rows_are_errors():
    with pytest.raises(ValueError, match="features has 5 rows"):
        Hypergraph.from_edges([[0, 1]], features=np.ones((5, 2)))
    with pytest.raises(ValueError, match="labels has 4 rows"):
        Hypergraph.from_edges([[0, 1]], labels=[0, 1, 0, 1])
    assert Hypergraph.from_edges([[0, 1]], n_nodes=5, features=np.ones((5, 2))).n_nodes == 5


def test_hif_node_without_features_is_an_error():
    doc = {"incidences": [{"edge": 0, "node": 0}, {"edge": 0, "node": 1}],
           "nodes": [{"node": 0, "attrs": {"features": [1.0, 2.0]}}, {"node": 1}]}
    with pytest.raises(DataFormatError, match="node 1 has no 'features'"):
        from_hif(doc)


def test_all_isolated_hypergraph_warns(capsys, tmp_path):
    from hyperclust.cluster import KMeansFeatures

    hg = Hypergraph.from_edges([], n_nodes=4, features=np.eye(4))
    with pytest.warns(UserWarning, match="no hyperedge"):
        KMeansFeatures(2, random_state=0).fit(hg)


# ------------------------------------------------------------------ one-line errors
@pytest.mark.parametrize("device, needle", [("cuda", "no CUDA"), ("foo", "unknown device")])
def test_bad_device_is_one_line(gap, capsys, device, needle):
    try:
        import torch
        if device == "cuda" and torch.cuda.is_available():
            pytest.skip("this machine has a GPU")
    except ImportError:
        pass
    assert main(["cluster", str(gap), "--method", "unidhc", "--k", "2", "--device",
                 device]) == 2
    _one_error_line(capsys, needle)


def test_deep_json_is_one_line(tmp_path, capsys):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    assert main(["info", str(path)]) == 2
    _one_error_line(capsys, "nested")


def test_pickle_memory_bomb_is_refused(tmp_path, capsys):
    d = tmp_path / "bomb"
    d.mkdir()
    (d / "hypergraph.pickle").write_bytes(b"cbuiltins\nbytes\n(I1000000000000\ntR.")
    t0 = time.perf_counter()
    assert main(["info", str(d)]) == 2
    assert time.perf_counter() - t0 < 10
    _one_error_line(capsys, "refused")
    (d / "hypergraph.pickle").write_bytes(
        b"cnumpy.core.multiarray\n_reconstruct\n(cnumpy\nndarray\n(I1000000000000\ntVb\ntR.")
    assert main(["info", str(d)]) == 2
    _one_error_line(capsys, "refused")


def test_wrong_data_dir_says_directory_not_found(tmp_path, capsys):
    assert main(["info", "cora-ca", "--data-dir", str(tmp_path / "nope")]) == 2
    _one_error_line(capsys, "data directory not found")
    assert main(["info", "cora-ca", "--data-dir", str(tmp_path)]) == 2
    _one_error_line(capsys, "not in data directory")


def test_checksum_mismatch_says_how_to_recover(shared_data, tmp_path, capsys):
    from hyperclust.datasets import ChecksumError, load_dataset

    copy = tmp_path / "zoo"
    shutil.copytree(shared_data / "zoo", copy)
    with open(copy / "zoo.edges", "a") as fh:
        fh.write("0 101\n")
    with pytest.raises(ChecksumError, match="replace it with the original"):
        load_dataset("zoo", data_dir=tmp_path)
    assert main(["info", "zoo", "--data-dir", str(tmp_path)]) == 2
    _one_error_line(capsys, "SHA-256", "replace it")


def test_unknown_format_message_names_the_cli_option(tmp_path, capsys):
    path = tmp_path / "edges.dat"
    path.write_text("0 1\n")
    assert main(["info", str(path)]) == 2
    _one_error_line(capsys, "--format")
    assert main(["info", str(path), "--format", "edgelist"]) == 0
    capsys.readouterr()
    assert main(["info", str(path), "--format", "nope"]) == 2
    _one_error_line(capsys, "unknown format")


# ------------------------------------------------------------------ bench
def test_bench_checks_names_before_it_starts(tmp_path, capsys):
    assert main(["bench", "--datasets", "synthetic-h0.5-n60-k2", "--methods", "kmeanz",
                 "--seeds", "1", "--out", str(tmp_path / "b"), "--no-progress"]) == 2
    _one_error_line(capsys, "kmeanz", "kmeans")
    assert not (tmp_path / "b" / "results.json").exists()
    assert main(["bench", "--datasets", "no-such-set", "--methods", "kmeans", "--seeds", "1",
                 "--out", str(tmp_path / "b"), "--no-progress"]) == 2
    _one_error_line(capsys, "no-such-set")


def test_bench_takes_a_file_and_fails_loudly(tmp_path, capsys):
    edges = tmp_path / "mine.txt"
    edges.write_text("".join(f"{i} {i + 1} {i + 2}\n" for i in range(10)))
    out = tmp_path / "b"
    rc = main(["bench", "--datasets", str(edges), "--methods", "spectral-zhou", "--seeds", "1",
               "--out", str(out), "--no-progress", "--no-plots", "--start-method",
               "subprocess", "--time-limit", "120"])
    assert rc == 0, capsys.readouterr()
    runs = json.loads((out / "results.json").read_text())["runs"]
    assert [r["status"] for r in runs] == ["ok"]
    # a run that fails at fit time (10 clusters asked of 6 nodes): exit status 1, not 0
    small = tmp_path / "small.txt"
    small.write_text("0 1 2\n2 3\n3 4 5\n0 5\n")
    rc = main(["bench", "--datasets", str(small), "--methods", "spectral-zhou", "--seeds", "1",
               "--out", str(out), "--no-progress", "--no-plots", "--start-method",
               "subprocess", "--time-limit", "120"])
    assert rc == 1
    assert "did not finish ok" in capsys.readouterr().err


# ------------------------------------------------------------------ features and labels files
def test_cli_attaches_features_and_labels_by_id(tmp_path, capsys):
    edges = tmp_path / "e.txt"
    edges.write_text("1 2 3\n3 4\n4 5 6\n")
    feats = tmp_path / "f.npy"
    X = np.zeros((7, 2))
    X[[1, 2, 3], 0] = 1
    X[[4, 5, 6], 1] = 1
    np.save(feats, X)
    labels = tmp_path / "y.csv"
    labels.write_text("node,label\n1,x\n2,x\n3,x\n4,y\n5,y\n6,y\n")
    out = tmp_path / "out.csv"
    assert main(["cluster", str(edges), "--features", str(feats), "--labels", str(labels),
                 "--method", "kmeans", "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert "ACC 1.0000" in captured.out
    assert "1 node ids of the features" in captured.err  # row 0 is a node in no hyperedge
    rows = _rows(out)[1:]
    assert [r[0] for r in rows] == ["1", "2", "3", "4", "5", "6", "0"]
    # rows for ids 0..5 only: node 6 has no row -> one-line error, never a shifted match
    short = tmp_path / "f6.npy"
    np.save(short, X[:6])
    assert main(["cluster", str(edges), "--features", str(short), "--method", "kmeans",
                 "--k", "2"]) == 2
    _one_error_line(capsys, "node 6 has no feature row")
    # --index-base 1: row 0 is node 1, so rows 0..5 are nodes 1..6, all covered
    assert main(["cluster", str(edges), "--features", str(short), "--index-base", "1",
                 "--method", "kmeans", "--k", "2"]) == 0


def test_features_csv_with_id_column_and_string_ids(tmp_path):
    edges = tmp_path / "e.txt"
    edges.write_text("alice bob\nbob carol\n")
    feats = tmp_path / "f.csv"
    feats.write_text("node,a,b\ncarol,0,1\nalice,1,0\nbob,1,1\n")
    hg = read_hypergraph(edges)
    ids, X = read_node_table(feats)
    out = attach_node_data(hg, features=X, feature_ids=ids)
    assert out.node_ids.tolist() == ["alice", "bob", "carol"]
    assert out.features.tolist() == [[1, 0], [1, 1], [0, 1]]
    with pytest.raises(ValueError, match="names"):
        attach_node_data(hg, features=X)  # positional rows cannot match named nodes



def test_string_labels_as_a_list_are_mapped_by_id():
    # a plain list of str (a "<U" array, not object) was refused as "labels must be numbers"
    hg = Hypergraph.from_edges([[1, 2, 3], [3, 4]], node_ids=[1, 2, 3, 4])
    out = attach_node_data(hg, labels=["b", "a", "a", "b"], label_ids=[4, 2, 3, 1])
    assert out.labels.tolist() == [1, 0, 0, 1]
    assert out.cleaning.extra["classes"] == ["a", "b"]
    assert attach_node_data(hg, labels=np.array(["7", "7", "9", "9"]), index_base=1).labels \
        .tolist() == [0, 0, 1, 1]


# ------------------------------------------------------------------ round trip
def test_ids_survive_read_cluster_out_pandas(tmp_path, capsys):
    pd = pytest.importorskip("pandas")
    for text, expected in (("x1 y2\ny2 z3 w4\nw4 x1\n", ["x1", "y2", "z3", "w4"]),
                           ("7 900000\n900000 31\n31 7\n", [7, 31, 900000])):
        edges = tmp_path / "e.txt"
        edges.write_text(text)
        out = tmp_path / "out.csv"
        assert main(["cluster", str(edges), "--method", "spectral-zhou", "--k", "2",
                     "--out", str(out), "--force"]) == 0
        table = pd.read_csv(out, dtype={"node": str})
        assert table["node"].tolist() == [str(x) for x in expected]
        assert table["cluster"].between(0, 1).all()


def test_write_edgelist_round_trips_ids(tmp_path):
    hg = Hypergraph.from_edges([["a", "b"], ["b", "c", "d"]])
    path = tmp_path / "out.txt"
    write_edgelist(hg, path)
    back = read_edgelist(path)
    assert back.node_ids.tolist() == ["a", "b", "c", "d"]
    assert (back.incidence != hg.incidence).nnz == 0
    with_isolated = Hypergraph.from_edges([["a", "b"]], node_ids=["a", "b", "c"])
    with pytest.raises(ValueError, match="write_hif"):
        write_edgelist(with_isolated, path)


def test_warnings_print_as_one_line(tmp_path, capsys):
    path = tmp_path / "pairs.csv"
    path.write_text("author,paper\n10,20\n20,30\n")
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        assert main(["info", str(path)]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("hyperclust: warning:") and "header" in err[0]


# ---- issue 26: the API and the command line read ids the same way


def test_integer_members_are_ids_unless_rows_say_how_many_nodes():
    hg = Hypergraph.from_edges([[7, 900000]])
    assert hg.n_nodes == 2 and hg.node_ids.tolist() == [7, 900000]
    hg = Hypergraph.from_edges([[-1, 3], [3, 4]])
    assert hg.node_ids.tolist() == [-1, 3, 4]
    assert [e.tolist() for e in hg.edges()] == [[0, 1], [1, 2]]
    # positions when n_nodes / features / labels give the rows: nodes in no hyperedge stay
    assert Hypergraph.from_edges([[0, 2]], n_nodes=4).n_nodes == 4
    assert Hypergraph.from_edges([[0, 2]], labels=[0, 1, 0]).n_nodes == 3
    # dense 0-based ids keep the default ids (nothing stored)
    assert Hypergraph.from_edges([[0, 1], [1, 2]]).node_ids.tolist() == [0, 1, 2]


def test_none_is_no_node_id():
    with pytest.raises(TypeError, match="node id None in hyperedge 1"):
        Hypergraph.from_edges([["a", "b"], [None, "b"]])
    with pytest.raises(TypeError, match="node id nan"):
        Hypergraph.from_edges([[0, float("nan")]])


def test_label_names_are_accepted_in_the_api_as_in_the_cli():
    hg = Hypergraph.from_edges([["a", "b"], ["b", "c"]], node_ids=["a", "b", "c"],
                               labels=["spam", "eggs", "spam"])
    assert hg.labels.tolist() == [1, 0, 1]


def test_api_and_cli_agree_on_ids(tmp_path):
    path = tmp_path / "e.txt"
    path.write_text("-5 7\n7 900000\n")
    from_file = read_hypergraph(path)
    from_api = Hypergraph.from_edges([[-5, 7], [7, 900000]])
    assert from_file.node_ids.tolist() == from_api.node_ids.tolist() == [-5, 7, 900000]
    assert [e.tolist() for e in from_file.edges()] == [e.tolist() for e in from_api.edges()]


def test_weights_whose_sum_overflows_are_refused():
    with pytest.raises(ValueError, match="rescale the weights"):
        Hypergraph.from_edges([[0, 1], [1, 2]], weights=[1e308, 1e308])
    hg = Hypergraph.from_edges([[0, 1], [1, 2]], weights=[1e50, 1.0])
    assert np.isfinite(hg.weights.sum())
