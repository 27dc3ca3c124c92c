"""Which label-free filter criterion ranks fixed filters as k-means does? (Uni-DHC, issue 29)

For ``hypergraph_sbm(2000, 4, homophily=h, n_features=32, random_state=seed)`` and a grid
of low-pass mixtures of ``I, P, P^2``, prints per filter: ACC of k-means on the
row-normalised filter output (labels only score), the feature-split kernel alignment
(:func:`hyperclust.models.contrast.feature_split_alignment`, the default until this
study) and the feature-split canonical correlation
(:func:`hyperclust.models.canonical.canonical_correlation`, k - 1 = 3 directions), both as
``-objective`` (higher = preferred), and which filter each criterion prefers::

    PYTHONPATH=src python benchmarks/studies/unidhc_filter_criteria.py --levels 0.4 0.5 0.7
"""

from __future__ import annotations

import argparse

import numpy as np
from sklearn.preprocessing import normalize

from hyperclust.cluster.baselines import kmeans_labels
from hyperclust.cluster.unidhc import UniDHC
from hyperclust.datasets.synthetic import hypergraph_sbm
from hyperclust.metrics import evaluate
from hyperclust.models.basis import polynomial_basis
from hyperclust.models.canonical import canonical_correlation, canonical_parts
from hyperclust.models.contrast import alignment_parts, feature_split_alignment
from hyperclust.operators import propagation
from hyperclust.operators.propagation import PropagationOperator

FILTERS = {"X": [1, 0, 0], ".5X+.5PX": [.5, .5, 0], ".25X+.75PX": [.25, .75, 0],
           "PX": [0, 1, 0], ".75PX+.25P^2X": [0, .75, .25], ".5PX+.5P^2X": [0, .5, .5],
           ".25PX+.75P^2X": [0, .25, .75], "P^2X": [0, 0, 1]}


def scores(h, seed):
    """name -> (ACC, alignment, canonical) for every filter of :data:`FILTERS`."""
    hg = hypergraph_sbm(2000, 4, homophily=h, n_features=32, random_state=seed)
    X, _ = UniDHC(4, random_state=seed)._prepare_input(hg, seed, 4)
    B = polynomial_basis(PropagationOperator(hg, dtype=propagation.BASIS_DTYPE), X, 2)
    rows = np.flatnonzero(~hg.isolated)
    align, canon = alignment_parts(B, rows, seed), canonical_parts(B, rows, seed)
    out = {}
    for name, g in FILTERS.items():
        Z = np.tensordot(np.asarray(g, dtype=B.dtype), B, axes=1)
        acc = evaluate(hg.labels, kmeans_labels(normalize(Z), 4, 10, seed))["acc"]
        g = np.asarray(g, dtype=np.float64)
        out[name] = (acc, -feature_split_alignment(g, align)[0],
                     -canonical_correlation(g, canon, 3)[0])
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--levels", type=float, nargs="+", default=[0.3, 0.4, 0.5, 0.6, 0.7])
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    args = ap.parse_args(argv)
    for h in args.levels:
        picked = {"best ACC": [], "alignment": [], "canonical": []}
        for seed in args.seeds:
            s = scores(h, seed)
            for i, key in enumerate(picked):
                best = max(s, key=lambda n: s[n][i])
                picked[key].append((best, s[best][0]))
            print(f"h={h} seed={seed}: " + ", ".join(
                f"{n} {a:.3f}/{c1:.3f}/{c2:.3f}" for n, (a, c1, c2) in s.items()), flush=True)
        print(f"h={h} mean ACC of the pick: " + ", ".join(
            f"{key} {np.mean([a for _, a in v]):.3f} ({', '.join(n for n, _ in v)})"
            for key, v in picked.items()), flush=True)


if __name__ == "__main__":
    main()
