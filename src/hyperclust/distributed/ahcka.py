"""AHCKA's adaptive orthogonal iterations on a partitioned hypergraph: the steps of
:class:`hyperclust.cluster.AHCKA` with ``knn_method="exact"`` on row blocks
(docs/distributed.md, "AHCKA").
"""

from __future__ import annotations


import numpy as np

from ..cluster.ahcka import AHCKA
from ..cluster.rounding import kmeans_on_rows
from ..cluster.base import HypergraphClusterer, check_n_clusters
from .._validation import Interval
from ..selection.loop import keep_best
from ..selection.objectives import sizes_are_degenerate
from ._params import twin_constraints, twin_init
from ._tasks import RETRIES
from .allocator import reuse_freed_memory
from .ahcka_check import (discretize_blocks, restart_step, rwr_conductance_blocks,
                          start_walk, walk_objective)
from .client import resolve_client
from .deferred import defer, materialize, resolve
from .inputs import as_partitioned, fit_blocks
from .knn import knn_affinity_blocks
from .lineage import lineage_cuts
from .linalg import factor_product, tsqr
from .operator import ignores_input, propagation
from .partitioned import load_node_block, load_node_ranks
from .storage import keep_output
from .walk import MixedBlockWalk

__all__ = ["DistributedAHCKA"]


# ---------------------------------------------------------------- per-block tasks
def _top_degrees(path, ranks_path, start, k):
    """The block's ``k`` highest degrees, ties to the lower rank: degrees, positions, ranks."""
    degrees = load_node_block(path)[2]
    ranks = load_node_ranks(ranks_path, start, start + degrees.size)
    order = np.lexsort((ranks, -degrees))[:k]
    return degrees[order], order + start, ranks[order]


def _indicators(rows, cols, n_rows, k):
    E = np.zeros((n_rows, k))
    E[rows, cols] = 1.0
    return E


def _argmax_assign(z):
    labels = np.argmax(z, axis=1).astype(np.int64)
    labels[z.max(axis=1) <= 0] = -1
    return labels


def _count(labels, k):
    return np.bincount(labels[labels >= 0], minlength=k)


def _start_block(labels, counts, n):
    k = counts.size
    Y = np.zeros((labels.size, k + 1))
    ok = labels >= 0
    Y[np.flatnonzero(ok), labels[ok]] = 1.0 / np.sqrt(counts[labels[ok]])
    Y[:, k] = 1.0 / np.sqrt(n)
    return Y


def _zero_unassigned(labels):
    return np.where(labels >= 0, labels, 0)


def _leading(q, k):
    return q[:, :k].copy()


def _stack(q, Y):
    return np.hstack([q, Y])


@ignores_input
def _walk_step(MX, X, width, alpha, n_done, *Ys):
    """A product's last step: the iterate's local QR and one restart step of each open walk."""
    Q, R, nonzero = factor_product(MX[:, :width], None)
    lo, done = width, []
    for Y in Ys[:n_done]:
        done.append(restart_step(MX[:, lo:lo + Y.shape[1]], None, alpha, Y))
        lo += Y.shape[1]
    going = None
    if len(Ys) > n_done:  # the steps written side by side at once (no stacking copy)
        going = np.empty((MX.shape[0], MX.shape[1] - lo), dtype=MX.dtype)
        at = 0
        for Y in Ys[n_done:]:
            restart_step(MX[:, lo + at:lo + at + Y.shape[1]], None, alpha, Y,
                         out=going[:, at:at + Y.shape[1]])
            at += Y.shape[1]
    return Q, R, nonzero, going, done


def _finished_trace(Y, step, i):
    return float(np.sum(Y * step[4][i]))


def _walk_columns(q, width, i, *Ys):
    """Walk ``i``'s columns of an iterate block."""
    q = resolve(q)
    lo = width + sum(Y.shape[1] for Y in Ys[:i])
    return q[:, lo:lo + Ys[i].shape[1]].copy()


class _Walk:
    """An open check: labels, cluster sizes, indicator blocks ``Y``, iterate, steps done."""

    def __init__(self, it, labels, counts, Y, q):
        self.it, self.labels, self.counts, self.Y, self.q = it, labels, counts, Y, q
        self.hops = 0


class _Iterate:
    """The iterate's blocks with the open checks' walks beside it."""

    def __init__(self, blocks, width, walks):
        self.blocks, self.width, self.walks = blocks, width, walks


