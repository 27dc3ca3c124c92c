"""One check of AHCKA on row blocks: the Yu-Shi discretisation of the iterate and the
random-walk-with-restart conductance of its labels, submitted as one task graph.

Every global step (the largest row norm, the greedy rotation's first row within the
tolerance of the minimum, the ``k x k`` SVD of each refinement, the cluster sizes, the
trace) is a reduce task on a worker, so a check waits on the driver only for the
refinement's stopping rule (every :data:`REFINE_GROUP` refinements, which are submitted
ahead; the ones past the stop are discarded) and for the objective: ``3 (k - 1)`` round
trips of the greedy rotation and one per refinement before. The arithmetic is that of
:func:`hyperclust.cluster.ahcka.discretize` and
:func:`hyperclust.selection.objectives.rwr_conductance`, in the same order.
"""

from __future__ import annotations

import numpy as np

from ..cluster.block_argmax import rotated_labels, rotated_labels_and_sums
from ..cluster.rounding import TIE_TOLERANCE, normalize_rows
from ._tasks import RETRIES
from .operator import ignores_input

__all__ = ["discretize_blocks", "rwr_conductance_blocks", "restart_step", "REFINE_GROUP"]

#: Refinements submitted before the driver reads their objectives.
REFINE_GROUP = 4


def _submit(client, fn, *args):
    return client.submit(fn, *args, retries=RETRIES, pure=False)


# ------------------------------------------------------------ per-block and reduce tasks
def _largest_row_norm(q, k):
    return float(np.linalg.norm(q[:, :k], axis=1).max(initial=0.0))


def _leading_normalized(q, k, *norms):
    return normalize_rows(q[:, :k], max(norms))


def _first_rows(Xn, local_start):
    """``(any nonzero row, first nonzero row or None, row local_start or None)``."""
    idx = np.flatnonzero(np.any(Xn != 0, axis=1))
    start = Xn[local_start].copy() if 0 <= local_start < Xn.shape[0] else None
    return idx.size > 0, (Xn[idx[0]].copy() if idx.size else None), start


def _start_row(k, *firsts):
    """The greedy rotation's first column: the start node's row, or the first nonzero row
    when that is zero; ``(row, any nonzero)``."""
    row = next(f[2] for f in firsts if f[2] is not None)
    if not np.any(row != 0):
        row = next((f[1] for f in firsts if f[0]), np.zeros(k))
    return row, any(f[0] for f in firsts)


def _accumulate(c, Xn, r):
    r = r[0] if isinstance(r, tuple) else r
    if c is None:
        c = np.where(np.any(Xn != 0, axis=1), 0.0, np.inf)
    return c + np.abs(Xn @ r)


def _minimum(c):
    return float(c.min()) if c.size else np.inf


def _first_near(c, Xn, *minima):
    """The first row within the tolerance of the global minimum, or None."""
    idx = np.flatnonzero(c <= min(minima) + TIE_TOLERANCE)
    return Xn[idx[0]].copy() if idx.size else None


def _first_found(*rows):
    return next(r for r in rows if r is not None)


def _rotation(*columns):
    return np.stack([c[0] if isinstance(c, tuple) else c for c in columns], axis=1)


def _rotation_of(step):
    """The rotation of a refinement's ``(objective, rotation)``, or the start rotation."""
    return step[1] if isinstance(step, tuple) else step


def _discrete_stats(Xn, R, k):
    """``B^T Xn`` of the block's labels under the rotation ``R``: the single process's
    one-pass kernel (:func:`~hyperclust.cluster.block_argmax.rotated_labels_and_sums`,
    no ``(n_b, k)`` product held; ``k`` is ``R``'s width)."""
    return rotated_labels_and_sums(Xn, _rotation_of(R))[1]


def _refine(n, *stats):
    """``(objective, next rotation)`` of one refinement (the sum in block order)."""
    U, S, Wt = np.linalg.svd(np.sum(list(stats), axis=0), full_matrices=False)
    return n - S.sum(), Wt.T @ U.T


def _discrete_labels(Xn, R, start):
    if not start[1]:  # every row zero: one cluster, as the single process
        return np.zeros(Xn.shape[0], dtype=np.int64)
    return rotated_labels(Xn, _rotation_of(R)).astype(np.int64)


@ignores_input
def restart_step(MY, Y, alpha, E, out=None):
    """One random-walk-with-restart step fused into a product: ``alpha E + (1 - alpha) M Y``
    (written into ``out`` when given: the same sums, one temporary fewer).

    Examples
    --------
    >>> restart_step(np.array([1.0, 0.0]), None, 0.2, np.array([0.0, 1.0])).tolist()
    [0.8, 0.2]
    """
    if out is None:
        return alpha * E + (1.0 - alpha) * MY
    np.multiply(MY, 1.0 - alpha, out=out)
    out += alpha * E  # a + b == b + a in floating point: the bits of the line above
    return out


def _counts(*parts):
    return np.sum(parts, axis=0)


def _cluster_columns(labels, counts):
    """Normalised indicators over the clusters present (sorted ids), as
    :func:`hyperclust.selection.objectives.cluster_indicators`."""
    present = np.flatnonzero(counts)
    col = np.searchsorted(present, labels)
    Y = np.zeros((labels.size, present.size))
    Y[np.arange(labels.size), col] = 1.0 / np.sqrt(counts[present][col])
    return Y


def _trace_part(Y, z):
    return float(np.sum(Y * z))


def _objective(counts, *parts):
    present = np.flatnonzero(counts)
    return float(1.0 - sum(parts) / present.size), counts


