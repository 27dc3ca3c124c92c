"""What a distributed estimator accepts: a partitioned hypergraph (handle or directory), or
an in-memory hypergraph written to a temporary partitioned directory."""

from __future__ import annotations

import contextlib
import os

from ..hypergraph import Hypergraph
from .partition import write_partitioned
from .partitioned import PartitionedHypergraph
from .scratch import scratch_folder

__all__ = ["as_partitioned", "fit_blocks"]


@contextlib.contextmanager
def as_partitioned(data, block_size: int):
    """Yield a :class:`PartitionedHypergraph` for ``data`` (an in-memory one written to scratch).

    Parameters
    ----------
    data : Hypergraph, PartitionedHypergraph, str or os.PathLike
    block_size : int
        Nodes per block when an in-memory hypergraph is written.

    Examples
    --------
    >>> import os
    >>> from hyperclust import Hypergraph
    >>> with as_partitioned(Hypergraph.from_edges([[0, 1, 2], [2, 3]]), block_size=2) as phg:
    ...     print(phg.n_nodes, phg.block_bounds.tolist(), os.path.isdir(phg.path))
    4 [0, 2, 4] True
    >>> os.path.isdir(phg.path)  # the temporary copy is removed on exit
    False
    """
    if isinstance(data, PartitionedHypergraph):
        yield data
    elif isinstance(data, (str, os.PathLike)):
        yield PartitionedHypergraph(data)
    elif isinstance(data, Hypergraph):
        if data.n_nodes == 0:
            raise ValueError("the hypergraph has no nodes")
        with scratch_folder("hyperclust-partitioned-") as tmp:
            yield write_partitioned(data, tmp, block_size=block_size)
    else:
        raise TypeError(f"fit expects a hyperclust.Hypergraph (or what hyperclust.convert."
                        f"from_any takes), a PartitionedHypergraph or the path of a partitioned "
                        f"directory, got {type(data).__name__}")


def fit_blocks(phg, client, blocks_per_worker):
    """The row blocks a fit runs on: at most ``blocks_per_worker`` per worker (None: as stored).

    Runs of consecutive stored blocks (:meth:`PartitionedHypergraph.grouped`): fewer blocks,
    fewer Dask tasks per product.

    Parameters
    ----------
    phg : PartitionedHypergraph
    client : dask.distributed.Client
    blocks_per_worker : int or None

    Returns
    -------
    PartitionedHypergraph

    Examples
    --------
    >>> import tempfile, distributed
    >>> from hyperclust import Hypergraph
    >>> phg = write_partitioned(Hypergraph.from_edges([[0, 1, 2], [2, 3], [4, 5]]),
    ...                         tempfile.mkdtemp(), block_size=2)
    >>> with distributed.Client(processes=False, n_workers=1, dashboard_address=":0") as c:
    ...     fit_blocks(phg, c, 1).n_blocks, fit_blocks(phg, c, None).n_blocks
    (1, 3)
    """
    if blocks_per_worker is None:
        return phg
    workers = len(client.scheduler_info(n_workers=-1)["workers"])
    return phg.grouped(max(1, workers) * int(blocks_per_worker))
