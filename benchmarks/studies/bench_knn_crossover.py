"""Exact vs approximate cosine kNN by input size and dimension: the measurements behind
:func:`hyperclust.operators.neighbors.exact_is_cheaper`.

Usage::

    OMP_NUM_THREADS=1 PYTHONPATH=src python benchmarks/studies/bench_knn_crossover.py \
        [--sizes 1e4,3e4,1e5,3e5] [--dims 32,128,s1000] [--runs 3] [--sample 2048] \
        [--ann-runs-above 1e5:1] [--out bench-out/knn_crossover.jsonl]

Per (n, d), CPU seconds (``time.process_time``; run it with one thread), K = 10, with
``cosine_knn``'s tie rule (``tie_break="random"``, seed 0):

* ``exact``: :func:`exact_cosine_neighbors` on ``--sample`` query nodes against all rows,
  minimum of ``--runs``, extrapolated to all rows (its cost is linear in the queries);
* ``faiss_flat``: faiss ``IndexFlatIP`` (exact, float32) on the same queries, same
  extrapolation, and the share of its neighbour lists equal to ours;
* ``hnsw``: :func:`approximate_cosine_neighbors` on all rows (the whole search: index build,
  queries, exact re-ranking), minimum of ``--runs`` (``--ann-runs-above N:R``: R runs above N
  nodes), with recall@10 and tie-aware recall on the sampled queries.

Inputs (seed 0): ``32`` and ``128``: a Gaussian mixture of 8 centres (scaled by 0.6) plus
unit noise, dense; ``s1000``: binary bag-of-words, 1,000 words from 20 topics (each node 20
draws, half from its topic's 50 words, half from all), ~2% nonzeros: the sparse-products
path, like 20newsw100 (4% of 100 columns). Each row goes to ``--out`` (JSON lines, with the
commit and the load average) and to stdout.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from hyperclust.bench.provenance import load_average
from hyperclust.operators.neighbors import (_unit_rows, approximate_cosine_neighbors,
                                            exact_cosine_neighbors)

K = 10


def features(n, dim):
    """The input named ``dim`` (``"32"``, ``"128"`` or ``"s1000"``) with ``n`` rows."""
    rng = np.random.default_rng(0)
    if dim.startswith("s"):
        d, topics = int(dim[1:]), 20
        topic = rng.integers(topics, size=n)
        own = topic[:, None] * 50 + rng.integers(50, size=(n, 10))
        cols = np.concatenate([own % d, rng.integers(d, size=(n, 10))], axis=1)
        X = sp.csr_matrix((np.ones(cols.size), (np.repeat(np.arange(n), 20), cols.ravel())),
                          shape=(n, d))
        X.data[:] = 1.0  # duplicates summed: binary again
        return X
    d = int(dim)
    centres = rng.normal(size=(8, d)) * 0.6
    return centres[rng.integers(8, size=n)] + rng.normal(size=(n, d))


def _cpu_min(fn, runs):
    """Minimum CPU seconds of ``runs`` calls of ``fn`` and its last result."""
    best, out = np.inf, None
    for _ in range(runs):
        t0 = time.process_time()
        out = fn()
        best = min(best, time.process_time() - t0)
    return best, out


def _faiss_flat(X, q, runs):
    """CPU seconds of faiss ``IndexFlatIP`` for the queries ``q`` (build included) and its
    neighbour lists (self dropped)."""
    import faiss

    Xf = np.ascontiguousarray(_unit_rows(X.toarray() if sp.issparse(X) else X),
                              dtype=np.float32)

    def search():
        index = faiss.IndexFlatIP(Xf.shape[1])
        index.add(Xf)
        return index.search(Xf[q], K + 1)[1]

    t, ids = _cpu_min(search, runs)
    return t, np.array([[j for j in row if j != i][:K] for i, row in zip(q, ids)])


def _recalls(X, q, ann, exact_idx, exact_sim):
    """Plain and tie-aware recall@K of ``ann`` (rows ``q``) against the exact lists."""
    Xn = _unit_rows(X)
    rows = np.repeat(q, ann.shape[1])
    if sp.issparse(Xn):
        true = np.asarray(Xn[rows].multiply(Xn[ann.ravel()]).sum(axis=1)).reshape(ann.shape)
    else:
        true = np.einsum("qd,qkd->qk", Xn[q], Xn[ann])
    plain = np.mean([np.intersect1d(a, e).size / K for a, e in zip(ann, exact_idx)])
    return float(plain), float(np.mean(true >= exact_sim[:, -1:] - 1e-12))


def measure(n, dim, runs, ann_runs, sample):
    X = features(n, dim)
    q = np.sort(np.random.default_rng(0).choice(n, size=min(sample, n), replace=False))
    scale = n / q.size
    row = {"n": n, "dim": dim, "runs": runs, "ann_runs": ann_runs, "sample": int(q.size),
           "nnz_share": float(X.nnz / (n * X.shape[1])) if sp.issparse(X) else 1.0,
           "load_before": load_average()}
    t, (ie, se) = _cpu_min(lambda: exact_cosine_neighbors(X, K, queries=q, tie_break="random"),
                           runs)
    row["exact_s"] = t * scale
    t, flat = _faiss_flat(X, q, runs)
    row["faiss_flat_s"] = t * scale
    row["faiss_equal_lists"] = float(np.mean(np.all(flat == ie, axis=1)))
    t, (ia, _) = _cpu_min(lambda: approximate_cosine_neighbors(X, K, tie_break="random"),
                          ann_runs)
    row["hnsw_s"] = t
    row["hnsw_recall"], row["hnsw_tie_aware"] = _recalls(X, q, ia[q], ie, se)
    row["load_after"] = load_average()
    return row


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1e4,3e4,1e5,3e5")
    ap.add_argument("--dims", default="32,128,s1000")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--ann-runs-above", default="1e5:1",
                    help="N:R -- R runs of the approximate search above N nodes")
    ap.add_argument("--sample", type=int, default=2048)
    ap.add_argument("--out", default="bench-out/knn_crossover.jsonl")
    args = ap.parse_args(argv)
    above, few = args.ann_runs_above.split(":")
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    for n in (int(float(s)) for s in args.sizes.split(",")):
        for dim in args.dims.split(","):
            ann_runs = int(few) if n > float(above) else args.runs
            row = {"commit": commit, **measure(n, dim, args.runs, ann_runs, args.sample)}
            print(json.dumps(row), flush=True)
            with open(args.out, "a") as fh:
                fh.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    sys.exit(main())
