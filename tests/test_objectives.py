"""Label-free clustering objectives: dense references, known values, invariances."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from hyperclust.hypergraph import Hypergraph
from hyperclust.selection.objectives import (cluster_indicators, clustering_objectives, hypergraph_ncut,
                                   knn_conductance, rwr_conductance)
from hyperclust.operators.knn import knn_affinity

EDGES = [[0, 1, 2], [2, 3], [0, 3], [4, 5, 6], [6, 7], [4, 7], [1, 5], [3, 4, 8]]
WEIGHTS = [1, 2, 1, 1, 3, 1, 0.5, 1]


def _hg(features=True, n=10, seed=0):
    """Nodes 0-3 and 4-8 in two groups joined by two hyperedges; node 9 in no hyperedge."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4)) + np.where(np.arange(n) < 4, 1.5, -1.5)[:, None]
    return Hypergraph.from_edges(EDGES, n_nodes=n, weights=WEIGHTS,
                                 features=X if features else None)


def _dense_walk(hg, beta, K):
    """M built entry by entry from the definitions (reference)."""
    H = hg.incidence.toarray()
    w, de = hg.weights, H.sum(axis=0)
    dv = H @ w
    P = np.divide(H @ np.diag(w / de) @ H.T, dv[:, None], out=np.zeros((hg.n_nodes,) * 2),
                  where=dv[:, None] > 0)
    if hg.features is None:
        return P
    X = np.asarray(hg.features)
    Xn = X / np.linalg.norm(X, axis=1, keepdims=True)
    S = np.round(Xn @ Xn.T, 10)  # similarities as the search reports them (to_tie_grid)
    np.fill_diagonal(S, -np.inf)
    A = np.zeros_like(S)
    for i in range(S.shape[0]):
        nb = np.argsort(-S[i], kind="stable")[:K]
        A[i, nb] = np.maximum(S[i, nb], 0)
    A = A + A.T
    Q = A / A.sum(axis=1, keepdims=True)
    M = (1 - beta) * P + beta * Q
    M[dv == 0] = Q[dv == 0]
    return M


def _dense_rwr(M, labels, alpha, hops):
    k = labels.max() + 1
    Y = np.zeros((labels.size, k))
    for c in range(k):
        Y[labels == c, c] = 1 / np.sqrt((labels == c).sum())
    z = Y.copy()
    for _ in range(hops):
        z = alpha * Y + (1 - alpha) * M @ z
    return 1 - np.trace(Y.T @ z) / k


def _naive_ncut(hg, labels):
    terms = []
    for c in np.unique(labels):
        inside = set(np.flatnonzero(labels == c))
        cut = sum(w * len(inside & set(e)) * len(set(e) - inside) / len(e)
                  for e, w in zip(hg.edges(), hg.weights))
        vol = sum(hg.weighted_degrees[v] for v in inside)
        terms.append(cut / vol if vol > 0 else 1.0)
    return np.mean(terms)


LABELINGS = [np.array([0, 0, 0, 0, 1, 1, 1, 1, 1, 0]),
             np.array([0, 1, 2, 0, 1, 2, 0, 1, 2, 0]),
             np.array([2, 2, 0, 0, 1, 1, 1, 2, 0, 1])]


@pytest.mark.parametrize("features", [True, False])
@pytest.mark.parametrize("labels", LABELINGS)
def test_rwr_conductance_equals_dense_reference(features, labels):
    hg = _hg(features)
    M = _dense_walk(hg, 0.4, 3)
    for alpha, hops in [(0.2, 3), (0.5, 1), (0.1, 6)]:
        got = rwr_conductance(hg, labels, beta=0.4, alpha=alpha, n_hops=hops, n_neighbors=3)
        assert got == pytest.approx(_dense_rwr(M, labels, alpha, hops), abs=1e-12)


