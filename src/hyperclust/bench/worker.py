"""One benchmark run in its own process (``python -m hyperclust.bench.worker SPEC OUT``): load,
fit, score, write one JSON record; failures land in the record (``failed``, ``oom``,
``unavailable``), the parent records ``timeout`` and crashes.
"""

from __future__ import annotations

import importlib
import json
import os
import resource
import sys
import time
import traceback

from ..cluster.registry import MissingDependency

__all__ = ["run_one", "make_method", "classify_error", "main"]

#: Eigenvalues of Zhou's normalized Laplacian I - P lie in [0, 1] for the propagation
#: operator P used here (P is PSD), so learned filters are drawn on that range.
RESPONSE_LAMBDAS = [i / 50 for i in range(51)]

_OOM_MARKERS = ("can't allocate memory", "cannot allocate memory", "out of memory",
                "std::bad_alloc", "unable to allocate", "memoryerror")


def classify_error(exc: BaseException) -> str:
    """``"oom"`` for allocation failures (under the address-space cap), else ``"failed"``.

    Examples
    --------
    >>> classify_error(MemoryError()), classify_error(RuntimeError("CUDA out of memory"))
    ('oom', 'oom')
    >>> classify_error(ValueError("n_clusters=5 exceeds the number of nodes (4)"))
    'failed'
    """
    if isinstance(exc, MemoryError):
        return "oom"
    text = f"{type(exc).__name__}: {exc}".lower()
    return "oom" if any(m in text for m in _OOM_MARKERS) else "failed"


def make_method(method: str, n_clusters: int, seed: int, device: str):
    """Unfitted estimator for ``method``: a registry name, or ``module:factory(n_clusters, random_state, device)``.

    Examples
    --------
    >>> est = make_method("spectral-zhou", 3, 7, "cpu")
    >>> type(est).__name__, est.n_clusters, est.random_state
    ('SpectralHypergraphClustering', 3, 7)
    """
    if ":" in method:
        from .data import import_object

        return import_object(method)(n_clusters, seed, device)
    from ..cluster.registry import make_estimator

    return make_estimator(method, n_clusters, random_state=seed, device=device)


