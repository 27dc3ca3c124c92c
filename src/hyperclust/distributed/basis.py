"""The power basis ``[X, P X, ..., P^K X]`` of a block operator, written per row block."""

from __future__ import annotations

import json
import numbers
from pathlib import Path

import numpy as np

from .._arrays import unique_inverse
from ..operators.propagation import BASIS_DTYPE, check_dtype
from ._tasks import RETRIES
from .linalg import scatter_blocks
from .partitioned import load_edge_block, load_node_block

__all__ = ["write_power_basis", "read_power_basis", "write_hyperedge_means",
           "usable_edge_counts", "sampled_hyperedge_means"]

BASIS_MANIFEST = "basis.json"


def _cast(X, dtype, scale=1):
    """``X / scale`` in ``dtype``, the quotient in ``X``'s precision."""
    if scale == 1:
        return np.asarray(X, dtype=dtype)
    return np.divide(X, scale, out=np.empty(np.shape(X), dtype=dtype))


def _write(path, dtype, *powers):
    np.save(path, np.stack(powers).astype(dtype, copy=False), allow_pickle=False)
    return path


def _write_rows(path, dtype, *powers):
    """Write the block file; return its rows with every order side by side, ``(n_b, (K+1) d)``."""
    _write(path, dtype, *powers)
    return np.hstack([p.astype(dtype, copy=False) for p in powers])


def write_power_basis(operator, X, order: int, out_dir, *, dtype=BASIS_DTYPE,
                      return_rows=False, scale=1):
    """Compute ``P^k X`` for ``k = 0..order`` and write row block ``b`` as ``basis-XXXXX.npy``.

    Each file has shape ``(order + 1, n_b, d)`` (the layout of
    :func:`hyperclust.models.basis.polynomial_basis`, cut by rows); ``basis.json`` lists them.
    Products run in the operator's dtype; ``dtype`` is what is stored.

    Parameters
    ----------
    operator : BlockOperator
    X : ndarray, shape (n, d), or list of futures of its row blocks
    order : int
    out_dir : str or PathLike
    dtype : {float32, float64}, default float32
    scale : float, default 1
        The basis is that of ``X / scale``.
    return_rows : bool, default False
        Also return futures of each block's rows, ``(n_b, (K+1) d)``.

    Returns
    -------
    list of str
        The block files, in row-block order.
    list of futures
        With ``return_rows`` only.

    Examples
    --------
    >>> import tempfile, numpy as np, distributed
    >>> from hyperclust import Hypergraph
    >>> from hyperclust.models.basis import polynomial_basis
    >>> from hyperclust.operators.propagation import PropagationOperator
    >>> from hyperclust.distributed import write_partitioned
    >>> from hyperclust.distributed.operator import propagation
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [2, 3], [3, 4]])
    >>> phg = write_partitioned(hg, tempfile.mkdtemp(), block_size=2)
    >>> X = np.eye(5)[:, :2]
    >>> with distributed.Client(processes=False, n_workers=1, dashboard_address=":0") as c:
    ...     out = tempfile.mkdtemp()
    ...     _ = write_power_basis(propagation(phg, c), X, 3, out, dtype=np.float64)
    >>> ref = polynomial_basis(PropagationOperator(hg), X, 3, dtype=np.float64)
    >>> bool(np.allclose(read_power_basis(out), ref))
    True
    """
    if isinstance(order, bool) or not isinstance(order, numbers.Integral) or order < 0:
        raise ValueError(f"order must be a non-negative integer, got {order!r}")
    dtype = check_dtype(dtype)
    client = operator.client
    if isinstance(X, np.ndarray) or not isinstance(X, (list, tuple)):
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[0] != operator.shape[0]:
            raise ValueError(f"X must have shape ({operator.shape[0]}, d), got {X.shape}")
        X = scatter_blocks(client, X, operator.bounds)
    if operator.dtype != np.float64 or scale != 1:
        X = [client.submit(_cast, x, operator.dtype, scale, retries=RETRIES, pure=False)
             for x in X]
    powers = [list(X)]
    for _ in range(int(order)):
        powers.append(operator.apply(powers[-1]))
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    names = [str((out / f"basis-{b:05d}.npy").resolve()) for b in range(operator.n_blocks)]
    task = _write_rows if return_rows else _write
    files = [client.submit(task, name, dtype, *[p[b] for p in powers], retries=RETRIES,
                           pure=False) for b, name in enumerate(names)]
    _wait(files)
    (out / BASIS_MANIFEST).write_text(json.dumps({
        "order": int(order), "dtype": dtype.name, "block_bounds": operator.bounds.tolist(),
        "files": [Path(f).name for f in names]}, indent=1), encoding="utf-8")
    return (names, files) if return_rows else names


def _wait(futures):
    """Wait for ``futures``, raising the first task error."""
    import distributed

    distributed.wait(futures)
    for f in futures:
        if f.status == "error":
            f.result()