@pytest.mark.parametrize("labels", LABELINGS)
def test_ncut_equals_naive_and_trace_form(labels):
    hg = _hg()
    got = hypergraph_ncut(hg, labels)
    assert got == pytest.approx(_naive_ncut(hg, labels), abs=1e-12)
    # trace form on the covered nodes: 1 - tr(Y_D^T Theta Y_D)/k, Y_D = D^1/2 1_c / sqrt(vol c)
    H = hg.incidence.toarray()
    dv = H @ hg.weights
    s = np.divide(1, np.sqrt(dv), out=np.zeros_like(dv), where=dv > 0)
    Theta = s[:, None] * (H @ np.diag(hg.weights / H.sum(0)) @ H.T) * s[None, :]
    tr, k = 0.0, len(np.unique(labels))
    for c in np.unique(labels):
        y = np.sqrt(dv) * (labels == c)
        tr += y @ Theta @ y / (y @ y)
    assert got == pytest.approx(1 - tr / k, abs=1e-12)


@pytest.mark.parametrize("labels", LABELINGS)
def test_knn_conductance_equals_dense_reference(labels):
    hg = _hg()
    A = knn_affinity(hg.features, 3).toarray()
    ref = np.mean([1 - A[np.ix_(labels == c, labels == c)].sum() / A[labels == c].sum()
                   for c in np.unique(labels)])
    assert knn_conductance(hg, labels, n_neighbors=3) == pytest.approx(ref, abs=1e-12)


def test_known_values():
    # two disconnected hyperedges, each its own cluster: nothing leaves anything
    hg = Hypergraph.from_edges([[0, 1, 2], [3, 4]], n_nodes=5)
    y = np.array([0, 0, 0, 1, 1])
    assert hypergraph_ncut(hg, y) == 0.0
    assert rwr_conductance(hg, y) == pytest.approx(0.0, abs=1e-15)
    # one hyperedge split in halves: vol(boundary) / vol = (2*2/4) / 2 = 1/2 for both halves
    hg = Hypergraph.from_edges([[0, 1, 2, 3]], n_nodes=4)
    assert hypergraph_ncut(hg, np.array([0, 0, 1, 1])) == pytest.approx(0.5)
    # the walk stays with probability 1/2 per step: z_1 = .2 Y + .8 * 1/2 ... -> 1 - (0.2 + 0.8/2)
    assert rwr_conductance(hg, np.array([0, 0, 1, 1]), n_hops=1) == pytest.approx(0.4)
    # a cluster made only of a node in no hyperedge counts as fully cut
    hg = Hypergraph.from_edges([[0, 1]], n_nodes=3)
    assert hypergraph_ncut(hg, np.array([0, 0, 1])) == pytest.approx(0.5)


def test_invariant_under_node_relabelling_and_cluster_permutation():
    rng = np.random.default_rng(5)
    hg = _hg(n=10)
    y = LABELINGS[2]
    base = clustering_objectives(hg, y, n_neighbors=3)
    perm = rng.permutation(10)  # new id of old node i is inv[i]
    inv = np.argsort(perm)
    hg2 = Hypergraph.from_edges([[inv[v] for v in e] for e in EDGES], n_nodes=10,
                                weights=WEIGHTS, features=np.asarray(hg.features)[perm])
    moved = clustering_objectives(hg2, y[perm], n_neighbors=3)
    renamed = clustering_objectives(hg, np.array([7, 3, 11])[y], n_neighbors=3)
    for key in ("rwr", "ncut", "knn"):
        assert moved[key] == pytest.approx(base[key], abs=1e-12)
        assert renamed[key] == pytest.approx(base[key], abs=1e-12)
    assert clustering_objectives(_hg(False), y)["knn"] is None


def test_objectives_rank_the_planted_partition_first():
    from hyperclust.datasets.synthetic import hypergraph_sbm

    hg = hypergraph_sbm(400, 4, homophily=0.9, feature_snr=1.0, random_state=0)
    truth = np.asarray(hg.labels)
    rng = np.random.default_rng(0)
    noisy = truth.copy()
    flip = rng.random(400) < 0.3
    noisy[flip] = rng.integers(4, size=flip.sum())
    rand = rng.integers(4, size=400)
    for key in ("rwr", "ncut", "knn"):
        vals = [clustering_objectives(hg, y)[key] for y in (truth, noisy, rand)]
        assert vals[0] < vals[1] < vals[2], (key, vals)


