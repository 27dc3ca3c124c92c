"""The hyperedge exchange of a block operator's product, per worker rather than per block:
shared rows go to their partition's home worker and back, private rows never leave
(docs/distributed.md, "The operator"). Sums follow the grouping's order.
"""

from __future__ import annotations

import numpy as np

from .deferred import resolve
from .partitioned import load_edge_scale
from ..operators.kernels import sparse_product

#: Internal: the block operator's exchange (distributed/operator.py), no public API.
__all__: list = []


class _Union:
    """The rows of each partition a worker's blocks touch (``rows[j]``), each block's in them."""

    def __init__(self, blocks):
        touched = sorted({int(j) for blk in blocks for j in blk.touched})
        self.rows, self.pos = {}, [{} for _ in blocks]
        for j in touched:
            mine = [(i, blk.edges[blk.cut[j]:blk.cut[j + 1]] - blk.edge_start[j])
                    for i, blk in enumerate(blocks) if blk.cut[j + 1] > blk.cut[j]]
            self.rows[j], inverse = np.unique(np.concatenate([r for _, r in mine]),
                                              return_inverse=True)
            ends = np.cumsum([r.size for _, r in mine])
            for (i, _), part in zip(mine, np.split(inverse.reshape(-1), ends[:-1])):
                self.pos[i][j] = part


class _Remote:
    """A partition homed on another worker: shared (sent) and private rows."""

    def __init__(self, union, j, shared_mask, edge_path, n_blocks):
        self.shared = np.flatnonzero(shared_mask)
        self.private = np.flatnonzero(~shared_mask)
        self.scale = load_edge_scale(edge_path)[union.rows[j][self.private]]
        # position of each union row in [private rows, shared rows] concatenated
        where = np.empty(shared_mask.size, dtype=np.int64)
        where[self.private] = np.arange(self.private.size)
        where[self.shared] = self.private.size + np.arange(self.shared.size)
        self.source = [where[union.pos[i][j]] if j in union.pos[i] else None
                       for i in range(n_blocks)]


class ExchangePlan:
    """What one worker keeps to run its part of every product.

    Attributes
    ----------
    union : _Union
    remote : dict
        ``j -> _Remote`` for the partitions homed on other workers.
    """

    def __init__(self, union, remote):
        self.union, self.remote = union, remote

    @property
    def nbytes(self) -> int:
        arrays = [*self.union.rows.values()] + [p for pos in self.union.pos
                                                for p in pos.values()]
        for r in self.remote.values():
            arrays += [r.shared, r.private, r.scale] + [s for s in r.source if s is not None]
        return int(sum(a.nbytes for a in arrays))


def register_sizeof():
    from dask.sizeof import sizeof

    sizeof.register(ExchangePlan)(lambda plan: plan.nbytes)
    sizeof.register(_Union)(lambda u: int(sum(r.nbytes for r in u.rows.values())))


def _union(*blocks):
    register_sizeof()
    return _Union(blocks)


def _rows_in(union, j):
    return union.rows[j]


def _touch_counts(size, *rows):
    """How many workers touch each row of a partition (each worker's rows are distinct)."""
    return np.bincount(np.concatenate(rows), minlength=size)


def _shared_mask(counts, rows):
    return counts[rows] > 1


def _masked(rows, mask):
    return rows[mask]


def _finish(union, n_blocks, remote_parts):
    """``remote_parts``: ``{j: (shared mask, edge block path)}``."""
    register_sizeof()  # on the worker, whose memory accounting stores the plan
    return ExchangePlan(union, {j: _Remote(union, j, mask, path, n_blocks)
                                for j, (mask, path) in remote_parts.items()})


def worker_unions(op, owners, on):
    """``(worker -> its row blocks, worker -> future of the _Union of its blocks)``."""
    groups = {}
    for b, w in enumerate(owners):
        groups.setdefault(w, []).append(b)
    return groups, {w: on(w, _union, *[op.blocks[b] for b in bs]) for w, bs in groups.items()}


def plan_exchange(op, owners, home, on):
    """Futures of the exchange plan for a grouping of the row blocks.

    Parameters
    ----------
    op : BlockOperator
    owners : list of str
        The worker owning each row block.
    home : list of str
        The worker reducing each hyperedge partition.
    on : callable
        ``on(worker, fn, *args)`` submits ``fn(*args)`` on ``worker``.

    Returns
    -------
    groups : dict
        ``worker -> list of its row blocks``.
    plans : dict
        ``worker -> future of its ExchangePlan``.
    shared_rows : dict
        ``(worker, j) -> future of the shared rows``, on ``home[j]``.
    """
    groups, unions = worker_unions(op, owners, on)
    touching = {}  # j -> workers whose blocks touch it
    for w, bs in groups.items():
        for j in sorted({int(j) for b in bs for j in op.touched[b]}):
            touching.setdefault(j, []).append(w)
    rows = {(w, j): on(w, _rows_in, unions[w], j) for j, ws in touching.items() for w in ws}
    masks, shared_rows = {}, {}
    for j, ws in touching.items():
        counts = on(home[j], _touch_counts, int(op._edge_sizes[j]), *[rows[w, j] for w in ws])
        for w in ws:
            if w != home[j]:
                masks[w, j] = on(home[j], _shared_mask, counts, rows[w, j])
                shared_rows[w, j] = on(home[j], _masked, rows[w, j], masks[w, j])
    paths = {j: op.partitioned.edge_block_path(j) for j in touching}
    plans = {w: on(w, _finish, unions[w], len(bs),
                   {j: (masks[w, j], paths[j]) for j in touching if (w, j) in masks})
             for w, bs in groups.items()}
    return groups, plans, shared_rows


