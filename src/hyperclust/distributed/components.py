"""Whether a partitioned hypergraph has more connected components than clusters (what
``regularization="auto"`` decides on), by min-label propagation over the row blocks that
stops as soon as upper and lower bounds decide.
"""

from __future__ import annotations

import numpy as np

from ._tasks import RETRIES
from .operator import BlockOperator

__all__ = ["more_components_than"]

_NONE = np.iinfo(np.int64).max


def _degree_stats(block):
    covered = np.diff(block.H.indptr) > 0
    return int(block.n_rows - covered.sum()), int(block.H.nnz)


def _start_labels(start, rows):
    return np.arange(start, start + rows, dtype=np.int64)


def _edge_minima(block, labels):
    """``{j: (rows in partition j, smallest member label)}`` of the block's hyperedges."""
    Ht = block.Ht
    minima = np.minimum.reduceat(labels[Ht.indices], Ht.indptr[:-1]) if Ht.nnz \
        else np.zeros(0, dtype=np.int64)
    return {int(j): (block.edges[block.cut[j]:block.cut[j + 1]] - block.edge_start[j],
                     minima[block.cut[j]:block.cut[j + 1]]) for j in block.touched}


def _partition_minima(size, j, *pieces):
    E = np.full(size, _NONE, dtype=np.int64)
    for part in pieces:
        rows, minima = part[j]
        E[rows] = np.minimum(E[rows], minima)  # rows of one piece are distinct
    return E


def _take(E, rows):
    return E[rows]


def _node_minima(block, labels, start, *slices):
    """``(new labels, how many changed, how many roots)`` of the block."""
    G = np.concatenate(slices) if slices else np.zeros(0, dtype=np.int64)
    H = block.H
    new = labels.copy()
    rows = np.flatnonzero(np.diff(H.indptr) > 0)
    if rows.size:
        minima = np.minimum.reduceat(G[H.indices], H.indptr[rows])
        new[rows] = np.minimum(labels[rows], minima)
    own = np.arange(start, start + labels.size)
    return new, int(np.count_nonzero(new != labels)), int(np.count_nonzero(new == own))


def _first(x):
    return x[0]


def _counts(x):
    return x[1:]


def more_components_than(op: BlockOperator, k: int) -> bool:
    """Whether the hypergraph of ``op`` has more than ``k`` connected components (isolated count).

    Parameters
    ----------
    op : BlockOperator
    k : int

    Returns
    -------
    bool

    Examples
    --------
    >>> import tempfile, distributed
    >>> from hyperclust import Hypergraph
    >>> from hyperclust.distributed import write_partitioned
    >>> from hyperclust.distributed.operator import propagation
    >>> hg = Hypergraph.from_edges([[0, 1], [1, 2], [3, 4]], n_nodes=6)  # 3 components
    >>> phg = write_partitioned(hg, tempfile.mkdtemp(), block_size=2)
    >>> with distributed.Client(processes=False, n_workers=1, dashboard_address=":0") as c:
    ...     P = propagation(phg, c)
    ...     print(more_components_than(P, 2), more_components_than(P, 3))
    True False
    """
    c = op.client
    sub = lambda fn, *a: c.submit(fn, *a, retries=RETRIES, pure=False)  # noqa: E731
    stats = c.gather([sub(_degree_stats, blk) for blk in op.blocks])
    isolated = sum(s[0] for s in stats)
    if isolated + (sum(s[1] for s in stats) > 0) > k:
        return True
    labels = [sub(_start_labels, int(op.bounds[b]), int(op.bounds[b + 1] - op.bounds[b]))
              for b in range(op.n_blocks)]
    while True:
        down = [sub(_edge_minima, blk, lab) for blk, lab in zip(op.blocks, labels)]
        pieces_of = {}
        for b, res in enumerate(down):
            for j in op.touched[b]:
                pieces_of.setdefault(int(j), []).append(res)
        edges = {j: sub(_partition_minima, int(op._edge_sizes[j]), j, *pieces)
                 for j, pieces in pieces_of.items()}
        results = [sub(_node_minima, blk, lab, int(op.bounds[b]),
                       *[sub(_take, edges[int(j)], op._rows[b][int(j)]) for j in op.touched[b]])
                   for b, (blk, lab) in enumerate(zip(op.blocks, labels))]
        counts = c.gather([sub(_counts, res) for res in results])
        labels = [sub(_first, res) for res in results]
        roots = sum(r for _, r in counts)
        if roots <= k:
            return False
        if not any(changed for changed, _ in counts):
            return True  # converged: the roots are the components
