"""Uni-DHC's learned filter start (``gamma_init="canonical"`` or ``"alignment"``) on a basis
written per block: only the sampled connected nodes' basis rows leave the blocks.
"""

from __future__ import annotations

import numpy as np

from ..models.contrast import ALIGNMENT_ROWS
from ._tasks import RETRIES
from .batches import _gather_rows
from .partitioned import load_node_block, load_node_ranks

__all__ = ["sampled_connected_rows", "alignment_start"]


def _connected_count(path) -> int:
    return int(np.count_nonzero(np.diff(load_node_block(path)[0])))


def _connected_at(path, positions, offset):
    """Global ids of the block's connected nodes at ``positions`` among them."""
    return offset + np.flatnonzero(np.diff(load_node_block(path)[0]) > 0)[positions]


def _connected_ranks(path, ranks_path, offset):
    """``(ranks, global ids)`` of the block's connected nodes."""
    indptr = load_node_block(path)[0]
    local = np.flatnonzero(np.diff(indptr) > 0)
    return load_node_ranks(ranks_path, offset, offset + indptr.size - 1)[local], offset + local


def _draw(total, random_state):
    """Positions of the sample among ``total`` connected nodes in the given order."""
    if total > ALIGNMENT_ROWS:
        rng = np.random.default_rng(random_state)
        return np.sort(rng.choice(total, size=ALIGNMENT_ROWS, replace=False))
    return np.arange(total)


def _sampled_by_rank(phg, client, random_state):
    """:func:`sampled_connected_rows` of a placed partition (connected nodes in rank order)."""
    parts = client.gather([client.submit(_connected_ranks, phg.block_path(b),
                                         phg.node_ranks_path, int(phg.block_bounds[b]),
                                         retries=RETRIES) for b in range(phg.n_blocks)])
    ranks = np.concatenate([p[0] for p in parts])
    rows = np.concatenate([p[1] for p in parts]).astype(np.int64)
    return rows[np.argsort(ranks, kind="stable")][_draw(ranks.size, random_state)]


def sampled_connected_rows(phg, client, random_state) -> np.ndarray:
    """The nodes the alignment reads: the connected ones, or a seeded sample of them.

    The sample of :func:`~hyperclust.models.contrast.filter_objective` on the whole hypergraph,
    without any process holding the connected nodes' ids.

    Parameters
    ----------
    phg : PartitionedHypergraph
    client : distributed.Client
    random_state : int

    Returns
    -------
    ndarray of int64, shape (min(c, ALIGNMENT_ROWS),)
        Global node indices in the given numbering's order.

    Examples
    --------
    Node 3 is in no hyperedge; fewer than ``ALIGNMENT_ROWS`` connected nodes: all of them.

    >>> import tempfile, distributed
    >>> from hyperclust import Hypergraph
    >>> from hyperclust.distributed import write_partitioned
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [4, 5]], n_nodes=6)
    >>> phg = write_partitioned(hg, tempfile.mkdtemp(), block_size=2)
    >>> with distributed.Client(processes=False, n_workers=1, dashboard_address=":0") as c:
    ...     rows = sampled_connected_rows(phg, c, random_state=0)
    >>> rows.tolist()
    [0, 1, 2, 4, 5]
    """
    if phg.node_ranks_path is not None:
        return _sampled_by_rank(phg, client, random_state)
    counts = np.asarray(client.gather([
        client.submit(_connected_count, phg.block_path(b), retries=RETRIES)
        for b in range(phg.n_blocks)]), dtype=np.int64)
    positions = _draw(int(counts.sum()), random_state)
    starts = np.concatenate([[0], np.cumsum(counts)])
    cuts = np.searchsorted(positions, starts)
    parts = [client.submit(_connected_at, phg.block_path(b),
                           positions[cuts[b]:cuts[b + 1]] - starts[b],
                           int(phg.block_bounds[b]), retries=RETRIES)
             for b in range(phg.n_blocks) if cuts[b + 1] > cuts[b]]
    rows = client.gather(parts)
    return np.concatenate(rows).astype(np.int64) if rows else np.zeros(0, dtype=np.int64)


def alignment_start(phg, client, basis_files, order: int, random_state, steps: int,
                    kind: str = "canonical", n_clusters: int = 2):
    """Atom weights of :func:`~hyperclust.models.contrast.learn_mixture` on the sampled basis rows.

    Parameters
    ----------
    phg : PartitionedHypergraph
    client : distributed.Client
    basis_files : list of str
        The block files of :func:`~hyperclust.distributed.basis.write_power_basis`.
    order : int
    random_state : int
    steps : int
        Adam steps.
    kind : {"canonical", "alignment"}
    n_clusters : int

    Returns
    -------
    (weights, trajectory) or None
        None when there is nothing to learn (``K = 0``, < 2 connected nodes, one column).

    Examples
    --------
    >>> import tempfile, distributed
    >>> from hyperclust import Hypergraph
    >>> from hyperclust.distributed import write_partitioned
    >>> from hyperclust.distributed.basis import write_power_basis
    >>> from hyperclust.distributed.operator import propagation
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [2, 3], [3, 4]])
    >>> phg = write_partitioned(hg, tempfile.mkdtemp(), block_size=2)
    >>> X = np.random.default_rng(0).normal(size=(5, 4))
    >>> with distributed.Client(processes=False, n_workers=1, dashboard_address=":0") as c:
    ...     files = write_power_basis(propagation(phg, c), X, 2, tempfile.mkdtemp())
    ...     weights, trajectory = alignment_start(phg, c, files, 2, 0, steps=20)
    ...     files0 = write_power_basis(propagation(phg, c), X, 0, tempfile.mkdtemp())
    ...     nothing = alignment_start(phg, c, files0, 0, 0, steps=20)
    >>> weights.shape, bool(np.isclose(weights.sum(), 1.0)), nothing is None
    ((5,), True, True)
    """
    from ..models.contrast import filter_objective, learn_mixture

    rows = sampled_connected_rows(phg, client, random_state)
    arrays = [np.load(f, mmap_mode="r") for f in basis_files]
    offsets = np.asarray(phg.block_bounds[:-1], dtype=np.int64)
    sample = _gather_rows(arrays, offsets, rows)
    objective, _ = filter_objective(kind, None, None, sample, np.ones(rows.size, dtype=bool),
                                    random_state, n_clusters=n_clusters)
    if objective is None:
        return None
    return learn_mixture(objective, order, 0.0, steps=steps)
