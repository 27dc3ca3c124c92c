"""Can a cheap seed graph refined by synchronous neighbours-of-neighbours rounds (NN-descent in
"Jacobi" rounds) replace the HNSW build of the approximate cosine kNN (issue 32)?

Per input and variant: recall@10 against the exact search on ``--sample`` seeded queries,
and cumulative CPU seconds (``time.process_time``, one thread), after the seed and after
every round; then the pool re-ranked exactly as the library re-ranks HNSW candidates
(:func:`hyperclust.operators._rerank.rerank`, float64 on the input rows, ``tie_break=
"random"``), with the tie-aware recall (a neighbour counts when its true cosine reaches the
exact 10th one). Variants ``SEED:pM:wF[:rR]``:

- ``SEED``: ``rpTxL`` = ``T`` balanced random projection trees (median splits on the
  difference of two random rows of each cell, seeded), leaves of at most ``L`` rows searched
  exactly (einsum blocks); ``ivfP`` = faiss ``IndexIVFFlat`` with ``n / 400`` lists (k-means
  on a seeded sample, one thread), ``nprobe = P``.
- ``pM``: candidates kept per row between rounds (the pool); ``wF``: each row is joined with
  the pool lists of its ``F`` best pool entries and of up to ``F`` rows holding it in their
  pool (reverse neighbours, seeded random choice), along paths with an entry new in the
  previous round (``(2F)^2`` paths per row); ``rR``: at most ``R`` rounds (default 6).
- ``hnsw``: the library's ``approximate_cosine_neighbors`` (one call), for comparison.

Every round reads only the previous round's pool and all products are numpy ``einsum``
(no BLAS), so the pool depends on the seed only; ``--check-threads`` runs each variant under
``thread_limit(1)`` and ``thread_limit(2)`` and compares the pools.

    HYPERCLUST_DATA=/work/shared/data OMP_NUM_THREADS=1 PYTHONPATH=src \\
        python benchmarks/studies/knn_descent.py --sets sbm1e5 mix200k \\
        --variants ivf16:p30:w15 rp8x64:p30:w15

Inputs as in ``bench_knn.py`` (``sbmNeM``, ``mixNNNk``, shared sets); sparse sets are
searched on the index input of the library (``neighbors._ann_input``: wide ones
SVD-projected to 128 dimensions) and re-ranked on their original rows.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: _datasets
sys.path.insert(0, str(Path(__file__).resolve().parent))

K = 10
_BLOCK_ENTRIES = 2 ** 21  # gathered feature entries per block of rows


def rp_forest_candidates(Xf, n_trees, leaf_size, n_keep, rng):
    """``n_keep`` most similar rows of every row inside its leaf of each of ``n_trees``
    balanced random projection trees; shape (n, n_trees * n_keep), int32, -1 for none."""
    n = Xf.shape[0]
    out = np.full((n, n_trees * n_keep), -1, dtype=np.int32)
    for t in range(n_trees):
        perm, starts = _rp_tree(Xf, leaf_size, rng)
        out[:, t * n_keep:(t + 1) * n_keep] = _leaf_neighbors(Xf, perm, starts, n_keep)
    return out


def _rp_tree(Xf, leaf_size, rng):
    """Rows in leaf order (shape (n,)) and the leaf boundaries in it (shape (leaves + 1,));
    every cell is split at its median (leaf sizes within one row of each other)."""
    n = Xf.shape[0]
    perm = np.arange(n, dtype=np.int64)
    starts = np.array([0, n], dtype=np.int64)
    Xp = Xf
    while np.diff(starts).max() > max(2, leaf_size):
        sizes = np.diff(starts)
        seg = np.repeat(np.arange(sizes.size), sizes)
        a = starts[:-1] + (rng.random(sizes.size) * sizes).astype(np.int64)
        b = starts[:-1] + (rng.random(sizes.size) * sizes).astype(np.int64)
        proj = np.einsum("nd,nd->n", Xp, (Xp[a] - Xp[b])[seg])
        order = np.lexsort((proj, seg))
        perm, Xp = perm[order], Xp[order]
        starts = np.sort(np.concatenate([starts, starts[:-1] + sizes // 2]))
    return perm, starts


def _leaf_neighbors(Xf, perm, starts, n_keep):
    """The ``n_keep`` most similar other rows of every row inside its leaf (shape (n, n_keep),
    int32, -1 where the leaf is smaller)."""
    n = Xf.shape[0]
    sizes = np.diff(starts)
    width = int(sizes.max())
    keep = min(n_keep, width - 1)
    out = np.full((n, n_keep), -1, dtype=np.int32)
    Xp = Xf[perm]
    offs = np.arange(width)
    step = max(1, _BLOCK_ENTRIES // (width * width))
    for a in range(0, sizes.size, step):
        b = min(sizes.size, a + step)
        valid = offs < sizes[a:b, None]
        pos = np.where(valid, starts[a:b, None] + offs, starts[a:b, None])
        G = Xp[pos]
        S = np.einsum("bid,bjd->bij", G, G)
        S[:, offs, offs] = -np.inf
        S[~np.broadcast_to(valid[:, None, :], S.shape)] = -np.inf
        S = S.reshape(-1, width)
        top = top_positions(S, keep)
        ids = np.take_along_axis(pos.repeat(width, axis=0), top, axis=1)
        ids = np.where(np.take_along_axis(S, top, axis=1) > -np.inf, perm[ids], -1)
        rows = pos.ravel()[valid.ravel()]
        out[perm[rows], :keep] = ids[valid.ravel()]
    return out


def ivf_candidates(Xf, nprobe, n_keep, seed=0):
    """``n_keep`` inner-product neighbours of every row from faiss ``IndexIVFFlat`` (``n / 400``
    lists, 10 k-means iterations on a seeded sample of 40 rows per list, one thread); int32,
    -1 for none."""
    import faiss

    from knn_recall_need import ivf_candidates as ivf

    faiss.omp_set_num_threads(1)
    return ivf(Xf, n_keep, nprobe, seed, per_list=40, niter=10,
               sorted_sample=False)[:, :n_keep + 1].astype(np.int32)


def top_positions(S, m):
    """Column positions of the ``m`` largest entries of each row (ties to the lowest
    position), unordered; the ``m``-th value comes from a float32 sort (SIMD in numpy 2),
    cheaper than ``np.argpartition`` on these widths."""
    rows, cols = S.shape
    if m >= cols:
        return np.broadcast_to(np.arange(cols), S.shape).copy()
    kth = np.sort(S, axis=1)[:, cols - m, None]
    above = S > kth
    tied = S == kth
    take = above | (tied & (np.cumsum(tied, axis=1) <= m - above.sum(axis=1, keepdims=True)))
    return (np.flatnonzero(take) % cols).reshape(rows, m)


def descent(Xf, cand, pool_size, rounds, n_join, rng):
    """Yield ``(round, pool ids)`` for the seed's pool (round 0) and after every round.

    The pool (shape (n, pool_size), int32, most similar first by float32 scores, -1 for none)
    starts as the best of ``cand``; a round joins each row with the pools of its ``n_join``
    best entries and of up to ``n_join`` reverse neighbours, along paths with at least one
    entry that entered a pool in the previous round, and keeps the best ``pool_size``.
    """
    n = Xf.shape[0]
    ids = np.full((n, pool_size), -1, dtype=np.int32)
    new = np.zeros((n, pool_size), dtype=bool)
    _merge(Xf, ids, new, lambda a, b: cand[a:b], cand.shape[1])
    yield 0, ids
    for r in range(1, rounds + 1):
        if not new.any():
            return
        U, Unew = join_lists(ids, new, n_join, rng)
        before = ids.copy()
        width = U.shape[1] ** 2

        def paths(a, b):
            J = np.maximum(U[a:b], 0)
            live = (Unew[a:b, :, None] | Unew[J]) & (U[a:b] >= 0)[:, :, None]
            return np.where(live, U[J], -1).reshape(b - a, width)

        _merge(Xf, ids, new, paths, width, before)
        yield r, ids


def join_lists(ids, new, n_join, rng):
    """Each row's join list (shape (n, 2 n_join), int32, -1 for none) and which of its entries
    are new: the ``n_join`` best pool entries, then up to ``n_join`` rows holding the row in
    their pool, in a seeded random order."""
    n, m = ids.shape
    src = np.repeat(np.arange(n, dtype=np.int32), m)
    dst, flag = ids.ravel(), new.ravel()
    ok = dst >= 0
    src, dst, flag = src[ok], dst[ok], flag[ok]
    shuffle = rng.permutation(dst.size)
    order = shuffle[np.argsort(dst[shuffle], kind="stable")]
    src, dst, flag = src[order], dst[order], flag[order]
    rank = np.arange(dst.size) - np.searchsorted(dst, np.arange(n))[dst]
    keep = rank < n_join
    R = np.full((n, n_join), -1, dtype=np.int32)
    Rnew = np.zeros((n, n_join), dtype=bool)
    R[dst[keep], rank[keep]] = src[keep]
    Rnew[dst[keep], rank[keep]] = flag[keep]
    f = min(n_join, m)
    return np.concatenate([ids[:, :f], R], axis=1), np.concatenate([new[:, :f], Rnew], axis=1)


def _merge(Xf, ids, new, candidates, width, before=None):
    """Merge ``candidates(a, b)`` (shape (b - a, width)) into the pools of rows ``a .. b - 1``
    (read from ``before`` when given), block by block, in place. Candidate ids are sorted
    (int32 SIMD sort) with a low bit marking those not in the pool, duplicates and the row
    itself dropped, survivors compacted to the front, and only those scored."""
    n, m = ids.shape
    d = Xf.shape[1]
    pool = ids if before is None else before
    big = np.iinfo(np.int32).max
    step = max(1, _BLOCK_ENTRIES // ((width + m) * d))
    for a in range(0, n, step):
        b = min(n, a + step)
        C = candidates(a, b)
        P = pool[a:b]
        keys = np.concatenate([P * 2, C * 2 + 1], axis=1)
        keys[np.concatenate([P < 0, (C < 0) | (C == np.arange(a, b)[:, None])], axis=1)] = big
        keys.sort(axis=1)
        keys[:, 1:][(keys[:, 1:] >> 1) == (keys[:, :-1] >> 1)] = big
        keys.sort(axis=1)
        keys = keys[:, :max(m, int((keys < big).sum(axis=1).max()))]
        bad = keys == big
        cid = np.where(bad, a, keys >> 1)
        S = np.einsum("id,ijd->ij", Xf[a:b],
                      np.take(Xf, cid.ravel(), axis=0).reshape(b - a, -1, d))
        S[bad] = -np.inf
        top = top_positions(S, m)
        ts = np.take_along_axis(S, top, axis=1)
        top = np.take_along_axis(top, np.argsort(-ts, axis=1, kind="stable"), axis=1)
        got = np.take_along_axis(keys, top, axis=1)
        ids[a:b] = np.where(got == big, -1, got >> 1)
        new[a:b] = (got & 1).astype(bool) & (got != big)


def seed_candidates(Xf, seed, pool_size, rng):
    if m := re.fullmatch(r"rp(\d+)x(\d+)", seed):
        return rp_forest_candidates(Xf, int(m.group(1)), int(m.group(2)), pool_size, rng)
    if m := re.fullmatch(r"ivf(\d+)", seed):
        return ivf_candidates(Xf, int(m.group(1)), pool_size)
    raise ValueError(f"unknown seed {seed!r}")


def run_variant(Xf, variant, seed=0):
    """Yield ``(round, cumulative CPU s, pool)`` of one variant (CPU excludes the caller)."""
    parts = variant.split(":")
    pool_size = int(parts[1][1:])
    n_join = int(parts[2][1:])
    rounds = int(parts[3][1:]) if len(parts) > 3 else 6
    rng = np.random.default_rng(seed)
    t0 = time.process_time()
    cand = seed_candidates(Xf, parts[0], pool_size, rng)
    for r, ids in descent(Xf, cand, pool_size, rounds, n_join, rng):
        yield r, time.process_time() - t0, ids


def recall(ann, exact_idx):
    return float(np.mean([np.intersect1d(a, e).size / K for a, e in zip(ann, exact_idx)]))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", nargs="+", default=["sbm1e5"])
    ap.add_argument("--variants", nargs="+", default=["ivf16:p30:w15"])
    ap.add_argument("--sample", type=int, default=2048)
    ap.add_argument("--check-threads", action="store_true")
    args = ap.parse_args(argv)
    from bench_knn import features
    from knn_rerank_candidates import recalls

    from hyperclust.bench.provenance import load_average
    from hyperclust.operators import neighbors as nb
    from hyperclust.operators._rerank import rerank
    from hyperclust.runtime.threads import thread_limit

    for name in args.sets:
        X = features(name)
        n = X.shape[0]
        q = np.sort(np.random.default_rng(0).choice(n, min(args.sample, n), replace=False))
        t0 = time.process_time()
        ie, se = nb.exact_cosine_neighbors(X, K, queries=q, tie_break="random")
        t_exact = (time.process_time() - t0) * n / q.size
        Xn = nb._unit_rows(X)
        t0 = time.process_time()
        Xf = nb._ann_input(X, 0)
        t_input = time.process_time() - t0
        print(json.dumps({"set": name, "n": n, "d": X.shape[1], "exact_all_s": round(t_exact, 2),
                          "index_input_s": round(t_input, 2), "load": load_average()}), flush=True)
        for variant in args.variants:
            if variant == "hnsw":
                _library_row(nb, X, Xn, q, ie, se, name, recalls, load_average)
                continue
            last = None
            for r, cpu, ids in run_variant(Xf, variant):
                last = ids
                print(json.dumps({"set": name, "variant": variant, "round": r,
                                  "cpu_s": round(cpu, 2), "recall_pool10": recall(ids[q, :K], ie),
                                  "load": load_average()}), flush=True)
            t0 = time.process_time()
            ia = rerank(Xn, last, K, "random", 0)[0]
            t_rr = time.process_time() - t0
            plain, tie = recalls(Xn, q, ia[q], ie, se)
            print(json.dumps({"set": name, "variant": variant, "reranked": True,
                              "cpu_s": round(cpu + t_input + t_rr, 2), "rerank_s": round(t_rr, 2),
                              "recall": plain, "tie_aware": tie, "load": load_average()}),
                  flush=True)
            if args.check_threads:
                pools = []
                for threads in (1, 2):
                    with thread_limit(threads):
                        pools.append([p.copy() for _, _, p in run_variant(Xf, variant)][-1])
                print(json.dumps({"set": name, "variant": variant,
                                  "threads_1_2_identical": bool(np.array_equal(*pools))}),
                      flush=True)


def _library_row(nb, X, Xn, q, ie, se, name, recalls, load_average):
    """The library's approximate search (HNSW over 8-bit codes, 2K candidates re-ranked)
    on the same input and queries, CPU seconds of one call."""
    t0 = time.process_time()
    ia = nb.approximate_cosine_neighbors(X, K, tie_break="random")[0]
    cpu = time.process_time() - t0
    plain, tie = recalls(Xn, q, ia[q], ie, se)
    print(json.dumps({"set": name, "variant": "hnsw", "reranked": True, "cpu_s": round(cpu, 2),
                      "recall": plain, "tie_aware": tie, "load": load_average()}), flush=True)


if __name__ == "__main__":
    main()
