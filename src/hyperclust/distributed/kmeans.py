"""k-means on a row-blocked matrix: seeded k-means++ restarts on a sample, then Lloyd
iterations over the blocks (assignment, per-block sums, centres on the driver)."""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.cluster import KMeans

from ._tasks import RETRIES

__all__ = ["block_kmeans", "SAMPLE_SIZE"]

#: Rows drawn for the k-means++ restarts; at or below it every row is used, and the result
#: is exactly that of ``sklearn.cluster.KMeans`` on the gathered rows.
SAMPLE_SIZE = 100_000


def _sample(X, seed, b, fraction):
    if fraction >= 1.0:
        return X
    keep = np.random.default_rng([seed, b]).random(X.shape[0]) < fraction
    return X[keep]


def _assign(X, centers):
    d2 = (np.einsum("ij,ij->i", X, X)[:, None] - 2.0 * X @ centers.T
          + np.einsum("ij,ij->i", centers, centers)[None, :])
    return np.argmin(d2, axis=1).astype(np.int64)


def _stats(X, centers):
    labels = _assign(X, centers)
    k = centers.shape[0]
    sums = np.zeros_like(centers)
    np.add.at(sums, labels, X)
    return sums, np.bincount(labels, minlength=k)


def block_kmeans(client, blocks, n_rows: int, n_clusters: int, *, n_init: int = 10,
                 max_iter: int = 300, tol: float = 1e-4, sample_size: int = SAMPLE_SIZE,
                 random_state=0):
    """Cluster the rows of a row-blocked matrix.

    ``KMeans(n_clusters, n_init, random_state)`` is fitted on a seeded sample of about
    ``sample_size`` rows (every row when ``n_rows <= sample_size``); its centres start
    Lloyd iterations over all blocks, which stop when the centres move less than ``tol``
    (squared shift relative to the mean feature variance, as in scikit-learn). Empty
    clusters keep their centre.

    Parameters
    ----------
    client : dask.distributed.Client
    blocks : list of futures of ``(n_b, d)`` arrays
    n_rows : int
    n_clusters : int
    n_init, max_iter, sample_size : int
    tol : float, default 1e-4
    random_state : int

    Returns
    -------
    labels : list of futures of int64 label blocks
    centers : ndarray, shape (n_clusters, d)
    n_iter : int
        Lloyd iterations over the blocks.

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
    sample = np.concatenate(client.gather([
        client.submit(_sample, X, seed, b, fraction, retries=RETRIES, pure=False)
        for b, X in enumerate(blocks)]))
    if sample.shape[0] < n_clusters:
        raise ValueError(f"the k-means sample has {sample.shape[0]} rows for {n_clusters} "
                         "clusters; raise sample_size")
    centers = KMeans(n_clusters, n_init=n_init, random_state=seed).fit(sample).cluster_centers_
    threshold = float(tol) * float(np.mean(np.var(sample, axis=0)))
    it = 0
    for it in range(1, int(max_iter) + 1):
        stats = client.gather([client.submit(_stats, X, centers, retries=RETRIES, pure=False)
                               for X in blocks])
        sums = np.sum([s for s, _ in stats], axis=0)
        counts = np.sum([c for _, c in stats], axis=0)
        new = np.where(counts[:, None] > 0, sums / np.maximum(counts, 1)[:, None], centers)
        shift = float(((new - centers) ** 2).sum())
        centers = new
        if shift <= threshold:
            break
    labels = [client.submit(_assign, X, centers, retries=RETRIES, pure=False) for X in blocks]
    return labels, centers, it
