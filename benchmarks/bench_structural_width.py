"""How many spectral columns should the structural input of a feature-less hypergraph have?

k-means on HGNN-smoothed structural features (``HGNNSmoothingKMeans(k, n_structural=c)``)
for c in {k, 2k, 3k, 4k, 32}; one seed (the embedding is deterministic up to k-means).

Usage::

    python benchmarks/bench_structural_width.py            # -> docs/results/structural_width.md
"""

from __future__ import annotations

import argparse
from pathlib import Path

from _datasets import load

from hyperclust.cluster.baselines import HGNNSmoothingKMeans
from hyperclust.metrics import acc, nmi

DATASETS = ["contact-high-school-classes", "congress-bills", "hsbm-node-0.7", "hsbm-edge-0.7",
            "hsbm-node-0.8", "dblp-ca", "walmart-trips", "pubmed-cc", "senate-committees",
            "house-committees", "pokec", "amazon-ratings", "actor"]
OUT = Path(__file__).resolve().parents[1] / "docs" / "results" / "structural_width.md"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", nargs="*", default=DATASETS)
    args = ap.parse_args()
    widths = ("k", "2k", "3k", "4k", "32")
    lines = ["# Structural input width (feature-less hypergraphs)", "",
             "`python benchmarks/bench_structural_width.py`: `hgnn` (k-means on P^2 of the "
             "structural input), seed 0, ACC / NMI with c spectral columns. The library "
             "default is 2k clipped to [4, 32].", "",
             "| dataset (k) | " + " | ".join(f"c = {w}" for w in widths) + " |",
             "|---" * (len(widths) + 1) + "|"]
    for name in args.datasets:
        hg = load(name)
        k = hg.n_classes
        cells = []
        for c in (k, 2 * k, 3 * k, 4 * k, 32):
            m = HGNNSmoothingKMeans(k, n_structural=c, random_state=0).fit(hg)
            cells.append(f"{acc(hg.labels, m.labels_):.3f} / {nmi(hg.labels, m.labels_):.3f}")
        lines.append(f"| {name} ({k}) | " + " | ".join(cells) + " |")
        print(lines[-1], flush=True)
    OUT.write_text("\n".join(lines) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
