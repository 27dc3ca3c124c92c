"""The benchmark runner: datasets x methods x seeds x protocols, each run in its own process
with a memory and a time cap, results accumulating (and resumed) in ``OUT/results.json``.
"""

from __future__ import annotations

import datetime as _dt
import json
import numbers
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .data import canonical_protocol
from .seeds import seed_list
from .store import ResultStore, run_key

__all__ = ["run_benchmark", "ResultStore", "run_key", "STATUSES"]

STATUSES = ("ok", "failed", "timeout", "oom", "unavailable", "skipped")
_THREAD_VARS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                "NUMEXPR_NUM_THREADS")


def _as_list(value, what):
    if isinstance(value, str):
        return [value]
    out = list(value)
    if not out:
        raise ValueError(f"{what} must not be empty")
    for v in out:
        if not isinstance(v, str) or not v:
            raise TypeError(f"{what} must be non-empty strings, got {v!r}")
    return out


def _child_env(threads):
    env = dict(os.environ)
    # The child must import exactly what this process imports (editable installs, test dirs).
    paths = [p for p in sys.path if p and os.path.isdir(p)]
    env["PYTHONPATH"] = os.pathsep.join(paths)
    if threads:
        for var in _THREAD_VARS:
            env[var] = str(int(threads))
    return env


def _tail(path: Path, n: int = 1500) -> str:
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return ""
    return text[-n:].strip()


#: Imported once by the fork server so that each run starts without paying for them; the
#: providers of methods are not preloaded (they may be edited while a long grid runs).
_PRELOAD = ["numpy", "scipy.sparse", "scipy.sparse.linalg", "sklearn.cluster", "torch",
            "hyperclust.bench.worker", "hyperclust.metrics", "hyperclust.cluster.base",
            "hyperclust.datasets"]
_START_METHODS = ("forkserver", "subprocess")


def _launch_forkserver(spec, tmp, log_path):
    """The run's (not yet started) process, forked from the preloaded server."""
    import multiprocessing as mp

    ctx = mp.get_context("forkserver")
    ctx.set_forkserver_preload(_PRELOAD)
    from .worker import child_main

    return ctx.Process(target=child_main, args=(spec, str(tmp / "out.json"), str(log_path)),
                       daemon=False)


def _launch_subprocess(spec, tmp, log_path, env):
    spec_path = tmp / "spec.json"
    spec_path.write_text(json.dumps(spec))
    with open(log_path, "w") as log:
        return subprocess.Popen(
            [sys.executable, "-m", "hyperclust.bench.worker", str(spec_path), str(tmp / "out.json")],
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
            start_new_session=True)


def _kill_group(proc):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        try:
            proc.kill()
        except (ProcessLookupError, OSError):
            pass


def _wait(proc, time_limit):
    """Wait up to ``time_limit`` s, then kill the run's group: ``(exit code, timed out)``."""
    if isinstance(proc, subprocess.Popen):
        try:
            return proc.wait(timeout=time_limit), False
        except subprocess.TimeoutExpired:
            pass
    else:
        proc.join(time_limit)
        if proc.exitcode is not None:
            return proc.exitcode, False
    _kill_group(proc)
    if isinstance(proc, subprocess.Popen):
        return proc.wait(), True
    proc.join()
    return proc.exitcode, True


def _run_isolated(spec: dict, time_limit, log_path: Path, env, start_method) -> dict:
    with tempfile.TemporaryDirectory(prefix="hcbench-") as tmpdir:
        tmp = Path(tmpdir)
        out_path = tmp / "out.json"
        t0 = time.perf_counter()
        if start_method == "subprocess":
            proc = _launch_subprocess(spec, tmp, log_path, env)
        else:
            proc = _launch_forkserver(spec, tmp, log_path)
        try:
            if start_method != "subprocess":
                proc.start()
            rc, timed_out = _wait(proc, time_limit)
        except BaseException:
            # Interrupted (Ctrl-C, SIGTERM via the CLI): the run has its own session and
            # would outlive us, so end it here.
            if proc.pid is not None:
                _kill_group(proc)
            raise
        wall = time.perf_counter() - t0
        base = {k: spec[k] for k in ("dataset", "method", "seed", "protocol")}
        if timed_out:
            rec = dict(base, status="timeout", metrics=None,
                       error=f"exceeded the time limit of {time_limit:g} s (killed)")
        elif out_path.exists():
            rec = json.loads(out_path.read_text())
        else:
            tail = _tail(log_path)
            killed = rc == -signal.SIGKILL
            oom = killed or "MemoryError" in tail or "bad_alloc" in tail
            rec = dict(base, status="oom" if oom else "failed", metrics=None,
                       error=f"run process exited with code {rc} without a result"
                             + (" (killed by SIGKILL: likely out of memory)" if killed else "")
                             + (f"; output tail: {tail}" if tail else ""))
    rec["wall_s"] = wall
    rec["exit_code"] = rc
    return rec


