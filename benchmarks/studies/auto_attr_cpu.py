"""CPU seconds of every part of ``auto`` on the hypergraph SBM with 32 attributes and without
(issue 32: the attributed fit's cost outside the kNN search).

Usage::

    PYTHONPATH=<tree>/src OMP_NUM_THREADS=1 HYPERCLUST_NUM_THREADS=1 \\
        python benchmarks/studies/auto_attr_cpu.py [--n 1e5] [--knn library|ivf4] \\
        [--runs 1] [--seeds 0] [--out rows.json] [--settings attributed]

The input is ``hypergraph_sbm(n, 4, homophily=0.7, n_features=32, random_state=0)``; the
structure-only fit gets the same hypergraph without its features. ``AutoClusterer(4,
random_state=seed)`` is fitted with the clock of ``fit_times_`` switched to
``time.process_time`` (CPU seconds of this process per candidate fit, per kNN search).
``--knn ivf4`` replaces every cosine kNN search by the cheap faiss IVF search of
``knn_recall_need.py`` (nprobe 4, re-ranked exactly), so that the rest can be timed at
10^6 without the library's ~400 CPU s search; the graph then differs, so the candidates'
times are those on that graph. Printed per run: total CPU, the kNN CPU, the rest, and every
entry of ``fit_times_`` in CPU seconds, the pick, its ACC/NMI to the planted classes (for
the report only) and whether the kNN screen ran the accurate search (``accurate_knn_``;
absent before the screen).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
import types
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # knn_recall_need


def _cpu_clock():
    """Make ``fit_times_`` CPU seconds: the candidate and kNN timers read process_time."""
    import hyperclust.cluster.auto as auto
    import hyperclust.cluster.candidates as candidates

    clock = types.SimpleNamespace(perf_counter=time.process_time)
    auto.time = candidates.time = clock


def _cheap_knn(name):
    from hyperclust.operators import neighbors as nb
    from knn_recall_need import variant_search

    search = variant_search(name)
    nb.cosine_knn = (lambda X, n_neighbors=10, *, method="auto", exact_max_nodes=None,
                     random_state=0: search(X, n_neighbors, random_state))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=float, default=1e5)
    ap.add_argument("--knn", default="library", help="library, or a knn_recall_need variant")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--seeds", type=int, nargs="+", default=[0])
    ap.add_argument("--out", default=None)
    ap.add_argument("--settings", nargs="+", default=["structure-only", "attributed"])
    args = ap.parse_args(argv)
    from hyperclust import Hypergraph
    from hyperclust.bench.provenance import load_average
    from hyperclust.cluster.auto import AutoClusterer
    from hyperclust.datasets import hypergraph_sbm
    from hyperclust.metrics import acc, nmi

    _cpu_clock()
    if args.knn != "library":
        _cheap_knn(args.knn)
    import hyperclust
    commit = subprocess.run(["git", "-C", str(Path(hyperclust.__file__).parent), "rev-parse",
                             "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    print(f"library {hyperclust.__file__} (git {commit}); knn {args.knn}; load before "
          f"{load_average()}", flush=True)
    hg = hypergraph_sbm(int(args.n), 4, homophily=0.7, n_features=32, random_state=0)
    plain = Hypergraph(hg.incidence, weights=hg.weights)
    rows = []
    for run, seed, (name, data) in ((r, s, d) for r in range(args.runs) for s in args.seeds
                                    for d in (("structure-only", plain), ("attributed", hg))):
        if name not in args.settings:
            continue
        c0 = time.process_time()
        est = AutoClusterer(4, random_state=seed).fit(data)
        cpu = time.process_time() - c0
        knn = sum(v for k, v in est.fit_times_.items() if k.startswith("knn"))
        quality = {"acc": acc(hg.labels, est.labels_), "nmi": nmi(hg.labels, est.labels_)}
        rows.append({"setting": name, "run": run, "seed": seed, "cpu": cpu, "knn": knn,
                     "selected": est.selected_, "fit_times": est.fit_times_, **quality,
                     "accurate_knn": getattr(est, "accurate_knn_", None)})
        print(f"# {name} seed {seed}: {cpu:.1f} CPU s, kNN {knn:.1f}, rest {cpu - knn:.1f}, "
              f"selected {est.selected_} (ACC {quality['acc']:.4f}, NMI {quality['nmi']:.4f}, "
              f"accurate search {rows[-1]['accurate_knn']}), fit_times_ CPU "
              f"{ {k: round(v, 2) for k, v in est.fit_times_.items()} }", flush=True)
    print(f"load after {load_average()}")
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(rows, fh)


if __name__ == "__main__":
    main()
