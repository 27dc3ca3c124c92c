"""Converters against the real libraries: round trips compare incidence, ids, weights,
features and labels exactly (aligned by id where the other library reorders)."""

from __future__ import annotations

import subprocess
import sys
import time

import numpy as np
import pytest
import scipy.sparse as sp

from hyperclust import Hypergraph
from hyperclust import convert
from hyperclust.hypergraph import map_ids

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"),
              pytest.mark.filterwarnings("ignore:Sparse invariant checks:UserWarning")]


def _hg(ids="str", sparse=False, isolated=True):
    """5 nodes (one in no hyperedge), 3 weighted hyperedges, features, labels with -1."""
    node_ids = {"str": ["ana", "bo", "cy", "di", "eve"], "int": [10, 7, 900000, 3, 42],
                "mixed": ["ana", 7, "cy", 3, "eve"]}[ids]
    edge_ids = {"str": ["e1", "e2", "e3"], "int": [5, 0, 11], "mixed": ["e1", 2, "e3"]}[ids]
    edges = [[node_ids[0], node_ids[1]], [node_ids[1], node_ids[2], node_ids[3]],
             [node_ids[3], node_ids[0]]]
    if not isolated:
        edges[2].append(node_ids[4])
    rng = np.random.default_rng(0)
    X = rng.normal(size=(5, 3))
    if sparse:
        X[X < 0.3] = 0.0
        X = sp.csr_matrix(X)
    return Hypergraph.from_edges(edges, node_ids=node_ids, edge_ids=edge_ids,
                                 weights=[1.0, 2.5, 0.5], features=X,
                                 labels=[0, 1, 1, -1, 2], name="toy")


def assert_same(a: Hypergraph, b: Hypergraph, *, ordered=True, features=True, labels=True):
    """``b`` is ``a``: same ids, incidence, weights, features, labels (matched by id)."""
    assert sorted(map(str, a.node_ids.tolist())) == sorted(map(str, b.node_ids.tolist()))
    assert sorted(map(str, a.edge_ids.tolist())) == sorted(map(str, b.edge_ids.tolist()))
    rows, _ = map_ids(a.node_ids, b.node_ids)
    cols, _ = map_ids(a.edge_ids, b.edge_ids)
    if ordered:
        assert rows.tolist() == list(range(a.n_nodes))
    # ids keep their type (int stays int, str stays str)
    assert [type(v) for v in a.node_ids.tolist()] == [type(v) for v in b.node_ids[rows].tolist()]
    assert [type(v) for v in a.edge_ids.tolist()] == [type(v) for v in b.edge_ids[cols].tolist()]
    assert (a.incidence != b.incidence[rows][:, cols]).nnz == 0
    np.testing.assert_array_equal(a.weights, b.weights[cols])
    if features:
        assert (a.features is None) == (b.features is None)
        if a.features is not None:
            assert sp.issparse(a.features) == sp.issparse(b.features)
            fa = a.features.toarray() if sp.issparse(a.features) else a.features
            fb = b.features.toarray() if sp.issparse(b.features) else b.features
            np.testing.assert_array_equal(fa, fb[rows])
    if labels:
        assert (a.labels is None) == (b.labels is None)
        if a.labels is not None:
            np.testing.assert_array_equal(a.labels, b.labels[rows])


IDS = ["str", "int", "mixed"]


# ---------------------------------------------------------------------------- XGI
@pytest.mark.parametrize("ids", IDS)
@pytest.mark.parametrize("sparse", [False, True])
def test_xgi_round_trip(ids, sparse):
    xgi = pytest.importorskip("xgi")
    hg = _hg(ids, sparse)
    H = convert.to_xgi(hg)
    assert isinstance(H, xgi.Hypergraph)
    assert H.num_nodes == 5 and H.num_edges == 3
    back = convert.from_xgi(H)
    assert_same(hg, back)
    assert back.name == "toy"


