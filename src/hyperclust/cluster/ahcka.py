"""AHCKA: attributed hypergraph clustering by kNN augmentation and adaptive orthogonal
iterations (Li, Yang & Shi, SIGMOD 2023), written from the algorithm's published description
(``shared/docs/ahcka.md``), not from its (unlicensed) code.

1. ``Q``: cosine kNN walk of the node attributes (:func:`~hyperclust.operators.knn.knn_walk`);
2. ``M = (1 - beta) P + beta Q`` (:class:`~hyperclust.operators.knn.MixedWalk`), ``P`` the
   hypergraph random walk; nodes in no hyperedge walk on ``Q`` only; without attributes
   ``M = P``;
3. initialisation: random walks with restart from the ``k`` highest-degree nodes, each node
   assigned to the seed whose walk visits it most; start block = normalised indicators +
   constant vector;
4. orthogonal iterations ``q <- QR(M q)``;
5. every ``check_interval`` iterations the leading ``k`` columns are discretised (Yu & Shi
   2003) and scored by :func:`~hyperclust.objectives.rwr_conductance` on ``M``; the best
   clustering is kept and the iterations stop when the score has risen ``patience`` checks
   in a row.
"""

from __future__ import annotations


import numpy as np

from ..objectives import rwr_conductance
from ..operators.knn import KNN_METHODS, MixedWalk, knn_affinity
from .._validation import check_fraction, check_int
from .base import HypergraphClusterer, check_hypergraph, check_n_clusters

__all__ = ["AHCKA", "discretize", "rwr_seed_assignment"]


def _row_normalize(V):
    norms = np.linalg.norm(V, axis=1, keepdims=True)
    return np.divide(V, norms, out=np.zeros_like(V), where=norms > 0)


def discretize(V: np.ndarray, start: int = 0, max_iter: int = 30, tol: float = 1e-10):
    """Yu & Shi (2003) discretisation: the indicator matrix nearest to a rotation of ``V``.

    Rows are normalised; the initial rotation takes row ``start`` and then, greedily, the rows
    most orthogonal to those already taken; then alternately ``labels = argmax(V R)`` and
    ``R = W U^T`` from the SVD ``U S W^T`` of ``B^T V`` (``B`` the indicators of ``labels``)
    until the objective ``n - trace(S)`` stops decreasing. Deterministic.

    Parameters
    ----------
    V : ndarray, shape (n, k)
        Continuous embedding (e.g. leading eigenvectors).
    start : int, default 0
        Row that fixes the first column of the initial rotation (must be a non-zero row;
        the first non-zero row is used otherwise).
    max_iter : int, default 30
    tol : float, default 1e-10

    Returns
    -------
    ndarray of int64, shape (n,)
        Labels in ``0..k-1``; all-zero rows get label 0.

    Examples
    --------
    >>> import numpy as np
    >>> B = np.repeat(np.eye(3), 2, axis=0)              # 3 clusters of 2 nodes
    >>> R, _ = np.linalg.qr(np.random.default_rng(0).normal(size=(3, 3)))
    >>> discretize(B @ R).tolist()                        # recovered from a rotation
    [0, 0, 1, 1, 2, 2]
    """
    Xn = _row_normalize(np.asarray(V, dtype=np.float64))
    n, k = Xn.shape
    nonzero = np.any(Xn != 0, axis=1)
    if not nonzero.any():
        return np.zeros(n, dtype=np.int64)
    if not nonzero[start]:
        start = int(np.flatnonzero(nonzero)[0])
    R = np.zeros((k, k))
    R[:, 0] = Xn[start]
    c = np.where(nonzero, 0.0, np.inf)
    for j in range(1, k):
        c += np.abs(Xn @ R[:, j - 1])
        R[:, j] = Xn[int(np.argmin(c))]
    last = np.inf
    labels = np.argmax(Xn @ R, axis=1)
    for _ in range(max_iter):
        labels = np.argmax(Xn @ R, axis=1)
        BtX = np.stack([np.bincount(labels, weights=Xn[:, j], minlength=k)
                        for j in range(k)], axis=1)  # B^T Xn, a loop over the k columns
        U, S, Wt = np.linalg.svd(BtX, full_matrices=False)
        obj = n - S.sum()
        if last - obj < tol * max(1.0, n):
            break
        last = obj
        R = Wt.T @ U.T
    return labels.astype(np.int64)


