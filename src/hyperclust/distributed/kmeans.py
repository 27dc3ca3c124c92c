"""k-means on a row-blocked matrix: seeded k-means++ restarts on a sample drawn by a hash of
each node's rank, then Lloyd iterations over the blocks (docs/distributed.md, "k-means").
"""

from __future__ import annotations

import numbers

import numpy as np

from .._hashing import mix64
from ._tasks import RETRIES
from .partitioned import load_node_ranks

__all__ = ["block_kmeans", "node_rank_blocks", "SAMPLE_SIZE"]

#: Rows drawn for the k-means++ restarts; at or below it every row is used, and the result
#: is exactly that of ``sklearn.cluster.KMeans`` on the gathered rows.
SAMPLE_SIZE = 100_000


def node_rank_blocks(client, phg) -> list:
    """Futures of each row block's node ranks (the keys of :func:`block_kmeans`).

    Examples
    --------
    >>> import tempfile, distributed
    >>> from hyperclust import Hypergraph
    >>> from hyperclust.distributed import write_partitioned
    >>> hg = Hypergraph.from_edges([[0, 2], [1, 3]])
    >>> phg = write_partitioned(hg, tempfile.mkdtemp(), block_size=2, placement="rcm")
    >>> with distributed.Client(processes=False, n_workers=1, dashboard_address=":0") as c:
    ...     ranks = c.gather(node_rank_blocks(c, phg))
    >>> [r.tolist() for r in ranks], phg.node_ids.tolist()  # rank = the id's old position
    ([[3, 1], [2, 0]], [3, 1, 2, 0])
    """
    bounds = phg.block_bounds
    return [client.submit(load_node_ranks, phg.node_ranks_path, int(lo), int(hi),
                          retries=RETRIES) for lo, hi in zip(bounds[:-1], bounds[1:])]


def _hash_uniform(keys, seed: int) -> np.ndarray:
    """A fixed uniform draw in [0, 1) per (key, seed): the top 53 bits of a SplitMix64 word."""
    words = mix64(np.asarray(keys).astype(np.uint64) ^ mix64(np.array([seed]))[0])
    return (words >> np.uint64(11)).astype(np.float64) * 2.0 ** -53


def _sample(X, keys, seed, fraction):
    """The rows drawn (all when ``fraction >= 1``) and their keys."""
    if np.ndim(keys) == 0:
        keys = np.arange(keys, keys + X.shape[0], dtype=np.int64)
    if fraction >= 1.0:
        return keys, X
    keep = _hash_uniform(keys, seed) < fraction
    return keys[keep], X[keep]


def _n_rows(X) -> int:
    return int(X.shape[0])


def _gather_sample(client, blocks, row_keys, seed, fraction):
    """The drawn rows of every block, ordered by key."""
    if row_keys is None:
        sizes = client.gather([client.submit(_n_rows, X, retries=RETRIES) for X in blocks])
        row_keys = np.concatenate([[0], np.cumsum(sizes)[:-1]]).tolist()
    parts = client.gather([
        client.submit(_sample, X, keys, seed, fraction, retries=RETRIES, pure=False)
        for X, keys in zip(blocks, row_keys)])
    keys = np.concatenate([k for k, _ in parts])
    return np.concatenate([x for _, x in parts])[np.argsort(keys, kind="stable")]


def _assign(X, centers):
    """Nearest centre of each row and its squared distance (``centers`` (k, d))."""
    # centres in the rows' dtype: a float32 embedding is not copied to float64 for the product
    centers = centers.astype(X.dtype, copy=False)
    d2 = (np.einsum("ij,ij->i", X, X)[:, None] - 2.0 * X @ centers.T
          + np.einsum("ij,ij->i", centers, centers)[None, :])
    labels = np.argmin(d2, axis=1)
    return labels.astype(np.int64), d2[np.arange(X.shape[0]), labels]


def _labels(X, centers):
    return _assign(X, centers)[0]


def _stats(X, centers):
    """Per-cluster float64 sums, counts and inertia of the block for each centre set (r, k, d)."""
    k = centers.shape[1]
    sums, counts, inertia = [], [], []
    for C in centers:
        labels, d2 = _assign(X, C)
        sums.append(np.stack([X[labels == c].sum(axis=0, dtype=np.float64)
                              for c in range(k)]))
        counts.append(np.bincount(labels, minlength=k))
        inertia.append(np.maximum(d2, 0).sum(dtype=np.float64))
    return np.stack(sums), np.stack(counts), np.array(inertia)


