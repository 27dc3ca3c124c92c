"""A selection signal no candidate optimised: how well a partition predicts held-out data.

:func:`split_hypergraph` holds out a share of the hyperedges and of the attribute columns;
:func:`heldout_error` scores a partition with two AUCs against random look-alikes:

* **hyperedges**: a held-out hyperedge scores the mean block rate of its member pairs (rates
  fitted on the training hyperedges) against fakes of the same size drawn by training degree;
* **attributes**: in the held-out columns, each node's cosine similarity to its own cluster's
  centroid (itself left out) against the other clusters' centroids, averaged per cluster.

The error is the mean of ``1 - AUC`` over the views, each weighted by the share of the
nodes it can judge. Lower is better, 0.5 is chance.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from sklearn.preprocessing import normalize

from ..hypergraph import Hypergraph
from .hsbm_likelihood import CliqueExpansion, block_rates, edge_cluster_counts, one_hot

__all__ = ["HoldoutSplit", "split_hypergraph", "heldout_error", "heldout_errors",
           "heldout_aucs", "heldout_terms", "paired_standard_errors"]

#: Fewer held-out hyperedges than this give no hyperedge view (its AUC would be noise).
MIN_HELDOUT_EDGES = 10


@dataclass
class HoldoutSplit:
    """A hold-out split of a hypergraph (made by :func:`split_hypergraph`).

    Attributes
    ----------
    train : Hypergraph
        The same nodes with the kept hyperedges and attribute columns.
    heldout, fakes : scipy.sparse.csr_matrix or None, shape (m_held, n)
        Held-out hyperedges (rows), and ``n_fakes`` fakes per held-out one.
    columns : ndarray or sparse matrix, shape (n_rows, d_held), or None
        Held-out attribute columns of the nodes ``rows``, rows L2-normalised.
    rows : ndarray of int, shape (n_rows,), or None
        The nodes with a non-zero held-out row.
    expansion : CliqueExpansion
        Of ``train``.
    edge_coverage, attribute_coverage : float
        Share of the nodes each view judges (0 when absent): the views' weights.

    Examples
    --------
    >>> from hyperclust.datasets import hypergraph_sbm
    >>> s = split_hypergraph(hypergraph_sbm(200, 2, n_features=5, random_state=0))
    >>> s.heldout.shape[0] * 5 == s.fakes.shape[0], s.columns.shape[1]
    (True, 1)
    """

    train: Hypergraph
    heldout: sp.csr_matrix | None
    fakes: sp.csr_matrix | None
    columns: object
    rows: np.ndarray | None
    expansion: CliqueExpansion
    edge_coverage: float = 0.0
    attribute_coverage: float = 0.0


def split_hypergraph(hypergraph, *, edge_share=0.1, column_share=0.2, n_fakes=5,
                     random_state=0) -> HoldoutSplit:
    """Hold out a share of the hyperedges and of the attribute columns.

    Parameters
    ----------
    hypergraph : Hypergraph
    edge_share : float in [0, 1), default 0.1
        Share of the hyperedges with >= 2 members held out (none below
        :data:`MIN_HELDOUT_EDGES`).
    column_share : float in [0, 1), default 0.2
        Share of the attribute columns held out (at least one of >= 2).
    n_fakes : int, default 5
        Fake hyperedges per held-out one.
    random_state : int, default 0

    Examples
    --------
    >>> from hyperclust.datasets import hypergraph_sbm
    >>> hg = hypergraph_sbm(300, 3, n_features=10, random_state=0)
    >>> s = split_hypergraph(hg)
    >>> s.train.n_edges + s.heldout.shape[0] == hg.n_edges, s.train.features.shape[1]
    (True, 8)
    """
    rng = np.random.default_rng(random_state)
    n, m = hypergraph.n_nodes, hypergraph.n_edges
    sizes = np.asarray(hypergraph.edge_sizes)
    pairable = np.flatnonzero(sizes >= 2)
    n_held = int(round(edge_share * pairable.size))
    held = np.sort(rng.choice(pairable, n_held, replace=False)) \
        if n_held >= MIN_HELDOUT_EDGES else np.empty(0, dtype=np.int64)
    keep = np.setdiff1d(np.arange(m), held)
    X, Xh = _split_columns(hypergraph.features, column_share, rng)
    train = Hypergraph(hypergraph.incidence[:, keep], weights=hypergraph.weights[keep],
                       features=X)
    expansion = CliqueExpansion(train)
    heldout = fakes = None
    if held.size and expansion.degrees.sum() > 0:
        heldout = hypergraph.incidence_t[held]
        fakes = _fake_edges(np.tile(sizes[held], n_fakes), expansion.degrees, n, rng)
    columns = rows = None
    if Xh is not None:
        Xn = normalize(Xh)
        rows = np.flatnonzero(np.asarray(abs(Xn).sum(axis=1)).ravel() > 0)
        columns = Xn[rows] if rows.size >= 2 else None
    return HoldoutSplit(train, heldout, fakes, columns, rows, expansion,
                        edge_coverage=float(np.mean(expansion.degrees > 0)) if heldout is not None
                        else 0.0,
                        attribute_coverage=rows.size / n if columns is not None else 0.0)


def _split_columns(X, share, rng):
    """``(kept, held)`` column blocks of the features (``held`` None if none)."""
    if X is None or X.shape[1] < 2 or share <= 0:
        return X, None
    d = X.shape[1]
    n_held = min(max(1, int(round(share * d))), d - 1)
    held = np.zeros(d, dtype=bool)
    held[rng.choice(d, n_held, replace=False)] = True
    if sp.issparse(X):
        X = sp.csc_matrix(X)
        return sp.csr_matrix(X[:, ~held]), sp.csr_matrix(X[:, held])
    X = np.asarray(X)
    return X[:, ~held], X[:, held]


def _fake_edges(sizes, degrees, n, rng):
    """One fake hyperedge per size, members drawn with probability ``degree / sum``."""
    p = degrees / degrees.sum()
    members = rng.choice(n, int(sizes.sum()), p=p)
    rows = np.repeat(np.arange(sizes.size), sizes)
    F = sp.csr_matrix((np.ones(rows.size), (rows, members)), shape=(sizes.size, n))
    F.sum_duplicates()
    F.data[:] = 1.0  # a node drawn twice is one member
    return F


def heldout_terms(split: HoldoutSplit, labels) -> dict:
    """Per-item errors of a partition ``labels`` (n,), per view: ``{"edges": (m_held,) or
    None, "attributes": (n_rows,) or None}``; each view's ``1 - AUC`` is their mean.

    Examples
    --------
    >>> from hyperclust.datasets import hypergraph_sbm
    >>> hg = hypergraph_sbm(400, 2, homophily=0.95, n_features=4, random_state=0)
    >>> s = split_hypergraph(hg)
    >>> t = heldout_terms(s, hg.labels)
    >>> t["edges"].shape == (s.heldout.shape[0],), t["attributes"].shape == s.rows.shape
    (True, True)
    """
    y = np.unique(np.asarray(labels), return_inverse=True)[1].reshape(-1)
    k = int(y.max()) + 1
    out = {"edges": None, "attributes": None}
    if split.heldout is not None:
        Q = one_hot(y, k)
        A = split.expansion
        omega = np.exp(block_rates(A @ Q, Q, A.degrees))
        out["edges"] = 1.0 - _placements(_edge_scores(split.heldout, y, k, omega),
                                         _edge_scores(split.fakes, y, k, omega))
    if split.columns is not None and k >= 2:
        out["attributes"] = _centroid_terms(split.columns, y[split.rows], k)
    return out


def heldout_aucs(split: HoldoutSplit, labels) -> dict:
    """``{"edges": AUC or None, "attributes": AUC or None}`` of a partition ``labels`` (n,).

    Examples
    --------
    >>> from hyperclust.datasets import hypergraph_sbm
    >>> hg = hypergraph_sbm(400, 2, homophily=0.95, n_features=0, random_state=0)
    >>> aucs = heldout_aucs(split_hypergraph(hg), hg.labels)
    >>> aucs["edges"] > 0.8, aucs["attributes"]
    (True, None)
    """
    return {v: None if t is None else float(1.0 - t.mean())
            for v, t in heldout_terms(split, labels).items()}


def _centroid_terms(Xn, y, k):
    """Per node, ``1 -`` its centroid AUC, scaled so each cluster weighs the same (None
    when no other cluster has a centroid). ``Xn`` has unit rows."""
    S = sp.csr_matrix((np.ones(y.size), (y, np.arange(y.size))), shape=(k, y.size)) @ Xn
    S = S.toarray() if sp.issparse(S) else np.asarray(S)  # (k, d): column sums per cluster
    G = np.asarray(Xn @ S.T)  # (n, k): x_i . S_c
    norms = np.sqrt(np.maximum(np.sum(S * S, axis=1), 0.0))
    idx = np.arange(y.size)
    own_norm = np.sqrt(np.maximum(norms[y] ** 2 - 2.0 * G[idx, y] + 1.0, 0.0))
    own = np.where(own_norm > 1e-12, (G[idx, y] - 1.0) / np.maximum(own_norm, 1e-12), 0.0)
    sims = np.where(norms > 0, G / np.maximum(norms, 1e-12), 0.0)
    other = np.ones_like(sims, dtype=bool)
    other[idx, y] = False
    other[:, norms == 0] = False
    if other.sum() == 0:
        return None
    diff = own[:, None] - sims
    wins = np.sum((diff > 0) & other, axis=1) + 0.5 * np.sum((diff == 0) & other, axis=1)
    node_auc = wins / np.maximum(other.sum(axis=1), 1)
    # every cluster weighs the same: a giant cluster, whose centroid is the overall mean
    # and so close to every node, would otherwise carry the average
    sizes = np.bincount(y, minlength=k)
    return (1.0 - node_auc) * (y.size / (np.count_nonzero(sizes) * sizes[y]))


def heldout_error(split: HoldoutSplit, labels) -> float:
    """Mean of ``1 - AUC`` over the views, weighted by their coverage; 0.5 without views.

    Examples
    --------
    >>> from hyperclust.datasets import hypergraph_sbm
    >>> hg = hypergraph_sbm(600, 3, homophily=0.9, n_features=10, feature_snr=1.0,
    ...                     random_state=0)
    >>> s = split_hypergraph(hg, random_state=0)
    >>> rng = np.random.default_rng(0)
    >>> heldout_error(s, hg.labels) < heldout_error(s, rng.permutation(hg.labels)) - 0.2
    True
    """
    return _coverage_error(split, heldout_terms(split, labels))


def _coverage_error(split, terms):
    aucs = {v: None if t is None else float(1.0 - t.mean()) for v, t in terms.items()}
    weights = {"edges": split.edge_coverage, "attributes": split.attribute_coverage}
    used = [v for v, auc in aucs.items() if auc is not None and weights[v] > 0]
    if not used:
        return 0.5
    total = sum(weights[v] for v in used)
    return float(sum(weights[v] * (1.0 - aucs[v]) for v in used) / total)


#: How :func:`heldout_errors` weighs the two views.
WEIGHTINGS = ("coverage", "precision")


def heldout_errors(split: HoldoutSplit, labels: dict, weighting: str = "coverage",
                   terms: dict | None = None) -> dict:
    """``{name: held-out error}`` of several partitions, lower is better.

    ``weighting="coverage"``: :func:`heldout_error` of each. ``"precision"``: views weighted
    by ``1 / SE^2`` of their mean term, pooled over the partitions (a view whose terms do not
    vary is left out).

    Parameters
    ----------
    split : HoldoutSplit
    labels : dict of str -> array-like of int, shape (n,)
    weighting : {"coverage", "precision"}, default "coverage"
    terms : dict, optional
        Memo of :func:`heldout_terms` keyed as ``labels``, filled in place.

    Examples
    --------
    >>> from hyperclust.datasets import hypergraph_sbm
    >>> hg = hypergraph_sbm(600, 3, homophily=0.9, n_features=10, random_state=0)
    >>> s = split_hypergraph(hg, random_state=0)
    >>> rng = np.random.default_rng(0)
    >>> e = heldout_errors(s, {"truth": hg.labels, "shuffled": rng.permutation(hg.labels)},
    ...                    "precision")
    >>> e["truth"] < e["shuffled"] - 0.1
    True
    """
    if weighting not in WEIGHTINGS:
        raise ValueError(f"weighting must be one of {WEIGHTINGS}, got {weighting!r}")
    terms = _memo_terms(split, labels, terms)
    if weighting == "coverage":
        return {c: _coverage_error(split, t) for c, t in terms.items()}
    weights = _view_weights(split, terms, weighting)
    errors = {}
    for c, t in terms.items():
        used = [v for v in weights if t[v] is not None]
        total = sum(weights[v] for v in used)
        errors[c] = float(sum(weights[v] * t[v].mean() for v in used) / total) if used else 0.5
    return errors


def _memo_terms(split, labels, memo):
    """``{c: heldout_terms(split, labels[c])}``, through ``memo`` when given."""
    memo = {} if memo is None else memo
    for c, y in labels.items():
        if c not in memo:
            memo[c] = heldout_terms(split, y)
    return {c: memo[c] for c in labels}


def _view_weights(split, terms, weighting):
    """``{view: weight}`` of the views present, by ``weighting``."""
    if weighting == "coverage":
        cover = {"edges": split.edge_coverage, "attributes": split.attribute_coverage}
        return {v: w for v, w in cover.items() if w > 0
                and any(t[v] is not None for t in terms.values())}
    weights = {}
    for view in ("edges", "attributes"):
        judged = [t[view] for t in terms.values() if t[view] is not None]
        var = np.mean([t.var() / t.size for t in judged]) if judged else 0.0
        if var > 1e-15:
            weights[view] = 1.0 / var
    return weights


def paired_standard_errors(split: HoldoutSplit, labels: dict, reference: str,
                           weighting: str = "coverage", terms: dict | None = None) -> dict:
    """Paired standard error of each partition's held-out error minus ``reference``'s.

    ``sqrt(sum_v (w_v / W)^2 var(t_cv - t_rv) / n_v)`` over the views, weights as in
    :func:`heldout_errors`; ``inf`` for a partition judged by other views, 0 for the
    reference. Parameters as in :func:`heldout_errors`; ``reference`` a key of ``labels``.

    Examples
    --------
    >>> from hyperclust.datasets import hypergraph_sbm
    >>> planted = hypergraph_sbm(400, 2, homophily=0.9, n_features=6, random_state=1)
    >>> s = split_hypergraph(planted, random_state=1)
    >>> parts = {"truth": planted.labels,
    ...          "shuffled": np.random.default_rng(1).permutation(planted.labels)}
    >>> e, se = heldout_errors(s, parts), paired_standard_errors(s, parts, "truth")
    >>> se["truth"], bool(e["shuffled"] - e["truth"] > 3 * se["shuffled"] > 0)
    (0.0, True)
    """
    if weighting not in WEIGHTINGS:
        raise ValueError(f"weighting must be one of {WEIGHTINGS}, got {weighting!r}")
    terms = _memo_terms(split, labels, terms)
    weights = _view_weights(split, terms, weighting)
    ref = terms[reference]
    out = {}
    for c, t in terms.items():
        used = [v for v in weights if t[v] is not None]
        if used != [v for v in weights if ref[v] is not None]:
            out[c] = float("inf")
            continue
        total = sum(weights[v] for v in used)
        out[c] = float(np.sqrt(sum((weights[v] / total) ** 2 * np.var(t[v] - ref[v])
                                   / t[v].size for v in used))) if used else 0.0
    return out


def _edge_scores(incidence_t, y, k, omega):
    """Mean block rate of every hyperedge's member pairs, shape (m,)."""
    C = edge_cluster_counts(incidence_t, y, k)
    size = np.asarray(C.sum(axis=1)).ravel()
    CO = np.asarray(C @ omega)  # (m, k)
    quad = np.asarray(C.multiply(CO).sum(axis=1)).ravel()
    diag = np.asarray(C @ np.diag(omega)).ravel()
    pairs = size * (size - 1.0)
    return np.where(pairs > 0, (quad - diag) / np.maximum(pairs, 1.0), 0.0)


def _placements(pos, neg):
    """Per score in ``pos``, the share of ``neg`` it exceeds (ties one half)."""
    neg = np.sort(neg)
    return (np.searchsorted(neg, pos, "left") + np.searchsorted(neg, pos, "right")) \
        / (2.0 * max(neg.size, 1))
