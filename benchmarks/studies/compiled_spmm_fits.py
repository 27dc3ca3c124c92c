"""Whole fits with and without the compiled kernel (issue 32 item 4): CPU seconds of
``make_estimator(method, 4, random_state=0).fit`` on ``hypergraph_sbm(n, 4,
homophily=0.7)``, each fit in a fresh process (so numba's import and the kernel's cache load
are inside the compiled fits), ``HYPERCLUST_COMPILED=0`` (scipy's kernel) and default
interleaved, min and median of ``--rounds``; and whether the labels are the same bits.

    OMP_NUM_THREADS=1 HYPERCLUST_NUM_THREADS=1 PYTHONPATH=src \\
        python benchmarks/studies/compiled_spmm_fits.py --n 1e6 --methods ahcka spectral-zhou
"""

from __future__ import annotations

import argparse
import os
import pickle
import subprocess
import sys
import tempfile
from pathlib import Path

FIT = r'''
import pickle, sys, time
from hyperclust.cluster.registry import make_estimator
from hyperclust.datasets.synthetic import hypergraph_sbm
n, method, out = int(float(sys.argv[1])), sys.argv[2], sys.argv[3]
hg = hypergraph_sbm(n, 4, homophily=0.7, n_features=0, random_state=0)
c0 = time.process_time()
est = make_estimator(method, 4, random_state=0).fit(hg)
cpu = time.process_time() - c0
with open(out, "wb") as fh:
    pickle.dump((cpu, est.labels_), fh)
'''


def fit(n, method, compiled, scratch):
    env = dict(os.environ, HYPERCLUST_COMPILED="1" if compiled else "0")
    out = Path(scratch) / "fit.pkl"
    subprocess.run([sys.executable, "-c", FIT, str(n), method, str(out)], env=env, check=True)
    with open(out, "rb") as fh:
        return pickle.load(fh)


def main(argv=None):
    import numpy as np

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", default="1e6")
    ap.add_argument("--methods", nargs="+", default=["ahcka", "spectral-zhou"])
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        for method in args.methods:
            times, labels = {False: [], True: []}, {}
            for _ in range(args.rounds):
                for compiled in (False, True):
                    cpu, labels[compiled] = fit(args.n, method, compiled, scratch)
                    times[compiled].append(cpu)
            load = open("/proc/loadavg").read().split()[:3]
            for compiled, v in times.items():
                v = sorted(v)
                print(f"{method} n={args.n} {'compiled' if compiled else 'scipy   '}: fit CPU "
                      f"min {v[0]:.2f} s median {v[len(v) // 2]:.2f} s; load {load}")
            print(f"  labels bit-identical: {np.array_equal(labels[False], labels[True])}",
                  flush=True)


if __name__ == "__main__":
    main()
