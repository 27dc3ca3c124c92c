"""Shared helpers of ``bench_objectives.py`` and ``bench_auto.py``: the cached candidate
clusterings of ``bench_pool.py`` and the label-free objective variants studied.

The studies' folder is ``bench-out/`` of the checkout, or ``$HYPERCLUST_BENCH_OUT`` (e.g. a
copy of another checkout's cache, to replay it); the pool lives in its ``pool/``."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

from hyperclust.bench import ResultStore
from hyperclust.datasets import load_dataset
from hyperclust.selection.objectives import hypergraph_ncut, knn_conductance, rwr_conductance
from hyperclust.operators.knn import MixedWalk, knn_affinity

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("HYPERCLUST_DATA", ROOT.parent / "shared" / "data"))
OUT = Path(os.environ.get("HYPERCLUST_BENCH_OUT", ROOT / "bench-out"))
POOL = OUT / "pool"


RUN_KEY = ("dataset", "seed")


def pool_store() -> ResultStore:
    """The pool's rows (one per dataset and seed) in ``pool/runs.json``."""
    return ResultStore(POOL / "runs.json", key=RUN_KEY)


def load_runs():
    """``{(dataset, seed): record}`` of the pool: the store's rows over those of a
    ``runs.jsonl`` written before the store (last record wins)."""
    runs = {}
    legacy = POOL / "runs.jsonl"
    if legacy.exists():
        with open(legacy) as fh:
            for line in fh:
                r = json.loads(line)
                runs[(r["dataset"], r["seed"])] = r
    if (POOL / "runs.json").exists():
        runs.update({(r["dataset"], r["seed"]): r for r in pool_store().runs})
    if not runs:
        raise SystemExit(f"no pool in {POOL}: run benchmarks/bench_pool.py first")
    return runs


def load_labels(dataset, seed):
    """``(y, {method: labels})`` of one cached run."""
    z = np.load(POOL / dataset / f"seed{seed}.npz")
    return z["y"], {k[2:]: z[k] for k in z.files if k.startswith("L_")}


SCORE_KEY = ("dataset", "seed", "method")


def scores_store() -> ResultStore:
    """The objective values of every candidate clustering (``bench_objectives.py``) in
    ``scores.json``."""
    return ResultStore(OUT / "scores.json", key=SCORE_KEY)


def load_scores() -> list[dict]:
    """The rows of :func:`scores_store`, or of a ``scores.jsonl`` written before the store."""
    if (OUT / "scores.json").exists():
        return scores_store().runs
    if (OUT / "scores.jsonl").exists():
        with open(OUT / "scores.jsonl") as fh:
            return [json.loads(line) for line in fh]
    raise SystemExit(f"no scores in {OUT}: run benchmarks/bench_objectives.py first")


class Scorer:
    """Every objective variant of one dataset and seed (walks built once, kNN ties seeded
    like the candidates)."""

    def __init__(self, dataset, seed):
        self.hg = load_dataset(dataset, data_dir=str(DATA))
        hg = self.hg
        self.A = None if hg.features is None else knn_affinity(hg.features, 10, random_state=seed)
        self.walks = {b: MixedWalk(hg, self.A, beta=b) for b in (0.0, 0.25, 0.5, 1.0)}

    def variants(self, labels) -> dict:
        hg, W = self.hg, self.walks
        out = {
            "rwr": rwr_conductance(hg, labels, walk=W[0.5]),
            "rwr-b0": rwr_conductance(hg, labels, walk=W[0.0]),
            "rwr-b.25": rwr_conductance(hg, labels, walk=W[0.25]),
            "rwr-b1": rwr_conductance(hg, labels, walk=W[1.0]) if self.A is not None else None,
            "rwr-h1": rwr_conductance(hg, labels, walk=W[0.5], n_hops=1),
            "rwr-h10": rwr_conductance(hg, labels, walk=W[0.5], n_hops=10),
            "rwr-a.5": rwr_conductance(hg, labels, walk=W[0.5], alpha=0.5),
            "rwr-sizew": size_weighted_rwr(hg, labels, W[0.5]),
            "rwr-min": rwr_conductance(hg, labels, walk=W[0.5], balance="min"),
            "rwr-b0-min": rwr_conductance(hg, labels, walk=W[0.0], balance="min"),
            "ncut": hypergraph_ncut(hg, labels),
            "knn": knn_conductance(hg, labels, affinity=self.A) if self.A is not None else None,
        }
        return out


def size_weighted_rwr(hg, labels, walk, alpha=0.2, n_hops=3):
    """``1 - (1/n) sum_v Pr[walk from v ends in v's cluster]``: clusters weighted by size."""
    _, y = np.unique(labels, return_inverse=True)
    k = y.max() + 1
    B = np.zeros((y.size, k))
    B[np.arange(y.size), y] = 1.0
    z = B
    for _ in range(n_hops):
        z = alpha * B + (1 - alpha) * np.asarray(walk @ z)
    return float(1 - z[np.arange(y.size), y].mean())

