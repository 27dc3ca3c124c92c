"""``auto`` with ``n_splits`` hold-out splits averaged, on named shared sets or sweep points.

Usage::

    HYPERCLUST_NUM_THREADS=1 python benchmarks/studies/auto_splits.py --splits 3 cora-ca h=0.3

Prints, per set, every seed's pick with its ACC / NMI and the means (labels only score).
Results: docs/results/auto.md, "More splits".
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from hyperclust.cluster.auto import AutoClusterer
from hyperclust.metrics import evaluate

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench_auto_heldout import _dataset  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sets", nargs="+", help="shared set names, or h=0.3 for the sweep")
    ap.add_argument("--splits", type=int, default=3)
    ap.add_argument("--seeds", type=int, default=5)
    args = ap.parse_args(argv)
    for name in args.sets:
        runs = []
        for seed in range(args.seeds):
            hg = _dataset(name, seed)
            y = np.asarray(hg.labels)
            k = int(np.unique(y[y >= 0]).size)
            est = AutoClusterer(k, random_state=seed, n_splits=args.splits).fit(hg)
            m = evaluate(y, est.labels_)
            runs.append((est.selected_, round(m["acc"], 3), round(m["nmi"], 3)))
        print(name, runs, f"ACC {np.mean([r[1] for r in runs]):.3f}",
              f"NMI {np.mean([r[2] for r in runs]):.3f}", flush=True)


if __name__ == "__main__":
    main()
