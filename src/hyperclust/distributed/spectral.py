"""Spectral clustering of a partitioned hypergraph on a Dask cluster."""

from __future__ import annotations

import numpy as np

from .._validation import Interval, Options, is_int
from ..cluster.base import HypergraphClusterer, check_n_clusters
from ..cluster.spectral import (SpectralHypergraphClustering, localized_moments,
                                resolve_settings)
from ..operators.eigensolvers import DENSE_LIMIT
from ._params import twin_constraints, twin_init
from ._tasks import RETRIES
from .allocator import reuse_freed_memory
from .client import resolve_client
from .components import more_components_than
from .eigen import top_eigenpairs
from .inputs import as_partitioned, fit_blocks
from .kmeans import SAMPLE_SIZE, block_kmeans, node_rank_blocks
from .lanczos import lanczos_eigenpairs
from .lineage import lineage_cuts
from .operator import normalized_affinity
from .storage import keep_output
from .structural import _degree_sum

__all__ = ["DistributedSpectralClustering"]


def _row_normalize(V):
    norms = np.linalg.norm(V, axis=1, keepdims=True)
    return np.divide(V, norms, out=np.zeros_like(V), where=norms > 0)


class DistributedSpectralClustering(HypergraphClusterer):
    """Zhou's normalized spectral clustering on a Dask cluster.

    The counterpart of ``SpectralHypergraphClustering(operator="zhou", assign="kmeans")``:
    top eigenvectors of the regularized normalized affinity, rows normalized, then
    :func:`~hyperclust.distributed.kmeans.block_kmeans`. Up to ``sample_size`` nodes the
    labels are the single process's for the same seed. ``client=None`` starts worker
    processes: run it under ``if __name__ == "__main__":``.

    Parameters
    ----------
    n_clusters, regularization, n_components, row_normalize, n_init, tol, random_state, max_iter
        As in :class:`~hyperclust.cluster.SpectralHypergraphClustering` (its defaults).
    eigensolver : {"auto", "lanczos", "subspace"}, default "auto"
        "lanczos": :func:`~hyperclust.distributed.lanczos.lanczos_eigenpairs`; "subspace":
        :func:`~hyperclust.distributed.eigen.top_eigenpairs` (finds repeated eigenvalues);
        "auto": the single process's route.
    sample_size : int, default 100,000
        Rows of the k-means++ sample.
    block_size : int, default 100,000
        Nodes per row block when ``fit`` gets an in-memory hypergraph.
    blocks_per_worker : int or None, default 1
        Merge stored row blocks into at most this many per worker; None: the stored blocks.
    client : dask.distributed.Client, str or None
        A client, a scheduler address, or None for a new ``LocalCluster(n_workers)``.
    n_workers : int, default 2
    progress : bool, default False
        Show the residuals on a progress bar.
    output : str, optional
        Folder where the workers write labels and embedding as parquet; then ``labels_``,
        ``embedding_`` and ``node_ids_`` are None. Default: gather them here.
    scratch_dir : str, optional
        Shared folder for the eigensolver's checkpoints (:mod:`~hyperclust.distributed.lineage`);
        default: inside the partitioned directory.

    Attributes
    ----------
    labels_ : ndarray of int64, shape (n_nodes,)
    embedding_ : ndarray, shape (n_nodes, n_components)
    eigenvalues_ : ndarray, shape (n_components,)
        Of the regularized normalized Laplacian, ascending.
    node_ids_ : ndarray, shape (n_nodes,)
    n_iter_ : int
        Subspace iterations or Lanczos products.
    eigensolver_ : str
    tau_, tol_, n_init_ : float, float, int
        The settings used (``"auto"`` resolved).
    n_blocks_ : int

    Examples
    --------
    >>> import distributed
    >>> from hyperclust import Hypergraph
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [1, 2], [3, 4, 5], [4, 5], [2, 3]])
    >>> with distributed.Client(processes=False, n_workers=1, dashboard_address=":0") as c:
    ...     est = DistributedSpectralClustering(2, client=c, block_size=4).fit(hg)
    >>> est.labels_.tolist()
    [1, 1, 1, 0, 0, 0]
    """

    #: Parameters of :class:`hyperclust.cluster.SpectralHypergraphClustering` not taken:
    #: the operator is Zhou's, the assignment k-means, and there is no kNN mixing.
    NOT_DISTRIBUTED = ("operator", "assign", "eps", "knn_beta", "knn_neighbors")
    _SHARED = ("regularization", "n_components", "row_normalize", "n_init", "tol",
               "random_state")
    __init__ = twin_init(SpectralHypergraphClustering, _SHARED,
                         {"max_iter": 200, "eigensolver": "auto", "sample_size": SAMPLE_SIZE,
                          "block_size": 100_000, "blocks_per_worker": 1, "client": None,
                          "n_workers": 2,
                          "progress": False, "output": None, "scratch_dir": None})
    _parameter_constraints = twin_constraints(
        SpectralHypergraphClustering, _SHARED,
        {**{name: [Interval(int, 1)] for name in ("max_iter", "sample_size", "block_size",
                                                  "n_workers")},
         "blocks_per_worker": [Interval(int, 1), None], "progress": [bool],
         "eigensolver": [Options(("auto", "lanczos", "subspace"))]})

    def _validate(self, n):
        k = check_n_clusters(self.n_clusters, n)
        if k >= n:
            raise ValueError(f"spectral clustering needs n_clusters < n_nodes; got "
                             f"n_clusters={k} for {n} nodes")
        dim = k if self.n_components is None else self.n_components
        if not is_int(dim) or not 1 <= dim < n:
            raise ValueError(f"n_components must be an integer in [1, n_nodes), got {dim!r}")
        tol, n_init = resolve_settings(n, self.tol, self.n_init)
        return k, int(dim), tol, n_init

    def _tau(self, phg, client, k):
        """``tau`` before the embedding, as the single process sets it."""
        if not self._auto_tau():
            return float(self.regularization or 0.0)
        op = normalized_affinity(phg, client, tau=0.0)
        if not more_components_than(op, k):
            return 0.0
        return self._mean_degree(phg, client)

    def _auto_tau(self):
        return isinstance(self.regularization, str) and self.regularization == "auto"

    @staticmethod
    def _mean_degree(phg, client):
        total = sum(client.gather([client.submit(_degree_sum, phg.block_path(b),
                                                 retries=RETRIES)
                                   for b in range(phg.n_blocks)]))
        mean = total / phg.n_nodes
        return float(mean) if mean > 0 else 1.0

    def _eigensolver(self, op, tau):
        """The eigensolver that auto stands for: the single process's route."""
        if self.eigensolver != "auto":
            return self.eigensolver
        if op.shape[0] <= DENSE_LIMIT or (not tau and more_components_than(op, 1)):
            return "subspace"
        return "lanczos"

    def _eigenpairs(self, solver, op, dim, tol, seed, ranks, cuts):
        bar = _progress_bar(self.progress, tol)
        solve = lanczos_eigenpairs if solver == "lanczos" else top_eigenpairs
        try:
            return solve(op, dim, tol=tol, max_iter=self.max_iter, random_state=seed,
                         callback=bar, row_keys=ranks, cuts=cuts)
        finally:
            if bar is not None:
                bar.close()

    def fit(self, hypergraph, y=None):
        """Cluster the nodes of a Hypergraph, PartitionedHypergraph or its directory."""
        seed = self._rng_seed(self.random_state)
        with as_partitioned(hypergraph, self.block_size) as stored, \
                resolve_client(self.client, self.n_workers) as client, \
                lineage_cuts(client, self.scratch_dir or stored.path) as cuts, \
                reuse_freed_memory(client):
            phg = fit_blocks(stored, client, self.blocks_per_worker)
            k, dim, tol, n_init = self._validate(phg.n_nodes)
            tau = self._tau(phg, client, k)
            op = normalized_affinity(phg, client, tau=tau)
            ranks = node_rank_blocks(client, phg)
            solver = self._eigensolver(op, tau)
            mu, V, n_iter = self._eigenpairs(solver, op, dim, tol, seed, ranks, cuts)
            if self._auto_tau() and not tau and _localized(client, V, phg.n_nodes, k):
                tau = self._mean_degree(phg, client)
                op = normalized_affinity(phg, client, tau=tau)
                solver = self._eigensolver(op, tau)
                mu, V, n_iter = self._eigenpairs(solver, op, dim, tol, seed, ranks, cuts)
            if self.row_normalize:
                V = [client.submit(_row_normalize, v, retries=RETRIES) for v in V]
            labels, _, _ = block_kmeans(client, V, phg.n_nodes, k, n_init=n_init,
                                        sample_size=self.sample_size, random_state=seed,
                                        row_keys=ranks)
            keep_output(self, client, phg, hypergraph, labels, V)
        self.eigenvalues_ = 1.0 - mu
        self.n_iter_, self.eigensolver_ = n_iter, solver
        self.tau_, self.tol_, self.n_init_ = tau, tol, n_init
        self.n_blocks_ = phg.n_blocks
        return self