def block_kmeans(client, blocks, n_rows: int, n_clusters: int, *, n_init: int = 10,
                 max_iter: int = 300, tol: float = 1e-4, sample_size: int = SAMPLE_SIZE,
                 random_state=0, row_keys=None):
    """Cluster the rows of a row-blocked matrix.

    Up to ``sample_size`` rows: scikit-learn's ``KMeans`` on every row. Otherwise ``n_init``
    k-means++ restarts on a keyed sample, each refined by Lloyd iterations over all blocks;
    the restart of least inertia over all rows is kept. Empty clusters keep their centre.

    Parameters
    ----------
    client : dask.distributed.Client
    blocks : list of futures of ``(n_b, d)`` arrays
    n_rows, n_clusters : int
    n_init, max_iter, sample_size : int
    tol : float, default 1e-4
    random_state : int
    row_keys : list of futures of int64 arrays, optional
        A distinct key per row (:func:`node_rank_blocks`); default: the row's position.

    Returns
    -------
    labels : list of futures of int64 label blocks
    centers : ndarray, shape (n_clusters, d)
    n_iter : int

    Examples
    --------
    >>> import numpy as np, distributed
    >>> X = np.r_[np.zeros((5, 2)), np.ones((5, 2))]
    >>> with distributed.Client(processes=False, n_workers=1, dashboard_address=":0") as c:
    ...     labels, centers, _ = block_kmeans(c, [c.scatter(X[:4]), c.scatter(X[4:])], 10, 2)
    ...     np.concatenate(c.gather(labels)).tolist()
    [1, 1, 1, 1, 1, 0, 0, 0, 0, 0]
    """
    for name, val in (("n_init", n_init), ("max_iter", max_iter), ("sample_size", sample_size)):
        if isinstance(val, bool) or not isinstance(val, numbers.Integral) or val < 1:
            raise ValueError(f"{name} must be a positive integer, got {val!r}")
    seed = int(random_state)
    fraction = 1.0 if n_rows <= sample_size else sample_size / n_rows
    sample = _gather_sample(client, blocks, row_keys, seed, fraction)
    if sample.shape[0] < n_clusters:
        raise ValueError(f"the k-means sample has {sample.shape[0]} rows for {n_clusters} "
                         "clusters; raise sample_size")
    from sklearn.cluster import KMeans  # here: the workers' block tasks need no scikit-learn

    if fraction >= 1.0:
        starts = [KMeans(n_clusters, n_init=n_init, random_state=seed).fit(sample)]
    else:  # every restart goes on over all rows: the best on the sample may not be there
        draws = np.random.RandomState(seed).randint(np.iinfo(np.int32).max, size=n_init)
        starts = [KMeans(n_clusters, n_init=1, random_state=s).fit(sample) for s in draws]
    threshold = float(tol) * float(np.mean(np.var(sample, axis=0)))
    centers = np.stack([km.cluster_centers_ for km in starts]).astype(np.float64)
    moving = np.ones(len(starts), dtype=bool)
    it = 0
    for it in range(1, int(max_iter) + 1):
        stats = client.gather([client.submit(_stats, X, centers[moving], retries=RETRIES,
                                             pure=False) for X in blocks])
        sums = np.sum([s for s, _, _ in stats], axis=0)
        counts = np.sum([c for _, c, _ in stats], axis=0)
        old = centers[moving]
        new = np.where(counts[..., None] > 0, sums / np.maximum(counts, 1)[..., None], old)
        centers[moving] = new
        moving[np.flatnonzero(moving)[((new - old) ** 2).sum(axis=(1, 2)) <= threshold]] = False
        if not moving.any():
            break
    if len(starts) > 1:  # the restart of least inertia over all rows
        stats = client.gather([client.submit(_stats, X, centers, retries=RETRIES, pure=False)
                               for X in blocks])
        centers = centers[[np.argmin(np.sum([e for _, _, e in stats], axis=0))]]
    centers = centers[0]
    labels = [client.submit(_labels, X, centers, retries=RETRIES, pure=False) for X in blocks]
    return labels, centers, it
