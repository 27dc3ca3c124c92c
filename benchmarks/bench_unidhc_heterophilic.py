"""Uni-DHC on the heterophilous graphs (read as closed neighbourhoods) and the homophilic
attributed sets: k-means on X, hgnn (P^2 X), Uni-DHC with the canonical filter alone (the
``gamma_init="canonical"`` start, the method before the held-out check) and the registered
``unidhc`` (``gamma_init="heldout"``); ACC and NMI over seeds, and each seed's filter.

    PYTHONPATH=src python benchmarks/bench_unidhc_heterophilic.py --out docs/results/unidhc_heterophilic.md

One thread (set OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
HYPERCLUST_NUM_THREADS=1); labels only score the result.
"""

from __future__ import annotations

import argparse
import itertools
import time
import warnings
from pathlib import Path

import numpy as np

SETS = ("wisconsin", "chameleon_filtered", "cornell", "squirrel_filtered", "cora-ca",
        "cora-cc", "citeseer-cc", "zoo", "mushroom", "pubmed-cc-tricl", "20newsw100")
METHODS = ("kmeans", "hgnn", "unidhc-canonical", "unidhc")


def _fit(method, hg, seed):
    from hyperclust.cluster.registry import make_estimator

    name = "unidhc" if method == "unidhc-canonical" else method
    est = make_estimator(name, hg.n_classes, random_state=seed)
    if method == "unidhc-canonical":
        est.set_params(gamma_init="canonical")
    return est.fit(hg)


def run(sets, seeds, data_dir, methods=METHODS):
    """Yield one markdown row per (set, method)."""
    from hyperclust.datasets import load_dataset
    from hyperclust.metrics import acc, nmi

    for name in sets:
        hg = load_dataset(name, data_dir=data_dir, download=False)
        for method in methods:
            scores, filters, cpu = [], [], time.process_time()
            for seed in seeds:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    est = _fit(method, hg, seed)
                scores.append((acc(hg.labels, est.labels_), nmi(hg.labels, est.labels_)))
                filters.append(getattr(est, "filter_family_", ""))
            a, n = np.array(scores).T
            chosen = " ".join(filters) if any(filters) else ""
            yield (f"| {name} | {method} | {a.mean():.3f} ± {a.std():.3f} | {a.min():.3f} | "
                   f"{n.mean():.3f} ± {n.std():.3f} | {n.min():.3f} | {chosen} | "
                   f"{time.process_time() - cpu:.0f} |")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", default=list(SETS))
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2, 3, 4])
    parser.add_argument("--methods", nargs="+", default=list(METHODS), choices=METHODS)
    parser.add_argument("--data-dir", default=str(Path(__file__).resolve().parents[2] / "shared" / "data"))
    parser.add_argument("--out", help="append the table here (markdown)")
    args = parser.parse_args(argv)
    header = ["| set | method | ACC | worst ACC | NMI | worst NMI | filter per seed | CPU s |",
              "|---|---|---|---|---|---|---|---|"]
    out = open(args.out, "a", encoding="utf-8") if args.out else None
    for line in itertools.chain(header, run(args.sets, args.seeds, args.data_dir, args.methods)):
        print(line, flush=True)
        if out:
            out.write(line + "\n")
            out.flush()


if __name__ == "__main__":
    main()