def test_cluster_indicators_orthonormal():
    Y = cluster_indicators(np.array([3, 3, 9, 3, 9, 1]))
    assert sp.issparse(Y) and Y.shape == (6, 3)
    np.testing.assert_allclose((Y.T @ Y).toarray(), np.eye(3))


def test_bad_parameters():
    hg = _hg()
    y = LABELINGS[0]
    with pytest.raises(ValueError, match="labels must have shape"):
        rwr_conductance(hg, y[:5])
    with pytest.raises(TypeError, match="labels must be integers"):
        hypergraph_ncut(hg, np.array(["a"] * 10))
    with pytest.raises(ValueError, match="alpha"):
        rwr_conductance(hg, y, alpha=0.0)
    with pytest.raises(ValueError, match="n_hops"):
        rwr_conductance(hg, y, n_hops=-1)
    with pytest.raises(ValueError, match="beta"):
        rwr_conductance(hg, y, beta=2.0)
    with pytest.raises(ValueError, match="needs node features"):
        knn_conductance(_hg(False), y)
    with pytest.raises(TypeError, match="Hypergraph"):
        hypergraph_ncut(np.eye(3), y)


def test_min_balance_penalises_a_giant_cluster_only():
    hg = _hg()
    y = LABELINGS[1]  # three clusters, none above half of the nodes: identical to "mean"
    assert rwr_conductance(hg, y, balance="min", n_neighbors=3) == pytest.approx(
        rwr_conductance(hg, y, n_neighbors=3))
    hg = Hypergraph.from_edges([[0, 1, 2], [2, 3], [3, 4]], n_nodes=5)
    y = np.array([0, 0, 0, 0, 1])  # the giant cluster's leak is scaled by 4 / 1
    H = hg.incidence.toarray()
    dv = H @ hg.weights
    M = (H / H.sum(0)) @ H.T / dv[:, None]
    Y = np.stack([(y == c) / np.sqrt((y == c).sum()) for c in (0, 1)], axis=1)
    z = Y.copy()
    for _ in range(3):
        z = 0.2 * Y + 0.8 * M @ z
    leak = 1 - np.sum(Y * z, axis=0)
    assert rwr_conductance(hg, y, balance="min") == pytest.approx((4 * leak[0] + leak[1]) / 2)
    with pytest.raises(ValueError, match="balance"):
        rwr_conductance(hg, y, balance="max")


@pytest.mark.parametrize("labels", [
    np.random.default_rng(0).integers(0, 7, 500),          # dense ids: counted
    np.random.default_rng(1).integers(-5, 3, 50),          # negative ids
    np.random.default_rng(2).integers(0, 10**9, 40),       # sparse ids: sorted
    np.array([10**12, 3, 3, 10**12]),
])
def test_label_codes_equal_sorted_unique(labels):
    from hyperclust.selection.objectives import _dense_codes

    codes, counts = _dense_codes(labels)
    _, inv, ref_counts = np.unique(labels, return_inverse=True, return_counts=True)
    assert np.array_equal(codes, inv) and np.array_equal(counts, ref_counts)


@pytest.mark.parametrize("seed", range(5))
def test_sizes_are_degenerate_is_is_degenerate_on_the_sizes(seed):
    """The rule from cluster sizes alone (summed over blocks) answers as the labels do,
    at the threshold's edge too: k = 2 flags a largest share above ~86%."""
    from hyperclust.selection.objectives import is_degenerate, sizes_are_degenerate

    rng = np.random.default_rng(seed)
    for _ in range(50):
        k = int(rng.integers(2, 8))
        labels = rng.choice(k, size=int(rng.integers(1, 300)),
                            p=rng.dirichlet(np.full(k, rng.choice([0.1, 1.0, 10.0]))))
        sizes = np.bincount(labels, minlength=k + 2)   # zero-sized clusters are ignored
        assert sizes_are_degenerate(sizes, k) == is_degenerate(labels, k)
    assert sizes_are_degenerate([85, 15], 2) is False and sizes_are_degenerate([87, 13], 2)
    assert sizes_are_degenerate([0, 0], 3)