# ------------------------------------------------------------ the graphs
def _greedy_rotation(client, Xn, bounds, start, k):
    """Future of the greedy start rotation ``R`` (``k x k``) and of the start row."""
    b0 = int(np.searchsorted(bounds, start, side="right") - 1)
    firsts = [_submit(client, _first_rows, x, start - int(bounds[b0]) if b == b0 else -1)
              for b, x in enumerate(Xn)]
    first = _submit(client, _start_row, k, *firsts)
    columns, c = [first], [None] * len(Xn)
    for _ in range(1, k):
        c = [_submit(client, _accumulate, cb, x, columns[-1]) for cb, x in zip(c, Xn)]
        minima = [_submit(client, _minimum, cb) for cb in c]
        found = [_submit(client, _first_near, cb, x, *minima) for cb, x in zip(c, Xn)]
        columns.append(_submit(client, _first_found, *found))
    return _submit(client, _rotation, *columns), first


def discretize_blocks(client, q, bounds, start: int, k: int, n: int, n_iter: int) -> list:
    """:func:`hyperclust.cluster.ahcka.discretize` of the leading ``k`` columns of the
    row-blocked ``q`` (rows scaled by the largest row norm, as AHCKA's check does).

    Parameters
    ----------
    client : dask.distributed.Client
    q : list of futures of ``(n_b, >= k)`` arrays
    bounds : ndarray of int, shape (n_blocks + 1,)
    start : int
        The node whose row starts the greedy rotation (AHCKA: its first seed).
    k, n, n_iter : int
        Clusters, nodes, refinements at most.

    Returns
    -------
    list of futures of int64 label blocks

    Examples
    --------
    Rows along two directions, in two blocks: two clusters.

    >>> import distributed
    >>> q = np.array([[1.0, 0.1], [0.9, 0.0], [0.0, 1.0], [0.1, 0.9]])
    >>> with distributed.Client(processes=False, n_workers=1, dashboard_address=":0") as c:
    ...     blocks = [c.scatter(q[:2]), c.scatter(q[2:])]
    ...     labels = c.gather(discretize_blocks(c, blocks, np.array([0, 2, 4]), 0, 2, 4, 30))
    >>> np.concatenate(labels).tolist()
    [0, 0, 1, 1]
    """
    norms = [_submit(client, _largest_row_norm, qb, k) for qb in q]
    Xn = [_submit(client, _leading_normalized, qb, k, *norms) for qb in q]
    R, first = _greedy_rotation(client, Xn, bounds, start, k)
    last, used, done, i = np.inf, R, False, 0
    while not done and i < n_iter:
        steps = []
        for _ in range(min(REFINE_GROUP, n_iter - i)):
            step = _submit(client, _refine, n,
                           *[_submit(client, _discrete_stats, x, R, k) for x in Xn])
            steps.append((R, step))
            R = step  # the next pass reads the rotation out of (objective, rotation)
        i += len(steps)
        objectives = [obj for obj, _ in client.gather([s for _, s in steps])]
        for (R_used, _), obj in zip(steps, objectives):
            used = R_used  # the labels are those of the rotation the last pass started with
            if last - obj < 1e-10 * max(1.0, n):
                done = True
                break
            last = obj
    return [_submit(client, _discrete_labels, x, used, first) for x in Xn]


def rwr_conductance_blocks(client, M, labels, k: int, alpha: float, n_hops: int):
    """Future of ``(objective, cluster sizes)``:
    :func:`hyperclust.selection.objectives.rwr_conductance` (balance "mean") of the label
    blocks on the walk ``M`` (a block operator), and the sizes of the ``k`` clusters.

    Examples
    --------
    Two disjoint hyperedges, each a cluster: the walk never leaves its cluster.

    >>> import tempfile, distributed
    >>> from hyperclust import Hypergraph
    >>> from hyperclust.distributed import write_partitioned
    >>> from hyperclust.distributed.operator import propagation
    >>> phg = write_partitioned(Hypergraph.from_edges([[0, 1], [2, 3]]), tempfile.mkdtemp(),
    ...                         block_size=2)
    >>> with distributed.Client(processes=False, n_workers=1, dashboard_address=":0") as c:
    ...     M = propagation(phg, c, self_loops=0.0, kind="rw")
    ...     labels = [c.scatter(np.array([0, 0])), c.scatter(np.array([1, 1]))]
    ...     f, sizes = c.gather(rwr_conductance_blocks(c, M, labels, 2, 0.2, 3))
    >>> round(f, 12), sizes.tolist()
    (0.0, [2, 2])
    """
    counts, Y = start_walk(client, labels, k)
    z = Y
    for _ in range(int(n_hops)):
        z = M.apply(z, then=[(restart_step, alpha, y) for y in Y])
    return walk_objective(client, counts, Y, z)


def start_walk(client, labels, k: int):
    """Futures of the cluster sizes of the label blocks and of the blocks ``Y`` of their
    normalised indicators (the start of the random walk with restart)."""
    counts = _submit(client, _counts, *[_submit(client, np.bincount, lb, None, k)
                                         for lb in labels])
    return counts, [_submit(client, _cluster_columns, lb, counts) for lb in labels]


def walk_objective(client, counts, Y, z, trace=None, args=()):
    """Future of ``(objective, cluster sizes)`` from the walk's end ``z``; ``trace``: a
    task ``trace(y, zb, *args)`` of each block's share (default ``sum(y * zb)``)."""
    trace = _trace_part if trace is None else trace
    return _submit(client, _objective, counts,
                   *[_submit(client, trace, y, zb, *args) for y, zb in zip(Y, z)])
