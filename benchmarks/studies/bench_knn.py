"""Exact vs approximate (faiss HNSW over 8-bit codes, exact re-ranking) cosine kNN:
recall@10 and time.

Usage::

    python benchmarks/studies/bench_knn.py [--sets cora-ca,20newsw100,mix200k,sbm1e6] [--runs 3]
        [--sample 2000] [--threads 2] [--store bench-out/knn.json]
    python benchmarks/studies/bench_knn.py --selection --sets 20newsw100,gauss100k [--sample N]

``--selection`` splits the exact search into its similarity products and its top-10
selection, block by block as :func:`exact_cosine_neighbors` runs them, and times the
selection rule in use (strided-subset bound + sort of the survivors) against the full-row
rule (``top_k_lowest_id``, the rule before it) on the
same blocks, interleaved, CPU time (``time.process_time``), minimum of ``--runs``; the two
must select the same neighbours. faiss ``IndexFlatIP`` (exact, float32) is timed on the same
queries, with the share of its neighbour lists equal to ours. ``gaussNNNk``: NNN thousand
standard normal rows of 32 dimensions (seed 0).

Datasets: cora-ca (2,708 x 1,433 sparse bag-of-words; the index sees a 128-dimensional SVD
projection, the re-ranking the original rows), 20newsw100 (16,242 x 100, 4% nonzero: many
exact ties), ``mixNNNk`` (a Gaussian mixture: NNN thousand nodes, 64 dimensions, 20 clusters,
centres scaled by 0.6) and ``sbmNeM`` (the 32 features of
``hypergraph_sbm(N * 10^M, 4, homophily=.7, random_state=0)``: a 4-class mixture at signal to
noise .35, nearly isotropic, the input of ``benchmarks/bench_auto_1e6.py``).

The exact search is timed on a ``--sample`` of query nodes (seed 0) as the reference: it gives
the true neighbours, and its time extrapolated to all nodes is the exact path's cost. The
approximate search runs on all nodes ``--runs`` times (min and median wall time reported; the
runs must agree, which checks determinism too). Recall@10 = |ANN ∩ exact| / 10 averaged over
the sampled queries; "tie-aware" counts an ANN neighbour as correct when its true cosine
similarity reaches the exact 10th similarity (exact ties make the plain recall ambiguous on
binary features). Both searches run under ``thread_limit(--threads)``. Rows go to the
harness's store (each with its commit and load average); prints a markdown table.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: _datasets
from _datasets import load  # noqa: E402

from hyperclust.bench import ResultStore, markdown_table  # noqa: E402
from hyperclust.bench.provenance import load_average  # noqa: E402
from hyperclust.operators._topk import (order_by_value, top_k_lowest_id,  # noqa: E402
                                        top_k_sorted)
from hyperclust.operators.neighbors import (_CHUNK_ENTRIES, _search_layout,  # noqa: E402
                                            _unit_rows, approximate_cosine_neighbors,
                                            exact_cosine_neighbors)
from hyperclust.runtime.threads import thread_limit  # noqa: E402

KEY = ("dataset", "threads")


def features(name):
    """The feature matrix of a shared dataset or of a synthetic set named as in the usage."""
    if m := re.fullmatch(r"mix(\d+)k", name):
        n = int(m.group(1)) * 1000
        rng = np.random.default_rng(0)
        centres = rng.normal(size=(20, 64))
        return centres[rng.integers(20, size=n)] * 0.6 + rng.normal(size=(n, 64))
    if m := re.fullmatch(r"gauss(\d+)k", name):
        return np.random.default_rng(0).normal(size=(int(m.group(1)) * 1000, 32))
    if m := re.fullmatch(r"sbm(\d+)e(\d+)", name):
        from hyperclust.datasets import hypergraph_sbm

        n = int(m.group(1)) * 10 ** int(m.group(2))
        return hypergraph_sbm(n, 4, homophily=0.7, n_features=32, random_state=0).features
    return load(name).features


def measure(name, X, sample, runs, threads):
    n = X.shape[0]
    q = np.sort(np.random.default_rng(0).choice(n, size=min(sample, n), replace=False))
    with thread_limit(threads):
        t0 = time.perf_counter()
        ie, se = exact_cosine_neighbors(X, 10, queries=q)
        t_exact = time.perf_counter() - t0
        times, first = [], None
        for _ in range(runs):
            t0 = time.perf_counter()
            ia, sa = approximate_cosine_neighbors(X, 10)
            times.append(time.perf_counter() - t0)
            if first is None:
                first = ia
            elif not np.array_equal(first, ia):
                raise RuntimeError(f"{name}: two approximate runs differ")
    ia = ia[q]
    recall = np.mean([np.intersect1d(a, e).size / 10 for a, e in zip(ia, ie)])
    Xn = _unit_rows(X)
    rows = np.repeat(q, ia.shape[1])
    if hasattr(Xn, "toarray"):
        true = np.asarray(Xn[rows].multiply(Xn[ia.ravel()]).sum(axis=1)).reshape(ia.shape)
    else:
        true = np.einsum("qd,qkd->qk", Xn[q], Xn[ia])
    tie_aware = np.mean(true >= se[:, -1:] - 1e-12)
    return {"dataset": name, "threads": threads, "n": n, "d": X.shape[1],
            "sample": int(q.size), "exact_sample_s": t_exact,
            "exact_all_s": t_exact * n / q.size, "ann_min_s": min(times),
            "ann_median_s": float(np.median(times)), "runs": runs,
            "recall": recall, "tie_aware": tie_aware}


def _cpu(fn, *args):
    t0 = time.process_time()
    out = fn(*args)
    return time.process_time() - t0, out


def selection_costs(name, X, sample, runs, k=10):
    """CPU seconds of the products, the selection in use and the full-row rule over the
    blocks of ``sample`` queries (all rows as candidates, self excluded), extrapolated to all
    rows; and faiss ``IndexFlatIP`` on the same queries."""
    n = X.shape[0]
    Xn = _search_layout(_unit_rows(X), "auto")
    Ct = Xn.T.tocsr() if hasattr(Xn, "tocsr") else Xn.T
    q_all = np.arange(min(sample, n))
    chunk = max(1, min(4096, _CHUNK_ENTRIES // n))
    best = {"products": np.inf, "selection": np.inf, "full_row": np.inf}
    for _ in range(runs):
        spent = dict.fromkeys(best, 0.0)
        for start in range(0, q_all.size, chunk):
            q = q_all[start:start + chunk]
            t, sim = _cpu(lambda: Xn[q] @ Ct)
            spent["products"] += t
            sim = sim.toarray() if hasattr(sim, "toarray") else np.asarray(sim)
            sim[np.arange(q.size), q] = -np.inf
            t, new = _cpu(top_k_sorted, sim, k)
            spent["selection"] += t
            t, old = _cpu(lambda: order_by_value(sim, top_k_lowest_id(sim, k)))
            spent["full_row"] += t
            if not np.array_equal(new, old):
                raise RuntimeError(f"{name}: the two selection rules differ")
        best = {key: min(best[key], spent[key]) for key in best}
    row = {"dataset": name, "n": n, "d": X.shape[1], "sample": int(q_all.size), "runs": runs}
    row.update({f"{key}_s": v * n / q_all.size for key, v in best.items()})
    row.update(_faiss_flat(X, q_all, runs, exact_cosine_neighbors(X, k, queries=q_all)[0], k))
    return row


def _faiss_flat(X, q, runs, reference, k):
    """CPU seconds (extrapolated to all rows) of faiss IndexFlatIP on the queries ``q`` and the
    share of its neighbour lists equal to ``reference``."""
    import faiss

    Xf = np.ascontiguousarray(_unit_rows(X.toarray() if hasattr(X, "toarray") else X),
                              dtype=np.float32)
    times = []
    for _ in range(runs):
        t0 = time.process_time()
        index = faiss.IndexFlatIP(Xf.shape[1])
        index.add(Xf)
        _, ids = index.search(Xf[q], k + 1)
        times.append(time.process_time() - t0)
    ids = np.array([[j for j in row if j != i][:k] for i, row in zip(q, ids)])  # drop self
    return {"faiss_flat_s": min(times) * X.shape[0] / q.size,
            "faiss_equal_lists": float(np.mean(np.all(ids == reference, axis=1)))}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", default="cora-ca,20newsw100,mix200k")
    ap.add_argument("--sample", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--store", default="bench-out/knn.json", help="the store (JSON)")
    ap.add_argument("--selection", action="store_true",
                    help="time products vs selection (old and new rule) and faiss exact")
    args = ap.parse_args(argv)
    if args.selection:
        for name in args.sets.split(","):
            print(f"{name}: load average {load_average()}", flush=True)
            print(selection_costs(name, features(name), args.sample, args.runs),
                  f"load average {load_average()}", flush=True)
        return
    store = ResultStore(args.store, key=KEY)
    rows = []
    for name in args.sets.split(","):
        print(f"{name}: load average {load_average()}", flush=True)
        rows.append(measure(name, features(name), args.sample, args.runs, args.threads))
        store.add(rows[-1])
        print(rows[-1], f"load average {load_average()}", flush=True)
    print("\n".join(markdown_table(
        ["dataset", "n", "d", f"exact, {args.sample} queries (s)", "exact, all (s, extrapolated)",
         "approximate min / median (s)", "recall@10", "tie-aware recall@10"],
        [[r["dataset"], r["n"], r["d"], f"{r['exact_sample_s']:.1f}", f"{r['exact_all_s']:.0f}",
          f"{r['ann_min_s']:.1f} / {r['ann_median_s']:.1f} ({r['runs']} runs)",
          f"{r['recall']:.3f}", f"{r['tie_aware']:.3f}"] for r in rows])))


if __name__ == "__main__":
    main()