class DistributedAHCKA(HypergraphClusterer):
    """AHCKA on a Dask cluster: the counterpart of ``AHCKA(..., knn_method="exact")``.

    With node features the walk mixes in the exact cosine kNN walk (``O(n^2 d)`` over all
    workers; no approximate search).

    Parameters
    ----------
    n_clusters, n_neighbors, beta, alpha, max_iter
        As in :class:`hyperclust.cluster.AHCKA` (its defaults).
    check_interval, patience, init_steps, n_hops, random_state
        As in :class:`hyperclust.cluster.AHCKA` (its defaults).
    discretize_iter : int, default 30
        Iterations of :func:`hyperclust.cluster.ahcka.discretize`.
    block_size : int, default 100,000
        Nodes per row block when ``fit`` gets an in-memory hypergraph.
    blocks_per_worker, client, n_workers, output, scratch_dir
        As in :class:`~hyperclust.distributed.DistributedSpectralClustering`.

    Attributes
    ----------
    labels_, embedding_, objective_, objective_history_, n_iter_, best_iter_
        As in :class:`hyperclust.cluster.AHCKA` (``embedding_`` up to column signs).
    node_ids_ : ndarray, shape (n_nodes,)
    n_blocks_ : int

    Examples
    --------
    >>> import distributed
    >>> from hyperclust import Hypergraph
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [1, 2], [3, 4, 5], [4, 5], [2, 3]])
    >>> with distributed.Client(processes=False, n_workers=1, dashboard_address=":0") as c:
    ...     est = DistributedAHCKA(2, client=c, block_size=4, max_iter=5).fit(hg)
    >>> est.labels_.tolist()
    [0, 0, 0, 1, 1, 1]
    """

    #: Parameters of :class:`hyperclust.cluster.AHCKA` not taken (the kNN search is exact).
    NOT_DISTRIBUTED = ("knn_method",)
    _SHARED = ("n_neighbors", "beta", "alpha", "max_iter", "check_interval", "patience",
               "init_steps", "n_hops", "random_state")
    __init__ = twin_init(AHCKA, _SHARED,
                         {"discretize_iter": 30, "block_size": 100_000,
                          "blocks_per_worker": 1, "client": None, "n_workers": 2,
                          "output": None, "scratch_dir": None})
    _parameter_constraints = twin_constraints(
        AHCKA, _SHARED, {**{name: [Interval(int, 1)]
                            for name in ("discretize_iter", "block_size", "n_workers")},
                         "blocks_per_worker": [Interval(int, 1), None]})

    def _validate(self, n):
        return check_n_clusters(self.n_clusters, n)

    def fit(self, hypergraph, y=None):
        """Cluster the nodes of a Hypergraph, PartitionedHypergraph or its directory."""
        with as_partitioned(hypergraph, self.block_size) as stored, \
                resolve_client(self.client, self.n_workers) as client, \
                lineage_cuts(client, self.scratch_dir or stored.path) as cuts, \
                reuse_freed_memory(client):
            phg = fit_blocks(stored, client, self.blocks_per_worker)
            k = self._validate(phg.n_nodes)
            self._fit(phg, client, k, cuts)
            keep_output(self, client, phg, hypergraph, self._labels_blocks,
                        self._embedding_blocks)
            del self._labels_blocks, self._embedding_blocks
        self.n_blocks_ = phg.n_blocks
        return self

    # ------------------------------------------------------------ steps
    def _submit(self, fn, *args):
        return self._client.submit(fn, *args, retries=RETRIES, pure=False)

    def _fit(self, phg, client, k, cuts):
        self._client = client
        n, bounds, alpha = phg.n_nodes, phg.block_bounds, float(self.alpha)
        if phg.n_features is not None and self.beta > 0 and n > 1:
            A = knn_affinity_blocks(phg, client, self.n_neighbors,
                                    random_state=self._rng_seed(self.random_state))
            M = MixedBlockWalk(phg, client, A, self.beta)
            Mt = MixedBlockWalk(phg, client, A, self.beta, adjoint=True)
        else:
            M = propagation(phg, client, self_loops=0.0, kind="rw")
            Mt = propagation(phg, client, self_loops=0.0, kind="rw", adjoint=True)
        sizes, seeds = np.diff(bounds), self._seeds(phg, k)
        blk = np.searchsorted(bounds, seeds, side="right") - 1
        E = [self._submit(_indicators, seeds[blk == b] - bounds[b], np.flatnonzero(blk == b),
                          int(sizes[b]), k) for b in range(phg.n_blocks)]
        z = E
        for _ in range(int(self.init_steps)):
            z = Mt.apply(z, then=[(restart_step, alpha, e) for e in E])
        init = [self._submit(_argmax_assign, zb) for zb in z]
        counts = np.sum(client.gather([self._submit(_count, lb, k) for lb in init]), axis=0)
        q, _ = tsqr(client, [self._submit(_start_block, lb, counts, n) for lb in init])
        init_labels = [self._submit(_zero_unassigned, lb) for lb in init]
        # the adjoint walk and the start's blocks are done with: their futures dropped,
        # the workers free them once the tasks above ran (Dask keeps their lineage)
        del Mt, E, z, init
        self._best, self._history, self._rises, self._stopped = None, [], 0, None
        q = self._open(_Iterate(q, k + 1, []), init_labels, 0, k)
        it = 0
        while self._stopped is None and it < int(self.max_iter):
            it += 1
            # the local QR and the open checks' restart steps in the product's last task;
            # no round trip (the single process's walks ride on its products the same way)
            done = [w for w in q.walks if w.hops + 1 == self.n_hops]
            local = M.apply(q.blocks, then=[(_walk_step, q.width, alpha, len(done),
                                             *[w.Y[b] for w in q.walks])
                                            for b in range(phg.n_blocks)]
                            if q.walks else (factor_product,))
            # Q deferred: made in the next product's first task (or where read below)
            blocks, _ = tsqr(client, local, gather_r=False, factored=True,
                             groups=M.block_groups(), deferred=True)
            for w in q.walks:
                w.hops += 1
            for i, w in enumerate(done):
                self._close(w, local, k, _finished_trace, (i,))
            q = _Iterate(blocks, q.width, q.walks[len(done):])
            if self._stopped is not None:
                break
            if cuts.due(it):
                q.blocks = cuts.cut(materialize(client, q.blocks))
            if it % self.check_interval == 0:
                q.blocks = materialize(client, q.blocks)
                labels = discretize_blocks(client, q.blocks, bounds, int(seeds[0]), k, n,
                                           int(self.discretize_iter))
                q = self._open(q, labels, it, k)
        for i, w in enumerate(q.walks):
            if self._stopped is not None:
                break
            # past max_iter: the walks left go on alone, as the single process's do
            z = [self._submit(_walk_columns, qb, q.width, i, *[v.Y[b] for v in q.walks])
                 for b, qb in enumerate(q.blocks)]
            for _ in range(w.hops, int(self.n_hops)):
                z = M.apply(z, then=[(restart_step, alpha, y) for y in w.Y])
            self._close(w, z, k)
        it = it if self._stopped is None else self._stopped
        best, history = self._best, self._history
        del self._best, self._history, self._rises, self._stopped
        self.degenerate_, f, labels, embedding, best_it = best
        if self.degenerate_:  # k-means on the gathered rows, as the single process
            rows = kmeans_on_rows(np.concatenate(client.gather(embedding)), k,
                                  self._rng_seed(self.random_state))
            labels = client.scatter([rows[bounds[b]:bounds[b + 1]]
                                     for b in range(phg.n_blocks)])
            f = self._score(M, labels, k, n)[0]
        self._labels_blocks, self._embedding_blocks = labels, embedding
        self.objective_ = f
        self.objective_history_ = history
        self.n_iter_ = it
        self.best_iter_ = best_it
        del self._client

    def _seeds(self, phg, k):
        """The ``k`` highest weighted degrees, ties to the lower rank."""
        tops = self._client.gather([self._submit(_top_degrees, phg.block_path(b),
                                                 phg.node_ranks_path, int(phg.block_bounds[b]), k)
                                    for b in range(phg.n_blocks)])
        deg, idx, ranks = (np.concatenate([t[i] for t in tops]) for i in range(3))
        return idx[np.lexsort((ranks, -deg))][:k]

    def _open(self, q, labels, it, k):
        """Start the check of ``labels``: its walk rides beside the iterate from now on."""
        counts, Y = start_walk(self._client, labels, k)
        walk = _Walk(it, labels, counts, Y, q.blocks)
        if self.n_hops == 0:
            self._close(walk, Y, k)
            return q
        # the stacked blocks deferred: made in the next product's first task
        blocks = [defer(_stack, qb, y) for qb, y in zip(q.blocks, Y)]
        return _Iterate(blocks, q.width, q.walks + [walk])

    def _close(self, walk, z, k, trace=None, args=()):
        """Score a check from its walk's end ``z`` and keep it when best; count patience."""
        f, counts = walk_objective(self._client, walk.counts, walk.Y, z, trace, args)
        bad = sizes_are_degenerate(counts, k)
        self._history.append((walk.it, f))
        if keep_best(self._best, bad, f):
            self._best = (bad, f, walk.labels,
                          [self._submit(_leading, qb, k) for qb in walk.q], walk.it)
        if self._history[:-1]:
            self._rises = self._rises + 1 if f > self._history[-2][1] else 0
        if self._rises >= self.patience:
            self._stopped = walk.it

    def _score(self, M, labels, k, n):
        """``rwr_conductance`` on ``M``, and the cluster sizes."""
        return rwr_conductance_blocks(self._client, M, labels, k, float(self.alpha),
                                      int(self.n_hops))
