"""Fitting ``auto``'s candidates on one hold-out split: the shared kNN graph and walks, the
candidates' fits and their selection scores, as one named result (:class:`Fits`)."""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field

from ...operators.knn import MixedWalk, coarse_knn_affinity, knn_affinity
from ...operators.subspace import ranking_tolerance
from ...selection.alignment import attribute_alignment
from ...selection.objectives import hyperedge_cohesion, rwr_conductance
from ..baselines import shared_reductions
from ..candidates import CANDIDATE_TABLE, fit_candidate, skip_reason
from ..hsbm_heldout import heldout_errors, split_hypergraph

__all__ = ["DEFAULT_BETA", "Fits", "Settings", "fit_all", "fit_round", "holdout_splits",
           "resolve_beta", "score", "shared_walks"]

#: kNN weight of ``beta="auto"`` unless the hyperedges are heterophilic.
DEFAULT_BETA = 0.5


@dataclass
class Settings:
    """What every round of fits shares: ``auto``'s parameters for this input, and the
    records the rounds fill (``times``: seconds per fit key; ``skipped``: why a candidate
    was not fitted)."""

    k: int
    seed: int
    beta: float
    n_neighbors: int
    knn_method: str
    view_weights: str
    alpha: float
    n_hops: int
    balance: str
    heterophilic: bool
    split_n_init: int | None
    split_max_iter: int | None
    split_tol: float | None
    verbose: bool = False
    times: dict = field(default_factory=dict)
    skipped: dict = field(default_factory=dict)

    @property
    def knn(self) -> dict:
        """The settings a candidate's table entry may pass on (:func:`make_candidate`)."""
        return {"beta": self.beta, "n_neighbors": self.n_neighbors,
                "knn_method": self.knn_method}


@dataclass
class Fits:
    """One round: the candidates fitted on a split's training part and scored on it.

    Attributes
    ----------
    labels : dict of str -> ndarray
    fitted : dict of str -> estimator
    walks : dict of str -> MixedWalk or array
        ``"plain"`` (and ``"lazy"``) walks, ``"affinity"`` the kNN affinity or None.
    scores : dict of str -> float
        Lower is better (empty until scored).
    memo : dict
        The held-out terms behind ``scores``, which the race's standard errors read again.
    """

    labels: dict
    fitted: dict
    walks: dict
    scores: dict = field(default_factory=dict)
    memo: dict = field(default_factory=dict)


def shared_walks(s: Settings, hg, names, key="knn", scored=False, coarse=False) -> dict:
    """The walks the candidates ``names`` share, built once on ``hg``: ``"plain"``,
    ``"lazy"`` when one needs it, and ``"affinity"``, the kNN affinity (None without
    attributes, or when neither a candidate nor the score (``scored``) walks on it;
    ``coarse``: the screen's, timed under ``"knn-screen"``)."""
    walked = scored or any(CANDIDATE_TABLE[c].walk is not None for c in names)
    has_features = hg.features is not None and s.beta > 0 and hg.n_nodes > 1 and walked
    key = "knn-screen" if coarse else key
    t0 = time.perf_counter()
    search, how = ((coarse_knn_affinity, {}) if coarse else (knn_affinity,
                                                              {"method": s.knn_method}))
    A = search(hg.features, s.n_neighbors, random_state=s.seed, **how) if has_features else None
    s.times[key] = s.times.get(key, 0.0) + time.perf_counter() - t0
    walks = {"plain": MixedWalk(hg, A, beta=s.beta), "affinity": A}
    if any(CANDIDATE_TABLE[c].walk == "lazy" for c in names):
        walks["lazy"] = MixedWalk(hg, A, beta=s.beta, self_loops=1.0)
    return walks


def fit_all(s: Settings, hg, names, walks, caps=None, key=None) -> tuple[dict, dict]:
    """``(labels, fitted)`` of the candidates ``names`` on ``hg`` (those that cannot run on
    it recorded in ``s.skipped``); seconds under ``key`` or the name in ``s.times``."""
    labels, fitted = {}, {}
    for i, name in enumerate(names):
        why = skip_reason(name, s.k, hg.n_nodes)
        if why:
            s.skipped[name] = why
            continue
        t0 = time.perf_counter()
        fitted[name] = fit_candidate(name, hg, s.k, s.seed, s.knn, walks, caps)
        labels[name] = fitted[name].labels_.astype("int64", copy=False)
        spent = time.perf_counter() - t0
        s.times[key or name] = s.times.get(key or name, 0.0) + spent
        if s.verbose:
            print(f"auto: {key or name} fitted in {spent:.2f} s ({i + 1}/{len(names)})",
                  file=sys.stderr, flush=True)
    return labels, fitted


def fit_round(s: Settings, train, split, names, coarse=False, max_iter=None) -> Fits:
    """The candidates ``names`` fitted on ``train`` with the split fits' caps (restarts,
    iterations, eigensolver tolerance; ``max_iter``: a lower cap), unscored. ``coarse``: on
    the screen's coarse kNN graph."""
    walks = shared_walks(s, train, names, scored=split is None, coarse=coarse)
    caps = {} if split is None else {"n_init": s.split_n_init, "max_iter": min(
        (v for v in (s.split_max_iter, max_iter) if v is not None), default=None)}
    loose = None if split is None or s.split_tol is None else float(s.split_tol)
    with shared_reductions(), ranking_tolerance(loose):  # one SVD, one solve for all
        labels, fitted = fit_all(s, train, names, walks, caps)
    return Fits(labels, fitted, walks)


def score(s: Settings, train, split, fits: Fits) -> Fits:
    """``fits`` with its scores and held-out terms: held-out error on ``split``, or the
    random-walk score on ``train`` when ``split`` is None (lower is better)."""
    if split is not None:
        fits.memo = {}
        fits.scores = heldout_errors(split, fits.labels, s.view_weights, fits.memo)
        return fits
    fits.scores = {c: rwr_conductance(train, y, walk=fits.walks["plain"], alpha=s.alpha,
                                      n_hops=s.n_hops, balance=s.balance)
                   + (hyperedge_cohesion(train, y) if s.heterophilic else 0.0)
                   for c, y in fits.labels.items()}
    return fits


def resolve_beta(hg, beta):
    """``(beta, alignment)``: the kNN weight to use for ``auto``'s ``beta`` and the test
    that chose it (None unless ``"auto"`` on an attributed input)."""
    if not (isinstance(beta, str) and beta == "auto"):
        return float(beta), None
    if hg.features is None or hg.n_nodes < 3:
        return DEFAULT_BETA, None
    alignment = attribute_alignment(hg)
    return (1.0 if alignment.heterophilic else DEFAULT_BETA), alignment


def holdout_splits(hg, selection, share, n_splits, seed) -> list:
    """The hold-out splits, or ``[None]`` (every candidate fitted on all the data and
    scored by the random-walk score) with ``selection="rwr"`` or when the input is too
    small to hold anything out (no view could judge a candidate: all would tie)."""
    if selection == "rwr":
        return [None]
    splits = [split_hypergraph(hg, edge_share=share, random_state=seed + 7919 * r)
              for r in range(n_splits)]
    if not any(s.edge_coverage or s.attribute_coverage for s in splits):
        return [None]
    return splits
