"""Variants of the compiled CSR x dense kernel against scipy's and the bandwidth bound
(issue 32 item 4).

On each input renumbered by reverse Cuthill-McKee (as the estimators run it), the SpMM
pair ``Y = H (H^T X)`` (float32, width ``--width``, one thread, preallocated buffers) with
scipy's ``csr_matvecs`` and with :mod:`hyperclust.operators.compiled_spmm`'s kernel at
each prefetch distance in ``--ahead`` (0: the same loop without prefetch), interleaved
round by round; CPU time (``process_time``), min and median of ``--rounds``, each row's
ratio to the compulsory-bytes bound of ``bench_node_order.py`` (copy bandwidth measured in
the same process) and to scipy, and whether its output is bit-identical to scipy's.

    PYTHONPATH=src python benchmarks/studies/bench_compiled_spmm.py hsbm:1e6 --ahead 0 8 16 32
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_node_order import compulsory_bytes, copy_bandwidth, load  # noqa: E402

from hyperclust.hypergraph.ordering import cache_order  # noqa: E402
from hyperclust.operators.compiled_spmm import kernel  # noqa: E402
from hyperclust.operators.kernels import add_product_rows  # noqa: E402


def rcm_pair(spec):
    """``(H, H^T)`` float32 CSR, sorted indices, RCM-numbered."""
    H = sp.csr_matrix(load(spec).incidence, dtype=np.float32)
    nodes, edges = cache_order(H)
    H = H[nodes][:, edges].tocsr()
    H.sort_indices()
    Ht = H.T.tocsr()
    Ht.sort_indices()
    return H, Ht


def pair_fn(product, H, Ht, X, E, Y):
    def run():
        E.fill(0)
        product(Ht, X, E)
        Y.fill(0)
        product(H, E, Y)
    return run


def measure(spec, width, rounds, aheads):
    H, Ht = rcm_pair(spec)
    n, m = H.shape
    X = np.random.default_rng(0).standard_normal((n, width)).astype(np.float32)
    add = kernel()
    c0 = time.process_time()
    add(Ht.indptr, Ht.indices, Ht.data, X, np.zeros((m, width), np.float32), 0, min(m, 1), 1)
    first = time.process_time() - c0

    def compiled(ahead):
        return lambda A, B, C: add(A.indptr, A.indices, A.data, B, C, 0, A.shape[0], ahead)

    products = {"scipy": lambda A, B, C: add_product_rows(A, B, C, 0, A.shape[0])}
    products.update({f"compiled ahead={a}": compiled(a) for a in aheads})
    outs = {name: (np.empty((m, width), np.float32), np.empty((n, width), np.float32))
            for name in products}
    fns = {name: pair_fn(p, H, Ht, X, *outs[name]) for name, p in products.items()}
    times = {name: [] for name in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            c0 = time.process_time()
            fn()
            times[name].append(time.process_time() - c0)
    bound = compulsory_bytes(H.nnz, n, m, width) / copy_bandwidth()
    print(f"{spec}: n={n} m={m} nnz={H.nnz} width={width}; bound {bound * 1e3:.2f} ms; "
          f"first call (compile or cache load) {first:.2f} s CPU; "
          f"load {open('/proc/loadavg').read().split()[:3]}")
    ref = outs["scipy"][1]
    for name, v in times.items():
        v = sorted(v)
        same = np.array_equal(outs[name][1], ref)
        print(f"  {name:20s} CPU min {v[0] * 1e3:9.2f} ms  median {v[len(v) // 2] * 1e3:9.2f}"
              f" ms  min/bound {v[0] / bound:5.1f}  vs scipy {v[0] / min(times['scipy']):5.2f}"
              f"  bit-identical {same}", flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("inputs", nargs="+", help="hsbm:<n> or a shared dataset name")
    ap.add_argument("--width", type=int, default=64)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--ahead", type=int, nargs="+", default=[0, 16])
    args = ap.parse_args(argv)
    for spec in args.inputs:
        measure(spec, args.width, args.rounds, args.ahead)


if __name__ == "__main__":
    main()
