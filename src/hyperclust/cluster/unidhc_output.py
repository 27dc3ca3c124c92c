"""What Uni-DHC's k-means clusters: the filter output, or it beside the encoder output.

The trained encoder helps on some sets and loses to its own filter output on others
(docs/unidhc.md, "The deep part"). :func:`heldout_choice` decides per input without
labels: the encoder is retrained without one fold of the feature columns, both candidate
clusterings of the other columns are scored against the raw held-out fold, which neither
saw, by :func:`cluster_canonical_score` (the same canonical criterion that learns the
filter, on the cluster indicator), once per fold.
:func:`conductance_choice` is the older option (``embedding="auto"``).
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
"""The feature columns are split into this many folds; each round holds one out and trains
on the rest (3/4 of the columns: closer to the full fit than halves, which chose the
filter on a cora-ca seed where the full concatenation was .12 better; docs/unidhc.md)."""
HELDOUT_ROUNDS = 4
"""Rounds (held-out folds) whose scores add up: each trains one encoder; every column is
held out once."""


def cluster_canonical_score(labels: np.ndarray, R: np.ndarray, ridge: float = RIDGE) -> float:
    """Sum of the squared canonical correlations between a clustering and the columns ``R``.

    With ``Y`` the cluster indicator and ``R_w`` the column-centred ``R`` whitened with a
    ridge (``ridge`` x its mean eigenvalue), the value is ``tr(R_w^T Y (Y^T Y)^-1 Y^T R_w)``:
    the between-cluster share of ``R``'s whitened variance, at most ``k - 1`` (Fisher's ratio
    of the clustering, measured on ``R``).

    Parameters
    ----------
    labels : ndarray of int, shape (n,)
    R : ndarray, shape (n, d)
    ridge : float

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
    """``{candidate: labels}`` of k-means on the row-normalised filter output ``F`` and on
    it beside ``encode(F)`` (already normalised)."""
    filt = normalize(F)
    return {"filter": kmeans_labels(filt, k, n_init, seed),
            "concat": kmeans_labels(np.hstack([filt, encode(F)]), k, n_init, seed)}


def heldout_choice(basis, coefficients, train, encode, k, n_init, seed):
    """Choose the filter output or the concatenation by held-out feature columns.

    The columns are split (seeded) into :data:`HELDOUT_FOLDS` folds. For each of the first
    :data:`HELDOUT_ROUNDS` folds ``b``, with ``a`` the other columns: an encoder is trained
    on the basis restricted to ``a`` (the basis is column-wise, so it is the basis of
    ``X_a``); k-means clusters the filter output of ``a`` and it beside the encoder's
    output; each clustering is scored by :func:`cluster_canonical_score` against the raw
    held-out ``X_b``. Scores add over the rounds; the higher total wins (a tie: the
    filter, which needs no training). Feature noise independent across columns cannot
    raise the score, so an encoder that spreads clusters by their rows' own noise loses.

    Parameters
    ----------
    basis : ndarray, shape (K+1, n, d), d >= :data:`MIN_HELDOUT_COLUMNS`
        The polynomial basis of the input (``basis[0]`` the raw input).
    coefficients : ndarray, shape (K+1,)
        The learned filter (power basis), the same for both halves.
    train : callable
        ``train(basis_half) -> net``: the encoder training of the fit, on a half.
    encode : callable
        ``encode(net, F) -> ndarray``: the row-normalised encoder output of ``F``.
    k, n_init, seed : int
        k-means clusters, restarts, seed; ``seed`` also draws the column split.

    Returns
    -------
    choice : str
        One of :data:`HELDOUT_CANDIDATES`.
    scores : dict
        ``{candidate: [score of each round]}``.

    Examples
    --------
    A stand-in encoder whose output is clusters the feature columns know nothing about:

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
"""Candidates of :func:`split_choice`: the concatenation (the reference), the learned filter
output alone, the fixed low-pass ``P^2 X`` (a tie among the others: the first)."""
SPLIT_ROUNDS = 1
"""Splits (seeds ``seed + 1000 j``) whose held-out errors are averaged. Three, followed
without a margin, fixed zoo and citeseer-cc isolated removed but cost 20newsw100 .019
(its held-out data prefer ``P^2 X``); with a margin of 1 or 2 they changed nothing one
split does not (docs/unidhc.md, "Held-out hyperedges and columns")."""
SPLIT_MARGIN = 2.0
"""Standard errors (of the split-averaged paired difference) by which another output's
held-out error must be below the concatenation's to replace it. With one split, margins of
0 or 1 cost .02-.03 along the homophily sweep (h = .3-.4), on cora-ca isolated removed or
on 20newsw100; at 2 no setting measured lost more than .005 (docs/unidhc.md)."""


def split_choice(splits, labels, margin=SPLIT_MARGIN, weighting="coverage"):
    """The candidate with the lowest mean held-out error, if it beats the first candidate
    (the concatenation, for the output choice).

    Parameters
    ----------
    splits : list of :class:`~hyperclust.cluster.hsbm_heldout.HoldoutSplit`
        What the candidates were fitted on (``split.train``) and are judged on.
    labels : list of dict of str -> ndarray of int, shape (n,)
        Per split, ``{candidate: labels}`` fitted on its ``train``, the same candidates in
        the same order; the first is kept unless another beats it.
    margin : float
        A candidate replaces the first only if its mean
        :func:`~hyperclust.cluster.hsbm_heldout.heldout_error` over the splits is lower by
        more than ``margin`` standard errors of the mean paired difference,
        ``sqrt(sum_s SE_s^2) / S``
        (:func:`~hyperclust.cluster.hsbm_heldout.paired_standard_errors`).
    weighting : {"coverage", "precision"}
        How the hyperedge and column views are weighted.

    Returns
    -------
    choice : str
        The candidate with the lowest mean error among those that beat the first by the
        margin (the earlier on a tie), else the first.
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
"""Hyperedges the filter check holds out: none. Every candidate is a polynomial in the
training hyperedges' operator, so held-out hyperedges favour whichever filter smooths most
along them, whether or not they join nodes alike; on closed neighbourhoods 72-89% of a
held-out hyperedge's member pairs are co-members of a training one (docs/unidhc.md,
"Heterophilous graphs")."""


