"""Does a cache-friendly numbering speed up the sparse product? (issue 32 item 2)

For each input, the SpMM pair ``Y = H (H^T X)`` (float32, ``X`` of width ``--width``,
hyperclust's kernel on one thread, into preallocated buffers) with the nodes and
hyperedges numbered as given, by reverse Cuthill-McKee on the bipartite graph
(:func:`hyperclust.hypergraph.ordering.cache_order`), and by the first hyperedge a node is
in (a cheap alternative), interleaved round by round; CPU time (``process_time``), min and
median of ``--rounds``. Beside it the compulsory-bytes bound: every byte the pair must move
once, ``2 nnz (4 + 4)`` (values and indices of ``H^T`` and ``H``) ``+ 2 (n + m + 2) 4``
(row pointers) ``+ 2 n d 4`` (``X`` read, ``Y`` written) ``+ 2 m d 4`` (``E = H^T X``
written and read back), over the copy bandwidth (``np.copyto`` of 256 MiB, read + write,
best of 5) measured in the same process. Prints the ordering's own CPU time.

The ordered rows run on scipy's kernel (``HYPERCLUST_COMPILED=0``); ``compiled`` rows
repeat the RCM pair and the operator on the compiled kernel of the ``[fast]`` extra
(:mod:`hyperclust.operators.compiled_spmm`, bit-identical, numba loaded and compiled before
the rounds), where numba is installed.

Beside the bare pair, on the RCM numbering: ``operator``, what ``PropagationOperator.apply``
(float32, one thread) costs once it has settled on its factoring (the pair, or the collapsed
``n x n`` matrix where that is smaller: :mod:`hyperclust.operators.factoring`; ``[collapsed]``
says which), and ``scipy``, scipy's own allocating ``H @ (H^T @ X)``; every row's ratio to
the bound and to ``scipy``.

    OMP_NUM_THREADS=1 PYTHONPATH=src python benchmarks/studies/bench_node_order.py \
        hsbm:1e6 congress-bills walmart-trips mag-10 dblp-ca --width 64
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from hyperclust.hypergraph.ordering import cache_order, reordered
from hyperclust.operators import compiled_spmm
from hyperclust.operators.kernels import csr_matmat
from hyperclust.operators.propagation import PropagationOperator


def load(spec: str):
    if spec.startswith("hsbm:"):
        from hyperclust.datasets.synthetic import hypergraph_sbm

        return hypergraph_sbm(int(float(spec[5:])), 4, homophily=0.7, n_features=0,
                              random_state=0)
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from _datasets import load as load_shared

    return load_shared(spec)


def orders(H):
    """``{name: (node_order, edge_order)}`` and the RCM's CPU seconds."""
    n, m = H.shape
    c0 = time.process_time()
    rcm = cache_order(H)
    t_rcm = time.process_time() - c0
    first = np.full(n, m, dtype=np.int64)
    covered = np.diff(H.indptr) > 0
    first[covered] = np.minimum.reduceat(H.indices, H.indptr[:-1][covered])
    return {"given": (np.arange(n), np.arange(m)), "rcm": rcm,
            "first-edge": (np.argsort(first, kind="stable"), np.arange(m))}, t_rcm


def compulsory_bytes(nnz, n, m, d):
    return 2 * nnz * (4 + 4) + 2 * (n + m + 2) * 4 + 2 * n * d * 4 + 2 * m * d * 4


def copy_bandwidth():
    a = np.ones(2 ** 25)
    b = np.empty_like(a)
    np.copyto(b, a)
    best = np.inf
    for _ in range(5):
        t0 = time.perf_counter()
        np.copyto(b, a)
        best = min(best, time.perf_counter() - t0)
    return 2 * a.nbytes / best