def rwr_seed_assignment(walk, seeds: np.ndarray, alpha: float, n_steps: int) -> np.ndarray:
    """Assign every node to the seed whose random walk with restart visits it most.

    ``z_0 = E``, ``z_{t+1} = alpha E + (1 - alpha) M^T z_t`` (``E`` the seed indicator
    columns), so column ``j`` of ``z`` is the distribution of an ``n_steps``-hop walk with
    restart started at seed ``j``; node ``v`` goes to ``argmax_j z[v, j]``. (The walk runs
    *from* the seeds; ``M^T`` is applied in factored form, see
    :class:`~hyperclust.operators.knn.MixedWalk`.)

    Parameters
    ----------
    walk : LinearOperator, shape (n, n)
        Row-stochastic walk ``M`` (its adjoint is used).
    seeds : ndarray of int, shape (k,)
    alpha : float
    n_steps : int

    Returns
    -------
    ndarray of int64, shape (n,)
        Seed position in ``0..k-1``, or ``-1`` for a node no walk reaches.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> # two triangles joined by one edge: each seed claims its own triangle
    >>> A = sp.csr_matrix((np.ones(14), ([0, 1, 0, 2, 1, 2, 3, 4, 3, 5, 4, 5, 2, 3],
    ...                                  [1, 0, 2, 0, 2, 1, 4, 3, 5, 3, 5, 4, 3, 2])), shape=(6, 6))
    >>> M = sp.diags(1 / np.asarray(A.sum(axis=1)).ravel()) @ A
    >>> rwr_seed_assignment(M, np.array([0, 5]), alpha=0.2, n_steps=5).tolist()
    [0, 0, 0, 1, 1, 1]
    """
    n = walk.shape[0]
    k = seeds.size
    E = np.zeros((n, k))
    E[seeds, np.arange(k)] = 1.0
    z = E
    for _ in range(int(n_steps)):
        z = alpha * E + (1.0 - alpha) * np.asarray(walk.T @ z)
    labels = np.argmax(z, axis=1)
    labels[z.max(axis=1) <= 0] = -1
    return labels.astype(np.int64)


