"""Benchmark Uni-DHC against fixed-filter floors and published numbers.

Usage (background, niced; results land in docs/results/)::

    nice python benchmarks/bench_unidhc.py real --seeds 5
    nice python benchmarks/bench_unidhc.py hetero --seeds 5
    nice python benchmarks/bench_unidhc.py sweep --seeds 3

``real``: feature datasets (all nodes; plus isolated removed for the co-citation/co-authorship
sets). ``hetero``: feature-less heterophilic sets with the structural input. ``sweep``:
``hypergraph_sbm`` from heterophilic to homophilic; x-axis = measured pairwise homophily.
Every method uses its library defaults, identical for every dataset; labels are used only
to score the final-epoch clustering.

Rows (one per dataset, protocol and method: mean and population std over the seeds) go to
the harness's store ``docs/results/unidhc_<suite><tag>.json`` (each row with its commit; a
rerun replaces the rows it measures and keeps the others). ``report`` reads every store of a
suite in name order (a row of a later store replaces the same row of an earlier one) and
writes ``docs/results/unidhc.md``.
"""

from __future__ import annotations

import argparse
import csv
import os
import time
from pathlib import Path

import numpy as np
import torch

from hyperclust.bench import (ResultStore, fmt_mean_std, markdown_table, run_seeds, summarize,
                              write_markdown)
from hyperclust.cluster.baselines import HGNNSmoothingKMeans, KMeansFeatures, kmeans_labels
from hyperclust.cluster.unidhc import UniDHC
from hyperclust.metrics import evaluate

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("HYPERCLUST_DATA", ROOT.parent / "shared" / "data"))
OUT = ROOT / "docs" / "results"

REAL = ["cora-ca", "cora-cc", "citeseer-cc", "pubmed-cc-tricl", "zoo", "mushroom", "20newsw100"]
ISO = ["cora-ca", "cora-cc", "citeseer-cc"]
HETERO = ["senate-committees", "house-committees", "actor", "amazon-ratings", "pokec",
          "hsbm-node-0.3", "hsbm-node-0.6", "hsbm-node-0.9", "hsbm-edge-0.3", "hsbm-edge-0.9"]
SWEEP_H = [0.0, 0.1, 0.2, 0.3, 0.45, 0.6, 0.8, 1.0]
SCORES = ("acc", "nmi", "ari", "f1", "time")
KEY = ("dataset", "protocol", "method")
HELDOUT = "unidhc (held-out choice)"
"""The encoder kept or dropped by held-out feature columns (``embedding="heldout"``)."""
MLP = "unidhc (mlp encoder)"
"""Rows of the pre-2026-12-04 option ``encoder="mlp"`` (removed; its stored rows stay in the
stores and the report)."""


def methods(k, seed, featured=True, isolated=False):
    """name -> estimator; fixed filters reuse UniDHC with no training (epochs=0).

    The fixed filters do not borrow for isolated nodes (``isolated_neighbors=None``), except
    the row that measures what the borrowing alone gives (featured inputs with isolated nodes).
    """
    fixed = dict(epochs=0, embedding="filter", random_state=seed, isolated_neighbors=None)
    borrow = {"P^2 X + isolated borrowing": UniDHC(
        k, gamma_init="low-pass", **{**fixed, "isolated_neighbors": 10})} \
        if featured and isolated else {}
    return {
        **borrow,
        "kmeans(X)": KMeansFeatures(k, random_state=seed) if featured
        else UniDHC(k, gamma_init="identity", **fixed),  # X = structural input
        "P^2 X (hgnn)": HGNNSmoothingKMeans(k, random_state=seed),
        "uniform P^0..P^8": UniDHC(k, order=8, gamma_init="uniform", **fixed),
        "X - PX (high-pass)": UniDHC(k, gamma_init="high-pass", **fixed),
        "unidhc": UniDHC(k, random_state=seed),
        "unidhc (complementary views)": UniDHC(k, views="complementary", random_state=seed),
        "unidhc (dropout 0.5)": UniDHC(k, dropout=0.5, random_state=seed),
        HELDOUT: UniDHC(k, embedding="heldout", random_state=seed),
    }


