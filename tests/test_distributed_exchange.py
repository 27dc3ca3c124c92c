"""The block operator's per-worker hyperedge exchanges (hyperclust.distributed.exchange, by a
home worker; hyperclust.distributed.pairwise, two workers): only the hyperedge rows several
workers touch leave a worker, the product is the dense one for any grouping of the row
blocks on the workers, and both exchanges give the same bits."""

import numpy as np
import pytest

from hyperclust import Hypergraph
from hyperclust.operators.propagation import PropagationOperator

distributed = pytest.importorskip("distributed")

from hyperclust.distributed import write_partitioned  # noqa: E402
from hyperclust.distributed.linalg import gather_blocks, scatter_blocks  # noqa: E402
from hyperclust.distributed.operator import propagation  # noqa: E402


@pytest.fixture(scope="module")
def two_workers():
    with distributed.Client(processes=False, n_workers=2, threads_per_worker=1,
                            dashboard_address=":0") as c:
        yield c


@pytest.fixture
def home_exchange(monkeypatch):
    """The home-worker exchange on two workers too (pairwise only up to 0 workers)."""
    from hyperclust.distributed import pairwise

    monkeypatch.setattr(pairwise, "PAIRWISE_WORKERS", 0)


def _shared_counts(op):
    """``{(worker position, j): shared rows}`` of the operator's current plan (home
    exchange: the rows sent to each remote home; pairwise: those sent to the other
    worker)."""
    owners = op.owners()
    groups, plans, _ = op._exchange_plan(owners, op._homes(owners))
    got = op.client.gather(plans)
    workers = list(groups)
    if all(hasattr(plan, "remote") for plan in got.values()):
        return {(workers.index(w), j): r.shared.size for w, plan in got.items()
                for j, r in plan.remote.items()}, groups
    return {(workers.index(w), j): rows.size for w, plan in got.items()
            for j, rows in plan.shared.items()}, groups


def test_only_rows_two_workers_touch_are_sent(two_workers, tmp_path, home_exchange):
    # 8 nodes in 4 blocks of 2; blocks 0, 1 on the first worker, 2, 3 on the second.
    # Hyperedges 0-2 stay on the first worker (0 and 2 span its two blocks), 3 on the
    # second, 4 and 5 span both workers; one hyperedge partition of 6 rows, homed on the
    # first worker: the second sends its rows of 4 and 5 only.
    edges = [[0, 2], [1], [1, 3], [4, 6, 7], [3, 4], [0, 7]]
    phg = write_partitioned(Hypergraph.from_edges(edges), tmp_path / "p", block_size=2,
                            edge_block_size=6)
    P = propagation(phg, two_workers)
    shared, groups = _shared_counts(P)
    assert [len(bs) for bs in groups.values()] == [2, 2]
    assert shared == {(1, 0): 2}
    # three partitions of 2 rows, homed on the first, first and second worker
    phg3 = write_partitioned(Hypergraph.from_edges(edges), tmp_path / "q", block_size=2,
                             edge_block_size=2)
    shared3, _ = _shared_counts(propagation(phg3, two_workers))
    # partition 0 (hyperedges 0, 1): the first worker's alone; partition 1 (2, 3): homed
    # on the first, the second touches only 3, which no other worker touches: nothing
    # sent; partition 2 (4, 5): homed on the second, the first sends both rows
    assert shared3 == {(1, 1): 0, (0, 2): 2}


@pytest.mark.parametrize("block_size, edge_block_size", [(8, 7), (10, 40), (40, 9)])
@pytest.mark.parametrize("kind, adjoint", [("sym", False), ("rw", False), ("rw", True)])
def test_product_matches_dense_on_two_workers(two_workers, tmp_path, block_size,
                                              edge_block_size, kind, adjoint):
    rng = np.random.default_rng(block_size)
    n = 40
    edges = [list(rng.choice(n - 4, size=rng.integers(1, 6), replace=False))
             for _ in range(30)]
    hg = Hypergraph.from_edges(edges, n_nodes=n)  # the last 4 nodes in no hyperedge
    phg = write_partitioned(hg, tmp_path / "p", block_size=block_size,
                            edge_block_size=edge_block_size)
    P = propagation(phg, two_workers, self_loops=0.5, kind=kind, adjoint=adjoint)
    X = rng.standard_normal((n, 3))
    Y = gather_blocks(two_workers, P.apply(scatter_blocks(two_workers, X, P.bounds)))
    ref = PropagationOperator(hg, self_loops=0.5, kind=kind)
    np.testing.assert_allclose(Y, (ref.T @ X) if adjoint else (ref @ X), atol=1e-12)


