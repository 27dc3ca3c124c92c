"""How many HNSW candidates must the exact re-ranking see, and through which projection, for
the approximate cosine kNN of sparse (and dense) inputs to reach the exact lists (issue 32)?

Per input and variant: recall@10 (plain, and tie-aware: a neighbour counts when its true
cosine reaches the exact 10th one) of the approximate search against the exact search on a
seeded sample of queries, and CPU seconds (``time.process_time``, min of ``--runs``) of its
phases: the index input (projection), the HNSW build + search, the exact re-ranking.
Variants are ``PROJ:C``: ``PROJ`` in ``svd`` (128-d truncated SVD of the raw rows, then
unit rows: the library's), ``svdD`` (``D`` dimensions), ``usvd``/``usvdD`` (SVD of the unit
rows); ``C`` = candidates per node re-ranked (efSearch ``max(96, C + 1)``); ``PROJ:C+rR``:
then ``R`` rounds of :func:`refine`. Inputs: shared sets, ``sNNNk`` (binary bag-of-words of
``bench_knn_crossover.features``, 1,000 words, 20 topics), ``tNNNk``
(:func:`topic_words`), ``gNNNk`` (dense 32-d Gaussian mixture of ``bench_knn_crossover``).

    OMP_NUM_THREADS=1 PYTHONPATH=src python benchmarks/studies/knn_rerank_candidates.py \\
        --sets cora-ca citeseer-cc s30k --variants svd:20 svd:40 svd:80 usvd:20 usvd:80
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: _datasets
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_knn_crossover import _cpu_min as cpu_min  # noqa: E402

K = 10


def topic_words(n, d=5000, topics=30, seed=0):
    """Binary bag-of-words with planted topics: ``10 + Poisson(20)`` words per row, each from
    the row's topic (100 words, Zipf weights) with probability .6, else from a Zipf
    background over all ``d`` words (cora-like: ~25 of thousands of words per row)."""
    rng = np.random.default_rng(seed)
    zipf_bg = 1.0 / (np.arange(d) + 10.0)
    zipf_t = 1.0 / (np.arange(100) + 2.0)
    vocab = np.stack([rng.choice(d, 100, replace=False) for _ in range(topics)])
    topic = rng.integers(topics, size=n)
    length = 10 + rng.poisson(20, size=n)
    row = np.repeat(np.arange(n), length)
    from_topic = rng.random(row.size) < 0.6
    col = rng.choice(d, row.size, p=zipf_bg / zipf_bg.sum())
    own = vocab[topic[row], rng.choice(100, row.size, p=zipf_t / zipf_t.sum())]
    col = np.where(from_topic, own, col)
    X = sp.csr_matrix((np.ones(row.size), (row, col)), shape=(n, d))
    X.data[:] = 1.0  # duplicates summed: binary again
    return X


def load_features(name):
    if m := re.fullmatch(r"t(\d+)k", name):
        return topic_words(int(m.group(1)) * 1000)
    if m := re.fullmatch(r"([sg])(\d+)k", name):
        from bench_knn_crossover import features

        return features(int(m.group(2)) * 1000, "s1000" if m.group(1) == "s" else "32")
    from _datasets import load

    return load(name).features


def index_input(X, proj, seed):
    """Dense float32 rows for the index, as ``neighbors._ann_input`` builds them."""
    from hyperclust.operators import neighbors as nb

    if proj == "svd" or not sp.issparse(X) or X.shape[1] <= 256:
        return nb._ann_input(X, seed)
    from sklearn.decomposition import TruncatedSVD

    dim = int(proj.lstrip("usvd") or 128)
    Y = TruncatedSVD(n_components=dim, random_state=seed).fit_transform(
        nb._unit_rows(X) if proj.startswith("u") else X)
    return nb._ann_input(Y, seed)


def refine(Xn, I, rounds):
    """``rounds`` of :func:`hyperclust.operators._rerank.refine` (neighbours of neighbours)."""
    from hyperclust.operators._rerank import refine as one_round

    for _ in range(rounds):
        I = one_round(Xn, I, K, "random", 0)[0]
    return I


def recalls(Xn, q, ann, exact_idx, exact_sim):
    rows = np.repeat(q, ann.shape[1])
    if sp.issparse(Xn):
        true = np.asarray(Xn[rows].multiply(Xn[np.maximum(ann.ravel(), 0)]).sum(axis=1))
    else:
        true = np.einsum("qd,qd->q", Xn[rows], Xn[np.maximum(ann.ravel(), 0)])
    true = true.reshape(ann.shape)
    plain = np.mean([np.intersect1d(a, e).size / K for a, e in zip(ann, exact_idx)])
    return float(plain), float(np.mean(true >= exact_sim[:, -1:] - 1e-12))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", nargs="+", default=["cora-ca", "citeseer-cc", "s30k"])
    ap.add_argument("--variants", nargs="+", default=["svd:20", "svd:40", "svd:80"])
    ap.add_argument("--sample", type=int, default=2048)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args(argv)
    import faiss

    from hyperclust.bench.provenance import load_average
    from hyperclust.operators import neighbors as nb

    faiss.omp_set_num_threads(1)
    for name in args.sets:
        X = load_features(name)
        n = X.shape[0]
        q = np.sort(np.random.default_rng(0).choice(n, min(args.sample, n), replace=False))
        t_exact, (ie, se) = cpu_min(lambda: nb.exact_cosine_neighbors(
            X, K, queries=q, tie_break="random"), args.runs)
        Xn = nb._unit_rows(X)
        print(json.dumps({"set": name, "n": n, "d": X.shape[1], "exact_s": t_exact * n / q.size,
                          "load": load_average()}), flush=True)
        for variant in args.variants:
            proj, c = variant.split(":")
            c, _, rounds = c.partition("+r")
            c, rounds = min(n - 1, int(c)), int(rounds or 0)
            t_proj, Xf = cpu_min(lambda: index_input(X, proj, 0), args.runs)
            t_hnsw, cand = cpu_min(lambda: nb._hnsw_candidates(Xf, c, 32, 80, max(96, c + 1)),
                                   args.runs)
            t_rr, ia = cpu_min(lambda: refine(Xn, nb._rerank(Xn, cand, K, "random", 0)[0], rounds),
                               args.runs)
            plain, tie = recalls(Xn, q, ia[q], ie, se)
            cand_cover = float(np.mean([np.isin(e, r).mean() for e, r in zip(ie, cand[q])]))
            print(json.dumps({"set": name, "variant": variant, "proj_s": round(t_proj, 3),
                              "hnsw_s": round(t_hnsw, 3), "rerank_s": round(t_rr, 3),
                              "total_s": round(t_proj + t_hnsw + t_rr, 3), "recall": plain,
                              "tie_aware": tie, "cand_cover": cand_cover,
                              "load": load_average()}), flush=True)


if __name__ == "__main__":
    main()
