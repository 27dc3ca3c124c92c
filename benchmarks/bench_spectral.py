"""Spectral clustering with every operator on labelled shared datasets (structure only, all
nodes): ACC/NMI/ARI mean +- std over seeds, time and peak memory (tracemalloc).

Rows go to the harness's store (``--out`` with ``.json``, each row with its commit); the
table is rewritten from the store after each operator.

Usage: nice python benchmarks/bench_spectral.py [--datasets a,b] [--seeds 5] [--out docs/results/spectral.md]
"""

from __future__ import annotations

import argparse
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _datasets import load  # noqa: E402

from hyperclust.bench import (ResultStore, fmt_mean_std, group_rows, markdown_table,  # noqa: E402
                              mean_std, run_seeds, write_markdown)
from hyperclust.cluster.spectral import SpectralHypergraphClustering  # noqa: E402
from hyperclust.metrics import evaluate  # noqa: E402
from hyperclust.operators.base import OperatorTooLargeError  # noqa: E402

CONFIGS = [("zhou", "auto"), ("zhou", None), ("clique", "auto"), ("clique-unit", "auto"),
           ("star", "auto"), ("collapsed", "auto")]
KEY = ("dataset", "operator", "regularization", "seed")
SCORES = ("acc", "nmi", "ari")


def measure(hg, operator, regularization):
    """``measure(seed)`` of one operator: scores of a fit; time and peak memory at seed 0."""
    def one(seed):
        if seed == 0:
            tracemalloc.start()
        t = time.perf_counter()
        m = SpectralHypergraphClustering(hg.n_classes, operator=operator,
                                         regularization=regularization, tol=1e-6,
                                         random_state=seed).fit(hg)
        row = {"status": "ok"}
        if seed == 0:
            row["time_s"] = time.perf_counter() - t
            row["peak_mib"] = tracemalloc.get_traced_memory()[1] / 2**20
            tracemalloc.stop()
        return dict(row, **evaluate(hg.labels, m.labels_))
    return one


def table(rows, datasets, seeds):
    """The markdown rows: mean ± population std over seeds (as published), one per operator."""
    out = []
    rows = [r for r in rows if r["dataset"] in datasets and r["seed"] in seeds]
    for (d, op, reg), sel in group_rows(rows, KEY[:3]).items():
        first = sel[0]
        refused = next((r for r in sel if r.get("status") == "refused"), None)
        if refused:
            out.append([d, first["n_nodes"], first["k"], op, reg,
                        f"refused: {refused['error']}", "", "", "", ""])
            continue
        seed0 = next((r for r in sel if r["seed"] == 0), first)
        out.append([d, first["n_nodes"], first["k"], op, reg or "none"]
                   + [fmt_mean_std(*mean_std([r[s] for r in sel], ddof=0)) for s in SCORES]
                   + [f"{seed0.get('time_s', float('nan')):.1f}",
                      f"{seed0.get('peak_mib', float('nan')):.0f}"])
    return out


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", default="senate-committees,house-committees,contact-high-school-classes,cora-ca,cora-cc,citeseer-cc")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--out", default="docs/results/spectral.md")
    args = ap.parse_args(argv)
    datasets = args.datasets.split(",")
    store = ResultStore(Path(args.out).with_suffix(".json"), key=KEY)
    head = ["# Spectral clustering (structure only, all nodes)", "",
            f"Command: `nice python benchmarks/bench_spectral.py --datasets {args.datasets} --seeds {args.seeds}`",
            "", "reg = tau (auto = mean degree, none = unregularized); time/peak memory of one fit (seed 0).", ""]
    cols = ["dataset", "n", "k", "operator", "reg", "ACC", "NMI", "ARI", "time s", "peak MiB"]
    for name in datasets:
        hg = load(name)
        info = {"dataset": name, "n_nodes": hg.n_nodes, "k": hg.n_classes}
        for op, reg in CONFIGS:
            settings = dict(info, operator=op, regularization=reg)
            try:
                run_seeds(measure(hg, op, reg), args.seeds, settings=settings, store=store)
            except OperatorTooLargeError as exc:
                tracemalloc.stop()
                store.add([dict(settings, seed=s, status="refused", error=str(exc))
                           for s in range(args.seeds)])
            write_markdown(args.out, head + markdown_table(cols, table(store.runs, datasets, range(args.seeds))))


if __name__ == "__main__":
    main()
