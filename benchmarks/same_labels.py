"""Does a change leave what the methods compute unchanged? Labels of every in-package method
on small sets, this checkout against a reference source tree.

For each method, dataset and seed, ``make_estimator(method, k, random_state=seed).fit`` runs
once with this checkout's ``src`` and once with ``--ref`` (another source tree, e.g.
``git archive <commit> src | tar -x -C /tmp/before``), each tree in its own process; the
script prints, per method, in how many runs the labels are identical (bit for bit) and the
first differing run::

    HYPERCLUST_NUM_THREADS=1 OMP_NUM_THREADS=1 python benchmarks/same_labels.py \\
        --ref /tmp/before/src [--methods ahcka,hgnn] [--datasets zoo,synthetic-h0.3-n400-k3]
"""

from __future__ import annotations

import argparse
import os
import pickle
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("HYPERCLUST_DATA", ROOT.parent / "shared" / "data"))
SETS = ("zoo", "synthetic-h0.3-n400-k3", "synthetic-h0.9-n400-k3")

FIT = r'''
import pickle, sys, warnings
from hyperclust.cluster.registry import available_methods, make_estimator
from hyperclust.datasets import resolve_dataset

data, out, methods, names, seeds = sys.argv[1:6]
methods = list(available_methods()) if methods == "all" else methods.split(",")
runs = {}
for name in names.split(","):
    hg = resolve_dataset(name, data_dir=data)
    k = int(hg.n_classes)
    for method in methods:
        for seed in range(int(seeds)):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    labels = make_estimator(method, k, random_state=seed).fit(hg).labels_
                except Exception as exc:  # a method that fails must fail in both trees
                    labels = f"{type(exc).__name__}: {exc}"
            runs[method, name, seed] = labels
with open(out, "wb") as fh:
    pickle.dump(runs, fh)
'''


def fit_all(src, tag, methods, names, seeds, scratch) -> dict:
    out = Path(scratch) / f"runs-{tag}.pkl"
    subprocess.run([sys.executable, "-c", FIT, str(DATA), str(out), methods, names,
                    str(seeds)], env=dict(os.environ, PYTHONPATH=src), check=True)
    with open(out, "rb") as fh:
        return pickle.load(fh)  # written just now by our own child process


def _same(a, b) -> bool:
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    return np.array_equal(a, b)


def report(this, ref) -> list[str]:
    """One line per method: identical runs out of all, and the first that differs."""
    lines = ["| method | identical labels | first difference |", "|---|---|---|"]
    for method in dict.fromkeys(m for m, _, _ in this):
        keys = [key for key in this if key[0] == method]
        differ = [key for key in keys if key not in ref or not _same(this[key], ref[key])]
        first = f"{differ[0][1]} seed {differ[0][2]}" if differ else ""
        lines.append(f"| {method} | {len(keys) - len(differ)}/{len(keys)} | {first} |")
    return lines


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ref", required=True, help="the reference source tree (its src/)")
    ap.add_argument("--methods", default="all", help="comma-separated; default every method")
    ap.add_argument("--datasets", default=",".join(SETS))
    ap.add_argument("--seeds", type=int, default=2)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        this = fit_all(str(ROOT / "src"), "this", args.methods, args.datasets, args.seeds,
                       scratch)
        ref = fit_all(args.ref, "ref", args.methods, args.datasets, args.seeds, scratch)
    print("\n".join(report(this, ref)))
    return 0 if all(key in ref and _same(this[key], ref[key]) for key in this) else 1


if __name__ == "__main__":
    sys.exit(main())
