"""The attributed hypergraph block model (hsbm) and the held-out selection signal."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from hyperclust import Hypergraph
from hyperclust.cluster import make_estimator
from hyperclust.cluster.hsbm import WEIGHT_GRID, HypergraphSBM
from hyperclust.cluster.hsbm_heldout import heldout_aucs, heldout_error, split_hypergraph
from hyperclust.cluster.hsbm_likelihood import CliqueExpansion, block_rates, one_hot
from hyperclust.datasets.synthetic import hypergraph_sbm
from hyperclust.metrics import acc


def _dense_clique(hg):
    H = hg.incidence.toarray()
    size = H.sum(axis=0)
    a = np.where(size >= 2, hg.weights / np.maximum(size - 1, 1), 0.0)
    A = (H * a) @ H.T
    np.fill_diagonal(A, 0.0)
    return A


@pytest.mark.parametrize("seed", [0, 1])
def test_clique_expansion_equals_the_dense_formula(seed):
    rng = np.random.default_rng(seed)
    edges = [rng.choice(30, rng.integers(1, 6), replace=False) for _ in range(40)]
    hg = Hypergraph.from_edges(edges, n_nodes=30, weights=rng.uniform(0.5, 2, 40))
    A = _dense_clique(hg)
    op = CliqueExpansion(hg)
    Q = rng.random((30, 3))
    np.testing.assert_allclose(op @ Q, A @ Q, atol=1e-12)
    np.testing.assert_allclose(op.degrees, A.sum(axis=1), atol=1e-12)


def test_block_rates_are_higher_inside_planted_blocks():
    hg = hypergraph_sbm(400, 2, homophily=0.9, n_features=0, random_state=0)
    Q = one_hot(np.asarray(hg.labels), 2)
    A = CliqueExpansion(hg)
    log_omega = block_rates(A @ Q, Q, A.degrees)
    assert log_omega[0, 0] > 0 > log_omega[0, 1] and log_omega[1, 1] > 0
    np.testing.assert_allclose(log_omega, log_omega.T)


@pytest.mark.parametrize("n_features", [0, 16])
def test_hsbm_recovers_a_planted_partition(n_features):
    hg = hypergraph_sbm(600, 3, homophily=0.8, n_features=n_features, isolated_fraction=0.05,
                        random_state=2)
    est = HypergraphSBM(3, random_state=0).fit(hg)
    covered = np.asarray(hg.weighted_degrees) > 0
    assert acc(np.asarray(hg.labels)[covered], est.labels_[covered]) >= 0.9
    assert est.embedding_.shape == (600, 3)
    np.testing.assert_allclose(est.embedding_.sum(axis=1), 1.0)
    if n_features:
        assert est.attribute_weight_ in WEIGHT_GRID and set(est.heldout_errors_) == set(WEIGHT_GRID)
    else:
        assert est.attribute_weight_ == 0.0 and est.heldout_errors_ == {}
    again = HypergraphSBM(3, random_state=0).fit(hg)
    np.testing.assert_array_equal(again.labels_, est.labels_)


def test_hsbm_uses_the_attributes_when_the_hyperedges_are_noise():
    hg = hypergraph_sbm(800, 4, homophily=0.25, n_features=32, feature_snr=0.6, random_state=0)
    est = HypergraphSBM(4, random_state=0).fit(hg)
    structure_only = HypergraphSBM(4, attribute_weight=0.0, random_state=0).fit(hg)
    assert est.attribute_weight_ > 0
    assert acc(hg.labels, est.labels_) > acc(hg.labels, structure_only.labels_) + 0.2


def test_hsbm_registry_and_validation():
    hg = hypergraph_sbm(100, 2, random_state=0)
    assert isinstance(make_estimator("hsbm", 2, random_state=0), HypergraphSBM)
    for bad in (-1.0, "high", float("nan"), None, [1.0]):
        with pytest.raises(ValueError, match="attribute_weight"):
            HypergraphSBM(2, attribute_weight=bad).fit(hg)


def test_split_holds_out_hyperedges_columns_and_same_size_fakes():
    hg = hypergraph_sbm(500, 3, n_features=10, random_state=1)
    s = split_hypergraph(hg, edge_share=0.2, column_share=0.3, random_state=0)
    m_held = s.heldout.shape[0]
    assert s.train.n_edges + m_held == hg.n_edges and m_held == round(0.2 * hg.n_edges)
    assert s.train.features.shape[1] == 7 and s.columns.shape[1] == 3
    held_sizes = np.diff(s.heldout.indptr)
    fake_sizes = np.diff(s.fakes.indptr)
    assert fake_sizes.size == 5 * m_held
    # a fake has the size of its held-out edge unless a member was drawn twice
    assert np.all(fake_sizes <= np.tile(held_sizes, 5)) and np.mean(
        fake_sizes == np.tile(held_sizes, 5)) > 0.9
    # nodes never drawn as fake members are exactly those without a training hyperedge
    drawn = np.unique(s.fakes.indices)
    assert np.all(s.expansion.degrees[drawn] > 0)
    again = split_hypergraph(hg, edge_share=0.2, column_share=0.3, random_state=0)
    assert (again.heldout != s.heldout).nnz == 0 and (again.fakes != s.fakes).nnz == 0


def test_heldout_error_ranks_the_truth_above_noise_and_ignores_cluster_ids():
    hg = hypergraph_sbm(800, 3, homophily=0.85, n_features=12, feature_snr=1.0,
                        random_state=3)
    s = split_hypergraph(hg, random_state=0)
    y = np.asarray(hg.labels)
    truth = heldout_aucs(s, y)
    assert truth["edges"] > 0.7 and truth["attributes"] > 0.7
    shuffled = heldout_aucs(s, np.random.default_rng(0).permutation(y))
    assert abs(shuffled["edges"] - 0.5) < 0.06 and abs(shuffled["attributes"] - 0.5) < 0.06
    assert heldout_error(s, (y + 1) % 3) == pytest.approx(heldout_error(s, y))
    # a coarser partition that merges two classes predicts less
    assert heldout_error(s, np.minimum(y, 1)) > heldout_error(s, y)


def test_heldout_views_exist_only_where_there_is_something_held_out():
    no_features = hypergraph_sbm(300, 2, n_features=0, random_state=0)
    s = split_hypergraph(no_features)
    assert s.columns is None and heldout_aucs(s, no_features.labels)["attributes"] is None
    few_edges = Hypergraph.from_edges([[0, 1], [2, 3]], features=np.eye(4))
    s = split_hypergraph(few_edges)
    assert s.heldout is None and heldout_aucs(s, [0, 0, 1, 1])["edges"] is None
    assert heldout_error(split_hypergraph(Hypergraph.from_edges([[0, 1]])), [0, 1]) == 0.5


def test_centroid_view_known_answer():
    # two tight attribute groups A = {0, 1, 2}, B = {3, 4, 5}: the matching partition wins
    # every (node, other cluster) comparison. The crossing one {0, 2, 4} / {1, 3, 5}: node 0
    # (A) has own-rest {2, 4} = AB against {1, 3, 5} = ABB: win; node 2 likewise; node 4 (B)
    # has own-rest AA against ABB: loss; symmetrically in the other cluster: 2/3
    X = np.array([[1, 0, 1, 0], [1, 0, 0.9, 0.1], [1, 0, 1, 0.05],
                  [0, 1, 0, 1], [0, 1, 0.1, 0.9], [0, 1, 0.05, 1]], dtype=float)
    hg = Hypergraph.from_edges([[0, 1]], n_nodes=6, features=X)
    s = split_hypergraph(hg, column_share=0.5, random_state=0)
    assert heldout_aucs(s, [0, 0, 0, 1, 1, 1])["attributes"] == 1.0
    assert heldout_aucs(s, [0, 1, 0, 1, 0, 1])["attributes"] == pytest.approx(2 / 3)


def test_hsbm_starts_from_one_kmeans_fit(monkeypatch):
    # the chosen weight's training fit starts the full fit, so no k-means start on the full
    # input is computed then; with a given weight (or no attributes) EM starts from one
    import hyperclust.cluster.hsbm as hsbm

    hg = hypergraph_sbm(300, 3, homophily=0.9, n_features=8, random_state=0)
    seen = []
    original = hsbm._initial_labels
    monkeypatch.setattr(hsbm, "_initial_labels",
                        lambda h, k, seed, n_init: seen.append(h.n_edges)
                        or original(h, k, seed, n_init))
    chosen = HypergraphSBM(3, random_state=0).fit(hg)
    assert len(seen) == 1 and seen[0] < hg.n_edges and chosen.attribute_weight_ in WEIGHT_GRID
    seen.clear()
    HypergraphSBM(3, attribute_weight=0.5, random_state=0).fit(hg)
    assert seen == [hg.n_edges]
    seen.clear()
    plain = hypergraph_sbm(300, 3, homophily=0.9, n_features=0, random_state=0)
    assert HypergraphSBM(3, random_state=0).fit(plain).attribute_weight_ == 0.0
    assert seen == [plain.n_edges]


def test_attribute_loglik_matches_its_formula_bit_for_bit():
    # the in-place computation rounds as the plain formula does, featureless rows give 0
    from hyperclust.cluster.hsbm_likelihood import attribute_loglik

    rng = np.random.default_rng(0)
    Z = rng.standard_normal((50, 6))
    Z /= np.linalg.norm(Z, axis=1, keepdims=True)
    Q = rng.dirichlet(np.ones(3), 50)
    for has_row in (np.ones(50, dtype=bool), rng.random(50) > 0.3):
        Zr = Z * has_row[:, None]
        Qf = Q * has_row[:, None]
        mu = (Qf.T @ Zr) / np.maximum(Qf.sum(axis=0), 1e-12)[:, None]
        sq = np.maximum(np.sum(Zr * Zr, axis=1)[:, None] - 2.0 * Zr @ mu.T
                        + np.sum(mu * mu, axis=1)[None, :], 0.0)
        sigma2 = max(float(np.sum(Qf * sq)) / (has_row.sum() * 6), 1e-6)
        want = np.where(has_row[:, None], -sq / (2.0 * sigma2), 0.0)
        for norms in (None, np.sum(Zr * Zr, axis=1)):
            got = attribute_loglik(Zr, Q, has_row, norms)
            assert np.array_equal(got, want) and not np.signbit(got[~has_row]).any()


def test_weight_grid_fits_stop_once_the_labels_settle():
    import hyperclust.cluster.hsbm as hsbm

    hg = hypergraph_sbm(600, 3, homophily=0.7, n_features=8, random_state=0)
    est = HypergraphSBM(3, random_state=0)
    start = one_hot(hsbm._initial_labels(hg, 3, 0, 2), 3)
    ops = est._operands(hg, 0, 1.0)
    Q_full, it_full = est._em(ops, 3, 1.0, start)
    Q_zero, it_zero = est._em(ops, 3, 1.0, start, label_tol=0.0)  # never settles: as before
    assert it_zero == it_full and np.array_equal(Q_zero, Q_full)
    est.n_iter = 100  # the stop comes from the labels, not the cap
    _, it_grid = est._em(ops, 3, 1.0, start, label_tol=hsbm.GRID_LABEL_TOL)
    assert it_grid < 100

    def labels_after(iterations):  # the same EM path, cut after that many iterations
        est.n_iter = iterations
        return est._em(ops, 3, 1.0, start)[0].argmax(axis=1)

    labels = [labels_after(j) for j in range(max(it_grid - hsbm.LABEL_PATIENCE, 0), it_grid + 1)]
    changes = [np.count_nonzero(a != b) for a, b in zip(labels, labels[1:])]
    calm = [c < hsbm.GRID_LABEL_TOL * 600 for c in changes]
    assert calm[-hsbm.LABEL_PATIENCE:] == [True] * hsbm.LABEL_PATIENCE
    if it_grid > hsbm.LABEL_PATIENCE:  # the iteration before the calm run was not calm
        before = np.count_nonzero(labels_after(it_grid - hsbm.LABEL_PATIENCE - 1) != labels[0])
        assert before >= hsbm.GRID_LABEL_TOL * 600


def test_final_fit_stops_once_its_labels_settle():
    import hyperclust.cluster.hsbm as hsbm

    hg = hypergraph_sbm(600, 3, homophily=0.7, n_features=8, random_state=0)
    est = HypergraphSBM(3, attribute_weight=1.0, random_state=0).fit(hg)
    start = one_hot(hsbm._initial_labels(hg, 3, 0, est.n_init), 3)
    ops = est._operands(hg, 0, 1.0)
    _, it_tol = est._em(ops, 3, 1.0, start)  # without the label rule: to tol or n_iter
    assert est.n_iter_ < it_tol

    def labels_after(iterations):  # the fit's EM path, cut after that many iterations
        probe = HypergraphSBM(3, n_iter=iterations, random_state=0)
        return probe._em(ops, 3, 1.0, start)[0].argmax(axis=1)

    # 600 x FINAL_LABEL_TOL < 1: no label moved in the LABEL_PATIENCE iterations before the stop
    for j in range(est.n_iter_ - hsbm.LABEL_PATIENCE, est.n_iter_ + 1):
        assert np.array_equal(labels_after(j), est.labels_)
    assert not np.array_equal(labels_after(est.n_iter_ - hsbm.LABEL_PATIENCE - 1), est.labels_)


def test_row_max_and_argmax_equal_numpys():
    from hyperclust.cluster.hsbm_likelihood import row_argmax, row_max

    rng = np.random.default_rng(0)
    for k in (1, 3, 9):
        X = rng.integers(0, 4, (200, k)).astype(float)  # ties: the first maximum wins
        assert np.array_equal(row_max(X), X.max(axis=1))
        assert np.array_equal(row_argmax(X), X.argmax(axis=1))
