"""Per seed: Uni-DHC's candidate outputs scored by auto's held-out signal, and their ACC.

For each setting and seed, the candidates (the default concatenation, the learned filter
block alone, the fixed low-pass ``P^2 X``) are clustered twice: on the full input (their
ACC; labels only score) and on :func:`hyperclust.cluster.hsbm_heldout.split_hypergraph`'s
training part (their held-out errors, both weightings, and the paired standard errors
against the concatenation). One JSON line per (setting, seed) goes to ``--out``, so rules
can be replayed on the stored errors.

Usage::

    PYTHONPATH=src python benchmarks/studies/unidhc_split_choice.py \\
        --out docs/results/unidhc_split_choice.jsonl zoo mushroom cora-ca:iso sweep:0.3

(``name:iso``: the isolated-removed protocol; ``sweep:h``: the homophily sweep's
``hypergraph_sbm(2000, 4, homophily=h, n_features=32, random_state=seed)``.)
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import torch

from hyperclust.bench.provenance import git_commit
from hyperclust.cluster.hsbm_heldout import (heldout_errors, paired_standard_errors,
                                             split_hypergraph)
from hyperclust.cluster.rounding import kmeans_labels
from hyperclust.cluster.unidhc import UniDHC
from hyperclust.datasets import load_dataset
from hyperclust.datasets.synthetic import hypergraph_sbm
from hyperclust.metrics import evaluate

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(os.environ.get("HYPERCLUST_DATA", ROOT.parent / "shared" / "data"))
WEIGHTINGS = ("coverage", "precision")


def candidates(hg, k, seed, **params):
    """``{candidate: labels}`` of the default fit's two outputs and of fixed ``P^2 X``."""
    est = UniDHC(k, embedding="concat", random_state=seed, **params).fit(hg)
    block = kmeans_labels(est.embedding_[:, :est.n_filter_columns_], k, est.n_init_, seed)
    low = UniDHC(k, gamma_init="low-pass", epochs=0, embedding="filter",
                 random_state=seed).fit(hg)
    return {"concat": est.labels_, "filter": block, "low-pass": low.labels_}, est


def measure(hg, k, seed, **params):
    """One record: per candidate the full-input ACC and the split's held-out errors."""
    t0 = time.process_time()
    full, est = candidates(hg, k, seed, **params)
    t1 = time.process_time()
    split = split_hypergraph(hg, random_state=seed)
    part, _ = candidates(split.train, k, seed, **params)
    t2 = time.process_time()
    rec = {"seed": seed, "gamma": est.coefficients_.round(3).tolist(),
           "acc": {c: evaluate(hg.labels, y)["acc"] for c, y in full.items()},
           "split_acc": {c: evaluate(hg.labels, y)["acc"] for c, y in part.items()},
           "cpu_full": t1 - t0, "cpu_split": t2 - t1}
    for w in WEIGHTINGS:
        rec[f"err_{w}"] = heldout_errors(split, part, w)
        rec[f"se_{w}"] = paired_standard_errors(split, part, "concat", w)
    return rec


def load(spec, seed):
    name, _, arg = spec.partition(":")
    if name == "sweep":
        return hypergraph_sbm(2000, 4, homophily=float(arg), n_features=32, random_state=seed)
    hg = load_dataset(name, data_dir=DATA)
    return hg.drop_isolated() if arg == "iso" else hg


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("settings", nargs="+", help="dataset, dataset:iso or sweep:h")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--seeds", type=int, nargs="+", default=list(range(5)))
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    provenance = git_commit()
    for spec, seed in ((spec, seed) for spec in args.settings for seed in args.seeds):
        hg = load(spec, seed)
        rec = {"setting": spec, **provenance, "load": os.getloadavg()[0],
               **measure(hg, int(hg.n_classes), seed)}
        with open(args.out, "a") as out:
            out.write(json.dumps(rec) + "\n")
        print(spec, seed, rec["acc"], rec["err_coverage"], flush=True)


if __name__ == "__main__":
    main()