def test_xgi_native_object():
    xgi = pytest.importorskip("xgi")
    H = xgi.Hypergraph()
    H.add_nodes_from(["x", "y", "z", "lonely"])
    H.add_edges_from({"a": ["x", "y"], "b": ["y", "z"], "c": ["x", "z"]})
    H.set_edge_attributes({"a": 3.0}, name="weight")
    H.set_node_attributes({"x": "cat", "y": "dog", "z": "cat"}, name="label")
    hg = convert.from_any(H)
    assert hg.node_ids.tolist() == ["x", "y", "z", "lonely"]
    assert hg.edge_ids.tolist() == ["a", "b", "c"]
    assert hg.weights.tolist() == [3.0, 1.0, 1.0]
    assert hg.labels.tolist() == [0, 1, 0, -1]  # names in sorted order, missing = -1
    assert hg.isolated.tolist() == [False, False, False, True]
    # same incidence as XGI's own matrix
    I, rowd, cold = xgi.incidence_matrix(H, index=True)
    I = sp.csr_matrix(I)
    r = [hg.index_of([rowd[i]])[0] for i in range(I.shape[0])]
    c = [hg.edge_ids.tolist().index(cold[j]) for j in range(I.shape[1])]
    assert (hg.incidence[r][:, c] != I).nnz == 0


def test_xgi_features_must_be_on_every_node():
    xgi = pytest.importorskip("xgi")
    H = xgi.Hypergraph([[0, 1], [1, 2]])
    H.set_node_attributes({0: np.ones(2), 1: np.ones(2)}, name="features")
    with pytest.raises(ValueError, match="node 2 has no 'features'"):
        convert.from_xgi(H)


# ---------------------------------------------------------------------------- HyperNetX
@pytest.mark.parametrize("ids", IDS)
def test_hypernetx_round_trip(ids):
    hnx = pytest.importorskip("hypernetx")
    hg = _hg(ids, isolated=False)
    H = convert.to_hypernetx(hg)
    assert isinstance(H, hnx.Hypergraph)
    assert H.shape == (5, 3)
    back = convert.from_hypernetx(H)
    assert_same(hg, back, ordered=False)


def test_hypernetx_isolated_nodes_are_opt_in():
    pytest.importorskip("hypernetx")
    hg = _hg("str", isolated=True)
    H = convert.to_hypernetx(hg)
    assert H.shape == (4, 3)  # HyperNetX shows no node in no hyperedge
    with pytest.warns(UserWarning, match="1 node.*'eve'.*include_isolated=True"):
        assert convert.from_hypernetx(H).n_nodes == 4
    assert_same(hg, convert.from_hypernetx(H, include_isolated=True), ordered=False)


def test_hypernetx_sparse_features():
    pytest.importorskip("hypernetx")
    hg = _hg("int", sparse=True, isolated=False)
    assert_same(hg, convert.from_hypernetx(convert.to_hypernetx(hg)), ordered=False)


def test_hypernetx_native_object():
    hnx = pytest.importorskip("hypernetx")
    pd = pytest.importorskip("pandas")
    H = hnx.Hypergraph({"s0": ["FN", "TH"], "s1": ["TH", "JV"], "s2": ["BM", "FN", "JA"]},
                       edge_properties=pd.DataFrame({"uid": ["s1"], "weight": [4.0]}))
    hg = convert.from_any(H)
    assert hg.shape == (5, 3)
    assert dict(zip(hg.edge_ids.tolist(), hg.weights.tolist())) == {"s0": 1.0, "s1": 4.0,
                                                                     "s2": 1.0}
    M, ni, ei = H.incidence_matrix(index=True)
    assert hg.node_ids.tolist() == list(ni) and hg.edge_ids.tolist() == list(ei)
    assert (hg.incidence != sp.csr_matrix(M)).nnz == 0


