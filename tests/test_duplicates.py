"""Duplicate hyperedges: one policy for every way in (converters, ``from_any``, readers, the
command line): merged, weights summed, and said (cleaning report, ``hyperclust info``, the
``hyperclust`` logger, a warning of the command line); ``duplicates="keep"`` keeps them.
``Hypergraph.from_*`` themselves keep them unless asked."""

from __future__ import annotations

import logging

import numpy as np
import pytest
import scipy.sparse as sp

from hyperclust import Hypergraph
from hyperclust import convert

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"),
              pytest.mark.filterwarnings("ignore:Sparse invariant checks:UserWarning")]


def _objects():
    """Each library's object with hyperedges e1 == e2 = {1, 2} (weights 1, 3) and e3."""
    import dhg
    import hypernetx as hnx
    import networkx as nx
    import pandas as pd
    import torch
    import xgi
    from torch_geometric.data.hypergraph_data import HyperGraphData

    H = xgi.Hypergraph({"e1": [1, 2], "e2": [1, 2], "e3": [2, 3]})
    H.set_edge_attributes({"e1": 1.0, "e2": 3.0, "e3": 1.0}, name="weight")
    G = nx.Graph(node_side=0)
    G.add_nodes_from([1, 2, 3], bipartite=0)
    G.add_nodes_from(["e1", "e2", "e3"], bipartite=1)
    nx.set_node_attributes(G, {"e1": 1.0, "e2": 3.0, "e3": 1.0}, "weight")
    G.add_edges_from([(1, "e1"), (2, "e1"), (1, "e2"), (2, "e2"), (2, "e3"), (3, "e3")])
    table = pd.DataFrame({"node": [1, 2, 1, 2, 2, 3], "hyperedge": ["e1", "e1", "e2", "e2",
                                                                    "e3", "e3"],
                          "weight": [1.0, 1.0, 3.0, 3.0, 1.0, 1.0]})
    index = torch.tensor([[0, 1, 0, 1, 1, 2], [0, 0, 1, 1, 2, 2]])
    return {
        "xgi": H,
        "hypernetx": hnx.Hypergraph(table, edge_col="hyperedge", node_col="node",
                                    cell_weight_col=None,
                                    edge_properties=pd.DataFrame(
                                        {"uid": ["e1", "e2", "e3"], "weight": [1.0, 3.0, 1.0]}),
                                    edge_weight_prop_col="weight"),
        "networkx": G,
        "pandas": table,
        "pyg": HyperGraphData(edge_index=index, num_nodes=3,
                              hyperedge_weight=torch.tensor([1.0, 3.0, 1.0])),
        "dhg": None,  # DHG merges duplicates on construction itself: nothing to keep
        "dict": {"e1": [1, 2], "e2": [1, 2], "e3": [2, 3]},
        "scipy": sp.csr_matrix(np.array([[1, 1, 0], [1, 1, 1], [0, 0, 1]])),
    }


LIBRARIES = ["xgi", "hypernetx", "networkx", "pandas", "pyg", "dict", "scipy"]


@pytest.mark.parametrize("library", LIBRARIES)
def test_every_converter_merges_duplicates_by_default_and_says_so(library, caplog):
    with caplog.at_level(logging.INFO, logger="hyperclust"):
        hg = convert.from_any(_objects()[library])
    assert hg.n_edges == 2 and hg.cleaning.duplicate_edges == 1
    assert hg.cleaning.duplicate_policy == "merge"
    assert "merged 1 duplicate hyperedge" in caplog.text
    assert sorted(hg.weights.tolist()) == ([1.0, 2.0] if library in ("dict", "scipy")
                                           else [1.0, 4.0])


