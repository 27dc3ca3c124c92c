"""AHCKA's outputs on the shared sets and the past-1e6 rungs, written to a file, so that two
versions of the code can be compared fit by fit (labels, iterations, selected iteration,
objective history): a change meant to keep the clusterings shows it keeps them.

Run once per version (``PYTHONPATH`` selects the code), then compare:

    PYTHONPATH=/tmp/base/src python benchmarks/studies/ahcka_fingerprints.py --out /tmp/a.npz
    PYTHONPATH=src python benchmarks/studies/ahcka_fingerprints.py --out /tmp/b.npz
    python benchmarks/studies/ahcka_fingerprints.py --compare /tmp/a.npz /tmp/b.npz

``--rungs 1e6 1e7`` adds ``hypergraph_sbm(rung / 4, 4, homophily=0.7)`` (seed 0, structure
only: the inputs of ``bench_past_1e6.py``) with 4 clusters and seed 0.
"""

from __future__ import annotations

import argparse

import numpy as np

SETS = ["cora-ca", "citeseer-cc", "20newsw100", "mushroom", "zoo"]


def fingerprints(sets, seeds, rungs, data_dir):
    """``{name: array}``: per fit its labels, ``[n_iter, best_iter]`` and objective history."""
    from hyperclust.cluster import AHCKA
    from hyperclust.datasets.load import load_dataset
    from hyperclust.datasets.synthetic import hypergraph_sbm

    fits = [(name, seed, lambda name=name: load_dataset(name, data_dir=data_dir,
                                                        download=False))
            for name in sets for seed in seeds]
    fits += [(f"hsbm{rung:.0e}", 0, lambda rung=rung: hypergraph_sbm(
        int(rung / 4), 4, homophily=0.7, n_features=0, random_state=0)) for rung in rungs]
    out = {}
    for name, seed, load in fits:
        hg = load()
        k = 4 if hg.labels is None or name.startswith("hsbm") else len(np.unique(hg.labels))
        est = AHCKA(k, random_state=seed).fit(hg)
        key = f"{name}/{seed}"
        out[key + "/labels"] = est.labels_
        out[key + "/iters"] = np.array([est.n_iter_, est.best_iter_])
        out[key + "/history"] = np.array(est.objective_history_, dtype=np.float64)
        print(key, est.n_iter_, est.best_iter_, f"{est.objective_:.12f}", flush=True)
    return out


def compare(a_path, b_path):
    """Print, per fit, whether labels and iterations are equal and the largest objective
    difference; return the number of fits whose labels or iterations differ."""
    a, b = np.load(a_path), np.load(b_path)
    fits = sorted({key.rsplit("/", 1)[0] for key in a.files})
    differ = 0
    for fit in fits:
        same = all(np.array_equal(a[f"{fit}/{part}"], b[f"{fit}/{part}"])
                   for part in ("labels", "iters"))
        ha, hb = a[f"{fit}/history"], b[f"{fit}/history"]
        gap = float(np.abs(ha - hb).max()) if ha.shape == hb.shape else float("inf")
        differ += not same
        print(f"{fit}: labels and iterations {'equal' if same else 'DIFFER'}; history "
              f"max |diff| {gap:.3g}")
    print(f"{len(fits) - differ} of {len(fits)} fits equal")
    return differ


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", nargs="*", default=SETS)
    ap.add_argument("--seeds", nargs="*", type=int, default=list(range(5)))
    ap.add_argument("--rungs", nargs="*", type=float, default=[])
    ap.add_argument("--data-dir", default="/work/shared/data")
    ap.add_argument("--out")
    ap.add_argument("--compare", nargs=2, metavar=("A", "B"))
    args = ap.parse_args(argv)
    if args.compare:
        raise SystemExit(1 if compare(*args.compare) else 0)
    np.savez(args.out, **fingerprints(args.sets, args.seeds, args.rungs, args.data_dir))


if __name__ == "__main__":
    main()
