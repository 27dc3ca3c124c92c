"""The block operator's hyperedge exchange between two workers: each sends the other its
sums of the rows both touch and adds the two itself (docs/distributed.md, "The exchange on
two workers"). Results are bit for bit those of :mod:`~.exchange`.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..operators.kernels import sparse_product
from .deferred import resolve
from .exchange import (_rows_in, _shared_mask, _touch_counts, scaled_rows, union_sums,
                       worker_unions)
from .partitioned import load_edge_scale

#: Internal: the block operator's exchange (distributed/operator.py), no public API.
__all__: list = []

#: Workers up to which the block operator exchanges pairwise (see the module docstring).
PAIRWISE_WORKERS = 2

#: What the shared rows travel in (None: the sums' own dtype). Another one changes the
#: results (float32: half the bytes, sums rounded once); for studies only
#: (``benchmarks/studies/ahcka_exchange_dtype.py``), read on the driver at each product.
EXCHANGE_DTYPE = None

_CHUNK = 1 << 16  # shared rows summed at a time


class PairPlan:
    """What one worker keeps to run its part of every pairwise product.

    Attributes
    ----------
    union : exchange._Union or None
        The rows of each hyperedge partition the worker touches (None with a halo layout).
    shared, private : dict
        ``j -> positions in union.rows[j]`` of the rows the other worker also touches, and
        of the others.
    scale : dict
        ``j -> c_j`` at ``union.rows[j]``, float64.
    layout : HaloLayout or None
    """

    def __init__(self, union, shared, private, scale, layout=None):
        self.union, self.shared, self.private, self.scale = union, shared, private, scale
        self.layout = layout

    @property
    def nbytes(self) -> int:
        arrays = [*self.shared.values(), *self.private.values(), *self.scale.values()]
        if self.union is not None:
            arrays += [*self.union.rows.values()]
            arrays += [p for pos in self.union.pos for p in pos.values()]
        own = int(sum(a.nbytes for a in arrays))
        return own + (self.layout.nbytes if self.layout is not None else 0)

    def block_rows(self, i, down, received, width):
        """The ``(|E_b|, width)`` rows of ``diag(c) H^T R X`` that block ``i`` needs."""
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


class HaloLayout:
    """A worker's one row block with its hyperedges renumbered: shared rows first, then private.

    Attributes
    ----------
    Ht : scipy.sparse.csr_matrix, shape (|E_b|, n_b)
    H : scipy.sparse.csr_matrix, shape (n_b, |E_b|)
        Columns renumbered, each row's entries in stored order (same sums, same order).
    scale : ndarray, shape (|E_b|,)
    n_shared : int
        Rows that travel (the first ``n_shared``).
    """

    def __init__(self, Ht, H, scale, n_shared):
        self.Ht, self.H, self.scale, self.n_shared = Ht, H, scale, int(n_shared)

    @property
    def nbytes(self) -> int:
        arrays = (self.Ht.indices, self.Ht.indptr, self.H.indices, self.scale)
        return int(sum(a.nbytes for a in arrays))


def halo_layout(block, shared, scale):
    """The :class:`HaloLayout` of a worker's only block.

    Parameters
    ----------
    block : operator._NodeBlock
    shared : ndarray of bool, shape (|E_b|,)
        Whether the other worker also touches each hyperedge.
    scale : ndarray, shape (|E_b|,)
    """
    index = block.H.indices.dtype  # the renumbering in it: no temporary of 8 bytes an entry
    order = np.concatenate([np.flatnonzero(shared), np.flatnonzero(~shared)]).astype(index)
    where = np.empty_like(order)
    where[order] = np.arange(order.size, dtype=index)
    Ht = block.Ht[order]  # whole rows copied as stored
    if Ht.data.size == block.H.data.size and np.all(Ht.data == 1):
        Ht.data = block.H.data  # both all ones: the block's array, shared
    H = sp.csr_matrix((block.H.data, where[block.H.indices], block.H.indptr),
                      shape=block.H.shape)
    H.has_sorted_indices = False
    return HaloLayout(Ht, H, np.ascontiguousarray(scale[order]), int(shared.sum()))


def _register_sizeof():
    from dask.sizeof import sizeof

    sizeof.register(PairPlan)(lambda plan: plan.nbytes)


def _concat(arrays, dtype):
    """``np.concatenate(arrays)``, an empty array of ``dtype`` for no arrays."""
    return np.concatenate(arrays) if arrays else np.zeros(0, dtype=dtype)


def _finish(union, parts, *block):
    """The worker's :class:`PairPlan` (a halo layout alone where it holds one block)."""
    _register_sizeof()  # on the worker, whose memory accounting stores the plan
    scale = {j: load_edge_scale(path)[union.rows[j]] for j, (_, path) in parts.items()}
    if block:
        js = sorted(parts)
        masks = [np.zeros(union.rows[j].size, dtype=bool) if parts[j][0] is None
                 else parts[j][0] for j in js]
        return PairPlan(None, {}, {}, {}, halo_layout(
            block[0], _concat(masks, bool), _concat([scale[j] for j in js], np.float64)))
    shared, private = {}, {}
    for j, (mask, _) in parts.items():
        if mask is not None and mask.any():
            shared[j], private[j] = np.flatnonzero(mask), np.flatnonzero(~mask)
    return PairPlan(union, shared, private, scale)


