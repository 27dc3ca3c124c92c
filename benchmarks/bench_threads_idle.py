"""Idle check of the thread policy: is a fit with the default threads ever slower than with
one thread? (issue 32 item 1; ``hyperclust.runtime.threads.KERNELS`` holds the per-kernel rules.)

For ``spectral-zhou``, ``ahcka`` and ``auto`` (by default; ``--methods`` takes any
registered method, built by :func:`~hyperclust.cluster.registry.make_estimator` with 32
features at every size) on ``hypergraph_sbm(n, 4, homophily=0.7)`` at
each size, three thread settings, each in its own fresh process (``HYPERCLUST_NUM_THREADS``
= ``1``, unset = the policy's default, ``2``), interleaved round by round; per setting the
min and median wall time (and CPU time) of ``--repeats`` fits. Inputs carry 32 dense
features for ``spectral-zhou`` (it ignores them, but they put the input over the policy's
size for 2 threads at 10^5: the issue's case) and, up to 10^4 nodes, for ``ahcka``/``auto``
(their kNN search runs); ``ahcka``/``auto`` at 10^5 are structure only (a kNN search there
takes minutes), where the default is 1 thread, so their ``2`` row shows what the per-kernel
rules do when a fit is given two threads. Beside each row, timed in the same
process: the bare scipy CSR product pair ``A^T (A x)`` (float64, one thread, one column and
four columns), the kernel every one of these fits runs most.

Prints the commit, the cores, the thread settings, the load average before and after, and
one line per (method, size, setting); the last lines flag any setting whose min wall time
exceeds the 1-thread min by more than 10%. About 3 minutes on an idle 2-core machine:

    PYTHONPATH=src python benchmarks/bench_threads_idle.py
    PYTHONPATH=src python benchmarks/bench_threads_idle.py --sizes 1e4 --repeats 2   # quick
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

METHODS = ("spectral-zhou", "ahcka", "auto")
SETTINGS = ("1", "default", "2")
FEATURES_UP_TO = 10_000  # sizes up to this one get 32 features for the kNN-searching methods
KNN_SEARCHING = ("ahcka", "auto")  # with features their fit searches a kNN graph (minutes at 10^5)


def _fit_rows(method: str, n: int, repeats: int) -> dict:
    """Child process: build the input, time ``repeats`` fits and the bare kernel."""
    import numpy as np
    import scipy.sparse as sp

    from hyperclust.cluster import AHCKA, SpectralHypergraphClustering
    from hyperclust.cluster.auto import AutoClusterer
    from hyperclust.cluster.registry import make_estimator
    from hyperclust.datasets.synthetic import hypergraph_sbm
    from hyperclust.runtime.threads import default_threads, input_work

    d = 32 if method not in KNN_SEARCHING or n <= FEATURES_UP_TO else 0
    hg = hypergraph_sbm(n, 4, homophily=0.7, n_features=d, random_state=0)
    make = {"spectral-zhou": lambda: SpectralHypergraphClustering(4, operator="zhou",
                                                                   random_state=0),
            "ahcka": lambda: AHCKA(4, random_state=0),
            "auto": lambda: AutoClusterer(4, random_state=0)}.get(
        method, lambda: make_estimator(method, 4, random_state=0))
    A = sp.csr_matrix(hg.incidence_t, dtype=np.float64)
    At = sp.csr_matrix(hg.incidence, dtype=np.float64)
    X1, X4 = np.ones((n, 1)), np.ones((n, 4))
    wall, cpu, bare1, bare4 = [], [], [], []
    for _ in range(repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        make().fit(hg)
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
        for X, out in ((X1, bare1), (X4, bare4)):
            t0 = time.perf_counter()
            for _ in range(10):
                At @ (A @ X)
            out.append((time.perf_counter() - t0) / 10)
    return {"threads": default_threads(input_work(hg)), "features": d, "wall": wall,
            "cpu": cpu, "bare_pair_1col": min(bare1), "bare_pair_4col": min(bare4)}


def _run_child(method: str, n: int, setting: str, repeats: int) -> dict:
    env = dict(os.environ)
    env.pop("HYPERCLUST_NUM_THREADS", None)
    if setting != "default":
        env["HYPERCLUST_NUM_THREADS"] = setting
    out = subprocess.run([sys.executable, __file__, "--child", method, str(n), str(repeats)],
                         env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _median(values):
    s = sorted(values)
    return s[len(s) // 2]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", nargs="+", type=float, default=[1e4, 1e5])
    ap.add_argument("--methods", nargs="+", default=list(METHODS),
                    help="registered method names (default: %(default)s)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(_fit_rows(args.child[0], int(args.child[1]), int(args.child[2]))))
        return
    from hyperclust.cluster.registry import available_methods

    unknown = sorted(set(args.methods) - set(available_methods()))
    if unknown:
        ap.error(f"unknown method(s) {', '.join(unknown)}; known: {', '.join(available_methods())}")
    user_vars = {v: os.environ[v] for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                                            "MKL_NUM_THREADS") if v in os.environ}
    print(f"commit {_commit()}  cores {len(os.sched_getaffinity(0))}  user limits {user_vars}"
          f"  load before {os.getloadavg()}")
    slower = []
    for n in (int(s) for s in args.sizes):
        for method in args.methods:
            rows = {}
            for setting in SETTINGS:
                rows[setting] = _run_child(method, n, setting, args.repeats)
            base = min(rows["1"]["wall"])
            for setting, r in rows.items():
                ratio = min(r["wall"]) / base
                print(f"{method:14s} n={n:>7} feat={r['features']:>2} set={setting:7s} "
                      f"threads={r['threads']}  wall min {min(r['wall']):8.3f} med "
                      f"{_median(r['wall']):8.3f}  cpu min {min(r['cpu']):8.3f}  "
                      f"vs 1 thread {ratio:5.2f}  bare A^T(Ax) 1 col "
                      f"{r['bare_pair_1col'] * 1e3:7.2f} ms 4 col "
                      f"{r['bare_pair_4col'] * 1e3:7.2f} ms", flush=True)
                if ratio > 1.10:
                    slower.append(f"{method} n={n} {setting}: {ratio:.2f}x the 1-thread wall")
    print(f"load after {os.getloadavg()}")
    print("slower than one thread: " + ("; ".join(slower) if slower else "none"))


if __name__ == "__main__":
    main()
