"""Scaling benchmark: time of each operation vs hypergraph size, beside the limits it could reach.

Synthetic hypergraph SBMs (``hypergraph_sbm(n, 4, homophily=0.7)``: as many hyperedges as
nodes, sizes uniform in 2..6, so nnz(H) ~ 4 n, many isolated nodes). For each size and each
operation a fresh process (multiprocessing "spawn") builds the graph (not timed), then, under
:func:`hyperclust.runtime.threads.thread_limit` (the thread policy every ``fit`` runs under), times
the operation ``--repeats`` times and, interleaved with it in the same process, its limits:

* **bare kernel**: scipy's own CSR product at the same nnz and width, nothing around it
  (``E = A @ X; Y = A^T @ E`` with ``A`` the float32 incidence, one thread, allocating);
* **bandwidth bound**: the op's compulsory memory traffic (every sparse factor, input and
  output of each product read or written once) divided by the copy bandwidth measured in
  the same process (``np.copyto`` of a 256 MiB array, read + write).

Operations:

* ``PX``     ``P X`` for X of shape (n, 64), float32, into preallocated buffers, with the
             policy's threads (``PropagationOperator.apply``); kernel: one float32 pair;
* ``PX-1t``  the same on one thread (says what the threaded kernel gains);
* ``PX-rcm`` ``PX`` on the hypergraph renumbered by reverse Cuthill-McKee
             (:func:`hyperclust.hypergraph.ordering.reordered`, the cache order the fits use
             from 2^21 incidences; not timed); its kernel is the bare pair on the renumbered
             incidence, its bound the same compulsory bytes;
* ``basis``  Uni-DHC's basis ``[X, PX, ..., P^4 X]``, X (n, 32), float32
             (``polynomial_basis``); kernel: 4 float32 pairs at width 32;
* ``eigsh``  the regularized spectral embedding of ``spectral-zhou`` (4 eigenvectors of the
             regularized normalized Zhou affinity, float64, the estimator's default ``tol``
             for that size; dense ``eigh`` up to 1500 nodes);
             kernel: (its number of operator applications) x one float64 SpMV pair;
* ``spectral-zhou`` the whole ``SpectralHypergraphClustering(4, operator="zhou").fit``
             (components, embedding, k-means); kernel as for ``eigsh``;
* ``unidhc_epoch`` one Uni-DHC training epoch on the basis (``train_unidhc``, epochs=1); no
             kernel; bound: reading the basis once. Up to ``--unidhc-max-nodes`` only.
* ``ahcka``, ``auto`` the whole ``AHCKA(4).fit`` / ``AutoClusterer(4).fit`` (the default
             method; structure-only here, like every row: no kNN search); no kernel; bound:
             reading the incidence once. Up to ``--fit-max-nodes`` only.

Each row records min and median over the repeats, the ratios op/kernel and op/bound (on the
minima), the peak RSS growth of the first repeat, the threads in force (policy limit,
threadpoolctl pools, torch), the load average before and after, the CPU other processes
used while the row ran (``other_cpu``, cores: machine busy time minus this process's, over
the whole row and at least 2 s),
and the commit (``git rev-parse HEAD`` + dirty flag); rows are kept in the harness's store
(``scaling.json``, :class:`hyperclust.bench.ResultStore`, keyed by operation and size). The
growth exponent is the least-squares slope of log(min
time) against log(nnz) over sizes >= 10^4.

Timings are results only on an idle machine: the markdown says whether the run was (other
processes using < 0.1 core during every measurement, measured per row; rows stored without
that measurement need a 1-minute load average < 0.3 before them) and otherwise marks the
table, or the busy rows, as pending an idle rerun. Run it in the background, e.g.

    nice -n 10 python benchmarks/bench_scaling.py > /tmp/scaling.log 2>&1 &
    python benchmarks/bench_scaling.py --sizes 1e3 1e4 1e5 1e6 3e6    # 3e6 is optional
    python benchmarks/bench_scaling.py --quick                          # CI-speed check
"""

