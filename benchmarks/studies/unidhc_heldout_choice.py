"""Per seed: what Uni-DHC's held-out choice keeps, and the ACC of both of its candidates.

For each setting and seed: ``UniDHC(k, embedding="heldout")`` (its per-fold scores and
choice), the ACC of its labels, of k-means on the filter output alone and of the default
concatenation (from the same fit when it kept the concatenation, else from a default fit
with the same seed: the filter does not depend on the encoder). Labels only score. One
JSON line per fit is appended to ``--out`` (with the commit), so rules other than the sum
of the fold scores can be replayed on the stored scores.

Usage::

    PYTHONPATH=src python benchmarks/studies/unidhc_heldout_choice.py \\
        --out docs/results/unidhc_heldout_choice.jsonl zoo mushroom cora-ca:iso ...

(``name:iso``: the isolated-removed protocol.)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
from pathlib import Path

import torch

from hyperclust.cluster.rounding import kmeans_labels
from hyperclust.cluster.unidhc import UniDHC
from hyperclust.cluster.unidhc_output import HELDOUT_FOLDS, HELDOUT_ROUNDS
from hyperclust.datasets import load_dataset
from hyperclust.metrics import evaluate

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(os.environ.get("HYPERCLUST_DATA", ROOT.parent / "shared" / "data"))


def measure(hg, seed):
    """One record: the held-out choice, its per-fold scores and the three ACCs."""
    k = hg.n_classes
    est = UniDHC(k, embedding="heldout", random_state=seed).fit(hg)
    concat = est.labels_ if est.selected_ == "concat" else \
        UniDHC(k, random_state=seed).fit(hg).labels_
    block = kmeans_labels(est.embedding_[:, :est.n_filter_columns_], k, est.n_init_, seed)
    acc = {name: evaluate(hg.labels, y)["acc"]
           for name, y in (("heldout", est.labels_), ("concat", concat), ("filter", block))}
    return {"seed": seed, "selected": est.selected_, "scores": est.scores_, **acc,
            "folds": HELDOUT_FOLDS, "rounds": HELDOUT_ROUNDS}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("settings", nargs="+", help="dataset or dataset:iso")
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                            capture_output=True, text=True).stdout.strip()
    with open(args.out, "a") as out:
        for spec in args.settings:
            name, _, protocol = spec.partition(":")
            hg = load_dataset(name, data_dir=DATA)
            if protocol == "iso":
                hg = hg.drop_isolated()
            for seed in args.seeds:
                rec = {"dataset": name, "protocol": protocol or "all", "commit": commit,
                       **measure(hg, seed)}
                out.write(json.dumps(rec) + "\n")
                out.flush()
                print(rec, flush=True)


if __name__ == "__main__":
    main()
