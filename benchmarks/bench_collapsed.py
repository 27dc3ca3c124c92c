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


def main():
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
