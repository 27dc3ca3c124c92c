"""Dense block linear algebra on row-blocked ``(n, k)`` matrices held as Dask futures:
scatter/gather, the thin QR by TSQR, block inner products."""

from __future__ import annotations

import numpy as np

from ..operators.thin_qr import qr_in_place, zero_rows_exactly
from ._tasks import RETRIES
from .deferred import defer
from .operator import ignores_input

__all__ = ["scatter_blocks", "gather_blocks", "tsqr", "inner", "combine", "random_blocks",
           "keyed_random_blocks", "column_signs"]


def scatter_blocks(client, X, bounds):
    """Futures of the row blocks ``X[bounds[b]:bounds[b + 1]]`` (tasks: recomputed if lost).

    Examples
    --------
    >>> import numpy as np
    >>> from hyperclust import Hypergraph
    >>> from hyperclust.operators.propagation import PropagationOperator
    >>> from hyperclust.distributed import PartitionedHypergraph, write_partitioned
    >>> from hyperclust.distributed.operator import propagation
    >>> import tempfile, distributed
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [2, 3], [3, 4, 5], [0, 5]])
    >>> phg = write_partitioned(hg, tempfile.mkdtemp(), block_size=4)
    >>> X = np.arange(12.0).reshape(6, 2)
    >>> with distributed.Client(processes=False, n_workers=1, dashboard_address=":0") as c:
    ...     P = propagation(phg, c)
    ...     Y = gather_blocks(c, P.apply(scatter_blocks(c, X, phg.block_bounds)))
    >>> bool(np.allclose(Y, PropagationOperator(hg) @ X))
    True
    """
    X = np.asarray(X, dtype=np.float64)
    # Submitted as tasks holding their block, not scattered: a block lost with its worker
    # is then recomputed (scattered data has no lineage, its dependents would be cancelled).
    return [client.submit(np.array, X[bounds[b]:bounds[b + 1]], retries=RETRIES, pure=False)
            for b in range(len(bounds) - 1)]


def gather_blocks(client, blocks):
    """The stacked ``(n, k)`` array of the row blocks' futures.

    Examples
    --------
    >>> import numpy as np, distributed
    >>> with distributed.Client(processes=False, n_workers=1, dashboard_address=":0") as c:
    ...     X = gather_blocks(c, scatter_blocks(c, np.arange(6.0).reshape(3, 2), [0, 2, 3]))
    >>> X.tolist()
    [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]
    """
    return np.concatenate(client.gather(blocks))


def _qr(X):
    """``(Q, R, Z)``: ``np.linalg.qr``'s factors, and ``Z`` what :func:`_times` needs for exact
    zeros (``X`` for a wide block, else its nonzero-row flags, so ``X`` is not kept alive).
    """
    n, c = X.shape
    if n < c or c == 0:
        return (*np.linalg.qr(X), X)
    nonzero = np.any(X != 0, axis=1)[:, None]
    return (*qr_in_place(np.array(X, dtype=np.float64, order="F")), nonzero)


@ignores_input
def factor_product(Y, X):
    """A product's last step: the local QR of ``Y``, for :func:`tsqr` with ``factored=True``."""
    return _qr(Y)


def _r_of(qr):
    return qr[1]


def _stacked_qr(*Rs):
    """``(row pieces of Q2 per block, R)``: QR of the stacked ``R`` factors, ``diag(R) >= 0``."""
    Q2, R = np.linalg.qr(np.concatenate(Rs))
    signs = np.where(np.diag(R) < 0, -1.0, 1.0)
    Q2, R = Q2 * signs, signs[:, None] * R
    cuts = np.cumsum([0] + [r.shape[0] for r in Rs])
    return [Q2[cuts[b]:cuts[b + 1]] for b in range(len(Rs))], R


def _local_rs(*qrs):
    return [qr[1] for qr in qrs]


def _stacked_qr_of_groups(order, *rs_lists):
    """:func:`_stacked_qr` of ``R`` factors gathered per group, stacked in block order."""
    Rs = [r for rs in rs_lists for r in rs]
    return _stacked_qr(*[Rs[i] for i in np.argsort(order)])


def _times(qr, small, b):
    """The block's rows of ``Q = X R^-1`` (exact zeros where ``X`` is), riding columns appended."""
    pieces, R = small
    if len(qr) < 4 or qr[3] is None:
        return zero_rows_exactly(qr[0] @ pieces[b], qr[2], np.diag(R).copy())
    # Q straight into the left columns of the block handed on (no stacking copy of it)
    c = pieces[b].shape[1]
    out = np.empty((qr[0].shape[0], c + qr[3].shape[1]),
                   dtype=np.result_type(qr[0], pieces[b], qr[3]))
    np.matmul(qr[0], pieces[b], out=out[:, :c])
    zero_rows_exactly(out[:, :c], qr[2], np.diag(R).copy())
    out[:, c:] = qr[3]
    return out


