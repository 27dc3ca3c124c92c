"""How much does a coarse kNN graph understate ``auto``'s graph-fitted candidates (issue 32)?

For each (input, seed), ``auto``'s first hold-out split is fitted as ``AutoClusterer(k,
random_state=seed)`` fits it, twice over for the candidates that walk on the kNN graph
(``ahcka``, ``hgnn-mixed``, ``spectral-zhou-mixed``): as the screen fits them (on the
coarse graph, :func:`~hyperclust.operators.knn.coarse_knn_affinity` with ``--probes`` lists
per query, at most ``SCREEN_MAX_ITER`` iterations; ``knn_screen.coarse_fit``) and
on the graph of the library's own search (exact below the crossover, HNSW above: what
``auto`` uses today); the other candidates once. Every candidate is scored on the held-out
split both ways (non-graph candidates' errors move a little too: the precision weights pool
over all candidates). Per graph-fitted candidate: its error minus the leader's and the
paired standard error (``gap``, ``se``, ``z = gap / se``) on each graph, and whether today's
race (on the accurate graph) keeps it after the first split. Labels only for the reported
ACC; no choice reads them.

The screen is safe at margin ``M`` (paired SEs) if every candidate today's race keeps, or
that leads, has ``z_coarse <= M``; it skips the search on an input if every graph-fitted
candidate has ``z_coarse > M``. Printed: one JSON row per (input, seed), then per input the
largest ``z_coarse`` of a kept candidate (the margin needed) and the smallest ``z_coarse``
(the margin under which the search is skipped).

    OMP_NUM_THREADS=1 HYPERCLUST_NUM_THREADS=1 PYTHONPATH=src \\
        python benchmarks/studies/auto_screen.py --sets cora-ca citeseer-cc sbm1e5 \\
        --seeds 0 1 2 --out bench-out/auto_screen.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))  # knn_recall_need


def first_split_both(hg, k, seed, probes):
    """The row of one (input, seed): see the module docstring."""
    import hyperclust.operators.knn as knn
    from hyperclust.cluster.auto import (AutoClusterer, RaceRule, first_survivors,
                                         holdout_splits, resolve_beta)
    from hyperclust.cluster.auto._fitting import Fits, Settings, fit_round, score
    from hyperclust.cluster.auto.screen import coarse_fit, graph_fitted, screen_gaps
    from hyperclust.cluster.hsbm_heldout import paired_standard_errors
    from hyperclust.metrics import acc
    from hyperclust.selection.loop import rank_candidates

    knn.COARSE_PROBES = probes
    est = AutoClusterer(k, random_state=seed)
    beta, alignment = resolve_beta(hg, est.beta)
    heterophilic = bool(alignment is not None and alignment.heterophilic)
    names = est._candidate_names(True, heterophilic)
    split = holdout_splits(hg, "heldout", est.holdout_share, est.n_splits, seed)[0]
    s = Settings(k, seed, beta, est.n_neighbors, est.knn_method, est.view_weights, est.alpha,
                 est.n_hops, est.balance, heterophilic, est.split_n_init, est.split_max_iter,
                 est.split_tol)
    rule = RaceRule(est.race, est.race_margin, est.race_se, est.race_indifference)
    graph, out = graph_fitted(names), {}
    c0 = time.process_time()
    coarse = coarse_fit(s, split.train, split, names)
    fine = fit_round(s, split.train, split, graph).labels
    cpu = time.process_time() - c0
    accurate = score(s, split.train, split, Fits(
        {c: (fine if c in graph else coarse.labels)[c] for c in coarse.labels}, {}, {}))
    labels = {"coarse": coarse.labels, "accurate": accurate.labels}
    for kind, fits in (("coarse", coarse), ("accurate", accurate)):
        lead = rank_candidates(fits.labels, fits.scores, k).order[0]
        se = paired_standard_errors(split, fits.labels, lead, est.view_weights, fits.memo)
        out[kind] = {"lead": lead, "race": first_survivors(s, fits, split, rule),
                     "gaps": {c: [g, e, g / e if e else 0.0]
                              for c, (g, e) in screen_gaps(fits.scores, se, lead, graph).items()},
                     "errors": {c: float(e) for c, e in fits.scores.items()}}
    times = s.times
    y = np.asarray(hg.labels)
    return {"n": hg.n_nodes, "seed": seed, "probes": probes,
            "knn_cpu": {c: round(times[c], 2) for c in ("knn", "knn-screen") if c in times},
            "cpu": round(cpu, 1),
            "acc": {c: [round(acc(y, labels[kind][c]), 4) for kind in labels] for c in graph
                    if c in labels["coarse"]}, **out}


def summary(name, rows):
    """The margin each input needs and the one under which it skips the search."""
    need, skip = [], []
    for r in rows:
        acc_kept = set(r["accurate"]["race"]) | {r["accurate"]["lead"]}
        z = {c: v[2] for c, v in r["coarse"]["gaps"].items()}
        need += [z[c] for c in z if c in acc_kept]
        skip.append(min(z.values()))
    print(f"{name}: margin needed (largest z on the coarse graph of a candidate today's race "
          f"keeps) {max(need) if need else float('-inf'):.2f}; search skipped below margin "
          f"{min(skip):.2f} (smallest z per seed: {', '.join(f'{s:.1f}' for s in skip)})",
          flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", nargs="+", default=["cora-ca", "citeseer-cc"])
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    ap.add_argument("--probes", type=int, default=2)
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    import faiss
    from knn_recall_need import load_input

    faiss.omp_set_num_threads(1)
    for name in args.sets:
        hg, y = load_input(name)
        rows = []
        for seed in args.seeds:
            row = {"set": name, **first_split_both(hg, int(np.unique(y).size), seed,
                                                   args.probes)}
            rows.append(row)
            print(json.dumps(row), flush=True)
            if args.out:
                with open(args.out, "a") as fh:
                    fh.write(json.dumps(row) + "\n")
        summary(name, rows)


if __name__ == "__main__":
    main()
