"""``clusters=`` on every ``to_*``: the clusters land on the right node, as that library's
own node attribute, and read back exactly through the library's API."""

from __future__ import annotations

import numpy as np
import pytest

from hyperclust import Hypergraph
from hyperclust import convert
from hyperclust.cluster import SpectralHypergraphClustering

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"),
              pytest.mark.filterwarnings("ignore:Sparse invariant checks:UserWarning")]


@pytest.fixture(scope="module")
def fitted():
    """A hypergraph with string and int ids, a node in no hyperedge, and an estimator
    fitted on it."""
    hg = Hypergraph.from_edges([["ana", "bo", 7], ["bo", 7], ["cy", "di", 9], ["di", 9],
                                [7, "cy"]], node_ids=["ana", "bo", 7, "cy", "di", 9, "zed"])
    est = SpectralHypergraphClustering(3, random_state=0).fit(hg)
    return hg, est


def _by_id(hg, labels):
    return dict(zip(hg.node_ids.tolist(), np.asarray(labels).tolist()))


def _read_xgi(hg, clusters):
    H = convert.to_xgi(hg, clusters=clusters)
    return H.nodes.attrs("cluster").asdict()


def _read_hypernetx(hg, clusters):
    H = convert.to_hypernetx(hg, clusters=clusters)
    return H.nodes.property_store.properties["cluster"].to_dict()


def _read_networkx(hg, clusters):
    G = convert.to_networkx(hg, clusters=clusters)
    return {G.nodes[v]["id"]: c for v, c in G.nodes(data="cluster") if c is not None}


def _read_pyg(hg, clusters):
    data = convert.to_pyg(hg, clusters=clusters)
    assert data.cluster.dtype.is_floating_point is False
    return dict(zip(data.node_ids, data.cluster.tolist()))


def _read_pandas(hg, clusters):
    table = convert.to_pandas(hg, clusters=clusters)
    return dict(zip(table["node"].tolist(), table["cluster"].tolist()))


READERS = {"xgi": _read_xgi, "hypernetx": _read_hypernetx, "networkx": _read_networkx,
           "pyg": _read_pyg, "pandas": _read_pandas}


@pytest.mark.parametrize("library", list(READERS))
@pytest.mark.parametrize("given", ["estimator", "labels"])
def test_clusters_round_trip_exactly(library, given, fitted):
    hg, est = fitted
    clusters = est if given == "estimator" else est.labels_.tolist()
    got = READERS[library](hg, clusters)
    assert got == _by_id(hg, est.labels_)
    assert all(type(c) is int for c in got.values())


@pytest.mark.parametrize("library", list(READERS))
def test_clusters_are_checked(library, fitted):
    hg, est = fitted
    read = READERS[library]
    with pytest.raises(ValueError, match="clusters has length 2"):
        read(hg, [0, 1])
    with pytest.raises(ValueError, match="not fitted"):
        read(hg, SpectralHypergraphClustering(2))
    other = SpectralHypergraphClustering(2, random_state=0).fit(hg.subset(np.arange(6)))
    other.labels_ = np.r_[other.labels_, 0]  # right length, wrong nodes
    with pytest.raises(ValueError, match="fitted on other nodes"):
        read(hg, other)
    with pytest.raises(ValueError, match="must be integers"):
        read(hg, np.full(hg.n_nodes, 0.5))


def test_estimator_fitted_on_the_library_object_writes_back(fitted):
    """Fit on an XGI hypergraph, write the clusters into XGI: each node gets its own."""
    xgi = pytest.importorskip("xgi")
    H = xgi.Hypergraph({"e1": ["ana", "bo", "cy"], "e2": ["bo", "cy"], "e3": ["di", "eve", "fy"],
                        "e4": ["eve", "fy"]})
    est = SpectralHypergraphClustering(2, random_state=0).fit(H)
    out = convert.to_xgi(convert.from_any(H), clusters=est)
    got = out.nodes.attrs("cluster").asdict()
    assert got == dict(zip(est.node_ids_.tolist(), est.labels_.tolist()))
    assert got["ana"] == got["bo"] == got["cy"] != got["di"] == got["eve"] == got["fy"]