def suite_store(suite: str, tag: str = "") -> ResultStore:
    """The store of one suite (``tag``: a separate file, for runs in parallel)."""
    return ResultStore(OUT / f"unidhc_{suite}{tag}.json", key=KEY)


def run(hg, seeds, protocol, store, extra=None, only=None):
    """Fit every method once per seed; add one row per method (mean and population std over
    the seeds, as the stored rows always had) to ``store`` and print it."""
    k = hg.n_classes
    featured, isolated = hg.features is not None, bool(hg.isolated.any())

    def at_seed(seed):
        out = []
        for name, est in methods(k, seed, featured, isolated).items():
            if only and name not in only:
                continue
            t = time.perf_counter()
            est.fit(hg)
            dt = time.perf_counter() - t
            out.append({"method": name, **evaluate(hg.labels, est.labels_), "time": dt,
                        "selected": getattr(est, "selected_", None)})
            if name == "unidhc":
                # the learned filter, and k-means on its block alone from the same fit
                out[-1].update(gamma=est.coefficients_.tolist(),
                               init=est.initial_coefficients_.tolist(),
                               z=est.smoothness_z_, family=est.filter_family_)
                d = est.n_filter_columns_
                lab = kmeans_labels(est.embedding_[:, :d], k, est.n_init_, seed)
                out.append({"method": "unidhc (filter block)", **evaluate(hg.labels, lab),
                            "time": dt})
        return out

    per_seed = run_seeds(at_seed, seeds, echo=False)
    for s in summarize(per_seed, ("method",), SCORES, ddof=0):
        name = s["method"]
        row = {"dataset": hg.name, "protocol": protocol, "method": name, "seeds": seeds,
               **{f: s[f] for v in SCORES for f in (v, v + "_std")}}
        row.update(extra or {})
        if name == HELDOUT:  # which output each seed kept
            row["selected"] = [r["selected"] for r in per_seed if r["method"] == name]
        if name == "unidhc":
            fits = [r for r in per_seed if r["method"] == "unidhc"]
            row["gamma_init"] = np.round(np.mean([r["init"] for r in fits], axis=0), 3).tolist()
            row["gamma"] = np.round(np.mean([r["gamma"] for r in fits], axis=0), 3).tolist()
            zs = [r["z"] for r in fits]
            row["z"] = None if None in zs else float(np.mean(zs))  # None: no z-score
            row["family"] = fits[0]["family"]
        store.add(row)
        print(f"{hg.name:20s} {protocol:10s} {name:20s} ACC {row['acc']:.3f}±{row['acc_std']:.3f} "
              f"NMI {row['nmi']:.3f} ARI {row['ari']:.3f} F1 {row['f1']:.3f} "
              f"t {row['time']:.1f}s", flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("suite", choices=["real", "hetero", "sweep", "report"])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--datasets", nargs="*")
    ap.add_argument("--tag", default="", help="suffix of the store's name (parallel runs)")
    ap.add_argument("--methods", nargs="*", help="run only these method names")
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    if args.suite == "report":
        report()
        return
    store = suite_store(args.suite, args.tag)
    if args.suite in ("real", "hetero"):
        from hyperclust.datasets import load_dataset

        names = args.datasets or (REAL if args.suite == "real" else HETERO)
        for name in names:
            hg = load_dataset(name, data_dir=DATA)
            extra = {"homophily": hg.homophily()["pairwise"]}
            run(hg, args.seeds, "all nodes", store, extra, args.methods)
            if name in ISO:
                run(hg.drop_isolated(), args.seeds, "isolated removed", store, extra,
                    args.methods)
    else:
        from hyperclust.datasets.synthetic import hypergraph_sbm

        for h in SWEEP_H:
            hg = hypergraph_sbm(2000, 4, homophily=h, n_features=32, random_state=0,
                                name=f"hsbm-{h}")
            hom = hg.homophily()["pairwise"]
            run(hg, args.seeds, "all nodes", store, {"target": h, "homophily": hom},
                args.methods)


SWEEP_PLOTTED = ("kmeans(X)", "P^2 X (hgnn)", "uniform P^0..P^8", "X - PX (high-pass)",
                 "unidhc", MLP)


def plot_sweep(rows):
    """ACC against measured homophily, and the learned responses of ``unidhc``, from the
    stored sweep rows (all stores), so a partial rerun updates the figure."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from hyperclust.models.basis import basis_response

    fig, ax = plt.subplots(1, 2, figsize=(11, 4))
    for m in SWEEP_PLOTTED:
        pts = sorted((r["homophily"], r["acc"], r["acc_std"]) for r in rows if r["method"] == m)
        if not pts:
            continue
        x, y, s = map(np.array, zip(*pts))
        ax[0].errorbar(x, y, yerr=s, marker="o", label=m, capsize=2)
    ax[0].set_xlabel("measured pairwise homophily")
    ax[0].set_ylabel("ACC")
    ax[0].legend(fontsize=7)
    ax[0].set_title("hypergraph_sbm sweep (n=2000, k=4)")
    lam = np.linspace(0, 1, 101)
    cmap = plt.get_cmap("coolwarm")
    gammas = {r["homophily"]: np.array(r["gamma"]) for r in rows if r["method"] == "unidhc"}
    for hom in sorted(gammas):
        g = gammas[hom]
        resp = g @ basis_response(lam, len(g) - 1)
        ax[1].plot(lam, resp, color=cmap(hom), label=f"h={hom:.2f}")
    ax[1].set_xlabel("Laplacian eigenvalue lambda")
    ax[1].set_ylabel("learned g(lambda)")
    ax[1].legend(fontsize=7)
    ax[1].set_title("learned spectral response (mean gamma over seeds)")
    fig.tight_layout()
    fig.savefig(OUT / "unidhc_sweep.png", dpi=110)


PUBLISHED = ROOT.parent / "shared" / "docs" / "published-results.csv"


def _fmt(r, key):
    return fmt_mean_std(r[key], r[key + "_std"])


FLOORS = ("kmeans(X)", "P^2 X (hgnn)", "uniform P^0..P^8", "X - PX (high-pass)")
BORROW = "P^2 X + isolated borrowing"


def suite_rows(suite):
    """Rows of every store ``unidhc_<suite>*.json``; a (dataset, protocol, method) measured
    again in a later store (sorted by name) replaces the earlier row in place."""
    rows = {}
    for path in sorted(OUT.glob(f"unidhc_{suite}*.json")):
        rows.update({tuple(r[f] for f in KEY): r for r in ResultStore(path, key=KEY).runs})
    return list(rows.values())


def targets(pub):
    """Uni-DHC ACC against the best fixed filter of the same run and against AHCKA."""
    rows = [r for suite in ("real", "hetero", "sweep") for r in suite_rows(suite)]
    ahcka = {q["dataset"]: q for q in pub if q["method"] == "AHCKA"}
    out = ["## Targets", "",
           "ACC of `unidhc` minus the best fixed filter of the same run (k-means on X, P^2 X, "
           "uniform P^0..P^8, X - PX; a per-dataset oracle over four filters, stricter than one "
           "fixed floor), and minus P^2 X alone; the same P^2 X with Uni-DHC's isolated-node "
           "borrowing where the input has isolated nodes (what the borrowing alone gives); "
           "AHCKA (all nodes) where published.", ""]
    cells = []
    keys = sorted({(r["dataset"], r["protocol"]) for r in rows})
    for ds, prot in keys:
        sel = {r["method"]: r for r in rows if r["dataset"] == ds and r["protocol"] == prot}
        if "unidhc" not in sel:
            continue
        u = sel["unidhc"]
        best = max((m for m in FLOORS if m in sel), key=lambda m: sel[m]["acc"])
        gap = u["acc"] - sel[best]["acc"]
        a = ahcka.get(ds)
        a_txt = f"{a['acc']}/{a['nmi']}/{a['ari']}" if a and prot == "all nodes" else ""
        b_txt = f"{sel[BORROW]['acc']:.3f}" if BORROW in sel else ""
        p2_gap = u["acc"] - sel["P^2 X (hgnn)"]["acc"]
        cells.append([ds, prot, f"{u['acc']:.3f}", f"{sel[best]['acc']:.3f} ({best})",
                      f"{gap:+.3f}", f"{p2_gap:+.3f}", b_txt, a_txt,
                      f"{u['nmi']:.3f}/{u['ari']:.3f}"])
    return out + markdown_table(["dataset", "protocol", "unidhc ACC", "best fixed (which)", "gap",
                                 "gap vs P^2 X", "P^2 X + borrowing", "AHCKA ACC/NMI/ARI",
                                 "unidhc NMI/ARI"], cells) + [""]


UNIDHC_SOURCES = ["src/hyperclust/cluster/unidhc.py", "src/hyperclust/cluster/unidhc_output.py",
                  "src/hyperclust/models/contrast.py",
                  "src/hyperclust/models/canonical.py",
                  "src/hyperclust/models/unidhc.py", "src/hyperclust/models/losses.py"]


def unidhc_marks(rows):
    """``{(dataset, protocol, method): "stale" or "unknown provenance" or None}`` for the
    Uni-DHC rows (``benchmarks/staleness.py``'s ``provenance_marks`` against the Uni-DHC
    source files: a row made before their last change is stale)."""
    from staleness import provenance_marks  # sibling script (benchmarks/ is on the path)

    own = [r for r in rows if r["method"].startswith("unidhc")]
    sources = {r["method"]: UNIDHC_SOURCES for r in own}
    return {key: v["mark"] for key, v in provenance_marks(own, repo=ROOT,
                                                          sources=sources).items()}


def report():
    """Write docs/results/unidhc.md from the stores of the three suites."""
    lines = ["# Uni-DHC benchmark results", "",
             "Generated by `python benchmarks/bench_unidhc.py report` from the stores "
             "(`unidhc_<suite>*.json`) next to this file. Final-epoch results, library "
             "defaults (identical for every dataset), mean ± std over the seeds given in the "
             "`seeds` column; labels are used only for scoring. Protocol per row. "
             "`unidhc (filter block)` = k-means on the learned filter output alone, from the "
             "same fit.", ""]
    pub = []
    if PUBLISHED.exists():
        pub = list(csv.DictReader(open(PUBLISHED)))
    for suite, title in (("real", "Datasets with node features"),
                         ("hetero", "Feature-less (heterophilic) datasets, structural input"),
                         ("sweep", "hypergraph_sbm sweep (n=2000, k=4, 32 features, snr 0.35)")):
        rows = suite_rows(suite)
        if not rows:
            continue
        marks = unidhc_marks(rows)
        lines += [f"## {title}", "", *markdown_table(
            ["dataset", "protocol", "pairwise homophily", "method", "seeds", "ACC", "NMI", "ARI",
             "F1", "time (s)", "provenance"],
            [[r["dataset"], r["protocol"], f"{r['homophily']:.3f}", r["method"],
              r["seeds"], *(_fmt(r, v) for v in ("acc", "nmi", "ari", "f1")),
              f"{r['time']:.1f}", marks.get((r["dataset"], r["protocol"], r["method"])) or ""]
             for r in rows])]
        lines += ["", "Uni-DHC filter per dataset (z = smoothness z-score, mean over seeds, "
                  "'-' when the filter is learned; gamma in the power basis P^0..P^K):", "",
                  *markdown_table(
                      ["dataset", "protocol", "z", "family (seed 0)", "gamma init",
                       "learned gamma"],
                      [[r["dataset"], r["protocol"],
                        "-" if r.get("z") is None else f"{r['z']:.1f}", r["family"],
                        r["gamma_init"], r["gamma"]] for r in rows if r["method"] == "unidhc"])]
        lines.append("")
        names = {r["dataset"] for r in rows}
        p = [q for q in pub if q["dataset"] in names]
        if p:
            lines += ["Published numbers for these datasets (`shared/docs/published-results.csv`; "
                      "mind the protocol column):", "", *markdown_table(
                          ["dataset", "method", "protocol", "ACC", "NMI", "ARI", "F1"],
                          [[q["dataset"], q["method"], q["protocol"], q["acc"], q["nmi"], q["ari"],
                            q["f1_macro"] or q["f1_pairwise"] + " (pairwise)"] for q in p])]
            lines.append("")
    lines += targets(pub)
    sweep_rows = suite_rows("sweep")
    if sweep_rows:
        plot_sweep(sweep_rows)
        lines += ["![sweep](unidhc_sweep.png)", ""]
    write_markdown(OUT / "unidhc.md", lines)


if __name__ == "__main__":
    main()
