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
       python benchmarks/bench_collapsed.py --table docs/results/collapsed_bench.json.gz
       python benchmarks/bench_collapsed.py --quality [--datasets zoo,cora-ca,...] [--seeds 5]
       nice python benchmarks/bench_collapsed.py --scale [--sizes 2000,4000,20000,100000]
            [--repeats 3] [--out docs/results/collapsed_scale.md]

Rows go to the harness's stores (each row with its commit; a rerun replaces the rows it
measures): the grid's and the scale runs' beside their table (``--out`` with ``.json``), the
quality fits' in ``--store``. The tables are rewritten from every stored row.

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

import argparse
import multiprocessing as mp
import resource
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _datasets import load  # noqa: E402

from hyperclust.bench import (ResultStore, commits_of, fmt_mean_std, group_rows,  # noqa: E402
                              markdown_row, markdown_table, run_seeds, summarize,
                              write_markdown)
from hyperclust.bench.provenance import all_idle  # noqa: E402

GRID = [("cora-ca", f, m) for f in (0.25, 0.5, 1.0) for m in ("block exact", "block cg", "factored", "dense")
        if not (m == "block cg" and f == 1.0)]  # 244 s for one application at full size
GRID += [("pubmed-cc-tricl", 1.0, m) for m in ("factored", "dense")]
GRID += [("actor", 1.0, m) for m in ("factored", "dense")]
GRID_KEY = ("dataset", "fraction", "method")
SCALE_KEY = ("size", "repeat")
QUALITY_KEY = ("dataset", "method", "seed")
QUALITY_METHODS = ("spectral-zhou", "spectral-collapsed", "spectral-collapsed-cells")


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


def in_process(target, args, cap) -> dict:
    """``target(*args, queue)`` in a forked process: the dict it puts on the queue,
    ``{"capped": cap}`` when it runs longer than ``cap`` seconds (killed), or
    ``{"failed": exit code}``."""
    queue = mp.get_context("fork").Queue()
    p = mp.get_context("fork").Process(target=target, args=(*args, queue))
    p.start()
    p.join(cap)
    if p.is_alive():
        p.kill()
        p.join()
        return {"capped": cap}
    return queue.get() if not queue.empty() else {"failed": p.exitcode}


def grid_cells(r) -> list:
    """A row of the grid's table."""
    label = r["dataset"]
    if r["fraction"] < 1.0:
        label += f" ({int(r['fraction'] * 100)}% sample)"
    if "capped" in r:
        return [label, "", "", r["method"], f"> {r['capped']:.0f} (capped)", "", "", ""]
    if "failed" in r:
        return [label, "", "", r["method"], f"failed (exit {r['failed']})", "", "", ""]
    eig = "-" if r["eig"] is None else f"{r['eig']:.2f}"
    return [label, r["n"], r["m"], r["method"], f"{r['build']:.2f}", f"{r['apply']:.2f}", eig,
            f"{r['rss']:.0f}"]


def grid_lines(rows) -> list[str]:
    """The grid's report: the docstring's description, then one line per stored row."""
    return ["# Collapsed operator S_eps: exact vs matrix-free (bench_collapsed.py)", "",
            __doc__.split("Usage")[0].strip(), "", *markdown_table(
                ["dataset", "nodes", "hyperedges", "method", "build s", "apply 10 cols s",
                 "10 eigenpairs s", "peak RSS MiB"], [grid_cells(r) for r in rows])]


def grid_main(args):
    out = Path(args.out or "docs/results/collapsed.md")
    store = ResultStore(out.with_suffix(".json"), key=GRID_KEY)
    for name, frac, method in GRID:
        row = {"dataset": name, "fraction": frac, "method": method,
               **in_process(_one, (name, frac, method), args.cap)}
        store.add(row)
        print(markdown_row(grid_cells(row)), flush=True)
        write_markdown(out, grid_lines(store.runs))


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
    load_start = os.getloadavg()[0]
    warnings.simplefilter("ignore")
    import scipy.linalg as sla

    from hyperclust.bench.provenance import OtherCpu
    from hyperclust.datasets.synthetic import hypergraph_sbm
    from hyperclust.operators import CoboundaryCollapsed
    hg = hypergraph_sbm(n, 4, random_state=seed).drop_isolated()
    c = hg.connected_components()[0]
    w0, c0 = time.perf_counter(), time.process_time()
    with OtherCpu() as other:
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
               "load_start": load_start, "load": os.getloadavg()[0], "other_cpu": other.cores,
               "omp_threads": os.environ.get("OMP_NUM_THREADS", "unset")})


