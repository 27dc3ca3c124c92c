"""The pairwise exchange's halo layout (hyperclust.distributed.pairwise.HaloLayout): the
shared hyperedge rows first, in the order both workers share, and the product's bits
those of the block's own numbering. The exchange's tasks run here in one process (no
cluster): the plan's ``on`` calls the function."""

import numpy as np
import pytest

from hyperclust import Hypergraph
from hyperclust.operators.eigensolvers import NormalizedAffinity
from hyperclust.operators.laplacians import ZhouLaplacian
from hyperclust.operators.propagation import PropagationOperator

pytest.importorskip("distributed")

from hyperclust.distributed import pairwise, write_partitioned  # noqa: E402
from hyperclust.distributed.operator import _add, _load_node, _touched, _up_rows  # noqa: E402


class _Op:
    """What plan_pairs reads of a block operator."""

    def __init__(self, phg, blocks):
        self.partitioned, self.blocks = phg, blocks
        self.touched = [_touched(b) for b in blocks]
        self._edge_sizes = np.diff(phg.edge_bounds)


def _product(phg, X, kind, shift, adjoint, dtype, layout):
    """The pairwise product on one worker per block, in this process; ``layout=False``
    plans without halo layouts (the block's own numbering)."""
    blocks = [_load_node(phg.block_path(b), phg.edge_bounds, kind, shift, adjoint, dtype)
              for b in range(phg.n_blocks)]
    owners = [f"w{b}" for b in range(phg.n_blocks)]

    def on(w, fn, *args):  # without the block, _finish makes the plan of several blocks
        return fn(*args[:2]) if fn is pairwise._finish and not layout else fn(*args)

    groups, plans = pairwise.plan_pairs(_Op(phg, blocks), owners, on)
    bounds, t = phg.block_bounds, shift / phg.n_nodes if kind == "affinity" else 0.0
    Xs = [X[bounds[b]:bounds[b + 1]] for b in range(phg.n_blocks)]
    down = {w: pairwise.down_pairs(plans[w], True, bool(t), blocks[bs[0]], Xs[bs[0]])
            for w, bs in groups.items()}
    sent = {w: pairwise.shared_part(down[w], plans[w]) for w in groups}
    t_sum = _add(*[d[-1] for d in down.values()]) if t else None
    out = []
    for w, (b,) in groups.items():
        G = pairwise.pair_rows(plans[w], 0, down[w], [sent[v] for v in sent if v != w])
        out.append(_up_rows(blocks[b], Xs[b], G, t_sum, t, None, plans[w]))
    return np.concatenate(out), plans, sent


def _hypergraph(tmp_path, n=60, seed=0):
    rng = np.random.default_rng(seed)
    edges = [list(rng.choice(n - 3, size=rng.integers(1, 6), replace=False))
             for _ in range(45)]  # the last 3 nodes in no hyperedge
    hg = Hypergraph.from_edges(edges, n_nodes=n)
    return hg, write_partitioned(hg, tmp_path / "p", block_size=n // 2, edge_block_size=13)


@pytest.mark.parametrize("kind, shift, adjoint, dtype", [
    ("rw", 0.0, False, np.float64), ("rw", 0.0, True, np.float64),
    ("sym", 1.0, False, np.float32), ("affinity", 2.0, False, np.float64)])
def test_layout_products_are_the_blocks_own_bit_for_bit(tmp_path, kind, shift, adjoint,
                                                        dtype):
    hg, phg = _hypergraph(tmp_path)
    X = np.random.default_rng(1).normal(size=(hg.n_nodes, 3)).astype(dtype)
    got, plans, _ = _product(phg, X, kind, shift, adjoint, dtype, layout=True)
    want, _, _ = _product(phg, X, kind, shift, adjoint, dtype, layout=False)
    assert all(p.layout is not None and p.union is None for p in plans.values())
    assert got.dtype == dtype and np.array_equal(got, want)
    ref = NormalizedAffinity(*ZhouLaplacian(hg, kind="unnormalized").affinity(), shift) \
        if kind == "affinity" else PropagationOperator(hg, self_loops=shift, kind=kind)
    dense = (ref.T if adjoint else ref) @ X.astype(np.float64)
    assert np.allclose(got, dense, rtol=0, atol=1e-5 if dtype == np.float32 else 1e-12)


def test_shared_rows_come_first_in_the_order_both_workers_share(tmp_path):
    hg, phg = _hypergraph(tmp_path, seed=2)
    X = np.random.default_rng(3).normal(size=(hg.n_nodes, 2))
    _, plans, sent = _product(phg, X, "rw", 0.0, False, np.float64, layout=True)
    H = hg.incidence
    touched = [set(H[lo:hi].indices) for lo, hi in zip(phg.block_bounds[:-1],
                                                       phg.block_bounds[1:])]
    both = sorted(touched[0] & touched[1])
    for w, plan in plans.items():
        lay = plan.layout
        assert lay.n_shared == len(both) == sent[w].shape[0]
        # the layout's rows are the block's hyperedges: shared ones first, increasing
        edges = np.asarray(sorted(touched[int(w[1:])]))
        order = np.concatenate([np.searchsorted(edges, both),
                                np.flatnonzero(~np.isin(edges, both))])
        block = _load_node(phg.block_path(int(w[1:])), phg.edge_bounds, "rw", 0.0, False,
                           np.float64)
        assert np.array_equal(lay.Ht.toarray(), block.Ht.toarray()[order])
        assert np.array_equal(lay.H.toarray()[:, np.argsort(order)], block.H.toarray())
    # what one worker sends is the other's sums at the same hyperedges
    assert sent["w0"].shape == sent["w1"].shape


def test_one_worker_sends_nothing_and_a_block_without_hyperedges_gives_zeros(tmp_path):
    hg = Hypergraph.from_edges([[0, 1], [1, 2]], n_nodes=6)  # nodes 3-5 in no hyperedge
    phg = write_partitioned(hg, tmp_path / "p", block_size=3)
    X = np.arange(12.0).reshape(6, 2)
    got, plans, sent = _product(phg, X, "rw", 0.0, False, np.float64, layout=True)
    assert plans["w1"].layout.n_shared == 0 and sent["w0"].shape == (0, 2)
    want = PropagationOperator(hg, self_loops=0.0, kind="rw") @ X
    assert np.allclose(got, want, rtol=0, atol=1e-12) and not got[3:].any()
