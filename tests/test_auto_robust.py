"""``auto``'s decision: a collapsed refit replaced, the structure-vs-attributes line,
determinism for a seed."""

import numpy as np
import pytest

from hyperclust.cluster.auto import AutoClusterer
from hyperclust.cluster.baselines import HGNNSmoothingKMeans
from hyperclust.cluster.candidates import CANDIDATE_TABLE
from hyperclust.datasets import hypergraph_sbm, two_view_sbm
from hyperclust.selection.objectives import is_degenerate


def test_a_candidate_that_collapses_on_the_refit_is_replaced(monkeypatch):
    hg = hypergraph_sbm(300, 3, homophily=0.95, n_features=0, random_state=0)
    fit = HGNNSmoothingKMeans.fit

    def collapses_on_all_the_data(self, h, *a, **kw):
        fit(self, h, *a, **kw)
        if h.n_edges == hg.n_edges:  # the refit: a split holds hyperedges out
            self.labels_ = np.r_[np.zeros(h.n_nodes - 2), 1, 2].astype(np.int64)
        return self

    monkeypatch.setattr(HGNNSmoothingKMeans, "fit", collapses_on_all_the_data)
    est = AutoClusterer(3, candidates=("hgnn", "spectral-clique"), random_state=0).fit(hg)
    assert est.selection_report_.selected == "hgnn"  # the splits pick it
    assert est.replaced_ == ("hgnn",) and est.selected_ == "spectral-clique"
    assert not is_degenerate(est.labels_, 3)
    assert "hgnn collapsed when refitted" in est.selection_reason_


@pytest.fixture(scope="module")
def views():
    return {a: two_view_sbm(400, 3, agreement=a, classes="features", random_state=7)
            for a in (0.0, 1.0)}


def test_disagreeing_views_are_named_and_both_views_returned(views):
    est = AutoClusterer(3, random_state=0).fit(views[0.0])
    report = est.selection_report_
    assert report.disagree and report.views_nmi < 0.3
    assert report.view_best["edges"] != report.view_best["attributes"]
    assert report.line in est.selection_reason_
    assert all(best in report.line for best in report.view_best.values())
    # the one built from both views, unless the pick's evidence held on every split
    assert (CANDIDATE_TABLE[est.selected_].walk is not None) or "evidence held" in report.line


def test_agreeing_views_draw_no_line(views):
    est = AutoClusterer(3, random_state=0).fit(views[1.0])
    assert not est.selection_report_.disagree and est.selection_report_.line is None
    assert "disagree" not in est.selection_reason_


def test_the_same_seed_gives_the_same_answer(views):
    a, b = (AutoClusterer(3, random_state=3).fit(views[0.0]) for _ in range(2))
    np.testing.assert_array_equal(a.labels_, b.labels_)
    assert a.selection_reason_ == b.selection_reason_


def _round(errors, noise, seed):
    """One scored round: per-item held-out terms ``error + noise * N(0, 1)`` (hyperedges
    only, 400 items) of candidates with the same labels."""
    from hyperclust.cluster.auto._fitting import Fits

    rng, y = np.random.default_rng(seed), np.repeat([0, 1], 10)
    memo = {c: {"edges": e + noise * rng.standard_normal(400), "attributes": None}
            for c, e in errors.items()}
    return Fits({c: y for c in errors}, {}, {}, {c: float(t["edges"].mean())
                                                for c, t in memo.items()}, memo)


A, B, C = "hgnn", "spectral-zhou", "hsbm"  # in the candidate table's order


def test_prefer_keeps_the_first_candidate_unless_beaten_on_every_split():
    from hyperclust.cluster.auto.decide import contenders, prefer

    # B is ahead of the anchor A on average, by .6 paired standard errors a split
    tied = [_round({A: 0.30, B: 0.298, C: 0.40}, 0.05, s) for s in range(3)]
    assert prefer(tied, 2, 1.5).selected == A and contenders(tied, 2, 1.5) == (A,)
    # B and C both beat A far on every split: the first of them in the order, B, unless
    # C beats B on every split too (it does: chain)
    ahead = [_round({A: 0.40, B: 0.30, C: 0.20}, 0.05, s) for s in range(3)]
    assert contenders(ahead, 2, 1.5) == (A, B, C) and prefer(ahead, 2, 1.5).selected == C
    # beaten on two splits of three is not every split
    mixed = ahead[:2] + [_round({A: 0.30, B: 0.30, C: 0.30}, 0.05, 9)]
    assert prefer(mixed, 2, 1.5).selected == A
    # the splits' spread: one round is no evidence for the decision
    assert prefer(ahead[:1], 2, 1.5, evidence="splits").selected == A
    assert prefer(ahead, 2, 1.5, evidence="splits").selected == C


def test_tied_lists_the_candidates_within_the_margin_of_the_leader_in_order():
    from hyperclust.cluster.auto.decide import decide, tied

    rounds = [_round({A: 0.30, B: 0.298, C: 0.40}, 0.05, s) for s in range(3)]
    assert tied(rounds, 2, 1.5) == (A, B) and decide(rounds, 2, 1.5, "items").selected == A


def test_every_replay_rule_decides_on_stored_rounds(views):
    from hyperclust.cluster.auto._fitting import Settings, fit_round, holdout_splits, score
    from hyperclust.cluster.auto.decide import replay_rules

    hg, names = views[1.0], ("hgnn", "spectral-zhou", "kmeans")
    s = Settings(3, 0, 0.5, 10, "auto", "precision", 0.2, 3, "min", False, 5, 100, 1e-3)
    splits = holdout_splits(hg, "heldout", 0.1, 3, 0)
    rounds = [score(s, sp.train, sp, fit_round(s, sp.train, sp, names)) for sp in splits]
    asked = []

    def fit_more(i, c):
        asked.append((i, tuple(c)))
        return score(s, splits[i].train, splits[i], fit_round(s, splits[i].train, splits[i], c))

    for name, rule in replay_rules(1.5).items():
        asked.clear()
        d = rule(rounds[0], fit_more, 3, 3)
        assert d.selected in names and d.order[0] == d.selected, name
        assert all(set(c) <= set(names) and i in (1, 2) for i, c in asked), name
        assert (len(d.order) == 1) == (name == "previous")
