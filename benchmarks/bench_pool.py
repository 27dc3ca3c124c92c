"""Candidate clusterings of every labelled shared set, cached for the objective and ``auto``
studies (``bench_objectives.py``, ``bench_auto.py``).

Usage (background, one BLAS thread)::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 \\
        nice python benchmarks/bench_pool.py --seeds 5 [--datasets cora-ca,zoo] [--unidhc]

For each dataset and seed it fits ``AutoClusterer`` with every candidate (so the labels,
scores and fit times are exactly those ``auto`` sees) and, with ``--unidhc``, Uni-DHC; the
labels land in ``bench-out/pool/<dataset>/seed<k>.npz`` (ignored by git) and a row of
ACC/NMI/times per run in the harness's store ``bench-out/pool/runs.json`` (with its commit; a
rerun replaces the rows of its datasets and seeds). Labels only score; they never reach a
method.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from hyperclust.bench import run_seeds
from hyperclust.cluster.auto import CANDIDATES, AutoClusterer
from hyperclust.datasets import load_dataset
from hyperclust.metrics import evaluate

try:
    from _pool import DATA, POOL, pool_store
except ImportError:
    from benchmarks._pool import DATA, POOL, pool_store

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
    folder = POOL / name
    folder.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(folder / f"seed{seed}.npz", y=y, **{f"L_{m}": v for m, v in labels.items()})
    return {"dataset": name, "seed": seed, "n": hg.n_nodes, "k": k,
           "features": hg.features is not None, "auto_time": t_auto, "times": times,
           "selected": auto.selected_, "scores": auto.scores_,
           "metrics": {m: evaluate(y, v) for m, v in labels.items()},
           "loadavg": open("/proc/loadavg").read().split()[:3],
           "threads": os.environ.get("OMP_NUM_THREADS")}


def progress(rec: dict) -> str:
    """One line per run: what ``auto`` picked against the best candidate."""
    best = max(rec["metrics"], key=lambda m: rec["metrics"][m]["acc"])
    return (f"{rec['dataset']} seed {rec['seed']}: auto -> {rec['selected']} "
            f"acc {rec['metrics'][rec['selected']]['acc']:.3f} (best {best} "
            f"{rec['metrics'][best]['acc']:.3f}) {rec['auto_time']:.1f}s")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--datasets", default=",".join(ALL))
    ap.add_argument("--unidhc", action="store_true", help="also fit Uni-DHC (slow)")
    args = ap.parse_args(argv)
    store = pool_store()
    for name in args.datasets.split(","):
        with_unidhc = args.unidhc and not name.startswith("hsbm")

        def at_seed(seed):
            rec = run(name, seed, with_unidhc)
            print(progress(rec), flush=True)
            return rec

        run_seeds(at_seed, args.seeds, store=store, echo=False)


if __name__ == "__main__":
    main()
