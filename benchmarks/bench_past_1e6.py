"""spectral-zhou and AHCKA past 10^6 nodes: wall time, CPU time and peak memory per rung,
projected to 10^8 incidences (issue 32's past-1e6 target).

Each rung is ``hypergraph_sbm(nnz / 4, 4, homophily=0.7, n_features=0)`` (as many
hyperedges as nodes, sizes 2..6: ~4 incidences per node; structure only). The input is
built once per rung (its wall time and the process's RSS after it printed); each fit runs in
a forked child (copy-on-write: the input is not copied) with the library's default thread
policy, killed past ``--time-limit`` seconds. A child prints its wall and CPU time and its
peak RSS (sampled every 50 ms; the input's pages it touches included); AHCKA's child also
prints, as they come, its iteration and time per iteration at every check (``#   ... ms
AHCKA: iteration ...``), so a fit stopped by the limit still says how far it got. The
last lines fit ``time = a nnz^b`` and ``memory = a nnz^b`` through the last two rungs per
method and project them to ``--project`` incidences (a projection, not a measurement).

Beside each rung's fits, the bare kernel on the same incidence: the pair ``H (H^T X)`` with
scipy's float32 CSR products (``H`` and ``H^T`` both CSR, built before the clock starts),
``X`` of width 1 (``spectral-zhou``'s Lanczos vectors) and 4 (AHCKA's blocks, 4 clusters),
min and median wall and CPU seconds of 3 in a forked child; so a fit's time reads as a
number of bare products.

At 10^8 incidences the generator itself peaks at ~12 GB, so build and fit in two processes:
``--save DIR`` builds each rung, writes it to ``DIR/past_<rung>.npz`` (incidence pattern and
hyperedge weights, uncompressed) and stops; ``--load DIR`` reads the rungs from there instead
of building them (the fits start from a process that never held the generator's memory).

Printed first: commit, thread policy, CPU count, load average (before and after).

    PYTHONPATH=src python benchmarks/bench_past_1e6.py --rungs 1e7 3e7 --time-limit 300
    PYTHONPATH=src python benchmarks/bench_past_1e6.py --rungs 1e8 --save /tmp/past
    PYTHONPATH=src python benchmarks/bench_past_1e6.py --rungs 1e8 --load /tmp/past \
        --time-limit 900

On the 2-core development machine (24 GB), idle (load 1-2), rungs 2e6 and 4e6 took: input
2.0 / 4.8 s; spectral-zhou 2.6 / 5.6 s wall, peak 0.38 / 0.63 GB; AHCKA 27.2 / 41.0 s, 0.40 /
0.76 GB (the 4e6 fit on the cache-friendly numbering, from 2^21 incidences). The generator
peaked at 1.2 GB for 1e7 incidences (so ~12 GB at 1e8). The two default rungs should take
~9 minutes idle; ``--rungs 1e8`` is the target itself (run it only with the time to spare).
"""

from __future__ import annotations

import argparse
import math
import multiprocessing as mp
import os
import resource
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def rss_gb() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 2**20
    return float("nan")


class PeakSampler:
    """Peak RSS (GB) of this process while the ``with`` block runs."""

    def __enter__(self):
        self.peak, self._stop = rss_gb(), threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def _run(self):
        while not self._stop.is_set():
            self.peak = max(self.peak, rss_gb())
            time.sleep(0.05)

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, rss_gb())


def make_estimator(method):
    from hyperclust.cluster import AHCKA, SpectralHypergraphClustering

    if method == "spectral-zhou":
        return SpectralHypergraphClustering(4, operator="zhou", random_state=0)
    return AHCKA(4, random_state=0)


def log_iterations():
    """Print the library's per-iteration lines (AHCKA's, DEBUG) as they come, so a fit
    killed at the time limit has said how many iterations it ran and at what pace."""
    import logging

    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(logging.Formatter("#   %(relativeCreated).0f ms %(message)s"))
    logger = logging.getLogger("hyperclust.cluster.ahcka")
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)


def run_fit(method, hg, queue):
    """Child: one fit, its wall and CPU seconds and peak RSS (GB) put on ``queue``."""
    log_iterations()
    est = make_estimator(method)
    before = rss_gb()
    with PeakSampler() as peak:
        w0, c0 = time.perf_counter(), time.process_time()
        est.fit(hg)
        wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    queue.put((wall, cpu, before, peak.peak))


def run_bare_kernel(hg, queue, widths=(1, 4), repeats=3):
    """Child: ``H (H^T X)`` with float32 scipy CSR products, per width ``(width, wall min,
    wall median, cpu min, cpu median)`` put on ``queue``."""
    import numpy as np
    import scipy.sparse as sp

    H = sp.csr_matrix(hg.incidence, dtype=np.float32)
    Ht = H.T.tocsr()
    rows = []
    for width in widths:
        X = np.random.default_rng(0).standard_normal((H.shape[0], width), dtype=np.float32)
        walls, cpus = [], []
        for _ in range(repeats):
            w0, c0 = time.perf_counter(), time.process_time()
            H @ (Ht @ X)
            walls.append(time.perf_counter() - w0)
            cpus.append(time.process_time() - c0)
        rows.append((width, min(walls), float(np.median(walls)), min(cpus),
                     float(np.median(cpus))))
    queue.put(rows)


def in_child(target, args, limit):
    """``target(*args, queue)`` in a forked child (the input shared copy-on-write); what it
    put on the queue, or ``None`` when it ran past ``limit`` seconds or failed."""
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=target, args=(*args, queue))
    child.start()
    child.join(limit)
    if child.is_alive():
        child.kill()
        child.join()
        return None
    return queue.get() if not queue.empty() else None


