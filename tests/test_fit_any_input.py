"""Every estimator's ``fit`` takes each library's own object directly, built as that
library's documentation builds it, and gives the labels of a fit on ``from_any(object)``."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from hyperclust import Hypergraph
from hyperclust.cluster.base import HypergraphClusterer, check_hypergraph
from hyperclust.cluster.registry import available_methods, make_estimator
from hyperclust.convert import from_any
from hyperclust.datasets.synthetic import hypergraph_sbm

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"),
              pytest.mark.filterwarnings("ignore:Sparse invariant checks:UserWarning")]

METHODS = list(available_methods())
NEEDS_FEATURES = {"kmeans", "spectral-signed"}


@pytest.fixture(scope="module")
def planted():
    """(members of each hyperedge as node-name lists, node names, features (n, 4))."""
    hg = hypergraph_sbm(40, 2, homophily=0.9, n_features=4, random_state=0)
    names = [f"v{i}" for i in range(hg.n_nodes)]
    edges = [[names[i] for i in e] for e in hg.edges()]
    return edges, names, np.asarray(hg.features, dtype=np.float64)


def _xgi(edges, names, X):
    import xgi

    H = xgi.Hypergraph(edges)                      # XGI's docs: a list of hyperedges
    H.add_nodes_from(names)
    H.set_node_attributes({v: X[i] for i, v in enumerate(names)}, name="features")
    return H


def _hypernetx(edges, names, X):
    import hypernetx as hnx

    return hnx.Hypergraph({f"e{j}": e for j, e in enumerate(edges)})   # a dict of hyperedges


def _dhg(edges, names, X):
    import dhg

    pos = {v: i for i, v in enumerate(names)}
    return dhg.Hypergraph(len(names), [[pos[v] for v in e] for e in edges])


def _pyg(edges, names, X):
    import torch
    from torch_geometric.data.hypergraph_data import HyperGraphData

    pos = {v: i for i, v in enumerate(names)}
    index = torch.tensor([[pos[v] for e in edges for v in e],
                          [j for j, e in enumerate(edges) for _ in e]])
    return HyperGraphData(x=torch.tensor(X, dtype=torch.float32), edge_index=index)


def _networkx(edges, names, X):
    import networkx as nx

    G = nx.Graph(node_side=0)   # which bipartite side the nodes are (libraries disagree)
    G.add_nodes_from(names, bipartite=0)
    G.add_nodes_from([f"e{j}" for j in range(len(edges))], bipartite=1)
    G.add_edges_from((v, f"e{j}") for j, e in enumerate(edges) for v in e)
    return G


def _pandas(edges, names, X):
    import pandas as pd

    return pd.DataFrame({"node": [v for e in edges for v in e],
                         "hyperedge": [j for j, e in enumerate(edges) for _ in e]})


def _scipy(edges, names, X):
    pos = {v: i for i, v in enumerate(names)}
    rows = [pos[v] for e in edges for v in e]
    cols = [j for j, e in enumerate(edges) for _ in e]
    return sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(names), len(edges)))


BUILDERS = {"xgi": _xgi, "hypernetx": _hypernetx, "dhg": _dhg, "pyg": _pyg,
            "networkx": _networkx, "pandas": _pandas, "scipy": _scipy,
            "list": lambda e, n, X: e, "dict": lambda e, n, X: dict(enumerate(e))}


def _fast(est):
    if "epochs" in est.get_params():
        est.set_params(epochs=2, hidden_dim=16)
    return est


@pytest.mark.parametrize("library", list(BUILDERS))
def test_every_estimator_fits_the_library_object_directly(library, planted):
    obj = BUILDERS[library](*planted)
    reference = from_any(obj)
    for method in METHODS:
        est = _fast(make_estimator(method, 2, random_state=0))
        if method in NEEDS_FEATURES and reference.features is None:
            with pytest.raises(ValueError, match="features"):
                est.fit(obj)
            continue
        labels = est.fit_predict(obj)
        assert labels.dtype == np.int64 and labels.shape == (reference.n_nodes,)
        np.testing.assert_array_equal(est.node_ids_, reference.node_ids)
        again = _fast(make_estimator(method, 2, random_state=0)).fit(reference).labels_
        np.testing.assert_array_equal(labels, again, err_msg=f"{library} {method}")


def test_node_ids_say_which_node_each_label_is_for():
    est = make_estimator("spectral-zhou", 2, random_state=0).fit(
        {"e1": ["ana", "bo"], "e2": ["bo", "cy"], "e3": ["di", "eve"]})
    assert est.node_ids_.tolist() == ["ana", "bo", "cy", "di", "eve"]
    assert est.labels_.shape == (5,)


def test_unsupported_input_is_one_clear_type_error():
    est = make_estimator("spectral-zhou", 2, random_state=0)
    with pytest.raises(TypeError, match="from_any takes .* got int"):
        est.fit(42)
    with pytest.raises(TypeError, match="dense ndarray is ambiguous"):
        est.fit(np.eye(3))
    with pytest.raises(TypeError, match="from_any takes"):
        check_hypergraph(object())


def test_custom_estimator_gets_conversion_and_int64_labels():
    class Components(HypergraphClusterer):
        def fit(self, hypergraph, y=None):
            assert isinstance(hypergraph, Hypergraph)
            _, self.labels_ = hypergraph.connected_components()
            self.labels_ = self.labels_.astype(np.int32)
            return self

    est = Components().fit([[0, 1], [2, 3]])
    assert est.labels_.dtype == np.int64 and est.labels_.tolist() == [0, 0, 1, 1]


@pytest.mark.parametrize("seed", [np.random.default_rng(3), np.random.RandomState(3), 3, None])
def test_random_state_takes_generators(seed):
    hg = hypergraph_sbm(30, 2, homophily=0.9, random_state=0)
    labels = make_estimator("spectral-zhou", 2, random_state=seed).fit_predict(hg)
    assert labels.shape == (30,)


def test_a_generator_is_mapped_to_one_drawn_seed():
    hg = hypergraph_sbm(30, 2, homophily=0.9, random_state=0)
    drawn = int(np.random.default_rng(5).integers(0, 2**31 - 1))
    a = make_estimator("hgnn", 2, random_state=np.random.default_rng(5)).fit_predict(hg)
    b = make_estimator("hgnn", 2, random_state=drawn).fit_predict(hg)
    np.testing.assert_array_equal(a, b)
    with pytest.raises(TypeError, match="Generator"):
        make_estimator("hgnn", 2, random_state="seed").fit(hg)


def test_a_bipartite_graph_without_its_node_side_is_refused():
    nx = pytest.importorskip("networkx")
    G = nx.Graph()
    G.add_nodes_from([0, 1, 2], bipartite=0)
    G.add_nodes_from(["e"], bipartite=1)
    G.add_edges_from([(0, "e"), (1, "e")])
    with pytest.raises(ValueError, match="which bipartite side"):
        make_estimator("spectral-zhou", 2).fit(G)
