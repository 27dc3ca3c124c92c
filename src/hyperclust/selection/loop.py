"""The one candidate-selection loop: fit several candidate clusterings, score each without
labels and rank them, used by :class:`~hyperclust.cluster.auto.AutoClusterer` (candidate
methods) and :class:`~hyperclust.cluster.unidhc.UniDHC` (candidate embeddings).

A labelling with fewer distinct clusters than asked for, or a giant cluster plus slivers
(:func:`~hyperclust.selection.objectives.is_degenerate`), does not answer the question (one cluster
leaks nothing, so it would win most scores): it ranks after every labelling that does,
whatever its score. Ties keep the candidates' order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable

import numpy as np

from .objectives import is_degenerate

__all__ = ["Ranking", "fit_candidates", "keep_best", "rank_candidates", "rank_key", "rank_rounds",
           "select"]


@dataclass(frozen=True)
class Ranking:
    """Candidates ranked best first.

    Attributes
    ----------
    order : tuple of str
        Every scored candidate, best first.
    scores : dict of str -> float
        Each candidate's score (lower is better).
    n_found : dict of str -> int
        Distinct clusters in each candidate's labelling.
    degenerate : dict of str -> bool
        Whether each labelling is a giant cluster plus slivers.
    wanted : int
        The number of clusters a labelling must have not to rank last.

    Examples
    --------
    >>> r = Ranking(order=("a", "b"), scores={"a": 0.5, "b": 0.1}, n_found={"a": 2, "b": 1},
    ...             degenerate={"a": False, "b": False}, wanted=2)
    >>> r.selected, r.note("b")
    ('a', ' (fewer clusters: ranked last)')
    """

    order: tuple
    scores: dict
    n_found: dict
    degenerate: dict
    wanted: int

    @property
    def selected(self) -> str:
        """The best candidate."""
        return self.order[0]

    def note(self, name: str) -> str:
        """Why ``name`` ranks last, or ``""``."""
        if self.n_found[name] < self.wanted:
            return " (fewer clusters: ranked last)"
        return " (giant cluster plus slivers: ranked last)" if self.degenerate[name] else ""


def rank_key(degenerate, score) -> tuple:
    """The one order of every selecting estimator: a degenerate clustering ranks after every
    one that is not, whatever its score; then the lower score.

    Examples
    --------
    >>> sorted([rank_key(True, 0.1), rank_key(False, 0.9)])
    [(False, 0.9), (True, 0.1)]
    """
    return bool(degenerate), float(score)


def keep_best(best, degenerate, score) -> bool:
    """Whether a clustering (``degenerate``, ``score``) replaces ``best``, the tuple
    ``(degenerate, score, ...)`` kept so far (None: nothing yet), by :func:`rank_key`;
    a tie keeps the earlier.

    Examples
    --------
    >>> keep_best(None, True, 0.5), keep_best((True, 0.1), False, 0.9)
    (True, True)
    >>> keep_best((False, 0.2), False, 0.2)
    False
    """
    return best is None or rank_key(degenerate, score) < rank_key(*best[:2])


def fit_candidates(names: Iterable[str], fit: Callable) -> dict:
    """Fit every candidate.

    Parameters
    ----------
    names : iterable of str
        Candidates, in tie-breaking order.
    fit : callable ``fit(name) -> labels or None``
        Labels of shape (n_nodes,) of one candidate; None skips it.

    Returns
    -------
    dict of str -> ndarray of int64, shape (n_nodes,)
        The candidates fitted, in ``names`` order.

    Examples
    --------
    >>> fitted = fit_candidates(["a", "b", "c"], lambda n: None if n == "c" else [0, 1])
    >>> list(fitted), fitted["a"].dtype
    (['a', 'b'], dtype('int64'))
    """
    labels = {}
    for name in names:
        found = fit(name)
        if found is not None:
            labels[name] = np.asarray(found, dtype=np.int64)
    return labels


def rank_candidates(labels: dict, scores: dict, n_clusters: int) -> Ranking:
    """Rank ``scores``' candidates: fewer clusters than ``min(n_clusters, n_nodes)`` last,
    then a giant cluster plus slivers, then by score; ties keep the order of ``scores``.

    Parameters
    ----------
    labels : dict of str -> array of shape (n_nodes,)
        Each candidate's labelling (a superset of ``scores``' keys is fine).
    scores : dict of str -> float
        Lower is better.
    n_clusters : int

    Returns
    -------
    Ranking

    Examples
    --------
    >>> labels = {"a": [0, 0, 0, 0], "b": [0, 0, 1, 1], "c": [0, 1, 0, 1]}
    >>> rank_candidates(labels, {"a": 0.1, "b": 0.5, "c": 0.5}, 2).order
    ('b', 'c', 'a')
    """
    names = list(scores)
    wanted = min(int(n_clusters), len(labels[names[0]])) if names else int(n_clusters)
    n_found = {c: int(np.unique(np.asarray(labels[c])).size) for c in names}
    degenerate = {c: is_degenerate(labels[c], wanted) for c in names}
    order = sorted(names, key=lambda c: (n_found[c] < wanted,
                                        *rank_key(degenerate[c], scores[c])))
    return Ranking(tuple(order), dict(scores), n_found, degenerate, wanted)


def rank_rounds(labels: dict, rounds: list, n_clusters: int) -> Ranking:
    """Rank candidates scored in several rounds (e.g. hold-out splits), where a later round
    may score only some of them (a race: the best of the first round go on).

    The candidates scored in every round rank first, by their mean score (fewer clusters or
    degenerate last among them, as :func:`rank_candidates`); the others follow in their
    first-round order. ``scores`` holds each candidate's mean over the rounds that scored it.

    Parameters
    ----------
    labels : dict of str -> array of shape (n_nodes,)
        Each candidate's labelling (of the first round).
    rounds : list of dict of str -> float
        Scores per round, lower is better; the first scores every candidate.
    n_clusters : int
        Asked for: a labelling with fewer clusters ranks last.

    Returns
    -------
    Ranking

    Examples
    --------
    >>> labels = {"a": [0, 1, 0, 1], "b": [0, 0, 1, 1], "c": [0, 1, 1, 0]}
    >>> rank_rounds(labels, [{"a": 0.1, "b": 0.2, "c": 0.3}, {"a": 0.4, "b": 0.1}], 2).order
    ('b', 'a', 'c')
    """
    first = rank_candidates(labels, rounds[0], n_clusters)
    means = {c: float(np.mean([r[c] for r in rounds if c in r])) for c in rounds[0]}
    survivors = [c for c in rounds[0] if all(c in r for r in rounds)]
    ahead = rank_candidates(labels, {c: means[c] for c in survivors}, n_clusters).order
    order = ahead + tuple(c for c in first.order if c not in survivors)
    return Ranking(order, means, first.n_found, first.degenerate, first.wanted)


def select(names: Iterable[str], fit: Callable, score: Callable,
           n_clusters: int) -> tuple[Ranking, dict]:
    """Fit, score and rank candidates: :func:`fit_candidates`, then ``score(name, labels)``
    (label-free, lower is better) of each, then :func:`rank_candidates`.

    Returns
    -------
    ranking : Ranking
    labels : dict of str -> ndarray of int64, shape (n_nodes,)

    Examples
    --------
    >>> fits = {"one": [0, 0, 0, 0], "two": [0, 0, 1, 1]}
    >>> ranking, _ = select(fits, fits.get, lambda name, y: float(y.max()), 2)
    >>> ranking.selected, ranking.note("one")
    ('two', ' (fewer clusters: ranked last)')
    """
    labels = fit_candidates(names, fit)
    scores = {name: float(score(name, y)) for name, y in labels.items()}
    return rank_candidates(labels, scores, n_clusters), labels
