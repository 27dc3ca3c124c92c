"""How many spectral columns should the structural input of a feature-less hypergraph have?

k-means on HGNN-smoothed structural features (``HGNNSmoothingKMeans(k, n_structural=c)``)
for c in {k, 2k, 3k, 4k, 32}; one seed (the embedding is deterministic up to k-means).
Rows go to the harness's store (``--out`` with ``.json``, each row with its commit).

Usage::

    python benchmarks/studies/bench_structural_width.py            # -> docs/results/structural_width.md
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: _datasets
from _datasets import load  # noqa: E402

from hyperclust.bench import (ResultStore, group_rows, markdown_table, run_seeds,  # noqa: E402
                              write_markdown)
from hyperclust.cluster.baselines import HGNNSmoothingKMeans  # noqa: E402
from hyperclust.metrics import acc, nmi  # noqa: E402

DATASETS = ["contact-high-school-classes", "congress-bills", "hsbm-node-0.7", "hsbm-edge-0.7",
            "hsbm-node-0.8", "dblp-ca", "walmart-trips", "pubmed-cc", "senate-committees",
            "house-committees", "pokec", "amazon-ratings", "actor"]
OUT = Path(__file__).resolve().parents[2] / "docs" / "results" / "structural_width.md"
WIDTHS = ("k", "2k", "3k", "4k", "32")
SEEDS = [0]


def widths(k):
    return (k, 2 * k, 3 * k, 4 * k, 32)


def measure(hg):
    """``measure(seed)``: ACC and NMI of ``hgnn`` at each width."""
    def one(seed):
        rows = []
        for width, c in zip(WIDTHS, widths(hg.n_classes)):
            m = HGNNSmoothingKMeans(hg.n_classes, n_structural=c, random_state=seed).fit(hg)
            rows.append({"width": width, "n_structural": c, "acc": acc(hg.labels, m.labels_),
                         "nmi": nmi(hg.labels, m.labels_)})
        return rows
    return one


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", nargs="*", default=DATASETS)
    ap.add_argument("--out", default=str(OUT))
    args = ap.parse_args(argv)
    store = ResultStore(Path(args.out).with_suffix(".json"), key=("dataset", "width", "seed"))
    for name in args.datasets:
        hg = load(name)
        run_seeds(measure(hg), SEEDS, settings={"dataset": name, "k": hg.n_classes},
                  store=store, echo=False)
    rows = [r for r in store.runs if r["dataset"] in args.datasets and r["seed"] in SEEDS]
    cells = [[f"{d} ({sel[0]['k']})"] + [f"{r['acc']:.3f} / {r['nmi']:.3f}"
                                          for r in sorted(sel, key=lambda r: WIDTHS.index(r["width"]))]
             for (d,), sel in group_rows(rows, ("dataset",)).items()]
    lines = ["# Structural input width (feature-less hypergraphs)", "",
             "`python benchmarks/studies/bench_structural_width.py`: `hgnn` (k-means on P^2 of the "
             "structural input), seed 0, ACC / NMI with c spectral columns. The library "
             "default is 2k clipped to [4, 32].", ""]
    lines += markdown_table(["dataset (k)"] + [f"c = {w}" for w in WIDTHS], cells)
    print("\n".join(lines[-len(cells):]))
    print(f"wrote {write_markdown(args.out, lines)}")


if __name__ == "__main__":
    main()
