"""Where ``auto``'s CPU time goes: one profile of ``AutoClusterer`` fits, split by part.

Usage::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 HYPERCLUST_NUM_THREADS=1 \\
        python benchmarks/studies/auto_cpu_split.py [--dataset cora-ca] [--seeds 5]

Profiles ``AutoClusterer(k, random_state=seed).fit`` for each seed (after one warm-up fit)
with a ``process_time`` timer and prints, per part (each candidate method's ``fit``, the kNN
search, the held-out scoring, the splits), its cumulative CPU seconds and calls per fit.
The profiler inflates every part, so the parts compare with each other, not with a plain
timing. Results: docs/results/auto.md, "Time (item 1)" of issue 30, step 6.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import time
from pathlib import Path

from hyperclust.cluster import AutoClusterer
from hyperclust.datasets import load_dataset

DATA = Path(os.environ.get("HYPERCLUST_DATA",
                           Path(__file__).resolve().parents[3] / "shared" / "data"))

#: ``(part, file the function is in, function name)``.
PARTS = (("AHCKA.fit (split fits + refit)", "cluster/ahcka.py", "fit"),
         ("HGNNSmoothingKMeans.fit (hgnn, hgnn-mixed, hsbm's start)", "cluster/baselines.py",
          "fit"),
         ("SpectralHypergraphClustering.fit", "cluster/spectral.py", "fit"),
         ("HypergraphSBM.fit", "cluster/hsbm.py", "fit"),
         ("  of which choosing its attribute weight", "cluster/hsbm.py", "_choose_weight"),
         ("knn_affinity (kNN search)", "operators/neighbors.py", "knn_affinity"),
         ("heldout_terms (held-out scoring)", "cluster/hsbm_heldout.py", "heldout_terms"),
         ("split_hypergraph", "cluster/hsbm_heldout.py", "split_hypergraph"))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dataset", default="cora-ca")
    ap.add_argument("--seeds", type=int, default=5)
    args = ap.parse_args(argv)
    hg = load_dataset(args.dataset, data_dir=str(DATA))
    k = hg.n_classes
    AutoClusterer(k).fit(hg)  # warm-up (imports, BLAS initialisation)
    profile = cProfile.Profile(timer=time.process_time)
    c0 = time.process_time()
    profile.enable()
    for seed in range(args.seeds):
        AutoClusterer(k, random_state=seed).fit(hg)
    profile.disable()
    print(f"{args.dataset}: {(time.process_time() - c0) / args.seeds:.3f} CPU s per fit "
          f"(profiled), load average {open('/proc/loadavg').read().split()[:3]}")
    stats = pstats.Stats(profile).stats
    for part, path, name in PARTS:
        hits = [v for (f, _, n), v in stats.items() if f.endswith(path) and n == name]
        print(f"{part:58s} CPU s {sum(v[3] for v in hits) / args.seeds:.3f}  "
              f"calls {sum(v[1] for v in hits) / args.seeds:.1f}")


if __name__ == "__main__":
    main()
