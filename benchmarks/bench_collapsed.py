"""Collapsed operator S_eps of the coboundary complex: exact routes vs matrix-free, by size.

Rows: cora-ca (covered nodes) and random sub-hypergraphs of it, pubmed-cc-tricl and actor
(covered nodes), each with the library defaults (eps=1e-2, gamma="auto": PSD-safe). Methods:

* ``block exact`` / ``block cg``: the generic :class:`SchurComplement` on the explicit graded
  complex (sparse LU of ``C + eps I``, or Jacobi-CG per application);
* ``factored``: :class:`CoboundaryCollapsed` with one sparse LU of the system factored
  through ``H`` (no clique Laplacian, no edge-sized unknowns);
* ``dense``: :class:`CoboundaryCollapsed` building the ``n x n`` S_eps by push-through.

Times: build, one 10-column application, the 10 smallest eigenpairs. Each method runs in its
own process with a wall-clock cap (``--cap`` seconds, default 600); a capped run is recorded
as such. Peak RSS of that process in MiB.

Usage: nice python benchmarks/bench_collapsed.py [--out docs/results/collapsed.md] [--cap 600]
       python benchmarks/bench_collapsed.py --quality [--datasets zoo,cora-ca,...]
       nice python benchmarks/bench_collapsed.py --scale [--sizes 2000,4000,20000,100000]
            [--repeats 3] [--out docs/results/collapsed_scale.md]

``--scale``: The factorization-free route (``method="iterative"``) on ``hypergraph_sbm(n, 4)``
(covered nodes), the 10 smallest *nonzero* eigenpairs (``k = components + 10``), checked
against the dense route where it fits (n <= 4,000: largest eigenvalue error relative to the
10th eigenvalue, largest subspace angle). Each run in its own process; wall and CPU seconds,
min and median over ``--repeats``; beside them the bare kernel: the number of products with
``H`` or ``H^T`` the solver made (column-products, from the CG iteration counts) times the
CPU time of one float64 CSR product of the same ``H`` with one column (timed in the same
process, 10 products with a 16-column block, median of 5 rounds), and the ratio of the
solver's CPU seconds to it.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import resource
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _datasets import load  # noqa: E402


def _hypergraph(name, frac):
    hg = load(name).drop_isolated()
    if frac < 1.0:
        rng = np.random.default_rng(0)
        hg = hg.subset(np.sort(rng.choice(hg.n_nodes, int(frac * hg.n_nodes), replace=False))).drop_isolated()
    return hg


def _one(name, frac, method, queue):
    warnings.simplefilter("ignore")
    from hyperclust.operators import CoboundaryCollapsed, coboundary_complex
    hg = _hypergraph(name, frac)
    V = np.random.default_rng(1).standard_normal((hg.n_nodes, 10))
    t = time.perf_counter()
    if method.startswith("block"):
        cx = coboundary_complex(hg, eps=1e-2)  # the same PSD-safe couplings as gamma="auto"
        t = time.perf_counter()
        S = cx.collapsed(eps=1e-2, method=method.split()[1], tol=1e-8)
    else:
        S = CoboundaryCollapsed(hg, method=method)
    tb = time.perf_counter() - t
    t = time.perf_counter()
    S.matmat(V)
    ta = time.perf_counter() - t
    te = None
    if method != "block cg":
        t = time.perf_counter()
        vals, _ = S.smallest_eigenpairs(10)
        te = time.perf_counter() - t
    queue.put({"n": hg.n_nodes, "m": hg.n_edges, "build": tb, "apply": ta, "eig": te,
               "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024})


def measure(name, frac, method, cap):
    queue = mp.get_context("fork").Queue()
    p = mp.get_context("fork").Process(target=_one, args=(name, frac, method, queue))
    p.start()
    p.join(cap)
    if p.is_alive():
        p.kill()
        p.join()
        return {"capped": cap}
    return queue.get() if not queue.empty() else {"failed": p.exitcode}


def kernel_per_column(hg, width=16, rounds=5, reps=10):
    """CPU seconds of one float64 CSR product of ``H`` with one column, from ``reps``
    products with a ``width``-column block; median over ``rounds`` (CPU time, not wall
    time: on a shared machine wall time mostly measures the other jobs)."""
    H = hg.incidence.tocsr().astype(np.float64)
    X = np.random.default_rng(0).standard_normal((hg.n_edges, width))
    ts = []
    for _ in range(rounds):
        t = time.process_time()
        for _ in range(reps):
            H @ X
        ts.append(time.process_time() - t)
    return float(np.median(ts)) / (reps * width)


def _scale_one(n, seed, queue):
    import os
    warnings.simplefilter("ignore")
    import scipy.linalg as sla

    from hyperclust.datasets.synthetic import hypergraph_sbm
    from hyperclust.operators import CoboundaryCollapsed
    hg = hypergraph_sbm(n, 4, random_state=seed).drop_isolated()
    c = hg.connected_components()[0]
    w0, c0 = time.perf_counter(), time.process_time()
    S = CoboundaryCollapsed(hg, method="iterative")
    vals, V = S.smallest_eigenpairs(c + 10)
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    it = S._iterative.column_iterations_
    # per CG step: L0 = 2 products with H; the block system = 2 (R, R^T) + 2 (R, R^T) + L0 = 6
    products = 2 * it["laplacian"] + 6 * it["schur"]
    per_col = kernel_per_column(hg)
    err = angle = None
    if hg.n_nodes <= 4000:
        vd, Vd = sla.eigh(CoboundaryCollapsed(hg, method="dense").to_dense(),
                          subset_by_index=[0, c + 9])
        err = float(np.max(np.abs(vals - vd)) / vd[-1])
        angle = float(np.max(sla.subspace_angles(V, Vd)))
    queue.put({"n": hg.n_nodes, "m": hg.n_edges, "nnz": int(hg.incidence.nnz), "components": c,
               "wall": wall, "cpu": cpu, "products": int(products), "kernel_col": per_col,
               "lambda_10": float(vals[-1]), "err": err, "angle": angle,
               "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
               "load": os.getloadavg()[0]})


def scale_main():
    import os
    import subprocess
    out = sys.argv[sys.argv.index("--out") + 1] if "--out" in sys.argv else "docs/results/collapsed_scale.md"
    sizes = [int(x) for x in (sys.argv[sys.argv.index("--sizes") + 1] if "--sizes" in sys.argv
                              else "2000,4000,20000,100000").split(",")]
    repeats = int(sys.argv[sys.argv.index("--repeats") + 1]) if "--repeats" in sys.argv else 3
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    threads = os.environ.get("OMP_NUM_THREADS", "unset")
    lines = ["# S_eps of the coboundary complex at scale: factorization-free eigenpairs", "",
             __doc__.split("``--scale``:")[1].strip(), "",
             f"Commit {commit}, OMP_NUM_THREADS={threads}, load average at start "
             f"{os.getloadavg()[0]:.1f} (2-core machine shared with other jobs: **under load, "
             "to be rerun idle**; CPU seconds are less affected than wall seconds).", "",
             "| n (covered) | hyperedges | nnz(H) | components | runs | wall s min / median | "
             "CPU s min / median | H products (columns) | bare kernel CPU s | ratio (CPU / kernel) | "
             "10th nonzero eigenvalue | eigenvalue error vs dense (rel.) | max subspace angle | "
             "peak RSS MiB | load at end |",
             "|" + "---|" * 15]
    for n in sizes:
        runs = []
        for _ in range(repeats):
            queue = mp.get_context("fork").Queue()
            p = mp.get_context("fork").Process(target=_scale_one, args=(n, 0, queue))
            p.start()
            p.join(3600)
            if p.is_alive():
                p.kill()
                p.join()
            if not queue.empty():
                runs.append(queue.get())
        if not runs:
            lines.append(f"| {n} | | | | 0 (capped at 3600 s) |" + " |" * 10)
            continue
        r = runs[0]
        wall = [x["wall"] for x in runs]
        cpu = [x["cpu"] for x in runs]
        kernel = r["products"] * r["kernel_col"]
        fmt = (lambda v, f: "-" if v is None else f.format(v))
        row = (f"| {r['n']} | {r['m']} | {r['nnz']} | {r['components']} | {len(runs)} | "
               f"{min(wall):.1f} / {np.median(wall):.1f} | {min(cpu):.1f} / {np.median(cpu):.1f} | "
               f"{r['products']:,} | {kernel:.1f} | {min(cpu) / kernel:.1f} | {r['lambda_10']:.4f} | "
               f"{fmt(r['err'], '{:.1e}')} | {fmt(r['angle'], '{:.1e}')} | {r['rss']:.0f} | "
               f"{r['load']:.1f} |")
        lines.append(row)
        print(row, flush=True)
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        Path(out).write_text("\n".join(lines) + "\n")


def quality_main():
    """Spectral clustering with the Zhou, star-collapse and coboundary-collapse operators:
    ACC and NMI over 5 seeds (mean, std) and the median fit time, as markdown rows."""
    from hyperclust.cluster import make_estimator
    from hyperclust.metrics import evaluate
    names = (sys.argv[sys.argv.index("--datasets") + 1] if "--datasets" in sys.argv else
             "zoo,contact-high-school-classes,cora-ca,citeseer-cc,cora-cc,senate-committees")
    warnings.simplefilter("ignore")
    for name in names.split(","):
        hg = load(name)
        for method in ("spectral-zhou", "spectral-collapsed", "spectral-collapsed-cells"):
            scores, times = [], []
            for seed in range(5):
                t = time.perf_counter()
                labels = make_estimator(method, hg.n_classes, random_state=seed).fit(hg).labels_
                times.append(time.perf_counter() - t)
                scores.append(evaluate(hg.labels, labels))
            acc = np.array([r["acc"] for r in scores])
            nmi = np.array([r["nmi"] for r in scores])
            print(f"| {name} | {hg.n_nodes} | {method} | {acc.mean():.3f} ± {acc.std():.3f} | "
                  f"{nmi.mean():.3f} ± {nmi.std():.3f} | {np.median(times):.1f} |", flush=True)


def main():
    if "--scale" in sys.argv:
        return scale_main()
    if "--quality" in sys.argv:
        return quality_main()
    out = sys.argv[sys.argv.index("--out") + 1] if "--out" in sys.argv else "docs/results/collapsed.md"
    cap = float(sys.argv[sys.argv.index("--cap") + 1]) if "--cap" in sys.argv else 600.0
    grid = [("cora-ca", f, m) for f in (0.25, 0.5, 1.0) for m in ("block exact", "block cg", "factored", "dense")
            if not (m == "block cg" and f == 1.0)]  # 244 s for one application at full size
    grid += [("pubmed-cc-tricl", 1.0, m) for m in ("factored", "dense")]
    grid += [("actor", 1.0, m) for m in ("factored", "dense")]
    lines = ["# Collapsed operator S_eps: exact vs matrix-free (bench_collapsed.py)", "",
             __doc__.split("Usage")[0].strip(), "",
             "| dataset | nodes | hyperedges | method | build s | apply 10 cols s | 10 eigenpairs s | peak RSS MiB |",
             "|---|---|---|---|---|---|---|---|"]
    records = []
    for name, frac, method in grid:
        r = measure(name, frac, method, cap)
        records.append({"dataset": name, "fraction": frac, "method": method, **r})
        label = name if frac == 1.0 else f"{name} ({int(frac * 100)}% sample)"
        if "capped" in r:
            row = f"| {label} | | | {method} | > {cap:.0f} (capped) | | | |"
        elif "failed" in r:
            row = f"| {label} | | | {method} | failed (exit {r['failed']}) | | | |"
        else:
            eig = "-" if r["eig"] is None else f"{r['eig']:.2f}"
            row = (f"| {label} | {r['n']} | {r['m']} | {method} | {r['build']:.2f} | {r['apply']:.2f} | "
                   f"{eig} | {r['rss']:.0f} |")
        lines.append(row)
        print(row, flush=True)
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    Path(out).write_text("\n".join(lines) + "\n")
    Path(out).with_suffix(".json").write_text(json.dumps(records, indent=1))


if __name__ == "__main__":
    main()
