"""What a block operator's product keeps alive on the workers: its last task takes neither
the input block a fused step does not read nor the whole phase-1 result, the local QR keeps
the zero-row flags of its block instead of the block, and ``H`` and ``H^T`` share their
all-ones data (hyperclust.distributed.operator, .exchange, .linalg)."""

import numpy as np
import pytest

from hyperclust import Hypergraph
from hyperclust.operators.propagation import PropagationOperator

distributed = pytest.importorskip("distributed")

from hyperclust.distributed import write_partitioned  # noqa: E402
from hyperclust.distributed.linalg import (_qr, _stacked_qr, _times, factor_product,  # noqa: E402
                                           gather_blocks, scatter_blocks)
from hyperclust.distributed.operator import _NodeBlock, propagation  # noqa: E402
from hyperclust.operators.thin_qr import zero_rows_exactly  # noqa: E402

EDGES = [[0, 1, 2], [2, 3], [3, 4, 5], [5, 6, 7], [0, 7], [1, 6]]


def _dependencies(client, futures):
    """The task names (key prefixes) each future's task depends on."""
    from dask.utils import key_split

    distributed.wait(futures)
    keys = [f.key for f in futures]
    return client.run_on_scheduler(
        lambda dask_scheduler: [sorted({key_split(d.key) for d in
                                        dask_scheduler.tasks[k].dependencies})
                                for k in keys])


def _reads_x(Y, X):
    return Y + X


@pytest.mark.parametrize("self_loops, then, takes_x", [
    (0.0, None, False), (0.0, (factor_product,), False), (1.0, None, True),
    (0.0, (_reads_x,), True)])
@pytest.mark.parametrize("pairwise", [True, False])
def test_last_task_takes_the_input_only_where_it_is_read(client, tmp_path, monkeypatch,
                                                          self_loops, then, takes_x, pairwise):
    from hyperclust.distributed import pairwise as pairwise_module

    if not pairwise:
        monkeypatch.setattr(pairwise_module, "PAIRWISE_WORKERS", 0)
    hg = Hypergraph.from_edges(EDGES)
    phg = write_partitioned(hg, str(tmp_path), block_size=4)
    X = np.random.default_rng(0).normal(size=(8, 3))
    op = propagation(phg, client, self_loops=self_loops, kind="rw")
    Xb = scatter_blocks(client, X, op.bounds)
    out = op.apply(Xb, then=then)
    for deps in _dependencies(client, out):
        assert ("array" in deps) == takes_x  # scatter_blocks' tasks are np.array
        if pairwise:  # the block's gathered rows, neither worker's sums
            assert "pair_rows" in deps and not {"down_pairs", "shared_part"} & set(deps)
        else:
            assert "down_worker" not in deps and "private_part" in deps
    want = PropagationOperator(hg, self_loops=self_loops, kind="rw") @ X
    if then is None or then[0] is _reads_x:
        got = gather_blocks(client, out)
        assert np.allclose(got, want + X if then else want, rtol=0, atol=1e-12)


def test_local_qr_keeps_zero_row_flags_and_the_same_bits():
    rng = np.random.default_rng(1)
    Y = rng.normal(size=(12, 3))
    Y[[0, 5, 11]] = 0.0
    qr = factor_product(Y, None)
    assert qr[2].shape == (12, 1) and qr[2].dtype == bool
    assert not np.shares_memory(qr[2], Y)
    assert qr[2].ravel().tolist() == np.any(Y != 0, axis=1).tolist()
    small = _stacked_qr(qr[1])
    Q = _times(qr, small, 0)
    want = zero_rows_exactly(qr[0] @ small[0][0], Y, np.diag(small[1]).copy())
    assert np.array_equal(Q, want) and not Q[[0, 5, 11]].any()
    wide = np.ones((2, 3))  # a wide block keeps itself (no flags are read there)
    assert _qr(wide)[2] is wide


def test_h_and_its_transpose_share_their_ones(tmp_path):
    phg = write_partitioned(Hypergraph.from_edges(EDGES), str(tmp_path), block_size=8)
    blk = _NodeBlock(phg.block_path(0), phg.edge_bounds, "rw", 0.0, False)
    assert blk.Ht.data is blk.H.data and np.all(blk.H.data == 1)
    assert np.array_equal((blk.Ht @ np.eye(8)), blk.H.T.toarray())
    distinct = {id(a): a for a in (blk.H.data, blk.Ht.data)}
    assert len(distinct) == 1
    total = sum(a.nbytes for a in (blk.edges, blk.H.data, blk.H.indices, blk.H.indptr,
                                   blk.Ht.indices, blk.Ht.indptr, blk.left, blk.right, blk.cut,
                                   blk.touched, blk.edge_start, np.asarray(blk.diag)))
    assert blk.nbytes == total
