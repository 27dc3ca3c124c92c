"""Normalized hypergraph operators applied block by block on a Dask cluster.

Every operator is ``Y = diag(L) H diag(w/|e|) H^T diag(R) X + diag(g) X + t diag(L) 1 1^T
diag(R) X``, applied as two map-reduce phases (docs/distributed.md, "The operator").
"""

from __future__ import annotations

import numbers
import operator as _op

import numpy as np
import scipy.sparse as sp

from .._arrays import unique_inverse
from ..operators.base import safe_inverse
from ..operators.kernels import sparse_product
from ..operators.propagation import check_dtype
from ._tasks import RETRIES
from .balance import BlockOwners
from .deferred import resolve
from .exchange import (block_rows, down_worker, pick, plan_exchange, private_part,
                       reduce_home, scaled_rows, slice_for)
from .exchange import register_sizeof as _register_plan_sizeof
from . import pairwise as _pairwise
from .pairwise import down_pairs, pair_rows, plan_pairs, shared_part, up_matrix
from .pairwise import _register_sizeof as _register_pairs_sizeof
from .partitioned import PartitionedHypergraph, load_edge_block, load_edge_scale, load_node_block

__all__ = ["BlockOperator", "propagation", "normalized_affinity", "OPERATOR_KINDS"]

OPERATOR_KINDS = ("sym", "rw", "affinity")


class _NodeBlock:
    """What a worker keeps of row block ``b``: ``H_b`` on its hyperedges and its scalings."""

    def __init__(self, path, edge_bounds, kind, shift, adjoint, dtype=np.float64):
        indptr, indices, degrees = load_node_block(path)
        self.edges, cols = unique_inverse(indices)
        self.H = sp.csr_matrix((np.ones(indices.size, dtype=dtype), cols.reshape(-1), indptr),
                               shape=(indptr.size - 1, self.edges.size))
        self.Ht = self.H.T.tocsr()
        if self.Ht.data.size == self.H.data.size and np.all(self.Ht.data == 1):
            self.Ht.data = self.H.data  # both all ones: one array (neither is ever written)
        dv = degrees + shift
        left = safe_inverse(dv) if kind == "rw" else np.sqrt(safe_inverse(dv))
        right = np.ones_like(dv) if kind == "rw" else left
        if adjoint:
            left, right = right, left
        self.left, self.right = left.astype(dtype), right.astype(dtype)
        self.right_is_one = bool(np.all(self.right == 1))
        self.diag = ((0.0 if kind == "affinity" else shift) * left * right).astype(dtype)
        # rows of self.edges in each hyperedge partition: [cut[j], cut[j + 1])
        self.cut = np.searchsorted(self.edges, edge_bounds)
        self.touched = np.flatnonzero(np.diff(self.cut) > 0)
        self.edge_start = np.asarray(edge_bounds)[:-1]

    @property
    def n_rows(self):
        return self.H.shape[0]

    @property
    def nbytes(self) -> int:
        """Bytes held (what Dask's memory accounting is told)."""
        arrays = (self.edges, self.H.data, self.H.indices, self.H.indptr, self.Ht.data,
                  self.Ht.indices, self.Ht.indptr, self.left, self.right, self.cut,
                  self.touched, self.edge_start, np.asarray(self.diag))
        return int(sum(a.nbytes for a in {id(a): a for a in arrays}.values()))


def _register_sizeof():
    from dask.sizeof import sizeof

    sizeof.register(_NodeBlock)(lambda block: block.nbytes)


def _load_node(path, edge_bounds, kind, shift, adjoint, dtype):
    _register_sizeof()  # on the worker, whose memory accounting stores the block
    return _NodeBlock(path, edge_bounds, kind, shift, adjoint, dtype)


def _touched(block):
    return block.touched


def _load_inverse_sizes(path):
    return safe_inverse(load_edge_block(path)[1].astype(np.float64))


def _down(block, X, scaled=True):
    """Phase 1 map: ``{j: (rows, H_b^T R_b X_b rows)}``, and ``R_b^T X_b`` under key -1."""
    RX = scaled_rows(block, X, scaled)
    Z = sparse_product(block.Ht, RX, n_threads=1)
    pieces = {int(j): (block.edges[block.cut[j]:block.cut[j + 1]] - block.edge_start[j],
                       Z[block.cut[j]:block.cut[j + 1]]) for j in block.touched}
    pieces[-1] = RX.sum(axis=0)
    return pieces


