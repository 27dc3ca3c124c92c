import numpy as np
import pytest

from hyperclust.datasets.synthetic import hypergraph_sbm, min_pairwise_rate


def test_min_pairwise_rate():
    assert min_pairwise_rate(2, 4) == 0.0
    assert min_pairwise_rate(4, 4) == 0.0
    # 5 members over 4 classes: counts 2,1,1,1 -> 1 same pair of 10
    assert min_pairwise_rate(5, 4) == pytest.approx(0.1)


@pytest.mark.parametrize("h", [0.0, 0.1, 0.25, 0.5, 0.8, 1.0])
def test_measured_rate_follows_knob(h):
    hg = hypergraph_sbm(3000, 4, homophily=h, edge_sizes=(2, 4), random_state=3)
    measured = hg.homophily()["pairwise"]
    assert measured == pytest.approx(h, abs=0.03)


def test_low_end_is_heterophilic_not_random():
    hg = hypergraph_sbm(3000, 4, homophily=0.05, edge_sizes=(2, 4), random_state=0)
    hom = hg.homophily()
    assert hom["pairwise"] < 0.5 * hom["pairwise_random"]
    assert hom["node"] < 0.5 * hom["pairwise_random"]


def test_seeded_and_shapes():
    a = hypergraph_sbm(500, 3, homophily=0.7, n_features=8, isolated_fraction=0.1, random_state=5)
    b = hypergraph_sbm(500, 3, homophily=0.7, n_features=8, isolated_fraction=0.1, random_state=5)
    assert (a.incidence != b.incidence).nnz == 0
    np.testing.assert_array_equal(a.features, b.features)
    assert a.features.shape == (500, 8)
    assert a.isolated.sum() >= 50  # 50 left out, plus any node no hyperedge drew
    assert np.bincount(a.labels).tolist() == [167, 167, 166]
    assert a.cleaning.repeated_members_collapsed == 0


def test_feature_snr_controls_signal():
    from hyperclust.cluster.baselines import KMeansFeatures
    from hyperclust.metrics import acc

    strong = hypergraph_sbm(600, 3, n_features=16, feature_snr=2.0, random_state=0)
    none = hypergraph_sbm(600, 3, n_features=16, feature_snr=0.0, random_state=0)
    assert acc(strong.labels, KMeansFeatures(3).fit_predict(strong)) > 0.95
    assert acc(none.labels, KMeansFeatures(3).fit_predict(none)) < 0.5


def test_bad_parameters():
    with pytest.raises(ValueError, match="homophily"):
        hypergraph_sbm(100, 2, homophily=1.5)
    with pytest.raises(ValueError, match="n_classes"):
        hypergraph_sbm(10, 1)
    with pytest.raises(ValueError, match="lo <= hi"):
        hypergraph_sbm(100, 2, edge_sizes=(5, 2))


def _views(agreement, noise=None, seed=0):
    from hyperclust.datasets.synthetic import two_view_sbm

    return [two_view_sbm(900, 3, agreement=agreement, classes=c, noise=noise, random_state=seed)
            for c in ("edges", "features")]


def _centroid_share(hg):
    """Share of the attribute variance between the label groups (R^2 of the labels)."""
    X, y = hg.features, hg.labels
    means = np.stack([X[y == c].mean(axis=0) for c in np.unique(y)])
    return float(((means[y] - X.mean(axis=0)) ** 2).sum() / ((X - X.mean(axis=0)) ** 2).sum())


@pytest.mark.parametrize("agreement", [0.0, 0.5, 1.0])
def test_two_views_agree_as_the_knob_says(agreement):
    e, f = _views(agreement)
    # same draws whichever partition is the labels: only the labels differ
    assert e.n_edges == f.n_edges and np.array_equal(e.features, f.features)
    same = float(np.mean(e.labels == f.labels))  # a node keeps its part w.p. agreement
    assert same == pytest.approx(agreement + (1 - agreement) / 3, abs=0.04)
    # the hyperedges follow the edge partition, the attributes the feature partition
    assert e.homophily()["pairwise"] > 0.7
    assert f.homophily()["pairwise"] == pytest.approx(
        1 / 3 + agreement ** 2 * (e.homophily()["pairwise"] - 1 / 3), abs=0.06)
    assert _centroid_share(f) > 0.08 and _centroid_share(e) == pytest.approx(
        agreement ** 2 * _centroid_share(f), abs=0.03)


def test_a_noise_view_carries_no_partition():
    e, f = _views(0.0, noise="edges")
    assert e.homophily()["pairwise"] == pytest.approx(1 / 3, abs=0.03)
    e, f = _views(0.0, noise="features")
    assert _centroid_share(f) < 0.01 and e.homophily()["pairwise"] > 0.7


def test_two_view_bad_parameters():
    from hyperclust.datasets.synthetic import two_view_sbm

    with pytest.raises(ValueError, match="classes"):
        two_view_sbm(50, 2, classes="labels")
    with pytest.raises(ValueError, match="agreement"):
        two_view_sbm(50, 2, agreement=1.5)
