"""Positional encodings as extra node features, and smoothed features: a feature-based method
on the features alone, with S_eps (coboundary, ``collapsed-cells``) encodings appended, with
Zhou encodings appended (``hyperclust.operators.encodings.with_encoding``: k = 16 eigenpairs off the
null space, heat kernel signatures at 8 times or the eigenvectors; columns standardized and
scaled like an average feature column), and on the features smoothed by
``(I + tau L)^-1`` with L = S_eps or the normalized Zhou Laplacian scaled to unit top
eigenvalue, tau = 1 (``hyperclust.smoothing.smooth_features``; a fixed tau, not tuned). All nodes, k = number of classes, ACC / NMI mean ± std over the
seeds (the encodings do not depend on the seed; the method's seed varies).

Usage: OMP_NUM_THREADS=1 python benchmarks/studies/collapsed_pe.py
           [--datasets cora-ca,cora-cc,citeseer-cc] [--methods kmeans] [--seeds 5]
           [--out docs/results/collapsed_pe.md] [--variants features,seps-heat,...]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _datasets import load  # noqa: E402

from hyperclust.bench import markdown_table, write_markdown  # noqa: E402
from hyperclust.cluster import make_estimator  # noqa: E402
from hyperclust.operators.encodings import with_encoding  # noqa: E402
from hyperclust.metrics import evaluate  # noqa: E402
from hyperclust.smoothing import smooth_features  # noqa: E402

#: ``{key: (label, kind, operator)}``; ``--variants`` picks by key.
VARIANTS = {"features": ("features", None, None),
            "seps-heat": ("+ S_eps heat", "heat", "collapsed-cells"),
            "seps-eigvec": ("+ S_eps eigvec", "eigvec", "collapsed-cells"),
            "zhou-heat": ("+ Zhou heat", "heat", "zhou"),
            "zhou-eigvec": ("+ Zhou eigvec", "eigvec", "zhou"),
            "smooth-seps": ("smoothed by S_eps", "smooth", "collapsed-cells"),
            "smooth-zhou": ("smoothed by Zhou", "smooth", "zhou")}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", default="cora-ca,cora-cc,citeseer-cc")
    ap.add_argument("--methods", default="kmeans")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--out", default="docs/results/collapsed_pe.md")
    ap.add_argument("--variants", default=",".join(VARIANTS),
                    help=f"comma-separated keys of {', '.join(VARIANTS)}")
    args = ap.parse_args(argv)
    unknown = set(args.variants.split(",")) - set(VARIANTS)
    if unknown:
        ap.error(f"unknown variants {sorted(unknown)}; use {', '.join(VARIANTS)}")
    rows = []
    for name in args.datasets.split(","):
        hg = load(name)
        for label, kind, operator in (VARIANTS[v] for v in args.variants.split(",")):
            t = time.perf_counter()
            if kind == "smooth":
                data = hg.replace(features=smooth_features(hg, tau=1.0, operator=operator))
            else:
                data = hg if kind is None else with_encoding(hg, kind, k=16, operator=operator)
            pe_s = time.perf_counter() - t
            for method in args.methods.split(","):
                scores = [evaluate(hg.labels, make_estimator(method, hg.n_classes, random_state=s)
                                   .fit(data).labels_) for s in range(args.seeds)]
                acc = [x["acc"] for x in scores]
                nmi = [x["nmi"] for x in scores]
                rows.append([name, hg.n_nodes, method, label, f"{np.mean(acc):.3f} ± {np.std(acc):.3f}",
                             f"{np.mean(nmi):.3f} ± {np.std(nmi):.3f}", f"{pe_s:.1f}"])
                print(rows[-1], flush=True)
    write_markdown(args.out, ["# Positional encodings as features (benchmarks/studies/collapsed_pe.py)",
                              "", __doc__.split("Usage")[0].strip(), "",
                              f"Seeds: {args.seeds}. Encoding time under load.", "",
                              *markdown_table(["dataset", "nodes", "method", "features", "ACC",
                                               "NMI", "features s"], rows)])


if __name__ == "__main__":
    main()