# ---------------------------------------------------------------------------- DHG
def test_dhg_round_trip():
    dhg = pytest.importorskip("dhg")
    hg = _hg("str")
    G = convert.to_dhg(hg)
    assert isinstance(G, dhg.Hypergraph)
    assert G.num_v == 5 and G.num_e == 3
    np.testing.assert_array_equal(G.H.to_dense().numpy(), hg.incidence.toarray())
    back = convert.from_dhg(G, node_ids=hg.node_ids, edge_ids=hg.edge_ids,
                            features=hg.features, labels=hg.labels, name="toy")
    assert_same(hg, back)


def test_dhg_native_object_with_torch_features():
    dhg = pytest.importorskip("dhg")
    torch = pytest.importorskip("torch")
    G = dhg.Hypergraph(6, [[0, 1, 2], [2, 3], [3, 4, 5], [0, 5]], e_weight=[1.0, 2.0, 1.0, 0.5])
    X = torch.randn(6, 4)
    hg = convert.from_any(G, features=X, labels=torch.tensor([0, 0, 0, 1, 1, 1]))
    assert hg.shape == (6, 4)
    assert hg.weights.tolist() == [1.0, 2.0, 1.0, 0.5]
    np.testing.assert_array_equal(hg.features, X.numpy())
    assert hg.labels.tolist() == [0, 0, 0, 1, 1, 1]
    with pytest.raises(ValueError, match="node_ids has length 2"):
        convert.from_dhg(G, node_ids=["a", "b"])


# ---------------------------------------------------------------------------- PyG
@pytest.mark.parametrize("ids", IDS)
@pytest.mark.parametrize("sparse", [False, True])
def test_pyg_round_trip(ids, sparse):
    pytest.importorskip("torch_geometric")
    hg = _hg(ids, sparse)
    data = convert.to_pyg(hg, dense_features=not sparse, dtype=None)  # stored precision
    assert tuple(data.edge_index.shape) == (2, hg.incidence.nnz)
    assert data.num_nodes == 5
    back = convert.from_pyg(data)
    assert_same(hg, back)
    as_float32 = convert.from_pyg(convert.to_pyg(hg, dense_features=not sparse))
    assert_same(hg, as_float32, features=False)
    fa = hg.features.toarray() if sparse else hg.features
    fb = as_float32.features.toarray() if sparse else as_float32.features
    np.testing.assert_array_equal(fb, fa.astype(np.float32))


def test_pyg_hypergraphconv_runs_on_converted_data():
    pytest.importorskip("torch_geometric")
    torch = pytest.importorskip("torch")
    from torch_geometric.nn import HypergraphConv

    hg = _hg("str")
    data = convert.to_pyg(hg)  # float32 by default: PyG's layers as they come
    assert data.x.dtype == torch.float32 and data.hyperedge_weight.dtype == torch.float32
    conv = HypergraphConv(3, 2)
    out = conv(data.x, data.edge_index, data.hyperedge_weight)
    assert out.dtype == torch.float32
    assert tuple(out.shape) == (5, 2) and torch.isfinite(out).all()


def test_pyg_raw_index_and_errors():
    pytest.importorskip("torch_geometric")
    torch = pytest.importorskip("torch")
    from torch_geometric.data import Data

    index = torch.tensor([[0, 1, 1, 2, 3], [0, 0, 2, 2, 2]])  # hyperedge 1 is empty
    hg = convert.from_any(index, num_nodes=5, y=torch.eye(3)[[0, 1, 2, 0, 1]])
    assert hg.shape == (5, 2) and hg.edge_ids.tolist() == [0, 2]  # ids kept
    assert hg.labels.tolist() == [0, 1, 2, 0, 1]
    assert convert.to_hyperedge_index(hg).tolist() == [[0, 1, 1, 2, 3], [0, 0, 1, 1, 1]]
    with pytest.raises(ValueError, match=r"shape \(2, nnz\)"):
        convert.from_pyg(torch.zeros(3, 4, dtype=torch.long))
    with pytest.raises(ValueError, match="no hyperedge_index"):
        convert.from_pyg(Data(edge_index=index))
    hg2 = convert.from_pyg(Data(hyperedge_index=index, num_nodes=4))
    assert hg2.shape == (4, 2)


