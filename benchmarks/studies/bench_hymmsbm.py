"""The public Hy-MMSBM code (Ruggeri et al., Science Advances 2023), as the benchmark peer
``peer-hymmsbm`` (run in its checkout, never imported), beside our ``auto`` and ``hsbm``; with
``--peer hycosbm``, the public HyCoSBM code (``peer-hycosbm``, Hy-MMSBM with attributes); with
``--peer hyperneo``, the public HyperNEO code (``peer-hyperneo``, one categorical attribute).

Usage::

    git clone <a copy of nickruggeri/Hy-MMSBM> /tmp/hymmsbm
    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 HYPERCLUST_NUM_THREADS=1 \\
        python benchmarks/studies/bench_hymmsbm.py --public /tmp/hymmsbm \\
        [--datasets zoo,cora-ca,citeseer-cc,mushroom] [--seeds 5]
    ... bench_hymmsbm.py --peer hycosbm --public /tmp/hycosbm --gamma 0.8 0 [--peer-only]
    ... bench_hymmsbm.py --peer hyperneo --public /tmp/hyperneo --gamma 0.8 [--peer-only]

HyCoSBM (:class:`~hyperclust.bench.peer_hycosbm.HyCoSBMPeer`): the same, with the node
attributes, each ``--gamma`` a row of its own; HyperNEO
(:class:`~hyperclust.bench.peer_hyperneo.HyperNEOPeer`) likewise, the attributes made one
label-free category per node.

Hy-MMSBM (:class:`~hyperclust.bench.peer_hymmsbm.HyMMSBMPeer`): its own defaults, ``K`` =
the number of classes, no attributes; nodes it gives no membership are scored as wrong, so
ACC / NMI are also given on the nodes in some hyperedge of two or more members. Time: its
process's CPU time (file reading included). Ours: ``AutoClusterer(k, random_state=seed)``
and ``HypergraphSBM(k, random_state=seed)``, CPU time (``process_time``) around ``fit``.
Labels score the results only.
"""

from __future__ import annotations

import argparse
import os
import resource
import time
from pathlib import Path

import numpy as np

from hyperclust.bench import fmt_mean_std, markdown_table, mean_std
from hyperclust.bench.peer_hycosbm import HyCoSBMPeer
from hyperclust.bench.peer_hyperneo import HyperNEOPeer
from hyperclust.bench.peer_hymmsbm import HyMMSBMPeer
from hyperclust.cluster import AutoClusterer
from hyperclust.cluster.hsbm import HypergraphSBM
from hyperclust.datasets import load_dataset
from hyperclust.metrics import evaluate

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(os.environ.get("HYPERCLUST_DATA", ROOT.parent / "shared" / "data"))
SETS = ("zoo", "cora-ca", "citeseer-cc", "mushroom")


def child_cpu():
    """CPU seconds of the finished child processes so far."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def public(checkout, hg, k, seed, peer=HyMMSBMPeer, **params):
    """``(labels, CPU s)`` of one run of the public code (``peer``: ``peer-hymmsbm`` or
    ``peer-hycosbm`` with ``params``), or ``(None, reason)``."""
    c0 = child_cpu()
    try:
        est = peer(k, checkout=checkout, random_state=seed, **params).fit(hg)
    except RuntimeError as exc:
        return None, str(exc)
    return est.labels_, child_cpu() - c0


def ours(cls, hg, k, seed):
    """``(labels, CPU s)`` of one of our estimators."""
    c0 = time.process_time()
    est = cls(k, random_state=seed).fit(hg)
    return est.labels_, time.process_time() - c0


def row(name, method, got, y, covered):
    """One table row from ``got``, the ``(labels or None, CPU s or reason)`` of each seed."""
    ok = [(evaluate(y, lab), evaluate(y[covered], lab[covered]), t)
          for lab, t in got if lab is not None]
    failed = [t for lab, t in got if lab is None]
    if not ok:
        return [name, method, "", "", "", "", f"0/{len(got)} ({failed[0]})"]
    return [name, method,
            fmt_mean_std(*mean_std([m["acc"] for m, _, _ in ok])),
            fmt_mean_std(*mean_std([m["nmi"] for m, _, _ in ok])),
            f"{np.mean([c['acc'] for _, c, _ in ok]):.3f} / "
            f"{np.mean([c['nmi'] for _, c, _ in ok]):.3f} ({covered.sum()} of {y.size})",
            f"{np.median([t for _, _, t in ok]):.2f}",
            f"{len(ok)}/{len(got)}" + (f" ({failed[0]})" if failed else "")]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--public", required=True,
                    help="a checkout of nickruggeri/Hy-MMSBM (of badalyananna/HyCoSBM with "
                         "--peer hycosbm, of kazuibasou/hyperneo with --peer hyperneo)")
    ap.add_argument("--peer", choices=("hymmsbm", "hycosbm", "hyperneo"), default="hymmsbm")
    ap.add_argument("--gamma", type=float, nargs="+", default=[0.8],
                    help="with --peer hycosbm / hyperneo: its attribute weights, a row each")
    ap.add_argument("--peer-only", action="store_true", help="leave out auto and hsbm")
    ap.add_argument("--datasets", default=",".join(SETS))
    ap.add_argument("--seeds", type=int, default=5)
    args = ap.parse_args(argv)
    if args.peer == "hymmsbm":
        peers = {"Hy-MMSBM (public)": {}}
    else:
        name, peer = {"hycosbm": ("HyCoSBM", HyCoSBMPeer),
                      "hyperneo": ("HyperNEO", HyperNEOPeer)}[args.peer]
        peers = {f"{name} (public, gamma {g:g})": {"peer": peer, "gamma": g}
                 for g in args.gamma}
    head = ["dataset", "method", "ACC", "NMI", "ACC / NMI on the nodes in a hyperedge",
            "CPU s (median)", "runs"]
    rows = []
    for name in args.datasets.split(","):
        hg = load_dataset(name, data_dir=str(DATA))
        y, k = np.asarray(hg.labels), hg.n_classes
        covered = np.asarray(hg.incidence[:, hg.edge_sizes >= 2].sum(axis=1)).ravel() > 0
        runs = {method: lambda s, p=params: public(args.public, hg, k, s, **p)
                for method, params in peers.items()}
        if not args.peer_only:
            runs.update({"auto": lambda s: ours(AutoClusterer, hg, k, s),
                         "hsbm": lambda s: ours(HypergraphSBM, hg, k, s)})
        for method, run in runs.items():
            rows.append(row(name, method, [run(s) for s in range(args.seeds)], y, covered))
            print(" | ".join(rows[-1]), flush=True)
    print(f"load average {open('/proc/loadavg').read().split()[:3]}")
    print("\n".join(markdown_table(head, rows)))


if __name__ == "__main__":
    main()
