"""Exact vs approximate (faiss HNSW) cosine kNN: recall@10 and time.

Usage::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 \\
        python benchmarks/bench_knn.py [--sample 2000] [--big 200000]

Datasets: 20newsw100 (16,242 nodes, 100 features, 4% nonzero: many exact ties), cora-ca
(2,708 x 1,433 sparse bag-of-words; the ANN path projects it to 128 SVD dimensions) and a
synthetic Gaussian mixture (``--big`` nodes, 64 dimensions, 20 clusters). The exact search is
timed on all nodes for the real sets and extrapolated from a ``--sample`` query sample for the
synthetic one (whose exact neighbours are computed for that sample only). Recall@10 =
|ANN ∩ exact| / 10 averaged over the sampled queries; "tie-aware" counts an ANN neighbour as
correct when its true cosine similarity reaches the exact 10th similarity (exact ties make the
plain recall ambiguous on binary features). Prints a markdown table.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np

from hyperclust.datasets import load_dataset
from hyperclust.operators.neighbors import (_unit_rows, approximate_cosine_neighbors,
                                            exact_cosine_neighbors)

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("HYPERCLUST_DATA", ROOT.parent / "shared" / "data"))


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
    return {"dataset": name, "n": n, "d": X.shape[1], "exact_s": t_exact,
            "exact_note": exact_note, "ann_s": t_ann, "recall": recall, "tie_aware": tie_aware}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sample", type=int, default=2000)
    ap.add_argument("--big", type=int, default=200_000)
    args = ap.parse_args(argv)
    rows = []
    for name in ("cora-ca", "20newsw100"):
        hg = load_dataset(name, data_dir=str(DATA))
        rows.append(measure(name, hg.features, args.sample, True))
    rng = np.random.default_rng(0)
    centres = rng.normal(size=(20, 64))
    X = centres[rng.integers(20, size=args.big)] * 0.6 + rng.normal(size=(args.big, 64))
    rows.append(measure(f"synthetic-{args.big // 1000}k", X, args.sample, False))
    print(f"load average {open('/proc/loadavg').read().split()[:3]}, "
          f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS')}")
    print("| dataset | n | d | exact (s) | faiss HNSW (s) | recall@10 | tie-aware recall@10 |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['dataset']} | {r['n']} | {r['d']} | {r['exact_s']:.1f} ({r['exact_note']}) "
              f"| {r['ann_s']:.1f} | {r['recall']:.3f} | {r['tie_aware']:.3f} |")


if __name__ == "__main__":
    main()
