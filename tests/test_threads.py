"""Thread policy: estimators never run more threads than free cores; overridable."""

from __future__ import annotations

import numpy as np
import pytest
from threadpoolctl import threadpool_info

from hyperclust.runtime import threads
from hyperclust.cluster.base import HypergraphClusterer
from hyperclust.datasets import hypergraph_sbm


def _blas_threads():
    return {d["internal_api"]: d["num_threads"] for d in threadpool_info()}


@pytest.mark.parametrize("text, busy", [
    ("0.00 0.01 0.05 1/120 999", 0),   # idle: only this process runs
    ("1.02 0.98 0.90 2/130 999", 1),   # another process kept a core busy for a minute
    ("1.90 1.50 1.00 1/130 999", 0),   # this process's own past work: nobody else now
    ("0.10 0.50 0.60 3/130 999", 0),   # two processes that just started: not yet loaded
    ("3.00 3.00 3.00 4/130 999", 3),
    ("garbage", 0),
])
def test_busy_cores_reads_loadavg(text, busy):
    assert threads.busy_cores(text) == busy


def test_env_variable_overrides(monkeypatch):
    monkeypatch.setenv(threads.ENV_VAR, "1")
    assert threads.default_threads() == 1
    monkeypatch.setenv(threads.ENV_VAR, "zero")
    with pytest.raises(ValueError, match=threads.ENV_VAR):
        threads.default_threads()
    monkeypatch.delenv(threads.ENV_VAR)
    monkeypatch.setattr(threads, "busy_cores", lambda: threads.available_cores() + 5)
    # the default does not follow the load (same seed, same labels) ...
    assert threads.default_threads() == threads.available_cores()
    # ... "free" does, never below one thread
    monkeypatch.setenv(threads.ENV_VAR, "free")
    assert threads.default_threads() == 1


def test_small_inputs_run_on_one_thread(monkeypatch):
    monkeypatch.delenv(threads.ENV_VAR, raising=False)
    monkeypatch.setattr(threads, "available_cores", lambda: 4)
    small = hypergraph_sbm(200, 2, n_features=8, random_state=0)
    work = threads.input_work(small)
    assert work == small.incidence.nnz + 200 * 8
    assert threads.default_threads(work) == 1
    assert threads.default_threads(threads.PARALLEL_MIN_WORK) == 4
    assert threads.default_threads() == 4            # size unknown: every core
    assert threads.input_work("not a hypergraph") is None
    monkeypatch.setenv(threads.ENV_VAR, "3")         # the variable wins over the size rule
    assert threads.default_threads(work) == 3


def test_fit_picks_the_thread_count_from_the_input_size(monkeypatch):
    pytest.importorskip("torch")
    monkeypatch.delenv(threads.ENV_VAR, raising=False)
    monkeypatch.setattr(threads, "PARALLEL_MIN_WORK", 10**12)
    est = _Recorder().fit(hypergraph_sbm(40, 2, random_state=0))
    assert est.seen_[0] == 1
    monkeypatch.setattr(threads, "PARALLEL_MIN_WORK", 0)
    est = _Recorder().fit(hypergraph_sbm(40, 2, random_state=0))
    caller = [threads.env_thread_limit() or 10**6, *_blas_threads().values()]
    assert est.seen_[0] == min(threads.available_cores(), *caller)


def test_thread_limit_sets_and_restores_blas_and_torch():
    torch = pytest.importorskip("torch")
    before_blas, before_torch = _blas_threads(), torch.get_num_threads()
    with threads.thread_limit(1) as n:
        assert n == 1 and threads.current_limit() == 1
        assert all(v == 1 for v in _blas_threads().values())
        assert torch.get_num_threads() == 1
        with threads.thread_limit() as inner:  # nested blocks keep the outer limit
            assert inner == 1
    assert _blas_threads() == before_blas and torch.get_num_threads() == before_torch
    assert threads.current_limit() is None
    with pytest.raises(ValueError, match="positive"):
        with threads.thread_limit(0):
            pass


class _Recorder(HypergraphClusterer):
    def __init__(self, n_clusters=2):
        self.n_clusters = n_clusters

    def fit(self, hypergraph, y=None):
        import torch

        self.seen_ = (threads.current_limit(), torch.get_num_threads(),
                      set(_blas_threads().values()))
        self.labels_ = np.zeros(hypergraph.n_nodes, dtype=np.int64)
        return self


def test_every_estimator_fit_runs_under_the_limit(monkeypatch):
    pytest.importorskip("torch")
    monkeypatch.setenv(threads.ENV_VAR, "1")
    hg = hypergraph_sbm(40, 2, random_state=0)
    est = _Recorder().fit(hg)
    assert est.seen_ == (1, 1, {1})
    from hyperclust.cluster.registry import available_methods, make_estimator

    for name in available_methods():  # every registered class is wrapped
        assert getattr(type(make_estimator(name, 2)).fit, "__thread_limited__", False), name


