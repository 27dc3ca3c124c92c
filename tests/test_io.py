"""Readers/writers and the restricted unpickler, on small hand-made files."""

from __future__ import annotations

import builtins
import collections
import functools
import json
import os
import pickle
import subprocess

import numpy as np
import pytest
import scipy.sparse as sp

from hyperclust import Hypergraph
from hyperclust.io import (DataFormatError, UnsafePickleError, detect_format, hif_schema,
                           load_npy, read_benson, read_benson_edge_labelled, read_edge_labels,
                           read_edgelist, read_hif, read_hsbm, read_hypergcn, read_hypergraph,
                           read_hypergraphx, read_le, safe_load, safe_loads, to_hif,
                           validate_hif, write_edgelist, write_hif)


def edge_sets(hg):
    return sorted(tuple(e.tolist()) for e in hg.edges())


# ------------------------------------------------------------------ restricted unpickler
class _Evil:
    """Unpickling this would call ``func(*args)``."""

    def __init__(self, func, *args):
        self.func, self.args = func, args

    def __reduce__(self):
        return self.func, self.args


def _evil_payloads(target):
    return {
        "builtins.open": _Evil(builtins.open, str(target), "w"),
        "os.system": _Evil(os.system, f"touch {target}"),
        "subprocess.call": _Evil(subprocess.call, ["touch", str(target)]),
        "functools.partial": _Evil(functools.partial, builtins.open, str(target), "w"),
        "builtins.eval": _Evil(builtins.eval, f"open({str(target)!r}, 'w')"),
        "nested in a dict": {"ok": np.arange(3), "bad": [_Evil(builtins.open, str(target), "w")]},
    }


@pytest.mark.parametrize("protocol", [0, 2, 4, 5])
@pytest.mark.parametrize("kind", list(_evil_payloads("x")))
def test_malicious_pickle_is_refused_and_never_executed(tmp_path, protocol, kind):
    target = tmp_path / "pwned"
    path = tmp_path / "evil.pickle"
    path.write_bytes(pickle.dumps(_evil_payloads(target)[kind], protocol=protocol))
    with pytest.raises(UnsafePickleError) as info:
        safe_load(path)
    assert not target.exists()
    msg = str(info.value)
    assert "refused" in msg and str(path) in msg
    assert isinstance(info.value, ValueError)


def test_refused_global_is_named(tmp_path):
    data = pickle.dumps(_Evil(os.system, "true"), protocol=2)
    with pytest.raises(UnsafePickleError, match=r"'(posix|nt|os)\.system'"):
        safe_loads(data)


def _equal(a, b):
    if sp.issparse(a):
        return type(a) is type(b) and a.shape == b.shape and (a != b).nnz == 0
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and a.shape == b.shape and all(
            _equal(x, y) for x, y in zip(a.ravel().tolist(), b.ravel().tolist()))
    if isinstance(a, dict):
        return type(a) is type(b) and a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(map(_equal, a, b))
    return type(a) is type(b) and a == b


@pytest.mark.parametrize("protocol", [0, 2, 4, 5])
def test_safe_load_round_trips_allowed_types(protocol):
    dense = np.arange(12, dtype=np.float32).reshape(3, 4)
    dd = collections.defaultdict(list)
    dd["a"].append(1)
    objs = [
        dense, np.asfortranarray(dense), np.array([1, 2], dtype=np.int32),
        np.array([[1, 2], [3]], dtype=object), np.float64(2.5), np.int32(7), np.dtype("<f4"),
        sp.csr_matrix(dense), sp.csc_matrix(dense), sp.coo_matrix(dense), sp.lil_matrix(dense),
        sp.dok_matrix(dense), sp.csr_array(dense),
        {"x": [1, 2.5, "s", b"b", (1, 2), frozenset({3}), {4}], np.int32(3): {np.int64(5)}},
        collections.OrderedDict(a=1), dd, [True, None, 1 + 2j],
    ]
    for obj in objs:
        back = safe_loads(pickle.dumps(obj, protocol=protocol))
        assert _equal(obj, back), (type(obj), back)


