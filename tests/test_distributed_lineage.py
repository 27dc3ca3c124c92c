"""hyperclust.distributed.lineage: cutting the task history of long iterations keeps the
scheduler's records bounded (and grows them without the cut), leaves the results exactly
as they were, and a block whose in-memory copy is gone is read back from its file."""

from __future__ import annotations

import os

import numpy as np
import pytest

pytest.importorskip("distributed")

from hyperclust import Hypergraph  # noqa: E402
from hyperclust.datasets import hypergraph_sbm  # noqa: E402
from hyperclust.distributed import DistributedAHCKA, write_partitioned  # noqa: E402
from hyperclust.distributed import ahcka as dahcka  # noqa: E402
from hyperclust.distributed import lineage  # noqa: E402
from hyperclust.distributed.lanczos import lanczos_eigenpairs  # noqa: E402
from hyperclust.distributed.linalg import gather_blocks  # noqa: E402
from hyperclust.distributed.operator import normalized_affinity  # noqa: E402


def _records(client):
    return len(client.cluster.scheduler.tasks)


def _ahcka_records(client, monkeypatch, hg, every):
    """Scheduler records after every iteration of a 60-iteration AHCKA fit, and the fit."""
    monkeypatch.setattr(lineage, "EVERY", every)
    seen, tsqr = [], dahcka.tsqr

    def counting(*args, **kwargs):
        out = tsqr(*args, **kwargs)
        seen.append(_records(client))
        return out

    monkeypatch.setattr(dahcka, "tsqr", counting)
    est = DistributedAHCKA(3, client=client, block_size=100, max_iter=60, patience=10**6,
                           check_interval=10).fit(hg)
    return np.array(seen[1:]), est  # the first tsqr is the start's


def test_ahcka_records_stay_bounded_and_grow_without_the_cut(client, monkeypatch):
    hg = hypergraph_sbm(300, 3, homophily=0.8, n_features=0, random_state=0)
    cut, est = _ahcka_records(client, monkeypatch, hg, every=10)
    uncut, ref = _ahcka_records(client, monkeypatch, hg, every=10**9)
    assert est.n_iter_ == ref.n_iter_ == 60 and cut.size == 60
    # without cuts the iterations' tasks stay for good (about 9 an iteration since the
    # iterate is made inside the next product's tasks, 15 before); with them the records
    # of the last 20 iterations stay at those of iterations 12-27 (what is still in
    # flight or not yet forgotten when counted varies with the timing)
    assert uncut[-1] - uncut[20] > 6 * 40, uncut
    assert cut[40:].max() <= 1.5 * cut[12:27].max(), cut
    assert cut[40:].max() < 0.5 * uncut[-1], (cut, uncut)
    # the same arithmetic: checks' objectives and labels equal to the last bit
    assert est.objective_history_ == ref.objective_history_
    assert np.array_equal(est.labels_, ref.labels_)
    assert np.array_equal(est.embedding_, ref.embedding_)


def test_lanczos_cuts_at_restarts_change_nothing(client, tmp_path):
    hg = hypergraph_sbm(400, 4, homophily=0.7, n_features=0, random_state=1)
    phg = write_partitioned(hg, str(tmp_path / "parts"), block_size=150)
    op = normalized_affinity(phg, client, tau=1.0)

    def solve(cuts):
        records = []
        values, vectors, products = lanczos_eigenpairs(
            op, 4, tol=1e-6, ncv=9, callback=lambda *_: records.append(_records(client)),
            cuts=cuts)
        return values, gather_blocks(client, vectors), products, np.array(records)

    ref_values, ref_vectors, ref_products, uncut = solve(None)
    with lineage.lineage_cuts(client, str(tmp_path), every=5) as cuts:
        values, vectors, products, cut = solve(cuts)
        assert cuts.n_cuts >= 5
        assert len(os.listdir(cuts.folder)) == cuts.n_cuts * 6  # 3 blocks, 5 + 1 vectors
    assert not [p for p in os.listdir(tmp_path) if p.startswith("_lineage-")]
    assert products == ref_products > 30
    assert np.array_equal(values, ref_values) and np.array_equal(vectors, ref_vectors)
    late = products // 2
    assert uncut[-1] > 2 * uncut[late // 2]  # the history grows without the cut
    assert cut[late:].max() <= 1.5 * cut[:late].max()


def test_a_block_no_longer_in_memory_is_read_from_its_file(client, tmp_path):
    X = np.arange(12.0).reshape(6, 2)
    blocks = [client.submit(np.array, X[:4]), client.submit(np.array, X[4:])]
    cut = lineage.LineageCut(client, str(tmp_path))
    loaded = cut.cut(blocks)
    assert np.array_equal(gather_blocks(client, loaded), X)
    assert not [k for k in lineage._KEPT if k[0] == str(tmp_path)]  # read back from memory
    # a recomputation (its worker lost, or the read run elsewhere): from the file
    assert np.array_equal(lineage._load(str(tmp_path), 0, 1), X[4:])
    blocks2 = [client.submit(np.add, b, 1.0) for b in loaded]
    a, b = cut.cut(blocks2, blocks2[:1])
    assert np.array_equal(np.concatenate(client.gather(a)), X + 1)
    assert np.array_equal(client.gather(b[0]), X[:4] + 1) and cut.n_cuts == 2
    cut.close()


def test_a_scratch_dir_that_is_not_a_folder_is_refused(client, tmp_path):
    hg = Hypergraph.from_edges([[0, 1, 2], [2, 3], [3, 4, 5]])
    with pytest.raises(FileNotFoundError, match="scratch_dir"):
        DistributedAHCKA(2, client=client, scratch_dir=str(tmp_path / "none")).fit(hg)


def test_a_read_only_scratch_dir_warns_and_fits_without_cuts(client, tmp_path, monkeypatch):
    """A partition directory the fit cannot write (read-only storage) still fits, with the
    same result, uncut; no folder is created in it."""
    hg = hypergraph_sbm(150, 3, homophily=0.9, random_state=0)
    monkeypatch.setattr(lineage, "EVERY", 3)
    ref = DistributedAHCKA(3, client=client, block_size=50, max_iter=12,
                           scratch_dir=str(tmp_path)).fit(hg)
    real_access = os.access
    monkeypatch.setattr(lineage.os, "access",
                        lambda p, mode: False if str(p) == str(tmp_path) else real_access(p, mode))
    with pytest.warns(RuntimeWarning, match="not writable"):
        est = DistributedAHCKA(3, client=client, block_size=50, max_iter=12,
                               scratch_dir=str(tmp_path)).fit(hg)
    assert np.array_equal(est.labels_, ref.labels_)
    assert os.listdir(tmp_path) == []
