"""Does Uni-DHC's filter learn from the data? The homophily sweep, label-free.

``hypergraph_sbm(2000, 4, homophily=h, n_features=32, random_state=seed)`` for
h in {0, .1, ..., 1}; labels only score the final clustering. Usage (one thread each)::

    PYTHONPATH=src python benchmarks/bench_unidhc_sweep.py run --seeds 0 1 2 3 4
    PYTHONPATH=src python benchmarks/bench_unidhc_sweep.py orders --seeds 0 1 2 3 4
    PYTHONPATH=src python benchmarks/bench_unidhc_sweep.py report

``run``: the fixed filters {X, PX, P^2X, X-PX}, k-means on X, the default ``unidhc`` (and
k-means on its filter block), and loss variants (each loss off, gamma trained by the
losses, the z-score start of the previous default). ``orders``: the learned filter alone
(``epochs=0``) for K = 1..10. Rows go to ``docs/results/unidhc_learning.json`` (``orders``:
``unidhc_learning_orders.json``; ``--tag`` appends a suffix, for runs in parallel; one row
per h, seed and method; a rerun replaces the rows it measures; ``report`` reads them all).
``report`` writes ``docs/results/unidhc_learning.md`` and the plot ``docs/results/unidhc_learning.png``.

Low-pass share of a filter: ``(g(0) - g(1)) / max |g|`` of its response
``g(lambda) = sum_k gamma_k (1 - lambda)^k`` on the Laplacian spectrum [0, 1]
(:func:`hyperclust.models.contrast.low_pass_share`): +1 low-pass, -1 high-pass, 0 flat.
It is a function of gamma alone, so it sits at +1 wherever the learned mixture reaches the
``P^K`` corner. The output smoothness (:func:`output_smoothness`, the Rayleigh quotient of
``P`` on what k-means clusters) is measured beside it: it keeps moving there, but it also
moves with how smooth the input itself is, so it is not a measure of the filter alone.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import time
from pathlib import Path

import numpy as np

from hyperclust.cluster.baselines import KMeansFeatures, kmeans_labels
from hyperclust.cluster.unidhc import UniDHC
from hyperclust.datasets.synthetic import hypergraph_sbm
from hyperclust.metrics import evaluate
from hyperclust.models.contrast import low_pass_share

ROOT = Path(__file__).resolve().parents[1]
STORE = ROOT / "docs" / "results" / "unidhc_learning.json"
LEVELS = [round(0.1 * i, 1) for i in range(11)]
FIXED = {"X": [1, 0, 0], "PX": [0, 1, 0], "P^2 X": [0, 0, 1], "X - PX": [1, -1, 0]}
VARIANTS = {
    "unidhc": {},
    "kernel alignment": {"gamma_init": "alignment"},
    "complementary views": {"views": "complementary"},
    "no decorrelation": {"decorrelation_weight": 0.0},
    "no consistency": {"consistency_weight": 0.0},
    "gamma trained by the losses": {"gamma_lr": 1e-2, "gamma_reg": 0.0},
    "z-score start, gamma_lr 1e-3": {"gamma_init": "auto", "gamma_lr": 1e-3},
    "energy contrast": {"gamma_init": "contrast"},
    "held-out choice": {"embedding": "heldout"},
    "dropout 0.5": {"dropout": 0.5},
}
ORDERS = [1, 2, 3, 4, 6, 8, 10]


def _commit():
    return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                          capture_output=True, text=True).stdout.strip()


def _graph(h, seed):
    return hypergraph_sbm(2000, 4, homophily=h, n_features=32, random_state=seed)


def _row(h, seed, method, labels, pred, **extra):
    scores = evaluate(labels, pred)
    return {"h": h, "seed": seed, "method": method, "acc": scores["acc"], "nmi": scores["nmi"],
            **extra}


def output_smoothness(hg, Z):
    """``tr(Zc^T P Zc) / tr(Zc^T Zc)`` of the column-centred ``Z``, shape (n, d), in [0, 1]:
    the share of the output's energy that one propagation keeps (1: constant on every
    connected component)."""
    from hyperclust.operators.propagation import PropagationOperator

    Zc = np.asarray(Z, dtype=np.float64)
    Zc = Zc - Zc.mean(axis=0)
    return float(np.sum(Zc * PropagationOperator(hg).matmat(Zc)) / np.sum(Zc * Zc))


def run_level(h, seed, variants=tuple(VARIANTS)):
    """The fixed filters, k-means on X and the ``variants`` at one homophily level and seed."""
    hg = _graph(h, seed)
    rows = [_row(h, seed, "kmeans(X)", hg.labels,
                 KMeansFeatures(4, random_state=seed).fit(hg).labels_)]
    for name, gamma in FIXED.items():
        est = UniDHC(4, gamma_init=gamma, epochs=0, embedding="filter", random_state=seed)
        rows.append(_row(h, seed, name, hg.labels, est.fit(hg).labels_))
    for name in variants:
        params = VARIANTS[name]
        t = time.perf_counter()
        est = UniDHC(4, random_state=seed, **params).fit(hg)
        extra = {"time": time.perf_counter() - t, "gamma": est.coefficients_.tolist(),
                 "share": low_pass_share(est.coefficients_),
                 "output_smoothness": output_smoothness(
                     hg, est.embedding_[:, :est.n_filter_columns_]),
                 "selected": getattr(est, "selected_", None)}
        if name == "unidhc":
            extra["trajectory"] = [t_["gamma"] for t_ in est.filter_trajectory_]
            block = kmeans_labels(est.embedding_[:, :est.n_filter_columns_], 4, est.n_init_,
                                  seed)
            rows.append(_row(h, seed, "unidhc (filter block)", hg.labels, block))
        rows.append(_row(h, seed, name, hg.labels, est.labels_, **extra))
    return rows


def run_orders(h, seed):
    """The learned filter alone for every K of :data:`ORDERS`."""
    hg = _graph(h, seed)
    rows = []
    for K in ORDERS:
        est = UniDHC(4, order=K, epochs=0, embedding="filter", random_state=seed).fit(hg)
        rows.append(_row(h, seed, f"filter K={K}", hg.labels, est.labels_,
                         gamma=est.coefficients_.tolist(),
                         share=low_pass_share(est.coefficients_)))
    return rows


def _store(stage, tag=""):
    """One file per stage and tag (processes that run at once write separate files)."""
    name = "unidhc_learning" + ("" if stage == "run" else f"_{stage}") + tag
    return STORE.with_name(name + ".json")


def _save(rows, store):
    old = json.loads(store.read_text()) if store.exists() else []
    keys = {(r["h"], r["seed"], r["method"]) for r in rows}
    kept = [r for r in old if (r["h"], r["seed"], r["method"]) not in keys]
    store.write_text(json.dumps(kept + rows, indent=1))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("stage", choices=["run", "orders", "report"])
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    ap.add_argument("--levels", type=float, nargs="+", default=LEVELS)
    ap.add_argument("--tag", default="", help="suffix of the store's name (parallel runs)")
    ap.add_argument("--variants", nargs="+", choices=list(VARIANTS), default=list(VARIANTS),
                    help="Uni-DHC variants of `run` (default: all)")
    args = ap.parse_args(argv)
    if args.stage == "report":
        from bench_unidhc_sweep_report import report  # noqa: E402 (sibling script)

        rows = [r for path in sorted(STORE.parent.glob("unidhc_learning*.json"))
                for r in json.loads(path.read_text())]
        report(rows, STORE.with_suffix(".md"), STORE.with_suffix(".png"))
        return
    step = run_level if args.stage == "run" else run_orders
    commit = _commit()
    for seed in args.seeds:
        for h in args.levels:
            found = step(h, seed, args.variants) if args.stage == "run" else step(h, seed)
            rows = [dict(r, commit=commit) for r in found]
            _save(rows, _store(args.stage, args.tag))
            print(f"h={h} seed={seed}: " + ", ".join(f"{r['method']} {r['acc']:.3f}"
                                                  for r in rows), flush=True)


if __name__ == "__main__":
    main()
