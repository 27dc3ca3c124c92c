"""Does the downward-closure S_eps cluster differently from the cells S_eps? On each set:
the faces of the closure (simplices up to triangles), spectral clustering with
``spectral-collapsed-closure`` and ``spectral-collapsed-cells`` (eps = 1e-2, couplings
``sqrt(beta eps)``, k = number of classes, all nodes) over the seeds, the ARI between the two
methods' labels at the same seed (label-free: how differently they cluster), and the largest
principal angle between the column spaces of the two embeddings k-means clusters (seed 0:
eigenvectors past the null space, rows normalized, zero rows for isolated nodes).

Usage: OMP_NUM_THREADS=1 python benchmarks/studies/collapsed_closure.py
           [--datasets cora-cc,citeseer-cc,contact-high-school-classes,cora-ca] [--seeds 5]
           [--out docs/results/collapsed_closure.md]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from scipy.linalg import subspace_angles

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _datasets import load  # noqa: E402

from hyperclust.bench import markdown_table, write_markdown  # noqa: E402
from hyperclust.cluster import make_estimator  # noqa: E402
from hyperclust.metrics import ari, evaluate  # noqa: E402
from hyperclust.operators.closure import closure_face_bound, downward_closure  # noqa: E402

METHODS = ("spectral-collapsed-cells", "spectral-collapsed-closure")


def _fits(hg, seeds):
    """``{method: [(labels, embedding, scores, seconds), ...]}`` over the seeds."""
    out = {}
    for method in METHODS:
        out[method] = []
        for seed in range(seeds):
            t = time.process_time()
            est = make_estimator(method, hg.n_classes, random_state=seed).fit(hg)
            out[method].append((est.labels_, est.embedding_, evaluate(hg.labels, est.labels_),
                                time.process_time() - t))
    return out


def _row(name, hg, fits):
    faces = [f.shape[0] for f in downward_closure(hg, 2)]
    angle = np.degrees(np.max(subspace_angles(fits[METHODS[0]][0][1], fits[METHODS[1]][0][1])))
    cells = [ari(a[0], b[0]) for a, b in zip(fits[METHODS[0]], fits[METHODS[1]])]
    row = [name, hg.n_nodes, "/".join(map(str, faces)),
           "/".join(map(str, closure_face_bound(hg, 2).tolist()))]
    for method in METHODS:
        acc = [f[2]["acc"] for f in fits[method]]
        nmi = [f[2]["nmi"] for f in fits[method]]
        row += [f"{np.mean(acc):.3f} ± {np.std(acc):.3f}", f"{np.mean(nmi):.3f} ± {np.std(nmi):.3f}",
                f"{np.median([f[3] for f in fits[method]]):.1f}"]
    return row + [f"{np.mean(cells):.3f}", f"{angle:.1f}"]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets",
                    default="cora-cc,citeseer-cc,contact-high-school-classes,cora-ca")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--out", default="docs/results/collapsed_closure.md")
    args = ap.parse_args(argv)
    rows = []
    for name in args.datasets.split(","):
        hg = load(name)
        try:
            rows.append(_row(name, hg, _fits(hg, args.seeds)))
        except ValueError as err:           # over the closure's budgets
            rows.append([name, hg.n_nodes, f"refused: {err}"] + [""] * 9)
        print(rows[-1], flush=True)
    header = ["dataset", "nodes", "closure faces (grade 0/1/2)", "face bound", "cells ACC",
              "cells NMI", "cells CPU s", "closure ACC", "closure NMI", "closure CPU s",
              "ARI cells vs closure", "max angle (deg)"]
    write_markdown(args.out, ["# Downward closure vs cells (benchmarks/studies/collapsed_closure.py)",
                              "", __doc__.split("Usage")[0].strip(), "",
                              f"Seeds: {args.seeds}, one thread. CPU seconds: median per fit, "
                              "machine under load (not timing results).", "",
                              *markdown_table(header, rows)])


if __name__ == "__main__":
    main()
