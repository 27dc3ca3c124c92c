"""What cuts the workers' CPU without changing a result: the fit's allocator thresholds on
the workers (hyperclust.distributed.allocator) and TSQR's local QR by LAPACK on one copy
(np.linalg.qr's factors, bit for bit)."""

from __future__ import annotations

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")

from hyperclust.distributed import allocator  # noqa: E402
from hyperclust.distributed.linalg import _qr, tsqr  # noqa: E402


def _plugin_names(dask_worker):
    return sorted(name for name in dask_worker.plugins if name.startswith("hyperclust-keep"))


def test_the_thresholds_hold_for_the_fit_only(client):
    with allocator.reuse_freed_memory(client):
        during = client.run(_plugin_names)
        assert client.submit(np.sum, np.ones(1000)).result() == 1000.0
    after = client.run(_plugin_names)
    assert all(len(names) == 1 for names in during.values()) and during
    assert all(names == [] for names in after.values())


def test_a_worker_joining_gets_the_plugin():
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as c:
        with allocator.reuse_freed_memory(c):
            cluster.scale(2)
            c.wait_for_workers(2)
            names = c.run(_plugin_names)
        assert len(names) == 2 and all(len(v) == 1 for v in names.values())


def test_thresholds_are_set_and_restored_on_glibc(monkeypatch):
    calls = []

    class FakeLibc:
        def mallopt(self, option, value):
            calls.append((option, value))
            return 1

        def malloc_trim(self, pad):
            calls.append(("trim", pad))
            return 1

    monkeypatch.setattr(allocator, "_libc", lambda: FakeLibc())
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "65536")
    monkeypatch.delenv("MALLOC_MMAP_THRESHOLD_", raising=False)
    plugin = allocator._KeepFreed(allocator.MMAP_THRESHOLD, allocator.TRIM_THRESHOLD,
                                  allocator.MMAP_MAX)
    plugin.setup()  # a worker in the driver's own process: left alone
    plugin.teardown()
    assert calls == []
    plugin.driver_pid = -1  # as in a worker process of its own
    plugin.setup()
    plugin.teardown()
    assert calls == [(-3, 32 * 2**20), (-1, 256 * 2**20), (-4, 0),  # the fit's
                     (-3, 128 * 1024), (-1, 65536), (-4, 65536), ("trim", 0)]  # as before


def test_no_glibc_changes_nothing(monkeypatch):
    monkeypatch.setattr(allocator, "_libc", lambda: None)
    assert allocator._set(1, 1, 1) is False
    allocator._restore()  # no error


@pytest.mark.parametrize("shape", [(5000, 5), (999, 9), (5, 5), (3, 5), (6, 1), (40, 3)])
def test_local_qr_is_numpys_bit_for_bit(shape):
    X = np.random.default_rng(sum(shape)).standard_normal(shape)
    X[1:3] = 0.0
    Q, R, kept = _qr(X)
    Q0, R0 = np.linalg.qr(X)
    np.testing.assert_array_equal(Q, Q0)
    np.testing.assert_array_equal(R, R0)
    if shape[0] < shape[1]:  # a wide block keeps itself
        assert kept is X
    else:  # a tall one its nonzero rows, not itself
        assert kept.shape == (shape[0], 1) and not np.shares_memory(kept, X)
        assert kept.ravel().tolist() == np.any(X != 0, axis=1).tolist()


def test_tsqr_with_the_lapack_qr(client):
    X = np.random.default_rng(0).standard_normal((600, 4))
    X[10:20] = 0.0
    blocks = [client.submit(np.array, X[a:b]) for a, b in ((0, 200), (200, 600))]
    Q_blocks, R = tsqr(client, blocks)
    Q = np.concatenate(client.gather(Q_blocks))
    np.testing.assert_allclose(Q @ R, X, atol=1e-12)
    np.testing.assert_allclose(Q.T @ Q, np.eye(4), atol=1e-12)
    assert not Q[10:20].any()  # exact zeros where X is zero
