"""The distributed AHCKA check's discretisation against the single process's
(``cluster.ahcka.discretize``), bit for bit, where its steps are spread over blocks: ties
of the greedy rotation across blocks, zero rows (the start node's among them), an empty
block, one cluster, stops on and between the refinement groups; and what it submits: one
task a block a greedy step (plus its summary), one a block a refinement, one driver wait
per refinement group; and a fit's iterate made inside the tasks that read it."""

from __future__ import annotations

import collections

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")

from hyperclust.cluster import AHCKA  # noqa: E402
from hyperclust.cluster.ahcka import discretize  # noqa: E402
from hyperclust.datasets import hypergraph_sbm  # noqa: E402
from hyperclust.distributed import DistributedAHCKA, write_partitioned  # noqa: E402
from hyperclust.distributed.deferred import defer  # noqa: E402
from hyperclust.distributed.operator import propagation  # noqa: E402
from hyperclust.cluster.rounding import first_near_minimum  # noqa: E402
from hyperclust.distributed import ahcka_check  # noqa: E402
from hyperclust.distributed.ahcka_check import REFINE_GROUP, discretize_blocks  # noqa: E402
from hyperclust.distributed.linalg import scatter_blocks  # noqa: E402


def _tied(n, k, seed, zero=()):
    """Rows drawn from ``k + 2`` directions, each repeated exactly: the greedy rotation's
    accumulated values tie across blocks; a few zero rows (and those of ``zero``)."""
    rng = np.random.default_rng(seed)
    V = rng.normal(size=(k + 2, k))[rng.integers(0, k + 2, n)]
    V[rng.choice(n, 3, replace=False)] = 0.0
    V[list(zero)] = 0.0
    return V


CASES = [  # (V, bounds, start, n_iter)
    (_tied(60, 4, 0), [0, 17, 40, 60], 5, 30),
    (_tied(60, 4, 1), [0, 20, 20, 60], 3, 1),  # an empty block; one refinement
    (_tied(50, 3, 2), [0, 25, 50], 0, REFINE_GROUP),  # stops on a group's end at most
    # a zero start row: the first nonzero row starts the rotation
    (_tied(50, 3, 3, zero=[2]), [0, 10, 30, 50], 2, REFINE_GROUP + 1),
    (_tied(40, 1, 4), [0, 13, 40], 7, 30),  # one cluster: no greedy step
    (np.zeros((12, 3)), [0, 5, 12], 0, 30),  # every row zero: label 0
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_discretize_blocks_equals_the_single_process(client, case):
    V, bounds, start, n_iter = CASES[case]
    n, k = V.shape
    labels = client.gather(discretize_blocks(client, scatter_blocks(client, V, bounds),
                                             np.array(bounds), start, k, n, n_iter))
    np.testing.assert_array_equal(np.concatenate(labels), discretize(V, start, n_iter))


@pytest.mark.parametrize("seed", range(4))
def test_block_summaries_pick_the_first_row_near_the_least(seed):
    """The first row within the tolerance of the least value, from per-block summaries,
    is ``first_near_minimum`` of all values (ties within the tolerance, infinities, an
    empty block)."""
    rng = np.random.default_rng(seed)
    c = rng.choice([0.5, 0.5 + 4e-11, 0.5 + 2e-10, 0.7, np.inf], size=40)
    X = np.arange(40.0)[:, None] * np.ones((1, 2))
    cuts = np.sort(rng.choice(np.arange(41), 3))
    parts = [ahcka_check._summary(cb, xb, [X[0]], True)
             for cb, xb in zip(np.split(c, cuts), np.split(X, cuts))]
    columns, nonzero = ahcka_check._columns(2, *parts)
    assert nonzero and len(columns) == 2
    assert columns[-1][0] == first_near_minimum(c)


def test_discretize_blocks_tasks_and_waits(client, monkeypatch):
    """One task a block a greedy step and its summary, one a block a refinement and one
    wait per group of refinements (the stopping rule on the driver: no reduce task)."""
    V, bounds, start, _ = CASES[0]
    n, k = V.shape
    blocks = scatter_blocks(client, V, bounds)
    tasks, waits = collections.Counter(), []
    submit, gather = client.submit, client.gather
    monkeypatch.setattr(client, "submit", lambda fn, *a, **kw: tasks.update([fn.__name__])
                        or submit(fn, *a, **kw))
    monkeypatch.setattr(client, "gather", lambda f, *a, **kw: waits.append(f)
                        or gather(f, *a, **kw))
    labels = discretize_blocks(client, blocks, np.array(bounds), start, k, n, 30)
    monkeypatch.undo()
    client.gather(labels)
    B = len(bounds) - 1
    assert tasks["_greedy_step"] == tasks["_summary_of"] == B * (k - 1)
    passes = tasks["_refine_pass"] // B
    assert tasks["_refine_pass"] == B * passes
    assert len(waits) == -(-passes // REFINE_GROUP)
    assert sum(tasks.values()) == 4 * B + 2 * B * (k - 1) + B * passes


def test_fit_makes_its_iterate_inside_the_tasks_reading_it(client, monkeypatch):
    """Between checks ``Q = X R^-1`` is made in the next product's first task (no task of
    its own, the stacked QR in every block's task), a check's walk columns are stacked
    there too, and the cluster sizes and the objective are summed where they are read:
    the labels are the single process's."""
    hg = hypergraph_sbm(120, 3, homophily=0.8, n_features=0, random_state=1)
    kw = {"max_iter": 12, "check_interval": 5}
    tasks, submit = collections.Counter(), client.submit
    monkeypatch.setattr(client, "submit", lambda fn, *a, **k: tasks.update([fn.__name__])
                        or submit(fn, *a, **k))
    est = DistributedAHCKA(3, client=client, block_size=60, **kw).fit(hg)
    monkeypatch.undo()
    np.testing.assert_array_equal(est.labels_, AHCKA(3, **kw).fit(hg).labels_)
    assert tasks["_times_stacked"] + tasks["_stack"] + tasks["_counts"] + \
        tasks["_objective"] == 0
    # only the start's QR, whose R is gathered, has a reduce task
    assert (tasks["_stacked_qr_of_groups"], tasks["_times"]) == (1, est.n_blocks_)
    assert 0 < tasks["resolve"] <= 2 * (len(est.objective_history_) + 1)  # checks, the end


def test_a_product_of_deferred_blocks_equals_that_of_their_tasks(client, tmp_path):
    """Deferred input blocks run in the product's first task and, where its last task reads
    the input too (self loops, a step reading it), there again: the same bits."""
    hg = hypergraph_sbm(90, 3, homophily=0.7, n_features=0, random_state=3)
    P = propagation(write_partitioned(hg, tmp_path, block_size=40), client, self_loops=1.0)
    X = scatter_blocks(client, np.random.default_rng(0).normal(size=(90, 3)), P.bounds)
    then = (np.subtract,)  # P X - X: reads the input
    plain = client.gather(P.apply(X, then=then))
    deferred = client.gather(P.apply([defer(np.multiply, x, 1.0) for x in X], then=then))
    assert all(np.array_equal(a, b) for a, b in zip(plain, deferred))