from __future__ import annotations

import argparse
import datetime as _dt
import importlib.util
import json
import multiprocessing as mp
import platform
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from hyperclust.bench import markdown_table
from hyperclust.bench.provenance import OTHER_CPU_IDLE, all_idle

OPERATIONS = ("PX", "PX-1t", "PX-rcm", "basis", "eigsh", "spectral-zhou", "unidhc_epoch", "ahcka", "auto")
FIT_OPS = ("ahcka", "auto")
KEY = ("op", "n_nodes")
DEFAULT_SIZES = (1e3, 3e3, 1e4, 3e4, 1e5, 3e5, 1e6)
QUICK_SIZES = (1e3, 1e4)
FLAG_SLOPE = 1.15
MIN_WINDOW_S = 2.0  # shortest window over which others' CPU use is measured
PX_WIDTH = 64
BASIS_WIDTH = 32
BASIS_ORDER = 4
N_CLUSTERS = 4
IDX_BYTES = 4  # int32 CSR indices
STALE_OLD_FORMAT = ("measured before issue 14 (unfolded float64 operator), without a commit, "
                    "and under load: up to 10x off; superseded by the rows above once rerun "
                    "on an idle machine")


# --------------------------------------------------------------------------- limits

def pair_bytes(nnz: int, n: int, m: int, d: int, itemsize: int) -> int:
    """Compulsory bytes of ``Y = A^T (A X)`` (A: m x n, nnz entries; X: n x d): both
    factors (values, indices, row pointers), X read, E = A X written and read, Y written."""
    factors = 2 * nnz * (IDX_BYTES + itemsize) + (n + m + 2) * IDX_BYTES
    return int(factors + 2 * n * d * itemsize + 2 * m * d * itemsize)