def read_power_basis(out_dir) -> np.ndarray:
    """The whole ``(order + 1, n, d)`` basis written by :func:`write_power_basis` (small inputs).

    Parameters
    ----------
    out_dir : str or PathLike

    Returns
    -------
    ndarray, shape (order + 1, n, d)

    Examples
    --------
    >>> import json, os, tempfile, numpy as np
    >>> out = tempfile.mkdtemp()
    >>> np.save(os.path.join(out, "b0.npy"), np.zeros((2, 1, 3)))
    >>> np.save(os.path.join(out, "b1.npy"), np.ones((2, 2, 3)))
    >>> _ = open(os.path.join(out, "basis.json"), "w").write('{"files": ["b0.npy", "b1.npy"]}')
    >>> B = read_power_basis(out)
    >>> B.shape, B[:, :, 0].tolist()
    ((2, 3, 3), [[0.0, 1.0, 1.0], [0.0, 1.0, 1.0]])
    """
    out = Path(out_dir)
    info = json.loads((out / BASIS_MANIFEST).read_text(encoding="utf-8"))
    return np.concatenate([np.load(out / f) for f in info["files"]], axis=1)


def _basis_rows(path):
    """Basis block ``(K+1, n_b, d)`` -> ``(n_b, (K+1) d)``."""
    B = np.load(path)
    return np.ascontiguousarray(B.transpose(1, 0, 2).reshape(B.shape[1], -1))


