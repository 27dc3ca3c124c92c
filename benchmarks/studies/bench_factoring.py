"""Pair or collapsed matrix: what each factoring of the propagation product costs per width.

For each shared set (or ``hsbm:<n>``): the size ratios that
:class:`hyperclust.operators.factoring.CollapsePlan` decides on (``sum_e |e|^2``, ``n^2`` and
the formed ``nnz(A)``, each over the pair's ``2 nnz(H)``), the CPU time of forming ``A``
(:func:`~hyperclust.operators.factoring.collapsed_matrix`, min of 3), and at widths 1, 8 and
64 the pair (``PropagationOperator.apply`` on the pair, float32, one thread) against ``A X``
(interleaved, min of ``--rounds``), with the pair's time per work unit
(:meth:`~hyperclust.operators.factoring.CollapsePlan.work`): the constants behind
``FORM_COST``.

    OMP_NUM_THREADS=1 HYPERCLUST_NUM_THREADS=1 python benchmarks/studies/bench_factoring.py \\
        congress-bills contact-high-school-classes house-committees mag-10
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from bench_node_order import load
from hyperclust.operators.factoring import CollapsePlan, collapsed_matrix
from hyperclust.operators.kernels import csr_matmat
from hyperclust.operators.propagation import PropagationOperator


def cpu_min(fn, rounds):
    best = np.inf
    for _ in range(rounds):
        c0 = time.process_time()
        fn()
        best = min(best, time.process_time() - c0)
    return best


def measure(spec, rounds):
    hg = load(spec)
    P = PropagationOperator(hg, dtype=np.float32, n_threads=1)
    P._collapse.budget = None  # the pair throughout; A is formed here
    n, nnz = hg.n_nodes, hg.incidence.nnz
    plan = CollapsePlan(n, nnz, hg.edge_sizes)
    squares = int((hg.edge_sizes.astype(np.int64) ** 2).sum())

    def form():
        return collapsed_matrix(P._H, P._Ht, P._edge_scale, P._left, P._right,
                                P.self_loops, np.float32)

    A = form()
    t_form = cpu_min(form, 3)
    print(f"{spec}: n={n} m={hg.n_edges} nnz={nnz}; over 2 nnz: sum|e|^2 {squares / 2 / nnz:.2f}"
          f" n^2 {n * n / 2 / nnz:.2f} nnz(A) {A.nnz / 2 / nnz:.2f}; forming {t_form * 1e3:.1f} ms"
          f" CPU = {t_form / squares * 1e9:.1f} ns per |e|^2; load "
          f"{open('/proc/loadavg').read().split()[:3]}")
    for w in (1, 8, 64):
        X = np.random.default_rng(0).standard_normal((n, w)).astype(np.float32)
        out, work = np.empty_like(X), P.workspace(w)
        t_pair, t_coll = [], []
        for _ in range(rounds):
            t_pair.append(cpu_min(lambda: P.apply(X, out, work), 1))
            t_coll.append(cpu_min(lambda: csr_matmat(A, X, out, n_threads=1), 1))
        p, c = min(t_pair), min(t_coll)
        print(f"  width {w:2d}: pair {p * 1e3:8.2f} ms ({p / plan.work(w) * 1e9:.3f} ns/unit)"
              f"  collapsed {c * 1e3:8.2f} ms  saves {1 - c / p:5.0%}", flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("inputs", nargs="+", help="hsbm:<n> or a shared dataset name")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args(argv)
    for spec in args.inputs:
        measure(spec, args.rounds)


if __name__ == "__main__":
    main()
