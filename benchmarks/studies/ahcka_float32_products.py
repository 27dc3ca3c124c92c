"""Would float32 walk products change AHCKA's clusterings? (issue 32: a cheaper iteration at
10^8 incidences.) The fit with its products ``M X`` computed in float32 (the incidence,
scalings and kNN walk cast once; QR, discretisation and score stay float64) against the
float64 fit: ARI between the two, iterations and selected iteration, ACC and NMI over seeds
0-4 on shared sets. A study of the labels only: the float32 products here go through scipy,
so their speed says nothing. (Same clusterings on the 10^6 rung and the shared sets, but on
the 10^7 rung float32 ran 125 iterations instead of 110, ARI .951: docs/results/ahcka.md.)

    OMP_NUM_THREADS=1 PYTHONPATH=src python benchmarks/studies/ahcka_float32_products.py \\
        --sets cora-ca citeseer-cc zoo mushroom 20newsw100 --rung /tmp/past_1e+06.npz

``--rung`` reads a rung saved by ``benchmarks/bench_past_1e6.py --save`` (4 clusters, seed 0).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def float32_walk_class():
    """A :class:`BufferedMixedWalk` whose products run in float32 (returned as float64)."""
    from hyperclust.operators.buffered_walk import BufferedMixedWalk

    class Float32Walk(BufferedMixedWalk):
        def __call__(self, X, overwrite_input=False):
            if self._H is None:
                return np.asarray(self.walk @ X)
            if not hasattr(self, "_H32"):
                self._H32, self._Ht32 = (A.astype(np.float32) for A in (self._H, self._Ht))
                self._Q32 = None if self._Q is None else self._Q.astype(np.float32)
            X32 = np.asarray(X, dtype=np.float32)
            E = self._Ht32 @ X32
            E *= self._edge_scale.astype(np.float32)
            Y = self._H32 @ E
            if self._self_loops:
                Y += np.float32(self._self_loops) * X32
            Y *= self._pinv.astype(np.float32)
            Y *= self._a.astype(np.float32)
            if self._Q32 is not None:
                Y += self._b.astype(np.float32) * (self._Q32 @ X32)
            return Y.astype(np.float64)

    return Float32Walk


def fit_both(hg, k, seed):
    """``(float64 fit, float32-products fit)``."""
    import hyperclust.cluster.ahcka as ahcka

    exact = ahcka.BufferedMixedWalk
    a = ahcka.AHCKA(k, random_state=seed).fit(hg)
    ahcka.BufferedMixedWalk = float32_walk_class()
    try:
        b = ahcka.AHCKA(k, random_state=seed).fit(hg)
    finally:
        ahcka.BufferedMixedWalk = exact
    return a, b


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", nargs="*", default=["cora-ca", "citeseer-cc", "zoo"])
    ap.add_argument("--data-dir", default="/work/shared/data")
    ap.add_argument("--rung", help="a rung .npz of bench_past_1e6.py --save")
    args = ap.parse_args(argv)
    from sklearn.metrics import adjusted_rand_score as ari

    from hyperclust.datasets.load import load_dataset
    from hyperclust.metrics import evaluate

    if args.rung:
        from bench_past_1e6 import load_input

        a, b = fit_both(load_input(args.rung), 4, 0)
        print(f"{args.rung}: ARI {ari(a.labels_, b.labels_):.4f}, iterations "
              f"{a.n_iter_}/{b.n_iter_}, selected {a.best_iter_}/{b.best_iter_}", flush=True)
    for name in args.sets:
        hg = load_dataset(name, data_dir=args.data_dir, download=False)
        k, rows = len(np.unique(hg.labels)), []
        for seed in range(5):
            a, b = fit_both(hg, k, seed)
            ea, eb = evaluate(hg.labels, a.labels_), evaluate(hg.labels, b.labels_)
            rows.append((ari(a.labels_, b.labels_), ea["acc"], eb["acc"], ea["nmi"], eb["nmi"]))
        r = np.array(rows)
        print(f"{name}: ARI min {r[:, 0].min():.4f}; ACC float64 {r[:, 1].mean():.3f} +- "
              f"{r[:, 1].std():.3f}, float32 {r[:, 2].mean():.3f} +- {r[:, 2].std():.3f}; NMI "
              f"float64 {r[:, 3].mean():.3f}, float32 {r[:, 4].mean():.3f}", flush=True)


if __name__ == "__main__":
    main()