def test_a_fit_never_raises_threads_above_a_threadpool_limits_block(monkeypatch):
    """The policy asks for 2 threads; the caller's threadpool_limits(1) and
    torch.set_num_threads(1) hold inside the fit."""
    torch = pytest.importorskip("torch")
    from threadpoolctl import threadpool_limits

    monkeypatch.setenv(threads.ENV_VAR, "2")
    for var in threads.USER_LIMIT_VARS:
        monkeypatch.delenv(var, raising=False)
    torch_before = torch.get_num_threads()
    hg = hypergraph_sbm(40, 2, random_state=0)
    try:
        torch.set_num_threads(1)
        with threadpool_limits(1):
            est = _Recorder().fit(hg)
            assert set(_blas_threads().values()) <= {1}   # restored to the caller's 1
    finally:
        torch.set_num_threads(torch_before)
    assert est.seen_[0] == 1 and est.seen_[1] == 1 and est.seen_[2] <= {1}


def test_an_explicit_count_is_kept_but_libraries_only_go_down():
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        with threads.thread_limit(3) as n:
            assert n == 3 and threads.current_limit() == 3
            assert set(_blas_threads().values()) <= {1}


def test_a_fit_stays_under_the_environment_limit(monkeypatch):
    pytest.importorskip("torch")
    monkeypatch.setenv(threads.ENV_VAR, "2")
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    est = _Recorder().fit(hypergraph_sbm(40, 2, random_state=0))
    assert est.seen_[0] == 1 and est.seen_[1] == 1 and est.seen_[2] <= {1}
    monkeypatch.setenv("OMP_NUM_THREADS", "not a number")
    assert threads.env_thread_limit() is None or threads.env_thread_limit() >= 1


def test_a_real_fit_in_a_fresh_process_with_omp_num_threads_1(tmp_path):
    """OMP_NUM_THREADS=1 set by the user, the policy asking for 2 on a large input: every
    library threadpoolctl sees runs one thread inside the fit."""
    import os
    import subprocess
    import sys

    script = tmp_path / "probe.py"
    script.write_text(
        "from threadpoolctl import threadpool_info\n"
        "from hyperclust.runtime import threads\n"
        "from hyperclust.cluster.spectral import SpectralHypergraphClustering as S\n"
        "from hyperclust.datasets import hypergraph_sbm\n"
        "threads.PARALLEL_MIN_WORK = 0\n"
        "seen = []\n"
        "class Probe(S):\n"
        "    def fit(self, hypergraph, y=None):\n"
        "        seen.append((threads.current_limit(),\n"
        "                     max(d['num_threads'] for d in threadpool_info())))\n"
        "        return super().fit(hypergraph)\n"
        "Probe(2, random_state=0).fit(hypergraph_sbm(60, 2, random_state=0))\n"
        "print(seen[0])\n")
    env = {**os.environ, "OMP_NUM_THREADS": "1", threads.ENV_VAR: "2"}
    env.pop("OPENBLAS_NUM_THREADS", None)
    env.pop("MKL_NUM_THREADS", None)
    out = subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                         text=True, timeout=120, check=True).stdout
    assert out.strip() == "(1, 1)"


class _LateTorch:
    """Stands for a torch module imported inside a thread_limit block."""

    def __init__(self, n):
        self.n = n

    def get_num_threads(self):
        return self.n

    def set_num_threads(self, n):
        self.n = n


def test_a_torch_imported_inside_a_fit_is_limited_then_given_its_count_back(monkeypatch):
    # a fit that imported torch under its limit left torch on the fit's count afterwards
    monkeypatch.delitem(__import__("sys").modules, "torch", raising=False)
    late = _LateTorch(8)
    with threads.thread_limit(2):
        threads.limit_imported_torch(late)
        assert late.n == 2
        with threads.thread_limit():  # a nested fit: the outer block's hand-over holds
            threads.limit_imported_torch(late)
        assert late.n == 2
    assert late.n == 8
    threads.limit_imported_torch(late)  # outside any block: nothing
    assert late.n == 8


def test_a_torch_imported_before_the_block_is_not_handed_over():
    torch = pytest.importorskip("torch")
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with threads.thread_limit(2):
            threads.limit_imported_torch(torch)  # the block holds it: never raised to 2
            assert torch.get_num_threads() == 1
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(before)


@pytest.mark.parametrize("old, new", [("threads", "threads"), ("kernel_threads", "threads"),
                                      ("progress", "progress")])
def test_former_module_paths_are_deprecated_aliases(old, new):
    import importlib
    import sys

    sys.modules.pop(f"hyperclust.{old}", None)
    with pytest.warns(DeprecationWarning, match=f"hyperclust.runtime.{new}"):
        module = importlib.import_module(f"hyperclust.{old}")
    current = importlib.import_module(f"hyperclust.runtime.{new}")
    assert module.__all__ == current.__all__
    assert all(getattr(module, name) is getattr(current, name) for name in current.__all__)
