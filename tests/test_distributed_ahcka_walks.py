"""DistributedAHCKA's checks whose walks ride on the iteration's products (several open at
once, none, one still open at max_iter, a patience stop) against the single process, which
schedules its checks' walks the same way."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("distributed")

from hyperclust.cluster import AHCKA  # noqa: E402
from hyperclust.datasets import hypergraph_sbm  # noqa: E402
from hyperclust.distributed import DistributedAHCKA  # noqa: E402


@pytest.fixture(scope="module")
def hg():
    return hypergraph_sbm(300, 3, homophily=0.6, n_features=0, random_state=2)


@pytest.mark.parametrize("kw", [
    {"max_iter": 12, "check_interval": 1},  # three walks open at every product
    {"max_iter": 9, "check_interval": 2, "n_hops": 0},  # scored at once
    {"max_iter": 11, "check_interval": 4, "n_hops": 5},  # two walks left past max_iter
    {"max_iter": 200, "check_interval": 3, "patience": 1},  # stops at the first rise
    {"max_iter": 0},
])
def test_walks_beside_the_iterate_score_as_the_single_process(client, hg, kw):
    ref = AHCKA(3, knn_method="exact", **kw).fit(hg)
    est = DistributedAHCKA(3, client=client, block_size=150, **kw).fit(hg)
    assert [it for it, _ in est.objective_history_] == [it for it, _ in ref.objective_history_]
    np.testing.assert_allclose([f for _, f in est.objective_history_],
                               [f for _, f in ref.objective_history_], rtol=0, atol=1e-10)
    assert (est.n_iter_, est.best_iter_) == (ref.n_iter_, ref.best_iter_)
    np.testing.assert_array_equal(est.labels_, ref.labels_)
    assert est.embedding_.shape == ref.embedding_.shape


def test_a_stop_leaves_later_checks_unscored(client, hg):
    """With walks of 5 hops and a check every 2 iterations, the checks after the stopping
    one are open when it stops: they are dropped, not scored."""
    kw = {"max_iter": 200, "check_interval": 2, "n_hops": 5, "patience": 1}
    ref = AHCKA(3, knn_method="exact", **kw).fit(hg)
    est = DistributedAHCKA(3, client=client, block_size=150, **kw).fit(hg)
    assert est.n_iter_ == ref.n_iter_ < 200
    assert est.objective_history_[-1][0] == est.n_iter_
    assert [it for it, _ in est.objective_history_] == [it for it, _ in ref.objective_history_]
