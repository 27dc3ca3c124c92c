"""Uni-DHC training batches read from a basis written per block (no whole basis in memory)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from .basis import BASIS_MANIFEST
from .partitioned import load_edge_block

__all__ = ["BasisFileBatches"]


def given_orders(phg):
    """Where the batches find each node and hyperedge of the given numbering (placed partitions).

    Parameters
    ----------
    phg : PartitionedHypergraph

    Returns
    -------
    nodes : ndarray of int64, shape (n_nodes,), or None
        The stored row of the node of rank ``i`` (None: not renumbered).
    edges : ndarray of int64, shape (u,), or None
        The stored index of the ``i``-th usable hyperedge in the given order.
    """
    nodes = edges = None
    if phg.node_ranks_path is not None:
        ranks = np.load(phg.node_ranks_path, allow_pickle=False)
        nodes = np.empty_like(ranks)
        nodes[ranks] = np.arange(ranks.size)
    if phg.edge_ranks_path is not None:
        sizes = np.concatenate([load_edge_block(phg.edge_block_path(j))[1]
                                for j in range(len(phg.edge_blocks))])
        ranks = np.load(phg.edge_ranks_path, allow_pickle=False)[sizes >= 2]
        edges = np.argsort(ranks, kind="stable")
    return nodes, edges


def _gather_rows(arrays, offsets, idx):
    """Rows ``idx`` of the ``(K+1, n_j, d)`` arrays stacked along axis 1, pages released after."""
    part = np.searchsorted(offsets, idx, side="right") - 1
    first = arrays[0]
    out = np.empty((first.shape[0], idx.size, first.shape[2]), dtype=first.dtype)
    for j in np.unique(part):
        at = np.flatnonzero(part == j)
        local = idx[at] - offsets[j]
        order = np.argsort(local, kind="stable")  # ascending reads from the memory map
        out[:, at[order]] = arrays[j][:, local[order]]
        _release([arrays[j]])
    return out


def _release(arrays):
    """Drop this process's mappings of memory-mapped arrays' pages (keeps the driver's RSS flat)."""
    import mmap

    for a in arrays:
        handle = getattr(a, "_mmap", None)
        if handle is not None and hasattr(handle, "madvise"):
            handle.madvise(mmap.MADV_DONTNEED)


class BasisFileBatches:
    """Batches for :func:`hyperclust.models.unidhc.train_on_batches` read from basis block files.

    The files of :func:`~hyperclust.distributed.basis.write_power_basis` are memory-mapped and
    a batch reads only its rows; the batches equal
    :class:`hyperclust.models.unidhc.ArrayBatches`' for the same basis.

    Parameters
    ----------
    basis_dir : str or PathLike
    device : str or torch.device
    orders : tuple, default (None, None)
        :func:`given_orders` of a placed partition.
    sampled_means : tuple, optional
        ``(n_edges, wanted, means)`` of
        :func:`~hyperclust.distributed.basis.sampled_hyperedge_means`, in place of the
        ``edge-means`` files; a batch of other hyperedges is an error.

    Examples
    --------
    >>> import tempfile, numpy as np, distributed
    >>> from hyperclust import Hypergraph
    >>> from hyperclust.distributed import write_partitioned
    >>> from hyperclust.distributed.basis import write_hyperedge_means, write_power_basis
    >>> from hyperclust.distributed.operator import propagation
    >>> phg = write_partitioned(Hypergraph.from_edges([[0, 1, 2], [2, 3]]),
    ...                         tempfile.mkdtemp(), block_size=2)
    >>> with distributed.Client(processes=False, n_workers=1, dashboard_address=":0") as c:
    ...     out = tempfile.mkdtemp()
    ...     P = propagation(phg, c)
    ...     _ = write_power_basis(P, np.arange(8.0).reshape(4, 2), 1, out)
    ...     _ = write_hyperedge_means(P, out)
    >>> src = BasisFileBatches(out, "cpu")
    >>> src.n_nodes, src.dim, src.n_edges
    (4, 2, 2)
    >>> src.nodes(np.array([3, 0]))[0].tolist(), src.edges(np.array([1]))[0].tolist()
    ([[6.0, 7.0], [0.0, 1.0]], [[5.0, 6.0]])
    """

    def __init__(self, basis_dir, device, orders=(None, None), sampled_means=None):
        import torch

        out = Path(basis_dir)
        info = json.loads((out / BASIS_MANIFEST).read_text(encoding="utf-8"))
        self.device = torch.device(device)
        self._blocks = [np.load(out / f, mmap_mode="r") for f in info["files"]]
        self._node_offsets = np.asarray(info["block_bounds"][:-1], dtype=np.int64)
        self.n_nodes = int(info["block_bounds"][-1])
        self.dim = int(self._blocks[0].shape[2])
        self._node_rows, self._edge_rows = orders
        self._wanted = None
        if sampled_means is not None:
            self.n_edges, self._wanted, means = sampled_means
            self._means, self._edge_offsets = [means], np.zeros(1, dtype=np.int64)
            return
        if "edge_means" not in info:
            raise ValueError(f"{out}: no hyperedge means (write_hyperedge_means)")
        self._means = [np.load(out / f, mmap_mode="r") for f in info["edge_means"]["files"]]
        counts = info["edge_means"]["counts"]
        self._edge_offsets = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
        self.n_edges = int(sum(counts))

    def _tensor(self, array):
        import torch

        return torch.as_tensor(array, device=self.device)

    def nodes(self, idx):
        idx = np.asarray(idx) if self._node_rows is None else self._node_rows[idx]
        return self._tensor(_gather_rows(self._blocks, self._node_offsets, idx))

    def edges(self, idx):
        idx = np.asarray(idx) if self._edge_rows is None else self._edge_rows[idx]
        if self._wanted is not None:
            at = np.searchsorted(self._wanted, idx)
            if np.any(at >= self._wanted.size) or np.any(self._wanted[at % max(
                    self._wanted.size, 1)] != idx):
                raise ValueError("a hyperedge batch outside the sampled means")
            idx = at
        return self._tensor(_gather_rows(self._means, self._edge_offsets, idx))