def heldout_filter_choice(hg, candidates, seed, rounds=FILTER_SPLITS, margin=SPLIT_MARGIN):
    """The filter whose clustering of a split copy of ``hg`` best predicts the attribute
    columns the copy lacks (:func:`~hyperclust.cluster.hsbm_heldout.heldout_errors`),
    averaged over ``rounds`` splits (seeds ``seed + 1000 j``). Another filter replaces the
    first candidate only where its error is lower by ``margin`` standard errors of the
    paired difference (:func:`split_choice`; zoo chose the identity on 2 seeds of 5
    without it, -.045 ACC). No hyperedge is held out (:data:`FILTER_EDGE_SHARE`).

    Parameters
    ----------
    hg : Hypergraph
    candidates : callable
        ``candidates(train) -> {name: labels}``: each candidate filter's clustering of a
        split's ``train``; the first is kept unless another beats it.
    seed, rounds : int
    margin : float

    Returns
    -------
    choice : str
    errors : dict
        ``{name: mean held-out error}``.

    Examples
    --------
    >>> from hyperclust.datasets import hypergraph_sbm
    >>> hg = hypergraph_sbm(400, 2, homophily=0.9, n_features=6, random_state=1)
    >>> noise = np.random.default_rng(0).permutation(hg.labels)
    >>> heldout_filter_choice(hg, lambda train: {"noise": noise, "planted": hg.labels}, 0)[0]
    'planted'
    """
    splits = [split_hypergraph(hg, edge_share=FILTER_EDGE_SHARE, random_state=seed + 1000 * j)
              for j in range(rounds)]
    return split_choice(splits, [candidates(s.train) for s in splits], margin, "precision")


def learned_filter(hg, P, B, order, seed, k, steps):
    """``gamma_init="canonical"`` on the basis ``B`` of ``hg``: ``(coefficients, atom
    weights, trajectory)`` (the identity, None, [] where nothing is learned); ``steps`` of
    :func:`~hyperclust.models.contrast.learn_mixture`."""
    from ..models.basis import family_coefficients
    from ..models.contrast import atom_coefficients, filter_objective, learn_mixture

    objective, penalty = filter_objective("canonical", P, None, B, ~hg.isolated, seed,
                                          n_clusters=k)
    if objective is None:
        return family_coefficients("identity", order), None, []
    weights, trajectory = learn_mixture(objective, order, penalty, steps=steps)
    return weights @ atom_coefficients(order), weights, trajectory


