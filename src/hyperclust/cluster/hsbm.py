"""``hsbm``: an attributed, degree-corrected hypergraph stochastic block model fitted by
mean-field EM (likelihood in :mod:`~hyperclust.cluster.hsbm_likelihood`).

Node ``i``'s membership is updated from ``log q_ic = log pi_c + sum_d (A Q)_id log omega_cd
+ gamma * l_attr(i, c) + const``. The attribute weight ``gamma`` is chosen without labels: a
fit per grid value on the training part of a hold-out split, keeping the one whose partition
best predicts the held-out hyperedges and columns
(:func:`~hyperclust.cluster.hsbm_heldout.heldout_error`); the full fit starts from it.
"""

from __future__ import annotations

import numpy as np
from sklearn.preprocessing import normalize

from .._validation import Interval
from ..runtime.threads import kernel_thread_limit
from ..selection.loop import keep_best
from ..selection.objectives import is_degenerate
from .base import SHARED_CONSTRAINTS, HypergraphClusterer, check_hypergraph, check_n_clusters
from .baselines import HGNNSmoothingKMeans, reduce_features
from .hsbm_heldout import heldout_error, split_hypergraph
from .hsbm_likelihood import CliqueExpansion, attribute_loglik, block_rates, one_hot, \
    row_argmax, soft_assign

__all__ = ["HypergraphSBM", "WEIGHT_GRID"]

#: Attribute weights ``gamma`` tried by ``attribute_weight="auto"``.
WEIGHT_GRID = (0.0, 0.25, 1.0, 4.0)
#: A grid fit stops once fewer than this share of the nodes change their hard label in
#: :data:`LABEL_PATIENCE` iterations in a row (it only ranks the weights).
GRID_LABEL_TOL = 1e-3
#: The same rule for the final fit (docs/results/hsbm_final_stop.md).
FINAL_LABEL_TOL = 1e-4
#: Calm iterations in a row that stop a fit by its labels.
LABEL_PATIENCE = 3


