"""Do faster settings keep quality? Two measurements behind defaults of issue 14.

``--experiment spectral``: ``spectral-zhou`` with eigensolver tolerance ``tol`` in
{1e-8, 1e-5, 1e-3} x k-means restarts ``n_init`` in {10, 3, 1}, seeds 0..4. The embedding is
computed once per (dataset, seed, tol) by the estimator itself (``n_init=1``); k-means with
``n_init`` restarts then runs on that same embedding with the same seed, exactly as
``fit`` would. Reports ACC/NMI mean ± std, the agreement (ARI) of each setting's labels with
those of the reference setting (tol 1e-8, n_init 10) of the same seed, and times.

``--experiment dtype``: ``hgnn`` and ``unidhc`` with float32 propagation (the default,
``hyperclust.operators.propagation.BASIS_DTYPE``) against float64, seeds 0..4.

Every fit runs under the thread policy (as in ``fit``); times are indicative only (the
load average is recorded with each row). Output: ``OUT/<experiment>_settings.{md,json}``
(the harness's store: a rerun replaces its rows; every row carries its commit).

    nice python benchmarks/studies/bench_settings.py --experiment spectral
    nice python benchmarks/studies/bench_settings.py --experiment spectral --datasets synthetic-h0.7-n1000000 --tols 1e-8 1e-3 --n-inits 10 1
    nice python benchmarks/studies/bench_settings.py --experiment dtype
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from hyperclust.bench import (ResultStore, commits_of, default_data_dir, fmt_mean_std,
                              group_rows, markdown_table, mean_std, run_seeds, write_markdown)

SPECTRAL_DATASETS = ["zoo", "senate-committees", "house-committees", "cora-ca", "cora-cc",
                     "citeseer-cc", "mushroom", "20newsw100", "hsbm-node-0.3", "hsbm-node-0.5",
                     "hsbm-node-0.7", "hsbm-node-0.9", "hsbm-edge-0.3", "hsbm-edge-0.5",
                     "hsbm-edge-0.7", "hsbm-edge-0.9", "synthetic-h0.7-n100000"]
DTYPE_DATASETS = ["zoo", "senate-committees", "house-committees", "cora-ca", "cora-cc",
                  "citeseer-cc", "mushroom", "20newsw100", "hsbm-node-0.5", "hsbm-edge-0.5"]
KEY = ("dataset", "method", "tol", "n_init", "dtype", "seed")


def _scores(hg, pred):
    from hyperclust.metrics import acc, nmi

    mask = hg.labels >= 0
    return acc(hg.labels[mask], pred[mask]), nmi(hg.labels[mask], pred[mask])


def spectral_rows(name, hg, seeds, tols, n_inits, store=None):
    from sklearn.cluster import KMeans

    from hyperclust.bench.provenance import load_average
    from hyperclust.cluster.spectral import SpectralHypergraphClustering
    from hyperclust.metrics import ari
    from hyperclust.runtime.threads import thread_limit

    k = hg.n_classes

    def measure(seed):
        rows, ref = [], None
        for tol in tols:
            with thread_limit() as nt:
                load = load_average()
                t0 = time.perf_counter()
                est = SpectralHypergraphClustering(k, operator="zhou", tol=tol, n_init=1,
                                                   random_state=seed).fit(hg)
                t_fit1 = time.perf_counter() - t0
                for n_init in n_inits:
                    t0 = time.perf_counter()
                    if n_init == 1:
                        pred = est.labels_
                    else:
                        pred = KMeans(n_clusters=k, n_init=n_init,
                                      random_state=seed).fit_predict(est.embedding_)
                    t_km = time.perf_counter() - t0
                    a, m = _scores(hg, pred)
                    if (tol, n_init) == (tols[0], n_inits[0]):
                        ref = pred
                    rows.append({"tol": tol, "n_init": n_init, "acc": a, "nmi": m,
                                 "ari_vs_ref": float(ari(ref, pred)),
                                 "fit_n_init1_s": t_fit1, "kmeans_s": t_km, "threads": nt,
                                 "load": load, "dense_eigh": hg.n_nodes <= 1500})
        return rows

    return run_seeds(measure, seeds, settings={"dataset": name, "n_nodes": hg.n_nodes},
                     store=store)


def dtype_rows(name, hg, seeds, methods):
    from hyperclust.bench.provenance import load_average
    from hyperclust.cluster.registry import make_estimator
    from hyperclust.metrics import ari
    from hyperclust.operators import propagation

    k = hg.n_classes
    rows, labels = [], {}
    default = propagation.BASIS_DTYPE
    try:
        for method in methods:
            for dtype in ("float32", "float64"):
                propagation.BASIS_DTYPE = np.dtype(dtype)

                def measure(seed):
                    load = load_average()
                    est = make_estimator(method, k, random_state=seed)
                    t0 = time.perf_counter()
                    est.fit(hg)
                    t = time.perf_counter() - t0
                    a, m = _scores(hg, est.labels_)
                    labels[(method, dtype, seed)] = est.labels_  # compared below, not stored
                    return {"acc": a, "nmi": m, "fit_s": t, "load": load}

                rows += run_seeds(measure, seeds, settings={
                    "dataset": name, "n_nodes": hg.n_nodes, "method": method, "dtype": dtype})
    finally:
        propagation.BASIS_DTYPE = default
    for r in rows:  # agreement of the two dtypes' labels, seed by seed
        twin = "float64" if r["dtype"] == "float32" else "float32"
        r["ari_32_64"] = float(ari(labels[(r["method"], r["dtype"], r["seed"])],
                                   labels[(r["method"], twin, r["seed"])]))
    return rows


def _ms(values):
    return fmt_mean_std(*mean_std(values))


def spectral_markdown(rows, header):
    cells = []
    for (d, tol, n_init), sel in group_rows(rows, ("dataset", "tol", "n_init")).items():
        dense = " (dense eigh: tol unused)" if sel[0]["dense_eigh"] else ""
        cells.append([d, sel[0]["n_nodes"], f"{tol:g}{dense}", n_init,
                      _ms([r["acc"] for r in sel]), _ms([r["nmi"] for r in sel]),
                      _ms([r["ari_vs_ref"] for r in sel]),
                      f"{np.median([r['fit_n_init1_s'] for r in sel]):.2f}",
                      f"{np.median([r['kmeans_s'] for r in sel]):.2f}",
                      f"{max(r['load'][0] for r in sel):.2f}"])
    return header + markdown_table(
        ["dataset", "nodes", "tol", "n_init", "ACC", "NMI", "ARI vs (1e-8, 10)",
         "fit with n_init=1 s", "k-means s", "load 1m"], cells)


def dtype_markdown(rows, header):
    cells = []
    for (d, m), sel in group_rows(rows, ("dataset", "method")).items():
        r32 = sorted((r for r in sel if r["dtype"] == "float32"), key=lambda r: r["seed"])
        r64 = sorted((r for r in sel if r["dtype"] == "float64"), key=lambda r: r["seed"])
        cells.append([d, r32[0]["n_nodes"], f"`{m}`", _ms([r["acc"] for r in r32]),
                      _ms([r["acc"] for r in r64]), _ms([r["nmi"] for r in r32]),
                      _ms([r["nmi"] for r in r64]),
                      f"{np.mean([r['ari_32_64'] for r in r32]):.3f}",
                      f"{np.median([r['fit_s'] for r in r32]):.2f} / "
                      f"{np.median([r['fit_s'] for r in r64]):.2f}",
                      f"{max(r['load'][0] for r in r32 + r64):.2f}"])
    return header + markdown_table(
        ["dataset", "nodes", "method", "ACC float32", "ACC float64", "NMI float32",
         "NMI float64", "ARI(labels32, labels64) per seed, mean", "fit s 32 / 64", "load 1m"],
        cells)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--experiment", choices=("spectral", "dtype"), required=True)
    ap.add_argument("--datasets", nargs="+", default=None)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--tols", nargs="+", type=float, default=[1e-8, 1e-5, 1e-3])
    ap.add_argument("--n-inits", nargs="+", type=int, default=[10, 3, 1])
    ap.add_argument("--methods", nargs="+", default=["hgnn", "unidhc"])
    ap.add_argument("--data-dir", default=str(default_data_dir()))
    ap.add_argument("--out", default="docs/results/bench")
    args = ap.parse_args(argv)
    from hyperclust.datasets import resolve_dataset
    from hyperclust.bench.provenance import load_average

    out = Path(args.out)
    store = ResultStore(out / f"{args.experiment}_settings.json", key=KEY)
    datasets = args.datasets or (SPECTRAL_DATASETS if args.experiment == "spectral"
                                 else DTYPE_DATASETS)
    seeds = list(range(args.seeds))
    for name in datasets:
        hg = resolve_dataset(name, str(args.data_dir))
        if args.experiment == "spectral":
            spectral_rows(name, hg, seeds, args.tols, args.n_inits, store=store)
        else:
            store.add(dtype_rows(name, hg, seeds, args.methods))
    rows = store.runs
    header = [f"# `{args.experiment}` settings", "",
              f"Generated by `python benchmarks/studies/bench_settings.py --experiment {args.experiment}` "
              f"(see its docstring); commits {commits_of(rows)}; load average at the end "
              f"{load_average()}. Mean ± sample std over seeds {seeds}; times are medians, "
              "indicative only (shared machine, see the load column).", ""]
    md = spectral_markdown(rows, header) if args.experiment == "spectral" else \
        dtype_markdown(rows, header)
    path = write_markdown(out / f"{args.experiment}_settings.md", md)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