def heldout_filter(estimator, hg, P, B, order, seed, k, steps):
    """``UniDHC(gamma_init="heldout")``'s filter: the canonical one, or the atom whose
    clustering predicts held-out data better (:func:`heldout_filter_choice`; on each split
    the canonical filter is relearned and every candidate clusters the split's ``train``).
    A structural input keeps ``P^K`` (nothing to split), as ``"canonical"`` does.

    Returns
    -------
    (coefficients, family, atom weights or None, trajectory, errors or None)
    """
    from ..models.basis import family_coefficients, polynomial_basis
    from ..models.contrast import atom_coefficients
    from ..operators import propagation

    if estimator.input_kind_ == "structural":
        return family_coefficients("low-pass", order), "low-pass", None, [], None
    learned, weights, trajectory = learned_filter(hg, P, B, order, seed, k, steps)
    if order < 1 or hg.n_edges < 2:
        return learned, "canonical", weights, trajectory, None
    atoms = dict(zip(atom_names(order), atom_coefficients(order)))

    def candidates(train):
        X, scale, _ = estimator._prepare_input(train, seed, k)
        Pt = propagation.PropagationOperator(train, self_loops=estimator.self_loops,
                                             dtype=propagation.BASIS_DTYPE)
        Bt = polynomial_basis(Pt, X, order, scale=scale)
        gammas = {"canonical": learned_filter(train, Pt, Bt, order, seed, k, steps)[0], **atoms}
        return {name: kmeans_labels(normalize(np.tensordot(g.astype(Bt.dtype), Bt, axes=1)),
                                    k, estimator.n_init_, seed)
                for name, g in gammas.items()}

    choice, errors = heldout_filter_choice(hg, candidates, seed)
    return (learned if choice == "canonical" else atoms[choice]), choice, weights, \
        trajectory, errors


def split_candidates(estimator, train, k, n_init, seed) -> dict:
    """``{candidate: labels}`` of :data:`SPLIT_CANDIDATES` on the hypergraph ``train``: a
    copy of the Uni-DHC ``estimator`` forced to the concatenation (its labels, and k-means
    on its filter block) and one with the fixed ``P^2`` filter and no encoder."""
    from sklearn.base import clone

    part = clone(estimator).set_params(embedding="concat", verbose=False).fit(train)
    low = clone(estimator).set_params(gamma_init="low-pass", epochs=0, embedding="filter",
                                      gamma_lr=0.0, verbose=False).fit(train)
    block = part.embedding_[:, :part.n_filter_columns_]
    return {"concat": part.labels_, "filter": kmeans_labels(block, k, n_init, seed),
            "low-pass": low.labels_}


def choose_by_splits(estimator, hg, k, n_init, seed):
    """``embedding="split"``: :func:`split_choice` over :data:`SPLIT_ROUNDS` splits of
    ``hg`` (:func:`~hyperclust.cluster.hsbm_heldout.split_hypergraph`, seeds
    ``seed + 1000 j``), the candidates fitted by ``split_candidates``."""
    splits = [split_hypergraph(hg, random_state=seed + 1000 * j) for j in range(SPLIT_ROUNDS)]
    return split_choice(splits, [split_candidates(estimator, s.train, k, n_init, seed)
                                 for s in splits])


def conductance_choice(hg, k, n_init, seed, candidates):
    """The candidate embedding whose k-means clustering has the lowest
    :func:`~hyperclust.selection.objectives.rwr_conductance` (``balance="min"``) on the mixed
    hypergraph + attribute-kNN walk, ranked by :func:`~hyperclust.selection.loop.select` (an
    output whose clustering has fewer than k clusters or is degenerate ranks last).

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
    labels : dict
        ``{name: labels}``.

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
    """``UniDHC(embedding="auto")``: :func:`conductance_choice` among the concatenation, the
    filter and encoder outputs (``filt``, ``enc``: row-normalised), ``P^K X`` and ``X``
    (from the basis ``B``). Returns ``(best, scores, {name: labels}, embedding,
    n_filter_columns)``."""
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
"""Attribute neighbours of the kNN walk that scores the candidate outputs (as in ``auto``)."""