def plan_pairs(op, owners, on):
    """Futures ``(groups, {worker: PairPlan})`` for a grouping on at most two workers."""
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
    one = all(len(bs) == 1 for bs in groups.values())
    plans = {w: on(w, _finish, unions[w],
                   {j: (masks.get((w, j)), op.partitioned.edge_block_path(j))
                    for j in touched[w]}, *([op.blocks[bs[0]]] if one else []))
             for w, bs in groups.items()}
    return groups, plans


def down_pairs(plan, scaled, column_sums, *pairs):
    """Phase 1 on one worker: its sums per partition, shared rows split from ``("private", j)``.

    ``-1``: the column sums of ``R X``; ``"input"``: width and dtype; with a halo layout
    the sums are one array under ``"layout"``.
    """
    if plan.layout is not None:
        return _down_layout(plan.layout, scaled, column_sums, *pairs)
    sums, out = union_sums(plan.union, scaled, pairs)
    for j, V in sums.items():
        if j in plan.shared:  # copies: the whole sums are freed when the task ends
            out[j], out["private", j] = V[plan.shared[j]], V[plan.private[j]]
        else:
            out[j] = V
    return out


def _down_layout(layout, scaled, column_sums, block, X):
    """:func:`down_pairs` of a worker's one block in its halo layout."""
    X = resolve(X)
    RX = scaled_rows(block, X, scaled)
    out = {"layout": sparse_product(layout.Ht, RX, n_threads=1),
           "input": (X.shape[1], X.dtype)}
    if column_sums:  # a pass over the block only the rank-one term reads
        out[-1] = 0.0 + RX.sum(axis=0)
    return out


def pair_rows(plan, i, down, received):
    """The rows block ``i`` reads (:meth:`PairPlan.block_rows`, or in the halo layout)."""
    if plan.layout is None:
        return plan.block_rows(i, down, received, down["input"][0])
    Z, lay, s = down["layout"], plan.layout, plan.layout.n_shared
    G = np.empty_like(Z)
    if s:
        np.add(Z[:s], received[0], out=G[:s])
        G[:s] *= lay.scale[:s, None]  # in G's dtype, as the other layouts scale
    np.multiply(Z[s:], lay.scale[s:, None], out=G[s:], casting="same_kind")
    return G


def shared_part(down, plan, dtype=None):
    """What travels to the other worker (views of ``down``), cast to ``dtype`` where given."""
    def cast(a):
        return a if dtype is None else a.astype(dtype, copy=False)

    if plan.layout is not None:
        return cast(down["layout"][:plan.layout.n_shared])
    return {j: cast(down[j]) for j in plan.shared}


def up_matrix(plan, block):
    """The incidence the last task multiplies the gathered rows by."""
    return block.H if plan.layout is None else plan.layout.H
