"""hyperclust's ``ahcka`` side by side with the public AHCKA code (run, never imported).

Usage::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 \\
        python benchmarks/bench_ahcka.py [--seeds 5] [--public /path/to/AHCKA/checkout]

Ours: ``AHCKA(k, random_state=seed).fit(hg)`` on all nodes, timed around ``fit`` (kNN
included, loading excluded) after one warm-up fit of the same dataset. Public code (optional,
``--public``): ``python AHCKA.py --dataset D --data T`` in its checkout, with its own data
files and defaults, parsed from its ``Acc=... NMI=... Time=...`` line (it is deterministic).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import time
from pathlib import Path

import numpy as np

from hyperclust.cluster.ahcka import AHCKA
from hyperclust.datasets import load_dataset
from hyperclust.metrics import evaluate

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("HYPERCLUST_DATA", ROOT.parent / "shared" / "data"))
SETS = {"cora-ca": ("cora", "coauthorship"), "cora-cc": ("cora", "cocitation"),
        "citeseer-cc": ("citeseer", "cocitation"), "20newsw100": ("20news", "npz")}


def ours(name, seeds):
    hg = load_dataset(name, data_dir=str(DATA))
    k = hg.n_classes
    AHCKA(k).fit(hg)
    rows = []
    for s in range(seeds):
        t0 = time.perf_counter()
        est = AHCKA(k, random_state=s).fit(hg)
        dt = time.perf_counter() - t0
        m = evaluate(hg.labels, est.labels_)
        rows.append((m["acc"], m["nmi"], m["ari"], dt))
    return np.array(rows)


def public(path, name):
    ds, kind = SETS[name]
    out = subprocess.run(["python", "AHCKA.py", "--dataset", ds, "--data", kind], cwd=path,
                         capture_output=True, text=True, timeout=600).stdout
    m = re.search(r"Acc=([\d.]+).*NMI=([\d.]+) ARI=([\d.]+) Time=([\d.]+)s", out)
    return tuple(float(g) for g in m.groups()) if m else None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--public", default=None)
    args = ap.parse_args(argv)
    print(f"load average {open('/proc/loadavg').read().split()[:3]}, "
          f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS')}")
    print("| dataset | ours ACC | ours NMI | ours ARI | ours time (s, median) | per-seed ACC | "
          "public ACC | public NMI | public ARI | public time (s) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name in SETS:
        r = ours(name, args.seeds)
        p = public(args.public, name) if args.public else None
        sd = lambda c: f"{r[:, c].mean():.3f} ± {r[:, c].std(ddof=1):.3f}"  # noqa: E731
        pub = " | ".join(f"{v:.3f}" if i < 3 else f"{v:.2f}" for i, v in enumerate(p)) \
            if p else " |  |  | "
        print(f"| {name} | {sd(0)} | {sd(1)} | {sd(2)} | {np.median(r[:, 3]):.2f} | "
              f"{' '.join(f'{a:.3f}' for a in r[:, 0])} | {pub} |", flush=True)
    print(f"load average after {open('/proc/loadavg').read().split()[:3]}")


if __name__ == "__main__":
    main()
