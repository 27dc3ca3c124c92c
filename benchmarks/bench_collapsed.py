"""Collapsed operator S_eps: exact vs matrix-free application and eigenpairs across sizes.

For the coboundary complex of cora-ca (covered nodes) and random sub-hypergraphs of it:
time of building S_eps (block "exact" LU of C + eps I, vertex-space LU, CG), time of one
10-column application, and of the 10 smallest eigenpairs (shift-invert).

Usage: nice python benchmarks/bench_collapsed.py [--out docs/results/collapsed.md]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _datasets import load  # noqa: E402

from hyperclust.operators import coboundary_complex  # noqa: E402
from hyperclust.operators.collapsed import CoboundaryCollapsed  # noqa: E402


def timed(f):
    t = time.time()
    out = f()
    return out, time.time() - t


def main():
    out = sys.argv[sys.argv.index("--out") + 1] if "--out" in sys.argv else "docs/results/collapsed.md"
    hg = load("cora-ca").drop_isolated()
    rng = np.random.default_rng(0)
    lines = ["# Collapsed operator: exact vs matrix-free (bench_collapsed.py)", "",
             "| nodes | method | build s | apply 10 cols s | 10 eigenpairs s |", "|---|---|---|---|---|"]
    V = None
    for frac in (0.25, 0.5, 1.0):
        sub = hg if frac == 1.0 else hg.subset(np.sort(rng.choice(hg.n_nodes, int(frac * hg.n_nodes), replace=False))).drop_isolated()
        V = np.random.default_rng(1).standard_normal((sub.n_nodes, 10))
        cx = coboundary_complex(sub, beta=(1, 1), gamma=(0.5, 0.5))
        for method in ("exact", "cg"):
            S, tb = timed(lambda: cx.collapsed(eps=1e-2, method=method, tol=1e-8))
            _, ta = timed(lambda: S.matmat(V))
            te = "-"
            if method == "exact":
                _, te = timed(lambda: S.smallest_eigenpairs(10))
                te = f"{te:.2f}"
            lines.append(f"| {sub.n_nodes} | block {method} | {tb:.2f} | {ta:.2f} | {te} |")
            print(lines[-1], flush=True)
        S, tb = timed(lambda: CoboundaryCollapsed(sub, eps=1e-2))
        _, ta = timed(lambda: S.matmat(V))
        _, te = timed(lambda: S.smallest_eigenpairs(10))
        lines.append(f"| {sub.n_nodes} | vertex-space LU | {tb:.2f} | {ta:.2f} | {te:.2f} |")
        print(lines[-1], flush=True)
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    Path(out).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
