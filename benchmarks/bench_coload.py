"""Slow-down of each method when another CPU-bound process shares the machine.

Issue 14's target: with a second CPU-bound process running, no method slows by more than
2.5x. For each method, in one fresh process per (method, thread setting), on
``hypergraph_sbm(n, 4, homophily=0.7, n_features=32)``, the whole ``fit`` is timed
``--repeats`` times alone and ``--repeats`` times while a *hog* runs (one other process
spinning a pure-Python loop, i.e. one core kept busy, as a second user's job would), the two
interleaved (alone, hog, alone, hog, ...) so that drift hits both. Beside them, in the same
process, the bare kernel (a float32 CSR ``H^T`` then ``H`` product at width 64, one thread)
is timed the same way: the slow-down that one thread with a fair share of the cores gets.

Thread settings: ``default`` (the library's policy: one thread under
:data:`hyperclust.runtime.threads.PARALLEL_MIN_WORK` stored nonzeros, else every core) and ``free``
(``HYPERCLUST_NUM_THREADS=free``: the cores the load average leaves free). Reports min and
median of each, the ratio of the minima, the load average and the commit. Run it on an
otherwise idle machine (the script checks the 1-minute load average first and records it):

    python benchmarks/bench_coload.py                       # n = 1e5, 3 repeats
    python benchmarks/bench_coload.py --n 2e4 --methods spectral-zhou ahcka --repeats 2
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import time
from pathlib import Path

from hyperclust.bench import ResultStore, markdown_table, write_markdown

METHODS = ("spectral-zhou", "hgnn", "kmeans", "ahcka", "auto", "unidhc")
SETTINGS = ("default", "free")
TARGET = 2.5
KEY = ("method", "threads_setting", "n_nodes")


def _hog(stop):
    """Keep one core busy until ``stop`` is set (pure Python: holds no BLAS/OpenMP pool)."""
    x = 0
    while not stop.is_set():
        for _ in range(100_000):
            x += 1


def _estimator(method: str, k: int):
    from hyperclust.cluster.registry import make_estimator

    return make_estimator(method, n_clusters=k, random_state=0)


def _measure(task: dict, queue) -> None:
    """Child process: build the input, time fit and kernel alone and under a hog."""
    if task["threads_setting"] == "free":
        os.environ["HYPERCLUST_NUM_THREADS"] = "free"
    else:
        os.environ.pop("HYPERCLUST_NUM_THREADS", None)
    import numpy as np
    import scipy.sparse as sp

    from hyperclust.datasets.synthetic import hypergraph_sbm
    from hyperclust.runtime.threads import default_threads, input_work

    n = int(task["n_nodes"])
    hg = hypergraph_sbm(n, 4, homophily=0.7, n_features=32, random_state=0)
    H = sp.csr_matrix(hg.incidence, dtype=np.float32)
    Ht = H.T.tocsr()
    X = np.random.default_rng(0).normal(size=(n, 64)).astype(np.float32)
    from threadpoolctl import threadpool_limits

    def kernel():
        with threadpool_limits(1):
            Ht @ (H @ X)

    def fit():
        _estimator(task["method"], 4).fit(hg)

    fit()  # warm-up: imports, torch start-up, caches
    times = {"alone": [], "hog": [], "kernel_alone": [], "kernel_hog": []}
    threads_alone, threads_hog = [], []
    for _ in range(task["repeats"]):
        for mode in ("alone", "hog"):
            stop = mp.Event()
            hog = None
            if mode == "hog":
                hog = mp.get_context("spawn").Process(target=_hog, args=(stop,), daemon=True)
                hog.start()
                time.sleep(1.5)  # the hog is running and the load average sees it
            (threads_hog if hog else threads_alone).append(default_threads(input_work(hg)))
            t = time.perf_counter()
            fit()
            times[mode].append(time.perf_counter() - t)
            t = time.perf_counter()
            kernel()
            times["kernel_" + mode].append(time.perf_counter() - t)
            if hog is not None:
                stop.set()
                hog.join(5)
                if hog.is_alive():
                    hog.terminate()
                time.sleep(0.5)
    queue.put({"times": times, "threads_alone": threads_alone, "threads_hog": threads_hog,
               "nnz": int(hg.incidence.nnz)})


def run_task(task: dict, time_limit: float) -> dict:
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=_measure, args=(task, queue))
    load_before = open("/proc/loadavg").read().split()[:3]
    proc.start()
    try:
        out = queue.get(timeout=time_limit)
        status = "ok"
    except Exception as exc:  # timeout or a crashed child
        out, status = {}, f"failed: {type(exc).__name__}"
    proc.join(10)
    if proc.is_alive():
        proc.kill()
    row = dict(task, status=status, load_before=[float(v) for v in load_before])
    if out:
        t = out["times"]
        row.update(times_s=t, threads_alone=out["threads_alone"], threads_hog=out["threads_hog"],
                   nnz=out["nnz"])
        for mode in t:
            row[f"{mode}_min_s"] = min(t[mode])
            row[f"{mode}_median_s"] = sorted(t[mode])[len(t[mode]) // 2]
        row["slowdown"] = row["hog_min_s"] / row["alone_min_s"]
        row["slowdown_median"] = row["hog_median_s"] / row["alone_median_s"]
        row["kernel_slowdown"] = row["kernel_hog_min_s"] / row["kernel_alone_min_s"]
    return row


def _threads(values) -> str:
    return ",".join(str(v) for v in values)


def _commit(row: dict) -> str:
    commit = (row.get("commit") or "")[:10]
    return commit + ("+dirty" if row.get("dirty") else "")


def write_report(store: ResultStore, out: Path) -> None:
    rows = sorted(store.runs, key=lambda r: (r["n_nodes"], r["method"], r["threads_setting"]))
    cells = []
    for r in rows:
        if r.get("status") != "ok":
            cells.append([r["method"], r["threads_setting"], f"{r['n_nodes']:,}", "", "", "", "",
                          "", "", r.get("status", ""), _commit(r)])
            continue
        ok = "yes" if r["slowdown"] <= TARGET else "**no**"
        cells.append([r["method"], r["threads_setting"], f"{r['n_nodes']:,}",
                      f"{_threads(r['threads_alone'])}/{_threads(r['threads_hog'])}",
                      f"{r['alone_min_s']:.3g} / {r['alone_median_s']:.3g}",
                      f"{r['hog_min_s']:.3g} / {r['hog_median_s']:.3g}",
                      f"{r['slowdown']:.2f}x", f"{r['kernel_slowdown']:.2f}x",
                      " ".join(f"{v:.2f}" for v in r["load_before"]), ok,
                      _commit(r)])
    lines = ["# Slow-down under a second CPU-bound process", "",
             "Generated by `benchmarks/bench_coload.py` (its docstring defines the protocol): "
             "each fit timed alone and beside a hog process that keeps one core busy, "
             "interleaved; min / median over the repeats; slow-down = ratio of the minima; "
             f"target: at most {TARGET}x. Kernel = a bare one-thread float32 CSR product pair "
             "timed the same way in the same process.", ""]
    lines += markdown_table(["method", "threads setting", "nodes", "threads alone/hog",
                             "alone s (min/median)", "with hog s (min/median)", "slow-down",
                             "kernel slow-down", "load 1/5/15 before", f"<= {TARGET}x",
                             "commit"], cells)
    write_markdown(out, lines)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=float, default=1e5, help="nodes (default 1e5)")
    ap.add_argument("--methods", nargs="+", default=list(METHODS), choices=METHODS)
    ap.add_argument("--settings", nargs="+", default=list(SETTINGS), choices=SETTINGS)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--time-limit", type=float, default=1800.0)
    ap.add_argument("--out", default="docs/results/bench", help="folder for coload.json/.md")
    args = ap.parse_args(argv)
    if args.repeats < 1:
        ap.error("--repeats must be >= 1")
    out = Path(args.out)
    store = ResultStore(out / "coload.json", key=KEY)
    for method in args.methods:
        for setting in args.settings:
            task = {"method": method, "threads_setting": setting, "n_nodes": int(args.n),
                    "repeats": args.repeats}
            row = run_task(task, args.time_limit)
            store.add([row])
            store.save()
            print(json.dumps({k: row.get(k) for k in ("method", "threads_setting", "status",
                              "alone_min_s", "hog_min_s", "slowdown", "kernel_slowdown",
                              "threads_alone", "threads_hog")}), flush=True)
    write_report(store, out / "coload.md")
    print(f"wrote {out / 'coload.md'}")


if __name__ == "__main__":
    main()
