"""HIF exchange with XGI both ways: XGI's ``write_hif`` output reads with its weights, and
``xgi.write_hif(to_xgi(hg))`` works for a hypergraph with features, labels and clusters."""

from __future__ import annotations

import numpy as np
import pytest

from hyperclust import Hypergraph
from hyperclust import convert
from hyperclust.io import read_hypergraph

xgi = pytest.importorskip("xgi")
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _hg():
    X = np.random.default_rng(0).normal(size=(5, 3))
    return Hypergraph.from_edges([["ana", "bo"], ["bo", "cy", "di"], ["di", "ana"]],
                                 node_ids=["ana", "bo", "cy", "di", "eve"],
                                 edge_ids=["e1", "e2", "e3"], weights=[1.0, 2.5, 0.5],
                                 features=X, labels=[0, 1, 1, -1, 2])


def test_xgi_written_weights_are_read(tmp_path):
    H = xgi.Hypergraph({"e1": [1, 2], "e2": [2, 3, 4]})
    H.set_edge_attributes({"e1": 2.5, "e2": 1.0}, name="weight")
    path = tmp_path / "h.json"
    xgi.write_hif(H, path)
    hg = read_hypergraph(path)
    assert dict(zip(hg.edge_ids.tolist(), hg.weights.tolist())) == {"e1": 2.5, "e2": 1.0}


def test_write_hif_of_to_xgi_round_trips(tmp_path):
    hg = _hg()
    path = tmp_path / "h.json"
    xgi.write_hif(convert.to_xgi(hg, clusters=[0, 0, 1, 1, 2]), path)
    for back in (read_hypergraph(path), convert.from_xgi(xgi.read_hif(path))):
        rows = back.index_of(hg.node_ids)
        cols = [back.edge_ids.tolist().index(e) for e in hg.edge_ids.tolist()]
        assert (back.incidence[rows][:, cols] != hg.incidence).nnz == 0
        np.testing.assert_array_equal(back.weights[cols], hg.weights)
        np.testing.assert_array_equal(back.features[rows], hg.features)
        np.testing.assert_array_equal(back.labels[rows], hg.labels)
    H = xgi.read_hif(path)
    assert H.nodes.attrs("cluster").asdict() == {"ana": 0, "bo": 0, "cy": 1, "di": 1, "eve": 2}


def test_sparse_features_are_left_out_on_request(tmp_path):
    import scipy.sparse as sp

    hg = _hg()
    hg = hg.replace(features=sp.csr_matrix(hg.features))
    H = convert.to_xgi(hg, features=None)
    xgi.write_hif(H, tmp_path / "h.json")
    assert read_hypergraph(tmp_path / "h.json").features is None


def test_our_hif_reads_in_xgi_with_its_weights(tmp_path):
    from hyperclust.io.hif import write_hif

    hg = _hg()
    write_hif(hg, tmp_path / "ours.json")
    H = xgi.read_hif(tmp_path / "ours.json")
    assert H.edges.attrs("weight").asdict() == {"e1": 1.0, "e2": 2.5, "e3": 0.5}
    back = convert.from_xgi(H)
    np.testing.assert_array_equal(back.weights[back.edge_ids.tolist().index("e2")], 2.5)
