"""Spectral clustering with every operator on labelled shared datasets (structure only, all
nodes): ACC/NMI/ARI mean +- std over seeds, time and peak memory (tracemalloc).

Usage: nice python benchmarks/bench_spectral.py [--datasets a,b] [--seeds 5] [--out docs/results/spectral.md]
"""

from __future__ import annotations

import argparse
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _datasets import load  # noqa: E402

from hyperclust.cluster.spectral import SpectralHypergraphClustering  # noqa: E402
from hyperclust.metrics import evaluate  # noqa: E402
from hyperclust.operators.base import OperatorTooLargeError  # noqa: E402

CONFIGS = [("zhou", "auto"), ("zhou", None), ("clique", "auto"), ("clique-unit", "auto"),
           ("star", "auto"), ("collapsed", "auto")]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", default="senate-committees,house-committees,contact-high-school-classes,cora-ca,cora-cc,citeseer-cc")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--out", default="docs/results/spectral.md")
    args = ap.parse_args()
    lines = ["# Spectral clustering (structure only, all nodes)", "",
             f"Command: `nice python benchmarks/bench_spectral.py --datasets {args.datasets} --seeds {args.seeds}`",
             "", "reg = tau (auto = mean degree, none = unregularized); time/peak memory of one fit (seed 0).", "",
             "| dataset | n | k | operator | reg | ACC | NMI | ARI | time s | peak MiB |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for name in args.datasets.split(","):
        hg = load(name)
        y = hg.labels
        k = hg.n_classes
        for op, reg in CONFIGS:
            scores, t0, peak = [], None, None
            try:
                for seed in range(args.seeds):
                    if seed == 0:
                        tracemalloc.start()
                    t = time.time()
                    m = SpectralHypergraphClustering(k, operator=op, regularization=reg, tol=1e-6,
                                                     random_state=seed).fit(hg)
                    if seed == 0:
                        t0 = time.time() - t
                        peak = tracemalloc.get_traced_memory()[1] / 2**20
                        tracemalloc.stop()
                    scores.append(evaluate(y, m.labels_))
            except OperatorTooLargeError as exc:
                lines.append(f"| {name} | {hg.n_nodes} | {k} | {op} | {reg} | refused: {exc} | | | | |")
                continue
            agg = {key: (np.mean([s[key] for s in scores]), np.std([s[key] for s in scores]))
                   for key in ("acc", "nmi", "ari")}
            row = (f"| {name} | {hg.n_nodes} | {k} | {op} | {reg or 'none'} | "
                   + " | ".join(f"{agg[x][0]:.3f} ± {agg[x][1]:.3f}" for x in ("acc", "nmi", "ari"))
                   + f" | {t0:.1f} | {peak:.0f} |")
            lines.append(row)
            print(row, flush=True)
            Path(args.out).parent.mkdir(parents=True, exist_ok=True)
            Path(args.out).write_text("\n".join(lines) + "\n")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