def _jsonable(value):
    try:
        json.dumps(value)
        return value
    except (TypeError, ValueError):
        if hasattr(value, "tolist"):
            return _jsonable(value.tolist())
        if isinstance(value, dict):
            return {str(k): _jsonable(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [_jsonable(v) for v in value]
        return repr(value)


def _learned_filter(est) -> dict:
    out = {}
    if hasattr(est, "spectral_response"):
        try:
            import numpy as np

            lam = np.asarray(RESPONSE_LAMBDAS)
            out["filter_lambdas"] = RESPONSE_LAMBDAS
            out["filter_response"] = [round(float(v), 6)
                                      for v in np.asarray(est.spectral_response(lam)).ravel()]
        except Exception as exc:  # the response is a by-product: never fail the run for it
            out["filter_error"] = f"{type(exc).__name__}: {exc}"
    if hasattr(est, "coefficients_"):
        out["coefficients"] = _jsonable(getattr(est, "coefficients_"))
    return out


def _stats(hg) -> dict:
    import numpy as np

    out = {"n_nodes": int(hg.n_nodes), "n_edges": int(hg.n_edges), "nnz": int(hg.incidence.nnz)}
    labels = hg.labels
    out["n_labelled"] = 0 if labels is None else int((labels >= 0).sum())
    out["n_classes"] = int(hg.n_classes)
    if out["n_classes"] > 0 and hg.n_edges:
        h = hg.homophily()
        out["homophily"] = None if not np.isfinite(h["pairwise"]) else float(h["pairwise"])
    return out


def run_one(spec: dict) -> dict:
    """Execute the run ``spec`` describes in this process and return its record.

    Parameters
    ----------
    spec : dict
        ``dataset, method, seed, protocol``; optional ``data_dir``, ``device``, ``threads``,
        ``unlabelled_clusters`` (k without labels, timing only), ``plugins`` (imported first).

    Returns
    -------
    dict
        The spec's keys, ``status`` (``ok``, ``failed``, ``oom``, ``unavailable``), ``error``,
        ``metrics``, times, memory, data statistics and provenance.

    Examples
    --------
    >>> rec = run_one({"dataset": "synthetic-h1.0-n60-k2", "method": "spectral-zhou",
    ...                "seed": 0, "protocol": "all"})
    >>> rec["status"], rec["n_nodes"], rec["n_clusters"], rec["metrics"]["acc"]
    ('ok', 60, 2, 1.0)
    >>> bad = run_one({"dataset": "synthetic-h1.0-n60-k2", "method": "no.such:factory",
    ...                "seed": 0, "protocol": "all"})
    >>> bad["status"], bad["error"]
    ('failed', "[build] ModuleNotFoundError: No module named 'no'")
    """
    from .memory import current_rss_mb, max_rss_mb

    rec = {k: spec[k] for k in ("dataset", "method", "seed", "protocol")}
    rec.update(status="failed", error=None, metrics=None, fit_time_s=None, load_time_s=None)
    rec.update(_provenance())
    stage = ["plugins"]
    try:
        _run_stages(spec, rec, stage)
        rec["status"] = "ok"
    except MissingDependency as exc:  # a peer library that is not installed
        rec["status"] = "unavailable"
        rec["error"] = str(exc)
    except BaseException as exc:  # recorded, never raised: one bad run must not stop others
        if isinstance(exc, KeyboardInterrupt):
            raise
        rec["status"] = classify_error(exc)
        tb = traceback.format_exc(limit=-4)
        rec["error"] = f"[{stage[0]}] {type(exc).__name__}: {exc}"[:2000]
        rec["traceback"] = tb[-4000:]
    rec["peak_rss_mb"] = max_rss_mb()
    rec["final_rss_mb"] = current_rss_mb()
    return rec


def _run_stages(spec: dict, rec: dict, stage: list) -> None:
    """Plugins, load, build, fit and score ``spec``'s run into ``rec``; ``stage[0]`` names the stage running."""
    from .data import apply_protocol, resolve_dataset

    for module in spec.get("plugins") or ():
        importlib.import_module(module)
    stage[0] = "load"
    t0 = time.perf_counter()
    hg = apply_protocol(resolve_dataset(spec["dataset"], spec.get("data_dir")),
                        spec["protocol"])
    rec["load_time_s"] = time.perf_counter() - t0
    stage[0] = "stats"
    rec.update(_stats(hg))
    labelled = rec["n_classes"] > 0
    k = rec["n_classes"] if labelled else int(spec.get("unlabelled_clusters", 10))
    k = min(k, hg.n_nodes)
    rec["n_clusters"] = k
    rec["timing_only"] = not labelled
    stage[0] = "build"
    est = make_method(spec["method"], k, int(spec["seed"]), spec.get("device", "cpu"))
    if hasattr(est, "get_params"):
        rec["params"] = _jsonable(est.get_params(deep=False))
    stage[0] = "fit"
    _fit(est, hg, spec.get("threads") or None, rec)
    stage[0] = "evaluate"
    _evaluate(est, hg, labelled, rec)
    rec.update(_learned_filter(est))


def _fit(est, hg, threads, rec: dict) -> None:
    from ..runtime.threads import thread_limit
    from .memory import PeakMemory

    # the estimator's own thread_limit keeps this (outer) one, so this is its count
    with PeakMemory() as mem, thread_limit(threads) as n_threads:
        rec["threads_used"] = n_threads
        t0 = time.perf_counter()
        est.fit(hg)
        rec["fit_time_s"] = time.perf_counter() - t0
    rec["fit_extra_mb"] = mem.extra_mb
    rec["rss_before_fit_mb"] = mem.start_mb


def _evaluate(est, hg, labelled: bool, rec: dict) -> None:
    """Cluster counts of ``est.labels_`` and, with labels, the metrics."""
    import numpy as np

    pred = np.asarray(est.labels_).reshape(-1)
    if pred.shape[0] != hg.n_nodes:
        raise ValueError(f"labels_ has {pred.shape[0]} entries for {hg.n_nodes} nodes")
    rec["n_predicted_clusters"] = int(np.unique(pred[pred >= 0]).size)
    rec["n_unassigned"] = int((pred < 0).sum())
    if labelled:
        from ..metrics import evaluate

        # Nodes a method leaves unassigned (-1, e.g. a peer that skips isolated nodes)
        # count as wrong: they form one extra cluster rather than being dropped.
        pred = np.where(pred < 0, pred.max(initial=0) + 1, pred)
        rec["metrics"] = {m: float(v) for m, v in evaluate(hg.labels, pred).items()}


def _provenance() -> dict:
    """Commit, version and load at the start of the run; never fails the run."""
    try:
        from .provenance import run_provenance

        rec = run_provenance()
        rec.pop("threads", None)  # the fit's thread count is recorded as threads_used
        return rec
    except Exception as exc:  # pragma: no cover - provenance is a by-product
        return {"commit": None, "provenance_error": f"{type(exc).__name__}: {exc}"}


def _limit_memory(limit_mb):
    if limit_mb:
        limit = int(limit_mb * 2**20)
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def _limit_threads(threads):
    if not threads:
        return
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(int(threads))
    except ImportError:
        pass
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(int(threads))


def _write(rec, out_path):
    rec["pid"] = os.getpid()
    tmp = str(out_path) + ".tmp"
    with open(tmp, "w") as fh:
        json.dump(rec, fh, default=repr)
    os.replace(tmp, out_path)


def child_main(spec: dict, out_path: str, log_path: str) -> None:
    """Entry point of a run forked by the runner: own session, output to ``log_path``, capped memory.

    Examples
    --------
    >>> import json, multiprocessing, pathlib, tempfile
    >>> with tempfile.TemporaryDirectory() as d:  # doctest: +SKIP
    ...     out, log = pathlib.Path(d) / "rec.json", pathlib.Path(d) / "run.log"
    ...     spec = {"dataset": "synthetic-h1.0-n60-k2", "method": "kmeans", "seed": 0,
    ...             "protocol": "all", "memory_limit_mb": 4096}
    ...     child = multiprocessing.get_context("fork").Process(
    ...         target=child_main, args=(spec, str(out), str(log)))
    ...     child.start(); child.join()
    ...     json.loads(out.read_text())["status"]
    'ok'
    """
    os.setsid()
    fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    sys.stdout.flush()
    sys.stderr.flush()
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
    _limit_memory(spec.get("memory_limit_mb"))
    _limit_threads(spec.get("threads"))
    _write(run_one(spec), out_path)


def main(argv=None) -> int:
    """``python -m hyperclust.bench.worker SPEC.json OUT.json``: 0, or 2 for a wrong command line.

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     spec, out = pathlib.Path(d) / "spec.json", pathlib.Path(d) / "out.json"
    ...     _ = spec.write_text(json.dumps({"dataset": "synthetic-h1.0-n60-k2",
    ...                                     "method": "kmeans", "seed": 0, "protocol": "all"}))
    ...     code = main([str(spec), str(out)])
    ...     rec = json.loads(out.read_text())
    >>> code, rec["status"], rec["method"]
    (0, 'ok', 'kmeans')
    """
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2:
        print("usage: python -m hyperclust.bench.worker SPEC.json OUT.json", file=sys.stderr)
        return 2
    with open(argv[0]) as fh:
        spec = json.load(fh)
    _limit_memory(spec.get("memory_limit_mb"))
    _limit_threads(spec.get("threads"))
    _write(run_one(spec), argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main())