def down_worker(plan, scaled, *pairs):
    """Phase 1 on one worker: ``{j: values}``, ``("private", j)``, ``-1`` and ``"input"``."""
    sums, out = union_sums(plan.union, scaled, pairs)
    for j, V in sums.items():
        remote = plan.remote.get(j)
        if remote is None:
            out[j] = V
        else:
            out[j] = V[remote.shared]
            private = V[remote.private]
            private *= remote.scale[:, None]  # in V's dtype
            out["private", j] = private
    return out


def union_sums(union, scaled, pairs):
    """``({j: sums over the union rows}, {-1: column sums of R X, "input": (width, dtype)})``."""
    blocks, Xs = pairs[:len(pairs) // 2], [resolve(X) for X in pairs[len(pairs) // 2:]]
    sums, rx_sum = {}, 0.0
    for i, (blk, X) in enumerate(zip(blocks, Xs)):
        RX = scaled_rows(blk, X, scaled)
        rx_sum = rx_sum + RX.sum(axis=0)
        Z = sparse_product(blk.Ht, RX, n_threads=1)
        for j in blk.touched:
            j = int(j)
            piece, pos = Z[blk.cut[j]:blk.cut[j + 1]], union.pos[i][j]
            if j not in sums and pos.size == union.rows[j].size:
                sums[j] = piece  # the block alone touches j here: its rows are the union's
                continue
            if j not in sums:
                sums[j] = np.zeros((union.rows[j].size, X.shape[1]), dtype=Z.dtype)
            sums[j][pos] += piece
    return sums, {-1: rx_sum, "input": (Xs[0].shape[1], Xs[0].dtype)}


def scaled_rows(block, X, scaled=True):
    """``R_b X`` (``X`` itself where ``scaled`` is False or ``R_b X`` is ``X``)."""
    return block.right[:, None] * X if scaled and not _times_one(block, X) else X


def _times_one(block, X):
    """Whether ``R_b X`` is ``X`` itself (``R_b = 1``, same dtype)."""
    return getattr(block, "right_is_one", False) and \
        np.result_type(block.right.dtype, X.dtype) == X.dtype


def private_part(down):
    """What phase 2 reads of phase 1 (private rows, ``"input"``), apart so the rest is freed."""
    return {key: v for key, v in down.items() if isinstance(key, tuple) or key == "input"}


def pick(down, js):
    """The values of partitions ``js`` (all homed on one other worker): what travels."""
    return {j: down[j] for j in js}


def reduce_home(parts):
    """Phase 1 reduce on a home worker: ``{j: c_j * sum of its pieces}``."""
    out = {}
    for j, (size, scale, pieces) in parts.items():
        E = None
        for first, values, jj in pieces:
            rows = first.union.rows[jj] if isinstance(first, ExchangePlan) else first
            if E is None:
                E = np.zeros((size, values[jj].shape[1]), dtype=values[jj].dtype)
                # 0 + v is v (but for the sign of a zero, which no product keeps): the
                # first piece is written, not added
                E[rows] = values[jj]
            else:
                E[rows] += values[jj]  # the rows of one piece are distinct
        E *= scale[:, None]  # in E's dtype
        out[j] = E
    return out


def slice_for(reduced, rows):
    """The shared rows one worker gets back: ``{j: E_j[rows[j]]}``."""
    return {j: reduced[j][r] for j, r in rows.items()}


def block_rows(plan, i, down, local, received, width):
    """The ``(|E_b|, width)`` rows of ``diag(c) H^T R X`` block ``i`` needs, in one array."""
    received = {j: rows for part in received for j, rows in part.items()}
    pieces = []
    for j in sorted(plan.union.pos[i]):
        if j in local:
            pieces.append(((local[j],), plan.union.rows[j][plan.union.pos[i][j]]))
        else:
            pieces.append(((down["private", j], received[j]), plan.remote[j].source[i]))
    dtype = np.result_type(*[a.dtype for p, _ in pieces for a in p]) if pieces \
        else np.float64
    G = np.empty((sum(idx.size for _, idx in pieces), width), dtype=dtype)
    lo = 0
    for sources, idx in pieces:
        _take_rows(sources, idx, G[lo:lo + idx.size])
        lo += idx.size
    return G


def _take_rows(sources, idx, out):
    """``out[:] = concatenate(sources)[idx]`` without the concatenation."""
    first = sources[0]
    # the plan's indices are in range: "clip" only spares numpy's buffered copy
    if len(sources) == 1 or sources[1].shape[0] == 0:
        np.take(first, idx, axis=0, out=out, mode="clip")
        return
    n_first = first.shape[0]
    np.take(sources[1], idx - n_first, axis=0, out=out, mode="clip")  # below 0: rewritten
    mine = idx < n_first
    if mine.any():
        out[mine] = first[idx[mine]]