def copy_bandwidth(n_bytes: int = 256 * 2**20, repeats: int = 5) -> float:
    """Copy bandwidth in bytes/s (read + write) of ``np.copyto`` on ``n_bytes`` arrays, best
    of ``repeats``."""
    a = np.ones(n_bytes // 8)
    b = np.empty_like(a)
    np.copyto(b, a)  # first touch
    best = min(_timed(lambda: np.copyto(b, a)) for _ in range(repeats))
    return 2 * a.nbytes / best


def _timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


# --------------------------------------------------------------------------- one measurement

def _graph(n):
    from hyperclust.datasets.synthetic import hypergraph_sbm

    return hypergraph_sbm(n, N_CLUSTERS, homophily=0.7, n_features=0, random_state=0)


class _Counter:
    """Counts applications of ``NormalizedAffinity`` (each column of a block counts once)."""

    def __init__(self):
        from hyperclust.operators.eigensolvers import NormalizedAffinity

        self.count = 0
        self._cls = NormalizedAffinity
        self._orig = NormalizedAffinity._apply  # every product goes through _apply
        counter = self

        def counting(op, X):
            counter.count += 1 if np.ndim(X) == 1 else np.shape(X)[1]
            return counter._orig(op, X)

        NormalizedAffinity._apply = counting

    def close(self):
        self._cls._apply = self._orig


def _setup(op, hg, rng):
    """``(op_fn, kernel_fn, kernel_scale, bytes_fn, what, counter)`` of an operation.

    ``kernel_fn`` times the bare kernel once; the kernel time of the op is ``kernel_scale(t)``
    (a function of the measured time, e.g. matvecs x SpMV pair). ``bytes_fn()`` gives the
    compulsory traffic after the op has run once (it may depend on a matvec count).
    """
    import scipy.sparse as sp

    if op == "PX-rcm":
        from hyperclust.hypergraph.ordering import reordered

        hg, _ = reordered(hg)
    n, m, nnz = hg.n_nodes, hg.n_edges, hg.incidence.nnz
    A32 = sp.csr_matrix(hg.incidence_t, dtype=np.float32)  # m x n
    At32 = sp.csr_matrix(hg.incidence, dtype=np.float32)  # n x m

    def pair32(X):
        return lambda: At32 @ (A32 @ X)

    if op in ("PX", "PX-1t", "PX-rcm", "basis", "unidhc_epoch"):
        from hyperclust.models.basis import polynomial_basis
        from hyperclust.operators.propagation import PropagationOperator

        P = PropagationOperator(hg, dtype=np.float32, n_threads=1 if op == "PX-1t" else None)
    if op in ("PX", "PX-1t", "PX-rcm"):
        X = rng.standard_normal((n, PX_WIDTH)).astype(np.float32)
        out, work = np.empty_like(X), P.workspace(PX_WIDTH)
        return (lambda: P.apply(X, out=out, work=work), pair32(X), lambda t: t,
                lambda: pair_bytes(nnz, n, m, PX_WIDTH, 4),
                f"1 float32 SpMM pair, width {PX_WIDTH}", None)
    if op == "basis":
        X = rng.standard_normal((n, BASIS_WIDTH)).astype(np.float32)
        one = pair32(X)

        def kernel():
            for _ in range(BASIS_ORDER):
                one()
        return (lambda: polynomial_basis(P, X, BASIS_ORDER), kernel, lambda t: t,
                lambda: BASIS_ORDER * pair_bytes(nnz, n, m, BASIS_WIDTH, 4),
                f"{BASIS_ORDER} float32 SpMM pairs, width {BASIS_WIDTH}", None)
    if op in ("eigsh", "spectral-zhou"):
        from hyperclust.cluster.spectral import SpectralHypergraphClustering, resolve_settings
        from hyperclust.operators.laplacians import ZhouLaplacian
        from hyperclust.operators.eigensolvers import regularized_embedding

        A64 = sp.csr_matrix(hg.incidence_t, dtype=np.float64)
        At64 = sp.csr_matrix(hg.incidence, dtype=np.float64)
        x = rng.standard_normal(n)
        counter = _Counter()
        est = SpectralHypergraphClustering(N_CLUSTERS, operator="zhou", random_state=0)
        if op == "eigsh":
            M, d = ZhouLaplacian(hg, kind="unnormalized").affinity()
            tau = float(d.mean()) if hg.connected_components()[0] > N_CLUSTERS else 0.0

            def fn():
                counter.count = 0
                regularized_embedding(M, d, N_CLUSTERS, tau=tau, random_state=0,
                                      tol=resolve_settings(n, est.tol, est.n_init)[0])
        else:
            def fn():
                counter.count = 0
                est.fit(hg)

        def spmv():  # 20 pairs, averaged: one is too short to time alone at small n
            for _ in range(20):
                At64 @ (A64 @ x)
        return (fn, spmv, lambda t: counter.count * t / 20,
                lambda: counter.count * pair_bytes(nnz, n, m, 1, 8),
                "matvecs x 1 float64 SpMV pair", counter)
    if op == "unidhc_epoch":
        from hyperclust.models.unidhc import train_unidhc

        B = polynomial_basis(P, rng.standard_normal((n, BASIS_WIDTH)), BASIS_ORDER)
        g0 = np.array([0.0, 0.0, 1.0, 0.0, 0.0])
        return (lambda: train_unidhc(B, hg.incidence, g0, epochs=1, random_state=0), None,
                None, lambda: B.nbytes, "", None)
    if op in FIT_OPS:
        from hyperclust.cluster.ahcka import AHCKA
        from hyperclust.cluster.auto import AutoClusterer

        make = AHCKA if op == "ahcka" else AutoClusterer
        H = hg.incidence
        return (lambda: make(N_CLUSTERS, random_state=0).fit(hg), None, None,
                lambda: H.data.nbytes + H.indices.nbytes + H.indptr.nbytes, "", None)
    raise ValueError(f"unknown operation {op!r}")


def measure(task: dict) -> dict:
    """Run one (operation, size) measurement in this process; returns its row."""
    from hyperclust.bench.memory import PeakMemory
    from hyperclust.bench.provenance import load_average, run_provenance, thread_info
    from hyperclust.runtime.threads import thread_limit

    op, n, repeats = task["op"], int(task["n_nodes"]), int(task["repeats"])
    row = {"op": op, "n_nodes": n, "status": "failed", "mode": task.get("mode", "full")}
    row.update(run_provenance())
    row["load_before"] = row.pop("load_avg_start")
    from hyperclust.bench.provenance import OtherCpu

    # Others' CPU over the whole row (graph building included), at least MIN_WINDOW_S long:
    # /proc/stat counts in 10 ms ticks, too coarse for the milliseconds of a small row.
    other = OtherCpu().__enter__()
    t_row = time.perf_counter()
    try:
        if op == "unidhc_epoch":
            import torch  # noqa: F401 - imported before thread_limit so that it limits torch
        hg = _graph(n)
        row.update(nnz=int(hg.incidence.nnz), n_edges=int(hg.n_edges))
        rng = np.random.default_rng(0)
        with thread_limit(task.get("threads")) as nt:
            row["threads"] = nt
            row["thread_info"] = thread_info()
            bw = copy_bandwidth(task.get("copy_bytes", 256 * 2**20))
            fn, kernel, scale, nbytes, what, counter = _setup(op, hg, rng)
            if op == "PX-1t":
                row["threads_op"] = 1
            times, ktimes, extra = [], [], None
            try:
                for r in range(repeats):
                    if kernel is not None:
                        ktimes.append(_timed(kernel))
                    if r == 0:
                        with PeakMemory() as mem:
                            times.append(_timed(fn))
                        extra = mem.extra_mb
                    else:
                        times.append(_timed(fn))
                time.sleep(max(0.0, MIN_WINDOW_S - (time.perf_counter() - t_row)))
                other.__exit__(None, None, None)
                kernel_times = [scale(t) for t in ktimes]
                bytes_moved = nbytes()
                matvecs = counter.count if counter is not None else None
            finally:
                if counter is not None:
                    counter.close()
        t_min, t_med = float(np.min(times)), float(np.median(times))
        row.update(status="ok", repeats=repeats, times_s=times, other_cpu=other.cores, min_s=t_min, median_s=t_med,
                   extra_mb=extra, copy_gbps=bw / 1e9, bytes=int(bytes_moved),
                   bw_bound_s=bytes_moved / bw, ratio_bw=t_min / (bytes_moved / bw),
                   kernel=what, matvecs=matvecs)
        if kernel_times:
            k_min = float(np.min(kernel_times))
            row.update(kernel_s=kernel_times, kernel_min_s=k_min,
                       ratio_kernel=t_min / k_min if k_min > 0 else None)
    except BaseException as exc:  # recorded: one failing size must not stop the sweep
        if isinstance(exc, KeyboardInterrupt):
            raise
        row["error"] = f"{type(exc).__name__}: {exc}"[:500]
    row["load_after"] = load_average()
    return row


def _child(task, queue):
    queue.put(measure(task))


def run_one(task: dict, time_limit: float, spawn: bool = True) -> dict:
    """``measure(task)`` in a fresh spawned process (killed after ``time_limit`` s)."""
    import queue as _queue

    t0 = time.perf_counter()
    if not spawn:
        res = measure(task)
    else:
        ctx = mp.get_context("spawn")
        q = ctx.Queue()
        p = ctx.Process(target=_child, args=(task, q))
        p.start()
        res, status, error = None, "failed", None
        deadline = t0 + time_limit
        while res is None:  # read before join: a large row must not block the pipe
            try:
                res = q.get(timeout=min(5.0, max(0.01, deadline - time.perf_counter())))
            except _queue.Empty:
                if not p.is_alive():
                    error = f"process exited with code {p.exitcode} without a result"
                    break
                if time.perf_counter() >= deadline:
                    status, error = "timeout", f"over {time_limit:g} s (killed)"
                    break
        p.join(5)
        if p.is_alive():
            p.kill()
            p.join()
        if res is None:
            from hyperclust.bench.provenance import load_average, run_provenance

            res = dict(op=task["op"], n_nodes=int(task["n_nodes"]), **run_provenance())
            res["load_before"] = res.pop("load_avg_start")
            res.update(status=status, error=error, load_after=load_average(),
                       mode=task.get("mode", "full"))
    res["wall_s"] = time.perf_counter() - t0
    res["finished_at"] = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    return res


# --------------------------------------------------------------------------- report

def slope(rows, field="min_s", min_nodes=10_000):
    """Log-log slope of ``field`` against nnz over the ok rows of at least ``min_nodes``."""
    from hyperclust.bench.plots import loglog_slope

    pts = [(r["nnz"], r[field]) for r in rows
           if r.get("status") == "ok" and r["n_nodes"] >= min_nodes and (r.get(field) or 0) > 0]
    return loglog_slope(*zip(*pts)) if len(pts) >= 2 else None


def conditions() -> dict:
    """The machine and software of this run (recorded once in scaling.json)."""
    import scipy
    import sklearn

    from hyperclust.bench.provenance import git_commit, load_average, thread_info
    from hyperclust.operators import compiled_spmm
    from hyperclust.runtime.threads import available_cores, default_threads

    cpu = ""
    try:
        with open("/proc/cpuinfo") as fh:
            cpu = next((line.split(":", 1)[1].strip() for line in fh
                        if line.startswith("model name")), "")
    except OSError:
        pass
    try:
        import torch

        torch_info = {"version": torch.__version__, "threads": torch.get_num_threads()}
    except ImportError:
        torch_info = None
    compiled = importlib.util.find_spec("numba") and compiled_spmm.enabled()  # [fast] extra
    return {"date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            "host": platform.node(), "cpu": cpu, "cores": available_cores(),
            "compiled_kernel": bool(compiled),
            "policy_threads_now": default_threads(), "python": platform.python_version(),
            "numpy": np.__version__, "scipy": scipy.__version__, "sklearn": sklearn.__version__,
            "torch": torch_info, "thread_info": thread_info(), **git_commit(),
            "load_avg": load_average()}


def _f(x, fmt="{:.3g}"):
    return "" if x is None else fmt.format(x)


def _load1(row, key):
    v = row.get(key)
    return None if not v else v[0]


def _short(commit, dirty):
    if not commit:
        return "unknown"
    return commit[:10] + ("+dirty" if dirty else "")


def markdown(data: dict, head_commit: str | None = None) -> str:
    """scaling.md from the contents of scaling.json."""
    from hyperclust.bench.provenance import IDLE_LOAD

    rows = [r for r in data["rows"]]
    cond = data.get("conditions", {})
    ok = [r for r in rows if r.get("status") == "ok"]
    loads = [_load1(r, "load_before") for r in ok if _load1(r, "load_before") is not None]
    # Idle: other processes used less than OTHER_CPU_IDLE cores during every measurement,
    # measured per row (OtherCpu). The 1-minute load average is only reported: it lags by
    # minutes and counts this benchmark's own work, including an invocation that has just
    # ended, so it cannot tell an idle machine from one this benchmark has just used.
    start = (cond.get("load_avg") or [None])[0]
    busy = [r.get("other_cpu") for r in ok]
    measured = bool(busy) and all(b is not None for b in busy)
    if measured:
        idle = all_idle(busy)
    else:  # rows without the measurement: every measurement must start below IDLE_LOAD
        idle = bool(loads) and max(loads) < IDLE_LOAD
    L = ["# Scaling benchmark", ""]
    n_busy = sum(1 for b in busy if b is None or b >= OTHER_CPU_IDLE)
    if not idle and measured and n_busy < len(ok):
        L += [f"> **Partly pending an idle rerun.** Other processes used >= {OTHER_CPU_IDLE} "
              f"core during {n_busy} of {len(ok)} rows (marked **busy** in the *others' CPU* "
              f"column, up to {max((b or 0 for b in busy), default=0):.2f} cores): those rows "
              "are pending an idle rerun; the other rows are idle measurements.", ""]
    elif not idle:
        L += [f"> **Pending an idle rerun.** These timings were taken with a 1-minute load "
              f"average of {min(loads, default=float('nan')):.2f}..{max(loads, default=float('nan')):.2f} "
              f"and other processes using up to {max((b or 0 for b in busy), default=0):.2f} "
              f"cores during a measurement (idle means < {OTHER_CPU_IDLE} cores used by others "
              f"during every measurement; rows stored without that measurement: a load "
              f"average < {IDLE_LOAD} before them) on a machine shared with other jobs: they show "
              "that the benchmark runs and the ratios to the bare kernel measured in the same "
              "process, not what the code achieves. Rerun on an idle machine with "
              "`python benchmarks/bench_scaling.py` before quoting any number.", ""]
    L += ["Generated by `benchmarks/bench_scaling.py` (its docstring defines every column). "
          f"Synthetic `hypergraph_sbm(n, {N_CLUSTERS}, homophily=0.7)`, nnz(H) ~ 4n. Each "
          "(operation, size) runs in a fresh process under the thread policy; times are min "
          "and median over the repeats; **kernel** = scipy's bare CSR product at the same nnz "
          "and width (same process, interleaved with the repeats); **bound** = compulsory "
          "bytes / measured copy bandwidth; ratios use the minima.", "",
          "## Conditions", ""]
    if cond:
        ti = cond.get("thread_info") or {}
        pools = ", ".join(f"{p.get('internal_api')} {p.get('version')} x{p.get('num_threads')}"
                          for p in (ti.get("pools") or [])) or "none loaded"
        torch_info = cond.get("torch") or {}
        L += [f"- date {cond.get('date')}, host `{cond.get('host')}`, CPU {cond.get('cpu')}, "
              f"{cond.get('cores')} usable cores",
              f"- commit `{_short(cond.get('commit'), cond.get('dirty'))}`; python "
              f"{cond.get('python')}, numpy {cond.get('numpy')}, scipy {cond.get('scipy')}, "
              f"scikit-learn {cond.get('sklearn')}, torch "
              f"{torch_info.get('version', 'not installed')}",
              f"- threads: policy limit at start {cond.get('policy_threads_now')}; BLAS/OpenMP "
              f"pools (threadpoolctl, outside any limit) {pools}; torch.get_num_threads() "
              f"{torch_info.get('threads', 'n/a')}; per-row threads in the tables",
              f"- load average (1/5/15 min) at start {cond.get('load_avg')}, at end "
              f"{data.get('load_avg_end')}; per-row load before/after in scaling.json",
              f"- {'idle' if idle else 'NOT idle'}: CPU used by other processes during a "
              f"measurement (`hyperclust.bench.provenance.OtherCpu`): max "
              f"{max((b or 0 for b in busy), default=0):.2f} cores (idle: < {OTHER_CPU_IDLE} "
              f"on every row); 1-minute load average {start} when the last run started "
              "(reported only: it lags by minutes and includes this benchmark's own work, "
              "also of a run that has just ended)", ""]
    L += ["## Per operation", ""]
    for op in OPERATIONS:
        sel = sorted((r for r in rows if r["op"] == op), key=lambda r: r["n_nodes"])
        if not sel:
            continue
        L += [f"### `{op}`", ""]
        kern = next((r.get("kernel") for r in sel if r.get("kernel")), "")
        if kern:
            L += [f"Kernel: {kern}.", ""]
        cells = []
        for r in sel:
            thr = r.get("threads_op", r.get("threads"))
            commit = _short(r.get("commit"), r.get("dirty"))
            if head_commit and r.get("commit") and r["commit"] != head_commit:
                commit += " (older commit)"
            load = f"{_f(_load1(r, 'load_before'), '{:.2f}')}/{_f(_load1(r, 'load_after'), '{:.2f}')}"
            if r.get("status") != "ok":
                cells.append([f"{r['n_nodes']:,}", r.get("nnz", ""), thr or "", load,
                              _f(r.get("other_cpu"), "{:.2f}"),
                              f"*{r.get('status')}*: {r.get('error', '')}"] + [""] * 8 + [commit])
                continue
            cells.append([
                f"{r['n_nodes']:,}", f"{r['nnz']:,}", thr, load,
                _f(r.get("other_cpu"), "{:.2f}") + (
                    " **busy**" if (r.get("other_cpu") or 0) >= OTHER_CPU_IDLE else ""),
                _f(r["min_s"], "{:.4g}"), _f(r["median_s"], "{:.4g}"),
                _f(r.get("kernel_min_s"), "{:.4g}"), _f(r.get("ratio_kernel"), "{:.2f}"),
                _f(r.get("bw_bound_s"), "{:.3g}"), _f(r.get("ratio_bw"), "{:.1f}"),
                _f(r.get("matvecs"), "{:d}"), _f(r.get("extra_mb"), "{:.0f}"),
                r.get("repeats", ""), commit])
        L += markdown_table(["nodes", "nnz(H)", "threads", "load 1m before/after", "others' CPU",
                             "min s", "median s", "kernel s", "op/kernel", "bound s", "op/bound",
                             "matvecs", "peak +MiB", "repeats", "commit"], cells)
        L.append("")
    growth = []
    for op in OPERATIONS:
        sel = [r for r in ok if r["op"] == op]
        if not sel:
            continue
        s = slope(sel)
        ns = sorted(r["n_nodes"] for r in sel)
        flag = "faster than linear" if s is not None and s > FLAG_SLOPE else ""
        growth.append([f"`{op}`", f"{ns[0]:.0e}..{ns[-1]:.0e}", _f(s, "{:.2f}"), flag])
    L += ["## Growth", "",
          "Least-squares slope of log(min time) against log(nnz) over sizes >= 10^4; "
          f"> {FLAG_SLOPE} is flagged.", ""]
    L += markdown_table(["operation", "sizes", "slope", "flag"], growth) + [""]
    stale = data.get("stale_rows") or []
    if stale:
        L += ["## Stale rows (kept for the record, not results)", "",
              f"Reason: {data.get('stale_reason', STALE_OLD_FORMAT)}.", ""]
        L += markdown_table(["operation", "nodes", "nnz(H)", "time s", "status"], [
            [f"`{r.get('op')}`", f"{r.get('n_nodes', ''):,}", r.get("nnz", ""),
             _f(r.get("time_s"), "{:.3g}"), f"{r.get('status')} (stale)"]
            for r in sorted(stale, key=lambda r: (r.get("op", ""), r.get("n_nodes", 0)))])
        L.append("")
    return "\n".join(L)


def plot(rows, path):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7, 4.5), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.subplots()
    for i, op in enumerate(OPERATIONS):
        ok = sorted((r for r in rows if r["op"] == op and r.get("status") == "ok"),
                    key=lambda r: r["nnz"])
        if not ok:
            continue
        x = [r["nnz"] for r in ok]
        ax.loglog(x, [max(r["min_s"], 1e-5) for r in ok], "o-", color=f"C{i}", label=op)
        if any(r.get("kernel_min_s") for r in ok):
            ax.loglog([r["nnz"] for r in ok if r.get("kernel_min_s")],
                      [max(r["kernel_min_s"], 1e-5) for r in ok if r.get("kernel_min_s")],
                      ":", color=f"C{i}", lw=1)
    ax.set_xlabel("nnz(H)")
    ax.set_ylabel("time (s), min over repeats; dotted: bare kernel")
    ax.legend(fontsize=7)
    fig.savefig(path, dpi=80)


