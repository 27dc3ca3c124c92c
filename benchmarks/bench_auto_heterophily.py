"""``auto`` with the heterophily test (``beta="auto"``) against ``beta=0.5`` and k-means, along
the synthetic homophily sweep (``hypergraph_sbm(2000, 4, n_features=32)``, seeds 0-4).

Usage::

    HYPERCLUST_NUM_THREADS=1 python benchmarks/bench_auto_heterophily.py [--store PATH]

Prints a markdown table (mean ± std over seeds; labels only score). Rows go to the harness's
store (``--store``, default ``bench-out/auto_heterophily.json``, each row with its commit).
Results: docs/results/auto.md, "Heterophilic hyperedges".
"""

from __future__ import annotations

import argparse

from hyperclust.bench import (ResultStore, fmt_mean_std, markdown_row, markdown_table,
                              run_seeds, summarize)
from hyperclust.cluster.auto import AutoClusterer
from hyperclust.cluster.baselines import KMeansFeatures
from hyperclust.datasets import hypergraph_sbm
from hyperclust.metrics import evaluate

HOMOPHILY = (0.0, 0.1, 0.2, 0.3, 0.45, 0.6, 0.8)
SEEDS = 5
SCORES = ("auto_acc", "auto_nmi", "half_acc", "half_nmi", "kmeans_acc", "kmeans_nmi")


def measure(h):
    def at_seed(seed):
        hg = hypergraph_sbm(2000, 4, homophily=h, n_features=32, feature_snr=0.35,
                            random_state=seed)
        auto = AutoClusterer(4, random_state=seed).fit(hg)
        half = AutoClusterer(4, beta=0.5, random_state=seed).fit(hg)
        km = KMeansFeatures(4, random_state=seed).fit(hg)
        row = {"beta": float(auto.beta_), "t": float(auto.alignment_.t)}
        for name, est in (("auto", auto), ("half", half), ("kmeans", km)):
            m = evaluate(hg.labels, est.labels_)
            row[f"{name}_acc"], row[f"{name}_nmi"] = m["acc"], m["nmi"]
        return row
    return at_seed


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--store", default="bench-out/auto_heterophily.json")
    args = ap.parse_args(argv)
    store = ResultStore(args.store, key=("homophily", "seed"))
    head = ["h", "t (seed 0)", 'auto beta="auto" ACC', "NMI", "beta", "auto beta=.5 ACC", "NMI",
            "kmeans ACC", "NMI"]
    print("\n".join(markdown_table(head, [])))
    for h in HOMOPHILY:
        rows = run_seeds(measure(h), SEEDS, settings={"homophily": h}, store=store, echo=False)
        s = summarize(rows, ("homophily",), SCORES)[0]
        f = [fmt_mean_std(s[v], s[v + "_std"]) for v in SCORES]
        print(markdown_row([h, f"{rows[0]['t']:.1f}", f[0], f[1],
                            ",".join(str(r["beta"]) for r in rows), *f[2:]]), flush=True)


if __name__ == "__main__":
    main()