def idle_statement(rows) -> str:
    """Whether the runs were idle: other processes used < ``OTHER_CPU_IDLE`` cores during
    every run's solve (measured per run); runs stored without that measurement count as under
    load."""
    other = [r.get("other_cpu") for r in rows]
    if all_idle(other):
        return (f"idle: other processes used at most {max(other):.3f} cores during any run's "
                "solve")
    known = [o for o in other if o is not None]
    worst = f", up to {max(known):.2f} cores" if known else ""
    return ("**under load, to be rerun idle**: other processes shared the machine during some "
            f"runs{worst} (or it was not measured); CPU seconds are less affected than wall "
            "seconds")


def scale_lines(rows) -> list[str]:
    """The scale report: conditions, then one line per size (min and median over its runs)."""
    ok = [r for r in rows if "wall" in r]
    loads = [r["load_start"] for r in ok]
    loads = f"{min(loads):.1f}-{max(loads):.1f}" if loads else "unknown"
    lines = ["# S_eps of the coboundary complex at scale: factorization-free eigenpairs", "",
             __doc__.split("``--scale``:")[1].strip(), "",
             f"Commit {commits_of(ok)}, OMP_NUM_THREADS="
             f"{', '.join(dict.fromkeys(r['omp_threads'] for r in ok))}, load average at the "
             f"start of a run {loads}; {idle_statement(ok)}.", ""]
    cells = []
    fmt = (lambda v, f: "-" if v is None else f.format(v))
    for (size,), sel in group_rows(rows, ("size",)).items():
        runs = [r for r in sel if "wall" in r]
        if not runs:
            why = {f"capped at {r['capped']:.0f} s" if "capped" in r else f"exit {r['failed']}"
                   for r in sel}
            cells.append([size, "", "", "", f"0 ({', '.join(sorted(why))})"] + [""] * 10)
            continue
        r = runs[0]
        wall = [x["wall"] for x in runs]
        cpu = [x["cpu"] for x in runs]
        kernel = r["products"] * r["kernel_col"]
        cells.append([r["n"], r["m"], r["nnz"], r["components"], len(runs),
                      f"{min(wall):.1f} / {np.median(wall):.1f}",
                      f"{min(cpu):.1f} / {np.median(cpu):.1f}", f"{r['products']:,}",
                      f"{kernel:.1f}", f"{min(cpu) / kernel:.1f}", f"{r['lambda_10']:.4f}",
                      fmt(r["err"], "{:.1e}"), fmt(r["angle"], "{:.1e}"), f"{r['rss']:.0f}",
                      f"{r['load']:.1f}"])
    return lines + markdown_table(
        ["n (covered)", "hyperedges", "nnz(H)", "components", "runs", "wall s min / median",
         "CPU s min / median", "H products (columns)", "bare kernel CPU s",
         "ratio (CPU / kernel)", "10th nonzero eigenvalue", "eigenvalue error vs dense (rel.)",
         "max subspace angle", "peak RSS MiB", "load at end"], cells)


def scale_main(args):
    out = Path(args.out or "docs/results/collapsed_scale.md")
    store = ResultStore(out.with_suffix(".json"), key=SCALE_KEY)
    for n in (int(x) for x in args.sizes.split(",")):
        for repeat in range(args.repeats):
            store.add({"size": n, "repeat": repeat, **in_process(_scale_one, (n, 0), 3600)})
        lines = scale_lines(store.runs)
        print("\n".join(line for line in lines if line.startswith("|")), flush=True)
        write_markdown(out, lines)


def quality_main(args):
    """Spectral clustering with the Zhou, star-collapse and coboundary-collapse operators:
    ACC and NMI over the seeds (mean, population std) and the median fit time, as markdown
    rows."""
    from hyperclust.cluster import make_estimator
    from hyperclust.metrics import evaluate
    warnings.simplefilter("ignore")
    store = ResultStore(args.store, key=QUALITY_KEY)
    for name in args.datasets.split(","):
        hg = load(name)
        for method in QUALITY_METHODS:
            def fit(seed):
                t = time.perf_counter()
                labels = make_estimator(method, hg.n_classes, random_state=seed).fit(hg).labels_
                return {"time": time.perf_counter() - t, **evaluate(hg.labels, labels)}

            rows = run_seeds(fit, args.seeds, settings={"dataset": name, "n_nodes": hg.n_nodes,
                                                        "method": method},
                             store=store, echo=False)
            s = summarize(rows, ("method",), ("acc", "nmi"), ddof=0)[0]
            print(markdown_row([name, hg.n_nodes, method, fmt_mean_std(s["acc"], s["acc_std"]),
                                fmt_mean_std(s["nmi"], s["nmi_std"]),
                                f"{np.median([r['time'] for r in rows]):.1f}"]), flush=True)


