"""Where ``hsbm``'s attributed fit spends its CPU time (issue 32): the nested hold-out split,
EM's k-means start, the attribute reduction, each EM run of the weight grid (weight,
iterations, CPU s), the held-out scores and the final EM.

Usage::

    PYTHONPATH=<tree>/src OMP_NUM_THREADS=1 HYPERCLUST_NUM_THREADS=1 \\
        python benchmarks/studies/hsbm_attr_phases.py [--n 1e5] [--structure]

The input is ``hypergraph_sbm(n, 4, homophily=0.7, n_features=32, random_state=0)``. Two fits,
as ``auto`` makes them: ``HypergraphSBM(4, n_init=5)`` on the training part of ``auto``'s first
hold-out split (``split_hypergraph(hg, random_state=0)``), then ``HypergraphSBM(4)`` on all
of it (the refit of the pick); ``--structure`` adds the split fit without the features. The
phases are timed by wrapping the module's functions (``time.process_time``); the last EM
run of each fit is the final one.
"""

from __future__ import annotations

import argparse
import time


def _timed(store, key, fn):
    def wrapped(*args, **kwargs):
        c0 = time.process_time()
        out = fn(*args, **kwargs)
        store.setdefault(key, []).append(round(time.process_time() - c0, 2))
        return out
    return wrapped


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=float, default=1e5)
    ap.add_argument("--structure", action="store_true")
    args = ap.parse_args(argv)
    from hyperclust import Hypergraph
    from hyperclust.bench.provenance import load_average
    from hyperclust.cluster import hsbm
    from hyperclust.cluster.hsbm_heldout import split_hypergraph
    from hyperclust.datasets import hypergraph_sbm

    print(f"library {hsbm.__file__}; load before {load_average()}", flush=True)
    phases = {}
    for name in ("split_hypergraph", "_initial_labels", "heldout_error", "_attribute_rows"):
        setattr(hsbm, name, _timed(phases, name, getattr(hsbm, name)))
    em = hsbm.HypergraphSBM._em

    def timed_em(self, operands, k, gamma, Q, **kwargs):
        c0 = time.process_time()
        out = em(self, operands, k, gamma, Q, **kwargs)
        phases.setdefault("em (weight, iterations, CPU s)", []).append(
            (gamma, out[1], round(time.process_time() - c0, 2)))
        return out
    hsbm.HypergraphSBM._em = timed_em
    hg = hypergraph_sbm(int(args.n), 4, homophily=0.7, n_features=32, random_state=0)
    train = split_hypergraph(hg, random_state=0).train
    fits = [("split fit, attributed, n_init 5", train, 5), ("refit, attributed", hg, 10)]
    if args.structure:
        fits.append(("split fit, structure-only, n_init 5",
                     Hypergraph(train.incidence, weights=train.weights), 5))
    for label, data, n_init in fits:
        phases.clear()
        c0 = time.process_time()
        est = hsbm.HypergraphSBM(4, n_init=n_init, random_state=0).fit(data)
        print(f"{label}: {time.process_time() - c0:.2f} CPU s, weight "
              f"{est.attribute_weight_}, phases {phases}", flush=True)
    print(f"load after {load_average()}")


if __name__ == "__main__":
    main()