def test_numpy1_module_paths_and_python2_builtins():
    # numpy 1 pickles name numpy.core.multiarray; protocol-2 pickles of sets name __builtin__.
    data = pickle.dumps([np.arange(4), {1, 2}], protocol=2)
    if b"numpy._core.multiarray" in data:
        data = data.replace(b"numpy._core.multiarray", b"numpy.core.multiarray")
    assert b"numpy.core.multiarray" in data and b"__builtin__" in data
    arr, s = safe_loads(data)
    assert np.array_equal(arr, np.arange(4)) and s == {1, 2}


def test_corrupt_sparse_matrix_is_rejected():
    m = sp.csr_matrix(np.eye(3))
    m.indices[1] = 7  # column out of range
    with pytest.raises(DataFormatError, match="not a valid pickle"):
        safe_loads(pickle.dumps(m, protocol=4))


def test_truncated_pickle_names_the_file(tmp_path):
    path = tmp_path / "t.pickle"
    path.write_bytes(pickle.dumps(list(range(100)))[:-5])
    with pytest.raises(DataFormatError, match="t.pickle"):
        safe_load(path)


def _npy_with_payload(path, payload: bytes):
    from numpy.lib import format as npformat

    with open(path, "wb") as fh:
        npformat.write_array_header_1_0(fh, {"descr": "|O", "fortran_order": False, "shape": ()})
        fh.write(payload)


def test_npy_object_payload_goes_through_restricted_unpickler(tmp_path):
    target = tmp_path / "pwned"
    path = tmp_path / "evil.npy"
    _npy_with_payload(path, pickle.dumps(_Evil(builtins.open, str(target), "w"), protocol=3))
    with pytest.raises(UnsafePickleError):
        load_npy(path)
    assert not target.exists()
    good = tmp_path / "good.npy"
    np.save(good, np.array({"1": [0, 1, 2]}, dtype=object), allow_pickle=True)
    assert load_npy(good).item() == {"1": [0, 1, 2]}
    num = tmp_path / "num.npy"
    np.save(num, np.arange(5))
    assert np.array_equal(load_npy(num), np.arange(5))


# ------------------------------------------------------------------ format A
def _write_pickle(path, obj, protocol=4):
    path.write_bytes(pickle.dumps(obj, protocol=protocol))


def make_format_a(d, *, labels=None, features=None, edges=None):
    d.mkdir(parents=True, exist_ok=True)
    edges = edges if edges is not None else {"alice": [0, 1, 2], "bob": {3, 4}, "carol": [2, 1, 0],
                                              "dan": [4]}
    _write_pickle(d / "hypergraph.pickle", edges)
    _write_pickle(d / "labels.pickle", labels if labels is not None else np.array([0., 0., 1., 2., 2., 1.]))
    if features is not None:
        _write_pickle(d / "features.pickle", features)
    return d


def test_format_a(tmp_path):
    X = sp.csr_matrix(np.eye(6, 3, dtype=np.float32))
    d = make_format_a(tmp_path / "a", features=X)
    assert detect_format(d) == "hypergcn"
    hg = read_hypergcn(d)
    assert hg.n_nodes == 6  # node 5 is isolated: n comes from the labels
    assert edge_sets(hg) == [(0, 1, 2), (3, 4), (4,)]
    assert hg.cleaning.duplicate_edges == 1 and hg.weights[0] == 2.0  # alice + carol merged
    assert hg.labels.dtype == np.int64 and hg.labels.tolist() == [0, 0, 1, 2, 2, 1]
    assert sp.issparse(hg.features) and hg.features.shape == (6, 3)
    assert hg.edge_names == ("alice", "bob", "dan")
    kept = read_hypergcn(d, duplicates="keep", singletons="drop")
    assert edge_sets(kept) == [(0, 1, 2), (0, 1, 2), (3, 4)]


