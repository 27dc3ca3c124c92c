"""AHCKA's check (the discretisation) and whole fit, 1 and 2 threads, idle-machine timing
for issue 32 (the check ran single-threaded: 30-37 s of every ~70 s at 10^8 incidences).

Printed: commit and thread policy (``bench_past_1e6.header``), then, interleaved and
repeated ``--repeats`` times (min and median of wall and CPU seconds):

* ``discretize`` on a ``(--n, 4)`` embedding (4 noisy clusters; 30 Yu-Shi steps, the most a
  check runs), and (where the code has it) 30 of its steps, ``rotated_labels_and_sums``,
  with 1 and 2 threads: whether its default of one thread is right on an idle machine;
* the bare kernel beside it: one ``H (H^T X)`` of scipy's float64 CSR products, width 5
  (AHCKA's block at k = 4), on ``hypergraph_sbm(--n, 4)``;
* the AHCKA fit on the 10^6-incidence rung of ``bench_past_1e6.py`` with 1 and 2 threads,
  with its checks' own time (the fit's INFO summary).

To compare two versions, run it once per version (``PYTHONPATH`` selects the code):

    git archive ffe1a6e src | tar -x -C /tmp/base
    PYTHONPATH=/tmp/base/src python benchmarks/studies/bench_ahcka_check.py
    PYTHONPATH=src python benchmarks/studies/bench_ahcka_check.py

About 1.5 minutes per run on the idle 2-core development machine.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def timed(runs: dict, repeats: int) -> dict:
    """``{name: (wall, cpu) arrays}`` of the callables in ``runs``, interleaved."""
    got = {name: [] for name in runs}
    for _ in range(repeats):
        for name, run in runs.items():
            w0, c0 = time.perf_counter(), time.process_time()
            run()
            got[name].append((time.perf_counter() - w0, time.process_time() - c0))
    return {name: np.array(v) for name, v in got.items()}


def report(times: dict, extra: dict | None = None):
    for name, t in times.items():
        print(f"{name}: wall min {t[:, 0].min():.3f} median {np.median(t[:, 0]):.3f} s; cpu min "
              f"{t[:, 1].min():.3f} median {np.median(t[:, 1]):.3f} s"
              f"{(extra or {}).get(name, '')}", flush=True)


def check_lines():
    """The AHCKA fit's INFO summaries, collected (they carry the checks' own time)."""
    lines = []
    handler = logging.Handler()
    handler.emit = lambda record: lines.append(record.getMessage())
    logger = logging.getLogger("hyperclust.cluster.ahcka")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    return lines


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=2_500_000, help="nodes of the embedding")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    import scipy.sparse as sp

    from bench_past_1e6 import header
    from hyperclust.bench.provenance import load_average
    from hyperclust.cluster.ahcka import AHCKA, discretize
    from hyperclust.datasets.synthetic import hypergraph_sbm
    from hyperclust.runtime.threads import thread_limit

    header()
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 4, args.n)
    centres = np.linalg.qr(rng.standard_normal((4, 4)))[0]
    V = (centres[labels] + 0.8 * rng.standard_normal((args.n, 4))) / np.sqrt(args.n)
    H = sp.csr_matrix(hypergraph_sbm(args.n, 4, homophily=0.7, n_features=0,
                                     random_state=0).incidence, dtype=np.float64)
    Ht, X = H.T.tocsr(), rng.standard_normal((args.n, 5))

    runs = {f"discretize {args.n} x 4": lambda: discretize(V),
            f"bare H (H^T X) float64 width 5, {H.nnz} nnz": lambda: H @ (Ht @ X)}
    try:
        from hyperclust.cluster.block_argmax import rotated_labels_and_sums
    except ImportError:  # older code
        rotated_labels_and_sums = None
    R = np.linalg.qr(rng.standard_normal((4, 4)))[0]
    for threads in (1, 2) if rotated_labels_and_sums else ():
        runs[f"30 steps rotated_labels_and_sums, {threads} thread(s)"] = \
            lambda threads=threads: [rotated_labels_and_sums(V, R, n_threads=threads)
                                     for _ in range(30)]
    report(timed(runs, args.repeats))
    hg = hypergraph_sbm(250_000, 4, homophily=0.7, n_features=0, random_state=0)
    lines, fits = check_lines(), {}

    def fit_on(threads):
        def run():
            with thread_limit(threads):
                fits[threads] = AHCKA(4, random_state=0).fit(hg)
        return run

    times = timed({"ahcka 1e6 rung, 1 thread": fit_on(1), "ahcka 1e6 rung, 2 threads":
                   fit_on(2)}, args.repeats)
    checks = [line.split("; checks ")[1].split(" in all")[0] for line in lines]
    report(times, {name: f"; checks (last run) {checks[2 * args.repeats - 2 + i]}"
                   for i, name in enumerate(times)})
    print(f"labels equal for 1 and 2 threads: {np.array_equal(fits[1].labels_, fits[2].labels_)}"
          f"; iterations {fits[1].n_iter_}, selected {fits[1].best_iter_}; load after "
          f"{load_average()}", flush=True)


if __name__ == "__main__":
    main()
