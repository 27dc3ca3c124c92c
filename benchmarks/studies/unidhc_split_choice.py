"""Per seed: Uni-DHC's candidate outputs scored by auto's held-out signal, and their ACC.

``run``: for each setting and seed, the candidates of ``UniDHC(embedding="split")`` (the
default concatenation, the learned filter block alone, the fixed low-pass ``P^2 X``:
:func:`hyperclust.cluster.unidhc_output.split_candidates`) are clustered on the full input
(their ACC; labels only score) and on the training part of ``--rounds`` splits
(:func:`hyperclust.cluster.hsbm_heldout.split_hypergraph`, seeds ``seed + 1000 j``, as the
option draws them): per split, their held-out errors and paired standard errors against
the concatenation (both weightings). One JSON line per (setting, seed) goes to ``--out``.
``replay``: the ACC of the rule :func:`~hyperclust.cluster.unidhc_output.split_choice` with
a given margin and number of splits, per setting, from the stored records.

Usage::

    PYTHONPATH=src python benchmarks/studies/unidhc_split_choice.py run \\
        --out docs/results/unidhc_split_choice.jsonl zoo mushroom cora-ca:iso sweep:0.3
    PYTHONPATH=src python benchmarks/studies/unidhc_split_choice.py replay \\
        docs/results/unidhc_split_choice.jsonl --margin 0 --rounds 3

(``name:iso``: the isolated-removed protocol; ``sweep:h``: the homophily sweep's
``hypergraph_sbm(2000, 4, homophily=h, n_features=32, random_state=seed)``.)
"""

from __future__ import annotations

import argparse
import json
import os
from collections import defaultdict
from pathlib import Path

import numpy as np

from hyperclust.bench.provenance import git_commit
from hyperclust.cluster.hsbm_heldout import (heldout_errors, paired_standard_errors,
                                             split_hypergraph)
from hyperclust.cluster.spectral import resolve_settings
from hyperclust.cluster.unidhc import UniDHC
from hyperclust.cluster.unidhc_output import split_candidates
from hyperclust.datasets import load_dataset
from hyperclust.datasets.synthetic import hypergraph_sbm
from hyperclust.metrics import evaluate

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(os.environ.get("HYPERCLUST_DATA", ROOT.parent / "shared" / "data"))
WEIGHTINGS = ("coverage", "precision")


def measure(hg, seed, rounds):
    """One record: per candidate the full-input ACC and, per split, the held-out errors."""
    k = int(hg.n_classes)
    est, n_init = UniDHC(k, random_state=seed), resolve_settings(hg.n_nodes, n_init="auto")[1]
    full = split_candidates(est, hg, k, n_init, seed)
    rec = {"seed": seed, "acc": {c: evaluate(hg.labels, y)["acc"] for c, y in full.items()},
           "splits": []}
    for j in range(rounds):
        split = split_hypergraph(hg, random_state=seed + 1000 * j)
        part = split_candidates(est, split.train, k, n_init, seed)
        rec["splits"].append({f"{key}_{w}": fn(split, part, *args, w) for w in WEIGHTINGS
                              for key, fn, args in (("err", heldout_errors, ()),
                                                    ("se", paired_standard_errors,
                                                     ("concat",)))})
    return rec


def load(spec, seed):
    name, _, arg = spec.partition(":")
    if name == "sweep":
        return hypergraph_sbm(2000, 4, homophily=float(arg), n_features=32, random_state=seed)
    hg = load_dataset(name, data_dir=DATA)
    return hg.drop_isolated() if arg == "iso" else hg


def choice(rec, margin, rounds, weighting="coverage"):
    """The rule of :func:`~hyperclust.cluster.unidhc_output.split_choice` on stored errors."""
    splits = rec["splits"][:rounds]
    names = list(rec["acc"])
    err = {c: np.mean([s[f"err_{weighting}"][c] for s in splits]) for c in names}
    se = {c: np.sqrt(sum(s[f"se_{weighting}"][c] ** 2 for s in splits)) / len(splits)
          for c in names}
    beat = [c for c in names if c != "concat" and err[c] < err["concat"] - margin * se[c]]
    return min(beat, key=err.get) if beat else "concat"


def replay(path, margin, rounds, weighting):
    by = defaultdict(list)
    for line in open(path):
        rec = json.loads(line)
        if len(rec["splits"]) >= rounds:
            by[rec["setting"]].append(rec)
    for setting, recs in by.items():
        picks = [choice(r, margin, rounds, weighting) for r in recs]
        acc = [r["acc"][c] for r, c in zip(recs, picks)]
        means = " ".join(f"{c} {np.mean([r['acc'][c] for r in recs]):.3f}" for c in recs[0]["acc"])
        print(f"{setting:18s} {means}  split {np.mean(acc):.3f} ± {np.std(acc):.3f} "
              f"picks {''.join(c[0] for c in picks)} ({len(recs)} seeds)")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run")
    run.add_argument("settings", nargs="+", help="dataset, dataset:iso or sweep:h")
    run.add_argument("--out", type=Path, required=True)
    run.add_argument("--seeds", type=int, nargs="+", default=list(range(5)))
    run.add_argument("--rounds", type=int, default=3)
    rep = sub.add_parser("replay")
    rep.add_argument("store", type=Path)
    rep.add_argument("--margin", type=float, default=0.0)
    rep.add_argument("--rounds", type=int, default=3)
    rep.add_argument("--weighting", choices=WEIGHTINGS, default="coverage")
    args = parser.parse_args(argv)
    if args.command == "replay":
        return replay(args.store, args.margin, args.rounds, args.weighting)
    import torch

    torch.set_num_threads(1)
    provenance = git_commit()
    for spec, seed in ((spec, seed) for spec in args.settings for seed in args.seeds):
        rec = {"setting": spec, **provenance, "load": os.getloadavg()[0],
               **measure(load(spec, seed), seed, args.rounds)}
        with open(args.out, "a") as out:
            out.write(json.dumps(rec) + "\n")
        print(spec, seed, rec["acc"], flush=True)


if __name__ == "__main__":
    main()
