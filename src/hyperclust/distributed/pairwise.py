"""The block operator's hyperedge exchange between two workers: each sends the other its
sums of the rows both touch, and each adds the two itself.

With two workers every hyperedge row touched by more than one worker is touched by both,
so the home-worker exchange (:mod:`~.exchange`) moves each shared row twice (to the home
and back), and so does this one (once each way). What it saves is the middle: no reduce
on a home worker, no slice sent back, one round trip instead of two. Tasks per product:
one phase-1 task per worker, one task per worker naming its shared rows (what travels),
one per block gathering the rows it reads and one last task per block (``2 W + 2 B``: 8
for 2 workers holding one block each, against 12 for :mod:`~.exchange`). The gathering
task is apart so that the last task, with the local QR fused into it, holds the block's
rows but neither worker's sums.

A shared row is ``(v_0 + v_1) c_j`` on both workers, ``v_w`` the sums of worker ``w``'s
blocks: the home exchange's sum and scaling (its first piece written, the second added,
then ``E *= c``), bit for bit (floating-point addition commutes). With more workers a row
touched by ``t`` of them would travel ``t (t - 1)`` times here against ``2 (t - 1)`` by a
home worker, so the block operator uses this exchange only up to
:data:`PAIRWISE_WORKERS` workers.
"""

from __future__ import annotations

import numpy as np

from .exchange import _rows_in, _shared_mask, _touch_counts, union_sums, worker_unions
from .partitioned import load_edge_scale

#: Internal: the block operator's exchange (distributed/operator.py), no public API.
__all__: list = []

#: Workers up to which the block operator exchanges pairwise (see the module docstring).
PAIRWISE_WORKERS = 2

_CHUNK = 1 << 16  # shared rows summed at a time


class PairPlan:
    """What one worker keeps to run its part of every pairwise product.

    Attributes
    ----------
    union : exchange._Union
        The rows of each hyperedge partition the worker's blocks touch.
    shared, private : dict
        ``j -> positions in union.rows[j]`` of the rows the other worker also touches
        (increasing, hence in the order the other worker sends them), and of the others;
        ``shared`` only for partitions with such rows.
    scale : dict
        ``j -> c_j`` at ``union.rows[j]``, float64.
    """

    def __init__(self, union, shared, private, scale):
        self.union, self.shared, self.private, self.scale = union, shared, private, scale

    @property
    def nbytes(self) -> int:
        arrays = [*self.union.rows.values(), *self.shared.values(), *self.private.values(),
                  *self.scale.values()]
        arrays += [p for pos in self.union.pos for p in pos.values()]
        return int(sum(a.nbytes for a in arrays))

    def block_rows(self, i, down, received, width):
        """The ``(|E_b|, width)`` rows of ``diag(c) H^T R X`` block ``i`` of the worker
        needs, in its column order: its own sums (``down``), plus the other worker's at
        the shared rows (``received``: a list of ``{j: rows}``), scaled by ``c_j``."""
        got = {j: rows for part in received for j, rows in part.items()}
        js = sorted(self.union.pos[i])
        dtype = np.result_type(*[down[j].dtype for j in js]) if js else down["input"][1]
        G = np.empty((sum(self.union.pos[i][j].size for j in js), width), dtype=dtype)
        lo = 0
        for j in js:
            pos = self.union.pos[i][j]
            # the block alone touches j on this worker: its rows are the union's, in order
            whole = pos.size == self.union.rows[j].size
            E = G[lo:lo + pos.size] if whole else np.empty((self.union.rows[j].size, width),
                                                           dtype=dtype)
            if j in self.shared:
                E[self.private[j]] = down["private", j]
                sh = self.shared[j]
                for at in range(0, sh.size, _CHUNK):  # a small temporary at a time
                    part = slice(at, at + _CHUNK)
                    E[sh[part]] = down[j][part] + got[j][part]
            else:
                E[...] = down[j]
            E *= self.scale[j][:, None]  # in E's dtype, as the home exchange scales
            if not whole:
                np.take(E, pos, axis=0, out=G[lo:lo + pos.size], mode="clip")
            lo += pos.size
        return G


def _register_sizeof():
    from dask.sizeof import sizeof

    sizeof.register(PairPlan)(lambda plan: plan.nbytes)


def _finish(union, parts):
    """``parts``: ``{j: (shared mask or None, edge block path)}``."""
    _register_sizeof()  # on the worker, whose memory accounting stores the plan
    shared, private, scale = {}, {}, {}
    for j, (mask, path) in parts.items():
        scale[j] = load_edge_scale(path)[union.rows[j]]
        if mask is not None and mask.any():
            shared[j], private[j] = np.flatnonzero(mask), np.flatnonzero(~mask)
    return PairPlan(union, shared, private, scale)


def plan_pairs(op, owners, on):
    """Futures of the pairwise plan for a grouping of the row blocks on at most two
    workers: ``(groups, plans)``, ``worker -> future of its PairPlan`` (the arguments and
    ``groups`` as in :func:`~.exchange.plan_exchange`)."""
    groups, unions = worker_unions(op, owners, on)
    touched = {w: sorted({int(j) for b in bs for j in op.touched[b]})
               for w, bs in groups.items()}
    masks = {}
    for j in sorted({j for js in touched.values() for j in js}):
        ws = [w for w in groups if j in touched[w]]
        if len(ws) < 2:
            continue
        rows = {w: on(w, _rows_in, unions[w], j) for w in ws}
        counts = on(ws[0], _touch_counts, int(op._edge_sizes[j]), *rows.values())
        for w in ws:
            masks[w, j] = on(w, _shared_mask, counts, rows[w])
    plans = {w: on(w, _finish, unions[w],
                   {j: (masks.get((w, j)), op.partitioned.edge_block_path(j))
                    for j in touched[w]})
             for w in groups}
    return groups, plans


def down_pairs(plan, scaled, *pairs):
    """Phase 1 on one worker: ``{j: its sums over union.rows[j]}``, those of a
    partition with shared rows split into ``j``: the shared rows (what travels) and
    ``("private", j)``: the others; ``-1``: the column sums of ``R X`` (the rank-one term)
    and ``"input"``: the ``X`` blocks' width and dtype. ``pairs``: its blocks, then their
    ``X`` blocks."""
    sums, out = union_sums(plan.union, scaled, pairs)
    for j, V in sums.items():
        if j in plan.shared:  # copies: the whole sums are freed when the task ends
            out[j], out["private", j] = V[plan.shared[j]], V[plan.private[j]]
        else:
            out[j] = V
    return out


def pair_rows(plan, i, down, received):
    """The rows block ``i`` of the worker reads (:meth:`PairPlan.block_rows`)."""
    return plan.block_rows(i, down, received, down["input"][0])


def shared_part(down, plan):
    """What travels to the other worker: ``{j: its sums at the shared rows}`` (the
    arrays of ``down``, not copies)."""
    return {j: down[j] for j in plan.shared}
