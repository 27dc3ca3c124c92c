"""Growth in n of the structure-only candidates of ``auto`` (issue 32): single fits of
``hgnn`` and ``hsbm`` (and any other registered method) on ``hypergraph_sbm(n, 4,
homophily=0.7, n_features=0, random_state=0)``, CPU seconds, the block eigensolver's
iterations, and ACC/NMI against the planted labels (reported only; nothing is chosen by
them). Run it once per source tree to compare trees (``PYTHONPATH=<tree>/src``); ``--save``
keeps the labels for a bit-for-bit comparison::

    OMP_NUM_THREADS=1 HYPERCLUST_NUM_THREADS=1 PYTHONPATH=src \\
        python benchmarks/studies/bench_structural_growth.py --sizes 1e5 3e5 --methods hgnn hsbm
"""

from __future__ import annotations

import argparse
import os
import subprocess
import time

import numpy as np

import hyperclust
from hyperclust.cluster.registry import make_estimator
from hyperclust.datasets.synthetic import hypergraph_sbm
from hyperclust.metrics import evaluate
from hyperclust.operators import subspace


def counted_iterations():
    """Patch the block eigensolver's Rayleigh-Ritz step to count its calls (iterations + 1)."""
    calls = [0]
    step = subspace._rayleigh_ritz

    def counted(op, V, k):
        calls[0] += 1
        return step(op, V, k)

    subspace._rayleigh_ritz = counted
    return calls


def bare_kernels(hg, repeats=3):
    """``(product, qr)``: CPU min of one regularized Zhou affinity product and one thin QR of
    an (n, 18) block, the eigensolver's width for k = 4 (``orthonormal_basis`` where the tree
    has it)."""
    from hyperclust.operators.eigensolvers import NormalizedAffinity
    from hyperclust.operators.laplacians import ZhouLaplacian

    M, d = ZhouLaplacian(hg, kind="unnormalized").affinity()
    op = NormalizedAffinity(M, d, float(d.mean()))
    V = np.random.default_rng(0).normal(size=(hg.n_nodes, 18))
    qr = getattr(subspace, "orthonormal_basis", lambda X: np.linalg.qr(X)[0])
    times = []
    for step in (lambda: op @ V, lambda: qr(V)):
        cpu = []
        for _ in range(repeats):
            c0 = time.process_time()
            step()
            cpu.append(time.process_time() - c0)
        times.append(min(cpu))
    return times


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", nargs="+", default=["1e5", "3e5"])
    ap.add_argument("--methods", nargs="+", default=["hgnn", "hsbm"])
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--save", default=None, help="folder for labels_<method>_<n>.npy")
    args = ap.parse_args(argv)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    print(f"commit {commit} threads OMP={os.environ.get('OMP_NUM_THREADS')} "
          f"HYPERCLUST={os.environ.get('HYPERCLUST_NUM_THREADS')} load {os.getloadavg()} "
          f"hyperclust from {os.path.dirname(hyperclust.__file__)}")
    calls = counted_iterations()
    for size in args.sizes:
        n = int(float(size))
        hg = hypergraph_sbm(n, 4, homophily=0.7, n_features=0, random_state=0)
        product, qr = bare_kernels(hg)
        print(f"bare     n={n:>8d} product (n, 18) {product * 1e3:8.1f} ms "
              f"({product / n * 1e9:.0f} ns/row)  QR (n, 18) {qr * 1e3:8.1f} ms "
              f"({qr / n * 1e9:.0f} ns/row)", flush=True)
        for method in args.methods:
            cpu, wall = [], []
            for _ in range(args.repeats):
                calls[0] = 0
                c0, t0 = time.process_time(), time.perf_counter()
                est = make_estimator(method, 4, random_state=0).fit(hg)
                cpu.append(time.process_time() - c0)
                wall.append(time.perf_counter() - t0)
            scores = evaluate(hg.labels, est.labels_)
            print(f"{method:8s} n={n:>8d} cpu min {min(cpu):7.2f} s median "
                  f"{float(np.median(cpu)):7.2f} s wall min {min(wall):7.2f} s "
                  f"eigensolver iterations {max(calls[0] - 1, 0):3d} "
                  f"acc {scores['acc']:.4f} nmi {scores['nmi']:.4f} load "
                  f"{os.getloadavg()[0]:.2f}", flush=True)
            if args.save:
                os.makedirs(args.save, exist_ok=True)
                np.save(os.path.join(args.save, f"labels_{method}_{n}.npy"), est.labels_)


if __name__ == "__main__":
    main()
