"""Exact vs approximate (faiss HNSW) cosine kNN: recall@10 and time.

Usage::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 \\
        python benchmarks/bench_knn.py [--sample 2000] [--big 200000] [--store bench-out/knn.json]

Datasets: 20newsw100 (16,242 nodes, 100 features, 4% nonzero: many exact ties), cora-ca
(2,708 x 1,433 sparse bag-of-words; the ANN path projects it to 128 SVD dimensions) and a
synthetic Gaussian mixture (``--big`` nodes, 64 dimensions, 20 clusters). The exact search is
timed on all nodes for the real sets and extrapolated from a ``--sample`` query sample for the
synthetic one (whose exact neighbours are computed for that sample only). Recall@10 =
|ANN ∩ exact| / 10 averaged over the sampled queries; "tie-aware" counts an ANN neighbour as
correct when its true cosine similarity reaches the exact 10th similarity (exact ties make the
plain recall ambiguous on binary features). Rows go to the harness's store (``--store``, each
with its commit and load average); prints a markdown table of the rows of this run.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _datasets import load  # noqa: E402

from hyperclust.bench import ResultStore, markdown_table  # noqa: E402
from hyperclust.bench.provenance import load_average  # noqa: E402
from hyperclust.operators.neighbors import (_unit_rows, approximate_cosine_neighbors,  # noqa: E402
                                            exact_cosine_neighbors)

KEY = ("dataset", "sample")


def measure(name, X, sample, full_exact):
    n = X.shape[0]
    rng = np.random.default_rng(0)
    q = np.sort(rng.choice(n, size=min(sample, n), replace=False))
    t0 = time.perf_counter()
    if full_exact:
        ie, se = exact_cosine_neighbors(X, 10)
        t_exact = time.perf_counter() - t0
        ie, se = ie[q], se[q]
        exact_note = "all nodes"
    else:
        ie, se = exact_cosine_neighbors(X, 10, queries=q)
        t_exact = (time.perf_counter() - t0) * n / q.size
        exact_note = f"extrapolated from {q.size} queries"
    t0 = time.perf_counter()
    ia, _ = approximate_cosine_neighbors(X, 10)
    t_ann = time.perf_counter() - t0
    ia = ia[q]
    recall = np.mean([np.intersect1d(a, e).size / 10 for a, e in zip(ia, ie)])
    Xn = _unit_rows(X)
    Xq = Xn[q]
    true = np.stack([np.asarray(Xq[i] @ Xn[ia[i]].T).ravel() if not hasattr(Xq, "toarray")
                     else (Xq[i] @ Xn[ia[i]].T).toarray().ravel() for i in range(q.size)])
    tie_aware = np.mean(true >= se[:, -1:] - 1e-12)
    return {"dataset": name, "sample": sample, "n": n, "d": X.shape[1], "exact_s": t_exact,
            "exact_note": exact_note, "ann_s": t_ann, "recall": recall, "tie_aware": tie_aware}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sample", type=int, default=2000)
    ap.add_argument("--big", type=int, default=200_000)
    ap.add_argument("--store", default="bench-out/knn.json", help="the store (JSON)")
    args = ap.parse_args(argv)
    store = ResultStore(args.store, key=KEY)
    rows = []
    for name in ("cora-ca", "20newsw100"):
        rows.append(measure(name, load(name).features, args.sample, True))
        store.add(rows[-1])
    rng = np.random.default_rng(0)
    centres = rng.normal(size=(20, 64))
    X = centres[rng.integers(20, size=args.big)] * 0.6 + rng.normal(size=(args.big, 64))
    rows.append(measure(f"synthetic-{args.big // 1000}k", X, args.sample, False))
    store.add(rows[-1])
    print(f"load average {load_average()}, "
          f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS')}")
    print("\n".join(markdown_table(
        ["dataset", "n", "d", "exact (s)", "faiss HNSW (s)", "recall@10", "tie-aware recall@10"],
        [[r["dataset"], r["n"], r["d"], f"{r['exact_s']:.1f} ({r['exact_note']})",
          f"{r['ann_s']:.1f}", f"{r['recall']:.3f}", f"{r['tie_aware']:.3f}"] for r in rows])))


if __name__ == "__main__":
    main()