def _sum_edges(size, scale, j, *pieces):
    """Phase 1 reduce: rows ``c_j * sum_b (H_b^T R_b X_b)_j`` of hyperedge partition ``j``."""
    pieces = [p[j] if isinstance(p, dict) else p for p in pieces]
    E = np.zeros((size, pieces[0][1].shape[1]), dtype=pieces[0][1].dtype)
    for rows, Z in pieces:
        E[rows] += Z  # rows of one piece are distinct hyperedges
    E *= scale[:, None]  # in E's dtype
    return E


def _up_block(block, X, plan, i, down, local, received, t_sum, t, then):
    """Phase 2: ``Y = L_b H_b E[E_b] + g_b X_b (+ t L_b sum_b R_b^T X_b)``, then ``then(Y, X)``."""
    width, dtype = down["input"]
    G = block_rows(plan, i, down, local, received, width)
    Y = _rows_product(block, G, width, dtype)
    del G  # the gathered rows (the task's largest array) go before the fused step runs
    return _finish_up(block, X, Y, t_sum, t, then)


def _up_rows(block, X, G, t_sum, t, then, plan):
    """Phase 2 from the gathered rows ``G`` (:func:`~.pairwise.pair_rows`)."""
    Y = _rows_product(block, G, G.shape[1], G.dtype, up_matrix(plan, block))
    return _finish_up(block, X, Y, t_sum, t, then)


def _rows_product(block, G, width, dtype, H=None):
    """``diag(left) H G``, ``H`` the block's ``H_b`` numbered as ``G``'s rows."""
    if not G.shape[0]:
        return np.zeros((block.n_rows, width), dtype=dtype)
    Y = sparse_product(block.H if H is None else H, G, n_threads=1)
    Y *= block.left[:, None]  # in place: the same products, one block fewer
    return Y


def _finish_up(block, X, Y, t_sum, t, then):
    X = resolve(X)  # a deferred input block (:mod:`.deferred`), run again where read here
    if np.any(block.diag):
        Y += block.diag[:, None] * X
    if t:
        Y += t * block.left[:, None] * t_sum[None, :]
    return Y if then is None else then[0](Y, X, *then[1:])


def ignores_input(fn):
    """Mark a ``then`` step of :meth:`BlockOperator.apply` that never reads the input block
    (the last task then does not take it, so workers free it early).
    """
    fn.reads_input = False
    return fn


def reads_input(step) -> bool:
    return step is not None and getattr(step[0], "reads_input", True)


def _add(*xs):
    return np.sum(xs, axis=0)


