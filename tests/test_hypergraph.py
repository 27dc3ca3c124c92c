import numpy as np
import pytest
import scipy.sparse as sp

from hyperclust import Hypergraph


def small():
    # 0-1-2 share a hyperedge, 2-3 appear twice (duplicate), 4 alone (singleton), 5, 6 isolated
    return Hypergraph.from_edges([[0, 1, 2], [2, 3], [3, 2], [4], [1, 1, 0]], n_nodes=7,
                                 labels=[0, 0, 0, 1, 1, 1, 1], duplicates="merge")


def test_from_edges_cleaning_counts():
    hg = small()
    assert hg.shape == (7, 4)
    c = hg.cleaning
    assert c.repeated_members_collapsed == 1
    assert c.duplicate_edges == 1
    assert c.singleton_edges == 1
    np.testing.assert_array_equal(hg.weights, [1.0, 2.0, 1.0, 1.0])  # merged weight summed
    assert [e.tolist() for e in hg.edges()] == [[0, 1, 2], [2, 3], [4], [0, 1]]
    np.testing.assert_array_equal(hg.isolated, [0, 0, 0, 0, 0, 1, 1])
    np.testing.assert_array_equal(hg.node_degrees, [2, 2, 2, 1, 1, 0, 0])
    np.testing.assert_array_equal(hg.weighted_degrees, [2, 2, 3, 2, 1, 0, 0])


def test_duplicate_and_singleton_options():
    edges = [[0, 1], [1, 0], [2]]
    keep = Hypergraph.from_edges(edges, edge_ids=["a", "b", "c"], weights=[2.0, 3.0, 1.0])
    assert keep.n_edges == 3 and keep.cleaning.duplicate_edges == 1  # the default keeps
    assert keep.edge_ids.tolist() == ["a", "b", "c"] and keep.weights.tolist() == [2, 3, 1]
    assert keep.cleaning.duplicate_policy == "keep"
    merged = Hypergraph.from_edges(edges, edge_ids=["a", "b", "c"], weights=[2.0, 3.0, 1.0],
                                   duplicates="merge")
    assert merged.edge_ids.tolist() == ["a", "c"] and merged.weights.tolist() == [5, 1]
    drop = Hypergraph.from_edges(edges, duplicates="drop", weights=[2.0, 3.0, 1.0])
    np.testing.assert_array_equal(drop.weights, [2.0, 1.0])
    nos = Hypergraph.from_edges(edges, singletons="drop", duplicates="merge")
    assert nos.n_edges == 1 and nos.n_nodes == 3
    assert nos.isolated.tolist() == [False, False, True]
    assert Hypergraph.from_edges([[0, 1], []]).cleaning.empty_edges_dropped == 1
    with pytest.raises(ValueError, match="empty"):
        Hypergraph.from_edges([[0, 1], []], empty="error")
    with pytest.raises(ValueError, match="duplicates must be"):
        Hypergraph.from_edges(edges, duplicates="nope")


def test_constructors_agree():
    edges = [[0, 1, 2], [2, 3]]
    a = Hypergraph.from_edges(edges)
    b = Hypergraph.from_pairs([0, 1, 2, 2, 3], [0, 0, 0, 1, 1])
    dense = np.array([[1, 0], [1, 0], [1, 1], [0, 1]])
    c = Hypergraph.from_incidence(dense)
    d = Hypergraph.from_incidence(sp.csr_matrix(dense))
    for other in (b, c, d):
        assert (a.incidence != other.incidence).nnz == 0


@pytest.mark.parametrize("edges, n, match", [
    ([[0, 5]], 3, "out of range"),
    ([[0, -1]], 3, "non-negative"),  # positions (n_nodes given) are never negative
    ([[0, 1.5]], None, "integers"),
    ([5], None, "collection"),
])
def test_bad_node_ids(edges, n, match):
    with pytest.raises((ValueError, TypeError), match=match):
        Hypergraph.from_edges(edges, n_nodes=n)


def test_bad_attributes():
    edges = [[0, 1], [1, 2]]
    with pytest.raises(ValueError, match="features has 2 rows"):
        Hypergraph.from_edges(edges, n_nodes=3, features=np.ones((2, 4)))
    with pytest.raises(ValueError, match="rows of features"):
        Hypergraph.from_edges(edges, features=np.ones((2, 4)))
    with pytest.raises(ValueError, match="NaN/inf"):
        Hypergraph.from_edges(edges, features=np.array([[1.0], [np.nan], [0.0]]))
    with pytest.raises(ValueError, match="NaN/inf"):
        Hypergraph.from_edges(edges, features=sp.csr_matrix(np.array([[1.0], [np.inf], [0.0]])))
    with pytest.raises(ValueError, match="NaN/inf"):
        Hypergraph.from_edges(edges, weights=[1.0, np.nan])
    with pytest.raises(ValueError, match="positive"):
        Hypergraph.from_edges(edges, weights=[1.0, 0.0])
    with pytest.raises(ValueError, match="positive"):
        Hypergraph.from_edges(edges, weights=[-1.0, 1.0])
    with pytest.raises(ValueError, match="labels has length 2"):
        Hypergraph.from_edges(edges, n_nodes=3, labels=[0, 1])
    with pytest.raises(ValueError, match="weights has length"):
        Hypergraph.from_edges(edges, weights=[1.0])
    with pytest.raises(ValueError, match="negative"):
        Hypergraph.from_incidence(np.array([[1, -1], [1, 1]]))


