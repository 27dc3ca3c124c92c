"""``PropagationOperator(hg) @ X`` for a float32 block against the bare scipy float32 CSR
products of the same size, and the float64 path a float32 block took before (cast, float64
factors), interleaved in one process, CPU time (``time.process_time``), minimum of ``--runs``.

Usage::

    python benchmarks/studies/bench_propagation_dtype.py [--nodes 100000] [--dim 32] [--runs 5]

The hypergraph is ``hypergraph_sbm(nodes, 4, random_state=0)``; the bare product is
``up @ (down @ X)`` with the operator's own float32 factors (scipy's CSR kernel), plus the
self-loop term, so both sides do the same arithmetic.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from hyperclust.bench.provenance import load_average
from hyperclust.datasets.synthetic import hypergraph_sbm
from hyperclust.operators.propagation import PropagationOperator


def _cpu(fn):
    t0 = time.process_time()
    out = fn()
    return time.process_time() - t0, out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=100_000)
    ap.add_argument("--dim", type=int, default=32)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args(argv)
    hg = hypergraph_sbm(args.nodes, 4, random_state=0)
    X = np.random.default_rng(0).normal(size=(args.nodes, args.dim)).astype(np.float32)
    P = PropagationOperator(hg)
    down, up, diag = P._factors(False, np.float32)
    cases = {
        "P @ X (float32)": lambda: P @ X,
        "bare scipy float32": lambda: up @ (down @ X) + diag[:, None] * X,
        "float64 path (cast)": lambda: P.apply(X),
    }
    best = dict.fromkeys(cases, np.inf)
    print(f"nnz(H) = {hg.incidence.nnz}, load average {load_average()}")
    for _ in range(args.runs):
        for name, fn in cases.items():
            t, out = _cpu(fn)
            best[name] = min(best[name], t)
            assert out.dtype == (np.float64 if "float64" in name else np.float32), name
    for name, t in best.items():
        print(f"{name}: {t * 1e3:.1f} ms CPU (min of {args.runs})")
    print(f"load average {load_average()}")


if __name__ == "__main__":
    main()