def open_store(path: Path):
    """The store of scaling.json, with rows of the pre-issue-14 format (no provenance)
    moved to its ``stale_rows``."""
    from hyperclust.bench import ResultStore

    store = ResultStore(path, key=KEY)
    old = [r for r in store.runs if "commit" not in r]
    if old:
        store.remove(old)
        store.meta["stale_rows"] = (store.meta.get("stale_rows") or []) + old
        store.meta.setdefault("stale_reason", STALE_OLD_FORMAT)
    return store


def load_store(path: Path) -> dict:
    """scaling.json as :func:`markdown` reads it: ``rows`` and the store's other fields."""
    return as_data(open_store(path))


def as_data(store) -> dict:
    return {**store.meta, "rows": store.runs}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", nargs="+", type=float, default=None,
                    help=f"node counts (default {' '.join(f'{s:.0e}' for s in DEFAULT_SIZES)}; "
                         "3e6 is optional)")
    ap.add_argument("--ops", nargs="+", default=list(OPERATIONS), choices=OPERATIONS)
    ap.add_argument("--repeats", type=int, default=None, help="timed runs per row (default 5)")
    ap.add_argument("--threads", type=int, default=None,
                    help="thread limit (default: the thread policy's, per measurement)")
    ap.add_argument("--unidhc-max-nodes", type=float, default=1e5)
    ap.add_argument("--fit-max-nodes", type=float, default=1e6,
                    help="largest size of the ahcka and auto rows")
    ap.add_argument("--time-limit", type=float, default=1800.0, help="seconds per row")
    ap.add_argument("--quick", action="store_true",
                    help="CI-speed check: sizes 1e3 1e4, 2 repeats, Uni-DHC at 1e3 only, "
                         "output to a temporary directory unless --out is given")
    ap.add_argument("--out", default=None, help="default docs/results/bench")
    ap.add_argument("--report-only", action="store_true",
                    help="rewrite scaling.md from --out's scaling.json without measuring")
    ap.add_argument("--no-spawn", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.quick:
        sizes = args.sizes or QUICK_SIZES
        repeats = args.repeats or 2
        unidhc_max = min(args.unidhc_max_nodes, 1e3)
        out = Path(args.out or tempfile.mkdtemp(prefix="hyperclust-scaling-quick-"))
    else:
        sizes = args.sizes or DEFAULT_SIZES
        repeats = args.repeats or 5
        unidhc_max = args.unidhc_max_nodes
        out = Path(args.out or "docs/results/bench")
    if repeats < 1:
        ap.error("--repeats must be >= 1")
    out.mkdir(parents=True, exist_ok=True)
    json_path = out / "scaling.json"
    store = open_store(json_path)
    if args.report_only:
        from hyperclust.bench.provenance import git_commit

        (out / "scaling.md").write_text(markdown(as_data(store), head_commit=git_commit()["commit"]))
        print(f"wrote {out / 'scaling.md'}")
        return 0
    store.meta["conditions"] = conditions()
    head = store.meta["conditions"].get("commit")
    for op in args.ops:
        for n in sorted(int(s) for s in sizes):
            if op == "unidhc_epoch" and n > unidhc_max:
                continue
            if op in FIT_OPS and n > args.fit_max_nodes:
                continue
            task = {"op": op, "n_nodes": n, "repeats": repeats, "threads": args.threads,
                    "mode": "quick" if args.quick else "full",
                    "copy_bytes": 64 * 2**20 if args.quick else 256 * 2**20}
            res = run_one(task, args.time_limit, spawn=not args.no_spawn)
            store.add(res)
            print(json.dumps({k: res.get(k) for k in ("op", "n_nodes", "status", "min_s",
                                                      "median_s", "kernel_min_s", "ratio_kernel",
                                                      "threads", "load_before", "error")}),
                  flush=True)
            if res["status"] != "ok":
                break  # larger sizes would fail the same way
    from hyperclust.bench.provenance import load_average

    store.meta["load_avg_end"] = load_average()
    store.save()
    md = markdown(as_data(store), head_commit=head)
    (out / "scaling.md").write_text(md)
    try:
        plot(store.runs, out / "scaling_synthetic.png")
    except ImportError:  # matplotlib is optional
        pass
    print(f"wrote {out / 'scaling.md'} and {json_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
