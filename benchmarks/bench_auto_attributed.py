"""``auto`` with 32 attributes against ``auto`` structure-only on the same hypergraph SBM
(issue 32's target: attributed <= 2x structure-only at 10^6), with the kNN search and the
bare SpMM timed beside the fits.

Usage::

    PYTHONPATH=src python benchmarks/bench_auto_attributed.py [--n 1e5] [--runs 3]

The input is ``hypergraph_sbm(n, 4, homophily=0.7, n_features=32, random_state=0)``; the
structure-only fit gets the same hypergraph without its features. Per setting, ``--runs``
fits interleaved (structure-only, attributed, ...), each ``AutoClusterer(4,
random_state=0)``, wall and CPU seconds (min and median), the attributed fit's
``fit_times_`` (its kNN searches: one per training split and one on all nodes), and the bare
kernels: the kNN search alone (``knn_affinity(features, 10)``) and the float32 scipy pair
``H (H^T X)`` of width 4, min and median of ``min(3, --runs)``. Printed first: commit,
threads, load average; last: load average after. At 5·10^4 (``--n 5e4 --runs 3``) the whole run should take ~4-6
minutes on an idle 2-core machine (under load, one thread: 43 + 69 CPU s per pair of fits);
at 10^6 a single run is 15-30 minutes (``--n 1e6 --runs 1``).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import time

import numpy as np
import scipy.sparse as sp


def _timed(fn):
    """``(wall s, cpu s, result)`` of one call."""
    w0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - w0, time.process_time() - c0, out


def _summary(name, walls, cpus):
    print(f"{name}: wall min {min(walls):.3f} median {np.median(walls):.3f} s; cpu min "
          f"{min(cpus):.3f} median {np.median(cpus):.3f} s ({len(walls)} runs)", flush=True)


def bare_kernels(hg, repeats=3):
    """Min and median wall seconds of the kNN search alone and of ``H (H^T X)`` (float32,
    width 4), ``repeats`` runs each."""
    from hyperclust.operators.neighbors import knn_affinity

    H = sp.csr_matrix(hg.incidence, dtype=np.float32)
    Ht = H.T.tocsr()
    X = np.random.default_rng(0).standard_normal((H.shape[0], 4), dtype=np.float32)
    for name, fn in (("bare H(H^T X) float32 width 4", lambda: H @ (Ht @ X)),
                     ("bare kNN knn_affinity(features, 10)",
                      lambda: knn_affinity(hg.features, 10))):
        runs = [_timed(fn)[:2] for _ in range(repeats)]
        _summary(name, [r[0] for r in runs], [r[1] for r in runs])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=float, default=1e5, help="nodes")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args(argv)
    from hyperclust import Hypergraph
    from hyperclust.bench.provenance import load_average
    from hyperclust.cluster.auto import AutoClusterer
    from hyperclust.datasets import hypergraph_sbm
    from hyperclust.runtime.threads import default_threads

    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    print(f"commit {commit}; cpus {os.cpu_count()}; default threads {default_threads()}; "
          f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS')}; load before {load_average()}",
          flush=True)
    hg = hypergraph_sbm(int(args.n), 4, homophily=0.7, n_features=32, random_state=0)
    plain = Hypergraph(hg.incidence, weights=hg.weights)
    times = {"structure-only": [], "attributed": []}
    for _ in range(args.runs):
        for name, data in (("structure-only", plain), ("attributed", hg)):
            wall, cpu, est = _timed(lambda: AutoClusterer(4, random_state=0).fit(data))
            times[name].append((wall, cpu))
            print(f"# {name}: {wall:.2f} s wall, {cpu:.2f} s cpu, selected {est.selected_}, "
                  f"fit_times_ {({k: round(v, 2) for k, v in est.fit_times_.items()})}",
                  flush=True)
    for name, rows in times.items():
        _summary(f"auto {name} n={int(args.n)}", [r[0] for r in rows], [r[1] for r in rows])
    ratio = min(r[0] for r in times["attributed"]) / min(r[0] for r in times["structure-only"])
    print(f"attributed / structure-only (wall minima): {ratio:.2f}", flush=True)
    bare_kernels(hg, repeats=min(3, args.runs))
    print(f"load after {load_average()}")


if __name__ == "__main__":
    main()
