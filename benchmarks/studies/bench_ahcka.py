"""hyperclust's ``ahcka`` side by side with the public AHCKA code (run, never imported).

Usage::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 \\
        python benchmarks/studies/bench_ahcka.py [--seeds 5] [--public /path/to/AHCKA/checkout]
        [--datasets cora-ca,zoo] [--store bench-out/ahcka.json]

Ours: ``AHCKA(k, random_state=seed).fit(hg)`` on all nodes, timed around ``fit`` (kNN
included, loading excluded) after one warm-up fit of the same dataset. Public code (optional,
``--public``): ``python AHCKA.py --dataset D --data T`` in its checkout, with its own data
files and defaults, parsed from its ``Acc=... NMI=... Time=...`` line (it is deterministic).

``--permute N``: also run the public code on N copies of its data whose node ids are
shuffled by seeded permutations (seeds 0..N-1; hyperedges, features and labels permuted
together, nothing else changed), written under ``--scratch``. Its output depends on the node
order (kNN ties are kept in id order, and these files are ordered by class), so the mean over
permutations is the comparison that does not reward id order.

Rows (ours per seed, the public code per dataset and permutation) go to the harness's store
(``--store``, each row with its commit).
"""

from __future__ import annotations

import argparse
import os
import pickle
import re
import shutil
import subprocess
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from hyperclust.bench import (ResultStore, fmt_mean_std, markdown_row, markdown_table,
                              run_seeds, summarize)
from hyperclust.cluster.ahcka import AHCKA
from hyperclust.datasets import load_dataset
from hyperclust.metrics import evaluate

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(os.environ.get("HYPERCLUST_DATA", ROOT.parent / "shared" / "data"))
SETS = {"cora-ca": ("cora", "coauthorship"), "cora-cc": ("cora", "cocitation"),
        "citeseer-cc": ("citeseer", "cocitation"), "20newsw100": ("20news", "npz")}
SCORES = ("acc", "nmi", "ari")


def ours(name, seeds, store):
    """Our rows of ``name``: one per seed, timed around ``fit`` after one warm-up fit."""
    hg = load_dataset(name, data_dir=str(DATA))
    k = hg.n_classes
    AHCKA(k).fit(hg)

    def at_seed(seed):
        t0 = time.perf_counter()
        est = AHCKA(k, random_state=seed).fit(hg)
        dt = time.perf_counter() - t0
        m = evaluate(hg.labels, est.labels_)
        return {"acc": m["acc"], "nmi": m["nmi"], "ari": m["ari"], "fit_s": dt}

    return run_seeds(at_seed, seeds, settings={"dataset": name, "code": "ours"}, store=store,
                     echo=False)


def public(path, name):
    ds, kind = SETS[name]
    out = subprocess.run(["python", "AHCKA.py", "--dataset", ds, "--data", kind], cwd=path,
                         capture_output=True, text=True, timeout=600).stdout
    m = re.search(r"Acc=([\d.]+).*NMI=([\d.]+) ARI=([\d.]+) Time=([\d.]+)s", out)
    return tuple(float(g) for g in m.groups()) if m else None


def permuted_copy(path, seed, scratch):
    """A copy of the public checkout at ``scratch/seed`` whose four data sets have their node
    ids shuffled by ``default_rng(seed).permutation`` (new id of node i = perm[i])."""
    dst = Path(scratch) / str(seed)
    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(path, dst, ignore=shutil.ignore_patterns("*.pickle", "*.npz", "*.npy"))
    for ds, kind in set(SETS.values()):
        src, out = Path(path) / "data" / kind / ds, dst / "data" / kind / ds
        out.mkdir(parents=True, exist_ok=True)
        if kind == "npz":
            H = sp.load_npz(src / "hypergraph.npz")
            X = sp.load_npz(src / "features.npz")
            y = np.load(src / "labels.npy")
            inv = np.argsort(np.random.default_rng(seed).permutation(X.shape[0]))
            sp.save_npz(out / "hypergraph.npz", H.tocsc()[:, inv].tocsr())
            sp.save_npz(out / "features.npz", X.tocsr()[inv])
            np.save(out / "labels.npy", y[inv])
            continue
        load = lambda f: pickle.load(open(src / f, "rb"))  # noqa: E731 (its own files)
        hg, X, y = load("hypergraph.pickle"), load("features.pickle"), load("labels.pickle")
        perm = np.random.default_rng(seed).permutation(X.shape[0])
        inv = np.argsort(perm)
        hg = {e: [int(perm[v]) for v in members] for e, members in hg.items()}
        for f, obj in (("hypergraph.pickle", hg), ("features.pickle", X[inv]),
                       ("labels.pickle", [y[i] for i in inv])):
            with open(out / f, "wb") as fh:
                pickle.dump(obj, fh)
    return dst


def cells(rows):
    """ACC, NMI, ARI as mean ± std over ``rows`` (seeds or permutations)."""
    s = summarize(rows, ("dataset",), SCORES)[0]
    return [fmt_mean_std(s[v], s[v + "_std"]) for v in SCORES]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--public", default=None)
    ap.add_argument("--permute", type=int, default=0,
                    help="also run the public code on N node-permuted copies of its data")
    ap.add_argument("--scratch", default="/tmp/ahcka-permuted")
    ap.add_argument("--datasets", default=",".join(SETS),
                    help=f"comma-separated subset of {', '.join(SETS)}")
    ap.add_argument("--store", default="bench-out/ahcka.json")
    args = ap.parse_args(argv)
    names = args.datasets.split(",")
    unknown = [n for n in names if n not in SETS]
    if unknown:
        ap.error(f"unknown dataset(s) {', '.join(unknown)}; choose from {', '.join(SETS)}")
    store = ResultStore(args.store, key=("dataset", "code", "seed"))
    print(f"load average {open('/proc/loadavg').read().split()[:3]}, "
          f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS')}")
    print("\n".join(markdown_table(
        ["dataset", "ours ACC", "ours NMI", "ours ARI", "ours time (s, median)", "per-seed ACC",
         "public ACC", "public NMI", "public ARI", "public time (s)"], [])))
    for name in names:
        rows = ours(name, args.seeds, store)
        p = public(args.public, name) if args.public else None
        if p:
            store.add({"dataset": name, "code": "public", "seed": None,
                       **dict(zip(("acc", "nmi", "ari", "fit_s"), p))})
        pub = [f"{v:.3f}" if i < 3 else f"{v:.2f}" for i, v in enumerate(p)] if p \
            else ["", "", "", ""]
        print(markdown_row([name, *cells(rows),
                            f"{np.median([r['fit_s'] for r in rows]):.2f}",
                            " ".join(f"{r['acc']:.3f}" for r in rows), *pub]), flush=True)
    if args.public and args.permute:
        print()
        print("\n".join(markdown_table(["dataset", "public ACC (permuted ids)", "public NMI",
                                        "public ARI", "per-permutation ACC"], [])))
        copies = [permuted_copy(args.public, s, args.scratch) for s in range(args.permute)]
        for name in names:
            rows = run_seeds(lambda s: dict(zip(("acc", "nmi", "ari"), public(copies[s], name))),
                             args.permute, settings={"dataset": name, "code": "public-permuted"},
                             store=store, echo=False)
            print(markdown_row([name, *cells(rows),
                                " ".join(f"{r['acc']:.3f}" for r in rows)]), flush=True)
    print(f"load average after {open('/proc/loadavg').read().split()[:3]}")


if __name__ == "__main__":
    main()
