"""The hyperedge exchange of a block operator's product, per worker rather than per block.

A product ``H diag(c) H^T (R X)`` sums, for every hyperedge, the contributions of the row
blocks holding its members. Here the row blocks a worker owns are summed on that worker
first, over the union ``U_wj`` of the rows of hyperedge partition ``j`` they touch; only the
rows some other worker also touches (``shared``) go to the partition's home worker, which
sums them, scales them by ``c_j`` and sends each worker back its shared rows. A row only
one worker touches (``private``) never leaves it, and row indices move once, when the plan
is made, not with every product. Against one piece per (block, partition) pair this moves
``sum_w |shared rows of w homed elsewhere|`` rows per phase instead of about half of
``sum_b |E_b|`` (two workers). Tasks per product: one phase-1 task per worker, one piece
and one slice per (worker, other home worker), one reduce per home worker, one task per
worker keeping apart what phase 2 reads of phase 1 (:func:`private_part`: the rest of
phase 1's result is freed before the last tasks run) and one last task per block
(``2 W^2 + W + B`` at most, plus ``W + 1`` for a rank-one term, against ``B + 2 P + J``
with ``P`` the touched (block, partition) pairs; 2 workers, 2 blocks: 15).

The plan depends on which worker owns which block (:class:`~.balance.BlockOwners`); a new
grouping makes a new plan. The order of the floating-point sums follows the grouping
(blocks in order within a worker, then workers in order), so a regrouping changes results
only by rounding.
"""

from __future__ import annotations

import numpy as np

from .deferred import resolve
from .partitioned import load_edge_scale
from ..operators.kernels import sparse_product

#: Internal: the block operator's exchange (distributed/operator.py), no public API.
__all__: list = []


class _Union:
    """The rows of each hyperedge partition that a worker's blocks touch (``rows[j]``,
    sorted, local to the partition) and each block's rows in them (``pos[i][j]``)."""

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
    """A partition homed on another worker: which union rows are shared (sent) and which
    private (reduced here, scaled by ``scale``); where each block's rows come from."""

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
    """What one worker keeps to run its part of every product (see the module docstring).

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
    """``(groups, unions)``: ``worker -> its row blocks`` (in block order, workers by first
    block) and ``worker -> future of the _Union of its blocks``."""
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
        ``worker -> list of its row blocks``, in block order, workers by first block.
    plans : dict
        ``worker -> future of its ExchangePlan``.
    shared_rows : dict
        ``(worker, j) -> future of the partition rows of the shared union rows``, on
        ``home[j]``, for the partitions homed elsewhere.
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
    """Phase 1 on one worker: ``{j: values}`` to reduce elsewhere or here, with
    ``("private", j)``: the finished rows no other worker touches, ``-1``: the column
    sums of ``R X`` (the rank-one term) and ``"input"``: the ``X`` blocks' width and dtype.
    ``pairs``: its blocks, then their ``X`` blocks."""
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
    """``({j: the worker's sums over the union rows of partition j}, {-1: column sums of
    R X, "input": (width, dtype)})`` of a worker's blocks and their ``X`` blocks
    (``pairs``: the blocks, then the ``X`` blocks; a deferred one, :mod:`~.deferred`, runs
    here)."""
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
    """Whether ``R_b X`` is ``X`` itself: ``R_b = 1`` and the product keeps ``X``'s
    dtype (``x * 1.0 == x``; the random walk's ``R``)."""
    return getattr(block, "right_is_one", False) and \
        np.result_type(block.right.dtype, X.dtype) == X.dtype


def private_part(down):
    """What phase 2 reads of a worker's phase-1 result: the finished private rows and
    ``"input"``, the width and dtype of its ``X`` blocks. Held apart so that the rest
    (every union row summed here, those sent) is freed once the reduces and the sends ran,
    before the product's last tasks."""
    return {key: v for key, v in down.items() if isinstance(key, tuple) or key == "input"}


def pick(down, js):
    """The values of partitions ``js`` (all homed on one other worker): what travels."""
    return {j: down[j] for j in js}


def reduce_home(parts):
    """Phase 1 reduce of every partition homed on one worker: ``{j: c_j * sum of its
    pieces}``. ``parts``: ``{j: (size, scale, pieces)}``, a piece ``(rows, values, j)``
    (``values[j]`` sent by another worker) or ``(plan, down, j)``: this worker's own union,
    whole."""
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
    """The ``(|E_b|, width)`` rows of ``diag(c) H^T R X`` block ``i`` of the worker needs,
    in its column order, gathered straight into one array: ``local`` ``{j: E_j}`` for
    partitions homed here, ``received`` a list of ``{j: shared rows}`` from the other home
    workers; a remote partition's rows come from its private rows and the received ones
    (indices past the private rows), with no stacked copy of the two."""
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
    """``out[:] = concatenate(sources)[idx]`` for one or two sources, without the
    concatenation."""
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
