"""``peer-hymmsbm``: our side of running the public Hy-MMSBM code (its input files, the
labels read back), checked with a stand-in checkout whose ``main_inference.py`` writes a
known membership matrix."""

from __future__ import annotations

import numpy as np
import pytest

import hyperclust.bench  # noqa: F401  (registers the peers)
from hyperclust import Hypergraph
from hyperclust.bench.peer_hymmsbm import HyMMSBMPeer, write_hyperedges
from hyperclust.bench.peers import make_peer
from hyperclust.cluster.registry import MissingDependency

# A stand-in for the public main_inference.py: checks the arguments it is given, reads the
# hyperedge file and writes u with one row per node id up to the largest one it saw, the
# membership of node i in cluster (i % K), or none for node 1.
STAND_IN = r'''
import argparse, pathlib, numpy as np
p = argparse.ArgumentParser()
for a in ("--K", "--seed"):
    p.add_argument(a, type=int)
for a in ("--hyperedge_file", "--weight_file", "--out_dir"):
    p.add_argument(a)
args = p.parse_args()
rows = [list(map(int, l.split())) for l in open(args.hyperedge_file) if l.strip()]
n = max(max(r) for r in rows) + 1
u = np.zeros((n, args.K))
u[np.arange(n), np.arange(n) % args.K] = 1.0 + args.seed
u[1] = 0.0
out = pathlib.Path(args.out_dir)
np.savetxt(out / "inferred_u.txt", u)
np.savetxt(out / "inferred_w.txt", np.eye(args.K))
'''


@pytest.fixture()
def checkout(tmp_path):
    (tmp_path / "main_inference.py").write_text(STAND_IN)
    return str(tmp_path)


def test_labels_are_the_argmax_and_minus_one_where_it_gives_none(checkout, monkeypatch):
    # node 5 is in no hyperedge of two members (past the largest id it sees); node 1 gets no
    # membership from the stand-in
    hg = Hypergraph.from_edges([[0, 1, 2], [3, 4], [5]])
    est = HyMMSBMPeer(2, checkout=checkout, random_state=3).fit(hg)
    assert est.labels_.tolist() == [0, -1, 0, 1, 0, -1]
    assert est.memberships_.shape == (6, 2) and est.memberships_[0, 0] == 4.0  # seed 3 passed
    monkeypatch.setenv("HYMMSBM_DIR", checkout)
    assert make_peer("peer-hymmsbm", 2).fit(hg).labels_.tolist() == [0, -1, 0, 1, 0, -1]


def test_its_input_files(tmp_path):
    hg = Hypergraph.from_edges([[3, 0], [2], [1, 2, 0]], weights=[2.0, 5.0, 0.5])
    hye, weights = write_hyperedges(hg, tmp_path)
    assert hye.read_text() == "0 3\n0 1 2\n"
    assert np.loadtxt(weights).tolist() == [2.0, 0.5]


def test_without_a_checkout_it_is_a_missing_dependency(tmp_path, monkeypatch):
    monkeypatch.delenv("HYMMSBM_DIR", raising=False)
    hg = Hypergraph.from_edges([[0, 1], [1, 2]])
    with pytest.raises(MissingDependency, match="HYMMSBM_DIR"):
        HyMMSBMPeer(2).fit(hg)
    with pytest.raises(MissingDependency, match="no main_inference.py"):
        HyMMSBMPeer(2, checkout=str(tmp_path)).fit(hg)


def test_a_failing_run_says_why(tmp_path):
    (tmp_path / "main_inference.py").write_text("raise SystemExit('bad input')")
    with pytest.raises(RuntimeError, match="Hy-MMSBM failed: bad input"):
        HyMMSBMPeer(2, checkout=str(tmp_path)).fit(Hypergraph.from_edges([[0, 1], [1, 2]]))