def _provenance() -> dict:
    """The runner's view of a run's provenance (for runs that recorded none)."""
    try:
        from .provenance import run_provenance

        rec = run_provenance()
        rec.pop("threads", None)
        return rec
    except Exception:  # pragma: no cover - provenance is a by-product
        return {"commit": None}


def _check_limits(time_limit, memory_limit, start_method, retry) -> set:
    """Validate the caps and start method; return the statuses to retry as a set."""
    if not (isinstance(time_limit, numbers.Real) and time_limit > 0):
        raise ValueError(f"time_limit must be a positive number of seconds, got {time_limit!r}")
    if memory_limit is not None and not (isinstance(memory_limit, numbers.Real) and memory_limit > 0):
        raise ValueError(f"memory_limit must be a positive number of MiB or None, got {memory_limit!r}")
    if start_method not in _START_METHODS:
        raise ValueError(f"start_method must be one of {_START_METHODS}, got {start_method!r}")
    retry = set(retry)
    unknown = retry - set(STATUSES)
    if unknown:
        raise ValueError(f"retry statuses must be among {STATUSES}, got {sorted(unknown)}")
    return retry


def _skip_cause(runs, spec, skip_after, retry):
    """A stored run of another seed of ``spec``'s group that ended with a ``skip_after`` status, or None."""
    group = (spec["dataset"], spec["method"], spec["protocol"])
    return next((r for r in runs if r.get("status") in skip_after
                 and r.get("status") not in retry and int(r["seed"]) != spec["seed"]
                 and (r["dataset"], r["method"], r["protocol"]) == group), None)


