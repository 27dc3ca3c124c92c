"""Does a change to ``AHCKA`` change what it computes? This checkout against a reference tree.

For each dataset and seed, ``AHCKA(k, random_state=seed).fit`` runs once with this
checkout's ``src`` and once with ``--ref`` (another source tree, e.g. ``git archive <commit>
src | tar -x -C /tmp/before``), each in its own process; the script reports per dataset
ACC / NMI (mean ± std over the seeds, both trees) and in how many runs the labels, the
iteration counts (``n_iter_``, ``best_iter_``) and the objective history are identical::

    HYPERCLUST_NUM_THREADS=1 OMP_NUM_THREADS=1 python benchmarks/bench_ahcka_identity.py \\
        --ref /tmp/before/src [--datasets cora-ca,cora-cc] [--seeds 5]

``hsbm:<incidences>`` names a rung of ``bench_past_1e6.py`` (structure only, 4 clusters), e.g.
``--datasets hsbm:1e6,hsbm:1e7 --seeds 1``.
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
SETS = ("cora-ca", "cora-cc", "citeseer-cc", "20newsw100")

FIT = r'''
import pickle, sys
from hyperclust.cluster.ahcka import AHCKA
from hyperclust.datasets import load_dataset
from hyperclust.metrics import evaluate

data, out, names, seeds = sys.argv[1], sys.argv[2], sys.argv[3].split(","), int(sys.argv[4])
runs = {}
for name in names:
    if name.startswith("hsbm:"):  # a rung of bench_past_1e6.py: hsbm:1e7 = 10^7 incidences
        from hyperclust.datasets.synthetic import hypergraph_sbm
        hg = hypergraph_sbm(int(float(name[5:]) / 4), 4, homophily=0.7, n_features=0,
                            random_state=0)
    else:
        hg = load_dataset(name, data_dir=data)
    for seed in range(seeds):
        est = AHCKA(hg.n_classes, random_state=seed).fit(hg)
        ev = evaluate(hg.labels, est.labels_)
        runs[name, seed] = dict(labels=est.labels_, acc=ev["acc"], nmi=ev["nmi"],
                                n_iter=est.n_iter_, best_iter=est.best_iter_,
                                history=est.objective_history_)
with open(out, "wb") as fh:
    pickle.dump(runs, fh)
'''


def fit_all(src, tag, names, seeds, scratch) -> dict:
    out = Path(scratch) / f"runs-{tag}.pkl"
    subprocess.run([sys.executable, "-c", FIT, str(DATA), str(out), ",".join(names),
                    str(seeds)], env=dict(os.environ, PYTHONPATH=src), check=True)
    with open(out, "rb") as fh:
        return pickle.load(fh)  # written just now by our own child process


def _ms(values) -> str:
    return f"{np.mean(values):.3f} ± {np.std(values, ddof=1) if len(values) > 1 else 0:.3f}"


def table(this, ref, names, seeds) -> list[str]:
    lines = ["| dataset | ACC (this) | ACC (ref) | NMI (this) | NMI (ref) | identical labels | "
             "identical n_iter / best_iter | identical objective history |",
             "|---|---|---|---|---|---|---|---|"]
    for name in names:
        keys = [(name, s) for s in range(seeds)]
        same_labels = sum(np.array_equal(this[k]["labels"], ref[k]["labels"]) for k in keys)
        same_iters = sum((this[k]["n_iter"], this[k]["best_iter"])
                         == (ref[k]["n_iter"], ref[k]["best_iter"]) for k in keys)
        same_hist = sum(this[k]["history"] == ref[k]["history"] for k in keys)
        lines.append(f"| {name} | {_ms([this[k]['acc'] for k in keys])} | "
                     f"{_ms([ref[k]['acc'] for k in keys])} | "
                     f"{_ms([this[k]['nmi'] for k in keys])} | "
                     f"{_ms([ref[k]['nmi'] for k in keys])} | {same_labels}/{seeds} | "
                     f"{same_iters}/{seeds} | {same_hist}/{seeds} |")
    return lines


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ref", required=True, help="the reference source tree (its src/)")
    ap.add_argument("--datasets", default=",".join(SETS))
    ap.add_argument("--seeds", type=int, default=5)
    args = ap.parse_args(argv)
    names = args.datasets.split(",")
    with tempfile.TemporaryDirectory() as scratch:
        this = fit_all(str(ROOT / "src"), "this", names, args.seeds, scratch)
        ref = fit_all(args.ref, "ref", names, args.seeds, scratch)
    print("\n".join(table(this, ref, names, args.seeds)))


if __name__ == "__main__":
    main()
