"""Label-free choices of Uni-DHC's filter and output by held-out data or conductance.

Why and what was measured: docs/unidhc.md, "The deep part" and "Held-out hyperedges and
columns".
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.preprocessing import normalize
from threadpoolctl import threadpool_limits

from ..models.canonical import RIDGE
from .hsbm_heldout import heldout_errors, paired_standard_errors, split_hypergraph
from .rounding import kmeans_labels

__all__ = ["HELDOUT_CANDIDATES", "SPLIT_CANDIDATES", "SPLIT_MARGIN", "SPLIT_ROUNDS",
           "cluster_canonical_score", "heldout_choice", "split_choice", "conductance_choice"]

HELDOUT_CANDIDATES = ("filter", "concat")
"""Candidates of :func:`heldout_choice`, in the order that wins a tie."""
MIN_HELDOUT_COLUMNS = 4
"""Fewest feature columns for the held-out choice."""
HELDOUT_FOLDS = 4
"""Folds of the feature columns; each round holds one out and trains on the rest."""
HELDOUT_ROUNDS = 4
"""Rounds (held-out folds) whose scores add up; each trains one encoder."""


def cluster_canonical_score(labels: np.ndarray, R: np.ndarray, ridge: float = RIDGE) -> float:
    """Sum of the squared canonical correlations between a clustering and the columns ``R``.

    ``tr(R_w^T Y (Y^T Y)^-1 Y^T R_w)`` with ``Y`` the cluster indicator and ``R_w`` the
    centred ``R`` whitened with a ridge of ``ridge`` x its mean eigenvalue; at most ``k - 1``.

    Parameters
    ----------
    labels : ndarray of int, shape (n,)
    R : ndarray, shape (n, d)
    ridge : float, default RIDGE

    Returns
    -------
    float

    Examples
    --------
    >>> R = np.array([[0.0], [0.1], [1.0], [1.1]])
    >>> round(cluster_canonical_score(np.array([0, 0, 1, 1]), R, ridge=0.0), 3)
    0.99
    >>> round(cluster_canonical_score(np.array([0, 1, 0, 1]), R, ridge=0.0), 3)
    0.01
    """
    R = np.asarray(R, dtype=np.float64)
    R = R - R.mean(axis=0)
    C = R.T @ R
    w, V = np.linalg.eigh(C)
    w = np.maximum(w, 0) + ridge * max(np.trace(C) / len(C), np.finfo(float).tiny)
    Rw = R @ (V / np.sqrt(w))  # rotated whitening: the trace below is invariant to V
    _, y = np.unique(labels, return_inverse=True)
    Y = sp.csr_matrix((np.ones(len(y)), (np.arange(len(y)), y)))
    sums = np.asarray(Y.T @ Rw)  # (k, d): per-cluster sums
    return float(np.sum(sums ** 2 / np.bincount(y)[:, None]))


def _candidate_labels(F, encode, k, n_init, seed) -> dict:
    """``{candidate: labels}``: k-means on the normalised ``F``, alone and beside
    ``encode(F)``."""
    filt = normalize(F)
    return {"filter": kmeans_labels(filt, k, n_init, seed),
            "concat": kmeans_labels(np.hstack([filt, encode(F)]), k, n_init, seed)}


def heldout_choice(basis, coefficients, train, encode, k, n_init, seed):
    """Choose the filter output or the concatenation by held-out feature columns.

    Per held-out fold ``b`` of the columns (:data:`HELDOUT_FOLDS`, :data:`HELDOUT_ROUNDS`),
    an encoder is trained on the basis of the other columns, and both clusterings of them
    are scored by :func:`cluster_canonical_score` against the raw ``X_b``. The higher total
    wins; a tie goes to the filter.

    Parameters
    ----------
    basis : ndarray, shape (K+1, n, d), d >= :data:`MIN_HELDOUT_COLUMNS`
        The polynomial basis of the input (``basis[0]`` the raw input).
    coefficients : ndarray, shape (K+1,)
        The learned filter (power basis).
    train, encode : callable
        ``train(basis_part) -> net``; ``encode(net, F)``: the normalised encoder output.
    k, n_init, seed : int
        k-means clusters, restarts, seed (which also draws the folds).

    Returns
    -------
    choice : str
        One of :data:`HELDOUT_CANDIDATES`.
    scores : dict
        ``{candidate: [score of each round]}``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], 30)
    >>> X = 3.0 * np.eye(2)[y] @ rng.normal(size=(2, 8)) + rng.normal(size=(60, 8))
    >>> noise = 10.0 * np.eye(2)[rng.permutation(y)]
    >>> choice, scores = heldout_choice(np.stack([X, X]), np.array([1.0, 0.0]),
    ...                                 train=lambda half: None,
    ...                                 encode=lambda net, F: normalize(noise), k=2,
    ...                                 n_init=2, seed=0)
    >>> choice, len(scores["filter"])
    ('filter', 4)
    """
    d = basis.shape[2]
    folds = np.array_split(np.random.default_rng(seed).permutation(d), HELDOUT_FOLDS)
    scores = {name: [] for name in HELDOUT_CANDIDATES}
    coef = np.asarray(coefficients, dtype=basis.dtype)
    for i in range(min(HELDOUT_ROUNDS, HELDOUT_FOLDS)):
        b = folds[i]
        a = np.sort(np.concatenate(folds[:i] + folds[i + 1:]))
        part = np.ascontiguousarray(basis[:, :, a])
        net = train(part)
        F = np.tensordot(coef, part, axes=1)
        labels = _candidate_labels(F, lambda Z: encode(net, Z), k, n_init, seed)
        with threadpool_limits(1, user_api="blas"):  # the same bits whatever the threads
            for name in HELDOUT_CANDIDATES:
                scores[name].append(cluster_canonical_score(labels[name], basis[0][:, b]))
    best = max(HELDOUT_CANDIDATES, key=lambda c: sum(scores[c]))  # first wins a tie
    return best, scores


SPLIT_CANDIDATES = ("concat", "filter", "low-pass")
"""Candidates of ``embedding="split"``: the concatenation (the reference), the filter
output, the fixed ``P^2 X``."""
SPLIT_ROUNDS = 1
"""Splits (seeds ``seed + 1000 j``) whose held-out errors are averaged."""
SPLIT_MARGIN = 2.0
"""Standard errors of the paired difference by which another candidate's held-out error
must be below the first's to replace it."""


