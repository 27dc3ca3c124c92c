"""``peer-hyperneo``: our side of running the public HyperNEO code (the hypergraph, weights,
attribute categories and settings its ``HyCoSBM`` gets, the labels read back), checked with
a stand-in checkout whose ``hycosbm.py`` records what it is given and returns a known
membership matrix."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import hyperclust.bench  # noqa: F401  (registers the peers)
from hyperclust import Hypergraph
from hyperclust.bench.peer_hyperneo import HyperNEOPeer, attribute_categories
from hyperclust.bench.peers import make_peer
from hyperclust.cluster.registry import MissingDependency

# Stand-ins for its hypergraph.py and hycosbm.py: node i's membership is 1 + seed in cluster
# (its attribute category) % K; what the model was given is written to seen.json.
HYPERGRAPH = r'''
import numpy as np
class HyperGraph():
    def __init__(self, N, M, Z):
        self.N, self.M, self.Z = N, M, Z
        self.E = [set() for _ in range(M)]
        self.A = np.zeros(M, dtype=int)
        self.X = np.zeros(N, dtype=int)
'''
HYCOSBM = r'''
import json, pathlib, numpy as np
class HyCoSBM:
    def __init__(self, G, K, gamma, random_state=None):
        self.G, self.K, self.gamma, self.seed = G, K, gamma, random_state
    def fit(self, initial_r=10, num_step=100, tol=1e-3):
        G = self.G
        U = np.full((G.N, self.K), 1e-10)
        U[np.arange(G.N), np.asarray(G.X) % self.K] = 1 + self.seed
        seen = {"N": G.N, "M": G.M, "Z": G.Z, "E": [sorted(e) for e in G.E],
                "A": np.asarray(G.A).tolist(), "X": np.asarray(G.X).tolist(), "K": self.K,
                "gamma": self.gamma, "seed": self.seed}
        pathlib.Path(__file__).with_name("seen.json").write_text(json.dumps(seen))
        return 0.0, (U, np.eye(self.K), None)
'''


@pytest.fixture()
def checkout(tmp_path):
    (tmp_path / "hypergraph.py").write_text(HYPERGRAPH)
    (tmp_path / "hycosbm.py").write_text(HYCOSBM)
    return str(tmp_path)


def seen(checkout):
    return json.loads((Path(checkout) / "seen.json").read_text())


def test_the_hypergraph_and_categories_go_in_and_labels_come_back(checkout, monkeypatch):
    # two attribute groups (rows along the first or the second axis); node 4 is in no
    # hyperedge of two members but is a node of the model all the same
    X = np.array([[2, 0], [1, 0.1], [0, 1], [0.1, 3], [0, 2]], dtype=float)
    hg = Hypergraph.from_edges([[1, 0], [2, 3, 1], [4]], features=X, weights=[1.0, 2.0, 5.0])
    est = HyperNEOPeer(2, gamma=0.5, checkout=checkout, random_state=3).fit(hg)
    got = seen(checkout)
    assert (got["N"], got["M"], got["Z"], got["K"], got["gamma"], got["seed"]) == (
        5, 2, 2, 2, 0.5, 3)
    assert got["E"] == [[0, 1], [1, 2, 3]] and got["A"] == [1, 2]
    codes = got["X"]
    assert codes[0] == codes[1] != codes[2] == codes[3] == codes[4]
    assert est.labels_.tolist() == [c % 2 for c in codes]
    assert est.memberships_.shape == (5, 2) and est.memberships_.max() == 4.0  # seed 3
    monkeypatch.setenv("HYPERNEO_DIR", checkout)
    assert make_peer("peer-hyperneo", 2).fit(hg).labels_.tolist() == est.labels_.tolist()


def test_without_attributes_one_category_and_gamma_zero(checkout):
    hg = Hypergraph.from_edges([[0, 1], [1, 2]])
    assert HyperNEOPeer(2, checkout=checkout).fit(hg).labels_.tolist() == [0, 0, 0]
    got = seen(checkout)
    assert got["Z"] == 1 and got["X"] == [0, 0, 0] and got["gamma"] == 0.0


def test_attribute_categories_are_label_free_groups_of_the_rows():
    rng = np.random.default_rng(0)
    centres = np.eye(3) * 5
    X = np.vstack([centres[g] + rng.normal(0, 0.3, (20, 3)) for g in range(3)])
    codes = attribute_categories(X, 3, seed=0)
    assert sorted(np.unique(codes).tolist()) == [0, 1, 2]
    for g in range(3):  # each planted group is one category
        assert np.unique(codes[20 * g:20 * (g + 1)]).size == 1
    # fewer distinct rows than categories asked: one category per distinct row
    assert np.unique(attribute_categories(np.array([[1.0, 0]] * 3 + [[0, 1.0]]), 4, 0)).size == 2


def test_without_a_checkout_or_pairs_it_says_so(monkeypatch, checkout):
    monkeypatch.delenv("HYPERNEO_DIR", raising=False)
    hg = Hypergraph.from_edges([[0, 1], [1, 2]], features=np.eye(3))
    with pytest.raises(MissingDependency, match="HYPERNEO_DIR"):
        HyperNEOPeer(2).fit(hg)
    with pytest.raises(ValueError, match="two or more members"):
        HyperNEOPeer(2, checkout=checkout).fit(Hypergraph.from_edges([[0], [1]],
                                                                     features=np.eye(2)))
    with pytest.raises(ValueError, match="gamma"):
        HyperNEOPeer(2, gamma=1.5, checkout=checkout).fit(hg)


def test_a_failing_run_says_why(checkout):
    (Path(checkout) / "hycosbm.py").write_text("raise SystemExit('bad input')")
    hg = Hypergraph.from_edges([[0, 1], [1, 2]], features=np.eye(3))
    with pytest.raises(RuntimeError, match="HyperNEO failed: bad input"):
        HyperNEOPeer(2, checkout=checkout).fit(hg)
