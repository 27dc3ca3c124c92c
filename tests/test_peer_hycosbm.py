"""``peer-hycosbm``: our side of running the public HyCoSBM code (its input files and
arguments, the labels read back), checked with a stand-in checkout whose
``main_inference.py`` checks what it is given and writes a known membership matrix."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import hyperclust.bench  # noqa: F401  (registers the peers)
from hyperclust import Hypergraph
from hyperclust.bench.peer_hycosbm import HyCoSBMPeer, write_attributes
from hyperclust.bench.peers import make_peer
from hyperclust.cluster.registry import MissingDependency

# A stand-in for the public main_inference.py: reads the hyperedges and the attribute columns
# it is named, one-hot encodes them as HyCoSBM does, and writes u: node i in cluster
# (its first attribute's category) % K, scaled by 1 + seed; it also writes what it was given.
STAND_IN = r'''
import argparse, json, pathlib, numpy as np, pandas as pd
p = argparse.ArgumentParser()
for a in ("--K", "--seed", "--training_rounds"):
    p.add_argument(a, type=int)
for a in ("--hyperedge_file", "--weight_file", "--out_dir", "--attribute_file", "--gamma"):
    p.add_argument(a, default="")
p.add_argument("--attribute_names", nargs="+", default=[])
args = p.parse_args()
rows = [list(map(int, l.split())) for l in open(args.hyperedge_file) if l.strip()]
n = max(max(r) for r in rows) + 1
u = np.zeros((n, args.K))
if args.attribute_file:
    df = pd.read_csv(args.attribute_file)
    X = np.hstack([pd.get_dummies(df[a], dtype=int).to_numpy() for a in args.attribute_names])
    assert X.shape[0] == n, (X.shape, n)  # HyCoSBM needs one attribute row per node it sees
    u[np.arange(n), df[args.attribute_names[0]].to_numpy().astype(int) % args.K] = 1 + args.seed
else:
    u[:, 0] = 1.0
out = pathlib.Path(args.out_dir)
np.savetxt(out / "inferred_u.txt", u)
seen = {"gamma": args.gamma, "rounds": args.training_rounds, "names": args.attribute_names}
pathlib.Path(__file__).with_name("seen.json").write_text(json.dumps(seen))
'''


@pytest.fixture()
def checkout(tmp_path):
    (tmp_path / "main_inference.py").write_text(STAND_IN)
    return str(tmp_path)


def test_the_attributes_go_in_and_labels_come_back(checkout, monkeypatch):
    # node 4 is in no hyperedge of two members: past the largest id it sees, so no attribute
    # row is written for it and its label is -1
    X = np.array([[2, 0], [1, 1], [0, 1], [1, 0], [2, 2]], dtype=float)
    hg = Hypergraph.from_edges([[0, 1], [2, 3], [4]], features=X)
    est = HyCoSBMPeer(3, gamma=0.5, checkout=checkout, random_state=2).fit(hg)
    assert est.labels_.tolist() == [2, 1, 0, 1, -1]
    assert est.memberships_.shape == (5, 3) and est.memberships_[0, 2] == 3.0  # seed 2
    seen = json.loads((Path(checkout) / "seen.json").read_text())
    assert seen == {"gamma": "0.5", "rounds": 1, "names": ["a0", "a1"]}
    monkeypatch.setenv("HYCOSBM_DIR", checkout)
    assert make_peer("peer-hycosbm", 3).fit(hg).labels_.tolist() == [2, 1, 0, 1, -1]


def test_without_attributes_it_runs_with_gamma_zero(checkout):
    hg = Hypergraph.from_edges([[0, 1], [1, 2]])
    assert HyCoSBMPeer(2, checkout=checkout).fit(hg).labels_.tolist() == [0, 0, 0]


def test_its_attribute_file(tmp_path):
    path, names = write_attributes(np.array([[1.0, 0.25], [3.0, 0.0], [5.0, 1.0]]), 2, tmp_path)
    assert path.read_text() == "a0,a1\n1,0.25\n3,0\n"
    assert names == ["a0", "a1"]


def test_without_a_checkout_or_pairs_it_says_so(monkeypatch, checkout):
    monkeypatch.delenv("HYCOSBM_DIR", raising=False)
    hg = Hypergraph.from_edges([[0, 1], [1, 2]], features=np.eye(3))
    with pytest.raises(MissingDependency, match="HYCOSBM_DIR"):
        HyCoSBMPeer(2).fit(hg)
    with pytest.raises(ValueError, match="two or more members"):
        HyCoSBMPeer(2, checkout=checkout).fit(Hypergraph.from_edges([[0], [1]],
                                                                    features=np.eye(2)))
    with pytest.raises(ValueError, match="gamma"):
        HyCoSBMPeer(2, gamma=1.5, checkout=checkout).fit(hg)


def test_a_failing_run_says_why(tmp_path):
    (tmp_path / "main_inference.py").write_text("raise SystemExit('bad attributes')")
    hg = Hypergraph.from_edges([[0, 1], [1, 2]], features=np.eye(3))
    with pytest.raises(RuntimeError, match="HyCoSBM failed: bad attributes"):
        HyCoSBMPeer(2, checkout=str(tmp_path)).fit(hg)
