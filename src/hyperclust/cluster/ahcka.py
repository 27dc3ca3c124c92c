"""AHCKA: attributed hypergraph clustering by kNN augmentation and adaptive orthogonal
iterations (Li, Yang & Shi, SIGMOD 2023), written from the published description
(``shared/docs/ahcka.md``), not from its code.

Orthogonal iterations on ``M = (1 - beta) P + beta Q`` (hypergraph walk ``P``, attribute kNN
walk ``Q``) from a random-walk-with-restart seed assignment; every ``check_interval``
iterations the embedding is discretised and scored by
:func:`~hyperclust.selection.objectives.rwr_conductance`; the best non-degenerate check wins.
"""

from __future__ import annotations

import logging

import numpy as np

from ..selection.objectives import is_degenerate, rwr_conductance
from ..operators.buffered_walk import BufferedMixedWalk
from ..operators.knn import KNN_METHODS, MixedWalk, knn_affinity
from ..operators.row_ranges import even_ranges, run_on_ranges
from ..operators.thin_qr import thin_qr
from ..runtime.progress import progress_bar
from ..runtime.threads import kernel_thread_limit, kernel_threads
from .._validation import Interval, Options
from .base import SHARED_CONSTRAINTS, HypergraphClusterer, check_hypergraph, check_n_clusters
from ..runtime.iteration_clock import IterationClock
from .node_order import given_positions, pays_from_incidences
from .ahcka_checks import CheckQueue
from .block_argmax import rotated_labels, rotated_labels_and_sums
from .rounding import TINY_ROW, first_near_minimum, kmeans_on_rows, normalize_rows

__all__ = ["AHCKA", "adaptive_iterations", "discretize", "highest_degree_nodes",
           "rwr_seed_assignment"]

_log = logging.getLogger(__name__)


def discretize(V: np.ndarray, start: int = 0, max_iter: int = 30, tol: float = 1e-10):
    """Yu & Shi (2003) discretisation: labels (n,) of the indicator matrix nearest to a
    rotation of ``V`` (n, k); row ``start`` fixes the first column of the initial rotation.
    All-zero rows get label 0.

    Examples
    --------
    >>> B = np.repeat(np.eye(3), 2, axis=0)              # 3 clusters of 2 nodes
    >>> R, _ = np.linalg.qr(np.random.default_rng(0).normal(size=(3, 3)))
    >>> discretize(B @ R).tolist()                        # recovered from a rotation
    [0, 0, 1, 1, 2, 2]
    """
    V = np.asarray(V, dtype=np.float64)
    norms = np.linalg.norm(V, axis=1)
    scale = float(norms.max(initial=0.0))
    Xn = normalize_rows(V, scale, norms)
    n, k = Xn.shape
    nonzero = norms > TINY_ROW * scale  # the rows normalize_rows kept
    if not nonzero.any():
        return np.zeros(n, dtype=np.int64)
    if not nonzero[start]:
        start = int(np.flatnonzero(nonzero)[0])
    R = np.zeros((k, k))
    R[:, 0] = Xn[start]
    c = np.where(nonzero, 0.0, np.inf)
    for j in range(1, k):
        c += np.abs(Xn @ R[:, j - 1])
        R[:, j] = Xn[first_near_minimum(c)]
    last = np.inf
    labels = rotated_labels(Xn, R) if max_iter < 1 else None
    threads = kernel_threads("discretize", n * k)
    for _ in range(max_iter):
        labels, BtX = rotated_labels_and_sums(Xn, R, n_threads=threads)  # BtX = B^T Xn
        U, S, Wt = np.linalg.svd(BtX, full_matrices=False)
        obj = n - S.sum()
        if last - obj < tol * max(1.0, n):
            break
        last = obj
        R = Wt.T @ U.T
    return labels.astype(np.int64)


def highest_degree_nodes(degrees: np.ndarray, k: int, positions: np.ndarray) -> np.ndarray:
    """The ``k`` nodes of highest degree, ties to the lowest ``positions`` (each node's
    position in the given hypergraph, :func:`~hyperclust.cluster.node_order.given_positions`).

    Examples
    --------
    >>> deg = np.array([1.0, 3.0, 2.0, 3.0])
    >>> highest_degree_nodes(deg, 2, np.arange(4)).tolist()
    [1, 3]
    >>> highest_degree_nodes(deg, 2, np.array([0, 3, 1, 2])).tolist()
    [3, 1]
    """
    kth_largest = np.partition(degrees, degrees.size - k)[degrees.size - k]
    contenders = np.flatnonzero(degrees >= kth_largest)
    ranked = np.lexsort((positions[contenders], -degrees[contenders]))
    return contenders[ranked[:k]]


