"""One check of AHCKA on row blocks: the Yu-Shi discretisation of the iterate and the
random-walk-with-restart conductance of its labels, as one task graph (docs/distributed.md,
"AHCKA"). The arithmetic is that of :func:`hyperclust.cluster.ahcka.discretize` and
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


def _columns(k, *summaries):
    """The greedy rotation's columns so far and whether any row is nonzero, from the summaries."""
    if isinstance(summaries[0], tuple):
        row = next(f[2] for f in summaries if f[2] is not None)
        if not np.any(row != 0):
            row = next((f[1] for f in summaries if f[0]), np.zeros(k))
        return [row], any(f[0] for f in summaries)
    near = min(s["min"] for s in summaries) + TIE_TOLERANCE
    row = next(s["rows"][np.flatnonzero(s["values"] <= near)[0]] for s in summaries
               if np.any(s["values"] <= near))
    return summaries[0]["columns"] + [row], summaries[0]["any"]


def _summary(c, Xn, columns, nonzero):
    """A step's least accumulated value and the rows that could be first within tolerance."""
    least = float(c.min()) if c.size else np.inf
    idx = np.flatnonzero(c <= least + TIE_TOLERANCE)
    values = c[idx]
    below = np.ones(idx.size, dtype=bool)
    below[1:] = values[1:] < np.minimum.accumulate(values[:-1])
    return {"min": least, "values": values[below], "rows": Xn[idx[below]],
            "columns": columns, "any": nonzero}


def _greedy_step(last, Xn, k, *summaries):
    """One greedy step on a block: ``(accumulated values, summary)``."""
    columns, nonzero = _columns(k, *summaries)
    c = np.where(np.any(Xn != 0, axis=1), 0.0, np.inf) if last is None else last[0]
    c = c + np.abs(Xn @ columns[-1])
    return c, _summary(c, Xn, columns, nonzero)


def _summary_of(step):
    return step[1]


def _advance(n, k, *previous):
    """The refinements' state ``{R, used, last, done, any}`` after the last pass."""
    if isinstance(previous[0], dict) and "R" in previous[0]:
        return previous[0]
    if isinstance(previous[0], dict) or isinstance(previous[0][0], (bool, np.bool_)):
        columns, nonzero = _columns(k, *previous)
        R = np.stack(columns, axis=1)
        return {"R": R, "used": R, "last": np.inf, "done": False, "any": nonzero}
    state = previous[0][1]
    if state["done"]:
        return state
    U, S, Wt = np.linalg.svd(np.sum([p[0] for p in previous], axis=0), full_matrices=False)
    obj = n - S.sum()
    if state["last"] - obj < 1e-10 * max(1.0, n):
        return {**state, "used": state["R"], "done": True}
    return {**state, "R": Wt.T @ U.T, "used": state["R"], "last": obj}


def _refine_pass(Xn, n, k, *previous):
    """One refinement on a block: ``(B^T Xn or None once stopped, state)``."""
    state = _advance(n, k, *previous)
    if state["done"]:
        return None, state
    return rotated_labels_and_sums(Xn, state["R"])[1], state


def _discrete_labels(Xn, state):
    if not state["any"]:  # every row zero: one cluster, as the single process
        return np.zeros(Xn.shape[0], dtype=np.int64)
    return rotated_labels(Xn, state["used"]).astype(np.int64)


@ignores_input
def restart_step(MY, Y, alpha, E, out=None):
    """``alpha E + (1 - alpha) M Y``, fused into a product (into ``out`` when given).

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


def _cluster_columns(labels, *parts):
    """Normalised indicators over the clusters present, as ``cluster_indicators``."""
    counts = _counts(*parts)
    present = np.flatnonzero(counts)
    col = np.searchsorted(present, labels)
    Y = np.zeros((labels.size, present.size))
    Y[np.arange(labels.size), col] = 1.0 / np.sqrt(counts[present][col])
    return Y


def _trace_part(Y, z):
    return float(np.sum(Y * z))


def _objective(counts, *parts):
    """``(objective, cluster sizes)`` from every block's sizes and trace shares."""
    counts = _counts(*counts)
    present = np.flatnonzero(counts)
    return float(1.0 - sum(parts) / present.size), counts


# ------------------------------------------------------------ the graphs
def _greedy_rotation(client, Xn, bounds, start, k):
    """Futures of every block's summary of the greedy rotation's last step."""
    b0 = int(np.searchsorted(bounds, start, side="right") - 1)
    summaries = [_submit(client, _first_rows, x, start - int(bounds[b0]) if b == b0 else -1)
                 for b, x in enumerate(Xn)]
    steps = [None] * len(Xn)
    for _ in range(1, k):
        steps = [_submit(client, _greedy_step, last, x, k, *summaries)
                 for last, x in zip(steps, Xn)]
        summaries = [_submit(client, _summary_of, s) for s in steps]
    return summaries


def discretize_blocks(client, q, bounds, start: int, k: int, n: int, n_iter: int) -> list:
    """:func:`hyperclust.cluster.ahcka.discretize` of the leading ``k`` columns of row-blocked ``q``.

    Parameters
    ----------
    client : dask.distributed.Client
    q : list of futures of ``(n_b, >= k)`` arrays
    bounds : ndarray of int, shape (n_blocks + 1,)
    start : int
        The node whose row starts the greedy rotation.
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
    previous, i = _greedy_rotation(client, Xn, bounds, start, k), 0
    while True:
        group = min(REFINE_GROUP, n_iter - i)
        for _ in range(group):
            previous = [_submit(client, _refine_pass, x, n, k, *previous) for x in Xn]
        i += group
        # the stopping rule read here from the passes' small results (one round trip)
        state = _advance(n, k, *client.gather(previous))
        if i >= n_iter or state["done"]:
            break
        previous = [state]
    return [_submit(client, _discrete_labels, x, state) for x in Xn]


def rwr_conductance_blocks(client, M, labels, k: int, alpha: float, n_hops: int):
    """``(objective, cluster sizes)``: :func:`~hyperclust.selection.objectives.rwr_conductance`.

    Balance "mean", of the label blocks on the walk ``M`` (a block operator); one round trip.

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
    ...     f, sizes = rwr_conductance_blocks(c, M, labels, 2, 0.2, 3)
    >>> round(f, 12), sizes.tolist()
    (0.0, [2, 2])
    """
    counts, Y = start_walk(client, labels, k)
    z = Y
    for _ in range(int(n_hops)):
        z = M.apply(z, then=[(restart_step, alpha, y) for y in Y])
    return walk_objective(client, counts, Y, z)


def start_walk(client, labels, k: int):
    """Futures of each label block's cluster sizes and normalised indicator blocks ``Y``."""
    counts = [_submit(client, np.bincount, lb, None, k) for lb in labels]
    return counts, [_submit(client, _cluster_columns, lb, *counts) for lb in labels]


def walk_objective(client, counts, Y, z, trace=None, args=()):
    """``(objective, cluster sizes)`` from the walk's end ``z``, summed in block order.

    ``trace``: a task ``trace(y, zb, *args)`` of each block's share (default ``sum(y * zb)``).
    """
    trace = _trace_part if trace is None else trace
    got = client.gather([*counts, *[_submit(client, trace, y, zb, *args)
                                    for y, zb in zip(Y, z)]])
    return _objective(got[:len(counts)], *got[len(counts):])
