"""Why the distributed AHCKA and the single process part at 10^6 nodes: the single process
fits on a reverse Cuthill-McKee renumbering from 2^21 incidences
(``AHCKA._cache_order_pays``, :mod:`hyperclust.cluster.node_order`), where its seeds (the
``k`` highest degrees, ties to the lower position) break a degree tie by the renumbered
position; the distributed fit breaks it by the given position (node rank).

On ``hypergraph_sbm(n, 4, homophily=0.7, random_state=0)`` prints the seeds in both
numberings, then fits ``AHCKA(4, random_state=0)`` twice: on the given numbering (the cache
order switched off on the instance) and as by default, with their stopping and best
iterations and first checks, and the ARI between the two; then a third fit on the
renumbered copy whose seeds break the tie by the given position (what the distributed fit
does; AHCKA's own steps, ``_start_block`` and ``adaptive_iterations``, called here with those
seeds). ``--json`` stores the checks of
both, to set beside ``bench_distributed_cpu.py``'s rows (which keep the distributed fit's).
Run as ``OMP_NUM_THREADS=1 HYPERCLUST_NUM_THREADS=1 PYTHONPATH=src python
benchmarks/studies/ahcka_cache_order_seeds.py --n 1000000``.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np


def seeds_in_both_numberings(hg, k: int):
    """``(given, renumbered)``: the seeds as given node indices."""
    from hyperclust.hypergraph.ordering import cache_order

    deg = np.asarray(hg.weighted_degrees, dtype=np.float64)
    order, _ = cache_order(hg.incidence)
    return (np.argsort(-deg, kind="stable")[:k],
            order[np.argsort(-deg[order], kind="stable")[:k]], deg)


def renumbered_with_given_ties(hg, k: int) -> dict:
    """AHCKA's steps on the cache-order copy, seeds tied by the given position."""
    from hyperclust.cluster.ahcka import AHCKA, _start_block, adaptive_iterations
    from hyperclust.cluster.node_order import fitting_copy
    from hyperclust.hypergraph.ordering import cache_order

    order, edge_order = cache_order(hg.incidence)
    copy = fitting_copy(hg, order, edge_order)
    walk = AHCKA(k).build_walk(copy)
    deg = np.asarray(copy.weighted_degrees, dtype=np.float64)
    seeds = np.lexsort((order, -deg))[:k]
    q, init = _start_block(walk, seeds, 0.2, 5)
    best, history, n_iter = adaptive_iterations(
        walk, q, init, k=k, start=int(seeds[0]), alpha=0.2, max_iter=200, check_interval=5,
        patience=3, n_hops=3)
    labels = np.empty(hg.n_nodes, dtype=np.int64)
    labels[order] = best[1]
    return {"labels": labels, "n_iter": n_iter, "best_iter": best[3], "history": history}


def main(argv=None) -> None:
    from sklearn.metrics import adjusted_rand_score

    from hyperclust.cluster.ahcka import AHCKA
    from hyperclust.cluster.node_order import wants_cache_order
    from hyperclust.datasets import hypergraph_sbm

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=1_000_000)
    p.add_argument("--json", help="store both fits' checks here")
    args = p.parse_args(argv)
    hg = hypergraph_sbm(args.n, 4, homophily=0.7, n_features=0, random_state=0)
    given, renumbered, deg = seeds_in_both_numberings(hg, 4)
    print(f"incidences {hg.incidence.nnz:,}; cache order by default: "
          f"{wants_cache_order(AHCKA(4), hg, {})}")
    print("seeds, given numbering:", given.tolist(), "degrees", deg[given].tolist())
    print("seeds, renumbered:     ", renumbered.tolist(), "degrees", deg[renumbered].tolist())
    print("nodes tied at the last seed's degree:", int(np.sum(deg == deg[given[-1]])))
    fits = {}
    for name in ("given", "default"):
        est = AHCKA(4, random_state=0)
        if name == "given":
            est._cache_order_pays = lambda hypergraph: False
        t0 = time.process_time()
        fits[name] = est.fit(hg)
        print(f"{name}: CPU {time.process_time() - t0:.1f} s, n_iter {est.n_iter_}, best "
              f"{est.best_iter_}, first checks {est.objective_history_[:3]}")
    print("ARI given vs default:",
          adjusted_rand_score(fits["given"].labels_, fits["default"].labels_))
    tied = renumbered_with_given_ties(hg, 4)
    print(f"renumbered, ties by given position: n_iter {tied['n_iter']}, best "
          f"{tied['best_iter']}, ARI to given "
          f"{adjusted_rand_score(fits['given'].labels_, tied['labels']):.6f}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({k: {"n_iter": v.n_iter_, "best_iter": v.best_iter_,
                           "history": v.objective_history_} for k, v in fits.items()}, f)


if __name__ == "__main__":
    main()
