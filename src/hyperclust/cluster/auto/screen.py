"""``auto``'s kNN screen: decide on a cheap attribute kNN graph whether the candidates that
walk on the graph can win, and pay for the accurate search only if they can.

Above the exact-search crossover the accurate (HNSW) search dominates an attributed
``auto`` fit (at 10^6 nodes x 32 attributes ~350-480 CPU s against ~210 s for everything
else), yet it serves only the graph-fitted candidates (those whose
:attr:`~hyperclust.cluster.candidates.Candidate.walk` is not None); the held-out score and
the other candidates never read it. So the first split's graph-fitted candidates are fitted
on a cheap graph (:func:`~hyperclust.operators.knn.coarse_knn_affinity`), with at most
``SCREEN_MAX_ITER`` iterations, and scored with the others. A cheap graph makes them worse
on average (medians per input up to .035 held-out error, single fits up to .14); if even so
one comes within ``SCREEN_MARGIN`` paired standard errors plus ``SCREEN_SLACK`` of the
leader's held-out error, the accurate search runs and they are refitted on it (the fit then
goes on exactly as without the screen); otherwise they leave the race and the accurate
search never runs. The margins bound the measured understatement of a cheap graph
(``benchmarks/studies/auto_screen.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...operators.knn import searches_approximately
from ...selection.loop import rank_candidates
from ..candidates import CANDIDATE_TABLE
from ..hsbm_heldout import paired_standard_errors
from ._fitting import Fits, Settings, fit_round, score

__all__ = ["SCREEN_MARGIN", "SCREEN_MAX_ITER", "SCREEN_SLACK", "Screen", "coarse_fit",
           "first_fit", "graph_fitted", "screen_gaps", "screened_in"]

#: Paired standard errors (those of the race) within which a graph-fitted candidate on the
#: coarse graph calls for the accurate search, ...
SCREEN_MARGIN = 3.0
#: ... plus this held-out error (1 - AUC): a coarse graph's understatement does not shrink
#: with the held-out items as the standard errors do. Measured (forced coarse graph, 2
#: probes, 6 shared sets x 5 seeds): every candidate today's race keeps was within 3 SEs
#: + .0096 of the leader; on the SBM the nearest graph-fitted one was 3 SEs + .021 (10^5)
#: and + .020 (10^6) behind (auto.md at 9466338): .014 is ~1.4x from either.
SCREEN_SLACK = 0.014
#: ``max_iter`` of the graph-fitted candidates on the coarse graph (``ahcka``'s orthogonal
#: iterations; the race's own cap is 100): at 10^5 and 10^6 on the SBM, 40 gave the same
#: held-out error (to 1e-4) and ACC as 100 at 0.4x the CPU (63.4 -> 25.3 s at 10^6); 25
#: lost .012 of error at 10^5.
SCREEN_MAX_ITER = 40


def graph_fitted(names) -> tuple:
    """The candidates of ``names`` fitted on the kNN graph (their ``walk`` is not None).

    Examples
    --------
    >>> graph_fitted(("ahcka", "hsbm", "hgnn-mixed", "kmeans"))
    ('ahcka', 'hgnn-mixed')
    """
    return tuple(c for c in names if CANDIDATE_TABLE[c].walk is not None)


def screen_gaps(scores: dict, paired_se: dict, lead: str, names) -> dict:
    """``{candidate: (error - lead's error, its paired standard error)}`` for ``names``.

    Parameters
    ----------
    scores : dict of str -> float
        Held-out errors of the first split (lower is better).
    paired_se : dict of str -> float
        Standard errors of each error minus ``lead``'s on the same held-out items
        (:func:`~hyperclust.cluster.hsbm_heldout.paired_standard_errors`).
    lead : str
    names : iterable of str
        The graph-fitted candidates (those of them with a score).

    Examples
    --------
    >>> screen_gaps({"a": 0.2, "b": 0.25}, {"a": 0.0, "b": 0.01}, "a", ("b",))
    {'b': (0.04999999999999999, 0.01)}
    """
    return {c: (float(scores[c] - scores[lead]), float(paired_se[c]))
            for c in names if c in scores}


def screened_in(gaps: dict, lead: str, margin: float = SCREEN_MARGIN,
                slack: float = SCREEN_SLACK) -> tuple:
    """The graph-fitted candidates that may win: the leader itself, or within ``margin``
    paired standard errors plus ``slack`` of it (an infinite standard error, no paired
    comparison, keeps a candidate in).

    Examples
    --------
    >>> gaps = {"b": (0.05, 0.01), "c": (0.012, 0.01), "d": (0.0, 0.0)}
    >>> screened_in(gaps, "d", margin=1.5), screened_in(gaps, "a", margin=1.5, slack=0.04)
    (('c', 'd'), ('b', 'c', 'd'))
    """
    return tuple(c for c, (gap, se) in gaps.items()
                 if c == lead or gap <= float(margin) * se + float(slack))


@dataclass(frozen=True)
class Screen:
    """What the kNN screen did on the first split.

    Attributes
    ----------
    gaps : dict of str -> (float, float) or None
        Each graph-fitted candidate's error on the coarse graph minus the leader's, and its
        paired standard error (:func:`screen_gaps`); None where no screen ran.
    accurate : bool or None
        Whether the accurate search ran after it (None: no screen ran).

    Examples
    --------
    >>> Screen().gaps is None, Screen({"ahcka": (0.1, 0.01)}, False).accurate
    (True, False)
    """

    gaps: dict | None = None
    accurate: bool | None = None


def _merged(names, graph, graph_labels, other_labels) -> dict:
    """The labels of ``names`` in their order: the graph-fitted ones from ``graph_labels``,
    the others from ``other_labels`` (a candidate missing from its dict, skipped, is left out)."""
    return {c: (graph_labels if c in graph else other_labels)[c] for c in names
            if c in (graph_labels if c in graph else other_labels)}


def first_fit(s: Settings, hg, split, names, screen: bool = True) -> tuple[Fits, Screen]:
    """The scored fits of the first split, through the screen when ``screen`` is on, a split
    is held out and its attributes would be searched approximately: the graph-fitted
    candidates are fitted on the coarse graph (``times`` keys ``"knn-screen"``,
    ``"<name>-screen"``), and refitted after the accurate search only if one may win (then
    everything is as without the screen).

    Examples
    --------
    Below the exact-search crossover no screen runs:

    >>> from hyperclust.datasets import hypergraph_sbm
    >>> from hyperclust.cluster.auto import AutoClusterer
    >>> hg = hypergraph_sbm(120, 2, homophily=0.9, n_features=4, random_state=0)
    >>> est = AutoClusterer(2, candidates=("ahcka", "hgnn")).fit(hg)
    >>> est.knn_screen_ is None, est.accurate_knn_ is None
    (True, True)
    """
    train = hg if split is None else split.train
    graph = graph_fitted(names)
    if not (screen and split is not None and graph and s.beta > 0
            and train.features is not None
            and searches_approximately(train.features, s.knn_method)):
        return score(s, train, split, fit_round(s, train, split, names)), Screen()
    coarse = coarse_fit(s, train, split, names)
    lead = rank_candidates(coarse.labels, coarse.scores, s.k).order[0]
    paired = paired_standard_errors(split, coarse.labels, lead, s.view_weights, coarse.memo)
    gaps = screen_gaps(coarse.scores, paired, lead, graph)
    accurate = bool(screened_in(gaps, lead, SCREEN_MARGIN, SCREEN_SLACK))
    if not accurate:
        return coarse, Screen(gaps, False)
    fine = fit_round(s, train, split, graph)
    fits = Fits(_merged(names, graph, fine.labels, coarse.labels),
                {**coarse.fitted, **fine.fitted}, fine.walks)
    return score(s, train, split, fits), Screen(gaps, True)


def coarse_fit(s: Settings, train, split, names) -> Fits:
    """The scored fits of ``names`` as the screen sees them: the candidates not fitted on
    the graph as usual, the graph-fitted ones on the coarse graph with at most
    :data:`SCREEN_MAX_ITER` iterations (``times`` keys ``"knn-screen"``,
    ``"<name>-screen"``); all scored together (``walks``: the coarse graph's).

    Examples
    --------
    >>> from hyperclust.datasets import hypergraph_sbm
    >>> from hyperclust.cluster.auto._fitting import holdout_splits
    >>> from hyperclust.operators.knn import ann_available
    >>> hg = hypergraph_sbm(150, 2, homophily=0.9, n_features=4, random_state=0)
    >>> s = Settings(2, 0, 0.5, 10, "auto", "precision", 0.2, 3, "min", False, 5, 100, 1e-4)
    >>> split = holdout_splits(hg, "heldout", 0.1, 1, 0)[0]
    >>> if ann_available():
    ...     fits = coarse_fit(s, split.train, split, ("ahcka", "hgnn"))
    ...     assert sorted(s.times) == ["ahcka-screen", "hgnn", "knn", "knn-screen"]
    ...     assert list(fits.labels) == ["ahcka", "hgnn"]
    """
    graph = graph_fitted(names)
    other = fit_round(s, train, split, tuple(c for c in names if c not in graph))
    coarse = fit_round(s, train, split, graph, coarse=True, max_iter=SCREEN_MAX_ITER)
    for c in graph:
        if c in s.times:
            s.times[c + "-screen"] = s.times.pop(c)
    fits = Fits(_merged(names, graph, coarse.labels, other.labels),
                {**other.fitted, **coarse.fitted}, coarse.walks)
    return score(s, train, split, fits)
