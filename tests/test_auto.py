"""``auto`` and the kNN-augmented hgnn / spectral candidates."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from hyperclust.cluster import (AutoClusterer, HGNNSmoothingKMeans,
                                SpectralHypergraphClustering, make_estimator)
from hyperclust.cluster.auto import CANDIDATES, RACE_MARGIN, STRUCTURE_CANDIDATES
from hyperclust.datasets.synthetic import hypergraph_sbm
from hyperclust.metrics import acc
from hyperclust.cluster.hsbm_heldout import (heldout_error, heldout_errors,
                                             paired_standard_errors)
from hyperclust.selection.objectives import rwr_conductance
from hyperclust.operators.knn import MixedWalk, knn_affinity


@pytest.fixture(scope="module")
def weak_edges():
    """Hyperedges barely informative, attributes informative, 10% isolated nodes."""
    return hypergraph_sbm(500, 3, homophily=0.45, feature_snr=0.5, isolated_fraction=0.1,
                          random_state=5)


def test_auto_picks_the_lowest_heldout_error_and_records_everything(weak_edges):
    hg = weak_edges
    est = AutoClusterer(3, n_splits=1, random_state=1).fit(hg)
    assert set(est.scores_) == set(CANDIDATES) == set(est.candidates_)
    assert est.ranking_.selected == min(est.scores_, key=est.scores_.get)
    # the leader, or the candidate built from both views where the views disagree
    assert est.selected_ == est.selection_report_.selected in (
        est.ranking_.selected, est.selection_report_.both_views)
    # candidates are fitted on the training part; the scores are the held-out error there
    assert est.split_.train.n_edges < hg.n_edges
    assert est.split_.train.features.shape[1] < hg.features.shape[1]
    expected = heldout_errors(est.split_, est.candidates_, "precision")  # the default
    for name, lab in est.candidates_.items():
        assert est.scores_[name] == pytest.approx(expected[name])
    # the pick is refitted on all the data: the same method, fitted with every hyperedge
    refit = type(est.best_estimator_)(**est.best_estimator_.get_params()).fit(hg)
    if est.selected_ not in ("ahcka", "hgnn-mixed", "spectral-zhou-mixed"):
        np.testing.assert_array_equal(est.labels_, refit.labels_)
    assert est.walk_.shape == (hg.n_nodes, hg.n_nodes)
    assert acc(hg.labels, est.labels_) >= max(acc(hg.labels, v) for v in est.candidates_.values()) - 0.05
    assert est.selected_ in est.selection_reason_ and "held-out" in est.selection_reason_
    again = AutoClusterer(3, n_splits=1, random_state=1).fit(hg)
    np.testing.assert_array_equal(again.labels_, est.labels_)
    assert again.scores_ == est.scores_


def test_auto_rwr_selection_is_the_former_score(weak_edges):
    hg = weak_edges
    est = AutoClusterer(3, selection="rwr", random_state=1).fit(hg)
    assert est.split_ is None
    for name, lab in est.candidates_.items():
        assert est.scores_[name] == pytest.approx(
            rwr_conductance(hg, lab, walk=est.walk_, balance="min"))
    np.testing.assert_array_equal(est.labels_, est.candidates_[est.selected_])
    np.testing.assert_allclose(  # the shared walk is the default mixed walk for this seed
        (est.walk_ @ np.eye(hg.n_nodes)[:, :5]),
        (MixedWalk(hg, knn_affinity(hg.features, 10, random_state=1)) @ np.eye(hg.n_nodes)[:, :5]))


def test_auto_beats_kmeans_where_the_hyperedges_are_noise():
    # homophily .25 with 4 classes: hyperedges join classes at random, the attributes carry
    # the classes; the rwr score picked a walk candidate here (.07 below k-means at h=.2)
    hg = hypergraph_sbm(1000, 4, homophily=0.25, n_features=32, random_state=0)
    km = acc(hg.labels, make_estimator("kmeans", 4, random_state=0).fit(hg).labels_)
    assert acc(hg.labels, AutoClusterer(4, random_state=0).fit(hg).labels_) >= km - 0.01


def test_auto_reports_progress_when_verbose(weak_edges, capsys):
    AutoClusterer(3, candidates=("kmeans", "hgnn"), verbose=True, random_state=0).fit(weak_edges)
    err = capsys.readouterr().err  # progress goes to stderr, not into the output
    assert "kmeans fitted in" in err and "hgnn fitted in" in err
    AutoClusterer(3, candidates=("kmeans", "hgnn"), random_state=0).fit(weak_edges)
    quiet = capsys.readouterr()
    assert "fitted in" not in quiet.err + quiet.out


@pytest.mark.parametrize("homophily, beta", [(0.0, 1.0), (0.9, 0.5)])
def test_auto_drops_the_hypergraph_walk_on_heterophilic_hyperedges(homophily, beta):
    hg = hypergraph_sbm(1000, 4, homophily=homophily, n_features=32, random_state=0)
    est = AutoClusterer(4, selection="rwr", random_state=0).fit(hg)
    assert est.beta_ == beta and est.alignment_.heterophilic is (beta == 1.0)
    fixed = AutoClusterer(4, beta=0.5, selection="rwr", random_state=0).fit(hg)
    assert fixed.beta_ == 0.5 and fixed.alignment_ is None
    if beta == 1.0:  # the kNN walk + repulsion clusters the attributes better than the mixed walk
        assert acc(hg.labels, est.labels_) > acc(hg.labels, fixed.labels_)
    else:
        np.testing.assert_array_equal(est.labels_, fixed.labels_)


def test_auto_structure_only():
    hg = hypergraph_sbm(300, 2, homophily=0.95, n_features=0, random_state=6)
    est = make_estimator("auto", 2, random_state=0).fit(hg)
    assert set(est.scores_) == set(STRUCTURE_CANDIDATES)
    assert acc(hg.labels, est.labels_) >= 0.95


def test_a_candidate_with_fewer_clusters_than_asked_ranks_last():
    """A ring of 60 nodes with constant features: k-means on smoothed features finds one
    cluster, which leaks nothing and so scores 0; auto must return 3 clusters."""
    from hyperclust import Hypergraph

    n = 60
    hg = Hypergraph.from_edges([[i, (i + 1) % n] for i in range(n)], features=np.ones((n, 4)))
    with warnings.catch_warnings():  # fewer distinct rows than clusters: said by n_found_
        warnings.simplefilter("error")
        est = AutoClusterer(3, random_state=0).fit(hg)
    degenerate = [c for c, found in est.n_found_.items() if found < 3]
    assert degenerate and est.selected_ not in degenerate
    assert est.n_found_[est.selected_] == 3 and np.unique(est.labels_).size == 3


def test_auto_with_as_many_clusters_as_nodes_skips_the_spectral_candidates():
    from hyperclust import Hypergraph

    hg = Hypergraph.from_edges([[0, 1]], features=np.eye(2))
    est = AutoClusterer(2, random_state=0).fit(hg)
    assert sorted(est.labels_) == [0, 1]
    assert set(est.skipped_) == {c for c in CANDIDATES if c.startswith("spectral")}
    assert not set(est.skipped_) & set(est.scores_)


def test_auto_validation():
    hg = hypergraph_sbm(60, 2, n_features=0, random_state=0)
    with pytest.raises(ValueError, match="unknown or no candidates"):
        AutoClusterer(2, candidates=("louvain",)).fit(hg)
    with pytest.raises(ValueError, match="needs node attributes"):
        AutoClusterer(2, candidates=("kmeans",)).fit(hg)
    with pytest.raises(ValueError, match="beta"):
        AutoClusterer(2, beta=-0.1).fit(hg)
    with pytest.raises(ValueError, match="beta"):
        AutoClusterer(2, beta="mixed").fit(hg)
    est = AutoClusterer(2, candidates=("ahcka", "kmeans"), keep_candidates=False).fit(hg)
    assert est.selected_ == "ahcka" and est.candidates_ == {}


def test_knn_beta_zero_keeps_the_defaults(weak_edges):
    hg = weak_edges
    for cls in (HGNNSmoothingKMeans, SpectralHypergraphClustering):
        a, b = cls(3).fit(hg), cls(3, knn_beta=0.0, knn_neighbors=3).fit(hg)
        np.testing.assert_array_equal(a.labels_, b.labels_)
        np.testing.assert_array_equal(a.embedding_, b.embedding_)


def test_knn_beta_uses_the_mixed_walk(weak_edges):
    hg = weak_edges
    A = knn_affinity(hg.features, 10, random_state=0)
    lazy = MixedWalk(hg, A, beta=0.5, self_loops=1.0)
    h = HGNNSmoothingKMeans(3, knn_beta=0.5, normalize_rows=False, n_components=None).fit(
        hg, walk=lazy)
    X = np.asarray(hg.features)
    np.testing.assert_allclose(h.embedding_, lazy @ (lazy @ X))
    np.testing.assert_array_equal(h.labels_, HGNNSmoothingKMeans(
        3, knn_beta=0.5, normalize_rows=False, n_components=None).fit(hg).labels_)
    for cls in (HGNNSmoothingKMeans, SpectralHypergraphClustering):
        plain = acc(hg.labels, cls(3).fit(hg).labels_)
        mixed = acc(hg.labels, cls(3, knn_beta=0.5).fit(hg).labels_)
        assert mixed > plain + 0.05, (cls.__name__, plain, mixed)
    with pytest.raises(ValueError, match="knn_beta"):
        HGNNSmoothingKMeans(3, knn_beta=2).fit(hg)
    with pytest.raises(ValueError, match="node operator"):
        SpectralHypergraphClustering(3, operator="star", knn_beta=0.5).fit(hg)


def test_knn_beta_without_features_is_the_default():
    hg = hypergraph_sbm(200, 2, homophily=0.9, n_features=0, random_state=2)
    np.testing.assert_array_equal(HGNNSmoothingKMeans(2, knn_beta=0.5).fit(hg).labels_,
                                  HGNNSmoothingKMeans(2).fit(hg).labels_)
    np.testing.assert_array_equal(SpectralHypergraphClustering(2, knn_beta=0.5).fit(hg).labels_,
                                  SpectralHypergraphClustering(2).fit(hg).labels_)


def test_shared_reductions_give_the_uncached_result():
    import scipy.sparse as sp

    from hyperclust.cluster.baselines import reduce_features, shared_reductions

    X = sp.random(80, 300, density=0.05, random_state=0, format="csr")
    plain = reduce_features(X, "auto", 3)
    with shared_reductions():
        a = reduce_features(X, "auto", 3)
        b = reduce_features(X, "auto", 3)
        c = reduce_features(X, "auto", 4)
    assert a is b and c is not a
    np.testing.assert_array_equal(a, plain)


def test_shared_reductions_solve_the_structural_input_once_per_hypergraph(monkeypatch):
    import hyperclust.operators.eigensolvers as eigensolvers
    from hyperclust import Hypergraph
    from hyperclust.cluster.baselines import node_input, shared_reductions

    solves = []
    solve = eigensolvers.structural_features
    monkeypatch.setattr(eigensolvers, "structural_features",
                        lambda *a, **kw: solves.append(1) or solve(*a, **kw))
    hg = hypergraph_sbm(60, 2, homophily=0.9, n_features=0, random_state=1)
    twin = Hypergraph(hg.incidence.copy(), weights=hg.weights.copy())  # same content
    other = Hypergraph(hg.incidence.copy(), weights=hg.weights * 2.0)
    plain = node_input(hg, "auto", 3, 4)[0]
    with shared_reductions():
        a = node_input(hg, "auto", 3, 4)[0]
        a[:] = 0.0  # a caller's edits reach no other caller
        b = node_input(twin, "structural", 3, 4)[0]
        node_input(hg, "auto", 4, 4)  # another seed
        node_input(other, "auto", 3, 4)  # other weights
    assert len(solves) == 1 + 3
    np.testing.assert_array_equal(b, plain)
    np.testing.assert_array_equal(node_input(other, "auto", 3, 4)[0],
                                  solve(other, 4, 3))


def test_auto_averages_the_heldout_error_over_splits(weak_edges):
    one = AutoClusterer(3, candidates=("kmeans", "hgnn"), n_splits=1,
                        random_state=0).fit(weak_edges)
    two = AutoClusterer(3, candidates=("kmeans", "hgnn"), n_splits=2, race_margin=None,
                        random_state=0).fit(weak_edges)
    # the first split and its fits are shared; the second split's errors enter the mean
    assert (one.split_.heldout != two.split_.heldout).nnz == 0
    for c in one.candidates_:
        np.testing.assert_array_equal(one.candidates_[c], two.candidates_[c])
    assert one.scores_ != two.scores_
    with pytest.raises(ValueError, match="n_splits"):
        AutoClusterer(3, n_splits=0).fit(weak_edges)


def test_heldout_selection_on_an_input_too_small_to_hold_out():
    # 6 hyperedges, no features: 10% holds out nothing, so every held-out error would tie
    # at .5 and the first candidate would win by its place in the list; the random-walk
    # score decides instead, and the two obvious groups are found
    from hyperclust import Hypergraph
    from hyperclust.cluster import AutoClusterer

    hg = Hypergraph.from_edges([["milk", "bread", "butter"], ["bread", "butter", "jam"],
                                ["milk", "butter"], ["nails", "hammer", "glue"],
                                ["hammer", "saw"], ["glue", "saw", "nails"]])
    est = AutoClusterer(2, random_state=0).fit(hg)
    assert est.split_ is None and "too few hyperedges" in est.selection_reason_
    groups = {frozenset(hg.node_ids[est.labels_ == c].tolist()) for c in (0, 1)}
    assert groups == {frozenset({"milk", "bread", "butter", "jam"}),
                      frozenset({"nails", "hammer", "glue", "saw"})}


def test_auto_coverage_weights_score_each_candidate_by_its_heldout_error(weak_edges):
    est = AutoClusterer(3, view_weights="coverage", n_splits=1, random_state=1).fit(weak_edges)
    for name, lab in est.candidates_.items():
        assert est.scores_[name] == pytest.approx(heldout_error(est.split_, lab))
    assert "share of nodes" in est.selection_reason_
    with pytest.raises(ValueError, match="view_weights"):
        AutoClusterer(3, view_weights="equal").fit(weak_edges)


def test_auto_races_the_best_of_the_first_split_through_the_others(weak_edges):
    names = ("kmeans", "hgnn", "spectral-zhou", "spectral-clique")
    est = AutoClusterer(3, candidates=names, n_splits=3, race=2, race_margin=None,
                        random_state=0).fit(weak_edges)
    first = est.split_candidates_[0]
    assert list(first) == list(names) and len(est.split_candidates_) == 3
    ahead = set(est.split_candidates_[1])
    assert len(ahead) == 2 and set(est.split_candidates_[2]) == ahead
    # those two were the best of the first split and rank first, by the mean over splits
    one = AutoClusterer(3, candidates=names, n_splits=1, random_state=0).fit(weak_edges)
    assert ahead == set(one.ranking_.order[:2])
    assert set(est.ranking_.order[:2]) == ahead and est.selected_ in ahead
    assert est.scores_[est.ranking_.order[0]] <= est.scores_[est.ranking_.order[1]]
    # the others keep their first-split score
    for c in set(names) - ahead:
        assert est.scores_[c] == pytest.approx(one.scores_[c])
    full = AutoClusterer(3, candidates=names, n_splits=3, race=None, race_margin=None,
                         random_state=0).fit(weak_edges)
    assert all(set(f) == set(names) for f in full.split_candidates_)
    with pytest.raises(ValueError, match="race"):
        AutoClusterer(3, race=0).fit(weak_edges)


def test_the_default_races_four_candidates_over_three_splits(weak_edges):
    est = AutoClusterer(3, race_margin=None, random_state=1).fit(weak_edges)
    assert len(est.split_candidates_) == 3 and len(est.split_candidates_[0]) == len(CANDIDATES)
    assert all(len(f) == 4 for f in est.split_candidates_[1:])
    assert est.selected_ in est.split_candidates_[2]
    assert AutoClusterer().race_margin == RACE_MARGIN == 1.5


def test_the_race_drops_candidates_the_first_split_already_separates(weak_edges):
    names = ("kmeans", "hgnn", "spectral-zhou", "spectral-clique")
    one = AutoClusterer(3, candidates=names, n_splits=1, random_state=0).fit(weak_edges)
    first = one.ranking_.order
    se = paired_standard_errors(one.split_, one.candidates_, first[0], "precision")
    behind = {c: (one.scores_[c] - one.scores_[first[0]]) / se[c] for c in first[1:]}
    # a margin between the z-scores of the runners-up keeps exactly those below it
    z = sorted(behind.values())
    assert z[0] > 0 and z[-1] > z[0]
    margin = (z[0] + z[1]) / 2.0
    est = AutoClusterer(3, candidates=names, n_splits=3, race=4, race_margin=margin,
                        random_state=0).fit(weak_edges)
    kept = {first[0]} | {c for c, v in behind.items() if v <= margin}
    assert set(est.raced_) == kept == set(est.split_candidates_[2]) and len(kept) == 2
    # margin 0: the best alone goes on, so the first split decides and nothing more is fitted
    alone = AutoClusterer(3, candidates=names, n_splits=3, race_margin=0.0,
                          random_state=0).fit(weak_edges)
    assert alone.n_splits_ == 1 and len(alone.split_candidates_) == 1
    assert alone.selected_ == first[0] and alone.scores_ == pytest.approx(one.scores_)
    assert "more than 0 paired standard errors behind" in alone.selection_reason_
    with pytest.raises(ValueError, match="race_margin"):
        AutoClusterer(3, race_margin=-1.0).fit(weak_edges)


def test_the_reason_names_the_race(weak_edges):
    names = ("kmeans", "hgnn", "spectral-zhou")
    est = AutoClusterer(3, candidates=names, n_splits=2, race=2, race_margin=None,
                        keep_candidates=False,
                        random_state=0).fit(weak_edges)
    assert est.n_splits_ == 2 and len(est.raced_) == 2 and est.selected_ in est.raced_
    out = set(names) - set(est.raced_)
    reason = est.selection_reason_
    assert "averaged over 2 splits for the 2 best of the first" in reason
    assert f"{out.pop()} " in reason and reason.count("(first split only)") == 1
    one = AutoClusterer(3, candidates=names, n_splits=1, random_state=0).fit(weak_edges)
    assert one.n_splits_ == 1 and "averaged" not in one.selection_reason_
    assert "first split only" not in one.selection_reason_


def test_the_race_eliminates_again_after_each_split(weak_edges):
    from hyperclust.cluster.hsbm_heldout import split_hypergraph

    names = ("kmeans", "hgnn", "hgnn-mixed", "spectral-zhou-mixed", "spectral-zhou")
    est = AutoClusterer(3, candidates=names, n_splits=3, race_margin=1.5,
                        random_state=1).fit(weak_edges)
    fits = est.split_candidates_
    assert [tuple(f) for f in fits] == est.split_fits_
    assert [len(f) for f in fits] == [5, 3, 2]  # 2 left after the first split, 1 after two
    # by hand: who was within 1.5 standard errors of the leader after the first two splits
    splits = [split_hypergraph(weak_edges, edge_share=0.1, random_state=1 + 7919 * r)
              for r in range(2)]
    kept = list(fits[1])
    errors = [heldout_errors(s, {c: f[c] for c in kept}, "precision")
              for s, f in zip(splits, fits)]
    first = heldout_errors(splits[0], fits[0], "precision")
    mean = {c: (first[c] + errors[1][c]) / 2 for c in kept}
    lead = min(kept, key=mean.get)
    var = sum(np.square([paired_standard_errors(s, {c: f[c] for c in kept}, lead,
                                                "precision")[c] for c in kept])
              for s, f in zip(splits, fits))
    by_hand = {c for c, v in zip(kept, var) if mean[c] - mean[lead] <= 1.5 * np.sqrt(v) / 2}
    assert set(fits[2]) == by_hand and est.selected_ in by_hand
    out = (set(fits[1]) - by_hand).pop()
    assert f"{out} {est.scores_[out]:.4f} (2 of 3 splits)" in est.selection_reason_
