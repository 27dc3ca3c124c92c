"""The downward closure builder: known face counts, faces equal to a brute-force closure,
boundary maps that square to zero, a PSD graded Laplacian and S_eps, the face budget, and
the collapsed closure as a registered operator."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from hyperclust import Hypergraph
from hyperclust.cluster import make_estimator
from hyperclust.operators.closure import (closure_boundaries, closure_collapsed, closure_complex,
                                          closure_face_bound, downward_closure)


def random_hypergraph(seed, n=30, m=25, max_size=6):
    rng = np.random.default_rng(seed)
    edges = [list(rng.choice(n, size=int(rng.integers(1, max_size + 1)), replace=False))
             for _ in range(m)]
    return Hypergraph.from_edges(edges, n_nodes=n + 3)        # 3 isolated nodes


def brute_force_faces(hg, max_grade):
    faces = [set() for _ in range(max_grade + 1)]
    for e in hg.edges():
        for g in range(1, max_grade + 1):
            faces[g].update(combinations(sorted(int(v) for v in e), g + 1))
    return [sorted(f) for f in faces[1:]]


def test_face_counts_of_hand_made_inputs():
    one = downward_closure(Hypergraph.from_edges([[0, 1, 2, 3]]), 3)
    assert [f.shape[0] for f in one] == [4, 6, 4, 1]              # C(4, g + 1): 2^4 - 1 = 15
    shared = downward_closure(Hypergraph.from_edges([[0, 1, 2], [1, 2, 3], [3, 4]]), 2)
    assert [f.shape[0] for f in shared] == [5, 6, 2]              # edge 12 counted once
    assert shared[2].tolist() == [[0, 1, 2], [1, 2, 3]]
    assert closure_face_bound(Hypergraph.from_edges([[0, 1, 2], [1, 2, 3], [3, 4]]), 2).tolist() \
        == [5, 7, 2]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_faces_equal_the_brute_force_closure(seed):
    hg = random_hypergraph(seed)
    faces = downward_closure(hg, 3)
    assert [list(map(tuple, f.tolist())) for f in faces[1:]] == brute_force_faces(hg, 3)
    assert faces[0].ravel().tolist() == list(range(hg.n_nodes))


@pytest.mark.parametrize("seed", [0, 1])
def test_boundaries_square_to_zero_and_laplacian_is_psd(seed):
    hg = random_hypergraph(seed)
    maps = closure_boundaries(downward_closure(hg, 3))
    for low, high in zip(maps, maps[1:]):
        assert abs(low @ high).sum() == 0
    assert all(np.all(np.abs(B.data) == 1) for B in maps)
    cx = closure_complex(hg, 3, eps=1e-2)
    L = cx.laplacian().toarray()
    assert np.linalg.eigvalsh(L).min() > -1e-10
    S = cx.collapsed(eps=1e-2).to_dense()
    w = np.linalg.eigvalsh(S)
    assert w.min() > -1e-10
    assert int(np.sum(w < 1e-9)) == hg.connected_components()[0]   # one zero per component


def test_each_face_has_its_facets_with_alternating_signs():
    maps = closure_boundaries(downward_closure(Hypergraph.from_edges([[0, 1, 2, 3]]), 3))
    for g, B in enumerate(maps, start=1):
        counts = np.diff(B.tocsc().indptr)
        assert np.all(counts == g + 1)
    B3 = maps[2].toarray().ravel()               # faces 012, 013, 023, 123 of 0123
    assert B3.tolist() == [-1.0, 1.0, -1.0, 1.0]


def test_the_face_budget_is_a_one_line_error():
    hg = Hypergraph.from_edges([list(range(40))])
    with pytest.raises(ValueError, match=r"^the downward closure up to grade 3 has up to "
                                         r"[\d,]+ faces, over max_faces=10,000; lower") as err:
        downward_closure(hg, 3, max_faces=10_000)
    assert "\n" not in str(err.value)
    with pytest.raises(ValueError, match="max_grade must be a positive integer"):
        downward_closure(hg, 0)
    # 40 nodes: each of the 780 edges lies in 38 triangles, 780 * 38^2 = 1,126,320 nonzeros
    with pytest.raises(ValueError, match=r"^the closure's grade-2 block B_2\^T B_2 has up to "
                                         r"1,126,320 nonzeros, over max_block_nnz=1,000,000"):
        closure_complex(hg, 2, max_block_nnz=1_000_000)


def test_collapsed_closure_clusters_two_planted_groups():
    """Two dense groups joined by one hyperedge: the registered method separates them."""
    rng = np.random.default_rng(0)
    edges = [list(rng.choice(10, 3, replace=False)) for _ in range(25)]
    edges += [list(10 + rng.choice(10, 3, replace=False)) for _ in range(25)] + [[9, 10]]
    hg = Hypergraph.from_edges(edges)
    labels = make_estimator("spectral-collapsed-closure", 2).fit(hg).labels_
    assert len(set(labels[:10])) == 1 and len(set(labels[10:])) == 1 and labels[0] != labels[10]
    S = closure_collapsed(hg)
    vals, _ = S.smallest_eigenpairs(3)
    assert abs(vals[0]) < 1e-12 and vals[1] > 1e-6
