"""``auto``'s candidates: which registered methods ``auto`` fits and compares (those whose
:data:`~hyperclust.cluster.registry.METHODS` entry has a
:class:`~hyperclust.cluster.registry.Candidate`, read into :data:`CANDIDATE_TABLE`), and how
it hands each one the attribute kNN graph and walks it builds once for all of them.

A plugin makes a registered method a candidate with :func:`register_candidate`.
"""

from __future__ import annotations

import dataclasses
import sys
import time

from .._registry import add_entry
from .registry import (CANDIDATE_TABLE, METHODS, WALKS, Candidate, make_estimator,
                       register_method)

__all__ = ["Candidate", "CANDIDATE_TABLE", "WALKS", "candidate_fitter", "default_candidates",
           "make_candidate", "register_candidate"]


def register_candidate(name: str, candidate: Candidate, *, replace: bool = False) -> None:
    """Make the registered method ``name`` an ``auto`` candidate (last in tie order).

    Examples
    --------
    >>> star = METHODS["spectral-star"]
    >>> register_candidate("spectral-star", Candidate())
    >>> "spectral-star" in default_candidates(has_features=False)
    True
    >>> register_method("spectral-star", star, replace=True)  # no longer a candidate
    """
    if name not in METHODS:
        raise ValueError(f"{name!r} is not a registered method; register_method it first")
    add_entry(dict(CANDIDATE_TABLE), name, candidate, Candidate, "auto candidate",
              replace=replace)  # the checks
    register_method(name, dataclasses.replace(METHODS[name], candidate=candidate), replace=True)


def default_candidates(has_features: bool, heterophilic: bool = False) -> tuple:
    """The default candidate names, in tie order: those that need attributes only with
    ``has_features``; the heterophilic ones only with ``heterophilic`` (and, as in ``auto``,
    after the others).

    Examples
    --------
    >>> default_candidates(has_features=False)
    ('ahcka', 'hgnn', 'spectral-zhou', 'spectral-clique', 'hsbm')
    >>> "kmeans" in default_candidates(has_features=True)
    True
    >>> default_candidates(True, heterophilic=True)[-1]
    'spectral-signed'
    """
    names = tuple(n for n, c in CANDIDATE_TABLE.items()
                  if not c.heterophilic and (has_features or not c.needs_features))
    if heterophilic and has_features:
        names += tuple(n for n, c in CANDIDATE_TABLE.items() if c.heterophilic)
    return names


def make_candidate(name: str, n_clusters: int, random_state, settings: dict):
    """``(estimator, candidate)``: the unfitted estimator of candidate ``name`` with
    ``settings`` (``beta``, ``n_neighbors``, ``knn_method``) set as its table entry says.

    Examples
    --------
    >>> est, c = make_candidate("hgnn-mixed", 3, 0, {"beta": 0.25, "n_neighbors": 5,
    ...                                              "knn_method": "auto"})
    >>> est.knn_beta, est.knn_neighbors, c.walk
    (0.25, 5, 'lazy')
    """
    if name not in CANDIDATE_TABLE:
        raise ValueError(f"unknown candidate {name!r}; choose from {tuple(CANDIDATE_TABLE)}")
    candidate = CANDIDATE_TABLE[name]
    est = make_estimator(name, n_clusters, random_state=random_state)
    return est.set_params(**{kw: settings[p] for p, kw in candidate.settings.items()}), candidate


def candidate_fitter(hg, n_clusters, random_state, names, settings, walks, affinity, fitted,
                     times, skipped, *, key=None, caps=None, verbose=False):
    """``fit(name) -> labels or None``: fits candidate ``name`` on ``hg`` with the shared
    walks and kNN affinity (None, recorded in ``skipped``, when it cannot run on this input).

    Parameters
    ----------
    hg : Hypergraph, n nodes
    n_clusters, random_state : int
    names : sequence of str
        The candidates of this round (for the progress line).
    settings : dict
        ``beta``, ``n_neighbors``, ``knn_method`` (:func:`make_candidate`).
    walks : dict of str -> MixedWalk
        By :data:`WALKS` kind; ``affinity``: the kNN affinity, shape (n, n), or None.
    fitted, times, skipped : dict
        Filled in place: the fitted estimators, the seconds per fit (under ``key`` or the
        name, summed), the reason a candidate was skipped.
    caps : dict or None
        Parameters (e.g. ``{"n_init": 5}``) set where the candidate has them (a None
        value: its own).
    verbose : bool
        One progress line per fit to stderr.

    Examples
    --------
    >>> from hyperclust.datasets import hypergraph_sbm
    >>> hg = hypergraph_sbm(60, 2, homophily=0.9, n_features=0, random_state=0)
    >>> fitted, times, skipped = {}, {}, {}
    >>> fit = candidate_fitter(hg, 2, 0, ("hgnn",), {"beta": 0.5, "n_neighbors": 5,
    ...                        "knn_method": "auto"}, {}, None, fitted, times, skipped)
    >>> fit("hgnn").shape, list(fitted), list(times)
    ((60,), ['hgnn'], ['hgnn'])
    """
    def fit(name):
        if name.startswith("spectral") and n_clusters >= hg.n_nodes:
            skipped[name] = "spectral clustering needs n_clusters < n_nodes"
            return None
        t0 = time.perf_counter()
        est, candidate = make_candidate(name, n_clusters, random_state, settings)
        own = est.get_params()
        est.set_params(**{p: int(v) for p, v in (caps or {}).items()
                          if v is not None and p in own})
        if candidate.walk is None or (affinity is None and not candidate.walk_without_features):
            est.fit(hg)
        elif candidate.walk == "affinity":
            est.fit(hg, affinity=affinity)
        else:
            est.fit(hg, walk=walks[candidate.walk])
        times[key or name] = times.get(key or name, 0.0) + time.perf_counter() - t0
        fitted[name] = est
        if verbose:
            print(f"auto: {key or name} fitted in {time.perf_counter() - t0:.2f} s "
                  f"({names.index(name) + 1}/{len(names)})", file=sys.stderr, flush=True)
        return est.labels_

    return fit
