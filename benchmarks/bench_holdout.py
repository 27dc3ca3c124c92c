"""``auto``'s selection rule judged on hypergraphs it was never tuned on.

Usage (one BLAS thread; ~10 minutes on 2 cores)::

    HYPERCLUST_NUM_THREADS=1 python benchmarks/bench_holdout.py [--seeds 2] [--pools holdout,third]
    python benchmarks/bench_holdout.py --report      # tables only, from the store

``auto``'s selector (``rwr-min``) and every other rule of ``study_selectors.picks`` were
compared on the shared sets (``bench-out/pool``), the same sets the selector was chosen on.
This script builds labelled hypergraphs that no choice of this package has seen, with the two
constructions of the benchmark literature (:func:`hyperclust.datasets.hypergraph_from_features`):

* pool ``holdout``: scikit-learn's bundled iris, wine, breast_cancer and digits (features
  standardised) with quartile attribute-value hyperedges (``values``, as zoo/mushroom) and
  5-NN hyperedges (``knn``, as ModelNet40/NTU2012); and the shared attributed sets' features
  with 5-NN hyperedges in place of their own;
* pool ``third``: the same four tables with quintile bins and 10-NN hyperedges, two planted
  hypergraphs with other parameters than the synthetic sweep, and the seven shared attributed
  sets without their features (structure-only).

For every (set, seed) it fits ``AutoClusterer`` (labels only score), replays every rule over
the candidates, and stores one row per (pool, set, seed) with each candidate's ACC/NMI and
each rule's pick (``docs/results/holdout.json``, with its commit). The report is the mean
ACC gap to the best candidate per rule and pool (datasets weighted equally), the share of
settings within .02, and a paired bootstrap of each rule against ``rwr-min`` over the
datasets of all pools, the shared pool included when ``bench-out/pool`` exists.
Tables: docs/results/holdout.md (written by this script); discussion: docs/results/auto.md,
"Hold-out study".
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from hyperclust.bench import ResultStore, group_rows, markdown_table, write_markdown
from hyperclust.cluster.auto import AutoClusterer
from hyperclust.datasets import hypergraph_from_features, hypergraph_sbm, load_dataset
from hyperclust.metrics import evaluate

try:
    from _pool import DATA, OUT, load_labels, load_runs
    from study_selectors import picks
except ImportError:
    from benchmarks._pool import DATA, OUT, load_labels, load_runs
    from benchmarks.study_selectors import picks

ROOT = Path(__file__).resolve().parents[1]
STORE = ROOT / "docs" / "results" / "holdout.json"
REPORT = ROOT / "docs" / "results" / "holdout.md"
TABLES = ("iris", "wine", "breast_cancer", "digits")
SHARED_ATTRIBUTED = ("zoo", "mushroom", "cora-ca", "cora-cc", "citeseer-cc", "pubmed-cc-tricl",
                     "20newsw100")


def _table(name):
    from sklearn import datasets
    from sklearn.preprocessing import StandardScaler
    X, y = getattr(datasets, f"load_{name}")(return_X_y=True)
    return StandardScaler().fit_transform(X), y


def _from_table(name, construction, **kw):
    X, y = _table(name)
    return hypergraph_from_features(X, construction=construction, labels=y, **kw)


def _shared_knn(name):
    base = load_dataset(name, data_dir=str(DATA))
    return hypergraph_from_features(base.features, construction="knn", n_neighbors=5,
                                    labels=base.labels)


def _shared_structure(name):
    return load_dataset(name, data_dir=str(DATA)).replace(features=None)


def pool_sets(pool):
    """``[(set name, builder)]`` of one pool; a builder returns the labelled hypergraph."""
    if pool == "holdout":
        out = [(f"{t}-values4", lambda t=t: _from_table(t, "values", n_bins=4)) for t in TABLES]
        out += [(f"{t}-knn5", lambda t=t: _from_table(t, "knn", n_neighbors=5)) for t in TABLES]
        out += [(f"{d}-knn5", lambda d=d: _shared_knn(d)) for d in SHARED_ATTRIBUTED
                if d != "cora-cc"]   # cora-cc has cora-ca's features
        return out
    if pool == "third":
        out = [(f"{t}-values5", lambda t=t: _from_table(t, "values", n_bins=5)) for t in TABLES]
        out += [(f"{t}-knn10", lambda t=t: _from_table(t, "knn", n_neighbors=10)) for t in TABLES]
        for h, k, snr in ((0.5, 6, 0.5), (0.7, 3, 0.25)):
            for g in range(2):
                out.append((f"sbm-h{h}-k{k}-snr{snr}-g{g}",
                            lambda h=h, k=k, snr=snr, g=g: hypergraph_sbm(
                                3000, k, homophily=h, n_features=16, feature_snr=snr,
                                random_state=100 + g)))
        out += [(f"{d}-structure", lambda d=d: _shared_structure(d)) for d in SHARED_ATTRIBUTED]
        return out
    raise SystemExit(f"unknown pool {pool!r}: use holdout or third")


def run_pool(pool, seeds, store):
    for name, build in pool_sets(pool):
        hg = build()
        k = int(np.unique(hg.labels[hg.labels >= 0]).size)
        for seed in range(seeds):
            est = AutoClusterer(k, random_state=seed).fit(hg)
            names = [c for c in est.candidates_ if c in est.scores_]
            metrics = {c: evaluate(hg.labels, est.candidates_[c]) for c in names}
            row = {"pool": pool, "dataset": name, "seed": seed,
                   "acc": {c: metrics[c]["acc"] for c in names},
                   "nmi": {c: metrics[c]["nmi"] for c in names},
                   "picks": picks(est.candidates_, est.scores_, names),
                   "alignment_t": None if est.alignment_ is None else float(est.alignment_.t)}
            store.add(row)
            print(f"{pool} {name} seed {seed}: auto picked {est.selected_} "
                  f"(ACC {row['acc'][est.selected_]:.3f}, best {max(row['acc'].values()):.3f})",
                  flush=True)


def shared_rows():
    """The shared pool's settings as rows of the same shape (empty without the pool)."""
    try:
        runs = load_runs()
    except SystemExit:
        return []
    rows = []
    for (dataset, seed), run in sorted(runs.items()):
        _, labels = load_labels(dataset, seed)
        names = [c for c in run["scores"] if c in labels]
        rows.append({"pool": "shared", "dataset": dataset, "seed": seed,
                     "acc": {c: run["metrics"][c]["acc"] for c in names},
                     "picks": picks(labels, {c: run["scores"][c] for c in names}, names)})
    return rows


