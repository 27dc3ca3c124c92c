import numpy as np
import pytest
import scipy.sparse as sp

from hyperclust import Hypergraph
from hyperclust.cluster.baselines import HGNNSmoothingKMeans, KMeansFeatures
from hyperclust.cluster.registry import available_methods, make_estimator
from hyperclust.datasets.synthetic import hypergraph_sbm
from hyperclust.metrics import acc
from hyperclust.operators.propagation import PropagationOperator


def dense_P(hg, s=1.0):
    H = hg.incidence.toarray()
    W = np.diag(hg.weights)
    De = np.diag(1.0 / H.sum(axis=0))
    dv = H @ hg.weights + s
    Dm = np.diag(np.where(dv > 0, dv, np.inf) ** -0.5)
    return Dm @ (H @ W @ De @ H.T + s * np.eye(hg.n_nodes)) @ Dm


@pytest.mark.parametrize("s", [0.0, 1.0, 2.5])
def test_propagation_matches_dense(s):
    hg = Hypergraph.from_edges([[0, 1, 2], [2, 3], [3, 4, 5, 0]], n_nodes=7,
                               weights=[1.0, 2.0, 0.5])
    P = PropagationOperator(hg, self_loops=s)
    D = dense_P(hg, s)
    X = np.random.default_rng(0).normal(size=(7, 3))
    np.testing.assert_allclose(P.matmat(X), D @ X, atol=1e-12)
    np.testing.assert_allclose(P.matmat(sp.csr_matrix(X)).toarray(), D @ X, atol=1e-12)
    np.testing.assert_allclose(P.to_sparse().toarray(), D, atol=1e-12)
    np.testing.assert_allclose(P.apply_power(X, 3), np.linalg.matrix_power(D, 3) @ X, atol=1e-12)
    ev = np.linalg.eigvalsh(D)
    assert ev.min() > -1e-12 and ev.max() < 1 + 1e-12
    assert np.isfinite(D).all()
    if s == 0:
        assert np.all(D[6] == 0)  # isolated node without self loop: zero row
    else:
        assert D[6, 6] == pytest.approx(1.0)  # isolated node keeps its own features


def test_random_walk_kind_is_row_stochastic():
    hg = Hypergraph.from_edges([[0, 1, 2], [2, 3]], weights=[1.0, 3.0])
    P = PropagationOperator(hg, kind="rw").to_sparse().toarray()
    np.testing.assert_allclose(P.sum(axis=1), 1.0)


def test_hgnn_beats_features_on_homophilic_synthetic():
    hg = hypergraph_sbm(800, 4, homophily=0.9, n_features=16, feature_snr=0.3, random_state=1)
    a_x = acc(hg.labels, KMeansFeatures(4, random_state=0).fit_predict(hg))
    a_h = acc(hg.labels, HGNNSmoothingKMeans(4, random_state=0).fit_predict(hg))
    assert a_h > a_x + 0.2
    assert a_h > 0.8


def test_seeded_and_relabelling_invariant():
    hg = hypergraph_sbm(300, 3, homophily=0.9, n_features=8, feature_snr=0.5, random_state=2)
    l1 = HGNNSmoothingKMeans(3, random_state=7).fit_predict(hg)
    l2 = HGNNSmoothingKMeans(3, random_state=7).fit_predict(hg)
    np.testing.assert_array_equal(l1, l2)
    perm = np.random.default_rng(0).permutation(300)
    inv = np.argsort(perm)
    hg2 = Hypergraph.from_edges([inv[e] for e in hg.edges()], n_nodes=300,
                                features=hg.features[perm], labels=hg.labels[perm])
    emb = HGNNSmoothingKMeans(3, random_state=7).fit(hg).embedding_
    emb2 = HGNNSmoothingKMeans(3, random_state=7).fit(hg2).embedding_
    # hgnn propagates in float32: a relabelling changes the summation order (~1e-7)
    np.testing.assert_allclose(emb2, emb[perm], atol=1e-5)


def test_sparse_features_and_projection():
    hg = hypergraph_sbm(300, 3, homophily=0.9, n_features=300, feature_snr=0.4, random_state=0)
    hs = hg.replace(features=sp.csr_matrix(hg.features))
    est = HGNNSmoothingKMeans(3, n_components=20).fit(hs)
    assert est.embedding_.shape == (300, 20)
    assert KMeansFeatures(3).fit(hs).embedding_.shape == (300, 128)  # auto: > 256 features


def test_errors():
    hg = Hypergraph.from_edges([[0, 1], [1, 2]])
    with pytest.raises(ValueError, match="no node features|needs node features"):
        KMeansFeatures(2).fit(hg)
    with pytest.raises(ValueError, match="exceeds the number of nodes"):
        KMeansFeatures(5).fit(hg.replace(features=np.eye(3)))
    with pytest.raises(TypeError, match="Hypergraph"):
        KMeansFeatures(2).fit(np.eye(3))
    with pytest.raises(ValueError, match="n_hops"):
        HGNNSmoothingKMeans(2, n_hops=-1).fit(hg.replace(features=np.eye(3)))
    with pytest.raises(ValueError, match="unknown method"):
        make_estimator("nope", 2)


def test_registry_lists_baselines():
    methods = available_methods()
    assert {"kmeans", "hgnn"} <= set(methods)
    est = make_estimator("hgnn", 3, random_state=4)
    assert isinstance(est, HGNNSmoothingKMeans) and est.random_state == 4


def test_random_walk_adjoint_matches_dense_transpose():
    hg = Hypergraph.from_edges([[0, 1, 2], [2, 3]], weights=[1.0, 3.0])
    P = PropagationOperator(hg, kind="rw")
    D = P.to_sparse().toarray()
    X = np.random.default_rng(1).normal(size=(4, 2))
    np.testing.assert_allclose(P.H.matmat(X), D.T @ X, atol=1e-12)
    np.testing.assert_allclose(P.rmatvec(X[:, 0]), D.T @ X[:, 0], atol=1e-12)


def test_structural_dim_rule():
    from hyperclust.cluster.baselines import structural_dim
    assert [structural_dim("auto", k) for k in (2, 3, 7, 32, 641)] == [4, 6, 14, 32, 32]
    assert structural_dim(5, 2) == 5
    for bad in (0, -1, 2.5, True, "all"):
        with pytest.raises(ValueError, match="n_structural"):
            structural_dim(bad, 3)


def test_featureless_input_has_two_columns_per_cluster_by_default():
    hg = hypergraph_sbm(300, 3, homophily=0.9, n_features=0, random_state=1)
    auto = HGNNSmoothingKMeans(3, random_state=0).fit(hg)
    assert auto.input_kind_ == "structural" and auto.embedding_.shape == (300, 6)
    assert acc(hg.labels, auto.labels_) > 0.9
    wide = HGNNSmoothingKMeans(3, n_structural=9, random_state=0).fit(hg)
    assert wide.embedding_.shape == (300, 9)
    with pytest.raises(ValueError, match="n_structural"):
        HGNNSmoothingKMeans(3, n_structural=0).fit(hg)
