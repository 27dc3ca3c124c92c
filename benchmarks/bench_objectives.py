"""Do the label-free objectives rank clusterings the way the labels do?

Usage (after ``bench_pool.py``)::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 \\
        python benchmarks/bench_objectives.py [--out docs/results/objectives.md]

Candidates per dataset: every cached clustering of ``bench_pool.py`` (7 auto candidates +
Uni-DHC outside hsbm, x 5 seeds) plus perturbed copies of each seed's ``ahcka`` and ``hgnn``
clusterings (a seeded random 5%, 10%, 20% or 40% of the nodes moved to uniform random
clusters). Every candidate is scored by every objective variant of ``benchmarks/_pool.py``;
per dataset we report Spearman's rho and Kendall's tau between ``-objective`` and ACC
(positive = the objective agrees with the labels), over all candidates and over the method
clusterings alone (no perturbations: the hard case). Scores land in
the store ``bench-out/scores.json`` for ``bench_auto.py`` (a run replaces all its rows).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy.stats import kendalltau, spearmanr

from hyperclust.bench import group_rows, markdown_table, write_markdown
from hyperclust.metrics import acc, nmi

try:
    from _pool import OUT, ROOT, Scorer, load_labels, load_runs, load_scores, scores_store
except ImportError:  # run as a module
    from benchmarks._pool import (OUT, ROOT, Scorer, load_labels, load_runs, load_scores,
                                  scores_store)

PERTURB = (0.05, 0.1, 0.2, 0.4)
MAIN = ("rwr", "rwr-min", "ncut", "knn")


def perturb(labels, frac, seed):
    rng = np.random.default_rng(seed)
    out = labels.copy()
    move = rng.random(labels.size) < frac
    out[move] = rng.integers(labels.max() + 1, size=move.sum())
    return out


def compute_scores(runs):
    records = []
    for (dataset, seed) in sorted(runs):
        y, labels = load_labels(dataset, seed)
        sc = Scorer(dataset, seed)
        cands = {m: (lab, 0.0) for m, lab in labels.items()}
        for base in ("ahcka", "hgnn"):
            for i, p in enumerate(PERTURB):
                cands[f"{base}~{p}"] = (perturb(labels[base], p, 1000 * seed + i), p)
        for m, (lab, p) in cands.items():
            rec = {"dataset": dataset, "seed": seed, "method": m, "perturbed": p,
                   "acc": acc(y, lab), "nmi": nmi(y, lab), "scores": sc.variants(lab)}
            records.append(rec)
    return records


def correlations(records, variant):
    xs = [(-r["scores"][variant], r["acc"]) for r in records if r["scores"][variant] is not None]
    if len(xs) < 3:
        return None, None, len(xs)
    a, b = np.array(xs).T
    if np.ptp(a) == 0 or np.ptp(b) == 0:
        return None, None, len(xs)
    return spearmanr(a, b)[0], kendalltau(a, b)[0], len(xs)


def fmt(v):
    return "" if v is None else f"{v:+.2f}"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "docs" / "results" / "objectives.md"))
    ap.add_argument("--reuse", action="store_true", help="reuse bench-out/scores.json")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    if args.reuse:
        records = load_scores()
    else:
        records = compute_scores(load_runs())
        store = scores_store()
        store.remove(store.runs)
        store.add(records)
    variants = list(records[0]["scores"])
    head = ["dataset", "candidates"] + [f"{v} rho / tau" for v in MAIN]
    cells, cells_m = [], []
    summary = {v: {"all": [], "methods": []} for v in variants}
    for (d,), rs in group_rows(records, ("dataset",)).items():
        rm = [r for r in rs if r["perturbed"] == 0.0]
        row, row_m = [], []
        for v in variants:
            s, t, n = correlations(rs, v)
            sm, tm, nm = correlations(rm, v)
            if s is not None:
                summary[v]["all"].append(s)
            if sm is not None:
                summary[v]["methods"].append(sm)
            if v in MAIN:
                row.append(f"{fmt(s)} / {fmt(t)}")
                row_m.append(f"{fmt(sm)} / {fmt(tm)}")
        cells.append([d, len(rs), *row])
        cells_m.append([d, len(rm), *row_m])
    # np.mean, not mean_std: a NaN rho must show, not be dropped
    var_cells = [[v, f"{np.mean(summary[v]['all']):+.3f}", f"{np.mean(summary[v]['methods']):+.3f}",
                  len(summary[v]["methods"])] for v in variants]
    lines = ["## All candidates (methods + perturbed copies)", *markdown_table(head, cells), "",
             "## Method clusterings only (5 seeds x 7-8 methods)",
             *markdown_table(head, cells_m), "",
             "## Every variant, mean Spearman rho over datasets",
             *markdown_table(["objective", "mean rho, all candidates", "mean rho, methods only",
                              "datasets"], var_cells)]
    print("\n".join(lines) + "\n")
    print(f"({time.perf_counter() - t0:.0f} s)")
    write_markdown(OUT / "objectives_tables.md", lines)

if __name__ == "__main__":
    main()
