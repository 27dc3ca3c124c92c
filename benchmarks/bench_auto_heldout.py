"""``auto`` selecting by held-out prediction, on the shared labelled sets and the synthetic
sweep, with every candidate and the truth scored by the same held-out error.

Usage::

    HYPERCLUST_NUM_THREADS=1 python benchmarks/bench_auto_heldout.py --sets shared [--seeds 5]
    HYPERCLUST_NUM_THREADS=1 python benchmarks/bench_auto_heldout.py --sets sweep

Per (set, seed): ``AutoClusterer(k, random_state=seed)`` (labels only score); the ACC / NMI
of its output (the pick refitted on all the data) and of every candidate's fit on the
training part; the held-out error of each candidate and of the true labelling; the rank
correlation (Spearman) of error and ACC over the candidates. On the sweep
(``hypergraph_sbm(2000, 4, h, n_features=32)``) every candidate is also fitted on all the
data, and k-means on the attributes, so the targets compare like with like. Rows go to
``--store`` (default ``bench-out/auto_heldout_<sets>.json``, each with its commit); the
tables are printed as markdown (mean ± std over seeds).
"""

from __future__ import annotations

import argparse

import numpy as np
from scipy.stats import spearmanr

from hyperclust.bench import ResultStore, fmt_mean_std, markdown_row, markdown_table, mean_std, \
    run_seeds
from hyperclust.cluster.auto import AutoClusterer
from hyperclust.cluster.candidates import make_candidate
from hyperclust.cluster.hsbm_heldout import heldout_error
from hyperclust.datasets import hypergraph_sbm, load_dataset
from hyperclust.metrics import evaluate

try:
    from _pool import DATA
except ImportError:
    from benchmarks._pool import DATA

SHARED = ("zoo", "mushroom", "cora-ca", "cora-cc", "citeseer-cc", "pubmed-cc-tricl",
          "20newsw100", "contact-high-school-classes", "house-committees", "senate-committees",
          "hsbm-edge-0.7", "hsbm-edge-0.8", "hsbm-edge-0.9", "hsbm-node-0.7", "hsbm-node-0.8",
          "hsbm-node-0.9")
SWEEP = tuple(round(0.1 * i, 1) for i in range(11))


def _dataset(name, seed):
    if name.startswith("h="):
        return hypergraph_sbm(2000, 4, homophily=float(name[2:]), n_features=32,
                              feature_snr=0.35, random_state=seed)
    return load_dataset(name, data_dir=str(DATA))


def measure(name, full_candidates):
    def at_seed(seed):
        hg = _dataset(name, seed)
        y = np.asarray(hg.labels)
        k = int(np.unique(y[y >= 0]).size)
        est = AutoClusterer(k, random_state=seed).fit(hg)
        m = evaluate(y, est.labels_)
        row = {"acc": m["acc"], "nmi": m["nmi"], "selected": est.selected_,
               "scores": est.scores_, "truth_score": heldout_error(est.split_, y),
               "train_acc": {c: evaluate(y, v)["acc"] for c, v in est.candidates_.items()},
               "fit_s": sum(est.fit_times_.values())}
        accs = row["train_acc"]
        row["spearman"] = float(spearmanr([est.scores_[c] for c in accs],
                                          [accs[c] for c in accs]).correlation) \
            if len(set(accs.values())) > 1 else None
        if full_candidates:
            row["full_acc"] = {}
            for c in est.scores_:
                cand = make_candidate(c, k, seed, {"beta": est.beta_, "n_neighbors": 10,
                                                   "knn_method": "auto"})[0].fit(hg)
                row["full_acc"][c] = evaluate(y, cand.labels_)["acc"]
        return row
    return at_seed


def ms(values):
    return fmt_mean_std(*mean_std(values))


def report(name, rows):
    picks = {}
    for r in rows:
        picks[r["selected"]] = picks.get(r["selected"], 0) + 1
    cands = rows[0]["train_acc"].keys()
    best_train = max(cands, key=lambda c: np.mean([r["train_acc"][c] for r in rows]))
    cells = [name, ms([r["acc"] for r in rows]), ms([r["nmi"] for r in rows]),
             ", ".join(f"{c} x{n}" for c, n in sorted(picks.items(), key=lambda kv: -kv[1])),
             f"{best_train} {np.mean([r['train_acc'][best_train] for r in rows]):.3f}",
             f"{np.nanmedian([r['spearman'] for r in rows if r['spearman'] is not None]):+.2f}"
             if any(r["spearman"] is not None for r in rows) else "",
             f"{sum(r['truth_score'] < min(r['scores'].values()) for r in rows)}/{len(rows)}"]
    if "full_acc" in rows[0]:
        best_full = max(cands, key=lambda c: np.mean([r["full_acc"][c] for r in rows]))
        cells += [f"{best_full} {np.mean([r['full_acc'][best_full] for r in rows]):.3f}",
                  ms([r["full_acc"]["kmeans"] for r in rows]) if "kmeans" in rows[0]["full_acc"]
                  else ""]
    return markdown_row(cells)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", choices=("shared", "sweep"), default="shared")
    ap.add_argument("--only", nargs="*", help="a subset of the sets (names, or h=0.3)")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--store")
    args = ap.parse_args(argv)
    sweep = args.sets == "sweep"
    names = args.only or ([f"h={h}" for h in SWEEP] if sweep else SHARED)
    store = ResultStore(args.store or f"bench-out/auto_heldout_{args.sets}.json",
                        key=("dataset", "seed"))
    head = ["set", "auto ACC", "auto NMI", "picked", "best candidate (train fit, mean ACC)",
            "Spearman(error, ACC), median", "truth below every candidate"]
    if sweep:
        head += ["best candidate (full fit, mean ACC)", "k-means on X ACC"]
    print("\n".join(markdown_table(head, [])), flush=True)
    for name in names:
        rows = run_seeds(measure(name, sweep), args.seeds, settings={"dataset": name},
                         store=store, echo=False)
        print(report(name, rows), flush=True)


if __name__ == "__main__":
    main()