# ---------------------------------------------------------------------------- networkx
@pytest.mark.parametrize("ids", IDS)
@pytest.mark.parametrize("sparse", [False, True])
def test_networkx_round_trip(ids, sparse):
    nx = pytest.importorskip("networkx")
    hg = _hg(ids, sparse)
    G = convert.to_networkx(hg)
    assert nx.is_bipartite(G)
    assert G.number_of_nodes() == 8 and G.number_of_edges() == hg.incidence.nnz
    assert_same(hg, convert.from_networkx(G))


def test_networkx_native_graph_and_xgi_interplay():
    nx = pytest.importorskip("networkx")
    G = nx.Graph()
    G.add_nodes_from([1, 2, 3, 4], bipartite=0)
    G.add_nodes_from(["a", "b", "c"], bipartite=1)
    G.add_edges_from([(1, "a"), (1, "b"), (2, "b"), (2, "c"), (3, "c"), (4, "a")])
    with pytest.raises(ValueError, match="which bipartite side are the nodes"):
        convert.from_any(G)  # nothing says which side: refused, never silently swapped
    hg = convert.from_any(G, node_side=0)
    assert hg.node_ids.tolist() == [1, 2, 3, 4] and hg.edge_ids.tolist() == ["a", "b", "c"]
    G.graph["node_side"] = 0
    assert_same(hg, convert.from_any(G))
    assert hg.edges()[0].tolist() == [0, 3]
    # the same graph read with the sides swapped is the dual
    dual = convert.from_networkx(G, node_side=1)
    assert (dual.incidence != hg.incidence.T).nnz == 0
    G.add_edge(1, 2)
    with pytest.raises(ValueError, match="not bipartite"):
        convert.from_networkx(G)
    G.add_node("x")
    with pytest.raises(ValueError, match="'x' has bipartite=None"):
        convert.from_networkx(G)


def test_hypernetx_bipartite_graph_is_not_read_swapped():
    hnx = pytest.importorskip("hypernetx")
    H = hnx.Hypergraph({"e1": ["a", "b"], "e2": ["b", "c"], "e3": ["a", "b", "c"]})
    with pytest.raises(ValueError, match="node_side=1 .HyperNetX"):
        convert.from_any(H.bipartite())
    hg = convert.from_any(H.bipartite(), node_side=1)
    assert_same(convert.from_hypernetx(H), hg, ordered=False)


def test_networkx_output_reads_in_xgi():
    xgi = pytest.importorskip("xgi")
    hg = _hg("str", isolated=False)
    H = xgi.from_bipartite_graph(convert.to_networkx(hg))
    assert H.num_nodes == 5 and H.num_edges == 3


# ---------------------------------------------------------------------------- pandas
@pytest.mark.parametrize("ids", IDS)
@pytest.mark.parametrize("sparse", [False, True])
def test_pandas_round_trip(ids, sparse):
    pytest.importorskip("pandas")
    hg = _hg(ids, sparse)
    inc = convert.to_pandas_incidence(hg)
    assert list(inc.columns) == ["node", "hyperedge", "weight"] and len(inc) == hg.incidence.nnz
    nodes = convert.to_pandas(hg, features=True)
    back = convert.from_pandas(inc, nodes=nodes)
    assert_same(hg, back)