def _write_means(path, edge_file, means, n_orders, dtype):
    """Keep the hyperedges with at least 2 members, write ``(K+1, u_j, d)``; return ``u_j``."""
    _, sizes = load_edge_block(edge_file)
    usable = means[sizes >= 2]
    # the width from the means, not -1: a partition of one-member hyperedges keeps none
    np.save(path, usable.reshape(usable.shape[0], n_orders, means.shape[1] // n_orders)
            .transpose(1, 0, 2)
            .astype(dtype), allow_pickle=False)
    return int(usable.shape[0])


def write_hyperedge_means(operator, basis_dir):
    """Write ``E[k] = De^-1 H^T B[k]`` of the hyperedges of 2+ members, per hyperedge partition.

    Files ``edge-means-XXXXX.npy`` of shape ``(K+1, u_j, d)``, recorded in ``basis.json``
    (:func:`hyperclust.models.unidhc.hyperedge_basis_means` on one process).

    Parameters
    ----------
    operator : BlockOperator
    basis_dir : str or PathLike
        Written by :func:`write_power_basis`.

    Returns
    -------
    list of int
        ``u_j`` per hyperedge partition.

    Examples
    --------
    >>> import json, os, tempfile, numpy as np, distributed
    >>> from hyperclust import Hypergraph
    >>> from hyperclust.distributed import write_partitioned
    >>> from hyperclust.distributed.operator import propagation
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [3], [2, 3]])  # {3} has one member: left out
    >>> phg = write_partitioned(hg, tempfile.mkdtemp(), block_size=2, edge_block_size=3)
    >>> with distributed.Client(processes=False, n_workers=1, dashboard_address=":0") as c:
    ...     out = tempfile.mkdtemp()
    ...     P = propagation(phg, c)
    ...     _ = write_power_basis(P, np.arange(4.0)[:, None], 0, out)
    ...     counts = write_hyperedge_means(P, out)
    >>> counts, np.load(os.path.join(out, "edge-means-00000.npy")).ravel().tolist()
    ([2], [1.0, 2.5])
    """
    out = Path(basis_dir)
    info = json.loads((out / BASIS_MANIFEST).read_text(encoding="utf-8"))
    client, phg = operator.client, operator.partitioned
    n_orders = int(info["order"]) + 1
    rows = [client.submit(_basis_rows, str((out / f).resolve()), retries=RETRIES)
            for f in info["files"]]
    width = n_orders * int(np.load(out / info["files"][0], mmap_mode="r").shape[2])
    means = operator.hyperedge_means(rows, width)
    names = [f"edge-means-{j:05d}.npy" for j in range(len(means))]
    counts = client.gather([
        client.submit(_write_means, str((out / name).resolve()), phg.edge_block_path(j), E,
                      n_orders, np.dtype(info["dtype"]), retries=RETRIES, pure=False)
        for j, (name, E) in enumerate(zip(names, means))])
    info["edge_means"] = {"files": names, "counts": counts}
    (out / BASIS_MANIFEST).write_text(json.dumps(info, indent=1), encoding="utf-8")
    return counts


def _usable_count(edge_file) -> int:
    return int(np.count_nonzero(load_edge_block(edge_file)[1] >= 2))


def usable_edge_counts(phg, client) -> np.ndarray:
    """Hyperedges with at least 2 members per hyperedge partition.

    Parameters
    ----------
    phg : PartitionedHypergraph
    client : distributed.Client

    Returns
    -------
    ndarray of int64, shape (n_edge_partitions,)

    Examples
    --------
    >>> import tempfile, distributed
    >>> from hyperclust import Hypergraph
    >>> from hyperclust.distributed import write_partitioned
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [3], [2, 3]])
    >>> phg = write_partitioned(hg, tempfile.mkdtemp(), block_size=2, edge_block_size=2)
    >>> with distributed.Client(processes=False, n_workers=1, dashboard_address=":0") as c:
    ...     usable_edge_counts(phg, c).tolist()  # {3} has one member
    [1, 1]
    """
    return np.asarray(client.gather([
        client.submit(_usable_count, phg.edge_block_path(j), retries=RETRIES)
        for j in range(len(phg.edge_blocks))]), dtype=np.int64)


def _usable_columns(edge_file, local, first_edge):
    """Global ids and sizes of the partition's usable hyperedges ``local``."""
    sizes = load_edge_block(edge_file)[1]
    usable = np.flatnonzero(sizes >= 2)[local]
    return first_edge + usable, sizes[usable]


def _member_sums(block_path, rows, columns):
    """``H_b[:, columns]^T rows`` in float64, shape (len(columns), width)."""
    import scipy.sparse as sp

    indptr, indices, _ = load_node_block(block_path)
    if columns.size == 0 or indices.size == 0:
        return np.zeros((columns.size, rows.shape[1]))
    # a position table over the block's hyperedge id range (4 bytes per id, dropped after
    # the task): a gather per membership, a third of a binary search's CPU
    lo, hi = int(indices.min()), int(indices.max())
    table = np.full(hi - lo + 1, -1, dtype=np.int64 if columns.size >= 2**31 else np.int32)
    inside = columns[(columns >= lo) & (columns <= hi)]
    table[inside - lo] = np.searchsorted(columns, inside)
    at = table[indices - lo]
    hit = at >= 0
    members = np.repeat(np.arange(indptr.size - 1), np.diff(indptr))[hit]
    # only the member rows, in float64 (not the whole block)
    used, local = unique_inverse(members)
    pick = sp.csr_matrix((np.ones(members.size), (at[hit], local)),
                         shape=(columns.size, used.size))
    return np.asarray(pick @ rows[used].astype(np.float64))


def _total(*pieces):
    return np.sum(pieces, axis=0)


def sampled_hyperedge_means(phg, client, rows, counts, wanted, n_orders: int,
                            dtype=BASIS_DTYPE) -> np.ndarray:
    """The hyperedge means ``E[k] = De^-1 H^T B[k]`` of the hyperedges ``wanted`` only.

    Each row block sums its members from its basis rows in memory; the sums are divided here
    (float64, rounded to ``dtype``), as :class:`~hyperclust.models.array_batches.ArrayBatches`.

    Parameters
    ----------
    phg : PartitionedHypergraph
    client : distributed.Client
    rows : list of futures
        Basis rows ``(n_b, (K+1) d)`` per row block (``write_power_basis(..., return_rows=True)``).
    counts : ndarray of int, shape (n_edge_partitions,)
        :func:`usable_edge_counts`.
    wanted : ndarray of int, shape (r,)
        Sorted distinct indices among the usable hyperedges.
    n_orders : int
        ``K + 1``.
    dtype : float32 or float64

    Returns
    -------
    ndarray, shape (K+1, r, d)

    Examples
    --------
    >>> import tempfile, distributed
    >>> from hyperclust import Hypergraph
    >>> from hyperclust.distributed import write_partitioned
    >>> from hyperclust.distributed.operator import propagation
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [3], [2, 3]])
    >>> phg = write_partitioned(hg, tempfile.mkdtemp(), block_size=2, edge_block_size=2)
    >>> with distributed.Client(processes=False, n_workers=1, dashboard_address=":0") as c:
    ...     P = propagation(phg, c)
    ...     _, rows = write_power_basis(P, np.arange(4.0)[:, None], 0, tempfile.mkdtemp(),
    ...                                 return_rows=True)
    ...     counts = usable_edge_counts(phg, c)
    ...     means = sampled_hyperedge_means(phg, c, rows, counts, np.array([1]), 1)
    >>> means.shape, means.ravel().tolist()  # the second usable hyperedge, {2, 3}
    ((1, 1, 1), [2.5])
    """
    wanted = np.asarray(wanted, dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(counts)])
    cuts = np.searchsorted(wanted, starts)
    first = phg.edge_bounds
    parts = client.gather([
        client.submit(_usable_columns, phg.edge_block_path(j),
                      wanted[cuts[j]:cuts[j + 1]] - starts[j], int(first[j]), retries=RETRIES)
        for j in range(len(counts)) if cuts[j + 1] > cuts[j]])
    columns = np.concatenate([c for c, _ in parts]) if parts else np.zeros(0, np.int64)
    sizes = np.concatenate([z for _, z in parts]) if parts else np.zeros(0, np.int64)
    pieces = [client.submit(_member_sums, phg.block_path(b), r, columns, retries=RETRIES)
              for b, r in enumerate(rows)]
    total = client.submit(_total, *pieces, retries=RETRIES).result()
    means = (total / np.maximum(sizes, 1)[:, None]).astype(dtype)
    # the width from the sums, not -1: no hyperedge wanted leaves none
    return np.ascontiguousarray(
        means.reshape(wanted.size, n_orders, total.shape[1] // n_orders).transpose(1, 0, 2))