@pytest.mark.parametrize("kind", ["sym", "rw"])
def test_float32_operator_computes_and_exchanges_in_float32(two_workers, tmp_path, kind):
    # Uni-DHC's basis runs in float32 on one process (BASIS_DTYPE): the block operator of
    # that dtype gives float32 products equal to the in-memory float32 operator's to
    # float32 rounding, and its hyperedge means stay float32
    from hyperclust.datasets import hypergraph_sbm
    from hyperclust.distributed.basis import read_power_basis, write_power_basis
    from hyperclust.models.basis import polynomial_basis

    hg = hypergraph_sbm(120, 3, homophily=0.8, random_state=4)
    phg = write_partitioned(hg, tmp_path / "p", block_size=35, edge_block_size=30)
    P = propagation(phg, two_workers, kind=kind, dtype=np.float32)
    X = np.random.default_rng(0).standard_normal((120, 3))
    X32 = [two_workers.submit(np.asarray, x, np.float32)
           for x in scatter_blocks(two_workers, X, P.bounds)]
    Y = two_workers.gather(P.apply(X32))
    assert {y.dtype for y in Y} == {np.dtype(np.float32)}
    ref = PropagationOperator(hg, kind=kind, dtype=np.float32) @ X.astype(np.float32)
    np.testing.assert_allclose(np.concatenate(Y), ref, rtol=0, atol=2e-6)
    write_power_basis(P, X, 3, tmp_path / "b")
    B = read_power_basis(tmp_path / "b")
    single = polynomial_basis(PropagationOperator(hg, kind=kind, dtype=np.float32), X, 3)
    np.testing.assert_allclose(B, single, rtol=0, atol=1e-5)
    means = two_workers.gather(P.hyperedge_means(X32, 3))
    assert {m.dtype for m in means} == {np.dtype(np.float32)}


def test_pairwise_sends_each_worker_the_rows_both_touch(two_workers, tmp_path):
    # the hypergraph of the home test: hyperedges 4 and 5 span both workers, so each worker
    # sends the other its 2 rows of them; 3 partitions of 2 rows: only partition 2 (4, 5)
    edges = [[0, 2], [1], [1, 3], [4, 6, 7], [3, 4], [0, 7]]
    for edge_block_size, part in [(6, 0), (2, 2)]:
        phg = write_partitioned(Hypergraph.from_edges(edges), tmp_path / f"p{part}",
                                block_size=2, edge_block_size=edge_block_size)
        shared, groups = _shared_counts(propagation(phg, two_workers))
        assert [len(bs) for bs in groups.values()] == [2, 2]
        assert shared == {(0, part): 2, (1, part): 2}


def _tasks_run(client, fn):
    def executed():
        return sum(client.run(lambda dask_worker: dask_worker.state.executed_count).values())

    before = executed()
    client.gather(fn())
    return executed() - before


@pytest.mark.parametrize("block_size, edge_block_size, kind, adjoint, tau",
                         [(25, 30, "affinity", False, 2.0), (40, 9, "rw", True, 0.0)])
def test_pairwise_products_are_the_home_exchanges_bit_for_bit(two_workers, tmp_path,
                                                              monkeypatch, block_size,
                                                              edge_block_size, kind,
                                                              adjoint, tau):
    from hyperclust.distributed import pairwise
    from hyperclust.distributed.operator import BlockOperator

    rng = np.random.default_rng(block_size + edge_block_size)
    n = 80
    edges = [list(rng.choice(n - 4, size=rng.integers(1, 7), replace=False))
             for _ in range(60)]
    phg = write_partitioned(Hypergraph.from_edges(edges, n_nodes=n), tmp_path / "p",
                            block_size=block_size, edge_block_size=edge_block_size)
    X = rng.standard_normal((n, 4))
    products, kinds = [], []
    for workers in (2, 0):  # pairwise, then the home exchange
        monkeypatch.setattr(pairwise, "PAIRWISE_WORKERS", workers)
        op = BlockOperator(phg, two_workers, kind=kind, shift=tau, adjoint=adjoint)
        products.append(gather_blocks(two_workers,
                                      op.apply(scatter_blocks(two_workers, X, op.bounds))))
        kinds.append({type(p).__name__ for p in two_workers.gather(op._plan[1][1]).values()})
    assert kinds == [{"PairPlan"}, {"ExchangePlan"}]
    assert np.array_equal(products[0], products[1])


def test_pairwise_product_runs_two_tasks_a_worker_and_two_a_block(two_workers, tmp_path):
    rng = np.random.default_rng(3)
    edges = [list(rng.choice(40, size=4, replace=False)) for _ in range(30)]
    phg = write_partitioned(Hypergraph.from_edges(edges), tmp_path / "p", block_size=10,
                            edge_block_size=10)
    P = propagation(phg, two_workers, kind="rw", self_loops=0.0)
    X = scatter_blocks(two_workers, rng.standard_normal((40, 2)), P.bounds)
    two_workers.gather(P.apply(X))  # and the plan's tasks
    assert _tasks_run(two_workers, lambda: P.apply(X)) == 2 * 2 + 2 * 4  # W = 2, B = 4