def split_choice(splits, labels, margin=SPLIT_MARGIN, weighting="coverage"):
    """The candidate with the lowest mean held-out error, if it beats the first one.

    Parameters
    ----------
    splits : list of :class:`~hyperclust.cluster.hsbm_heldout.HoldoutSplit`
    labels : list of dict of str -> ndarray of int, shape (n,)
        Per split, ``{candidate: labels}`` fitted on its ``train`` (same keys, same order).
    margin : float, default SPLIT_MARGIN
        Standard errors of the mean paired difference, ``sqrt(sum_s SE_s^2) / S``
        (:func:`~hyperclust.cluster.hsbm_heldout.paired_standard_errors`), by which a
        candidate must beat the first.
    weighting : {"coverage", "precision"}, default "coverage"
        How the hyperedge and column views are weighted.

    Returns
    -------
    choice : str
        The lowest mean error among those beating the first, else the first.
    errors : dict
        ``{candidate: mean held-out error}``.

    Examples
    --------
    >>> from hyperclust.cluster.hsbm_heldout import split_hypergraph
    >>> from hyperclust.datasets import hypergraph_sbm
    >>> hg = hypergraph_sbm(400, 2, homophily=0.95, n_features=8, random_state=0)
    >>> noise = np.random.default_rng(0).permutation(hg.labels)
    >>> split_choice([split_hypergraph(hg)], [{"concat": noise, "filter": hg.labels}])[0]
    'filter'
    """
    first = next(iter(labels[0]))
    per_split, paired = [], []
    for split, y in zip(splits, labels):
        terms = {}  # the held-out terms of each partition, shared by the two calls
        per_split.append(heldout_errors(split, y, weighting, terms))
        paired.append(paired_standard_errors(split, y, first, weighting, terms))
    errors = {c: float(np.mean([e[c] for e in per_split])) for c in labels[0]}
    se = {c: float(np.sqrt(sum(p[c] ** 2 for p in paired))) / len(paired) for c in labels[0]}
    beat = [c for c in labels[0] if c != first and errors[c] < errors[first] - margin * se[c]]
    return (min(beat, key=errors.get) if beat else first), errors


