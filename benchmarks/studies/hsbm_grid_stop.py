"""``hsbm`` and ``auto`` on the attributed sets, to compare two source trees (issue 32: the
weight grid's fits stopped once their hard labels settle).

Usage (one tree per run, then the comparison)::

    PYTHONPATH=<tree>/src OMP_NUM_THREADS=1 HYPERCLUST_NUM_THREADS=1 \\
        python benchmarks/studies/hsbm_grid_stop.py run --out before.json \\
        [--sets cora-ca citeseer-cc mushroom 20newsw100 sbm1e5] [--seeds 0 1 2 3 4] \\
        [--methods hsbm auto]
    python benchmarks/studies/hsbm_grid_stop.py compare before.json after.json

Per (set, method, seed): ``HypergraphSBM(k, random_state=seed)`` or
``AutoClusterer(k, random_state=seed)`` fitted once (labels only score it), ACC / NMI, CPU
seconds (``time.process_time``), the weight ``hsbm`` chose, ``auto``'s pick, and the labels
(the comparison says in how many fits they are identical). ``sbm1e5`` is
``hypergraph_sbm(10**5, 4, homophily=0.7, n_features=32, random_state=0)``.
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np


def _load(name):
    from hyperclust.datasets import hypergraph_sbm, load_dataset
    if name == "sbm1e5":
        return hypergraph_sbm(10**5, 4, homophily=0.7, n_features=32, random_state=0)
    return load_dataset(name, data_dir=os.environ.get("HYPERCLUST_DATA", "/work/shared/data"),
                        download=False)


def run(args):
    from hyperclust.cluster.auto import AutoClusterer
    from hyperclust.cluster.hsbm import HypergraphSBM
    from hyperclust.metrics import evaluate

    make = {"hsbm": HypergraphSBM, "auto": AutoClusterer}
    rows = []
    for name in args.sets:
        hg = _load(name)
        k = int(len(np.unique(hg.labels)))
        for method in args.methods:
            for seed in args.seeds:
                c0 = time.process_time()
                est = make[method](k, random_state=seed).fit(hg)
                cpu = time.process_time() - c0
                m = evaluate(hg.labels, est.labels_)
                rows.append({"set": name, "method": method, "seed": seed, "cpu": cpu,
                             "acc": m["acc"], "nmi": m["nmi"],
                             "gamma": getattr(est, "attribute_weight_", None),
                             "pick": getattr(est, "selected_", None),
                             "labels": np.asarray(est.labels_).tolist()})
                print(name, method, seed, f"cpu {cpu:.1f} acc {m['acc']:.4f}",
                      rows[-1]["gamma"], rows[-1]["pick"], flush=True)
    with open(args.out, "w") as fh:
        json.dump(rows, fh)


def compare(args):
    before, after = (json.load(open(p)) for p in (args.before, args.after))
    key = lambda r: (r["set"], r["method"], r["seed"])  # noqa: E731
    after = {key(r): r for r in after}
    groups = {}
    for r in before:
        if key(r) in after:
            groups.setdefault((r["set"], r["method"]), []).append((r, after[key(r)]))
    print("| set | method | ACC before | ACC after | NMI before | NMI after | identical labels "
          "| weight / pick before | after | CPU s before (min / median) | after |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for (name, method), pairs in groups.items():
        def ms(side, f):
            v = [p[side][f] for p in pairs]
            return f"{np.mean(v):.3f} ± {np.std(v):.3f}"

        def what(side):
            f = "pick" if method == "auto" else "gamma"
            return ", ".join(str(p[side][f]) for p in pairs)

        def cpu(side):
            v = [p[side]["cpu"] for p in pairs]
            return f"{min(v):.1f} / {np.median(v):.1f}"
        same = sum(p[0]["labels"] == p[1]["labels"] for p in pairs)
        print(f"| {name} | {method} | {ms(0, 'acc')} | {ms(1, 'acc')} | {ms(0, 'nmi')} | "
              f"{ms(1, 'nmi')} | {same}/{len(pairs)} | {what(0)} | {what(1)} | {cpu(0)} | "
              f"{cpu(1)} |")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--out", required=True)
    r.add_argument("--sets", nargs="+",
                   default=["cora-ca", "citeseer-cc", "mushroom", "20newsw100", "sbm1e5"])
    r.add_argument("--methods", nargs="+", default=["hsbm", "auto"])
    r.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2, 3, 4])
    c = sub.add_parser("compare")
    c.add_argument("before")
    c.add_argument("after")
    args = ap.parse_args(argv)
    run(args) if args.cmd == "run" else compare(args)


if __name__ == "__main__":
    main()
