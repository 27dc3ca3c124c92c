"""Uni-DHC fit time beside the spectral-zhou fit and a bare kernel, timed in the same process.

On ``hypergraph_sbm(n, 4, homophily=0.7)`` (as many hyperedges as nodes, sizes 2..6, 32
features): for each repeat, in turn, the whole ``spectral-zhou`` fit, the whole ``UniDHC``
fit (library defaults) and the bare kernel (a float32 CSR ``H^T`` then ``H`` product at width
64, scipy, one thread). Reports min and median of each (wall clock, and the process's CPU
time, which a loaded machine inflates less), the ratio unidhc / spectral on the minima (both
clocks), the peak RSS of the process, the thread limit, the load average before and after,
and the folder and commit of the code imported (``PYTHONPATH`` picks which: run it once on
the current tree and once on an older ``git archive`` to compare; outside a git checkout the
commit is None). Adds one row per size to the harness's store ``--out``; a row is never
replaced (``run``: its number in the store), since each timing has its own load.

    python benchmarks/bench_unidhc_speed.py --sizes 1e5 --repeats 3 --out speed.json

Idle check of the fit-time target (Uni-DHC <= 10x spectral-zhou at 10^5, one thread each;
about 30 s on an idle 2-core machine)::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 HYPERCLUST_NUM_THREADS=1 \
        python benchmarks/bench_unidhc_speed.py --sizes 1e5 --repeats 5 \
        --out docs/results/unidhc_speed_idle.json
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time

from hyperclust.bench import ResultStore
from hyperclust.bench.provenance import load_average, package_root

KEY = ("n", "run")


def measure(n: int, repeats: int) -> dict:
    import numpy as np
    import scipy.sparse as sp

    from hyperclust.cluster.spectral import SpectralHypergraphClustering
    from hyperclust.cluster.unidhc import UniDHC
    from hyperclust.datasets.synthetic import hypergraph_sbm
    from hyperclust.runtime.threads import current_limit, default_threads, input_work

    hg = hypergraph_sbm(n, 4, homophily=0.7, random_state=0)
    H = sp.csr_matrix(hg.incidence, dtype=np.float32)
    Ht = H.T.tocsr()
    X = np.random.default_rng(0).normal(size=(n, 64)).astype(np.float32)
    load_before = load_average()
    fits = {"spectral-zhou": lambda: SpectralHypergraphClustering(4, operator="zhou",
                                                                   random_state=0).fit(hg),
            "unidhc": lambda: UniDHC(4, random_state=0).fit(hg),
            "kernel": lambda: H @ (Ht @ X)}
    times = {key: [] for key in fits}
    cpu = {key: [] for key in fits}
    for _ in range(repeats):
        for key, run in fits.items():
            t, c = time.perf_counter(), time.process_time()
            run()
            times[key].append(time.perf_counter() - t)
            cpu[key].append(time.process_time() - c)
    rec = {"n": n, "nnz": int(H.nnz), "repeats": repeats, "code": str(package_root().parents[1]),
           # the fits' own limit (the thread policy for this input), not this script's
           "threads": current_limit() or default_threads(input_work(hg)),
           "env_threads": {k: os.environ.get(k) for k in
                           ("HYPERCLUST_NUM_THREADS", "OMP_NUM_THREADS")},
           "loadavg_before": load_before,
           "loadavg_after": load_average(),
           "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
    for key, ts in times.items():
        rec[key] = {"min": min(ts), "median": float(np.median(ts)), "all": ts,
                    "cpu_min": min(cpu[key]), "cpu_median": float(np.median(cpu[key])),
                    "cpu_all": cpu[key]}
    rec["unidhc_over_spectral"] = rec["unidhc"]["min"] / rec["spectral-zhou"]["min"]
    rec["unidhc_over_spectral_cpu"] = rec["unidhc"]["cpu_min"] / rec["spectral-zhou"]["cpu_min"]
    rec["unidhc_over_spectral_median"] = (rec["unidhc"]["median"]
                                          / rec["spectral-zhou"]["median"])
    return rec


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", nargs="+", type=float, default=[1e5])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", required=True, help="the store (JSON)")
    args = ap.parse_args(argv)
    store = ResultStore(args.out, key=KEY)
    for n in args.sizes:
        rec = measure(int(n), args.repeats)
        rec["run"] = max((r["run"] for r in store.runs), default=-1) + 1
        store.add(rec)
        print(json.dumps({k: rec.get(k) for k in ("n", "commit", "threads", "env_threads",
                                                  "unidhc_over_spectral",
                                                  "unidhc_over_spectral_median",
                                                  "unidhc_over_spectral_cpu", "peak_rss_mib",
                                                  "loadavg_before", "loadavg_after")}),
              {k: {m: round(v, 3) for m, v in rec[k].items() if m in ("min", "median", "cpu_min")}
               for k in ("spectral-zhou", "unidhc", "kernel")},
              flush=True)


if __name__ == "__main__":
    main()