def atom_names(order: int) -> list:
    """Names of the atoms of :func:`hyperclust.models.contrast.atom_coefficients`.

    Examples
    --------
    >>> atom_names(2)
    ['I', 'P', 'P^2', 'I-P', '(I-P)^2']
    """
    return (["I", "P"] + [f"P^{j}" for j in range(2, order + 1)]
            + ["I-P"] + [f"(I-P)^{j}" for j in range(2, order + 1)])[:2 * order + 1]


FILTER_SPLITS = 3
"""Splits whose held-out errors choose the filter (``gamma_init="heldout"``)."""
FILTER_EDGE_SHARE = 0.0
"""Hyperedges the filter check holds out: none, since held-out hyperedges favour the filter
that smooths most (docs/unidhc.md, "Heterophilous graphs (closed neighbourhoods)")."""


def heldout_filter_choice(hg, candidates, seed, rounds=FILTER_SPLITS, margin=SPLIT_MARGIN):
    """The filter whose clustering of split copies of ``hg`` best predicts their held-out
    columns (:func:`split_choice` over ``rounds`` splits, seeds ``seed + 1000 j``).

    ``candidates(train) -> {name: labels}`` clusters a split's ``train`` with each filter;
    the first is kept unless another beats it. Returns ``(choice, {name: mean error})``.
    """
    splits = [split_hypergraph(hg, edge_share=FILTER_EDGE_SHARE, random_state=seed + 1000 * j)
              for j in range(rounds)]
    return split_choice(splits, [candidates(s.train) for s in splits], margin, "precision")


def learned_filter(hg, P, B, order, seed, k, steps):
    """``gamma_init="canonical"``'s ``(coefficients, atom weights, trajectory)``, or
    ``(identity, None, [])`` where nothing is learned."""
    from ..models.basis import family_coefficients
    from ..models.contrast import atom_coefficients, filter_objective, learn_mixture

    objective, penalty = filter_objective("canonical", P, None, B, ~hg.isolated, seed,
                                          n_clusters=k)
    if objective is None:
        return family_coefficients("identity", order), None, []
    weights, trajectory = learn_mixture(objective, order, penalty, steps=steps)
    return weights @ atom_coefficients(order), weights, trajectory


def filter_labels(estimator, train, order, seed, k, steps) -> dict:
    """``{filter: labels}`` on ``train``: k-means of the filter output of the canonical filter
    learned there and of each atom (:func:`atom_names`), as ``estimator`` prepares its input."""
    from ..models.basis import polynomial_basis
    from ..models.contrast import atom_coefficients
    from ..operators import propagation

    X, scale, _ = estimator._prepare_input(train, seed, k)
    Pt = propagation.PropagationOperator(train, self_loops=estimator.self_loops,
                                         dtype=propagation.BASIS_DTYPE)
    Bt = polynomial_basis(Pt, X, order, scale=scale)
    gammas = {"canonical": learned_filter(train, Pt, Bt, order, seed, k, steps)[0],
              **dict(zip(atom_names(order), atom_coefficients(order)))}
    return {name: kmeans_labels(normalize(np.tensordot(g.astype(Bt.dtype), Bt, axes=1)),
                                k, estimator.n_init_, seed)
            for name, g in gammas.items()}


def heldout_filter(estimator, hg, P, B, order, seed, k, steps):
    """``UniDHC(gamma_init="heldout")``'s filter: the canonical one, or the atom whose
    clustering predicts held-out data better (:func:`heldout_filter_choice`). A structural
    input keeps ``P^2``.

    Returns
    -------
    (coefficients, family, atom weights or None, trajectory, errors or None)
    """
    from ..models.basis import family_coefficients
    from ..models.contrast import atom_coefficients

    if estimator.input_kind_ == "structural":
        return family_coefficients("low-pass", order), "low-pass", None, [], None
    learned, weights, trajectory = learned_filter(hg, P, B, order, seed, k, steps)
    if order < 1 or hg.n_edges < 2:
        return learned, "canonical", weights, trajectory, None
    atoms = dict(zip(atom_names(order), atom_coefficients(order)))
    choice, errors = heldout_filter_choice(
        hg, lambda train: filter_labels(estimator, train, order, seed, k, steps), seed)
    return (learned if choice == "canonical" else atoms[choice]), choice, weights, \
        trajectory, errors