def test_format_a_errors(tmp_path):
    d = make_format_a(tmp_path / "a", edges={"e": [0, 9]})
    with pytest.raises(DataFormatError, match=r"hypergraph\.pickle.*'e'.*9"):
        read_hypergcn(d)
    d = make_format_a(tmp_path / "b", features=np.ones((4, 2)))
    with pytest.raises(DataFormatError, match="features.pickle"):
        read_hypergcn(d)
    d = make_format_a(tmp_path / "c", labels=[0.5, 1, 1, 1, 1, 1])
    with pytest.raises(DataFormatError, match="labels.pickle"):
        read_hypergcn(d)
    with pytest.raises(TypeError, match="unexpected keyword"):
        read_hypergcn(make_format_a(tmp_path / "d"), duplicate="merge")


# ------------------------------------------------------------------ format B
def make_format_b(d, ids, rows_feat, rows_label, pairs, name="toy"):
    d.mkdir(parents=True, exist_ok=True)
    lines = ["\t".join(map(str, [i, *f, y])) for i, f, y in zip(ids, rows_feat, rows_label)]
    (d / f"{name}.content").write_text("\n".join(lines))
    (d / f"{name}.edges").write_text("\n".join(f"{a}\t{b}" for a, b in pairs) + "\n")
    return d


def test_format_b_maps_ids_through_content(tmp_path):
    # ids are not in row order (like 20newsW100); hyperedge ids are offset by n = 4
    ids = [10, 3, 7, 0]
    feats = [[1, 0], [0, 1], [1, 1], [0, 0]]
    labels = [2, 1, 2, 3]
    pairs = [(10, 4), (3, 4), (7, 5), (0, 5), (10, 5), (3, 6)]
    d = make_format_b(tmp_path / "b", ids, feats, labels, pairs)
    assert detect_format(d) == "le"
    hg = read_le(d)
    assert hg.n_nodes == 4
    assert edge_sets(hg) == [(0, 1), (0, 2, 3), (1,)]
    assert hg.labels.tolist() == [1, 0, 1, 2]  # raw 1..3 -> 0..2
    assert np.array_equal(hg.features, np.array(feats, dtype=float))
    assert hg.edge_names == ("4", "5", "6")


def test_format_b_row_permutation_relabels_nodes(tmp_path):
    rng = np.random.default_rng(0)
    n = 12
    ids = rng.permutation(n) + 100
    feats = rng.integers(0, 3, size=(n, 2)).tolist()
    labels = rng.integers(1, 4, size=n).tolist()
    pairs = [(ids[v], n + e) for e in range(5) for v in rng.choice(n, 3, replace=False)]
    a = read_le(make_format_b(tmp_path / "a", ids, feats, labels, pairs))
    perm = rng.permutation(n)
    b = read_le(make_format_b(tmp_path / "b", ids[perm], [feats[i] for i in perm],
                              [labels[i] for i in perm], pairs))
    # node i of b is node perm[i] of a
    assert np.array_equal(b.labels, a.labels[perm])
    assert np.array_equal(b.features, a.features[perm])
    assert (b.incidence != a.incidence[perm]).nnz == 0


def test_format_b_errors_name_file_and_line(tmp_path):
    d = make_format_b(tmp_path / "b", [0, 1], [[1], [2]], [1, 2], [(0, 2), (5, 2)])
    with pytest.raises(DataFormatError, match=r"toy\.edges:2: node id 5"):
        read_le(d)
    d = make_format_b(tmp_path / "c", [0, 1], [[1], [2]], [1, 2], [(0, 2)])
    (d / "toy.edges").write_text("0 2\n1 2 3\n")
    with pytest.raises(DataFormatError, match=r"toy\.edges:2:"):
        read_le(d)
    d = make_format_b(tmp_path / "e", [0, 1], [[1], [2]], [1, 2], [(0, 1)])
    with pytest.raises(DataFormatError, match="below the offset"):
        read_le(d)


