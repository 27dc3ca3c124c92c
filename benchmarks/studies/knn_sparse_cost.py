"""CPU of the exact and the approximate cosine kNN search on inputs with sparse products,
against the quantities that predict them: the exact search's pair products
``sum_w df_w^2`` (``df_w``: rows holding column ``w``) and the input's rows.

The exact sparse search computes ``Xn[block] @ Xn.T`` for every row block: its work is the
number of (row, row, shared column) products, ``sum_w df_w^2``, plus the selection over
the stored similarities. The approximate search (SVD projection, HNSW, exact re-ranking and
one refinement round) costs about the same per row whatever the vocabulary. Prints, per
input, both CPU times (exact extrapolated from ``--sample`` seeded queries, min of
``--runs``; approximate min of ``--ann-runs`` whole searches), nanoseconds per pair product
and microseconds per row, as ``operators/_knn_cost.py`` uses them.

    OMP_NUM_THREADS=1 HYPERCLUST_NUM_THREADS=1 PYTHONPATH=src python \
        benchmarks/studies/knn_sparse_cost.py --sets cora-ca citeseer-cc s30k t30k s100k t100k
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_knn_crossover import _cpu_min  # noqa: E402
from knn_rerank_candidates import load_features  # noqa: E402

from hyperclust.bench.provenance import load_average  # noqa: E402
from hyperclust.operators._knn_cost import pair_products  # noqa: E402
from hyperclust.operators.neighbors import (approximate_cosine_neighbors,  # noqa: E402
                                            exact_cosine_neighbors)

K = 10


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", nargs="+", default=["cora-ca", "citeseer-cc", "s30k", "t30k"])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--ann-runs", type=int, default=1)
    ap.add_argument("--sample", type=int, default=2048)
    args = ap.parse_args(argv)
    for name in args.sets:
        X = load_features(name).tocsr()
        n = X.shape[0]
        q = np.sort(np.random.default_rng(0).choice(n, size=min(args.sample, n), replace=False))
        row = {"set": name, "n": n, "d": X.shape[1], "nnz": int(X.nnz),
               "pair_products": float(pair_products(X)), "load_before": load_average()}
        row["exact_s"] = _cpu_min(lambda: exact_cosine_neighbors(X, K, queries=q),
                                  args.runs)[0] * n / q.size
        row["approx_s"] = _cpu_min(lambda: approximate_cosine_neighbors(X, K), args.ann_runs)[0]
        row["exact_ns_per_pair"] = 1e9 * row["exact_s"] / row["pair_products"]
        row["approx_us_per_row"] = 1e6 * row["approx_s"] / n
        row["load_after"] = load_average()
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
