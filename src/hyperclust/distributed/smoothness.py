"""The label-free smoothness z-score of :mod:`hyperclust.models.adaptivity` on row blocks:
the quotient of the input against row-permuted copies, every product on the cluster."""

from __future__ import annotations

import numpy as np

from ._tasks import RETRIES
from .batches import _gather_rows

__all__ = ["block_smoothness_zscore"]


def _column_sums(X):
    return X.sum(axis=0)


def _centre(X, mean):
    return X - mean


def _permuted_block(files, offsets, row_lists, mean):
    """Rows ``o`` of the whole ``X`` (from its files), centred, for each ``o``, side by side."""
    arrays = [np.load(f, mmap_mode="r")[None] for f in files]
    return np.hstack([_gather_rows(arrays, offsets, np.asarray(rows))[0] - mean
                      for rows in row_lists])


def _quotient_parts(Xc, PX, d):
    """Per copy of width ``d``: ``sum Xc^2`` and ``sum Xc * P Xc`` over this block's rows."""
    copies = Xc.shape[1] // d
    den = (Xc * Xc).reshape(Xc.shape[0], copies, d).sum(axis=(0, 2))
    num = (Xc * PX).reshape(Xc.shape[0], copies, d).sum(axis=(0, 2))
    return den, num


def _quotients(operator, blocks, d):
    client = operator.client
    products = operator.apply(blocks)
    parts = client.gather([client.submit(_quotient_parts, x, y, d, retries=RETRIES)
                           for x, y in zip(blocks, products)])
    den = np.sum([p[0] for p in parts], axis=0)
    num = np.sum([p[1] for p in parts], axis=0)
    return [0.0 if dn <= 0 else float(dn - nm) / dn for dn, nm in zip(den, num)]


def block_smoothness_zscore(operator, X_blocks, X_files, n_permutations: int = 20,
                            random_state=0) -> float:
    """:func:`hyperclust.models.adaptivity.smoothness_zscore` of a row-blocked input.

    The same permutations (from ``random_state``) and grouping as the single process.

    Parameters
    ----------
    operator : BlockOperator
        The propagation operator ``P``.
    X_blocks : list of futures
        Row blocks of the ``(n, d)`` float64 input.
    X_files : list of str
        The same blocks as ``.npy`` files every worker can read.
    n_permutations : int, default 20
    random_state : int

    Returns
    -------
    float

    Examples
    --------
    Four disjoint triangles with a feature constant on each, as in the single-process
    example:

    >>> import os, tempfile, numpy as np, distributed
    >>> from hyperclust import Hypergraph
    >>> from hyperclust.distributed import write_partitioned
    >>> from hyperclust.distributed.linalg import scatter_blocks
    >>> from hyperclust.distributed.operator import propagation
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10, 11]])
    >>> d = tempfile.mkdtemp()
    >>> phg = write_partitioned(hg, os.path.join(d, "parts"), block_size=5)
    >>> X = np.repeat(np.arange(4.0), 3)[:, None]
    >>> files = [os.path.join(d, f"x{b}.npy") for b in range(phg.n_blocks)]
    >>> for f, lo, hi in zip(files, phg.block_bounds[:-1], phg.block_bounds[1:]):
    ...     np.save(f, X[lo:hi])
    >>> with distributed.Client(processes=False, n_workers=1, dashboard_address=":0") as c:
    ...     P = propagation(phg, c)
    ...     z = block_smoothness_zscore(P, scatter_blocks(c, X, P.bounds), files,
    ...                                 n_permutations=10)
    >>> z < -2
    True
    """
    if n_permutations < 2:
        raise ValueError(f"n_permutations must be >= 2, got {n_permutations}")
    client = operator.client
    n, bounds = operator.shape[0], operator.bounds
    sums = client.gather([client.submit(_column_sums, X, retries=RETRIES) for X in X_blocks])
    mean = np.sum(sums, axis=0) / n
    d = mean.size
    centred = [client.submit(_centre, X, mean, retries=RETRIES) for X in X_blocks]
    r = _quotients(operator, centred, d)[0]
    rng = np.random.default_rng(random_state)
    orders = [rng.permutation(n) for _ in range(int(n_permutations))]
    group = max(1, 128 // max(1, d))  # as the single-process version: same sums
    offsets = np.asarray(bounds[:-1], dtype=np.int64)
    perm = []
    for start in range(0, len(orders), group):
        chunk = orders[start:start + group]
        blocks = [client.submit(_permuted_block, list(X_files), offsets,
                                [o[bounds[b]:bounds[b + 1]] for o in chunk], mean,
                                retries=RETRIES, pure=False)
                  for b in range(len(bounds) - 1)]
        perm.extend(_quotients(operator, blocks, d))
    perm = np.array(perm)
    sd = perm.std(ddof=1)
    if not np.isfinite(sd) or sd <= 1e-12:
        return 0.0
    return float((r - perm.mean()) / sd)
