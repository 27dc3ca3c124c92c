"""``auto``: fit a small, fixed set of candidate methods and keep the clustering that best
predicts data no candidate saw: a share of the hyperedges and of the attribute columns is
held out, every candidate is fitted on the rest, and each partition is scored by how well a
block model of it predicts the held-out part
(:func:`~hyperclust.cluster.hsbm_heldout.heldout_errors`); the pick is then refitted on all
the data. (``selection="rwr"``: the former score, the label-free
:func:`~hyperclust.selection.objectives.rwr_conductance` on the mixed walk most candidates optimise.)

The candidate set is fixed (no per-dataset switches): the same methods for every input,
less those that need attributes when there are none. One kNN graph and one walk are built and
shared by every candidate. No label is used anywhere.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..._validation import Check, Interval, Options
from ...operators.knn import KNN_METHODS
from ...selection.loop import rank_candidates, rank_rounds
from ...selection.race import RACE_SES, race_survivors
from ..base import SHARED_CONSTRAINTS, HypergraphClusterer, check_hypergraph, check_n_clusters
from ..candidates import CANDIDATE_TABLE, default_candidates
from ..hsbm_heldout import WEIGHTINGS, paired_standard_errors
from .decide import Decision, decide
from ._fitting import (DEFAULT_BETA, Fits, Settings, fit_all, fit_round, holdout_splits,
                       resolve_beta, score, shared_walks)
from .reason import selection_reason
from .screen import first_fit

__all__ = ["AutoClusterer", "CANDIDATES", "STRUCTURE_CANDIDATES", "HETEROPHILIC_CANDIDATES"]

#: Selection scores: held-out prediction (the default) or the random-walk conductance.
SELECTIONS = ("heldout", "rwr")
#: Paired standard errors behind the first split's best that still go on in the race: 1.5 fits
#: ~20% fewer later-split candidates than 2, picks as good (replay, auto.md at 9466338).
RACE_MARGIN = 1.5
#: The race's indifference zone (:func:`~hyperclust.selection.race.race_survivors`): a
#: leader that no survivor can beat by more than this held-out error (1 - AUC) goes on
#: alone.
RACE_INDIFFERENCE = 1e-3
#: k-means restarts of the candidates' fits on the hold-out splits (their own, 10, in the
#: refit): 5 kept the picks on average at ~.7x the CPU time on cora-ca; 3 made them worse
#: (mean ACC gap to the best full fit -.0208 vs -.0175, 31 settings; auto.md at 9466338).
SPLIT_N_INIT = 5
#: ``max_iter`` of ``ahcka`` (its own 200 in the refit) in the split fits, which only rank:
#: 100 kept the picks (replay, auto.md at 9466338); 50 lost cora-ca's (-.021 ACC).
SPLIT_MAX_ITER = 100
#: Residual at which the block eigensolver of the structural input (``hgnn``, ``hsbm``'s
#: start) stops in the split fits (its own 1e-8 in the refit): the cluster columns are at
#: ~1e-10 by then; the bulk columns' residual halves per iteration, so 1e-8 costs ~2.5x the
#: iterations (docs/results/structural_growth.md). 1e-3 against 1e-4: the same picks on the
#: protocol's design sets, 8% / 22% less CPU at 10^4 / 10^5 idle (docs/results/auto.md).
SPLIT_TOL = 1e-3


def __getattr__(name):
    """The candidate lists, read from :data:`~hyperclust.cluster.candidates.CANDIDATE_TABLE`
    when asked for (so a candidate registered later is in them): ``CANDIDATES`` with
    attributes, ``STRUCTURE_CANDIDATES`` without, ``HETEROPHILIC_CANDIDATES`` added when the
    hyperedges are heterophilic."""
    if name == "CANDIDATES":
        return default_candidates(has_features=True)
    if name == "STRUCTURE_CANDIDATES":
        return default_candidates(has_features=False)
    if name == "HETEROPHILIC_CANDIDATES":
        return tuple(n for n, c in CANDIDATE_TABLE.items() if c.heterophilic)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class AutoClusterer(HypergraphClusterer):
    """Fit every candidate method on most of the data and return the one whose partition
    best predicts the rest.

    Candidates: the registered methods in
    :data:`~hyperclust.cluster.candidates.CANDIDATE_TABLE` (:data:`CANDIDATES`; without
    attributes :data:`STRUCTURE_CANDIDATES`), by default ``ahcka`` (:class:`~hyperclust.cluster.ahcka.AHCKA`), ``hgnn-mixed`` / ``hgnn``
    (:class:`~hyperclust.cluster.baselines.HGNNSmoothingKMeans` on the mixed walk / on the
    hypergraph), ``spectral-zhou-mixed`` / ``spectral-zhou`` / ``spectral-clique``
    (:class:`~hyperclust.cluster.spectral.SpectralHypergraphClustering`), ``kmeans`` on
    the attributes and ``hsbm`` (:class:`~hyperclust.cluster.hsbm.HypergraphSBM`).

    With ``selection="heldout"`` (the default) a share ``holdout_share`` of the hyperedges
    and 20% of the attribute columns are held out
    (:func:`~hyperclust.cluster.hsbm_heldout.split_hypergraph`); every candidate is fitted
    on the rest and scored by :func:`~hyperclust.cluster.hsbm_heldout.heldout_errors` (how
    much worse than perfectly its partition's block model tells the held-out hyperedges from
    degree-matched fakes, and how much worse than perfectly its clusters' centroids match the
    held-out columns, the two views weighted by ``view_weights``; averaged over ``n_splits``
    independent splits). No candidate optimises
    this score, unlike the random-walk conductance most of them relax. The lowest error
    wins (ties to the earlier candidate), and the winner is refitted on all the data. With
    ``selection="rwr"`` every candidate is fitted on all the data and scored by
    :func:`~hyperclust.selection.objectives.rwr_conductance` on ``M = (1 - beta) P + beta Q`` with
    ``balance``. Either way, a candidate with fewer distinct clusters than asked for, or a
    giant cluster plus slivers (:func:`~hyperclust.selection.objectives.is_degenerate`), ranks last.
    The decision (:func:`~hyperclust.cluster.auto.decide.decide`): when the best
    partition by the held-out hyperedges and the best by the held-out attributes disagree
    (NMI < .3), it says so and returns the best candidate built from both views, unless the
    pick beats it on every split. A refit on all the data that collapses is replaced by the
    next candidate's.
    Cost: every candidate's fit on the first split, on each further split the fits of the
    ``race`` best that are within ``race_margin`` standard errors of the best (none when the
    best is alone there or none could beat it by ``race_indifference``), one refit and one
    more kNN search; the split fits run ``split_n_init`` k-means restarts, at most
    ``split_max_iter`` AHCKA iterations and eigensolves to ``split_tol``, the refit the
    candidate's own.

    Parameters
    ----------
    n_clusters : int
    candidates : "default" or sequence of str, default "default"
        Names from :data:`~hyperclust.cluster.candidates.CANDIDATE_TABLE`; attribute-only names are skipped on hypergraphs
        without attributes.
    n_neighbors : int, default 10
        ``K`` of the shared attribute kNN graph.
    beta : float in [0, 1] or "auto", default "auto"
        Weight of the kNN walk, in the mixed candidates and in the score. ``"auto"``: 0.5,
        or 1 (the kNN walk alone) when the hyperedges join clearly *less* similar nodes than
        random pairs do (:func:`~hyperclust.selection.alignment.attribute_alignment`, ``t < -3``): on
        such a heterophilic hypergraph a walk along hyperedges crosses between the groups
        the attributes form, and mixing it in pulls every candidate away from them. There
        the hyperedges are used as evidence *against* grouping their members: the default
        candidates gain :data:`HETEROPHILIC_CANDIDATES` (signed spectral clustering:
        kNN neighbours attract, hyperedge co-members repel) and every score gains
        :func:`~hyperclust.selection.objectives.hyperedge_cohesion` (how much more often than chance
        hyperedge members share a cluster).
    alpha : float in (0, 1], default 0.2
        Restart probability of the score.
    n_hops : int, default 3
        Walk steps of the score.
    balance : {"min", "mean"}, default "min"
        Cluster normalisation of the score (:func:`~hyperclust.selection.objectives.rwr_conductance`).
    knn_method : {"auto", "exact", "approximate"}, default "auto"
    keep_candidates : bool, default True
        Keep every candidate's labels in ``candidates_`` (``O(n)`` each).
    selection : {"heldout", "rwr"}, default "heldout"
        The selection score (see above).
    holdout_share : float in [0, 1], default 0.1
        Share of the hyperedges held out.
    n_splits : int, default 3
        Independent hold-out splits whose errors are averaged (each refits the candidates
        still in the ``race``; more splits, less noise in the pick: with one split the pick
        on co-citation sets varied with the split, auto.md at 9466338).
    race : int or None, default 4
        With ``n_splits > 1``, only the ``race`` best candidates of the first split are
        fitted and scored on the other splits (None: every candidate): a race, costing
        ``race / n_candidates`` of each further split. Those candidates rank ahead of the
        others, by their error averaged over the splits.
    race_margin : float >= 0 or None, default 1.5
        Of those, only the candidates whose first-split error is at most ``race_margin``
        paired standard errors above the best's
        (:func:`~hyperclust.cluster.hsbm_heldout.paired_standard_errors`: the same held-out
        items judge both) go on, and after each further split only those whose mean error
        is within ``race_margin`` standard errors of the leader's (per-split paired
        standard errors, root-sum-squared, over the number of splits); when the leader is
        alone, no further split is fitted. None: the ``race`` best go through every split,
        however far behind.
    race_indifference : float >= 0, default 1e-3
        The race ends, the leader alone going on, once no survivor could be more than this
        better than the leader at ``race_margin`` standard errors (an indifference zone:
        the errors' standard errors shrink as the held-out items grow with the input, so
        large inputs fit fewer splits). 0: no zone (:data:`RACE_INDIFFERENCE`).
    race_se : {"items", "splits"}, default "items"
        The race's standard error (:func:`~hyperclust.selection.race.race_survivors`):
        ``"items"``, the paired standard errors above; ``"splits"``, those plus the spread
        of each candidate's difference to the leader from split to split (each split refits
        the candidates), so no candidate of the ``race`` is dropped before the second split.
    split_n_init : int >= 1 or None, default 5
        k-means restarts of every candidate that has ``n_init`` (and of ``hsbm``'s start)
        in its fits on the hold-out splits, which only rank the candidates; the refit of the
        pick uses the candidate's own count. None: the candidates' own counts everywhere.
        Fewer restarts are cheaper but noisier: below 5 they made the picks worse
        (:data:`SPLIT_N_INIT`).
    split_max_iter : int >= 1 or None, default 100
        ``max_iter`` of every candidate that has one (``ahcka``'s orthogonal iterations) in
        its fits on the hold-out splits; the refit of the pick uses the candidate's own.
        None: the candidates' own caps everywhere (:data:`SPLIT_MAX_ITER`).
    split_tol : float > 0 or None, default 1e-3
        Residual at which the block eigensolver of the structural input stops in the fits
        on the hold-out splits (:func:`~hyperclust.operators.subspace.ranking_tolerance`);
        the refit uses its own 1e-8. None: 1e-8 everywhere (:data:`SPLIT_TOL`).
    view_weights : {"precision", "coverage"}, default "precision"
        How the held-out error weighs its two views
        (:func:`~hyperclust.cluster.hsbm_heldout.heldout_errors`): ``"precision"``, by
        ``1 / SE^2`` of each view's error over the candidates (the fewer or noisier the
        held-out items, the less a view sways the pick; the scores then depend on the set of
        candidates); ``"coverage"``, by the share of the nodes each view judges.
    knn_screen : bool, default True
        Where the first split's attributes would be searched approximately (above the
        exact-search crossover, or ``knn_method="approximate"``), fit its graph-fitted
        candidates first on a coarse kNN graph and run the accurate search only when one of
        them comes close to the best (:mod:`~hyperclust.cluster.auto.screen`): that search
        costs more than every candidate together at 10^6 nodes and serves only them. Below
        the crossover nothing changes.
    verbose : bool, default False
        Print one progress line per candidate fit to stderr (the CLI turns it on).
    random_state : int, default 0
        Passed to every candidate; the result is deterministic for a seed.

    Attributes
    ----------
    labels_ : ndarray of int64, shape (n_nodes,)
    embedding_ : ndarray, shape (n_nodes, d)
        The selected candidate's embedding (the one-hot indicator of its labels,
        ``d = max label + 1``, for a method that has none).
    selected_ : str
        The candidate whose refit is returned.
    selection_report_ : Decision
        The decision on the split fits: the ranking, the best candidate by each view, their
        NMI, whether they disagree and its line
        (:class:`~hyperclust.cluster.auto.decide.Decision`).
    replaced_ : tuple of str
        Candidates whose refit on all the data collapsed and was replaced.
    scores_ : dict of str -> float
        Selection score of every candidate (lower is better). Candidates whose labelling
        has fewer distinct clusters than ``min(n_clusters, n_nodes)``, or is degenerate,
        rank after every candidate that is not, whatever their score.
    ranking_ : Ranking
        The candidates best first, with their scores and why any ranks last
        (:class:`~hyperclust.selection.Ranking`).
    selection_reason_ : str
        One line: the pick, the score used and every candidate's score in rank order.
    split_ : HoldoutSplit or None
        The (first) hold-out split (None with ``selection="rwr"``).
    degenerate_ : dict of str -> bool
        Whether each candidate's labelling is a giant cluster plus slivers.
    heterophilic_ : bool
        Whether ``beta="auto"`` found the hyperedges heterophilic (then the scores are
        ``rwr_conductance + hyperedge_cohesion``).
    n_found_ : dict of str -> int
        Distinct clusters in every candidate's labelling.
    skipped_ : dict of str -> str
        Candidates not fitted on this input, with the reason (spectral candidates when
        ``n_clusters >= n_nodes``).
    candidates_ : dict of str -> ndarray of shape (n_nodes,)
        Every candidate's labels (when ``keep_candidates``): with ``selection="heldout"``
        their fits on the training part of the first split.
    split_candidates_ : list of dict of str -> ndarray of shape (n_nodes,)
        Every candidate's labels fitted on each split's training part, one dict per split
        (when ``keep_candidates``; the first is ``candidates_``).
    n_splits_ : int
        Hold-out splits used (1 with ``selection="rwr"`` or an input too small to split).
    raced_ : tuple of str
        The candidates scored on every split (all of them unless the ``race`` left some
        after the first).
    split_fits_ : list of tuple of str
        The candidates fitted and scored on each split, in order.
    best_estimator_ : HypergraphClusterer
        The fitted winning estimator.
    fit_times_ : dict of str -> float
        Seconds per candidate fit, summed over splits (the shared kNN search under
        ``"knn"``; the refit of the pick under ``"<name>-full"`` and its kNN under
        ``"knn-full"``; the kNN screen's search and fits under ``"knn-screen"`` and
        ``"<name>-screen"``).
    knn_screen_ : dict of str -> (float, float) or None
        The kNN screen: each graph-fitted candidate's first-split error on the coarse graph
        minus the best's, and its paired standard error (None: no screen ran).
    accurate_knn_ : bool or None
        Whether the accurate search ran after the screen (None: no screen ran).
    walk_ : MixedWalk
        The walk of the last fit (the pick's refit with the held-out selection): the mixed
        walk, or the hypergraph walk alone when neither the pick nor the score walks on the
        kNN graph (its search is then skipped).
    beta_ : float
        The kNN weight used.
    alignment_ : AttributeAlignment or None
        The heterophily test behind ``beta="auto"`` (None without attributes or with a
        numeric ``beta``).

    Examples
    --------
    >>> from hyperclust.datasets import hypergraph_sbm
    >>> from hyperclust.metrics import evaluate
    >>> hg = hypergraph_sbm(200, 2, homophily=0.9, n_features=8, random_state=0)
    >>> est = AutoClusterer(2, random_state=0).fit(hg)
    >>> est.selected_ == est.ranking_.order[0], sorted(est.scores_) == sorted(est.candidates_)
    (True, True)
    >>> evaluate(hg.labels, est.labels_)["acc"] > 0.9
    True
    """

    _parameter_constraints = {
        **SHARED_CONSTRAINTS,
        "candidates": ["default", Check(lambda v: not isinstance(v, (str, bytes))
                                        and hasattr(v, "__iter__"), "a sequence of names")],
        "n_neighbors": [Interval(int, 1)],
        "beta": ["auto", Interval(float, 0, 1)],
        "alpha": [Interval(float, 0, 1, closed="right")],
        "n_hops": [Interval(int, 0)],
        "balance": [Options(("min", "mean"))],
        "knn_method": [Options(KNN_METHODS)],
        "keep_candidates": [bool],
        "selection": [Options(SELECTIONS)],
        "holdout_share": [Interval(float, 0, 1)],
        "n_splits": [Interval(int, 1)],
        "race": [None, Interval(int, 1)],
        "race_margin": [None, Interval(float, 0)],
        "race_indifference": [Interval(float, 0)],
        "race_se": [Options(RACE_SES)],
        "split_n_init": [None, Interval(int, 1)],
        "split_max_iter": [None, Interval(int, 1)],
        "split_tol": [None, Interval(float, 0, closed="neither")],
        "view_weights": [Options(WEIGHTINGS)],
        "knn_screen": [bool],
        "verbose": [bool, Interval(int, 0)],
    }

    def __init__(self, n_clusters=2, *, candidates="default", n_neighbors=10, beta="auto",
                 alpha=0.2, n_hops=3, balance="min", knn_method="auto", keep_candidates=True,
                 selection="heldout", holdout_share=0.1, n_splits=3, race=4,
                 race_margin=RACE_MARGIN, race_indifference=RACE_INDIFFERENCE, race_se="items",
                 split_n_init=SPLIT_N_INIT, split_max_iter=SPLIT_MAX_ITER, split_tol=SPLIT_TOL,
                 view_weights="precision", knn_screen=True, verbose=False, random_state=0):
        self.n_clusters = n_clusters
        self.candidates = candidates
        self.n_neighbors = n_neighbors
        self.beta = beta
        self.alpha = alpha
        self.n_hops = n_hops
        self.balance = balance
        self.knn_method = knn_method
        self.keep_candidates = keep_candidates
        self.selection = selection
        self.holdout_share = holdout_share
        self.n_splits = n_splits
        self.race = race
        self.race_margin = race_margin
        self.race_indifference = race_indifference
        self.race_se = race_se
        self.split_n_init = split_n_init
        self.split_max_iter = split_max_iter
        self.split_tol = split_tol
        self.view_weights = view_weights
        self.knn_screen = knn_screen
        self.verbose = verbose
        self.random_state = random_state

    def _candidate_names(self, has_features, heterophilic):
        if isinstance(self.candidates, str):  # "default", checked by the table
            return default_candidates(has_features, heterophilic)
        names, known = tuple(self.candidates), tuple(CANDIDATE_TABLE)
        bad = [c for c in names if c not in known]
        if bad or not names:
            raise ValueError(f"unknown or no candidates {bad!r}; choose from {known}")
        if not has_features:
            names = tuple(c for c in names if not CANDIDATE_TABLE[c].needs_features)
            if not names:
                raise ValueError("every requested candidate needs node attributes, and this "
                                 "hypergraph has none")
        return names

    def fit(self, hypergraph, y=None):
        """Fit the candidates on ``hypergraph`` (its training part, with the held-out
        selection) and keep the best-scoring clustering."""
        hg = check_hypergraph(hypergraph)
        k = check_n_clusters(self.n_clusters, hg.n_nodes)
        seed = self._rng_seed(self.random_state)
        beta, self.alignment_ = resolve_beta(hg, self.beta)
        self.heterophilic_ = bool(self.alignment_ is not None and self.alignment_.heterophilic)
        names = self._candidate_names(hg.features is not None, self.heterophilic_)
        s = Settings(k, seed, beta, int(self.n_neighbors), self.knn_method, self.view_weights,
                     float(self.alpha), int(self.n_hops), self.balance, self.heterophilic_,
                     self.split_n_init, self.split_max_iter, self.split_tol, self.verbose)
        splits = holdout_splits(hg, self.selection, float(self.holdout_share),
                                int(self.n_splits), seed)
        first, screen = first_fit(s, hg, splits[0], names, self.knn_screen)
        rule = RaceRule(self.race, self.race_margin, self.race_se, self.race_indifference)
        fits = race(s, first, splits, rule, screen.gaps if screen.accurate is False else (),
                    lambda sp, c: score(s, sp.train, sp, fit_round(s, sp.train, sp, c)))
        decision = decide(fits, k, RACE_MARGIN if rule.margin is None else rule.margin)
        self.ranking_ = decision.ranking
        pick, self.replaced_ = final_fit(s, hg, decision, first, splits[0] is None)
        self.selection_report_ = decision
        self._record(first, fits, splits[0], screen, s)
        self.selected_ = next(iter(pick.fitted))
        self.best_estimator_ = pick.fitted[self.selected_]
        self.labels_ = np.asarray(pick.labels[self.selected_], dtype=np.int64)
        self.embedding_ = self._embedding(self.best_estimator_)
        self.walk_ = pick.walks["plain"]
        self.beta_ = beta
        self.selection_reason_ = selection_reason(self)
        return self

    def _record(self, first, fits, split, screen, s):
        """The fitted attributes that describe the selection."""
        self.n_found_, self.degenerate_ = self.ranking_.n_found, self.ranking_.degenerate
        self.scores_ = self.ranking_.scores
        self.candidates_ = first.labels if self.keep_candidates else {}
        self.split_candidates_ = [f.labels for f in fits] if self.keep_candidates else []
        self.n_splits_, self.raced_ = len(fits), tuple(fits[-1].labels)
        self.split_fits_ = [tuple(f.labels) for f in fits]
        self.split_, self.knn_screen_, self.accurate_knn_ = split, screen.gaps, screen.accurate
        self.fit_times_, self.skipped_ = s.times, s.skipped

    def _embedding(self, est):
        """The pick's ``embedding_``, or the one-hot indicator of its labels when the
        method has none (a registered candidate need only set ``labels_``)."""
        if hasattr(est, "embedding_"):
            return np.asarray(est.embedding_)
        return np.eye(int(self.labels_.max()) + 1)[self.labels_]


@dataclass(frozen=True)
class RaceRule:
    """``auto``'s race: the ``size`` best of the first split go on (None: all), while within
    ``margin`` standard errors (``se``) of the leader (None: however far behind), until none
    could beat it by ``indifference`` (:func:`~hyperclust.selection.race.race_survivors`)."""

    size: int | None
    margin: float | None
    se: str
    indifference: float

    def survivors(self, fits: list, splits: list, names, view_weights: str, k: int) -> tuple:
        """Of ``names`` (scored on every round of ``fits``), those still in the race."""
        lead = rank_rounds(fits[0].labels, [f.scores for f in fits], k).order[0]
        paired = [paired_standard_errors(sp, {c: f.labels[c] for c in names}, lead,
                                         view_weights, f.memo) for f, sp in zip(fits, splits)]
        return race_survivors([{c: f.scores[c] for c in names} for f in fits], paired, lead,
                              float(self.margin), self.se, float(self.indifference))


def first_survivors(s: Settings, first: Fits, split, rule: RaceRule) -> tuple:
    """The candidates of ``first`` that go on to the further splits: the ``rule.size`` best,
    less those more than ``rule.margin`` standard errors behind the best (in fit order)."""
    ahead = rank_candidates(first.labels, first.scores, s.k).order[:rule.size or len(first.labels)]
    if rule.margin is not None:
        paired = paired_standard_errors(split, first.labels, ahead[0], s.view_weights, first.memo)
        ahead = race_survivors([{c: first.scores[c] for c in ahead}], [paired], ahead[0],
                               float(rule.margin), rule.se, float(rule.indifference))
    return tuple(c for c in first.labels if c in ahead)


def race(s: Settings, first: Fits, splits: list, rule: RaceRule, screened_out, fit_split):
    """Every round of fits: ``first`` then, on each further split, ``fit_split(split, names)
    -> Fits`` (scored) of the candidates still in the race (:func:`first_survivors` less
    ``screened_out``, then those within the margin), until one is left."""
    if len(splits) < 2:
        return [first]
    fits = [first]
    names = tuple(c for c in first_survivors(s, first, splits[0], rule) if c not in screened_out)
    for split in splits[1:]:
        if len(names) < 2:  # one left: the splits so far have decided
            break
        fits.append(fit_split(split, names))
        if rule.margin is not None:
            names = rule.survivors(fits, splits, names, s.view_weights, s.k)
    return fits


def final_fit(s: Settings, hg, decision: Decision, first: Fits, fitted_on_all: bool):
    """``(fits, replaced)``: the pick refitted on all the data (``first`` itself when its fits
    were on all the data), or, when that refit collapses (fewer clusters or a giant cluster
    plus slivers), the next candidate of ``decision.order`` whose refit does not (the first
    refit when every one collapses); ``replaced``, the collapsed ones."""
    replaced, kept = [], None
    for name in decision.order:
        fits = (Fits({name: first.labels[name]}, {name: first.fitted[name]}, first.walks)
                if fitted_on_all else refit(s, hg, name))
        if name not in fits.labels:  # skipped on this input
            continue
        kept = kept or fits
        if rank_candidates(fits.labels, {name: 0.0}, s.k).note(name) == "":
            return fits, tuple(replaced)
        replaced.append(name)
    return kept, ()


def refit(s: Settings, hg, best: str) -> Fits:
    """The pick refitted on all the data with its own settings (fit key ``"<best>-full"``,
    its kNN search under ``"knn-full"``)."""
    walks = shared_walks(s, hg, (best,), key="knn-full")
    labels, fitted = fit_all(s, hg, (best,), walks, key=best + "-full")
    return Fits(labels, fitted, walks)