def dataset_gaps(rows):
    """``{rule: {(pool, dataset): mean gap over seeds}}`` and ``{rule: [per-setting gaps]}``."""
    per, settings = {}, {}
    for r in rows:
        best = max(r["acc"].values())
        for rule, chosen in r["picks"].items():
            gap = best - r["acc"][chosen]
            per.setdefault(rule, {}).setdefault((r["pool"], r["dataset"]), []).append(gap)
            settings.setdefault(rule, {}).setdefault(r["pool"], []).append(gap)
    return ({rule: {k: float(np.mean(v)) for k, v in d.items()} for rule, d in per.items()},
            settings)


def paired_bootstrap(a, b, n_boot=10000, seed=0):
    """Mean of ``a - b`` over datasets and its 95% bootstrap interval."""
    d = np.asarray(a) - np.asarray(b)
    rng = np.random.default_rng(seed)
    boots = d[rng.integers(0, d.size, size=(n_boot, d.size))].mean(axis=1)
    return float(d.mean()), float(np.percentile(boots, 2.5)), float(np.percentile(boots, 97.5))


def report(rows, out_path):
    per, settings = dataset_gaps(rows)
    pools = list(dict.fromkeys(r["pool"] for r in rows))
    commits = sorted({str(r.get("commit", "?"))[:7] for r in rows if r["pool"] != "shared"})
    lines = ["# Hold-out study of `auto`'s selection rule (generated)", "",
             "Written by `python benchmarks/bench_holdout.py` from `docs/results/holdout.json` "
             f"(hold-out rows made at commit {', '.join(commits)}) and the shared pool "
             "`bench-out/pool` (`bench_pool.py`). Gap = ACC of the best candidate minus ACC of "
             "the rule's pick, per dataset (mean over seeds); labels only score. Discussion: "
             "docs/results/auto.md, \"Hold-out study\".", "",
             "| rule | " + " | ".join(f"{p}: mean gap / within .02 / worst" for p in pools)
             + " | all datasets: mean gap |", "|---|" + "---|" * (len(pools) + 1)]
    for rule, d in per.items():
        cells = []
        for p in pools:
            g = [v for (pool, _), v in d.items() if pool == p]
            s = np.asarray(settings[rule][p])
            cells.append(f"{np.mean(g):.3f} / {np.mean(s <= 0.02):.0%} / {np.max(g):.2f}")
        lines.append(f"| {rule} | " + " | ".join(cells) + f" | {np.mean(list(d.values())):.3f} |")
    keys = sorted(per["rwr-min"])
    base = [per["rwr-min"][k] for k in keys]
    lines += ["", "Paired over the datasets of all pools (gap of `rwr-min` minus gap of the rule; "
              "positive = the rule is better), 95% bootstrap interval:", "",
              "| rule | datasets | mean difference | 95% interval | better / worse by > .005 |",
              "|---|---|---|---|---|"]
    for rule in per:
        if rule == "rwr-min":
            continue
        other = [per[rule][k] for k in keys]
        m, lo, hi = paired_bootstrap(base, other)
        d = np.asarray(base) - np.asarray(other)
        lines.append(f"| {rule} | {len(keys)} | {m:+.4f} | [{lo:+.4f}, {hi:+.4f}] | "
                     f"{int((d > .005).sum())} / {int((d < -.005).sum())} |")
    lines += ["", "Per dataset (mean ACC over seeds of each rule's pick, and the best candidate):", ""]
    rules = ["rwr-min", "hybrid", "anmi-dedup", "ranksum", "always-ahcka", "always-hgnn-mixed"]
    table = []
    for (pool, dataset), sel in group_rows(rows, ("pool", "dataset")).items():
        if pool == "shared":
            continue
        accs = [np.mean([r["acc"][r["picks"][rule]] for r in sel]) for rule in rules]
        best = np.mean([max(r["acc"].values()) for r in sel])
        table.append([pool, dataset] + [f"{a:.3f}" for a in accs] + [f"{best:.3f}"])
    lines += markdown_table(["pool", "dataset"] + rules + ["best candidate"], table)
    write_markdown(out_path, lines)
    print("\n".join(lines))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--pools", default="holdout,third")
    ap.add_argument("--report", action="store_true", help="only write the tables")
    ap.add_argument("--out", default=str(REPORT))
    args = ap.parse_args(argv)
    store = ResultStore(STORE, key=("pool", "dataset", "seed"))
    if not args.report:
        for pool in args.pools.split(","):
            run_pool(pool, args.seeds, store)
    report(shared_rows() + list(store.runs), Path(args.out))


if __name__ == "__main__":
    main()
