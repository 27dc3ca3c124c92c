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
