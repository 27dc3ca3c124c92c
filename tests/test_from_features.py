"""hypergraph_from_features: the kNN and the attribute-value constructions."""

import numpy as np
import pytest
import scipy.sparse as sp

from hyperclust.datasets import hypergraph_from_features


def edge_set(hg, perm=None):
    edges = hg.edges()
    if perm is not None:
        edges = [perm[e] for e in edges]
    return sorted(tuple(sorted(e.tolist())) for e in edges)


def test_knn_hyperedges_equal_brute_force_neighbours():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 5))
    hg = hypergraph_from_features(X, construction="knn", n_neighbors=3)
    U = X / np.linalg.norm(X, axis=1, keepdims=True)
    S = U @ U.T
    np.fill_diagonal(S, -np.inf)
    expected = sorted(set(tuple(sorted([i, *np.argsort(-S[i])[:3].tolist()]))
                          for i in range(40)))
    assert edge_set(hg) == expected
    assert np.array_equal(hg.features, X)


def test_values_bins_quantiles_and_keeps_ties_together():
    x = np.array([5.0, 1.0, 7.0, 3.0, 2.0, 8.0, 4.0, 6.0])     # quartiles {1,2} {3,4} {5,6} {7,8}
    hg = hypergraph_from_features(x[:, None], construction="values", n_bins=4)
    assert edge_set(hg) == [(0, 7), (1, 4), (2, 5), (3, 6)]
    tied = np.array([[1.0], [1.0], [1.0], [2.0], [3.0], [4.0]])
    hg = hypergraph_from_features(tied, construction="values", n_bins=2)
    # the three tied rows share a bin even though the bin then holds more than half
    assert edge_set(hg) == [(0, 1, 2), (3, 4, 5)]


def test_values_categorical_columns_keep_their_values():
    X = np.array([[0, 2], [1, 2], [0, 3], [2, 3], [1, 2]])
    hg = hypergraph_from_features(X, construction="values", n_bins=4)
    assert edge_set(hg) == [(0, 1, 4), (0, 2), (1, 4), (2, 3)]
    # (3,) of value 2 in column 0 is a singleton: dropped


def test_values_on_a_sparse_matrix_is_one_hyperedge_per_column():
    X = sp.csr_matrix(np.array([[1, 0, 2], [0, 0, 1], [3, 0, 0], [1, 1, 0]]))
    hg = hypergraph_from_features(X, construction="values")
    assert edge_set(hg) == [(0, 1), (0, 2, 3)]   # column 1 has one member: dropped


def test_values_construction_is_equivariant_under_row_permutation():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 5, size=(30, 4)).astype(float)
    perm = rng.permutation(30)
    a = hypergraph_from_features(X, construction="values", n_bins=3)
    b = hypergraph_from_features(X[perm], construction="values", n_bins=3)
    # row r of X[perm] is node perm[r] of X
    assert edge_set(b, perm) == edge_set(a)


def test_labels_are_kept_and_bad_input_gives_one_line_errors():
    X = np.arange(12.0).reshape(6, 2)
    hg = hypergraph_from_features(X, labels=[0, 0, 0, 1, 1, 1], n_neighbors=2)
    assert hg.labels.tolist() == [0, 0, 0, 1, 1, 1]
    with pytest.raises(ValueError, match="construction"):
        hypergraph_from_features(X, construction="clique")
    with pytest.raises(ValueError, match="NaN"):
        hypergraph_from_features(np.array([[1.0], [np.nan]]))
    with pytest.raises(ValueError, match="2-d"):
        hypergraph_from_features(np.ones(5))
    with pytest.raises(TypeError, match="numeric"):
        hypergraph_from_features(np.array([["a"], ["b"]]))
    with pytest.raises(ValueError, match="n_bins"):
        hypergraph_from_features(X, construction="values", n_bins=1)
