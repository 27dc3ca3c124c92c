"""Do fits pay for the cache-friendly numbering? (issue 32: the order inside fits)

For each ``hsbm:N`` input (``hypergraph_sbm(N, 4, homophily=0.7)``, structure only) and
method, fits with the reordering off (``node_order.MIN_INCIDENCES`` above the input) and
on (at 0; a method the library does not opt in is opted in here), interleaved round by
round, one thread. Prints per run the CPU time (``process_time``) and AHCKA's iterations;
per method the CPU min and median of ``--rounds`` per setting, their ratio, the CPU of the
ordering and renumbered copy, and the ARI between the two settings' labels (the same
clustering up to the seeds' effect).

    OMP_NUM_THREADS=1 PYTHONPATH=src python benchmarks/studies/bench_fit_order.py \
        hsbm:1e5 hsbm:1e6 --methods spectral-zhou ahcka hgnn unidhc --rounds 3
"""

from __future__ import annotations

import argparse
import statistics
import time

from sklearn.metrics import adjusted_rand_score

from hyperclust.cluster import node_order
from hyperclust.cluster.registry import make_estimator
from hyperclust.datasets.synthetic import hypergraph_sbm
from hyperclust.cluster.node_order import fitting_copy
from hyperclust.hypergraph.ordering import cache_order
from hyperclust.runtime.threads import thread_limit


def fit_cpu(method, hg, reorder: bool):
    """``(cpu seconds, fitted estimator)`` of one fit with the reordering on or off."""
    node_order.MIN_INCIDENCES = 0 if reorder else hg.incidence.nnz + 1
    est = make_estimator(method, n_clusters=4, random_state=0)
    if not getattr(type(est), "_node_outputs", ()):  # not opted in: opted in for the study
        type(est)._node_outputs = ("labels_", "embedding_")
    c0 = time.process_time()
    est.fit(hg)
    return time.process_time() - c0, est


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("inputs", nargs="+")
    ap.add_argument("--methods", nargs="+", default=["spectral-zhou", "ahcka", "hgnn", "unidhc"])
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)
    print("input method nnz given_min given_med rcm_min rcm_med ratio copy_cpu ari")
    for spec in args.inputs:
        hg = hypergraph_sbm(int(float(spec[5:])), 4, homophily=0.7, n_features=0,
                            random_state=0)
        c0 = time.process_time()
        fitting_copy(hg, *cache_order(hg.incidence))
        copy_cpu = time.process_time() - c0
        for method in args.methods:
            times = {False: [], True: []}
            labels = {}
            with thread_limit(1):
                for _ in range(args.rounds):
                    for reorder in (False, True):
                        t, est = fit_cpu(method, hg, reorder)
                        labels[reorder] = est.labels_
                        times[reorder].append(t)
                        print(f"# {spec} {method} reorder={reorder} cpu {t:.3f} iterations "
                              f"{getattr(est, 'n_iter_', None)}", flush=True)
            g, r = times[False], times[True]
            print(f"{spec} {method} {hg.incidence.nnz} {min(g):.3f} {statistics.median(g):.3f} "
                  f"{min(r):.3f} {statistics.median(r):.3f} {min(r) / min(g):.3f} "
                  f"{copy_cpu:.3f} {adjusted_rand_score(labels[False], labels[True]):.4f}",
                  flush=True)


if __name__ == "__main__":
    main()
