"""Stored row blocks merged into fewer blocks for a fit (PartitionedHypergraph.grouped,
inputs.fit_blocks): the merged blocks read as the concatenation of their stored blocks, and
the estimators give the same labels with fewer Dask tasks."""

import itertools

import numpy as np
import pytest
import scipy.sparse as sp

distributed = pytest.importorskip("distributed")

from hyperclust import Hypergraph  # noqa: E402
from hyperclust.cluster import AHCKA  # noqa: E402
from hyperclust.cluster.spectral import SpectralHypergraphClustering  # noqa: E402
from hyperclust.datasets import hypergraph_sbm  # noqa: E402
from hyperclust.distributed import (DistributedAHCKA, DistributedSpectralClustering,  # noqa: E402
                                    write_partitioned)
from hyperclust.distributed.inputs import fit_blocks  # noqa: E402
from hyperclust.distributed.partitioned import load_feature_block, load_node_block  # noqa: E402


def _csr(block, n_edges):
    indptr, indices, _ = block
    return sp.csr_matrix((np.ones(indices.size), indices, indptr),
                         shape=(indptr.size - 1, n_edges))


def test_known_answer_on_a_hand_made_hypergraph(tmp_path):
    # 7 nodes, node 6 in no hyperedge; weights make the degrees differ from the counts
    hg = Hypergraph.from_edges([[0, 1, 2], [2, 3], [3, 4, 5], [0, 5]], n_nodes=7,
                               weights=[1.0, 2.0, 0.5, 3.0],
                               features=np.arange(14.0).reshape(7, 2))
    phg = write_partitioned(hg, tmp_path, block_size=2)  # blocks [0,2) [2,4) [4,6) [6,7)
    two = phg.grouped(2)
    assert two.n_blocks == 2 and two.block_bounds.tolist() == [0, 4, 7]
    indptr, indices, degrees = load_node_block(two.block_path(1))  # nodes 4, 5, 6
    assert indptr.tolist() == [0, 1, 3, 3] and indices.tolist() == [2, 2, 3]
    assert degrees.tolist() == [0.5, 3.5, 0.0]
    assert load_feature_block(two.features_path(0)).tolist() == \
        [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0], [6.0, 7.0]]
    back = two.to_hypergraph()
    assert (back.incidence != hg.incidence).nnz == 0
    np.testing.assert_array_equal(back.features, hg.features)
    assert phg.grouped(4) is phg and phg.grouped(9) is phg
    with pytest.raises(ValueError, match="at least 1"):
        phg.grouped(0)


@pytest.mark.parametrize("n_stored, n_groups", list(itertools.product([1, 3, 5, 8], [1, 2, 3])))
def test_groups_are_even_runs_that_read_as_the_stored_blocks(tmp_path, n_stored, n_groups):
    hg = hypergraph_sbm(8 * 5, 2, homophily=0.8, isolated_fraction=0.1, random_state=n_stored)
    phg = write_partitioned(hg, tmp_path, block_size=-(-hg.n_nodes // n_stored))
    view = phg.grouped(n_groups)
    stored = phg.block_bounds
    assert view.n_blocks == min(n_groups, phg.n_blocks)
    assert set(view.block_bounds) <= set(stored)  # runs of whole stored blocks
    per_group = np.diff(np.searchsorted(stored, view.block_bounds))
    assert per_group.max() - per_group.min() <= 1
    # the stored blocks, merged twice, give the same view
    assert view.grouped(1).block_bounds.tolist() == phg.grouped(1).block_bounds.tolist()
    merged = sp.vstack([_csr(load_node_block(view.block_path(b)), hg.n_edges)
                        for b in range(view.n_blocks)])
    assert (merged != hg.incidence).nnz == 0


def _tasks(client, fit):
    with distributed.get_task_stream(client) as stream:
        est = fit()
    return est, len(stream.data)


def test_one_block_per_worker_gives_the_same_labels_with_fewer_tasks(client, tmp_path):
    hg = hypergraph_sbm(600, 3, homophily=0.85, isolated_fraction=0.05, random_state=2)
    phg = write_partitioned(hg, tmp_path, block_size=100)  # 6 stored blocks, 2 workers
    ref = SpectralHypergraphClustering(3, operator="zhou", random_state=1).fit(hg)
    runs = {bpw: _tasks(client, lambda: DistributedSpectralClustering(
        3, client=client, random_state=1, blocks_per_worker=bpw).fit(phg))
        for bpw in (None, 1)}
    (stored, n_stored), (merged, n_merged) = runs[None], runs[1]
    assert (stored.n_blocks_, merged.n_blocks_) == (6, 2)
    np.testing.assert_array_equal(merged.labels_, ref.labels_)
    np.testing.assert_array_equal(stored.labels_, ref.labels_)
    assert merged.n_iter_ == stored.n_iter_
    assert n_merged < 0.7 * n_stored, (n_merged, n_stored)

    ref = AHCKA(3, max_iter=10).fit(hg)
    runs = {bpw: _tasks(client, lambda: DistributedAHCKA(
        3, client=client, max_iter=10, blocks_per_worker=bpw).fit(phg)) for bpw in (None, 1)}
    (stored, n_stored), (merged, n_merged) = runs[None], runs[1]
    for est in (stored, merged):
        np.testing.assert_array_equal(est.labels_, ref.labels_)
        np.testing.assert_allclose([f for _, f in est.objective_history_],
                                   [f for _, f in ref.objective_history_], rtol=0, atol=1e-10)
    assert n_merged < 0.7 * n_stored, (n_merged, n_stored)


def test_fit_blocks_follows_the_workers(client, tmp_path):
    phg = write_partitioned(hypergraph_sbm(60, 2, random_state=0), tmp_path, block_size=10)
    assert fit_blocks(phg, client, 1).n_blocks == 2  # the fixture's 2 workers
    assert fit_blocks(phg, client, 2).n_blocks == 4
    assert fit_blocks(phg, client, None) is phg
