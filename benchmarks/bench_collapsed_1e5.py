"""The null space and the 16 smallest nonzero eigenpairs of S_eps (``CoboundaryCollapsed``,
eps = 1e-2, PSD-safe couplings) on a many-component input of ``--nodes`` nodes: a planted
hypergraph SBM on 80% of the nodes (4 blocks), 2% isolated nodes, and the rest in small
components of 2-8 nodes (paths of pairs plus one triple each; many identical), so that the
null space is thousands-fold and eigenvalues repeat across components.

The route is the factorization-free ``iterative`` one (the sparse LU of the factored route
did not finish in 8 minutes on ``hypergraph_sbm(20000)``); ``--tol`` is its LOBPCG tolerance
(default 1e-5, the route's own). ``--check`` compares with dense ``eigh`` at 3,000 nodes
(eigenvalues to 1e-8 relative to the 16th, subspaces to 1e-6 radians; the route's default
tolerance gives ~1e-5 radians, so check with ``--tol 1e-9``) and exits nonzero on a
mismatch. Otherwise ``--repeats`` timed runs, each on a fresh operator, printing the
commit, thread settings, load average before and after, wall and CPU seconds (min and
median), and beside them the bare kernel: one 16-column product with the incidence matrix
and the number of column products with ``H`` the solver made.

Usage: OMP_NUM_THREADS=1 python benchmarks/bench_collapsed_1e5.py --check --tol 1e-9
       OMP_NUM_THREADS=1 python benchmarks/bench_collapsed_1e5.py [--nodes 100000]
           [--repeats 3] [--tol 1e-5]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

import numpy as np
import scipy.sparse as sp

from hyperclust import Hypergraph
from hyperclust.datasets.synthetic import hypergraph_sbm
from hyperclust.operators import CoboundaryCollapsed
from hyperclust.operators.collapsed_eigen import coboundary_spectrum

R = 16


def many_component_input(n: int, seed: int = 0) -> Hypergraph:
    """The planted part, the small components and the isolated nodes described above."""
    rng = np.random.default_rng(seed)
    n_main, n_isolated = int(0.8 * n), int(0.02 * n)
    main = hypergraph_sbm(n_main, 4, random_state=seed).incidence
    sizes = rng.integers(2, 9, size=n)
    sizes = sizes[:np.searchsorted(np.cumsum(sizes), n - n_main - n_isolated, side="right")]
    first = n_main + np.concatenate([[0], np.cumsum(sizes)[:-1]])
    comp = np.repeat(np.arange(sizes.size), sizes)
    node = n_main + np.arange(sizes.sum())
    chain = np.flatnonzero(comp[:-1] == comp[1:])                # pairs inside a component
    triple = first[sizes >= 3]
    cols = [np.column_stack([node[chain], node[chain + 1]]),
            np.column_stack([triple, triple + 1, triple + 2])]
    rows = [np.repeat(np.arange(c.shape[0]), c.shape[1]) for c in cols]
    small = [sp.csc_matrix((np.ones(c.size), (c.ravel(), r)), shape=(n, c.shape[0]))
             for c, r in zip(cols, rows)]
    H = sp.hstack([sp.vstack([main, sp.csc_matrix((n - n_main, main.shape[1]))])] + small)
    return Hypergraph(sp.csr_matrix(H))


def solve(hg, tol=None):
    """``(operator, null, values, vectors)`` of S_eps on the iterative route."""
    op = CoboundaryCollapsed(hg, eps=1e-2, method="iterative")
    return (op, *coboundary_spectrum(op, R, tol=tol))


def check(n: int, tol) -> int:
    """Agreement with dense ``eigh`` at size ``n``; returns the exit status."""
    from scipy.linalg import eigh, subspace_angles

    hg = many_component_input(n)
    _, null, vals, V = solve(hg, tol)
    c = null.shape[1]
    w, U = eigh(CoboundaryCollapsed(hg, eps=1e-2, method="dense").to_dense())
    k = c + R
    while w[k] - w[k - 1] < 1e-6:       # compare whole eigenspaces
        k -= 1
    err = float(np.max(np.abs(vals[:k - c] - w[c:k])) / w[k - 1])
    angle = float(np.max(subspace_angles(np.hstack([null.toarray(), V[:, :k - c]]), U[:, :k])))
    zeros = int(np.sum(np.abs(w) < 1e-9))
    ok = zeros == c and err < 1e-8 and angle < 1e-6
    print(f"check n={n} tol={tol}: null {c} (dense {zeros}), eigenvalue error {err:.1e} "
          f"(relative), largest subspace angle {angle:.1e}: {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


def _kernel(hg) -> float:
    """CPU seconds of one column product with ``H`` (median of 5 rounds of 10 products
    with a 16-column block)."""
    X = np.random.default_rng(0).standard_normal((hg.n_edges, R))
    rounds = []
    for _ in range(5):
        t = time.process_time()
        for _ in range(10):
            hg.incidence @ X
        rounds.append((time.process_time() - t) / (10 * R))
    return float(np.median(rounds))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=100_000)
    ap.add_argument("--tol", type=float, default=None, help="LOBPCG tolerance (default 1e-5)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--check", action="store_true", help="compare with dense eigh at 3,000 nodes")
    args = ap.parse_args(argv)
    if args.check:
        return check(3000, args.tol)
    commit = subprocess.run(["git", "rev-parse", "--short=10", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    threads = {k: os.environ.get(k, "unset") for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                                                       "MKL_NUM_THREADS", "HYPERCLUST_NUM_THREADS")}
    print(f"commit {commit}, threads {threads}, load before {os.getloadavg()}")
    hg = many_component_input(args.nodes)
    print(f"{hg.n_nodes:,} nodes, {hg.n_edges:,} hyperedges, nnz(H) {hg.incidence.nnz:,}, "
          f"{hg.connected_components()[0]:,} components, tol {args.tol}", flush=True)
    wall, cpu = [], []
    for _ in range(args.repeats):
        w0, c0 = time.perf_counter(), time.process_time()
        op, null, vals, _ = solve(hg, args.tol)
        wall.append(time.perf_counter() - w0)
        cpu.append(time.process_time() - c0)
        it = op._iterative.column_iterations_
        products = 2 * it["laplacian"] + 6 * it["schur"]
        print(f"  run: wall {wall[-1]:.1f} s, CPU {cpu[-1]:.1f} s, null {null.shape[1]:,}, "
              f"16th nonzero eigenvalue {vals[-1]:.6g}, {products:,} column products with H",
              flush=True)
    col = _kernel(hg)
    print(f"wall s min {min(wall):.1f} / median {np.median(wall):.1f}; CPU s min {min(cpu):.1f} "
          f"/ median {np.median(cpu):.1f}; bare kernel: one column product with H "
          f"{col * 1e3:.3f} ms CPU, times the last run's products {col * products:.1f} s; "
          f"load after {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
