"""Row-block owners rebalanced when workers join or leave (hyperclust.distributed.balance):
even shares, as few moves as possible, lost workers' blocks reassigned."""

import itertools

import pytest

from hyperclust.distributed.balance import balanced_owners


def _moves(before, after):
    return sum(a != b for a, b in zip(before, after))


def test_known_answers():
    assert balanced_owners(["a"] * 4, ["a", "b"]) == ["a", "a", "b", "b"]
    assert balanced_owners(["a", "b", "a", "b"], ["a", "b"]) == ["a", "b", "a", "b"]
    # "b" is gone: its blocks go to the others, "a" keeps its own
    assert balanced_owners(["a", "b", "b", "c"], ["a", "c"]) == ["a", "a", "c", "c"]
    assert balanced_owners([None, None, None], ["x", "y"]) == ["x", "x", "y"]
    assert balanced_owners(["a", "a"], []) == ["a", "a"]


@pytest.mark.parametrize("n_blocks, seed", list(itertools.product([1, 5, 12], range(4))))
def test_even_shares_with_fewest_moves(n_blocks, seed):
    import numpy as np

    rng = np.random.default_rng(seed)
    old = ["w0", "w1", "w2"]
    current = [old[i] for i in rng.integers(0, 3, n_blocks)]
    for workers in (old + ["w3"], ["w0", "w2"], ["w1", "w3", "w4"]):
        owners = balanced_owners(current, workers)
        shares = [owners.count(w) for w in workers]
        assert set(owners) <= set(workers) and max(shares) - min(shares) <= 1
        # a block moves only off a worker that is gone or holds more than its share
        quota_hi = -(-n_blocks // len(workers))
        needed = sum(max(0, current.count(w) - quota_hi) for w in workers) + \
            sum(c not in workers for c in current)
        assert needed <= _moves(current, owners) <= needed + len(workers)


def test_a_block_without_owner_runs_anywhere():
    # no worker known (all gone): the task carries no restriction instead of failing
    distributed = pytest.importorskip("distributed")
    from hyperclust.distributed.operator import _on

    with distributed.Client(processes=False, n_workers=1, dashboard_address=":0") as c:
        assert _on(c, None, abs, -2).result() == 2
        worker = next(iter(c.scheduler_info()["workers"]))
        assert _on(c, worker, abs, -3).result() == 3


def test_initial_owners_win_over_where_the_blocks_ran():
    # the operator's grouping (hence the order of its sums) must not follow where the
    # scheduler happened to run the loads: given initial owners are kept
    distributed = pytest.importorskip("distributed")
    from hyperclust.distributed.balance import BlockOwners

    with distributed.Client(processes=False, n_workers=2, dashboard_address=":0") as c:
        a, b = sorted(c.scheduler_info()["workers"])
        blocks = [c.submit(abs, -i, workers=[b]) for i in range(4)]  # all on b
        c.gather(blocks)
        assert BlockOwners(c, blocks)() == [b, b, a, a]  # from where they are
        assert BlockOwners(c, blocks, initial=[a, a, b, b])() == [a, a, b, b]
