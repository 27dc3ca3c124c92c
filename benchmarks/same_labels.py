"""Does a change leave what the methods compute unchanged? Labels of every in-package method
on small sets, this checkout against a reference source tree.

For each method, dataset and seed, ``make_estimator(method, k, random_state=seed).fit`` runs
once with this checkout's ``src`` and once with ``--ref`` (another source tree, e.g.
``git archive <commit> src | tar -x -C /tmp/before``), each tree in its own process; the
script prints, per method, in how many runs the labels are identical (bit for bit) and the
first differing run. ``--attrs`` compares other fitted attributes too (each bit for bit, e.g.
``labels_,embedding_,coefficients_`` for Uni-DHC; an attribute a method lacks is ``None``
in both trees)::

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

data, out, methods, names, seeds, attrs = sys.argv[1:7]
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
                    est = make_estimator(method, k, random_state=seed).fit(hg)
                    fitted = [getattr(est, a, None) for a in attrs.split(",")]
                except Exception as exc:  # a method that fails must fail in both trees
                    fitted = f"{type(exc).__name__}: {exc}"
            runs[method, name, seed] = fitted
with open(out, "wb") as fh:
    pickle.dump(runs, fh)
'''


def fit_all(src, tag, methods, names, seeds, scratch, attrs="labels_") -> dict:
    out = Path(scratch) / f"runs-{tag}.pkl"
    subprocess.run([sys.executable, "-c", FIT, str(DATA), str(out), methods, names,
                    str(seeds), attrs], env=dict(os.environ, PYTHONPATH=src), check=True)
    with open(out, "rb") as fh:
        return pickle.load(fh)  # written just now by our own child process


def _same(a, b) -> bool:
    """Same failure message, or every attribute equal bit for bit (``None`` for both when
    a method lacks it)."""
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    return len(a) == len(b) and all(
        (x is None and y is None) if x is None or y is None else np.array_equal(x, y)
        for x, y in zip(a, b))


def report(this, ref, attrs="labels_") -> list[str]:
    """One line per method: identical runs out of all, and the first that differs."""
    lines = [f"| method | identical {attrs.replace(',', ', ')} | first difference |",
             "|---|---|---|"]
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
    ap.add_argument("--attrs", default="labels_",
                    help="comma-separated fitted attributes compared bit for bit")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        this, ref = (fit_all(src, tag, args.methods, args.datasets, args.seeds, scratch,
                             args.attrs)
                     for src, tag in ((str(ROOT / "src"), "this"), (args.ref, "ref")))
    print("\n".join(report(this, ref, args.attrs)))
    return 0 if all(key in ref and _same(this[key], ref[key]) for key in this) else 1


if __name__ == "__main__":
    sys.exit(main())