def _run_one_isolated(spec, time_limit, logs: Path, env, start_method) -> dict:
    """Run ``spec`` in its own process; its record stamped with caps, provenance, finish time."""
    safe = "_".join(str(spec[k]) for k in ("dataset", "method", "protocol", "seed"))
    safe = "".join(c if c.isalnum() or c in "-._" else "_" for c in safe)
    prov = _provenance()
    rec = _run_isolated(spec, time_limit, logs / f"{safe}.log", env, start_method)
    for key, value in prov.items():  # runs that left no record (timeout, crash)
        rec.setdefault(key, value)
    rec.update(time_limit_s=float(time_limit), memory_limit_mb=spec["memory_limit_mb"],
               threads=spec["threads"], device=spec["device"],
               finished_at=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"))
    return rec


def _run_grid(store, grid, options, time_limit, logs: Path, start_method, skip_after,
              retry, progress) -> None:
    """Run each spec of ``grid`` not yet in ``store`` (or to retry, or skipped) into ``store``."""
    from tqdm.auto import tqdm

    logs.mkdir(parents=True, exist_ok=True)
    env = _child_env(options["threads"])
    todo = []
    for spec in grid:
        old = store.get(run_key(spec))
        # Skipped runs are reconsidered each time: their cause may have been retried.
        if old is None or old.get("status") in retry or old.get("status") == "skipped":
            todo.append(spec)
    bar = tqdm(total=len(grid), initial=len(grid) - len(todo), disable=not progress,
               desc="bench", unit="run", dynamic_ncols=True)
    try:
        for spec in todo:
            cause = _skip_cause(store.runs, spec, skip_after, retry)
            if cause is not None:
                store.add(dict(spec, status="skipped", metrics=None,
                               error=f"not run: seed {cause['seed']} of this dataset, method and "
                                     f"protocol ended with {cause['status']}"))
            else:
                bar.set_postfix_str(f"{spec['dataset']}/{spec['method']}/{spec['protocol']}"
                                    f"/s{spec['seed']}")
                store.add(_run_one_isolated(dict(spec, **options), time_limit, logs, env,
                                            start_method))
            bar.update(1)
    finally:
        bar.close()


def run_benchmark(datasets, methods, seeds=5, out_dir="bench-results", data_dir=None, *,
                  time_limit: float = 300.0, memory_limit: float | None = 8192,
                  protocol="all", device: str = "cpu", threads: int | None = None,
                  retry=(), unlabelled_clusters: int = 10, start_method: str = "forkserver",
                  skip_after=("timeout", "oom", "unavailable"), progress: bool = True,
                  report: bool = True, published=None, plots: bool = True,
                  plugins=()) -> list[dict]:
    """Run the grid and return every record in ``out_dir/results.json``.

    Parameters
    ----------
    datasets : str or list of str
        Names for :func:`hyperclust.bench.data.resolve_dataset`.
    methods : str or list of str
        Registry names (peers included) or ``module:factory``.
    seeds : int or list of int
        ``N`` means seeds ``0..N-1``.
    out_dir : path
        Receives ``results.json``, ``logs/`` and (with ``report``) ``report.md`` and plots.
    data_dir : path, optional
    time_limit : float
        Wall-clock seconds per run; then the run is killed and recorded as ``timeout``.
    memory_limit : float or None
        Address-space cap per run in MiB (beyond it: ``oom``); None for none.
    protocol : str or list of str
        ``all``, ``isolated-removed`` (alias ``covered``) and/or ``lcc``.
    device : str
    threads : int, optional
        Sets ``OMP_NUM_THREADS`` etc. in each run's process.
    retry : iterable of str
        Statuses whose recorded runs are run again.
    unlabelled_clusters : int
        Clusters for datasets without labels (timing only).
    start_method : {"forkserver", "subprocess"}
        Fork from a preloaded server (fast) or start a fresh interpreter.
    skip_after : iterable of str
        After a seed ends with one of these, the group's other seeds are ``skipped``.
    progress : bool
    report, published, plots
        Write ``report.md`` (with the published-results CSV) and the plots after the grid.
    plugins : iterable of str
        Modules each run imports first.

    Examples
    --------
    >>> import tempfile
    >>> runs = run_benchmark("synthetic-h0.9-n100-k2", "spectral-zhou", seeds=1,
    ...                      out_dir=tempfile.mkdtemp(), progress=False, report=False,
    ...                      start_method="subprocess")
    >>> [(r["method"], r["status"], r["metrics"]["acc"]) for r in runs]
    [('spectral-zhou', 'ok', 1.0)]
    """
    grid = _grid(datasets, methods, seeds, protocol)
    retry = _check_limits(time_limit, memory_limit, start_method, retry)
    out, options = Path(out_dir), _run_options(data_dir, memory_limit, device, threads,
                                               unlabelled_clusters, plugins)
    store = ResultStore(out / "results.json")
    _run_grid(store, grid, options, time_limit, out / "logs", start_method, set(skip_after),
              retry, progress)
    if report:
        from .report import write_report

        write_report(store.runs, out, published=published, plots=plots)
    return store.runs


def _run_options(data_dir, memory_limit, device, threads, unlabelled_clusters,
                 plugins) -> dict:
    options = dict(data_dir=None if data_dir is None else str(data_dir),
                   memory_limit_mb=memory_limit, device=device, threads=threads,
                   unlabelled_clusters=int(unlabelled_clusters))
    return dict(options, plugins=list(plugins)) if plugins else options


def _grid(datasets, methods, seeds, protocol) -> list[dict]:
    """Every (dataset, method, seed, protocol) run, protocols before methods and seeds."""
    datasets = _as_list(datasets, "datasets")
    methods = _as_list(methods, "methods")
    seeds = seed_list(seeds)
    protocols = [canonical_protocol(p) for p in _as_list(protocol, "protocol")]
    return [dict(dataset=d, method=m, seed=s, protocol=p)
            for d in datasets for p in protocols for m in methods for s in seeds]