class AHCKA(HypergraphClusterer):
    """Attributed hypergraph clustering by kNN augmentation (AHCKA, Li, Yang & Shi 2023).

    Orthogonal iterations on the mixed walk ``M = (1 - beta) P + beta Q`` (hypergraph walk
    ``P``, cosine kNN walk ``Q`` of the attributes), started from random-walk-with-restart
    assignments to the ``k`` highest-degree nodes; every ``check_interval`` iterations the
    leading ``k`` columns are discretised (Yu & Shi) and scored with the label-free
    :func:`~hyperclust.objectives.rwr_conductance` on ``M``; the lowest-scoring clustering is
    returned. Cost ``O((nnz(H) + n K) k)`` per iteration plus the kNN search; memory
    ``O(n k + nnz(H) + n K)``.

    Without attributes (or ``beta=0``) the walk is the hypergraph walk alone; nodes in no
    hyperedge then have zero rows (the walk stops there) and end in whichever cluster the
    discretisation gives an all-zero row (cluster 0).

    Parameters
    ----------
    n_clusters : int
    n_neighbors : int, default 10
        ``K`` of the attribute kNN graph.
    beta : float in [0, 1], default 0.5
        Weight of the kNN walk.
    alpha : float in (0, 1], default 0.2
        Restart probability of the initialisation and of the objective.
    max_iter : int, default 200
        ``t_max``, orthogonal iterations.
    check_interval : int, default 5
        ``tau``: iterations between discretisations.
    patience : int, default 3
        Stop when the objective has risen this many checks in a row.
    init_steps : int, default 5
        Random-walk-with-restart steps of the initialisation.
    n_hops : int, default 3
        Walk steps of the objective.
    knn_method : {"auto", "exact", "approximate"}, default "auto"
        kNN search (:func:`~hyperclust.operators.knn.cosine_knn`): exact up to 30,000 nodes.
    random_state : int, default 0
        Seeds which of the attribute neighbours tied with the ``K``-th similarity are kept
        (exact ties are common with binary bag-of-words features) and the approximate kNN
        search; everything after the kNN graph is deterministic, so inputs without such
        ties give the same clustering for every seed.

    Attributes
    ----------
    labels_ : ndarray of int64, shape (n_nodes,)
    embedding_ : ndarray, shape (n_nodes, n_clusters)
        Leading ``k`` orthonormal columns at the selected iteration.
    objective_ : float
        Objective of ``labels_`` (lower is better).
    objective_history_ : list of (int, float)
        ``(iteration, objective)`` at every check.
    n_iter_ : int
        Orthogonal iterations run.
    best_iter_ : int
        Iteration of the selected clustering (0 = the initial assignment).
    walk_ : MixedWalk
        The operator ``M`` (reusable, e.g. for scoring other clusterings).

    Examples
    --------
    >>> from hyperclust.datasets import hypergraph_sbm
    >>> from hyperclust.metrics import evaluate
    >>> hg = hypergraph_sbm(200, 2, homophily=0.9, n_features=8, random_state=0)
    >>> evaluate(hg.labels, AHCKA(2, random_state=0).fit(hg).labels_)["acc"] > 0.9
    True
    """

    def __init__(self, n_clusters=2, *, n_neighbors=10, beta=0.5, alpha=0.2, max_iter=200,
                 check_interval=5, patience=3, init_steps=5, n_hops=3, knn_method="auto",
                 random_state=0):
        self.n_clusters = n_clusters
        self.n_neighbors = n_neighbors
        self.beta = beta
        self.alpha = alpha
        self.max_iter = max_iter
        self.check_interval = check_interval
        self.patience = patience
        self.init_steps = init_steps
        self.n_hops = n_hops
        self.knn_method = knn_method
        self.random_state = random_state

    def _validate(self, hg):
        k = check_iteration_params(self, hg.n_nodes)
        if self.knn_method not in KNN_METHODS:
            raise ValueError(f"knn_method must be one of {KNN_METHODS}, got {self.knn_method!r}")
        return k

    def build_walk(self, hypergraph) -> MixedWalk:
        """The mixed walk ``M`` this estimator uses on ``hypergraph``."""
        hg = check_hypergraph(hypergraph)
        seed = self._rng_seed(self.random_state)
        knn = None
        if hg.features is not None and self.beta > 0 and hg.n_nodes > 1:
            knn = knn_affinity(hg.features, self.n_neighbors, method=self.knn_method,
                               random_state=seed)
        return MixedWalk(hg, knn, beta=self.beta)

    def fit(self, hypergraph, y=None, *, walk=None):
        """Cluster the nodes of ``hypergraph``; sets ``labels_`` and ``embedding_``.

        Parameters
        ----------
        hypergraph : Hypergraph
        y : ignored
        walk : MixedWalk, optional
            A prebuilt :meth:`build_walk` of the same hypergraph (saves the kNN search).
        """
        hg = check_hypergraph(hypergraph)
        k = self._validate(hg)
        n = hg.n_nodes
        M = self.build_walk(hg) if walk is None else walk
        if M.shape != (n, n):
            raise ValueError(f"walk has shape {M.shape}, expected {(n, n)}")
        alpha = float(self.alpha)

        def score(labels):
            return rwr_conductance(hg, labels, walk=M, alpha=alpha, n_hops=self.n_hops)

        deg = np.asarray(hg.weighted_degrees, dtype=np.float64)
        seeds = np.argsort(-deg, kind="stable")[:k]
        init = rwr_seed_assignment(M, seeds, alpha, self.init_steps)
        assigned = init >= 0
        Y0 = np.zeros((n, k))
        if assigned.any():
            Y0[assigned] = _indicator_columns(init[assigned], k)
        q, _ = np.linalg.qr(np.column_stack([Y0, np.full(n, 1.0 / np.sqrt(n))]))
        init_labels = np.where(assigned, init, 0)
        best = (score(init_labels), init_labels, q[:, :k].copy(), 0)
        history = [(0, best[0])]
        rises, last = 0, best[0]
        it = 0
        for it in range(1, int(self.max_iter) + 1):
            q, _ = np.linalg.qr(np.asarray(M @ q))
            if it % self.check_interval:
                continue
            labels = discretize(q[:, :k], start=int(seeds[0]))
            f = score(labels)
            history.append((it, f))
            if f < best[0]:
                best = (f, labels, q[:, :k].copy(), it)
            rises = rises + 1 if f > last else 0
            last = f
            if rises >= self.patience:
                break
        self.objective_, self.labels_, self.embedding_, self.best_iter_ = best
        self.labels_ = np.asarray(self.labels_, dtype=np.int64)
        self.objective_history_ = history
        self.n_iter_ = it
        self.walk_ = M
        return self


def check_iteration_params(est, n_nodes: int) -> int:
    """Check the parameters AHCKA's iteration shares with its Dask version
    (:class:`hyperclust.distributed.DistributedAHCKA`); returns ``n_clusters``.

    Examples
    --------
    >>> check_iteration_params(AHCKA(3), 10)
    3
    """
    k = check_n_clusters(est.n_clusters, n_nodes)
    check_int(est.n_neighbors, "n_neighbors", 1)
    check_fraction(est.beta, "beta")
    check_fraction(est.alpha, "alpha", lo_open=True)
    check_int(est.max_iter, "max_iter", 0)
    check_int(est.check_interval, "check_interval", 1)
    check_int(est.patience, "patience", 1)
    check_int(est.init_steps, "init_steps", 0)
    check_int(est.n_hops, "n_hops", 0)
    return k


def _indicator_columns(labels, k):
    """Normalised indicators with exactly ``k`` columns (empty clusters give zero columns)."""
    counts = np.bincount(labels, minlength=k).astype(np.float64)
    Y = np.zeros((labels.size, k))
    Y[np.arange(labels.size), labels] = 1.0 / np.sqrt(counts[labels])
    return Y