class HypergraphSBM(HypergraphClusterer):
    """Attributed degree-corrected hypergraph SBM, mean-field EM (see the module docstring).

    Parameters
    ----------
    n_clusters : int
    attribute_weight : float >= 0 or "auto", default "auto"
        ``gamma``; ``"auto"`` picks it from :data:`WEIGHT_GRID` by held-out prediction
        (without attributes there is nothing to weigh and it is 0).
    n_iter : int, default 50
        Most EM iterations per fit (fewer once the hard labels settle).
    tol : float, default 1e-4
        Stop when no membership moves by more than this.
    n_components : int, default 32
        Attribute columns kept by a seeded truncated SVD.
    n_init : int, default 10
        k-means restarts of EM's start (HGNN's k-means).
    random_state : int, default 0

    Attributes
    ----------
    labels_ : ndarray of int64, shape (n_nodes,)
    embedding_ : ndarray, shape (n_nodes, n_clusters)
        The memberships ``Q``.
    attribute_weight_ : float
    heldout_errors_ : dict of float -> float
        Held-out error of every ``gamma`` tried (empty when not chosen by hold-out).
    selection_reason_ : str or None
        The weight chosen and every weight's error (None when not chosen).
    n_iter_ : int
        EM iterations of the final fit.
    degenerate_ : bool
        EM ended degenerate (a giant cluster plus slivers); its start is returned then.

    Examples
    --------
    >>> from hyperclust.datasets import hypergraph_sbm
    >>> from hyperclust.metrics import evaluate
    >>> hg = hypergraph_sbm(300, 3, homophily=0.9, n_features=8, random_state=0)
    >>> est = HypergraphSBM(3, random_state=0).fit(hg)
    >>> evaluate(hg.labels, est.labels_)["acc"] > 0.9, est.attribute_weight_ in WEIGHT_GRID
    (True, True)
    """

    _parameter_constraints = {**SHARED_CONSTRAINTS,
                              "attribute_weight": ["auto", Interval(float, 0)],
                              "n_iter": [Interval(int, 0)], "tol": [Interval(float, 0)],
                              "n_components": [Interval(int, 1)], "n_init": [Interval(int, 1)]}

    def __init__(self, n_clusters=2, *, attribute_weight="auto", n_iter=50, tol=1e-4,
                 n_components=32, n_init=10, random_state=0):
        self.n_clusters = n_clusters
        self.attribute_weight = attribute_weight
        self.n_iter = n_iter
        self.tol = tol
        self.n_components = n_components
        self.n_init = n_init
        self.random_state = random_state

    def fit(self, hypergraph, y=None):
        """Fit the block model to ``hypergraph``; sets ``labels_`` and ``embedding_``."""
        hg = check_hypergraph(hypergraph)
        k = check_n_clusters(self.n_clusters, hg.n_nodes)
        seed = self._rng_seed(self.random_state)
        self.heldout_errors_ = {}
        if isinstance(self.attribute_weight, str) and hg.features is not None:
            gamma, start = self._choose_weight(hg, k, seed)
        else:  # the weight is given, or nothing to weigh: EM starts from HGNN's k-means
            gamma = 0.0 if isinstance(self.attribute_weight, str) else float(self.attribute_weight)
            start = one_hot(_initial_labels(hg, k, seed, self.n_init), k)
        Q, self.n_iter_ = self._em(self._operands(hg, seed, gamma), k, gamma, start,
                                   label_tol=FINAL_LABEL_TOL)
        labels = np.argmax(Q, axis=1).astype(np.int64)
        self.degenerate_ = is_degenerate(labels, k)
        if self.degenerate_:
            labels = np.argmax(start, axis=1).astype(np.int64)
        self.labels_, self.embedding_, self.attribute_weight_ = labels, Q, gamma
        self.selection_reason_ = None if not self.heldout_errors_ else (
            f"attribute weight {gamma:g} by held-out error, lower is better, a degenerate "
            "fit last: " + ", ".join(f"{g:g} {e:.4f}" for g, e in self.heldout_errors_.items()))
        return self

    def _choose_weight(self, hg, k, seed):
        """``(gamma, memberships)``: the grid weight with the lowest held-out error and its
        training fit."""
        split = split_hypergraph(hg, random_state=seed)
        train_start = one_hot(_initial_labels(split.train, k, seed, self.n_init), k)
        operands = self._operands(split.train, seed, max(WEIGHT_GRID))
        best = None
        for gamma in WEIGHT_GRID:
            Q, _ = self._em(operands, k, gamma, train_start, label_tol=GRID_LABEL_TOL)
            labels = np.argmax(Q, axis=1)
            error, bad = heldout_error(split, labels), is_degenerate(labels, k)
            self.heldout_errors_[gamma] = error
            if keep_best(best, bad, error):
                best = (bad, error, gamma, Q)
        return best[2], best[3]

    def _operands(self, hg, seed, gamma):
        """``(A, Z, has_row)`` of :meth:`_em`: clique expansion and reduced attribute rows
        (None, None without attributes or with ``gamma`` 0)."""
        if gamma > 0 and hg.features is not None:
            return (CliqueExpansion(hg),
                    *_attribute_rows(hg.features, int(self.n_components), seed))
        return CliqueExpansion(hg), None, None

    def _em(self, operands, k, gamma, Q, label_tol=None):
        """Mean-field EM from memberships ``Q``; returns ``(Q, iterations)``."""
        A, Z, has_row = operands
        if gamma <= 0:
            Z = has_row = None
        sq_norms = None if Z is None else np.sum(Z * Z, axis=1)
        it = 0
        labels = row_argmax(Q) if label_tol is not None else None
        settled = 0
        width = max(k, 1 if Z is None else Z.shape[1])
        # n x k and n x d blocks times small matrices: BLAS threads only where they pay
        with kernel_thread_limit("tall_skinny", float(Q.shape[0]) * k * width):
            for it in range(1, int(self.n_iter) + 1):
                AQ = A @ Q
                L = AQ @ block_rates(AQ, Q, A.degrees) + np.log(Q.mean(axis=0) + 1e-12)
                if Z is not None:
                    L += gamma * attribute_loglik(Z, Q, has_row, sq_norms)
                Q_new = soft_assign(L)
                step = Q_new - Q
                moved = max(float(step.max()), -float(step.min()))  # |step|.max(), faster
                Q = Q_new
                if moved < float(self.tol):
                    break
                if labels is not None:
                    new_labels = row_argmax(Q)
                    calm = np.count_nonzero(new_labels != labels) < label_tol * Q.shape[0]
                    settled = settled + 1 if calm else 0
                    labels = new_labels
                    if settled >= LABEL_PATIENCE:
                        break
        return Q, it


def _initial_labels(hg, k, seed, n_init=10):
    """Start of EM: HGNN's k-means."""
    est = HGNNSmoothingKMeans(k, n_init=int(n_init), random_state=seed)
    return np.asarray(est.fit(hg).labels_, dtype=np.int64)


def _attribute_rows(X, n_components, seed):
    """``(Z, has_row)``: reduced, row-normalised attributes and their non-zero rows."""
    d = X.shape[1]
    Z = reduce_features(normalize(X), n_components if d > n_components else None, seed)
    Z = Z.toarray() if hasattr(Z, "toarray") else np.asarray(Z, dtype=np.float64)
    has_row = np.linalg.norm(Z, axis=1) > 0
    return normalize(Z), has_row