def split_candidates(estimator, train, k, n_init, seed) -> dict:
    """``{candidate: labels}`` of :data:`SPLIT_CANDIDATES`, fitted by copies of ``estimator``
    on ``train``."""
    from sklearn.base import clone

    part = clone(estimator).set_params(embedding="concat", verbose=False).fit(train)
    low = clone(estimator).set_params(gamma_init="low-pass", epochs=0, embedding="filter",
                                      gamma_lr=0.0, verbose=False).fit(train)
    block = part.embedding_[:, :part.n_filter_columns_]
    return {"concat": part.labels_, "filter": kmeans_labels(block, k, n_init, seed),
            "low-pass": low.labels_}


def choose_by_splits(estimator, hg, k, n_init, seed):
    """``embedding="split"``: :func:`split_choice` over :data:`SPLIT_ROUNDS` splits of ``hg``."""
    splits = [split_hypergraph(hg, random_state=seed + 1000 * j) for j in range(SPLIT_ROUNDS)]
    return split_choice(splits, [split_candidates(estimator, s.train, k, n_init, seed)
                                 for s in splits])


def conductance_choice(hg, k, n_init, seed, candidates):
    """The candidate whose k-means clustering has the lowest
    :func:`~hyperclust.selection.objectives.rwr_conductance` (``balance="min"``) on the mixed
    hypergraph + attribute-kNN walk (degenerate clusterings rank last).

    Parameters
    ----------
    hg : Hypergraph
    k, n_init, seed : int
    candidates : dict
        ``{name: (embedding, n_filter_columns)}``.

    Returns
    -------
    best : str
    ranking : selection ranking (``scores``)
    labels : dict of str -> ndarray

    Examples
    --------
    >>> from hyperclust import Hypergraph
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [3, 4, 5]], n_nodes=6)
    >>> good = np.repeat([[1.0, 0.0], [0.0, 1.0]], 3, axis=0)
    >>> bad = np.tile([[1.0, 0.0], [0.0, 1.0]], (3, 1))
    >>> conductance_choice(hg, 2, 2, 0, {"good": (good, 2), "bad": (bad, 2)})[0]
    'good'
    """
    from ..selection.objectives import rwr_conductance
    from ..operators.knn import MixedWalk, knn_affinity
    from ..selection.loop import select

    A = None
    if hg.features is not None and hg.n_nodes > 1:
        A = knn_affinity(hg.features, SELECTION_NEIGHBORS, random_state=seed)
    walk = MixedWalk(hg, A, beta=0.5)
    ranking, labels = select(
        candidates, lambda c: kmeans_labels(candidates[c][0], k, n_init, seed),
        lambda c, y: rwr_conductance(hg, y, walk=walk, balance="min"), k)
    return ranking.selected, ranking, labels


def conductance_output(hg, k, n_init, seed, B, filt, enc):
    """``UniDHC(embedding="auto")``: :func:`conductance_choice` among the concatenation,
    ``filt``, ``enc``, ``P^2 X`` and ``X``. Returns ``(best, scores, {name: labels},
    embedding, n_filter_columns)``."""
    from ..models.basis import family_coefficients

    def fixed(family):
        g = family_coefficients(family, B.shape[0] - 1).astype(B.dtype)
        return normalize(np.tensordot(g, B, axes=1)), B.shape[2]

    candidates = {"concat": (np.hstack([filt, enc]), filt.shape[1]),
                  "filter": (filt, filt.shape[1]), "encoder": (enc, 0),
                  "fixed-low-pass": fixed("low-pass"), "input": fixed("identity")}
    best, ranking, labels = conductance_choice(hg, k, n_init, seed, candidates)
    return (best, ranking.scores, labels) + candidates[best]


SELECTION_NEIGHBORS = 10
"""Attribute neighbours of the kNN walk that scores the candidate outputs."""