def measure(spec, width, rounds):
    hg = load(spec)
    H = sp.csr_matrix(hg.incidence, dtype=np.float32)
    n, m = H.shape
    found, t_rcm = orders(H)
    X = np.random.default_rng(0).standard_normal((n, width)).astype(np.float32)
    cases = {}
    for name, (nodes, edges) in found.items():
        Hp = H[nodes][:, edges].tocsr()
        Hp.sort_indices()
        Htp = Hp.T.tocsr()
        Htp.sort_indices()
        cases[name] = (Hp, Htp, np.ascontiguousarray(X[nodes]),
                       np.empty((m, width), np.float32), np.empty((n, width), np.float32))
    fns = {name: (lambda Hp=Hp, Htp=Htp, Xp=Xp, E=E, Y=Y: (csr_matmat(Htp, Xp, E, n_threads=1),
                                                          csr_matmat(Hp, E, Y, n_threads=1)))
           for name, (Hp, Htp, Xp, E, Y) in cases.items()}
    op_name, fns["operator"], fns["scipy"] = operator_cases(hg, cases["rcm"])
    on_compiled = {}
    if compiled_spmm.kernel() is not None:
        compiled_spmm.AMORTISE_WORK = 0  # numba is loaded: no amortisation left to wait for
        on_compiled = {"rcm compiled": fns["rcm"], "operator compiled": fns["operator"]}
        with kernel_choice(True):
            for fn in on_compiled.values():
                fn()  # compiles (or loads from numba's cache) outside the rounds
    fns.update(on_compiled)
    times = {name: [] for name in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            with kernel_choice(name in on_compiled):
                c0 = time.process_time()
                fn()
                times[name].append(time.process_time() - c0)
    bound = compulsory_bytes(H.nnz, n, m, width) / copy_bandwidth()
    print(f"{spec}: n={n} m={m} nnz={H.nnz} width={width}; RCM {t_rcm:.3f} s CPU; "
          f"bound {bound * 1e3:.2f} ms; load {open('/proc/loadavg').read().split()[:3]}")
    bare = min(times["scipy"])
    for name, v in times.items():
        v = sorted(v)
        label = name.replace("operator", op_name)
        print(f"  {label:21s} CPU min {v[0] * 1e3:9.2f} ms  median {v[len(v) // 2] * 1e3:9.2f}"
              f" ms  min/bound {v[0] / bound:5.1f}  vs given {v[0] / min(times['given']):5.2f}"
              f"  vs scipy {v[0] / bare:5.2f}", flush=True)


@contextmanager
def kernel_choice(compiled):
    """Products on the compiled kernel (``compiled``) or on scipy's inside the block."""
    saved = os.environ.get(compiled_spmm.ENV)
    os.environ[compiled_spmm.ENV] = "1" if compiled else "0"
    try:
        yield
    finally:
        if saved is None:
            del os.environ[compiled_spmm.ENV]
        else:
            os.environ[compiled_spmm.ENV] = saved


def operator_cases(hg, rcm_case):
    """``(label, operator_fn, scipy_fn)`` on the RCM numbering: the operator's settled
    product (its factoring chosen by its own rule, after enough products to have chosen)
    and scipy's bare allocating pair."""
    Hp, Htp, Xp, _, _ = rcm_case
    P = PropagationOperator(reordered(hg)[0], dtype=np.float32, n_threads=1)
    out, work = np.empty_like(Xp), P.workspace(Xp.shape[1])
    for _ in range(64):  # past the collapsed matrix's budget, where it has one
        if P._collapse.budget is None or P._collapsed:
            break
        P.apply(Xp, out=out, work=work)
    label = "operator [collapsed]" if any(v is not None for v in P._collapsed.values()) \
        else "operator [pair]"
    return label, (lambda: P.apply(Xp, out=out, work=work)), (lambda: Hp @ (Htp @ Xp))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("inputs", nargs="+", help="hsbm:<n> or a shared dataset name")
    ap.add_argument("--width", type=int, default=32)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args(argv)
    for spec in args.inputs:
        measure(spec, args.width, args.rounds)


if __name__ == "__main__":
    main()
