"""``auto``'s decision on its scored rounds of fits, a pure function of them (so a stored
set of fits replays it exactly, ``benchmarks/auto_protocol.py``; :func:`replay_rules`).

:func:`decide` is ``auto``'s rule. :func:`prefer` and :func:`tied` are variants the
protocol replays beside it (docs/results/auto.md): *no switch without evidence*, the
candidate table's order (the order exact ties were always broken in) kept unless the
held-out score separates candidates.

:func:`decide` (the race's): the pick is the race's leader (its mean error over the splits),
then:

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

__all__ = ["DISAGREE_NMI", "Decision", "contenders", "decide", "prefer", "replay_rules", "tied"]

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


def tied(fits: list, k: int, margin: float, se: str = "items") -> tuple:
    """The usable candidates scored on every round whose mean error is within ``margin``
    standard errors (``se``, :func:`~hyperclust.selection.race.race_survivors`) of the
    leader's, in the first round's order: those the held-out score cannot tell apart."""
    from ...selection.race import race_survivors

    ranking = rank_rounds(fits[0].labels, [f.scores for f in fits], k)
    lead = ranking.order[0]
    names = [c for c in fits[0].scores if all(c in f.scores for f in fits)
             and ranking.note(c) == ""]
    if lead not in names or not fits[0].memo:
        return (lead,)
    paired = [paired_standard_errors(None, {c: f.labels[c] for c in names}, lead, "precision",
                                     f.memo) for f in fits]
    return race_survivors([{c: f.scores[c] for c in names} for f in fits], paired, lead,
                          margin, se)


def decide(fits: list, k: int, margin: float, tie_order: str | None = None) -> Decision:
    """The decision on the scored rounds ``fits``
    (:class:`~hyperclust.cluster.auto._fitting.Fits`, the first scoring every candidate, its
    ``memo`` the held-out terms); ``margin``: paired standard errors that separate two
    candidates.

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
    pick = usable[0] if tie_order is None else tied(fits, k, margin, tie_order)[0]
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


def _usable(fits, k) -> list:
    """The candidates of the first round in their (table) order, less those with fewer
    clusters or a giant cluster plus slivers (all of them if none is left)."""
    first = rank_rounds(fits[0].labels, [fits[0].scores], k)
    names = list(fits[0].scores)
    return [c for c in names if first.note(c) == ""] or names


def _beats(fits, c, ref, margin, evidence, final=True) -> bool:
    """Whether candidate ``c`` beats ``ref`` on the rounds ``fits``: by more than ``margin``
    paired standard errors on every round (``evidence="every"``), or in the mean over the
    rounds by more than ``margin`` standard errors that add the spread of the per-round
    differences to the items' (``"splits"``, as the race's; it needs two rounds: before the
    ``final`` decision one round keeps every candidate, at it, none)."""
    if evidence == "every":
        return _holds(fits, c, ref, margin, everywhere=True)
    if not all(c in f.scores and ref in f.scores for f in fits):
        return False
    if len(fits) < 2:
        return not final
    d = np.array([f.scores[ref] - f.scores[c] for f in fits])
    se2 = sum(paired_standard_errors(None, f.labels, ref, "precision", f.memo)[c] ** 2
              for f in fits) / len(fits) ** 2
    return bool(d.mean() > margin * np.sqrt(se2 + d.var(ddof=1) / len(fits)))


def contenders(fits: list, k: int, margin: float, screened_out=(), evidence="every",
               final=False) -> tuple:
    """The anchor (the first usable candidate, ``screened_out`` left out) and the candidates
    of the last round that beat it by more than ``margin`` paired standard errors on every
    round so far: those :func:`prefer` could still pick, to be fitted on the next split.

    Examples
    --------
    >>> from hyperclust.cluster.auto._fitting import Fits
    >>> y = np.array([0, 0, 1, 1])
    >>> memo = {"hgnn": {"edges": np.array([0.4, 0.5, 0.45]), "attributes": None},
    ...         "hsbm": {"edges": np.array([0.1, 0.2, 0.15]), "attributes": None}}
    >>> fits = Fits({"hgnn": y, "hsbm": y}, {}, {}, {"hgnn": 0.45, "hsbm": 0.15}, memo)
    >>> contenders([fits], 2, 1.5), contenders([fits], 2, 1.5, ("hgnn",))
    (('hgnn', 'hsbm'), ('hsbm',))
    """
    usable = [c for c in _usable(fits, k) if c not in screened_out] or _usable(fits, k)
    anchor = usable[0]
    if not fits[0].memo:  # no held-out terms (random-walk score): no paired comparison
        return (anchor,)
    return (anchor,) + tuple(c for c in usable[1:] if c in fits[-1].scores
                             and _beats(fits, c, anchor, margin, evidence, final))