def _moments(v):
    sq = np.square(v)
    return sq.sum(axis=0), np.square(sq).sum(axis=0)


def _localized(client, V, n, k):
    """:func:`~hyperclust.cluster.spectral.localized` of the row-block embedding ``V``."""
    parts = client.gather([client.submit(_moments, v, retries=RETRIES) for v in V])
    return localized_moments(sum(p[0] for p in parts), sum(p[1] for p in parts), n, k)


class _ResidualBar:
    """tqdm bar of ``-log10(residual)`` up to ``-log10(tol)``."""

    def __init__(self, tol):
        from tqdm.auto import tqdm

        self.goal = -np.log10(tol)
        self.bar = tqdm(total=round(self.goal, 1), desc="eigenvectors",
                        unit="digit", bar_format="{l_bar}{bar}| {postfix}")

    def __call__(self, it, residuals):
        largest = float(residuals.max())
        done = min(self.goal, max(0.0, -np.log10(max(largest, 1e-300)))) \
            if np.isfinite(largest) else 0.0
        self.bar.n = round(done, 1)
        self.bar.set_postfix_str(f"step {it}, residual {largest:.1e}")

    def close(self):
        self.bar.close()


def _progress_bar(enabled, tol):
    return _ResidualBar(tol) if enabled else None