class BlockOperator:
    """A normalized hypergraph operator whose row blocks live on Dask workers.

    Make one with :func:`propagation` or :func:`normalized_affinity`. Blocks of ``X`` and of
    the result are lists of futures, one ``(n_b, d)`` array per row block.

    Parameters
    ----------
    partitioned : PartitionedHypergraph or path
    client : dask.distributed.Client
    kind : {"sym", "rw", "affinity"}
    shift : float
        Self-loop weight ``s`` (``"sym"``/``"rw"``) or regularization ``tau`` (``"affinity"``).
    adjoint : bool, default False
        Apply the transpose (differs only for ``"rw"``).
    dtype : {float64, float32}, default float64
        Of the stored blocks and scalings, hence of the products and the rows exchanged.

    Attributes
    ----------
    shape : tuple of int, (n, n)
    bounds : ndarray of int, shape (n_blocks + 1,)
    n_products : int
        Products submitted so far.

    Examples
    --------
    The random-walk propagation operator is row-stochastic: it maps ones to ones.

    >>> import tempfile, numpy as np, distributed
    >>> from hyperclust import Hypergraph
    >>> from hyperclust.distributed import write_partitioned
    >>> from hyperclust.distributed.linalg import gather_blocks, scatter_blocks
    >>> phg = write_partitioned(Hypergraph.from_edges([[0, 1, 2], [2, 3]]), tempfile.mkdtemp(),
    ...                         block_size=2)
    >>> with distributed.Client(processes=False, n_workers=1, dashboard_address=":0") as c:
    ...     P = BlockOperator(phg, c, kind="rw")
    ...     Y = gather_blocks(c, P.apply(scatter_blocks(c, np.ones((4, 1)), P.bounds)))
    >>> Y.ravel().tolist(), P.shape, P.n_products
    ([1.0, 1.0, 1.0, 1.0], (4, 4), 1)
    """

    def __init__(self, partitioned, client, kind="sym", shift=1.0, adjoint=False,
                 dtype=np.float64):
        if kind not in OPERATOR_KINDS:
            raise ValueError(f"kind must be one of {OPERATOR_KINDS}, got {kind!r}")
        if isinstance(shift, bool) or not isinstance(shift, numbers.Real) or \
                not np.isfinite(shift) or shift < 0:
            raise ValueError(f"the self-loop weight / regularization must be a non-negative "
                             f"float, got {shift!r}")
        _register_sizeof()
        _register_plan_sizeof()
        _register_pairs_sizeof()
        self.partitioned = partitioned if isinstance(partitioned, PartitionedHypergraph) \
            else PartitionedHypergraph(partitioned)
        phg = self.partitioned
        self.client = client
        self.kind, self.shift, self.adjoint = kind, float(shift), bool(adjoint)
        self.dtype = check_dtype(dtype)
        self.shape = (phg.n_nodes, phg.n_nodes)
        self.bounds = phg.block_bounds
        ebounds = phg.edge_bounds
        self._edge_sizes = np.diff(ebounds)
        self.rank_one = self.shift / phg.n_nodes if kind == "affinity" else 0.0
        # contiguous runs of blocks per worker (sorted addresses): the grouping, hence the
        # order of the exchange's sums, is the same on every cluster of as many workers
        workers = sorted(client.scheduler_info(n_workers=-1)["workers"]) or [None]
        first = [workers[b * len(workers) // phg.n_blocks] for b in range(phg.n_blocks)]
        self.blocks = [_on(client, w, _load_node, phg.block_path(b), ebounds, kind, self.shift,
                           self.adjoint, self.dtype) for b, w in enumerate(first)]
        self.edge_scales = [client.submit(load_edge_scale, phg.edge_block_path(j),
                                          retries=RETRIES)
                            for j in range(len(phg.edge_blocks))]
        self.touched = client.gather([client.submit(_touched, blk) for blk in self.blocks])
        # the owners start from that grouping even where the scheduler ran a load elsewhere
        self.owners = BlockOwners(client, self.blocks, initial=None if None in first else first)
        self._plan = None
        self._rows_futures = None
        self.n_products = 0

    @property
    def n_blocks(self):
        return len(self.blocks)

    @property
    def _rows(self):
        """Futures ``[b][j]`` of each block's rows per hyperedge partition, made on first use."""
        if self._rows_futures is None:
            c = self.client
            self._rows_futures = [{int(j): c.submit(_rows_of, blk, int(j), retries=RETRIES)
                                   for j in touched}
                                  for blk, touched in zip(self.blocks, self.touched)]
        return self._rows_futures

    def apply(self, X_blocks, then=None):
        """Futures of ``Op @ X``, one per row block (nothing is computed here).

        ``then``: optional ``(fn, *args)``, or a list of them per block: the block result is
        ``fn(Op X_b, X_b, *args)``, fused into the product's last task. Deferred ``X`` blocks
        (:mod:`.deferred`) run in the tasks.
        """
        c, owners = self.client, self.owners()
        home = self._homes(owners)
        groups, plans, shared_rows = self._exchange_plan(owners, home)
        if shared_rows is None:
            return self._apply_pairwise(X_blocks, then, groups, plans)
        down, by_home, parts = {}, {}, {}
        for w, bs in groups.items():
            down[w] = _on(c, w, down_worker, plans[w], True, *[self.blocks[b] for b in bs],
                          *[X_blocks[b] for b in bs])
            by_home[w] = {}
            for j in self._touched_by(bs):
                by_home[w].setdefault(home[j], []).append(j)
            for h, js in by_home[w].items():  # one piece per (worker, home worker)
                sent = down[w] if h == w else _on(c, w, pick, down[w], js)
                for j in js:
                    parts.setdefault(h, {}).setdefault(j, []).append(
                        (plans[w] if h == w else shared_rows[w, j], sent, j))
        reduced = {h: _on(c, h, reduce_home, {j: (int(self._edge_sizes[j]), self.edge_scales[j],
                                                  pieces) for j, pieces in ps.items()})
                   for h, ps in parts.items()}
        received = {w: [_on(c, h, slice_for, reduced[h], {j: shared_rows[w, j] for j in js})
                        for h, js in by_home[w].items() if h != w] for w in groups}
        private = {w: _on(c, w, private_part, down[w]) for w in groups}
        return self._up(X_blocks, then, groups, plans, down, private, reduced, received)

    def _apply_pairwise(self, X_blocks, then, groups, plans):
        """:meth:`apply` by the pairwise exchange (:mod:`.pairwise`)."""
        c = self.client
        down = {w: _on(c, w, down_pairs, plans[w], True, bool(self.rank_one),
                       *[self.blocks[b] for b in bs], *[X_blocks[b] for b in bs])
                for w, bs in groups.items()}
        sent = {w: _on(c, w, shared_part, down[w], plans[w], _pairwise.EXCHANGE_DTYPE)
                for w in groups} if len(groups) > 1 else {}
        # the rows a block reads gathered in a task of their own: the last task (and its
        # fused local QR) then holds them, not both workers' sums
        rows = {b: _on(c, w, pair_rows, plans[w], i, down[w], [sent[v] for v in sent if v != w])
                for w, bs in groups.items() for i, b in enumerate(bs)}
        return self._up(X_blocks, then, groups, plans, down, rows=rows)

    def _up(self, X_blocks, then, groups, plans, down, phase1=None, reduced=None,
            received=None, rows=None):
        """The product's last task per block (phase 2), fed by the exchange's futures."""
        c, t_sum = self.client, None
        if self.rank_one:
            t_sum = c.submit(_add, *[c.submit(_op.getitem, d, -1, retries=RETRIES, pure=False)
                                     for d in down.values()], retries=RETRIES, pure=False)
        out = [None] * self.n_blocks
        has_diag = self.kind != "affinity" and self.shift != 0
        for w, bs in groups.items():
            for i, b in enumerate(bs):
                step = then[b] if isinstance(then, list) else then
                X = X_blocks[b] if has_diag or reads_input(step) else None
                if rows is not None:
                    out[b] = _on(c, w, _up_rows, self.blocks[b], X, rows[b], t_sum,
                                 self.rank_one, step, plans[w])
                    continue
                out[b] = _on(c, w, _up_block, self.blocks[b], X, plans[w], i, phase1[w],
                             reduced.get(w, {}), received[w], t_sum, self.rank_one, step)
        self.n_products += 1
        return out

    def block_groups(self):
        """The row blocks of each worker, in block order, as the next product groups them."""
        owners = self.owners()
        return list(self._exchange_plan(owners, self._homes(owners))[0].values())

    def _homes(self, owners):
        """The worker reducing each hyperedge partition: the owner of row block ``j``."""
        J, B = len(self.edge_scales), self.n_blocks
        return [owners[min(j * B // J, B - 1)] for j in range(J)]

    def _touched_by(self, blocks):
        return sorted({int(j) for b in blocks for j in self.touched[b]})

    def _exchange_plan(self, owners, home):
        """``(groups, plans, shared rows or None for pairwise)`` of a grouping, made once."""
        if self._plan is None or self._plan[0] != owners:
            on = lambda w, fn, *a: _on(self.client, w, fn, *a)  # noqa: E731
            if len(set(owners)) <= _pairwise.PAIRWISE_WORKERS:
                plan = (*plan_pairs(self, owners, on), None)
            else:
                plan = plan_exchange(self, owners, home, on)
            self._plan = (list(owners), plan)
        return self._plan[1]

    def hyperedge_means(self, X_blocks, width: int):
        """Futures of ``De^-1 H^T X`` (unweighted; 0 if empty), ``(m_j, width)`` per partition.

        Examples
        --------
        >>> import tempfile, numpy as np, distributed
        >>> from hyperclust import Hypergraph
        >>> from hyperclust.distributed import write_partitioned
        >>> from hyperclust.distributed.linalg import scatter_blocks
        >>> phg = write_partitioned(Hypergraph.from_edges([[0, 1, 2], [2, 3]]),
        ...                         tempfile.mkdtemp(), block_size=2)
        >>> with distributed.Client(processes=False, n_workers=1, dashboard_address=":0") as c:
        ...     P = BlockOperator(phg, c)
        ...     X = scatter_blocks(c, np.arange(4.0)[:, None], P.bounds)
        ...     means = c.gather(P.hyperedge_means(X, 1))
        >>> np.concatenate(means).ravel().tolist()  # (0 + 1 + 2) / 3, (2 + 3) / 2
        [1.0, 2.5]
        """
        c, owners = self.client, self.owners()
        sub = lambda fn, *a: c.submit(fn, *a, retries=RETRIES, pure=False)  # noqa: E731
        down = [_on(c, w, _down, blk, X, False)
                for w, blk, X in zip(owners, self.blocks, X_blocks)]
        pieces_of = {}
        for b, res in enumerate(down):
            for j in self.touched[b]:
                pieces_of.setdefault(int(j), []).append(res)
        phg = self.partitioned
        out = []
        for j in range(len(self.edge_scales)):
            if j in pieces_of:
                inverse = sub(_load_inverse_sizes, phg.edge_block_path(j))
                out.append(sub(_sum_edges, int(self._edge_sizes[j]), inverse, j,
                               *pieces_of[j]))
            else:
                out.append(sub(np.zeros, (int(self._edge_sizes[j]), int(width)), self.dtype))
        return out


def _on(client, worker, fn, *args):
    """``fn(*args)`` on ``worker`` while it runs (loose restriction; None: anywhere)."""
    where = {} if worker is None else {"workers": [worker], "allow_other_workers": True}
    return client.submit(fn, *args, retries=RETRIES, pure=False, **where)


def _rows_of(block, j):
    return block.edges[block.cut[j]:block.cut[j + 1]] - block.edge_start[j]


def propagation(partitioned, client, self_loops=1.0, kind="sym", adjoint=False,
                dtype=np.float64):
    """The propagation operator of :class:`~hyperclust.operators.propagation.PropagationOperator`.

    Parameters
    ----------
    partitioned : PartitionedHypergraph or path
    client : dask.distributed.Client
    self_loops : float, default 1.0
    kind : {"sym", "rw"}
    adjoint : bool, default False
    dtype : {float64, float32}, default float64

    Returns
    -------
    BlockOperator, shape (n, n)

    Examples
    --------
    See :func:`hyperclust.distributed.linalg.scatter_blocks`.
    """
    if kind not in ("sym", "rw"):
        raise ValueError(f"kind must be 'sym' or 'rw', got {kind!r}")
    return BlockOperator(partitioned, client, kind=kind, shift=self_loops, adjoint=adjoint,
                         dtype=dtype)


def normalized_affinity(partitioned, client, tau=0.0):
    """Zhou's regularized normalized affinity on a cluster.

    :class:`~hyperclust.operators.eigensolvers.NormalizedAffinity` of ``H W De^-1 H^T``.

    Parameters
    ----------
    partitioned : PartitionedHypergraph or path
    client : dask.distributed.Client
    tau : float, default 0.0
        Weight of the rank-one term ``(tau / n) 1 1^T``.

    Returns
    -------
    BlockOperator, shape (n, n)

    Examples
    --------
    With ``tau = 0``, ``sqrt(Dv)`` (here ``sqrt([1, 1, 2, 1])``) is a fixed point:

    >>> import tempfile, numpy as np, distributed
    >>> from hyperclust import Hypergraph
    >>> from hyperclust.distributed import write_partitioned
    >>> from hyperclust.distributed.linalg import gather_blocks, scatter_blocks
    >>> phg = write_partitioned(Hypergraph.from_edges([[0, 1, 2], [2, 3]]), tempfile.mkdtemp(),
    ...                         block_size=2)
    >>> with distributed.Client(processes=False, n_workers=1, dashboard_address=":0") as c:
    ...     N = normalized_affinity(phg, c)
    ...     s = np.sqrt([[1.0], [1.0], [2.0], [1.0]])
    ...     Y = gather_blocks(c, N.apply(scatter_blocks(c, s, N.bounds)))
    >>> bool(np.allclose(Y, s))
    True
    """
    return BlockOperator(partitioned, client, kind="affinity", shift=tau)
