"""Scaling benchmark: time and peak memory vs hypergraph size, with fitted growth exponents.

Synthetic hypergraph SBMs from 10^3 to 10^6 nodes (as many hyperedges as nodes, sizes
uniform in 2..6, so nnz(H) ~ 4 n). For each size and each operation, a fresh process
(multiprocessing "spawn") builds the graph (not timed), then times the operation (best of 3
for the cheap PX and basis) and samples its peak RSS growth:

* ``PX``         one application of the propagation operator P to X of shape (n, 64);
* ``eigsh``      spectral embedding: the 16 largest eigenpairs of P
                 (``hyperclust.spectral.eigsh_seeded``, Lanczos, tol 1e-6);
* ``basis``      the Uni-DHC polynomial basis [X, PX, ..., P^4 X], X of shape (n, 32);
* ``unidhc_epoch`` one Uni-DHC training epoch on that basis (``train_unidhc``, epochs=1).

The growth exponent of each operation is the least-squares slope of log(time) (and of
log(memory)) against log(nnz(H)) over sizes >= 10^4 (smaller ones are dominated by fixed
overheads). Linear-cost operations should show a slope near 1; anything growing faster
than linear (slope > 1.15) is flagged.

This is a benchmark, not a test: run it in the background, e.g.

    nice -n 10 python benchmarks/bench_scaling.py --out docs/results/bench > /tmp/scaling.log 2>&1 &
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import sys
import time
from pathlib import Path

import numpy as np

OPERATIONS = ("PX", "eigsh", "basis", "unidhc_epoch")
FLAG_SLOPE = 1.15


def _graph(n):
    from hyperclust.datasets.synthetic import hypergraph_sbm

    return hypergraph_sbm(n, 4, homophily=0.7, n_features=0, random_state=0)


def _measure(op, n, queue):
    from hyperclust.bench.memory import PeakMemory

    try:
        hg = _graph(n)
        rng = np.random.default_rng(0)
        from hyperclust.operators.propagation import PropagationOperator

        P = PropagationOperator(hg)
        if op == "PX":
            X = rng.standard_normal((n, 64))
            fn = lambda: P.matmat(X)  # noqa: E731
        elif op == "eigsh":
            from hyperclust.spectral import eigsh_seeded

            fn = lambda: eigsh_seeded(P, 16, which="LA", random_state=0, tol=1e-6)  # noqa: E731
        elif op == "basis":
            from hyperclust.models.basis import polynomial_basis

            X = rng.standard_normal((n, 32))
            fn = lambda: polynomial_basis(P, X, 4)  # noqa: E731
        elif op == "unidhc_epoch":
            from hyperclust.models.basis import polynomial_basis
            from hyperclust.models.unidhc import train_unidhc

            B = polynomial_basis(P, rng.standard_normal((n, 32)), 4)
            g0 = np.array([0.0, 0.0, 1.0, 0.0, 0.0])
            fn = lambda: train_unidhc(B, hg.incidence, g0, epochs=1, random_state=0)  # noqa: E731
        else:
            raise ValueError(f"unknown operation {op!r}")
        times, extra = [], []
        # Cheap operations are repeated and the fastest time kept, against timer and load
        # noise; memory is the largest growth seen (later repetitions reuse freed pages).
        for _ in range(3 if op in ("PX", "basis") else 1):
            with PeakMemory() as mem:
                t0 = time.perf_counter()
                fn()
                times.append(time.perf_counter() - t0)
            extra.append(mem.extra_mb)
        queue.put({"status": "ok", "time_s": min(times), "extra_mb": max(extra),
                   "nnz": int(hg.incidence.nnz), "n_edges": int(hg.n_edges)})
    except BaseException as exc:  # recorded: one failing size must not stop the sweep
        queue.put({"status": "failed", "error": f"{type(exc).__name__}: {exc}"[:500]})


def run_one(op, n, time_limit):
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    p = ctx.Process(target=_measure, args=(op, n, q))
    t0 = time.perf_counter()
    p.start()
    p.join(time_limit)
    if p.is_alive():
        p.kill()
        p.join()
        return {"status": "timeout", "error": f"over {time_limit:g} s"}
    try:
        res = q.get(timeout=5)
    except Exception:
        res = {"status": "failed", "error": f"process exited with code {p.exitcode}"}
    res["wall_s"] = time.perf_counter() - t0
    return res


def slope(rows, field, min_nodes=10_000):
    pts = [(r["nnz"], r[field]) for r in rows
           if r.get("status") == "ok" and r["n_nodes"] >= min_nodes and r.get(field, 0) > 0]
    if len(pts) < 2:
        return None
    x, y = np.log10(np.array(pts, dtype=float)).T
    return float(np.polyfit(x, y, 1)[0])


def plot(rows, path):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(11, 4.2), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, 2)
    for i, op in enumerate(OPERATIONS):
        ok = [r for r in rows if r["op"] == op and r["status"] == "ok"]
        if not ok:
            continue
        x = [r["nnz"] for r in ok]
        for ax, field in zip(axes, ("time_s", "extra_mb")):
            y = [max(r[field], 1e-3) for r in ok]
            s = slope(rows_for(rows, op), field)
            ax.loglog(x, y, "o-", color=f"C{i}",
                      label=f"{op} (slope {s:.2f})" if s is not None else op)
    xs = np.array([1e3, 5e6])
    axes[0].loglog(xs, 1e-5 * xs, "k:", lw=0.8, label="slope 1 (reference)")
    axes[0].set_ylabel("time (s)")
    axes[1].set_ylabel("peak RSS growth during the operation (MiB)")
    for ax in axes:
        ax.set_xlabel("nnz(H)")
        ax.legend(fontsize=7)
    fig.suptitle("Scaling on synthetic hypergraph SBMs (10^3..10^6 nodes); slopes over n >= 10^4")
    fig.savefig(path, dpi=80)


def rows_for(rows, op):
    return [r for r in rows if r["op"] == op]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", nargs="+", type=float,
                    default=[1e3, 3e3, 1e4, 3e4, 1e5, 3e5, 1e6])
    ap.add_argument("--ops", nargs="+", default=list(OPERATIONS), choices=OPERATIONS)
    ap.add_argument("--time-limit", type=float, default=600.0, help="seconds per measurement")
    ap.add_argument("--out", default="docs/results/bench")
    ap.add_argument("--redo", action="store_true", help="measure again what --out already has")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    json_path = out / "scaling.json"
    rows = json.loads(json_path.read_text())["rows"] if json_path.exists() else []
    done = set() if args.redo else {(r["op"], r["n_nodes"]) for r in rows if r["status"] == "ok"}
    for op in args.ops:
        for n in sorted(int(s) for s in args.sizes):
            if (op, n) in done:
                continue
            res = run_one(op, n, args.time_limit)
            res.update(op=op, n_nodes=n)
            rows = [r for r in rows if (r["op"], r["n_nodes"]) != (op, n)] + [res]
            print(json.dumps(res), flush=True)
            json_path.write_text(json.dumps({"rows": rows}, indent=1))
            if res["status"] != "ok":
                break  # larger sizes would fail the same way
    summary = {}
    lines = ["| operation | sizes (nodes) | time at largest | slope time | slope memory | flag |",
             "|---|---|---|---|---|---|"]
    for op in OPERATIONS:
        ok = sorted((r for r in rows_for(rows, op) if r["status"] == "ok"), key=lambda r: r["n_nodes"])
        if not ok:
            continue
        st, sm = slope(rows_for(rows, op), "time_s"), slope(rows_for(rows, op), "extra_mb")
        flag = "faster than linear" if st is not None and st > FLAG_SLOPE else ""
        summary[op] = {"slope_time": st, "slope_memory": sm, "flag": flag}
        big = ok[-1]
        lines.append(f"| {op} | {ok[0]['n_nodes']:.0e}..{big['n_nodes']:.0e} | "
                     f"{big['time_s']:.2f} s (nnz {big['nnz']}) | "
                     f"{'' if st is None else f'{st:.2f}'} | {'' if sm is None else f'{sm:.2f}'} | {flag} |")
    json_path.write_text(json.dumps({"rows": rows, "summary": summary}, indent=1))
    (out / "scaling.md").write_text("\n".join(lines) + "\n")
    plot(rows, out / "scaling_synthetic.png")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