def rwr_seed_assignment(walk, seeds: np.ndarray, alpha: float, n_steps: int) -> np.ndarray:
    """Assign every node to the seed whose random walk with restart visits it most.

    ``z <- alpha E + (1 - alpha) M^T z`` from the seed indicators ``E``, ``n_steps`` times;
    node ``v`` goes to ``argmax_j z[v, j]`` (``-1`` if no walk reaches it). ``walk``: the
    row-stochastic ``M``, shape (n, n).

    Examples
    --------
    >>> from hyperclust import Hypergraph
    >>> from hyperclust.operators.knn import MixedWalk
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [1, 2], [3, 4, 5], [4, 5], [2, 3]])
    >>> rwr_seed_assignment(MixedWalk(hg), np.array([0, 5]), alpha=0.2, n_steps=5).tolist()
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


def adaptive_iterations(walk, q, init_labels, *, k: int, start: int, alpha: float,
                        max_iter: int, check_interval: int, patience: int, n_hops: int):
    """AHCKA's orthogonal iterations ``q <- QR(M q)`` with label-free selection.

    At iteration 0 and every ``check_interval`` iterations the leading ``k`` columns are
    discretised and scored by :func:`~hyperclust.selection.objectives.rwr_conductance`; the
    score's walk steps ride as extra columns on the next products ``M q``. Stops when the
    score has risen ``patience`` checks in a row.

    Parameters
    ----------
    walk : LinearOperator, shape (n, n)
    q : ndarray, shape (n, k + 1)
        Orthonormal start block, clustered as ``init_labels`` (n,).
    k, start, alpha, max_iter, check_interval, patience, n_hops
        Clusters, ``start`` of :func:`discretize`, the rest as in :class:`AHCKA`.

    Returns
    -------
    best : tuple (objective, labels, embedding, iteration)
        The lowest-scoring non-degenerate check (the lowest of all if every one is).
    history : list of (int, float)
        ``(iteration, objective)`` of every check.
    n_iter : int
        Iterations run (the stopping check's).

    Examples
    --------
    >>> import numpy as np
    >>> from hyperclust import Hypergraph
    >>> from hyperclust.operators.knn import MixedWalk
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [1, 2], [3, 4, 5], [4, 5], [2, 3]])
    >>> q, _ = np.linalg.qr(np.random.default_rng(0).normal(size=(6, 3)))
    >>> best, history, n_iter = adaptive_iterations(
    ...     MixedWalk(hg), q, np.array([0, 1, 0, 1, 0, 1]), k=2, start=2, alpha=0.2,
    ...     max_iter=20, check_interval=5, patience=3, n_hops=3)
    >>> best[1].tolist(), best[3], [it for it, _ in history], n_iter
    ([0, 0, 0, 1, 1, 1], 5, [0, 5, 10, 15, 20], 20)
    """
    width = q.shape[1]
    checks = CheckQueue(k, patience, n_hops, _log)
    bar = progress_bar("AHCKA iterations", total=max_iter)
    apply_walk = BufferedMixedWalk(walk)
    stacked = np.empty(0)
    clock = IterationClock("AHCKA", _log)
    checks.add(0, init_labels, np.ascontiguousarray(q[:, :k]))
    it, spare = 0, None  # spare: the last iterate's block, rewritten by the next QR
    while checks.stopped_at is None and (it < max_iter or checks.open):
        advance = it < max_iter
        head, q = ([q] if advance else []), None  # emptied once copied (memory at 10^6 nodes)
        MX, stacked = _walk_stacked(apply_walk, head, checks, stacked)
        if advance:
            q = spare = thin_qr(MX[:, :width], out=spare)
            it += 1
            bar.update()
        checks.walk_one_hop(MX[:, width if advance else 0:], alpha)
        checks.close_finished()
        if advance and checks.stopped_at is None and it % check_interval == 0:
            with clock.check(it):
                checks.add(it, *_discretized(q, k, start))
    bar.close()
    stopped_at = checks.stopped_at
    clock.finished(it, stopped_at)
    return checks.best[1:], checks.history, (it if stopped_at is None else stopped_at)


def _walk_stacked(apply_walk, head: list, checks, stacked: np.ndarray):
    """``(M X, stacked)``, ``X`` the ``head`` blocks and the open checks' walks side by side
    in the reused buffer ``stacked``."""
    blocks = head + checks.take_walks()
    n = blocks[0].shape[0]
    size = n * sum(b.shape[1] for b in blocks)
    if stacked.size < size:
        stacked = np.empty(size)
    X = stacked[:size].reshape(n, -1)

    def copy_rows(lo, hi):
        col = 0
        for b in blocks:
            X[lo:hi, col:col + b.shape[1]] = b[lo:hi]
            col += b.shape[1]

    run_on_ranges(copy_rows, even_ranges(n, size))
    head.clear()
    blocks = None
    return apply_walk(X, overwrite_input=True), stacked


def _discretized(q, k, start):
    """``(labels, embedding)`` of the leading ``k`` columns of ``q`` (copied: ``q`` is reused)."""
    embedding = np.array(q[:, :k], order="C")
    return discretize(embedding, start=start), embedding


class AHCKA(HypergraphClusterer):
    """Attributed hypergraph clustering by kNN augmentation (AHCKA, Li, Yang & Shi 2023).

    See the module docstring. Without attributes (or ``beta=0``) the walk is the hypergraph
    walk alone and nodes in no hyperedge go to cluster 0.

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
    check_interval : int, default 5
        Iterations between discretisations.
    patience : int, default 3
        Stop when the objective has risen this many checks in a row.
    init_steps, n_hops : int, default 5, 3
        Walk steps of the initialisation and of the objective.
    knn_method : {"auto", "exact", "approximate"}, default "auto"
        kNN search (:func:`~hyperclust.operators.knn.cosine_knn`).
    random_state : int, default 0
        Seeds the kNN search and its tie-breaking; all later steps are deterministic.

    Attributes
    ----------
    labels_ : ndarray of int64, shape (n_nodes,)
    embedding_ : ndarray, shape (n_nodes, n_clusters)
        Leading orthonormal columns at the selected iteration ``best_iter_``.
    objective_ : float
        Objective of ``labels_`` (lower is better).
    objective_history_ : list of (int, float)
        ``(iteration, objective)`` at every check.
    n_iter_, best_iter_ : int
    selection_reason_ : str
    degenerate_ : bool
        Every check was degenerate, so ``labels_`` are k-means on the rows of ``embedding_``.
    walk_ : MixedWalk
        The operator ``M``.

    Examples
    --------
    >>> from hyperclust.datasets import hypergraph_sbm
    >>> from hyperclust.metrics import evaluate
    >>> hg = hypergraph_sbm(200, 2, homophily=0.9, n_features=8, random_state=0)
    >>> evaluate(hg.labels, AHCKA(2, random_state=0).fit(hg).labels_)["acc"] > 0.9
    True
    """

    #: Per-node outputs (:mod:`hyperclust.cluster.node_order`).
    _node_outputs = ("labels_", "embedding_", "walk_")
    _cache_order_pays = pays_from_incidences(2**21)

    _parameter_constraints = {
        **SHARED_CONSTRAINTS,
        "n_neighbors": [Interval(int, 1)],
        "beta": [Interval(float, 0, 1)],
        "alpha": [Interval(float, 0, 1, closed="right")],
        "max_iter": [Interval(int, 0)],
        "check_interval": [Interval(int, 1)],
        "patience": [Interval(int, 1)],
        "init_steps": [Interval(int, 0)],
        "n_hops": [Interval(int, 0)],
        "knn_method": [Options(KNN_METHODS)],
    }

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
        """Cluster the nodes of ``hypergraph``; ``walk``: a prebuilt :meth:`build_walk`."""
        hg = check_hypergraph(hypergraph)
        k = check_n_clusters(self.n_clusters, hg.n_nodes)
        n = hg.n_nodes
        M = self.build_walk(hg) if walk is None else walk
        if M.shape != (n, n):
            raise ValueError(f"walk has shape {M.shape}, expected {(n, n)}")
        alpha = float(self.alpha)
        deg = np.asarray(hg.weighted_degrees, dtype=np.float64)
        seeds = highest_degree_nodes(deg, k, given_positions(self, n))
        # QR and rotations of n x (k + 1) blocks: BLAS threads only where they pay
        with kernel_thread_limit("tall_skinny", float(n) * (k + 1) ** 2):
            init = rwr_seed_assignment(M, seeds, alpha, self.init_steps)
            # the start block is passed, not named: the loop's first QR then frees it
            best, history, it = adaptive_iterations(
                M, _start_block(init, k), np.where(init >= 0, init, 0), k=k,
                start=int(seeds[0]), alpha=alpha,
                max_iter=int(self.max_iter), check_interval=int(self.check_interval),
                patience=int(self.patience), n_hops=int(self.n_hops))
        self.objective_, self.labels_, self.embedding_, self.best_iter_ = best
        self.labels_ = np.asarray(self.labels_, dtype=np.int64)
        self.degenerate_ = is_degenerate(self.labels_, k)
        if self.degenerate_:
            self.labels_ = kmeans_on_rows(self.embedding_, k, self._rng_seed(self.random_state))
            self.objective_ = rwr_conductance(hg, self.labels_, walk=M, alpha=alpha,
                                              n_hops=int(self.n_hops))
        self.objective_history_ = history
        self.n_iter_ = it
        self.walk_ = M
        self.selection_reason_ = (
            f"kept iteration {self.best_iter_} of {it} by random-walk conductance, lower is "
            "better, a degenerate check last" + ("; every check was degenerate: k-means on "
                                                  "the embedding's rows" if self.degenerate_
                                                  else f" ({self.objective_:.4f})"))
        return self


def _start_block(init, k):
    """Orthonormal start block ``(n, k + 1)``: normalised indicators of ``init`` (``-1``: a
    zero row) and a constant column."""
    n = init.size
    assigned = init >= 0
    Y0 = np.zeros((n, k))
    if assigned.any():
        Y0[assigned] = _indicator_columns(init[assigned], k)
    return thin_qr(np.column_stack([Y0, np.full(n, 1.0 / np.sqrt(n))]))


def _indicator_columns(labels, k):
    """Normalised indicators, ``k`` columns (empty clusters give zero columns)."""
    counts = np.bincount(labels, minlength=k).astype(np.float64)
    Y = np.zeros((labels.size, k))
    Y[np.arange(labels.size), labels] = 1.0 / np.sqrt(counts[labels])
    return Y