# ------------------------------------------------------------------ format C
def make_format_c(d, edges_text, labels_text, name="toy", label_names=None):
    d.mkdir(parents=True, exist_ok=True)
    (d / f"hyperedges-{name}.txt").write_text(edges_text)
    if labels_text is not None:
        (d / f"node-labels-{name}.txt").write_text(labels_text)
    if label_names is not None:
        (d / f"label-names-{name}.txt").write_text("\n".join(label_names) + "\n")
    return d


def test_format_c(tmp_path):
    d = make_format_c(tmp_path / "c", "1,2,3\n4,5\n3,2,1\n5,5,4\n", "2\n2\n3\n3\n3\n2\n",
                      label_names=["a", "b", "c"])
    assert detect_format(d) == "benson"
    hg = read_benson(d)
    assert hg.n_nodes == 6 and hg.isolated.tolist() == [False] * 5 + [True]
    assert edge_sets(hg) == [(0, 1, 2), (3, 4)]
    assert hg.cleaning.duplicate_edges == 2 and hg.cleaning.repeated_members_collapsed == 1
    assert hg.labels.tolist() == [0, 0, 1, 1, 1, 0]
    assert hg.cleaning.extra["class_names"] == ["b", "c"]


@pytest.mark.parametrize("edges_text, labels_text, pattern", [
    ("1,2\n2,x\n", "1\n1\n", r"hyperedges-toy\.txt:2: node id 'x'"),
    ("1,2\n0,1\n", "1\n1\n", r"hyperedges-toy\.txt:2: node id 0 outside \[1, 2\]"),
    ("1,2\n1,3\n", "1\n1\n", r"hyperedges-toy\.txt:2: node id 3"),
    ("1,2\n", "1\n1,2\n", r"node-labels-toy\.txt:2: .*multi-label"),
    ("1,2.5\n", "1\n1\n", r"hyperedges-toy\.txt:1:"),
])
def test_format_c_errors(tmp_path, edges_text, labels_text, pattern):
    d = make_format_c(tmp_path / "c", edges_text, labels_text)
    with pytest.raises(DataFormatError, match=pattern):
        read_benson(d)


# ------------------------------------------------------------------ formats D and E
def test_format_d(tmp_path):
    d = tmp_path / "d"
    d.mkdir()
    np.save(d / "hyperedge.npy", np.array({"1": [0, 1, 2], "3": [2, 3, 4], "5": [4, 3, 2]},
                                          dtype=object), allow_pickle=True)
    np.save(d / "labels.npy", np.array([0, 0, 1, 1, 1, 0], dtype=np.int32))
    assert detect_format(d) == "hsbm"
    hg = read_hsbm(d)
    assert hg.n_nodes == 6 and edge_sets(hg) == [(0, 1, 2), (2, 3, 4)]
    assert hg.weights.tolist() == [1.0, 2.0] and hg.labels.tolist() == [0, 0, 1, 1, 1, 0]


def test_format_e_reports_corrupt_label_without_crashing(tmp_path):
    d = tmp_path / "e"
    d.mkdir()
    (d / "hyperedges.txt").write_text("1\t2\t3\n2\t4\n4\t5\n")
    (d / "hyperedge-labels.txt").write_text("1\n99\n2\n")
    (d / "hyperedge-label-identities.txt").write_text("KDD\nWWW\n")
    assert detect_format(d) == "benson-edge-labelled"
    with pytest.warns(UserWarning, match=r"hyperedge-labels\.txt:2: hyperedge label '99'"):
        hg = read_benson_edge_labelled(d)
    assert hg.n_nodes == 5 and hg.labels is None
    assert hg.cleaning.extra["corrupt_edge_label_lines"] == [2]
    assert hg.edge_names == ("1", "2", "3")
    with pytest.warns(UserWarning):
        labels, bad = read_edge_labels(d / "hyperedge-labels.txt", 2)
    assert labels.tolist() == [0, -1, 1] and bad == [2]


