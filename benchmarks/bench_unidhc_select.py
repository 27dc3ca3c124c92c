"""Uni-DHC's label-free output selection (``embedding="auto"``) against its candidates.

One fit per (dataset, seed) with ``UniDHC(embedding="auto")`` yields every candidate's
clustering (concat = the old default, filter, encoder, fixed ``P^2 X``, input ``X``) and the
objective's pick; labels only score them. Also records the learned gamma against its
initialisation along the synthetic homophily sweep. Each fit runs single-threaded in its own
worker process (``--jobs`` workers); the rows (one per dataset, protocol and seed) go to the
harness's store ``--out`` as they come (each with its commit; a rerun replaces the rows it
measures and keeps the others).

    python benchmarks/bench_unidhc_select.py --data-dir ../shared/data --seeds 5 --jobs 2 \\
        --out docs/results/unidhc_select.json
"""

from __future__ import annotations

import argparse
import os
import time

from hyperclust.bench import ResultStore, seed_list

REAL = ("cora-ca", "cora-cc", "citeseer-cc", "pubmed-cc-tricl", "zoo", "mushroom",
        "20newsw100")
SWEEP_H = (0.0, 0.1, 0.2, 0.3, 0.45, 0.6, 0.8, 1.0)  # as bench_unidhc.py
KEY = ("dataset", "protocol", "seed")


def _job(task):
    os.environ.update(OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
                      HYPERCLUST_NUM_THREADS="1")
    import numpy as np

    from hyperclust.cluster import UniDHC
    from hyperclust.metrics import evaluate

    name, seed, data_dir, protocol = task
    if name.startswith("hsbm-"):
        from hyperclust.datasets.synthetic import hypergraph_sbm

        h = float(name.split("-")[1])
        hg = hypergraph_sbm(2000, 4, homophily=h, n_features=32, random_state=0, name=name)
    else:
        from hyperclust.datasets import load_dataset

        hg = load_dataset(name, data_dir=data_dir)
        if protocol == "isolated removed":
            hg = hg.drop_isolated()
    t0 = time.perf_counter()
    est = UniDHC(hg.n_classes, embedding="auto", random_state=seed).fit(hg)
    fit_s = time.perf_counter() - t0
    # every candidate's clustering, re-made exactly as the selection made it
    from hyperclust.cluster.baselines import kmeans_labels  # noqa: F401  (same k-means)

    cand = {}
    for cname in est.scores_:
        lab = est.candidate_labels_[cname]
        cand[cname] = {"score": est.scores_[cname], **evaluate(hg.labels, lab)}
    return {"dataset": name, "protocol": protocol, "seed": seed, "selected": est.selected_,
            "candidates": cand, "fit_s": fit_s, "gamma": est.coefficients_.tolist(),
            "gamma_init": est.initial_coefficients_.tolist(), "family": est.filter_family_,
            "homophily": float(hg.homophily()["pairwise"])}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--datasets", nargs="*", default=None)
    ap.add_argument("--no-sweep", action="store_true")
    ap.add_argument("--out", required=True, help="the store (JSON)")
    args = ap.parse_args(argv)
    names = REAL if args.datasets is None else args.datasets
    seeds = seed_list(args.seeds)
    tasks = [(n, s, args.data_dir, "all nodes") for n in names for s in seeds]
    tasks += [(n, s, args.data_dir, "isolated removed") for n in names
              if n in ("cora-ca", "cora-cc", "citeseer-cc") for s in seeds]
    if not args.no_sweep:
        tasks += [(f"hsbm-{h}", s, None, "all nodes") for h in SWEEP_H for s in seeds]
    # longest first, so the pool ends together
    tasks.sort(key=lambda t: t[0] not in ("20newsw100", "mushroom"))
    import multiprocessing as mp

    store = ResultStore(args.out, key=KEY)
    with mp.get_context("spawn").Pool(args.jobs) as pool:
        for rec in pool.imap_unordered(_job, tasks):
            store.add(rec)
            print(f"{rec['dataset']:18s} {rec['protocol']:16s} seed {rec['seed']} "
                  f"picked {rec['selected']:15s} {rec['fit_s']:.1f}s", flush=True)


if __name__ == "__main__":
    main()