def test_immutable():
    hg = small()
    with pytest.raises(AttributeError):
        hg.foo = 1
    with pytest.raises(ValueError):
        hg.weights[0] = 5.0
    with pytest.raises(ValueError):
        hg.incidence.data[0] = 5.0


def test_homophily_known_values():
    hg = small()
    h = hg.homophily()
    # edges {0,1,2}: 1, {2,3}: 0, {0,1}: 1 (singleton {4} has no pair)
    assert h["pairwise"] == pytest.approx(2 / 3)
    assert h["majority"] == pytest.approx((1 + 0.5 + 1) / 3)
    # class shares 3/7, 4/7
    assert h["pairwise_random"] == pytest.approx((3 / 7) ** 2 + (4 / 7) ** 2)
    # node shares with multiplicity: 0: nbrs 1,2,1 -> 1; 1: 0,2,0 -> 1; 2: 0,1,3,3 (w merged
    # edge counted once in H) -> 0,1,3 -> 2/3; 3: 2 -> 0 ; 4: no neighbour (excluded)
    assert h["node"] == pytest.approx((1 + 1 + 2 / 3 + 0) / 4)


def test_heterophilic_example():
    hg = Hypergraph.from_edges([[0, 1], [2, 3], [0, 3]], labels=[0, 1, 0, 1])
    h = hg.homophily()
    assert h["pairwise"] == 0.0 and h["node"] == 0.0


def test_components_and_subset():
    hg = small()
    n_comp, comp = hg.connected_components()
    assert n_comp == 4  # {0,1,2,3}, {4}, {5}, {6}
    assert len(set(comp[[0, 1, 2, 3]])) == 1 and comp[0] == 0
    s = hg.summary()
    assert s["components"] == 4 and s["components_covered"] == 2 and s["isolated_nodes"] == 2
    lcc = hg.largest_component()
    assert lcc.n_nodes == 4
    np.testing.assert_array_equal(lcc.parent_positions, [0, 1, 2, 3])
    sub = hg.drop_isolated().subset([3, 4])
    np.testing.assert_array_equal(sub.parent_positions, [3, 4])
    np.testing.assert_array_equal(sub.labels, [1, 1])
    assert sub.n_edges == 2  # {3} (from {2,3}) and {4}


def test_relabelling_invariance_of_stats():
    rng = np.random.default_rng(0)
    edges = [rng.choice(30, size=rng.integers(2, 6), replace=False) for _ in range(40)]
    y = rng.integers(0, 3, 30)
    hg = Hypergraph.from_edges(edges, n_nodes=30, labels=y)
    perm = rng.permutation(30)
    inv = np.argsort(perm)  # new id of old node i is inv[i]
    hg2 = Hypergraph.from_edges([inv[e] for e in edges], n_nodes=30, labels=y[perm])
    for key, val in hg.homophily().items():
        assert hg2.homophily()[key] == pytest.approx(val)
    assert hg.connected_components()[0] == hg2.connected_components()[0]


def test_replace():
    hg = small()
    h2 = hg.replace(features=np.eye(7))
    assert h2.features.shape == (7, 7) and hg.features is None
    with pytest.raises(TypeError):
        hg.replace(incidence=None)


def test_original_ids_is_a_deprecated_name_of_parent_positions():
    sub = small().subset([3, 4, 6])
    with pytest.warns(DeprecationWarning, match="parent_positions"):
        np.testing.assert_array_equal(sub.original_ids, sub.parent_positions)
    with pytest.warns(DeprecationWarning, match="parent_positions"):
        old = Hypergraph(sub.incidence, original_ids=[7, 8, 9])
    np.testing.assert_array_equal(old.parent_positions, [7, 8, 9])


def test_complex_features_are_refused_and_bool_features_are_zero_one():
    edges = [[0, 1], [1, 2]]
    with pytest.raises(TypeError, match="complex"):
        Hypergraph.from_edges(edges, features=np.array([[1 + 1j], [2], [3]]))
    with pytest.raises(TypeError, match="complex"):
        Hypergraph.from_edges(edges, features=sp.csr_matrix(np.array([[1j], [0], [1]])))
    X = Hypergraph.from_edges(edges, features=np.array([[True], [False], [True]])).features
    assert X.dtype == np.float64 and X.ravel().tolist() == [1.0, 0.0, 1.0]