# ------------------------------------------------------------------ HIF
def small_hypergraph():
    return Hypergraph.from_edges([[0, 1, 2], [2, 3], [3, 4, 5], [1]], n_nodes=7,
                                 weights=[1.0, 2.5, 1.0, 0.5],
                                 features=np.arange(14, dtype=float).reshape(7, 2),
                                 labels=[0, 0, 1, 1, 2, -1, 2],
                                 node_names=[f"v{i}" for i in range(7)], name="toy")


def test_bundled_schema_is_a_valid_schema():
    import jsonschema

    jsonschema.Draft202012Validator.check_schema(hif_schema())
    assert hif_schema()["required"] == ["incidences"]


def test_hif_round_trip(tmp_path):
    hg = small_hypergraph()
    path = tmp_path / "toy.json"
    write_hif(hg, path, include_features=True)
    validate_hif(json.loads(path.read_text()), full=True)
    doc = to_hif(hg)
    assert doc["network-type"] == "undirected" and len(doc["incidences"]) == hg.incidence.nnz
    back = read_hif(path)
    assert back.shape == hg.shape and (back.incidence != hg.incidence).nnz == 0
    assert np.array_equal(back.weights, hg.weights)
    assert back.labels.tolist() == hg.labels.tolist()
    assert np.array_equal(back.features, hg.features)
    assert back.node_names == hg.node_names and back.name == "toy"
    assert read_hypergraph(path).shape == hg.shape
    write_hif(hg, path)  # features are opt-in
    assert read_hif(path).features is None


def test_hif_minimal_document_and_string_ids():
    doc = {"incidences": [{"edge": "e1", "node": "b"}, {"edge": "e1", "node": "a"},
                          {"edge": "e2", "node": "c"}, {"edge": "e2", "node": "a"}],
           "nodes": [{"node": "a", "attrs": {"label": "x"}}, {"node": "b", "attrs": {"label": "y"}},
                     {"node": "z"}]}
    from hyperclust.io import from_hif

    hg = from_hif(doc)
    # order: the nodes array first (a, b, z), then c from the incidences
    assert hg.node_ids.tolist() == ["a", "b", "z", "c"]
    assert edge_sets(hg) == [(0, 1), (0, 3)]
    assert hg.labels.tolist() == [0, 1, -1, -1]
    assert hg.edge_ids.tolist() == ["e1", "e2"]


BAD_HIF = [
    {"nodes": []},
    {"incidences": [{"edge": 1}]},
    {"incidences": [{"edge": [1], "node": 1}]},
    {"incidences": [{"edge": 1, "node": True}]},
    {"incidences": [{"edge": 1, "node": 1, "weight": "2"}]},
    {"incidences": [{"edge": 1, "node": 1, "direction": "up"}]},
    {"incidences": [], "network-type": "hyper"},
    {"incidences": [], "edges": [{"weight": 1}]},
    {"incidences": [], "nodes": [{"node": 1, "attrs": []}]},
    {"incidences": "no"},
    [],
]


@pytest.mark.parametrize("doc", BAD_HIF)
def test_hif_validation_fast_agrees_with_jsonschema(doc):
    for full in (True, False):
        with pytest.raises(DataFormatError, match="HIF"):
            validate_hif(doc, full=full)


def test_hif_invalid_file_names_file(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"incidences": [{"edge": 0}]}))
    with pytest.raises(DataFormatError, match=r"bad\.json.*incidences/0"):
        read_hif(path)
    path.write_text("{\n  oops")
    with pytest.raises(DataFormatError, match=r"bad\.json:2: invalid JSON"):
        read_hypergraph(path)


