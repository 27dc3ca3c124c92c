"""Uni-DHC fit time beside the spectral-zhou fit and a bare kernel, timed in the same process.

On ``hypergraph_sbm(n, 4, homophily=0.7)`` (as many hyperedges as nodes, sizes 2..6, 32
features): for each repeat, in turn, the whole ``spectral-zhou`` fit, the whole ``UniDHC``
fit (library defaults) and the bare kernel (a float32 CSR ``H^T`` then ``H`` product at width
64, scipy, one thread). Reports min and median of each, the ratio unidhc / spectral on the
minima, the peak RSS of the process, the thread limit, the load average before and after,
and the commit of the code imported (``PYTHONPATH`` picks which: run it once on the current
tree and once on an older ``git archive`` to compare). Writes one JSON record per size.

    python benchmarks/bench_unidhc_speed.py --sizes 1e5 --repeats 3 --out speed.json
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import time
from pathlib import Path


def _commit(src: Path) -> str:
    try:
        out = subprocess.run(["git", "-C", str(src), "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, timeout=10)
        dirty = subprocess.run(["git", "-C", str(src), "status", "--porcelain", "src"],
                               capture_output=True, text=True, timeout=10).stdout.strip()
        return out.stdout.strip() + ("+dirty" if dirty else "") if out.returncode == 0 \
            else "unknown (not a git tree)"
    except OSError:
        return "unknown"


def measure(n: int, repeats: int) -> dict:
    import numpy as np
    import scipy.sparse as sp

    import hyperclust
    from hyperclust.cluster.spectral import SpectralHypergraphClustering
    from hyperclust.cluster.unidhc import UniDHC
    from hyperclust.datasets.synthetic import hypergraph_sbm
    from hyperclust.threads import current_limit, default_threads, input_work

    hg = hypergraph_sbm(n, 4, homophily=0.7, random_state=0)
    H = sp.csr_matrix(hg.incidence, dtype=np.float32)
    Ht = H.T.tocsr()
    X = np.random.default_rng(0).normal(size=(n, 64)).astype(np.float32)
    load_before = open("/proc/loadavg").read().split()[:3]
    times = {"spectral-zhou": [], "unidhc": [], "kernel": []}
    for _ in range(repeats):
        t = time.perf_counter()
        SpectralHypergraphClustering(4, operator="zhou", random_state=0).fit(hg)
        times["spectral-zhou"].append(time.perf_counter() - t)
        t = time.perf_counter()
        UniDHC(4, random_state=0).fit(hg)
        times["unidhc"].append(time.perf_counter() - t)
        t = time.perf_counter()
        H @ (Ht @ X)
        times["kernel"].append(time.perf_counter() - t)
    src = Path(hyperclust.__file__).resolve().parents[2]
    rec = {"n": n, "nnz": int(H.nnz), "repeats": repeats, "commit": _commit(src),
           "code": str(src),
           # the fits' own limit (the thread policy for this input), not this script's
           "threads": current_limit() or default_threads(input_work(hg)),
           "env_threads": {k: os.environ.get(k) for k in
                           ("HYPERCLUST_NUM_THREADS", "OMP_NUM_THREADS")},
           "loadavg_before": load_before,
           "loadavg_after": open("/proc/loadavg").read().split()[:3],
           "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
    for key, ts in times.items():
        rec[key] = {"min": min(ts), "median": float(np.median(ts)), "all": ts}
    rec["unidhc_over_spectral"] = rec["unidhc"]["min"] / rec["spectral-zhou"]["min"]
    return rec


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", nargs="+", type=float, default=[1e5])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    rows = []
    for n in args.sizes:
        rec = measure(int(n), args.repeats)
        rows.append(rec)
        print(json.dumps({k: rec[k] for k in ("n", "commit", "unidhc_over_spectral",
                                              "peak_rss_mib", "loadavg_before")}),
              {k: round(rec[k]["min"], 2) for k in ("spectral-zhou", "unidhc", "kernel")},
              flush=True)
        Path(args.out).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