def _load_runs(path):
    import gzip
    import json

    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt") as fh:
        data = json.load(fh)
    return data["runs"] if isinstance(data, dict) else data


def bench_table_lines(runs) -> list[str]:
    """Markdown table of ``hyperclust bench`` runs of :data:`QUALITY_METHODS`: one row per
    dataset and protocol where ``spectral-collapsed-cells`` ran, ACC and NMI mean ± population std over the seeds per method, the
    median fit time of ``spectral-collapsed-cells``; then how often the coboundary S_eps is
    at or above Zhou (mean ACC / NMI within .0005 counts as a tie)."""
    cells, nodes, fit = {}, {}, {}
    for r in runs:
        if r["method"] not in QUALITY_METHODS or r["status"] != "ok" or not r.get("metrics"):
            continue
        key = (r["dataset"], r["protocol"])
        nodes[key] = r["n_nodes"]
        cells.setdefault((key, r["method"]), []).append((r["metrics"]["acc"], r["metrics"]["nmi"]))
        if r["method"] == QUALITY_METHODS[2]:
            fit.setdefault(key, []).append(r["fit_time_s"])
    order = {"all": 0, "isolated-removed": 1, "lcc": 2}
    rows, wins, total = [], np.zeros(2, dtype=int), 0
    size = {}
    for (dataset, _), n in nodes.items():
        size[dataset] = max(size.get(dataset, 0), n)
    ran = {key for (key, method) in cells if method == QUALITY_METHODS[2]}
    for key in sorted(ran, key=lambda k: (size[k[0]], k[0], order.get(k[1], 3))):
        means, row = {}, [key[0], key[1], f"{nodes[key]:,}"]
        for method in QUALITY_METHODS:
            vals = np.array(cells.get((key, method), []))
            if vals.size == 0:
                row += ["not run", ""]
                continue
            means[method] = vals.mean(axis=0)
            row += [f"{m:.3f} ± {s:.3f} ({len(vals)})" if i == 0 else f"{m:.3f} ± {s:.3f}"
                    for i, (m, s) in enumerate(zip(vals.mean(axis=0), vals.std(axis=0)))]
        row.append(f"{np.median(fit[key]):.1f}" if key in fit else "")
        if QUALITY_METHODS[0] in means and QUALITY_METHODS[2] in means:
            total += 1
            wins += means[QUALITY_METHODS[2]] >= means[QUALITY_METHODS[0]] - 5e-4
        rows.append(row)
    head = ["dataset", "protocol", "nodes", "Zhou ACC (seeds)", "Zhou NMI", "star S_eps ACC",
            "star S_eps NMI", "coboundary S_eps ACC", "coboundary S_eps NMI",
            "coboundary fit s (median)"]
    commits = sorted({r.get("commit", "?")[:7] for r in runs if r["method"] in QUALITY_METHODS})
    return [*markdown_table(head, rows), "",
            f"Coboundary S_eps at or above Zhou: ACC in {wins[0]} of {total}, NMI in {wins[1]} "
            f"of {total} (dataset, protocol) pairs. Commits: {', '.join(commits)}."]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--scale", action="store_true", help="the iterative route at scale")
    mode.add_argument("--quality", action="store_true",
                      help="spectral clustering with the collapsed operators")
    mode.add_argument("--table", metavar="RESULTS", nargs="+",
                      help="print the quality table of `hyperclust bench` results.json(.gz) "
                           "files (a run found in an earlier file wins)")
    ap.add_argument("--out", default=None, help="the table (default docs/results/collapsed.md, "
                    "with --scale docs/results/collapsed_scale.md); its store beside it (.json)")
    ap.add_argument("--cap", type=float, default=600.0, help="seconds per grid run")
    ap.add_argument("--sizes", default="2000,4000,20000,100000", help="--scale: node counts")
    ap.add_argument("--repeats", type=int, default=3, help="--scale: runs per size")
    ap.add_argument("--datasets", help="--quality: comma-separated names",
                    default="zoo,contact-high-school-classes,cora-ca,citeseer-cc,cora-cc,"
                            "senate-committees")
    ap.add_argument("--seeds", type=int, default=5, help="--quality: seeds per method")
    ap.add_argument("--store", default="bench-out/collapsed_quality.json",
                    help="--quality: the store of the fits")
    args = ap.parse_args(argv)
    if args.table:
        runs, seen = [], set()
        for path in args.table:
            for r in _load_runs(path):
                key = (r["dataset"], r["protocol"], r["method"], r["seed"])
                if key not in seen:
                    seen.add(key)
                    runs.append(r)
        print("\n".join(bench_table_lines(runs)))
        return None
    if args.scale:
        return scale_main(args)
    if args.quality:
        return quality_main(args)
    return grid_main(args)


if __name__ == "__main__":
    main()