# ------------------------------------------------------------------ edge lists
def test_edgelist_round_trip_keeps_isolated_nodes_and_weights(tmp_path):
    hg = small_hypergraph()
    for delim, base in ((",", 0), (" ", 1), ("\t", 0)):
        path = tmp_path / "toy.csv"
        write_edgelist(hg, path, delimiter=delim, index_base=base)
        back = read_hypergraph(path)
        assert back.shape == hg.shape and (back.incidence != hg.incidence).nnz == 0
        assert np.array_equal(back.weights, hg.weights)


def test_edgelist_plain_file(tmp_path):
    path = tmp_path / "e.txt"
    path.write_text("# a comment\n0, 1 2\n\n2\t3\n1,0,2\n")
    hg = read_edgelist(path)
    assert hg.n_nodes == 4 and edge_sets(hg) == [(0, 1, 2), (2, 3)]
    assert read_edgelist(path, duplicates="keep").n_edges == 3
    assert read_edgelist(path, index_base=0, n_nodes=10).n_nodes == 10


@pytest.mark.parametrize("text, kwargs, pattern", [
    ("0,1\n1,a\n", {"index_base": 0}, r"e\.txt:2: node id 'a'"),
    ("# c\n0,1\n1,-1\n", {"index_base": 0}, r"e\.txt:3: node id -1 outside"),
    ("1,2\n0,1\n", {"index_base": 1}, r"e\.txt:2: node id 0"),
    ("0,1,0.5\n1,2,-1\n", {"weighted": True}, r"e\.txt:2: weight -1"),
    ("0,1,abc\n", {"weighted": True}, r"e\.txt:1: weight 'abc'"),
])
def test_edgelist_errors(tmp_path, text, kwargs, pattern):
    path = tmp_path / "e.txt"
    path.write_text(text)
    with pytest.raises(DataFormatError, match=pattern):
        read_edgelist(path, **kwargs)


# ------------------------------------------------------------------ hypergraphx JSON and detection
def test_hypergraphx_small(tmp_path):
    doc = [{"hypergraph_type": "Hypergraph", "hypergraph_metadata": {"weighted": True}},
           {"type": "node", "idx": 30, "metadata": {"class": "B"}},
           {"type": "node", "idx": 10, "metadata": {"class": "A"}},
           {"type": "node", "idx": 20, "metadata": {}},
           {"type": "edge", "interaction": [10, 30], "metadata": {}, "weight": 3},
           {"type": "edge", "interaction": [20, 30, 10], "metadata": {}, "weight": 1}]
    path = tmp_path / "x.json"
    path.write_text(json.dumps(doc))
    hg = read_hypergraph(path)
    assert hg.node_ids.tolist() == [10, 20, 30]
    assert edge_sets(hg) == [(0, 1, 2), (0, 2)]
    assert sorted(hg.weights.tolist()) == [1.0, 3.0]
    assert hg.labels.tolist() == [0, -1, 1]
    doc[0]["hypergraph_type"] = "DirectedHypergraph"
    path.write_text(json.dumps(doc))
    with pytest.raises(DataFormatError, match="not supported"):
        read_hypergraphx(path)


def test_read_hypergraph_rejects_unknown_inputs(tmp_path):
    (tmp_path / "junk.bin").write_bytes(b"\0")
    with pytest.raises(DataFormatError, match="cannot tell the format"):
        read_hypergraph(tmp_path / "junk.bin")
    with pytest.raises(DataFormatError, match="unrecognised dataset directory"):
        read_hypergraph(tmp_path)
    with pytest.raises(DataFormatError, match="no such file"):
        read_hypergraph(tmp_path / "missing.json")
    (tmp_path / "list.json").write_text("[1, 2]")
    with pytest.raises(DataFormatError, match="neither HIF"):
        read_hypergraph(tmp_path / "list.json")


def test_read_hypergraph_dispatches_directories(tmp_path):
    a = read_hypergraph(make_format_a(tmp_path / "a"))
    c = read_hypergraph(make_format_c(tmp_path / "c", "1,2\n", "1\n2\n"))
    assert a.cleaning.extra["format"] == "A" and c.cleaning.extra["format"] == "C"
