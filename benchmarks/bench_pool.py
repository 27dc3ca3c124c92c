"""Candidate clusterings of every labelled shared set, cached for the objective and ``auto``
studies (``bench_objectives.py``, ``bench_auto.py``).

Usage (background, one BLAS thread)::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 \\
        nice python benchmarks/bench_pool.py --seeds 5 [--datasets cora-ca,zoo] [--unidhc]

For each dataset and seed it fits ``AutoClusterer`` with every candidate (so the labels,
scores and fit times are exactly those ``auto`` sees) and, with ``--unidhc``, Uni-DHC; the
labels land in ``bench-out/pool/<dataset>/seed<k>.npz`` (ignored by git) with a JSON line of
ACC/NMI/times per run in ``bench-out/pool/runs.jsonl``. Labels only score; they never reach
a method.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np

from hyperclust.cluster.auto import CANDIDATES, AutoClusterer
from hyperclust.datasets import load_dataset
from hyperclust.metrics import evaluate

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("HYPERCLUST_DATA", ROOT.parent / "shared" / "data"))
OUT = ROOT / "bench-out" / "pool"

ATTRIBUTED = ["cora-ca", "cora-cc", "citeseer-cc", "pubmed-cc-tricl", "zoo", "mushroom",
              "20newsw100"]
STRUCTURE = ["senate-committees", "house-committees", "contact-high-school-classes"] + \
    [f"hsbm-{kind}-0.{h}" for kind in ("node", "edge") for h in range(3, 10)]
ALL = ATTRIBUTED + STRUCTURE


def run(name: str, seed: int, with_unidhc: bool) -> dict:
    hg = load_dataset(name, data_dir=str(DATA))
    y = np.asarray(hg.labels)
    k = hg.n_classes
    t0 = time.perf_counter()
    auto = AutoClusterer(k, candidates=CANDIDATES, random_state=seed).fit(hg)
    t_auto = time.perf_counter() - t0
    labels = dict(auto.candidates_)
    times = dict(auto.fit_times_)
    if with_unidhc:
        from hyperclust.cluster.unidhc import UniDHC

        t0 = time.perf_counter()
        labels["unidhc"] = np.asarray(UniDHC(k, random_state=seed).fit(hg).labels_)
        times["unidhc"] = time.perf_counter() - t0
    folder = OUT / name
    folder.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(folder / f"seed{seed}.npz", y=y, **{f"L_{m}": v for m, v in labels.items()})
    rec = {"dataset": name, "seed": seed, "n": hg.n_nodes, "k": k,
           "features": hg.features is not None, "auto_time": t_auto, "times": times,
           "selected": auto.selected_, "scores": auto.scores_,
           "metrics": {m: evaluate(y, v) for m, v in labels.items()},
           "loadavg": open("/proc/loadavg").read().split()[:3],
           "threads": os.environ.get("OMP_NUM_THREADS")}
    with open(OUT / "runs.jsonl", "a") as fh:
        fh.write(json.dumps(rec) + "\n")
    return rec


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--datasets", default=",".join(ALL))
    ap.add_argument("--unidhc", action="store_true", help="also fit Uni-DHC (slow)")
    args = ap.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    for name in args.datasets.split(","):
        for seed in range(args.seeds):
            rec = run(name, seed, args.unidhc and not name.startswith("hsbm"))
            best = max(rec["metrics"], key=lambda m: rec["metrics"][m]["acc"])
            print(f"{name} seed {seed}: auto -> {rec['selected']} "
                  f"acc {rec['metrics'][rec['selected']]['acc']:.3f} (best {best} "
                  f"{rec['metrics'][best]['acc']:.3f}) {rec['auto_time']:.1f}s", flush=True)


if __name__ == "__main__":
    main()
