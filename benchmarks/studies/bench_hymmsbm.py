"""The public Hy-MMSBM code (Ruggeri et al., Science Advances 2023; run, never imported)
beside our ``auto`` and ``hsbm``.

Usage::

    git clone <bare mirror of nickruggeri/Hy-MMSBM> /tmp/hymmsbm
    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 HYPERCLUST_NUM_THREADS=1 \\
        python benchmarks/studies/bench_hymmsbm.py --public /tmp/hymmsbm \\
        [--datasets zoo,cora-ca,citeseer-cc,mushroom] [--seeds 5] [--timeout 600]

Hy-MMSBM: ``python main_inference.py --K k --hyperedge_file F --weight_file W --seed s
--out_dir D`` in its checkout, its own defaults otherwise (100 EM rounds, 10 training rounds
of which the best likelihood is kept, non-assortative affinity), ``K`` = the number of
classes. It reads hyperedges of two or more members (ours are written as they are, sizes
below two left out) and no attributes; a node's cluster is the argmax of its inferred
membership ``u``; a node it leaves with no membership (in no hyperedge) gets ``-1``,
scored as wrong, as for every peer. Time: the child process's CPU time (its file reading
included). Ours: ``AutoClusterer(k, random_state=seed)`` and
``HypergraphSBM(k, random_state=seed)``, CPU time (``process_time``) around ``fit``.
Labels score the results only.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from hyperclust.bench import fmt_mean_std, markdown_table, mean_std
from hyperclust.cluster import AutoClusterer
from hyperclust.cluster.hsbm import HypergraphSBM
from hyperclust.datasets import load_dataset
from hyperclust.metrics import evaluate

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(os.environ.get("HYPERCLUST_DATA", ROOT.parent / "shared" / "data"))
SETS = ("zoo", "cora-ca", "citeseer-cc", "mushroom")


def write_input(hg, folder):
    """``(hyperedge file, weight file)`` in Hy-MMSBM's text format (sizes >= 2)."""
    hye, weights = folder / "hye.txt", folder / "weights.txt"
    w = np.asarray(hg.weights, dtype=np.float64)
    kept = [(e, w[j]) for j, e in enumerate(hg.edges()) if len(e) >= 2]
    hye.write_text("\n".join(" ".join(map(str, np.sort(e))) for e, _ in kept) + "\n")
    np.savetxt(weights, np.array([x for _, x in kept]))
    return hye, weights


def child_cpu():
    """CPU seconds of the finished child processes so far."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_public(public, files, k, seed, n, timeout):
    """``(labels, CPU s)`` of one Hy-MMSBM run, or ``(None, reason)``."""
    with tempfile.TemporaryDirectory() as out:
        cmd = [sys.executable, "main_inference.py", "--K", str(k), "--hyperedge_file",
               str(files[0]), "--weight_file", str(files[1]), "--seed", str(seed),
               "--out_dir", out]
        c0 = child_cpu()
        try:
            done = subprocess.run(cmd, cwd=public, capture_output=True, text=True,
                                  timeout=timeout)
        except subprocess.TimeoutExpired:
            return None, f"over {timeout} s"
        if done.returncode:
            return None, done.stderr.strip().splitlines()[-1] if done.stderr else "failed"
        u = np.atleast_2d(np.loadtxt(Path(out) / "inferred_u.txt"))
        cpu = child_cpu() - c0
    labels = np.full(n, -1, dtype=np.int64)
    assigned = u.sum(axis=1) > 0
    labels[:u.shape[0]][assigned] = u[assigned].argmax(axis=1)
    return labels, cpu


def ours(cls, hg, k, seed):
    """``(labels, CPU s)`` of one of our estimators."""
    c0 = time.process_time()
    est = cls(k, random_state=seed).fit(hg)
    return est.labels_, time.process_time() - c0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--public", required=True, help="a checkout of nickruggeri/Hy-MMSBM")
    ap.add_argument("--datasets", default=",".join(SETS))
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per public run")
    args = ap.parse_args(argv)
    head = ["dataset", "method", "ACC", "NMI", "CPU s (median)", "runs"]
    rows = []
    for name in args.datasets.split(","):
        hg = load_dataset(name, data_dir=str(DATA))
        y, k = np.asarray(hg.labels), hg.n_classes
        with tempfile.TemporaryDirectory() as tmp:
            files = write_input(hg, Path(tmp))
            runs = {"Hy-MMSBM (public)": lambda s: run_public(args.public, files, k, s,
                                                               hg.n_nodes, args.timeout),
                    "auto": lambda s: ours(AutoClusterer, hg, k, s),
                    "hsbm": lambda s: ours(HypergraphSBM, hg, k, s)}
            for method, run in runs.items():
                got = [run(s) for s in range(args.seeds)]
                ok = [(evaluate(y, lab), t) for lab, t in got if lab is not None]
                failed = [t for lab, t in got if lab is None]
                rows.append([name, method,
                             fmt_mean_std(*mean_std([m["acc"] for m, _ in ok])),
                             fmt_mean_std(*mean_std([m["nmi"] for m, _ in ok])),
                             f"{np.median([t for _, t in ok]):.2f}" if ok else "",
                             f"{len(ok)}/{len(got)}" + (f" ({failed[0]})" if failed else "")])
                print(" | ".join(rows[-1]), flush=True)
    print(f"load average {open('/proc/loadavg').read().split()[:3]}")
    print("\n".join(markdown_table(head, rows)))


if __name__ == "__main__":
    main()
