"""Per-kernel thread rules: one thread below a kernel's measured work size, the policy's
threads above it, never more than the caller's limit, and the same labels either way."""

from __future__ import annotations

import sys
import types

import numpy as np
import pytest
from threadpoolctl import threadpool_info, threadpool_limits

import hyperclust.runtime.threads as kt
from hyperclust.datasets.synthetic import hypergraph_sbm
from hyperclust.runtime.threads import cached_controller, thread_limit


def pool_threads(api):
    """Thread counts of the loaded pools of one threadpoolctl ``user_api``."""
    return [p["num_threads"] for p in threadpool_info() if p["user_api"] == api]


@pytest.fixture(autouse=True)
def two_thread_pools():
    """Pools at 2 threads whatever ``*_NUM_THREADS`` says, so that a kernel's rule is seen."""
    with threadpool_limits(2):
        yield


def test_threads_follow_the_work_size():
    with thread_limit(2):
        for name, rule in kt.KERNELS.items():
            assert kt.kernel_threads(name, rule.min_work - 1) == 1
            assert kt.kernel_threads(name, rule.min_work) == 2
            assert kt.kernel_threads(name, float("nan")) == 1
    with thread_limit(1):
        assert kt.kernel_threads("spmm", 1e12) == 1


def test_unknown_kernel_is_one_line_error():
    with pytest.raises(ValueError, match="unknown kernel 'qr'; known: spmm"):
        kt.kernel_threads("qr", 1)


def test_limit_lowers_the_kernels_pools_and_restores_them():
    before = pool_threads("blas")
    with thread_limit(2):
        with kt.kernel_thread_limit("lanczos", 10.0) as n:
            assert n == 1 and set(pool_threads("blas")) == {1}
        with kt.kernel_thread_limit("lanczos", 1e12) as n:
            assert n == 2 and pool_threads("blas") == before == [2] * len(before)
    assert pool_threads("blas") == before


def test_limit_never_raises_the_callers_limit():
    with threadpool_limits(1, user_api="blas"), thread_limit(2):
        with kt.kernel_thread_limit("tall_skinny", 1e12):
            assert set(pool_threads("blas")) == {1}
        assert set(pool_threads("blas")) == {1}


def test_own_pool_kernel_leaves_blas_alone():
    before = pool_threads("blas")
    with kt.kernel_thread_limit("spmm", 1.0) as n:
        assert n == 1 and pool_threads("blas") == before


def test_arpack_and_kmeans_run_on_one_thread_at_small_sizes(monkeypatch):
    """What each kernel saw while it ran: ARPACK's BLAS and k-means' OpenMP on one thread
    at a size under their thresholds, although the fit's limit is 2."""
    import sklearn.cluster
    import hyperclust.operators.eigensolvers as spectral_module
    from hyperclust.cluster import SpectralHypergraphClustering

    seen = {}
    real_eigsh, real_kmeans = spectral_module.eigsh, sklearn.cluster.KMeans

    def eigsh(*args, **kwargs):
        seen["lanczos"] = pool_threads("blas")
        return real_eigsh(*args, **kwargs)

    class KMeans(real_kmeans):
        def fit(self, X, y=None, sample_weight=None):
            seen["kmeans"] = pool_threads("openmp")
            return super().fit(X, y, sample_weight)

    monkeypatch.setattr(spectral_module, "eigsh", eigsh)
    monkeypatch.setattr(sklearn.cluster, "KMeans", KMeans)
    hg = hypergraph_sbm(3000, 3, homophily=0.9, n_features=0, random_state=0)
    with thread_limit(2):
        SpectralHypergraphClustering(3, operator="zhou", random_state=0).fit(hg)
    assert set(seen["lanczos"]) == {1}
    assert set(seen["kmeans"]) == {1}


@pytest.mark.parametrize("method", ["spectral", "ahcka"])
def test_labels_do_not_depend_on_the_kernel_rules(monkeypatch, method):
    """Every kernel threaded (thresholds 0) or every kernel on one thread: the same labels."""
    from hyperclust.cluster import AHCKA, SpectralHypergraphClustering

    hg = hypergraph_sbm(2500, 3, homophily=0.9, n_features=0, random_state=1)
    make = {"spectral": lambda: SpectralHypergraphClustering(3, operator="zhou", random_state=0),
            "ahcka": lambda: AHCKA(3, random_state=0)}[method]
    labels = []
    for min_work in (0.0, float("inf")):
        rules = {k: kt.Kernel(min_work, r.unit, r.pools) for k, r in kt.KERNELS.items()}
        monkeypatch.setattr(kt, "KERNELS", rules)
        with thread_limit(2):
            labels.append(make().fit(hg).labels_)
    np.testing.assert_array_equal(labels[0], labels[1])


def test_cached_controller_is_rebuilt_after_an_import(monkeypatch):
    first = cached_controller()
    assert cached_controller() is first
    monkeypatch.setitem(sys.modules, "hyperclust_test_new_module", types.ModuleType("x"))
    assert cached_controller() is not first