def _times_stacked(qr, b, order, *rs):
    """:func:`_times` with the small stacked QR done in the block's own task (no reduce task)."""
    flat = [r for part in rs for r in (part if isinstance(part, list) else [part])]
    return _times(qr, _stacked_qr_of_groups(order, *[[r] for r in flat]), b)


def tsqr(client, blocks, *, gather_r: bool = True, factored: bool = False, groups=None,
         deferred: bool = False):
    """Thin QR ``X = Q R`` of a row-blocked matrix by TSQR; ``R`` has a non-negative diagonal.

    Parameters
    ----------
    client : dask.distributed.Client
    blocks : list of futures
        Row blocks of ``X``, shapes ``(n_b, k)``.
    gather_r : bool, default True
        Bring ``R`` here; False: ``R`` is None and nothing waits.
    factored : bool, default False
        ``blocks`` already hold their local QR (:func:`factor_product`); a fourth item ``C``
        is appended to the ``Q`` blocks as columns.
    groups : list of list of int, optional
        Blocks held together: their ``R`` factors leave in one task per group. Same result.
    deferred : bool, default False
        With ``gather_r=False``: the ``Q`` blocks as :func:`~.deferred.defer` objects.

    Returns
    -------
    Q_blocks : list of futures
        Row blocks of ``Q``, shapes ``(n_b, k)``.
    R : ndarray, shape (k, k), or None
        Upper triangular.

    Examples
    --------
    >>> import numpy as np, distributed
    >>> with distributed.Client(processes=False, n_workers=1, dashboard_address=":0") as c:
    ...     X = np.array([[3.0, 1.0], [4.0, 2.0], [0.0, 5.0], [0.0, 0.0]])
    ...     Q_blocks, R = tsqr(c, scatter_blocks(c, X, [0, 2, 4]))
    ...     Q = gather_blocks(c, Q_blocks)
    >>> bool(np.allclose(Q @ R, X)), bool(np.allclose(Q.T @ Q, np.eye(2)))
    (True, True)
    >>> R[0].round(6).tolist()  # |column 0| = 5; R[0, 1] = (3 * 1 + 4 * 2) / 5
    [5.0, 2.2]
    """
    sub = lambda fn, *a: client.submit(fn, *a, retries=RETRIES, pure=False)  # noqa: E731
    local = blocks if factored else [sub(_qr, X) for X in blocks]
    if groups is None:
        order, rs = list(range(len(local))), [sub(_r_of, f) for f in local]
    else:
        order = [b for g in groups for b in g]
        rs = [sub(_local_rs, *[local[b] for b in g]) for g in groups]
    if not gather_r:
        make = (lambda *a: defer(_times_stacked, *a)) if deferred else \
            (lambda *a: sub(_times_stacked, *a))
        return [make(f, b, order, *rs) for b, f in enumerate(local)], None
    small = sub(_stacked_qr_of_groups, order, *[r if groups else [r] for r in rs])
    Q = [sub(_times, f, small, b) for b, f in enumerate(local)]
    return Q, client.gather(sub(_r_of, small))


def _gram(X, Y):
    return X.T @ Y


def inner(client, A_blocks, B_blocks):
    """``A^T B``, shape ``(p, q)``, of two row-blocked matrices on the same partition.

    Examples
    --------
    >>> import numpy as np, distributed
    >>> with distributed.Client(processes=False, n_workers=1, dashboard_address=":0") as c:
    ...     A = scatter_blocks(c, np.array([[1.0], [2.0], [3.0]]), [0, 1, 3])
    ...     G = inner(c, A, A)
    >>> G.tolist()
    [[14.0]]
    """
    parts = client.gather([client.submit(_gram, a, b, retries=RETRIES, pure=False)
                           for a, b in zip(A_blocks, B_blocks)])
    return np.sum(parts, axis=0)


def _lin(X, S, Y, T):
    out = X @ S
    if Y is not None:
        out -= Y @ T
    return out