@pytest.mark.parametrize("library", LIBRARIES)
def test_keep_on_request_keeps_each_copy_with_its_id_and_weight(library):
    hg = convert.from_any(_objects()[library], duplicates="keep")
    assert hg.n_edges == 3 and hg.cleaning.duplicate_policy == "keep"
    if library not in ("pyg", "scipy"):
        assert sorted(map(str, hg.edge_ids.tolist())) == ["e1", "e2", "e3"]
    if library not in ("dict", "scipy"):
        assert sorted(hg.weights.tolist()) == [1.0, 1.0, 3.0]


def test_one_xgi_hypergraph_gives_the_same_hyperedges_by_converter_and_by_file(tmp_path):
    import xgi

    from hyperclust.io import read_hif

    H = _objects()["xgi"]
    xgi.write_hif(H, tmp_path / "h.json")
    direct, read = convert.from_xgi(H), read_hif(tmp_path / "h.json")
    assert direct.n_edges == read.n_edges == 2
    assert sorted(direct.weights.tolist()) == sorted(read.weights.tolist()) == [1.0, 4.0]
    assert direct.cleaning.duplicate_policy == read.cleaning.duplicate_policy == "merge"


def test_round_trip_through_xgi_keeps_duplicates_on_request():
    hg = Hypergraph.from_edges([[0, 1], [1, 0], [1, 2]], edge_ids=["a", "b", "c"],
                               weights=[1.0, 2.0, 1.0])
    back = convert.from_xgi(convert.to_xgi(hg), duplicates="keep")
    assert back.edge_ids.tolist() == ["a", "b", "c"] and back.weights.tolist() == [1, 2, 1]


def test_to_dhg_says_it_merges():
    hg = Hypergraph.from_edges([[0, 1], [1, 0], [1, 2]])
    with pytest.warns(UserWarning, match="DHG merges identical hyperedges: 1 duplicate"):
        G = convert.to_dhg(hg)
    assert G.num_e == 2


def test_nothing_is_logged_when_nothing_changes(caplog):
    with caplog.at_level(logging.INFO, logger="hyperclust"):
        Hypergraph.from_edges([[0, 1], [1, 0], [1, 2]])
    assert caplog.text == ""


def test_readers_keep_merging(tmp_path):
    from hyperclust.io import read_hypergraph

    path = tmp_path / "edges.txt"
    path.write_text("0,1\n1,0\n1,2\n")
    hg = read_hypergraph(path)
    assert hg.n_edges == 2 and hg.weights.tolist() == [2.0, 1.0]
    assert read_hypergraph(path, duplicates="keep").n_edges == 3


@pytest.mark.parametrize("method", ["spectral-zhou", "spectral-clique", "spectral-star"])
def test_kept_duplicates_give_the_operator_of_merged_ones(method):
    """Operators are linear in the weights: copies of a hyperedge act as one hyperedge with
    the summed weight (equal spectra; labels may differ by k-means on rounding)."""
    from hyperclust.cluster.registry import make_estimator
    from hyperclust.datasets.synthetic import hypergraph_sbm

    base = hypergraph_sbm(80, 3, homophily=0.8, random_state=1)
    edges = [e.tolist() for e in base.edges()]
    edges += edges[:20]
    keep = Hypergraph.from_edges(edges, n_nodes=80)
    merge = Hypergraph.from_edges(edges, n_nodes=80, duplicates="merge")
    assert keep.n_edges == merge.n_edges + 20
    a = make_estimator(method, 3, random_state=0).fit(keep)
    b = make_estimator(method, 3, random_state=0).fit(merge)
    np.testing.assert_allclose(a.eigenvalues_, b.eigenvalues_, atol=1e-12)


def test_ids_that_are_neither_int_nor_str_are_said_to_become_str():
    import xgi

    H = xgi.Hypergraph()
    H.add_edges_from({"a": [(0, 0), (0, 1)], "b": [(0, 1), (1, 1)]})
    with pytest.warns(UserWarning, match=r"ids such as \(\d, \d\) \(tuple\) are kept as"):
        hg = convert.from_any(H)
    assert sorted(hg.node_ids.tolist()) == ["(0, 0)", "(0, 1)", "(1, 1)"]