def prefer(fits: list, k: int, margin: float, screened_out=(), evidence="every") -> Decision:
    """The decision "no switch without evidence" on the scored rounds ``fits``: the anchor
    (the first usable candidate of the first round's order) unless others beat it
    (``evidence``, :func:`_beats`); then the first of those in the order, unless one of
    them beats it, and so on. Without held-out terms: the score's best.

    Examples
    --------
    ``hsbm`` is not far enough ahead of ``hgnn``, the anchor, on the second round:

    >>> from hyperclust.cluster.auto._fitting import Fits
    >>> y = np.array([0, 0, 1, 1])
    >>> t = lambda *e: {"edges": np.array(e), "attributes": None}
    >>> one = Fits({"hgnn": y, "hsbm": y}, {}, {}, {"hgnn": 0.45, "hsbm": 0.15},
    ...            {"hgnn": t(0.4, 0.5, 0.45), "hsbm": t(0.1, 0.2, 0.15)})
    >>> two = Fits({"hgnn": y, "hsbm": y}, {}, {}, {"hgnn": 0.3, "hsbm": 0.3},
    ...            {"hgnn": t(0.3, 0.3, 0.3), "hsbm": t(0.29, 0.31, 0.3)})
    >>> prefer([one], 2, 1.5).selected, prefer([one, two], 2, 1.5).selected
    ('hsbm', 'hgnn')
    """
    ranking = rank_rounds(fits[0].labels, [f.scores for f in fits], k)
    names = contenders(fits, k, margin, screened_out, evidence, final=True)
    if len(fits[0].memo) == 0:
        pick = next((c for c in ranking.order if ranking.note(c) == ""), ranking.selected)
    else:
        pick = names[0]
        while True:
            ahead = [c for c in names if c != pick and _beats(fits, c, pick, margin, evidence)]
            if not ahead:
                break
            pick = ahead[0]
    usable = _usable(fits, k)
    view_best, views_nmi, disagree = _views(fits, usable, margin)
    order = (pick,) + tuple(c for c in usable if c != pick)
    order += tuple(c for c in ranking.order if c not in order)
    anchor = names[0]
    both = anchor if CANDIDATE_TABLE[anchor].walk is not None else None
    return Decision(pick, order, ranking, view_best, views_nmi, disagree,
                    both if disagree else None)


def replay_rules(margin: float = 1.5) -> dict:
    """``{name: rule}``, the selection rules a stored set of fits replays
    (``benchmarks/auto_protocol.py``); ``rule(first, fit_round, n_rounds, k) -> Decision``,
    ``first`` the scored first round, ``fit_round(i, names)`` round ``i`` of ``names``,
    scored. ``"previous"``: the race's leader (9466338; no fallback: ``order`` is the pick);
    ``"robust"``: :func:`decide` after the race; ``"tied-first"`` / ``"tied-first-splits"``:
    the same with the first of :func:`tied` (``"items"`` / ``"splits"`` standard errors) for
    the leader; ``"prefer"``: :func:`prefer` after :func:`contenders` chose each round's
    fits."""
    from . import RaceRule, race

    def raced(first, fit_round, n_rounds, k):
        return race(_K(k), first, list(range(n_rounds)), RaceRule(4, margin, "items", 1e-3),
                    (), fit_round)

    def previous(first, fit_round, n_rounds, k):
        d = decide(raced(first, fit_round, n_rounds, k), k, margin)
        return Decision(d.ranking.selected, (d.ranking.selected,), d.ranking, d.view_best,
                        d.views_nmi, False, None)

    def preferred(evidence):
        def rule(first, fit_round, n_rounds, k):
            fits = [first]
            for i in range(1, n_rounds):
                names = contenders(fits, k, margin, (), evidence)
                if len(names) < 2:
                    break
                fits.append(fit_round(i, names))
            return prefer(fits, k, margin, (), evidence)
        return rule

    return {"previous": previous,
            "robust": lambda *a: decide(raced(*a), a[-1], margin),
            "tied-first": lambda *a: decide(raced(*a), a[-1], margin, "items"),
            "tied-first-splits": lambda *a: decide(raced(*a), a[-1], margin, "splits"),
            "prefer": preferred("every"), "prefer-splits": preferred("splits")}


@dataclass(frozen=True)
class _K:
    """The settings :func:`~hyperclust.cluster.auto.race` reads in a replay."""

    k: int
    view_weights: str = "precision"
