"""Where ``AHCKA.fit`` spends its time, per phase and size, beside the bare sparse kernel.

The graph is ``bench_scaling.py``'s (``hypergraph_sbm(n, 4, homophily=0.7, n_features=0)``,
structure only, nnz(H) ~ 4 n). Each (source tree, size, repeat) runs in a fresh process
that builds the graph (not timed), fits ``AHCKA(4, random_state=0)`` once with its phases
wrapped (walk products with their widths, QR, discretisation, objective, seed walks), then
times the bare kernel: scipy's float64 CSR pair ``H (H^T X)`` on one thread at each width
the fit used (min of 3). ``kernel`` = sum over products of the pair time at their width;
``fit/kernel`` says how far the fit is from its sparse products alone. Wall and process CPU
times are both recorded (``*_cpu_s``): on a loaded machine a one-thread run's CPU time is
the less disturbed of the two (time spent waiting for a core is not in it; cache and memory
contention still are).

``--ref DIR`` also measures another source tree (e.g. the code before a change:
``git archive <commit> src | tar -x -C /tmp/before``, then ``--ref /tmp/before/src``),
interleaved with this checkout's, so both see the same load. Prints one JSON line per run
and a table: per tree and size the run with the smallest CPU time (its phases' CPU times)
and the smallest wall time::

    HYPERCLUST_NUM_THREADS=1 OMP_NUM_THREADS=1 python benchmarks/studies/bench_ahcka_phases.py \\
        --sizes 1e5 3e5 1e6 --repeats 3 --ref /tmp/before/src
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

MEASURE = r'''
import collections, json, resource, sys, time
import numpy as np
import scipy.sparse as sp
import hyperclust.cluster.ahcka as A
from hyperclust.bench.memory import PeakMemory
from hyperclust.datasets.synthetic import hypergraph_sbm
from hyperclust.operators.knn import MixedWalk
from hyperclust.runtime.threads import thread_limit

n = int(float(sys.argv[1]))
T, C, widths = collections.defaultdict(float), collections.Counter(), collections.Counter()
TC = collections.defaultdict(float)

def wrap(owner, name, key, width=False):
    orig = getattr(owner, name)
    def timed(*a, **k):
        t0, c0 = time.perf_counter(), time.process_time()
        try:
            return orig(*a, **k)
        finally:
            T[key] += time.perf_counter() - t0
            TC[key] += time.process_time() - c0
            C[key] += 1
            if width:
                widths[np.shape(a[-1])[1] if np.ndim(a[-1]) == 2 else 1] += 1
    setattr(owner, name, timed)

wrap(A, "discretize", "discretize")
wrap(A, "rwr_seed_assignment", "seed walks")
if hasattr(A, "adaptive_iterations"):  # fused loop: products in BufferedMixedWalk
    from hyperclust.operators.buffered_walk import BufferedMixedWalk
    wrap(BufferedMixedWalk, "__call__", "products", width=True)
    wrap(A, "thin_qr", "QR")
    wrap(A, "cluster_indicators", "objective")
else:  # plain loop: rwr_conductance runs its own products (counted in both rows)
    wrap(MixedWalk, "_matmat", "products", width=True)
    wrap(A.np.linalg, "qr", "QR")
    wrap(A, "rwr_conductance", "objective")

hg = hypergraph_sbm(n, 4, homophily=0.7, n_features=0, random_state=0)
with thread_limit(None) as threads:
    load = [float(open("/proc/loadavg").read().split()[0])]
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with PeakMemory() as mem:
        t0, c0 = time.perf_counter(), time.process_time()
        est = A.AHCKA(4, random_state=0).fit(hg)
        total, cpu = time.perf_counter() - t0, time.process_time() - c0
    rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    load.append(float(open("/proc/loadavg").read().split()[0]))
    H = sp.csr_matrix(hg.incidence, dtype=np.float64)
    Ht = sp.csr_matrix(hg.incidence_t, dtype=np.float64)
    pair = {}
    for w in sorted(widths):
        X = np.random.default_rng(0).standard_normal((n, w))
        runs = []
        for _ in range(3):
            t1, c1 = time.perf_counter(), time.process_time()
            H @ (Ht @ X)
            runs.append((time.perf_counter() - t1, time.process_time() - c1))
        pair[w] = min(runs)
kernel = sum(c * pair[w][0] for w, c in widths.items())
kernel_cpu = sum(c * pair[w][1] for w, c in widths.items())
print(json.dumps(dict(n=n, nnz=int(hg.incidence.nnz), threads=threads, total_s=total,
                      cpu_s=cpu, phases_cpu_s=dict(TC), kernel_cpu_s=kernel_cpu,
                      n_iter=est.n_iter_, best_iter=est.best_iter_,
                      checks=len(est.objective_history_), phases_s=dict(T), calls=dict(C),
                      widths={str(w): c for w, c in sorted(widths.items())},
                      pair_s={str(w): t for w, t in pair.items()}, kernel_s=kernel,
                      fit_over_kernel=total / kernel, peak_extra_mb=mem.extra_mb,
                      maxrss_growth_mb=(rss1 - rss0) / 1024, load=load)))
'''


def run(src: str, n: float) -> dict:
    env = dict(os.environ, PYTHONPATH=src)
    out = subprocess.run([sys.executable, "-c", MEASURE, str(n)], env=env, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def table(rows) -> list[str]:
    """Markdown lines: per (tree, size), the run with the smallest CPU time (its phases' CPU
    seconds), and the minimum wall time over the runs."""
    best, wall = {}, {}
    for r in rows:
        key = (r["tree"], r["n"])
        wall[key] = min(wall.get(key, float("inf")), r["total_s"])
        if key not in best or r["cpu_s"] < best[key]["cpu_s"]:
            best[key] = r
    lines = ["| tree | nodes | fit CPU s | fit wall s (min) | iterations | products (widths) | "
             "products | QR | discretize | objective | kernel CPU s | fit/kernel | peak +MB |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for (tree, n), r in sorted(best.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        p = r["phases_cpu_s"]
        w = ", ".join(f"{c}x{k}" for k, c in r["widths"].items())
        lines.append(f"| {tree} | {n:,} | {r['cpu_s']:.2f} | {wall[tree, n]:.2f} | "
                     f"{r['n_iter']} | {w} | {p.get('products', 0):.2f} | "
                     f"{p.get('QR', 0):.2f} | {p.get('discretize', 0):.2f} | "
                     f"{p.get('objective', 0):.2f} | {r['kernel_cpu_s']:.2f} | "
                     f"{r['cpu_s'] / r['kernel_cpu_s']:.2f} | {r['peak_extra_mb']:.0f} |")
    return lines


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", nargs="+", type=float, default=[1e5, 3e5, 1e6])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--ref", default=None, help="another source tree (its src/) to compare")
    args = ap.parse_args(argv)
    trees = [("this", str(ROOT / "src"))] + ([("ref", args.ref)] if args.ref else [])
    rows = []
    for _ in range(args.repeats):
        for n in args.sizes:
            for name, src in trees:
                row = dict(tree=name, src=src, **run(src, n))
                print(json.dumps(row), flush=True)
                rows.append(row)
    print("\n".join(table(rows)))


if __name__ == "__main__":
    main()
