"""What recall of the attribute kNN graph does ``auto``'s clustering need (issue 32)?

``AutoClusterer(k, random_state=seed)`` is fitted with its kNN searches replaced by cheaper
ones (every search of the fit: the hold-out splits' and the refit's), and its picked labels
compared with those of the library's search ("hnsw": HNSW over 8-bit codes, M 32, efC 80,
ef 96, 2K candidates re-ranked). Label-free selection is untouched; the class labels serve
only the reported ACC/NMI. Variants (all deterministic given the seed, one thread):

* ``hnsw`` -- the library's approximate search (``approximate_cosine_neighbors``);
* ``exact`` -- the exact search;
* ``hnsw16`` -- HNSW with M 16, efC 40, ef 2K + 1 (~2.5x cheaper build);
* ``hnsw-cC`` -- the library's approximate search re-ranking ``C`` candidates per node
  (``hnsw-c20``: the default before 8K for SVD-projected inputs, ``hnsw-c80``: after);
  ``hnsw-cC-rR``: then ``R`` rounds of neighbours-of-neighbours (``refine_rounds``);
* ``ivfP`` -- faiss ``IndexIVFFlat``, ``nlist = n / 400`` lists (seeded k-means on
  ``32 * nlist`` seeded rows, 10 iterations), ``nprobe = P``, 2K candidates re-ranked exactly;
* ``A/B`` -- variant ``A`` for the hold-out splits' searches, ``B`` for the refit's.

Per (input, variant, seed): the pick, ACC/NMI to the classes, CPU seconds of the fit and of
its kNN searches, recall@10 of the split search on all columns against the exact search on
1,024 seeded queries, ARI of the labels to the ``--reference`` variant's (default ``hnsw``)
with the same seed, and the first split's ACC of the candidates fitted on the graph with
their ARI to the reference's (``walkers``); labels kept in ``--out``, and one summary line
per (input, variant) at the end. Inputs: ``sbmNeP`` = ``hypergraph_sbm(N * 10^P, 4,
homophily=0.7, n_features=32, random_state=0)``, or a shared set (``HYPERCLUST_DATA``).

    OMP_NUM_THREADS=1 PYTHONPATH=src python benchmarks/studies/knn_recall_need.py \\
        --sets sbm1e5 --variants hnsw ivf4 ivf16 hnsw16 --seeds 0 1 2 3 4

~60-100 CPU s per ``hnsw`` fit at 10^5, ~35 s per cheap one; the shared sets (``--sets
cora-ca citeseer-cc mushroom 20newsw100 --variants exact ivf1 ivf2 hnsw16 hnsw --reference
exact``) ~20 minutes in all.
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

K = 10
WALKERS = ("ahcka", "hgnn-mixed", "spectral-zhou-mixed")  # candidates fitted on the graph


def ivf_candidates(Xf, n_cand, nprobe, seed, *, per_list=32, niter=10, sorted_sample=True):
    """``n_cand`` IVF-flat inner-product candidates of every row of ``Xf`` (float32, shape
    (n, d)); shape (n, n_cand + 1), -1 for the row itself and for missing results. ``n / 400``
    lists, k-means (``niter`` iterations) on a seeded sample of ``per_list`` rows per list, in
    row order or in the sample's order (``knn_descent.py``'s setting)."""
    import faiss

    n, d = Xf.shape
    nlist = max(1, n // 400)
    index = faiss.IndexIVFFlat(faiss.IndexFlatIP(d), d, nlist, faiss.METRIC_INNER_PRODUCT)
    index.cp.seed, index.cp.niter = seed, niter
    rows = np.random.default_rng(seed).choice(n, min(n, per_list * nlist), replace=False)
    index.train(Xf[np.sort(rows) if sorted_sample else rows])
    index.add(Xf)
    index.nprobe = nprobe
    _, cand = index.search(Xf, n_cand + 1)
    cand = cand.astype(np.int64)
    cand[cand == np.arange(n)[:, None]] = -1
    return cand


def variant_search(name):
    """``search(X, K, random_state) -> (indices, similarities)`` of the variant ``name``."""
    from hyperclust.operators import neighbors as nb

    if name == "exact":
        return lambda X, k, seed: nb.exact_cosine_neighbors(X, k, tie_break="random",
                                                            random_state=seed)
    if name == "hnsw":
        return lambda X, k, seed: nb.approximate_cosine_neighbors(X, k, tie_break="random",
                                                                  random_state=seed)
    if name == "hnsw16":
        return lambda X, k, seed: nb.approximate_cosine_neighbors(
            X, k, hnsw_m=16, ef_construction=40, ef_search=2 * k + 1, tie_break="random",
            random_state=seed)
    if m := re.fullmatch(r"hnsw-c(\d+)(?:-r(\d+))?", name):
        n_cand, rounds = int(m.group(1)), int(m.group(2) or 0)
        return lambda X, k, seed: nb.approximate_cosine_neighbors(
            X, k, n_candidates=n_cand, refine_rounds=rounds, tie_break="random",
            random_state=seed)
    if m := re.fullmatch(r"ivf(\d+)", name):
        nprobe = int(m.group(1))

        def search(X, k, seed):
            cand = ivf_candidates(nb._ann_input(X, seed), 2 * k, nprobe, seed)
            return nb._rerank(nb._unit_rows(X), cand, k, "random", seed)
        return search
    raise ValueError(f"unknown variant {name!r}")


def load_input(name):
    """``(hypergraph, classes)`` of ``sbmNeP`` or a shared set."""
    if m := re.fullmatch(r"sbm(\d+)e(\d+)", name):
        from hyperclust.datasets import hypergraph_sbm

        hg = hypergraph_sbm(int(m.group(1)) * 10 ** int(m.group(2)), 4, homophily=0.7,
                            n_features=32, random_state=0)
        return hg, np.asarray(hg.labels)
    from _datasets import load

    hg = load(name)
    return hg, np.asarray(hg.labels)


def fit_with(hg, k, seed, searches, clock):
    """``AutoClusterer(k, random_state=seed)`` fitted with its cosine kNN searches replaced:
    ``searches = (split search, refit search)``; ``clock`` collects the CPU seconds of each."""
    import hyperclust.cluster.auto as auto
    from hyperclust.cluster.auto import AutoClusterer, _fitting
    from hyperclust.operators import neighbors as nb

    original, shared_walks = nb.cosine_knn, _fitting.shared_walks
    stage = {"refit": False}

    def walks(*args, key="knn", **kwargs):
        stage["refit"] = key == "knn-full"
        return shared_walks(*args, key=key, **kwargs)

    def replaced(X, n_neighbors=10, *, method="auto", exact_max_nodes=None, random_state=0):
        t0 = time.process_time()
        out = searches[stage["refit"]](X, n_neighbors, random_state)
        clock.append(time.process_time() - t0)
        return out

    nb.cosine_knn, _fitting.shared_walks, auto.shared_walks = replaced, walks, walks
    try:
        return AutoClusterer(k, random_state=seed).fit(hg)
    finally:
        nb.cosine_knn, _fitting.shared_walks, auto.shared_walks = (original, shared_walks,
                                                                   shared_walks)


def recall(X, search, seed, sample=1024):
    """recall@K of ``search`` on ``X`` against the exact search on seeded queries."""
    from hyperclust.operators import neighbors as nb

    q = np.sort(np.random.default_rng(seed).choice(X.shape[0], min(sample, X.shape[0]),
                                                   replace=False))
    exact = nb.exact_cosine_neighbors(X, K, queries=q, tie_break="random", random_state=seed)[0]
    found = search(X, K, seed)[0][q]
    return float(np.mean([np.intersect1d(a, b).size / K for a, b in zip(found, exact)]))


def run(set_name, variants, seeds, out, reference="hnsw"):
    from hyperclust.metrics import acc, ari, nmi

    hg, y = load_input(set_name)
    k = int(np.unique(y).size)
    rows = []
    for variant in variants:
        searches = [variant_search(v) for v in (variant.split("/") * 2)[:2]]
        rec = recall(hg.features, searches[0], 0)
        for seed in seeds:
            clock = []
            t0 = time.process_time()
            est = fit_with(hg, k, seed, searches, clock)
            cpu = time.process_time() - t0
            np.savez(out / f"{set_name}-{variant.replace('/', '+')}-{seed}.npz",
                     labels_=est.labels_, **est.candidates_)
            ref = out / f"{set_name}-{reference.replace('/', '+')}-{seed}.npz"
            ref = dict(np.load(ref)) if ref.exists() else None
            row = {"set": set_name, "variant": variant, "seed": seed, "selected": est.selected_,
                   "acc": acc(y, est.labels_), "nmi": nmi(y, est.labels_), "fit_cpu_s": cpu,
                   "knn_cpu_s": sum(clock), "searches": len(clock), "recall": rec,
                   "ari_to_reference": None if ref is None else ari(ref["labels_"], est.labels_),
                   "walkers": {c: [round(acc(y, est.candidates_[c]), 4),
                                   None if ref is None or c not in ref
                                   else round(ari(ref[c], est.candidates_[c]), 4)]
                               for c in WALKERS if c in est.candidates_}}
            rows.append(row)
            print(json.dumps(row), flush=True)
    return rows


def summary(rows):
    """One line per (input, variant): mean ± std over the seeds of the pick's ACC/NMI, mean
    ARI to the reference, the graph-fitted candidates' mean ACC, recall and kNN CPU s."""
    for key in dict.fromkeys((r["set"], r["variant"]) for r in rows):
        group = [r for r in rows if (r["set"], r["variant"]) == key]
        mean = {m: (np.mean([r[m] for r in group]), np.std([r[m] for r in group]))
                for m in ("acc", "nmi", "knn_cpu_s")}
        aris = [r["ari_to_reference"] for r in group if r["ari_to_reference"] is not None]
        walkers = ", ".join(f"{c} {np.mean([r['walkers'][c][0] for r in group]):.3f}"
                            for c in WALKERS if all(c in r["walkers"] for r in group))
        picks = ",".join(sorted({r["selected"] for r in group}))
        print(f"{key[0]} {key[1]}: recall {group[0]['recall']:.3f}, ACC {mean['acc'][0]:.3f} ± "
              f"{mean['acc'][1]:.3f}, NMI {mean['nmi'][0]:.3f} ± {mean['nmi'][1]:.3f}, ARI to "
              f"reference {np.mean(aris) if aris else float('nan'):.3f}, picks {picks}; "
              f"graph-fitted candidates (first split) ACC {walkers}; kNN CPU s "
              f"{mean['knn_cpu_s'][0]:.1f} per fit ({len(group)} seeds)", flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", nargs="+", default=["sbm1e5"])
    ap.add_argument("--variants", nargs="+", default=["hnsw", "ivf4", "ivf16", "hnsw16"])
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    ap.add_argument("--reference", default="hnsw", help="the variant ARI is measured to")
    ap.add_argument("--out", default="bench-out/knn_recall_need")
    args = ap.parse_args(argv)
    import faiss

    faiss.omp_set_num_threads(1)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for set_name in args.sets:
        summary(run(set_name, args.variants, args.seeds, out, args.reference))


if __name__ == "__main__":
    main()
