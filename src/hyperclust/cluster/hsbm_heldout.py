"""A selection signal no candidate optimised: how well a partition predicts data it was not
fitted on.

:func:`split_hypergraph` holds out a share of the hyperedges (those with at least two
members) and a share of the attribute columns; candidates are fitted on the rest
(:attr:`HoldoutSplit.train`). :func:`heldout_error` then scores a partition of the nodes on
what was held out, with two views, each an AUC against random look-alikes:

* **hyperedges**: the block model of the partition is fitted on the *training* hyperedges
  (degree-corrected rates ``omega``, :func:`~hyperclust.cluster.hsbm_likelihood.block_rates`);
  a hyperedge scores the mean rate of its member pairs,
  ``sum_{i<j in e} omega_{z_i z_j} / C(|e|, 2)``. Each held-out hyperedge is compared with
  a fake one of the same size whose members are drawn in proportion to their training
  degree, so degree alone predicts nothing and only the partition separates them;
* **attributes**: in the *held-out columns* (rows L2-normalised), every node's cosine
  similarity to the centroid of its own cluster (itself left out) against its similarity to
  the centroid of each other cluster: the AUC is the share of other clusters whose centroid
  is less similar than its own (ties one half), averaged over the nodes with a non-zero
  held-out row of each cluster and then over the clusters.

The error is the mean of ``1 - AUC`` over the views present, each weighted by the share of
the nodes it can judge: the nodes in some training hyperedge for the hyperedge view, those
with a non-zero held-out attribute row for the attribute view (a view cannot tell where a
node it never sees belongs; on co-citation sets half of the nodes are in no hyperedge).
Lower is better, 0.5 is chance. Both views are label-free and neither is the walk or the graph any candidate fitted.
Cost per partition ``O(nnz(held-out) K + K^2 m_held + n K)``.
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
    """What :func:`split_hypergraph` returns.

    Attributes
    ----------
    train : Hypergraph
        The same nodes with the kept hyperedges and the kept attribute columns.
    heldout : scipy.sparse.csr_matrix or None, shape (m_held, n)
        Incidence of the held-out hyperedges (rows are hyperedges).
    fakes : scipy.sparse.csr_matrix or None, shape (m_held, n)
        One fake hyperedge per held-out one, same size, members drawn by training degree.
    columns : ndarray or sparse matrix, shape (n_rows, d_held), or None
        The held-out attribute columns of the nodes with a non-zero held-out row, rows
        L2-normalised.
    rows : ndarray of int, shape (n_rows,), or None
        Those nodes.
    expansion : CliqueExpansion
        Of ``train``, shared by every score.
    edge_coverage, attribute_coverage : float
        Share of the nodes in some training hyperedge / with a non-zero held-out attribute
        row (0 when the view is absent): the weights of the views in :func:`heldout_error`.

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
    hypergraph : Hypergraph, n nodes
    edge_share : float in [0, 1), default 0.1
        Share of the hyperedges with >= 2 members held out (none when fewer than
        :data:`MIN_HELDOUT_EDGES` would be).
    column_share : float in [0, 1), default 0.2
        Share of the attribute columns held out (at least one, when there are >= 2 columns).
    n_fakes : int, default 5
        Fake hyperedges per held-out one.
    random_state : int, default 0

    Returns
    -------
    HoldoutSplit

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
    """``(kept, held)`` column blocks of the features (``held`` None when nothing is held)."""
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
    """The held-out items' errors of a partition, per view: ``{"edges": array or None,
    "attributes": array or None}``. Each view's error ``1 - AUC`` is the mean of its terms:
    per held-out hyperedge, ``1 -`` the share of the fakes it outscores (ties one half); per
    judged node, ``1 -`` its centroid AUC, scaled so that every cluster weighs the same.

    Parameters
    ----------
    split : HoldoutSplit
    labels : array-like of int, shape (n,)
        A partition of the split's nodes (cluster ids are arbitrary).

    Returns
    -------
    dict of str -> ndarray of shape (m_held,) / (n_rows,), or None

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
    """``{"edges": AUC or None, "attributes": AUC or None}`` of a partition (see module).

    Parameters
    ----------
    split : HoldoutSplit
    labels : array-like of int, shape (n,)

    Returns
    -------
    dict of str -> float or None

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
    """Per node, ``1 -`` the share of other clusters whose centroid is less cosine-similar
    than its own cluster's (itself left out; ties one half), times ``n / (K' size of its
    cluster)`` (``K'`` non-empty clusters) so that the mean is the per-cluster averaged
    error; None when no other cluster has a centroid. ``Xn`` has unit rows."""
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
    """Mean of ``1 - AUC`` over the views :func:`heldout_aucs` has, each weighted by the
    share of the nodes it can judge (:attr:`HoldoutSplit.edge_coverage`,
    :attr:`HoldoutSplit.attribute_coverage`); lower is better, 0.5 when no view exists.

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
    """:func:`heldout_error` of a partition's :func:`heldout_terms`."""
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
    """The held-out error of each of several partitions, lower is better.

    ``weighting="coverage"``: :func:`heldout_error` of each. ``"precision"``: each view's
    error weighted by its precision over these partitions, ``1 / SE^2`` of the view's mean
    term with the variance pooled over the partitions: the error is then the
    minimum-variance combination of the views, so a view judged on few or noisy items
    (e.g. 97 held-out hyperedges of cora-ca against 2,500 judged nodes) sways the
    comparison less; a view whose terms do not vary tells nothing and is left out.

    Parameters
    ----------
    split : HoldoutSplit
    labels : dict of str -> array-like of int, shape (n,)
    weighting : {"coverage", "precision"}, default "coverage"
    terms : dict or None, default None
        A memo of :func:`heldout_terms` on this split, keyed as ``labels`` (filled in
        place): a caller that scores the same partitions again (the race's standard
        errors) computes each one's terms once.

    Returns
    -------
    dict of str -> float

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
    """``{c: heldout_terms(split, labels[c])}``, taken from ``memo`` where there and stored
    in it otherwise (``memo`` None: computed afresh)."""
    memo = {} if memo is None else memo
    for c, y in labels.items():
        if c not in memo:
            memo[c] = heldout_terms(split, y)
    return {c: memo[c] for c in labels}


def _view_weights(split, terms, weighting):
    """``{view: weight}`` of the views :func:`heldout_errors` combines with ``weighting``:
    the coverage of each view present, or ``1 / SE^2`` of its mean term pooled over the
    partitions' ``terms`` (a view whose terms do not vary is left out)."""
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
    """Standard error of each partition's held-out error minus that of ``reference``.

    Both errors are judged on the same held-out hyperedges and nodes, so the difference is
    a mean of per-item differences: its standard error is
    ``sqrt(sum_v (w_v / W)^2 var(t_cv - t_rv) / n_v)`` over the views ``v`` (weights
    ``w_v`` as in :func:`heldout_errors`, ``W`` their sum, ``t`` the per-item terms of
    :func:`heldout_terms`, ``n_v`` the items). A partition judged by other views than the
    reference gets ``inf`` (no paired comparison), the reference 0.

    Parameters
    ----------
    split : HoldoutSplit
    labels : dict of str -> array-like of int, shape (n,)
        The partitions (the precision weights pool over all of them).
    reference : str
        A key of ``labels``.
    weighting : {"coverage", "precision"}, default "coverage"
    terms : dict or None, default None
        A memo of :func:`heldout_terms`, as in :func:`heldout_errors`.

    Returns
    -------
    dict of str -> float
        ``{partition: SE of its error minus the reference's}``.

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
    """Per score in ``pos``, the share of ``neg`` it exceeds (ties one half): their mean is
    the Mann-Whitney AUC."""
    neg = np.sort(neg)
    return (np.searchsorted(neg, pos, "left") + np.searchsorted(neg, pos, "right")) \
        / (2.0 * max(neg.size, 1))