def test_to_pandas_node_table_with_clusters():
    pytest.importorskip("pandas")
    from hyperclust.cluster import SpectralHypergraphClustering

    hg = _hg("int")
    est = SpectralHypergraphClustering(2, random_state=0).fit(hg)
    table = convert.to_pandas(hg, clusters=est)
    assert list(table.columns) == ["node", "label", "cluster"]
    assert table["node"].tolist() == [10, 7, 900000, 3, 42]
    assert table["cluster"].tolist() == est.labels_.tolist()
    assert convert.to_pandas(hg, labels=np.arange(5))["label"].tolist() == [0, 1, 2, 3, 4]
    with pytest.raises(ValueError, match="clusters has length 2"):
        convert.to_pandas(hg, clusters=[0, 1])


def test_from_pandas_plain_incidence_and_errors():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"node": ["a", "b", "b", "c"], "hyperedge": [9, 9, 4, 4],
                       "weight": [2.0, 2.0, 1.0, 1.0]})
    hg = convert.from_any(df)
    assert hg.node_ids.tolist() == ["a", "b", "c"] and hg.edge_ids.tolist() == [4, 9]
    assert hg.weights.tolist() == [1.0, 2.0]
    with pytest.raises(ValueError, match="no column 'hyperedge'"):
        convert.from_pandas(df.rename(columns={"hyperedge": "e"}))
    with pytest.raises(ValueError, match="hyperedge 9 has different weights"):
        convert.from_pandas(df.assign(weight=[2.0, 3.0, 1.0, 1.0]))
    with pytest.raises(ValueError, match="node 'c' of the incidence table is not in the node"):
        convert.from_pandas(df, nodes=pd.DataFrame({"node": ["a", "b", "zz"]}))


# ---------------------------------------------------------------------------- dispatch
def test_from_any_plain_python_and_errors():
    hg = _hg("str")
    assert convert.from_any(hg) is hg
    assert convert.from_any([[0, 1], [1, 2]]).shape == (3, 2)
    assert convert.from_any(sp.csr_matrix(np.eye(3))).shape == (3, 3)
    with pytest.raises(TypeError, match="cannot convert a object to a hyperclust Hypergraph"):
        convert.from_any(object())
    with pytest.raises(TypeError, match="dense ndarray is ambiguous"):
        convert.from_any(np.zeros((3, 3)))


def test_from_edges_points_foreign_objects_to_from_any():
    nx = pytest.importorskip("networkx")
    pd = pytest.importorskip("pandas")
    for obj in (nx.Graph(), pd.DataFrame({"node": [1], "hyperedge": [1]})):
        with pytest.raises(TypeError, match="use hyperclust.convert.from_any"):
            Hypergraph.from_edges(obj)


@pytest.mark.parametrize("func,module,extra", [
    ("to_xgi", "xgi", "xgi"), ("to_hypernetx", "hypernetx", "hypernetx"),
    ("to_dhg", "dhg", "dhg"), ("to_pyg", "torch_geometric", "pyg"),
    ("to_networkx", "networkx", "networkx"), ("to_pandas", "pandas", "pandas")])
def test_missing_library_is_one_clear_import_error(monkeypatch, func, module, extra):
    monkeypatch.setitem(sys.modules, module, None)
    with pytest.raises(ImportError) as info:
        getattr(convert, func)(_hg("str"))
    msg = str(info.value)
    assert "\n" not in msg and f"'{module}'" in msg and f"pip install hyperclust[{extra}]" in msg


def test_each_library_has_its_extra_and_interop_is_their_union():
    from pathlib import Path

    from hyperclust.convert._common import _EXTRAS

    tomllib = pytest.importorskip("tomllib")

    extras = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml")
                           .read_text())["project"]["optional-dependencies"]
    for module, extra in _EXTRAS.items():
        assert extra in extras, module
    union = set().union(*(extras[e] for e in ("xgi", "hypernetx", "dhg", "pyg", "networkx",
                                               "pandas")))
    assert set(extras["interop"]) == union
    assert union - {"torch>=2.1"} <= set(extras["test"])