def input_path(directory, rung) -> Path:
    return Path(directory) / f"past_{rung:.0e}.npz"


def save_input(hg, path):
    """The incidence pattern and hyperedge weights of ``hg``, uncompressed."""
    import numpy as np

    H = hg.incidence
    np.savez(path, indptr=H.indptr, indices=H.indices, shape=np.array(H.shape),
             weights=np.asarray(hg.weights))


def load_input(path):
    """The hypergraph :func:`save_input` wrote."""
    import numpy as np
    import scipy.sparse as sp

    from hyperclust import Hypergraph

    with np.load(path) as f:
        H = sp.csr_matrix((np.ones(f["indices"].size), f["indices"], f["indptr"]),
                          shape=tuple(f["shape"]))
        return Hypergraph(H, weights=f["weights"])


def power_law(points, target):
    """``value at target`` of ``a x^b`` through the last two ``(x, value)`` points, and b."""
    (x0, y0), (x1, y1) = points[-2:]
    b = math.log(y1 / y0) / math.log(x1 / x0)
    return y1 * (target / x1) ** b, b


def header():
    import subprocess

    from hyperclust.bench.provenance import load_average, package_root
    from hyperclust.runtime.threads import default_threads

    root = package_root()
    commit = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip() or None
    dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--", "src"],
                           capture_output=True, text=True).stdout.strip()
    print(f"commit {commit}{' (dirty src)' if dirty else ''}; code {root}; cpus "
          f"{os.cpu_count()}; default threads {default_threads()}; OMP_NUM_THREADS="
          f"{os.environ.get('OMP_NUM_THREADS')}; load before {load_average()}", flush=True)


def rung_input(rung, args):
    """The rung's hypergraph, built (its time and memory printed) or loaded from ``--load``."""
    from hyperclust.datasets.synthetic import hypergraph_sbm

    t0 = time.perf_counter()
    with PeakSampler() as build:
        if args.load:
            hg = load_input(input_path(args.load, rung))
        else:
            hg = hypergraph_sbm(int(rung / 4), 4, homophily=0.7, n_features=0, random_state=0)
    print(f"# input {rung:.0e}: nnz {hg.incidence.nnz}, {'loaded' if args.load else 'built'} "
          f"in {time.perf_counter() - t0:.1f} s, peak {build.peak:.2f} GB meanwhile, "
          f"{rss_gb():.2f} GB after", flush=True)
    return hg


def time_rung(rung, hg, args, seen):
    """The bare kernel and each method's fit on one rung, printed; fits appended to ``seen``."""
    for width, w_min, w_med, c_min, c_med in in_child(run_bare_kernel, (hg,),
                                                      args.time_limit) or []:
        print(f"# bare H(H^T X) float32 {rung:.0e} width {width}: wall min {w_min * 1e3:.1f} "
              f"median {w_med * 1e3:.1f} ms, cpu min {c_min * 1e3:.1f} median {c_med * 1e3:.1f} ms", flush=True)
    for method in args.methods:
        got = in_child(run_fit, (method, hg), args.time_limit)
        if got is None:
            print(f"{rung:.0e} {hg.incidence.nnz} {hg.n_nodes} {method} "
                  f"> {args.time_limit:.0f} (stopped)", flush=True)
            continue
        wall, cpu, before, peak = got
        seen[method].append((hg.incidence.nnz, wall, peak))
        print(f"{rung:.0e} {hg.incidence.nnz} {hg.n_nodes} {method} {wall:.1f} {cpu:.1f} "
              f"{before:.2f} {peak:.2f}", flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rungs", nargs="+", type=float, default=[1e7, 3e7],
                    help="incidences per rung")
    ap.add_argument("--methods", nargs="+", default=["spectral-zhou", "ahcka"],
                    choices=["spectral-zhou", "ahcka"])
    ap.add_argument("--time-limit", type=float, default=300.0, help="seconds per fit")
    ap.add_argument("--project", type=float, default=1e8)
    io = ap.add_mutually_exclusive_group()
    io.add_argument("--save", metavar="DIR", help="build the rungs, save them there, stop")
    io.add_argument("--load", metavar="DIR", help="read the rungs --save wrote there")
    args = ap.parse_args(argv)
    from hyperclust.bench.provenance import load_average

    make_estimator(args.methods[0])  # imports outside the children's measurements
    header()
    if not args.save:
        print("rung nnz n_nodes method wall_s cpu_s rss_before_gb peak_rss_gb", flush=True)
    seen = {m: [] for m in args.methods}
    for rung in args.rungs:
        hg = rung_input(rung, args)
        if args.save:
            Path(args.save).mkdir(parents=True, exist_ok=True)
            save_input(hg, input_path(args.save, rung))
            print(f"# saved {input_path(args.save, rung)}", flush=True)
        else:
            time_rung(rung, hg, args, seen)
        del hg
    for method, rows in seen.items():
        if len(rows) >= 2:
            wall, b_t = power_law([(r[0], r[1]) for r in rows], args.project)
            mem, b_m = power_law([(r[0], r[2]) for r in rows], args.project)
            print(f"# projection {method} at {args.project:.0e} incidences: wall {wall:.0f} s "
                  f"(exponent {b_t:.2f}), peak {mem:.1f} GB (exponent {b_m:.2f})")
    print(f"# load after {load_average()}; max RSS of the parent "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20:.2f} GB")


if __name__ == "__main__":
    main()
