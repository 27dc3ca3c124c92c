"""Spectral clustering of a partitioned hypergraph on a Dask cluster."""

from __future__ import annotations

import numbers

import numpy as np

from .._validation import check_int, is_int
from ..cluster.base import HypergraphClusterer, check_n_clusters
from ._tasks import RETRIES
from .client import resolve_client
from .eigen import top_eigenpairs
from .inputs import as_partitioned
from .kmeans import SAMPLE_SIZE, block_kmeans
from .operator import normalized_affinity

__all__ = ["DistributedSpectralClustering"]


def _regularization(value, name):
    if value is not None and (isinstance(value, bool) or not isinstance(value, numbers.Real)
                              or not np.isfinite(value) or value < 0):
        raise ValueError(f"{name} must be a non-negative float or None, got {value!r}")


def _positive_float(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not value > 0:
        raise ValueError(f"{name} must be a positive float, got {value!r}")


def _positive_int(value, name):
    check_int(value, name, 1)


#: One check per parameter that needs no data, in the order they are checked at the start
#: of ``fit`` (as ``cluster/unidhc.py``'s table); ``n_clusters`` and ``n_components`` need
#: the number of nodes.
_PARAMETER_CHECKS = {"regularization": _regularization, "tol": _positive_float,
                     "max_iter": _positive_int, "block_size": _positive_int,
                     "n_workers": _positive_int}


def _row_normalize(V):
    norms = np.linalg.norm(V, axis=1, keepdims=True)
    return np.divide(V, norms, out=np.zeros_like(V), where=norms > 0)


class DistributedSpectralClustering(HypergraphClusterer):
    """Zhou's normalized spectral clustering on a Dask cluster.

    The distributed counterpart of
    ``SpectralHypergraphClustering(operator="zhou", assign="kmeans")``: the top
    ``n_components`` eigenvectors of the regularized normalized affinity
    ``D_tau^-1/2 (H W De^-1 H^T + tau/n 1 1^T) D_tau^-1/2`` by subspace iteration on the
    block operator (:func:`~hyperclust.distributed.eigen.top_eigenpairs`), rows normalized,
    then :func:`~hyperclust.distributed.kmeans.block_kmeans`. Up to ``sample_size`` nodes the
    labels are those of the single-process estimator with the same seed (the embeddings
    agree to the eigensolver tolerance, up to sign or a rotation within repeated
    eigenvalues); above it the k-means++ sample is drawn per row block, so the labels are
    deterministic for a seed and a partition. ``client=None`` starts worker processes: run
    it from a script under ``if __name__ == "__main__":``.

    Parameters
    ----------
    n_clusters : int
    regularization : float, default 0.0
        ``tau`` (the single-process ``"auto"`` needs the connected components of the whole
        hypergraph; pass the mean degree to regularize).
    n_components : int, optional
        Embedding dimension (default ``n_clusters``).
    row_normalize : bool, default True
    n_init : int, default 10
        k-means++ restarts on the sample.
    tol : float, default 1e-8
        Residual of the eigenpairs.
    max_iter : int, default 200
        Filtered subspace iterations (see :func:`~hyperclust.distributed.eigen.top_eigenpairs`).
    sample_size : int, default 100,000
        Rows of the k-means++ sample.
    block_size : int, default 100,000
        Nodes per row block when ``fit`` gets an in-memory hypergraph.
    client : dask.distributed.Client, str or None
        The cluster: a client, a scheduler address, or None for a new
        ``LocalCluster(n_workers)`` (closed after ``fit``).
    n_workers : int, default 2
        Workers of the local cluster made when ``client`` is None.
    progress : bool, default False
        Show the iterations' residuals on a progress bar.
    random_state : int, default 0

    Attributes
    ----------
    labels_ : ndarray of int64, shape (n_nodes,)
    embedding_ : ndarray, shape (n_nodes, n_components)
    eigenvalues_ : ndarray, shape (n_components,)
        Of the regularized normalized Laplacian, ascending.
    node_ids_ : ndarray, shape (n_nodes,)
        The node ids of the rows (a partitioned input's ids; an in-memory input's ``node_ids``).
    n_iter_ : int
        Filtered subspace iterations (see :func:`~hyperclust.distributed.eigen.top_eigenpairs`).

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

    def __init__(self, n_clusters=2, *, regularization=0.0, n_components=None,
                 row_normalize=True, n_init=10, tol=1e-8, max_iter=200,
                 sample_size=SAMPLE_SIZE, block_size=100_000, client=None, n_workers=2,
                 progress=False, random_state=0):
        self.n_clusters = n_clusters
        self.regularization = regularization
        self.n_components = n_components
        self.row_normalize = row_normalize
        self.n_init = n_init
        self.tol = tol
        self.max_iter = max_iter
        self.sample_size = sample_size
        self.block_size = block_size
        self.client = client
        self.n_workers = n_workers
        self.progress = progress
        self.random_state = random_state

    def _validate(self, n):
        k = check_n_clusters(self.n_clusters, n)
        if k >= n:
            raise ValueError(f"spectral clustering needs n_clusters < n_nodes; got "
                             f"n_clusters={k} for {n} nodes")
        dim = k if self.n_components is None else self.n_components
        if not is_int(dim) or not 1 <= dim < n:
            raise ValueError(f"n_components must be an integer in [1, n_nodes), got {dim!r}")
        for name, check in _PARAMETER_CHECKS.items():
            check(getattr(self, name), name)
        return k, int(dim), float(self.regularization or 0.0)

    def fit(self, hypergraph, y=None):
        """Cluster the nodes; ``hypergraph`` is a :class:`~hyperclust.Hypergraph`, a
        :class:`~hyperclust.distributed.PartitionedHypergraph` or its directory."""
        seed = self._rng_seed(self.random_state)
        with as_partitioned(hypergraph, self.block_size) as phg, \
                resolve_client(self.client, self.n_workers) as client:
            k, dim, tau = self._validate(phg.n_nodes)
            op = normalized_affinity(phg, client, tau=tau)
            bar = _progress_bar(self.progress, self.tol)
            try:
                mu, V, n_iter = top_eigenpairs(op, dim, tol=self.tol, max_iter=self.max_iter,
                                               random_state=seed, callback=bar)
            finally:
                if bar is not None:
                    bar.close()
            if self.row_normalize:
                V = [client.submit(_row_normalize, v, retries=RETRIES) for v in V]
            labels, _, _ = block_kmeans(client, V, phg.n_nodes, k, n_init=self.n_init,
                                        sample_size=self.sample_size, random_state=seed)
            self.embedding_ = np.concatenate(client.gather(V))
            self.labels_ = np.concatenate(client.gather(labels)).astype(np.int64)
            self.node_ids_ = hypergraph.node_ids if hasattr(hypergraph, "incidence") \
                else phg.node_ids
        self.eigenvalues_ = 1.0 - mu
        self.n_iter_ = n_iter
        return self


class _ResidualBar:
    """tqdm bar of ``-log10(residual)`` up to ``-log10(tol)``."""

    def __init__(self, tol):
        from tqdm.auto import tqdm

        self.goal = -np.log10(tol)
        self.bar = tqdm(total=round(self.goal, 1), desc="subspace iteration",
                        unit="digit", bar_format="{l_bar}{bar}| {postfix}")

    def __call__(self, it, residuals):
        done = min(self.goal, max(0.0, -np.log10(max(float(residuals.max()), 1e-300))))
        self.bar.n = round(done, 1)
        self.bar.set_postfix_str(f"iter {it}, residual {residuals.max():.1e}")

    def close(self):
        self.bar.close()


def _progress_bar(enabled, tol):
    return _ResidualBar(tol) if enabled else None
