"""``auto``'s candidates: which registered methods ``auto`` fits and compares (those whose
:data:`~hyperclust.cluster.registry.METHODS` entry has a
:class:`~hyperclust.cluster.registry.Candidate`, read into :data:`CANDIDATE_TABLE`), and how
it hands each one the attribute kNN graph and walks it builds once for all of them.

A plugin makes a registered method a candidate with :func:`register_candidate`.
"""

from __future__ import annotations

import dataclasses

from .._registry import add_entry
from .registry import (CANDIDATE_TABLE, METHODS, WALKS, Candidate, make_estimator,
                       register_method)

__all__ = ["Candidate", "CANDIDATE_TABLE", "WALKS", "default_candidates", "fit_candidate",
           "make_candidate", "register_candidate", "skip_reason"]


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


def skip_reason(name: str, n_clusters: int, n_nodes: int) -> str | None:
    """Why candidate ``name`` cannot run on ``n_nodes`` nodes, or None.

    Examples
    --------
    >>> skip_reason("spectral-zhou", 5, 5), skip_reason("hgnn", 5, 5)
    ('spectral clustering needs n_clusters < n_nodes', None)
    """
    if name.startswith("spectral") and n_clusters >= n_nodes:
        return "spectral clustering needs n_clusters < n_nodes"
    return None


def fit_candidate(name, hg, n_clusters, random_state, settings, walks, caps=None):
    """Candidate ``name`` fitted on ``hg`` with the shared walks.

    Parameters
    ----------
    name : str
    hg : Hypergraph, n nodes
    n_clusters, random_state : int
    settings : dict
        ``beta``, ``n_neighbors``, ``knn_method`` (:func:`make_candidate`).
    walks : dict
        By :data:`WALKS` kind: ``"plain"``/``"lazy"`` MixedWalks, ``"affinity"`` the kNN
        affinity, shape (n, n), or None (no kNN graph).
    caps : dict or None
        Parameters (e.g. ``{"n_init": 5}``) set where the candidate has them (a None
        value: its own).

    Examples
    --------
    >>> from hyperclust.datasets import hypergraph_sbm
    >>> hg = hypergraph_sbm(60, 2, homophily=0.9, n_features=0, random_state=0)
    >>> est = fit_candidate("hgnn", hg, 2, 0, {"beta": 0.5, "n_neighbors": 5,
    ...                     "knn_method": "auto"}, {"affinity": None})
    >>> est.labels_.shape
    (60,)
    """
    est, candidate = make_candidate(name, n_clusters, random_state, settings)
    own = est.get_params()
    est.set_params(**{p: int(v) for p, v in (caps or {}).items() if v is not None and p in own})
    affinity = walks.get("affinity")
    if candidate.walk is None or (affinity is None and not candidate.walk_without_features):
        est.fit(hg)
    elif candidate.walk == "affinity":
        est.fit(hg, affinity=affinity)
    else:
        est.fit(hg, walk=walks[candidate.walk])
    return est
