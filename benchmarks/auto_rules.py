"""Selection rules that ``benchmarks/auto_protocol.py`` replays beside ``auto``'s own
(:func:`hyperclust.cluster.auto.decide.decide`) on stored fits; not the library's: each lost
on the design sets (docs/results/auto.md).

*No switch without evidence* (:func:`prefer`): the candidate table's order kept unless the
held-out score separates candidates; :func:`tied`: the race's leader replaced by the first
candidate it cannot tell apart from it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hyperclust.cluster.auto import RaceRule, race
from hyperclust.cluster.auto.decide import Decision, _holds, _views, decide
from hyperclust.cluster.candidates import CANDIDATE_TABLE
from hyperclust.cluster.hsbm_heldout import paired_standard_errors
from hyperclust.selection.loop import rank_rounds
from hyperclust.selection.race import race_survivors


def tied(fits: list, k: int, margin: float, se: str = "items") -> tuple:
    """The usable candidates scored on every round whose mean error is within ``margin``
    standard errors (``se``, :func:`~hyperclust.selection.race.race_survivors`) of the
    leader's, in the first round's order: those the held-out score cannot tell apart."""
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
            "tied-first": lambda *a: decide(fits := raced(*a), a[-1], margin,
                                           tied(fits, a[-1], margin, "items")[0]),
            "tied-first-splits": lambda *a: decide(fits := raced(*a), a[-1], margin,
                                                  tied(fits, a[-1], margin, "splits")[0]),
            "prefer": preferred("every"), "prefer-splits": preferred("splits")}


@dataclass(frozen=True)
class _K:
    """The settings ``hyperclust.cluster.auto.race`` reads in a replay."""

    k: int
    view_weights: str = "precision"