def test_importing_convert_imports_no_optional_library():
    code = ("import sys, hyperclust.convert; "
            "bad = [m for m in ('xgi', 'hypernetx', 'dhg', 'torch_geometric', 'networkx', "
            "'pandas', 'torch') if m in sys.modules]; assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_bulk_conversions_are_fast():
    """100k memberships through the vectorised converters in well under a second each."""
    pytest.importorskip("torch_geometric")
    pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    n, m, nnz = 20000, 5000, 100000
    hg = Hypergraph.from_pairs(rng.integers(0, n, nnz), rng.integers(0, m, nnz), n_nodes=n,
                               n_edges=m, node_ids=np.arange(n) * 3 + 1,
                               features=rng.normal(size=(n, 4)))
    for to, back in ((lambda h: convert.to_pyg(h, dtype=None), convert.from_pyg),
                     (lambda h: (convert.to_pandas_incidence(h), convert.to_pandas(h, features=True)),
                      lambda t: convert.from_pandas(t[0], nodes=t[1]))):
        t0 = time.perf_counter()
        out = back(to(hg))
        assert time.perf_counter() - t0 < 5.0
        assert_same(hg, out)


@pytest.mark.parametrize("lib,to,back", [
    ("xgi", convert.to_xgi, convert.from_xgi),
    ("torch_geometric", convert.to_pyg, convert.from_pyg),
    ("networkx", convert.to_networkx, convert.from_networkx),
    ("dhg", convert.to_dhg, convert.from_dhg),
    ("hypernetx", convert.to_hypernetx,
     lambda H: convert.from_hypernetx(H, include_isolated=True)),
    ("pandas", lambda h: (convert.to_pandas_incidence(h), convert.to_pandas(h)),
     lambda t: convert.from_pandas(t[0], nodes=t[1])),
])
def test_no_hyperedges_round_trip(lib, to, back):
    pytest.importorskip(lib)
    hg = Hypergraph.from_edges([], n_nodes=3)
    out = back(to(hg))
    assert out.shape == (3, 0) and out.node_ids.tolist() == [0, 1, 2]


def _one_and_text_one():
    """The same two hyperedges, node 1 an int and node '1' a string, in every input kind."""
    import pandas as pd
    import xgi

    return {"from_edges": lambda: Hypergraph.from_edges([[1, "1"], [2, 3]]),
            "from_any list": lambda: convert.from_any([[1, "1"], [2, 3]]),
            "from_any dict": lambda: convert.from_any({"e": [1, "1"], "f": [2, 3]}),
            "node_ids": lambda: Hypergraph.from_edges([[0, 1], [2, 3]], node_ids=[1, "1", 2, 3]),
            "from_pandas": lambda: convert.from_pandas(pd.DataFrame(
                {"node": [1, "1", 2, 3], "hyperedge": [0, 0, 1, 1]})),
            "from_xgi": lambda: convert.from_xgi(xgi.Hypergraph([[1, "1"], [2, 3]]))}


@pytest.mark.parametrize("route", list(_one_and_text_one()))
def test_int_1_and_str_1_are_refused_in_one_line_everywhere(route):
    pytest.importorskip("pandas")
    pytest.importorskip("xgi")
    with pytest.raises(ValueError, match=r"ids 1 \(int\) and '1' \(str\) are the same id as "
                                         "text; make the ids all ints or all strings"):
        _one_and_text_one()[route]()


def test_mixed_ids_keep_their_type_and_other_ids_are_said_to_become_str():
    hg = Hypergraph.from_edges([[1, "a"], [2, 3]])
    assert hg.node_ids.tolist() == [1, "a", 2, 3]  # ints stay ints: no silent str()
    assert [type(v) for v in hg.node_ids.tolist()] == [int, str, int, int]
    with pytest.warns(UserWarning, match=r"ids such as 2\.0 \(float\) are kept as their str, "
                                         r"'2\.0'"):
        hg = convert.from_any([[1, "a"], [2.0, 3]])
    assert hg.node_ids.tolist() == [1, "a", "2.0", 3]
