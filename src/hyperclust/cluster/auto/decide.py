"""``auto``'s decision on its scored rounds of fits, a pure function of them (so a stored
set of fits replays it exactly: ``benchmarks/auto_protocol.py``, whose other rules are in
``benchmarks/auto_rules.py``).

The pick is the race's leader (its mean error over the splits), then:

* **Structure against attributes**: the best partition by the held-out hyperedges alone and
  the best by the held-out attributes alone are compared; below :data:`DISAGREE_NMI` they
  disagree (a view that cannot tell its best from chance names none). Which of them the
  classes follow cannot be known without labels, so the partition built from both views
  (the best candidate that walks on both) is returned, unless the pick's held-out error is
  below that candidate's by more than the race's margin on every split that scored both
  (its evidence holds everywhere).
* **Collapse**: ``order`` lists the candidates to refit should the pick's refit on all the
  data collapse.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import norm

from ...metrics import nmi
from ...selection.loop import Ranking, rank_rounds
from ..candidates import CANDIDATE_TABLE
from ..hsbm_heldout import paired_standard_errors

__all__ = ["DISAGREE_NMI", "Decision", "decide"]

#: NMI below which the best partition by the hyperedges and the best by the attributes
#: disagree (a convention: the scale of "unrelated" partitions, not fitted to any data).
DISAGREE_NMI = 0.3
VIEWS = ("edges", "attributes")


@dataclass(frozen=True)
class Decision:
    """What ``auto`` decided on the split fits, and why (``selection_report_``).

    Attributes
    ----------
    selected : str
        The candidate to refit on all the data (first of ``order``).
    order : tuple of str
        The candidates to refit in turn should a refit be degenerate.
    ranking : Ranking
        The candidates by mean held-out error.
    view_best : dict of str -> str
        The best candidate by each view's error alone (``"edges"``, ``"attributes"``).
    views_nmi : float or None
        NMI of those two candidates' partitions (None: a view is missing).
    disagree : bool
    both_views : str or None
        The best candidate built from both views, returned when they disagree unless the
        pick's evidence held on every split.

    Examples
    --------
    >>> from hyperclust.datasets import two_view_sbm
    >>> from hyperclust.cluster.auto import AutoClusterer
    >>> hg = two_view_sbm(200, 2, agreement=0.0, classes="features", random_state=0)
    >>> report = AutoClusterer(2, random_state=0).fit(hg).selection_report_
    >>> report.disagree == (report.line is not None), report.selected in report.order
    (True, True)
    """

    selected: str
    order: tuple
    ranking: Ranking
    view_best: dict
    views_nmi: float | None
    disagree: bool
    both_views: str | None

    @property
    def line(self) -> str | None:
        """The disagreement line, or None."""
        if not self.disagree:
            return None
        b = self.view_best
        kept = (f"returned {self.selected}" if self.both_views is None else
                f"returned {self.both_views}, built from both" if
                self.selected == self.both_views else
                f"kept {self.selected}: its evidence held on every split")
        return (f"structure and attributes disagree: the hyperedges favour {b['edges']}, the "
                f"attributes {b['attributes']} (NMI {self.views_nmi:.2f} < "
                f"{DISAGREE_NMI:g}); {kept}")


def view_errors(fits: list) -> dict:
    """``{view: {candidate: error}}``: each view's held-out error alone, averaged over the
    rounds that scored the candidate (a view a round does not judge is left out)."""
    out = {}
    for v in VIEWS:
        per = {}
        for f in fits:
            for c, t in f.memo.items():
                if c in f.scores and t[v] is not None:
                    per.setdefault(c, []).append(float(t[v].mean()))
        if per:
            out[v] = {c: float(np.mean(e)) for c, e in per.items()}
    return out


def _holds(fits, pick, other, margin, everywhere=False) -> bool:
    """Whether ``pick``'s held-out error is below ``other``'s by more than ``margin`` paired
    standard errors on every round that scored both (``everywhere``: on every round)."""
    rounds = [f for f in fits if pick in f.scores and other in f.scores]
    if everywhere and len(rounds) < len(fits):
        return False
    for f in rounds:
        se = paired_standard_errors(None, f.labels, other, "precision", f.memo)[pick]
        if not f.scores[other] - f.scores[pick] > margin * se:
            return False
    return bool(rounds)


def _informative(terms, margin, n_tried) -> bool:
    """Whether a view's terms put its best partition's error (``1 - AUC``) below chance, .5,
    beyond the one-sided level of ``margin`` standard errors Bonferroni-corrected for the
    ``n_tried`` partitions it was the best of: a view that cannot tell its best partition
    from chance names no best."""
    if terms is None:
        return False
    z = norm.isf(norm.sf(margin) / max(1, n_tried))
    return bool(terms.mean() < 0.5 - z * np.sqrt(terms.var() / terms.size))


def decide(fits: list, k: int, margin: float, leader: str | None = None) -> Decision:
    """The decision on the scored rounds ``fits``
    (:class:`~hyperclust.cluster.auto._fitting.Fits`, the first scoring every candidate, its
    ``memo`` the held-out terms); ``margin``: paired standard errors that separate two
    candidates; ``leader``: the candidate to start from instead of the ranking's leader
    (a variant the protocol replays, ``benchmarks/auto_rules.py``).

    Examples
    --------
    One round, one view: ``hgnn`` predicts the held-out hyperedges, ``kmeans`` does not.

    >>> from hyperclust.cluster.auto._fitting import Fits
    >>> y = np.array([0, 0, 1, 1])
    >>> memo = {"hgnn": {"edges": np.array([0.1, 0.2]), "attributes": None},
    ...         "kmeans": {"edges": np.array([0.4, 0.5]), "attributes": None}}
    >>> fits = Fits({"hgnn": y, "kmeans": y[::-1]}, {}, {}, {"hgnn": 0.15, "kmeans": 0.45}, memo)
    >>> d = decide([fits], 2, 1.5)
    >>> d.selected, d.order, d.disagree, d.line is None
    ('hgnn', ('hgnn', 'kmeans'), False, True)
    """
    ranking = rank_rounds(fits[0].labels, [f.scores for f in fits], k)
    usable = [c for c in ranking.order if ranking.note(c) == ""] or [ranking.selected]
    pick = usable[0] if leader is None else leader
    view_best, views_nmi, disagree = _views(fits, usable, margin)
    both = next((c for c in usable if CANDIDATE_TABLE[c].walk is not None), None)
    if disagree and both is not None and pick != both and not _holds(fits, pick, both, margin):
        pick = both
    order = (pick,) + tuple(c for c in usable if c != pick)
    order += tuple(c for c in ranking.order if c not in order)
    return Decision(pick, order, ranking, view_best, views_nmi, disagree,
                    both if disagree else None)


def _views(fits, usable, margin) -> tuple:
    """``(view_best, views_nmi, disagree)``: the best usable candidate by each view that can
    tell its best from chance, their NMI on the first round, and whether it is below
    :data:`DISAGREE_NMI`."""
    errors = view_errors(fits)
    view_best = {v: min((c for c in usable if c in e), key=e.get) for v, e in errors.items()
                 if any(c in e for c in usable)}
    view_best = {v: c for v, c in view_best.items()
                 if _informative(fits[0].memo[c][v] if c in fits[0].memo else None, margin,
                                 len(errors[v]))}
    first = fits[0].labels
    views_nmi = (float(nmi(first[view_best["edges"]], first[view_best["attributes"]]))
                 if len(view_best) == 2 else None)
    return view_best, views_nmi, views_nmi is not None and views_nmi < DISAGREE_NMI


