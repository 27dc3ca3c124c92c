"""Fewer or cheaper kNN searches for ``auto`` with attributes (issue 32): faiss IVF-flat
against the HNSW path, and the training split's graph from the all-column search.

On ``hypergraph_sbm(n, 4, homophily=0.7, n_features=32, random_state=0)``'s features, one
thread (faiss included), CPU seconds (``time.process_time``), recall@K against the exact
search on 2,048 seeded queries:

1. the library's approximate search (HNSW over 8-bit codes, 2K candidates re-ranked);
2. ``IndexIVFFlat`` (seeded k-means on ``64 * nlist`` seeded rows), 2K candidates re-ranked
   exactly, per ``nprobe``; built twice to check that the lists are identical;
3. one search for both graphs of an attributed ``auto`` fit: the all-column HNSW search's
   candidates (2K and 4K) re-ranked on a seeded 26 of the 32 columns (the training split's
   width), against the split's own search.

    OMP_NUM_THREADS=1 PYTHONPATH=src python benchmarks/studies/bench_knn_search_reuse.py --n 1e5

~5 minutes of CPU at 10^5 (three HNSW searches).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

K = 10


def _cpu(fn):
    start = time.process_time()
    out = fn()
    return time.process_time() - start, out


def _recall(found, exact, sample):
    return float(np.mean([len(set(a) & set(b)) / K for a, b in zip(found[sample], exact)]))


def ivf_neighbors(nb, X, nlist, nprobe):
    """``(build s, search s, ids)``: IVF-flat candidates of every row, re-ranked exactly."""
    import faiss

    Xf = nb._ann_input(X, 0)
    n = Xf.shape[0]
    index = faiss.IndexIVFFlat(faiss.IndexFlatIP(Xf.shape[1]), Xf.shape[1], nlist,
                               faiss.METRIC_INNER_PRODUCT)
    index.cp.seed, index.cp.niter = 0, 20
    rows = np.sort(np.random.default_rng(0).choice(n, min(n, 64 * nlist), replace=False))
    build, _ = _cpu(lambda: (index.train(Xf[rows]), index.add(Xf)))
    index.nprobe = nprobe
    search, (_, cand) = _cpu(lambda: index.search(Xf, 2 * K + 1))
    cand = cand.astype(np.int64)
    cand[cand == np.arange(n)[:, None]] = -1
    return build, search, nb._rerank(nb._unit_rows(X), cand, K, "id", 0)[0]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=float, default=1e5)
    ap.add_argument("--nlist", type=int, default=256)
    ap.add_argument("--nprobe", type=int, nargs="+", default=[4, 8, 16])
    args = ap.parse_args(argv)
    import faiss

    from hyperclust.datasets import hypergraph_sbm
    from hyperclust.operators import neighbors as nb

    faiss.omp_set_num_threads(1)
    n = int(args.n)
    X = hypergraph_sbm(n, 4, homophily=0.7, n_features=32, random_state=0).features
    cols = np.sort(np.random.default_rng(0).choice(X.shape[1], 26, replace=False))
    sample = np.sort(np.random.default_rng(1).choice(n, 2048, replace=False))
    exact = nb.exact_cosine_neighbors(X, K, queries=sample)[0]
    exact_split = nb.exact_cosine_neighbors(X[:, cols], K, queries=sample)[0]
    t, (found, _) = _cpu(lambda: nb.approximate_cosine_neighbors(X, K))
    print(f"n {n}: HNSW (library default), all 32 columns: {t:.1f} s, recall "
          f"{_recall(found, exact, sample):.4f}", flush=True)
    for nprobe in args.nprobe:
        build, search, found = ivf_neighbors(nb, X, args.nlist, nprobe)
        same = np.array_equal(found, ivf_neighbors(nb, X, args.nlist, nprobe)[2])
        print(f"IVF-flat nlist {args.nlist} nprobe {nprobe}: build {build:.1f} + search "
              f"{search:.1f} s, recall {_recall(found, exact, sample):.4f}, rebuilt identical "
              f"{same}", flush=True)
    t, (found, _) = _cpu(lambda: nb.approximate_cosine_neighbors(X[:, cols], K))
    print(f"HNSW on the 26 split columns: {t:.1f} s, recall "
          f"{_recall(found, exact_split, sample):.4f}", flush=True)
    for n_cand in (2 * K, 4 * K):
        t, cand = _cpu(lambda: nb._hnsw_candidates(nb._ann_input(X, 0), n_cand, 32, 80,
                                                   max(96, n_cand + 1)))
        found = nb._rerank(nb._unit_rows(X[:, cols]), cand, K, "id", 0)[0]
        print(f"all-column search, {n_cand} candidates ({t:.1f} s) re-ranked on the split "
              f"columns: recall {_recall(found, exact_split, sample):.4f}", flush=True)


if __name__ == "__main__":
    main()