def combine(client, X_blocks, S, Y_blocks=None, T=None):
    """Row blocks of ``X S`` (or ``X S - Y T``), ``S``/``T`` small matrices.

    Parameters
    ----------
    client : dask.distributed.Client
    X_blocks : list of futures
        Row blocks of ``X`` (n, p).
    S : ndarray, shape (p, r)
    Y_blocks : list of futures, optional
        Row blocks of ``Y`` (n, q), on the partition of ``X``.
    T : ndarray, shape (q, r), optional

    Examples
    --------
    >>> import numpy as np, distributed
    >>> with distributed.Client(processes=False, n_workers=1, dashboard_address=":0") as c:
    ...     X = scatter_blocks(c, np.array([[1.0, 2.0], [3.0, 4.0]]), [0, 1, 2])
    ...     S, T = np.array([[1.0], [1.0]]), np.array([[1.0], [0.0]])
    ...     Z = gather_blocks(c, combine(c, X, S, X, T))
    >>> Z.tolist()  # X @ [1, 1]^T - X @ [1, 0]^T = the second column
    [[2.0], [4.0]]
    """
    Y_blocks = Y_blocks or [None] * len(X_blocks)
    return [client.submit(_lin, x, S, y, T, retries=RETRIES, pure=False)
            for x, y in zip(X_blocks, Y_blocks)]


def _random_block(seed, b, rows, k):
    return np.random.default_rng([seed, b]).standard_normal((rows, k))


def random_blocks(client, bounds, k, seed):
    """Row blocks of a standard normal ``(bounds[-1], k)`` matrix, drawn from ``(seed, block)``.

    Examples
    --------
    >>> import numpy as np, distributed
    >>> with distributed.Client(processes=False, n_workers=1, dashboard_address=":0") as c:
    ...     a = gather_blocks(c, random_blocks(c, [0, 2, 5], k=3, seed=7))
    ...     b = gather_blocks(c, random_blocks(c, [0, 2, 5], k=3, seed=7))
    >>> a.shape, bool(np.array_equal(a, b))
    ((5, 3), True)
    """
    return [client.submit(_random_block, int(seed), b, int(bounds[b + 1] - bounds[b]), int(k),
                          retries=RETRIES) for b in range(len(bounds) - 1)]


def _keyed_block(keys, k, seed):
    from ..operators.eigenbasis import probe_vectors

    return probe_vectors(keys, k, seed)


def keyed_random_blocks(client, key_blocks, k, seed):
    """Row blocks of an ``(n, k)`` matrix in ``[-1, 1)``, each row hashed from its key and seed.

    A node gets the same row whatever the blocks or placement.

    Parameters
    ----------
    client : dask.distributed.Client
    key_blocks : list of futures or arrays
        Keys of each row block, shape (n_b,), distinct integers below 2^43.
    k : int, at most 2^20
    seed : int

    Examples
    --------
    >>> import numpy as np, distributed
    >>> with distributed.Client(processes=False, n_workers=1, dashboard_address=":0") as c:
    ...     a = gather_blocks(c, keyed_random_blocks(c, [np.arange(5)], 3, seed=7))
    ...     b = gather_blocks(c, keyed_random_blocks(c, [np.array([4, 3]), np.arange(3)],
    ...                                              3, seed=7))
    >>> a.shape, bool(np.array_equal(a[[4, 3, 0, 1, 2]], b)), float(np.abs(a).max()) < 1
    ((5, 3), True, True)
    """
    return [client.submit(_keyed_block, keys, int(k), int(seed), retries=RETRIES)
            for keys in key_blocks]


def _largest_entries(X):
    """Per column: the largest magnitude, its first row, the sign there."""
    if X.shape[0] == 0:
        return np.zeros(X.shape[1]), np.zeros(X.shape[1], dtype=np.int64), np.ones(X.shape[1])
    idx = np.argmax(np.abs(X), axis=0)
    values = X[idx, np.arange(X.shape[1])]
    return np.abs(values), idx, np.sign(values)


def column_signs(client, blocks):
    """Per column ``+1``/``-1`` making its first largest-magnitude entry positive, shape ``(k,)``.

    :func:`hyperclust.operators.signs.fix_signs` over row blocks (in row order); ``+1`` for a
    zero column.

    Examples
    --------
    >>> import numpy as np, distributed
    >>> X = np.array([[1.0, -3.0], [-2.0, 1.0], [2.0, 3.0]])
    >>> with distributed.Client(processes=False, n_workers=1, dashboard_address=":0") as c:
    ...     signs = column_signs(c, scatter_blocks(c, X, [0, 1, 3]))
    >>> signs.tolist()  # column 0: -2 is the first largest; column 1: -3
    [-1.0, -1.0]
    """
    parts = client.gather([client.submit(_largest_entries, b, retries=RETRIES) for b in blocks])
    best = np.zeros(len(parts[0][0]))
    signs = np.ones_like(best)
    for magnitude, _, sign in parts:  # blocks in row order: a later block wins only if larger
        larger = magnitude > best
        best[larger], signs[larger] = magnitude[larger], sign[larger]
    signs[signs == 0] = 1.0
    return signs
