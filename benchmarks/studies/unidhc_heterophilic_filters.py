"""Why Uni-DHC's canonical filter misses on the heterophilous graphs, and what the held-out
check sees (docs/unidhc.md, "Heterophilous graphs").

Per set and seed, for the fixed filters I, P, P^2, I-P, (I-P)^2 on Uni-DHC's input and basis:

* ``fixed``: ACC / NMI of k-means on the row-normalised filter output (labels score only);
* ``criterion``: the canonical criterion (log of the sum of the k - 1 largest squared canonical
  correlations, higher is better) with the feature columns split after the truncated SVD
  (what Uni-DHC does) and before it (each half projected on its own), and the filter the
  learning reaches from the uniform mixture;
* ``heldout``: the mean held-out error (3 splits, precision weighting; lower is better) of
  each filter's clustering of the split copies;
* ``diagnose``: what ``gamma_init="heldout"`` does, per candidate (the canonical filter and
  the atoms): its mean held-out error, the edge and attribute AUCs, its distance from the
  canonical filter in paired standard errors (below -2 replaces it), the ACC of its
  clustering of the split copies, and the ACC / NMI of the full Uni-DHC forced to it
  (concatenation, and the filter block alone); beside k-means on X and on Uni-DHC's input.

    OMP_NUM_THREADS=1 PYTHONPATH=src python benchmarks/studies/unidhc_heterophilic_filters.py \\
        fixed criterion heldout --sets wisconsin chameleon_filtered --seeds 0
"""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path

import numpy as np

FILTERS = {"I": [1, 0, 0], "P": [0, 1, 0], "P^2": [0, 0, 1], "I-P": [1, -1, 0],
           "(I-P)^2": [1, -2, 1]}


def _basis(hg, seed, k):
    from hyperclust.cluster.unidhc import UniDHC
    from hyperclust.models.basis import polynomial_basis
    from hyperclust.operators.propagation import PropagationOperator

    X, scale, _ = UniDHC(k, random_state=seed)._prepare_input(hg, seed, k)
    P = PropagationOperator(hg, self_loops=1.0)
    return P, polynomial_basis(P, X, 2, scale=scale)


def _labels(B, seed, k):
    from sklearn.preprocessing import normalize

    from hyperclust.cluster.rounding import kmeans_labels
    from hyperclust.cluster.unidhc import _filter_output

    return {f: kmeans_labels(normalize(_filter_output(np.array(g, float), B)), k, 10, seed)
            for f, g in FILTERS.items()}


def fixed(hg, seed):
    from hyperclust.metrics import acc, nmi

    labels = _labels(_basis(hg, seed, hg.n_classes)[1], seed, hg.n_classes)
    return {f: f"{acc(hg.labels, y):.3f}/{nmi(hg.labels, y):.3f}" for f, y in labels.items()}


def _split_first_parts(hg, P, seed, width=64):
    """Canonical parts with the raw columns split first, each half projected to ``width``."""
    from sklearn.decomposition import TruncatedSVD

    from hyperclust.models.basis import polynomial_basis
    from hyperclust.models.canonical import RIDGE, _inverse_sqrt

    X = hg.features.tocsc()
    cols = np.random.default_rng(seed).permutation(X.shape[1])
    halves = []
    for c in np.array_split(cols, 2):
        Xh = TruncatedSVD(width, random_state=seed).fit_transform(X[:, np.sort(c)])
        halves.append(np.asarray(polynomial_basis(P, Xh / np.sqrt((Xh ** 2).sum(1).mean()), 2),
                                 float))
    parts = []
    for a, b in ((0, 1), (1, 0)):
        A = halves[a] - halves[a].mean(1, keepdims=True)
        R = halves[b][0] - halves[b][0].mean(0)
        W = A.transpose(1, 0, 2).reshape(A.shape[1], -1)
        Rw = R @ _inverse_sqrt(R.T @ R, RIDGE)
        d = A.shape[2]
        parts.append(((W.T @ W).reshape(3, d, 3, d), (W.T @ Rw).reshape(3, d, R.shape[1])))
    return parts


def criterion(hg, seed):
    from hyperclust.models.canonical import canonical_correlation, canonical_parts
    from hyperclust.models.contrast import atom_coefficients, learn_mixture

    k = hg.n_classes
    P, B = _basis(hg, seed, k)
    out = {}
    for name, parts in (("projected, then split", canonical_parts(B, np.flatnonzero(~hg.isolated), seed)),
                        ("split, then projected", _split_first_parts(hg, P, seed))):
        score = {f: -canonical_correlation(np.array(g, float), parts, k - 1)[0]
                 for f, g in FILTERS.items()}
        w, _ = learn_mixture(lambda g: canonical_correlation(g, parts, k - 1), 2)
        g = w @ atom_coefficients(2)
        learned = -canonical_correlation(g, parts, k - 1)[0]
        out[name] = " ".join(f"{f} {v:.2f}" for f, v in score.items()) + \
            f"; learned {np.round(g, 2).tolist()} {learned:.2f}"
    return out


def heldout(hg, seed):
    from hyperclust.cluster.hsbm_heldout import heldout_errors, split_hypergraph

    errors = {f: [] for f in FILTERS}
    for j in range(3):
        split = split_hypergraph(hg, random_state=seed + 1000 * j)
        k = hg.n_classes
        e = heldout_errors(split, _labels(_basis(split.train, seed, k)[1], seed, k), "precision")
        for f in FILTERS:
            errors[f].append(e[f])
    return {f: f"{np.mean(v):.4f}" for f, v in errors.items()}


def diagnose(hg, seed):
    from sklearn.preprocessing import normalize

    from hyperclust.cluster.baselines import KMeansFeatures
    from hyperclust.cluster.hsbm_heldout import (heldout_aucs, heldout_errors,
                                                 paired_standard_errors, split_hypergraph)
    from hyperclust.cluster.rounding import kmeans_labels
    from hyperclust.cluster.unidhc import UniDHC
    from hyperclust.cluster.unidhc_output import FILTER_SPLITS, atom_names, filter_labels
    from hyperclust.metrics import acc, nmi
    from hyperclust.models.contrast import atom_coefficients

    k, y = hg.n_classes, hg.labels
    score = lambda z: f"{acc(y, z):.3f}/{nmi(y, z):.3f}"  # noqa: E731
    est = UniDHC(k, gamma_init="heldout", random_state=seed).fit(hg)
    X = est._prepare_input(hg, seed, k)[0]
    out = {"pick": est.filter_family_, "unidhc": score(est.labels_),
           "kmeans X": score(KMeansFeatures(k, random_state=seed).fit(hg).labels_),
           "kmeans input": score(kmeans_labels(normalize(X), k, 10, seed))}
    atoms = dict(zip(atom_names(2), atom_coefficients(2)))
    errs, ses, aucs, split_acc = {}, {}, {}, {}
    for j in range(FILTER_SPLITS):
        s = split_hypergraph(hg, random_state=seed + 1000 * j)
        labels = filter_labels(est, s.train, 2, seed, k, 300)
        e = heldout_errors(s, labels, "precision")
        se = paired_standard_errors(s, labels, "canonical", "precision")
        for c in labels:
            errs.setdefault(c, []).append(e[c])
            ses.setdefault(c, []).append(se[c] ** 2)
            a = heldout_aucs(s, labels[c])
            aucs.setdefault(c, []).append((a["edges"] or np.nan, a["attributes"] or np.nan))
            split_acc.setdefault(c, []).append(acc(y, labels[c]))
    for c, g in {"canonical": "canonical", **atoms}.items():
        z = (np.mean(errs[c]) - np.mean(errs["canonical"])) / max(
            np.sqrt(np.sum(ses[c])) / FILTER_SPLITS, 1e-12)
        full = UniDHC(k, gamma_init=g, random_state=seed).fit(hg)
        block = full.embedding_[:, :full.n_filter_columns_]
        edge, attr = np.nanmean(aucs[c], axis=0)
        out[c] = (f"err {np.mean(errs[c]):.4f} z {z:+.1f} aucE {edge:.3f} aucA {attr:.3f} "
                  f"splitACC {np.mean(split_acc[c]):.3f} full {score(full.labels_)} "
                  f"filter {score(kmeans_labels(block, k, est.n_init_, seed))}")
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("parts", nargs="+", choices=("fixed", "criterion", "heldout", "diagnose"))
    parser.add_argument("--sets", nargs="+", default=["wisconsin", "chameleon_filtered"])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0])
    parser.add_argument("--data-dir",
                        default=str(Path(__file__).resolve().parents[3] / "shared" / "data"))
    args = parser.parse_args(argv)
    from hyperclust.datasets import load_dataset

    warnings.simplefilter("ignore")
    for name in args.sets:
        hg = load_dataset(name, data_dir=args.data_dir, download=False)
        for seed in args.seeds:
            for part in args.parts:
                result = globals()[part](hg, seed)
                if part == "diagnose":  # one line per entry: too long for one
                    for key, value in result.items():
                        print(name, seed, key, value, flush=True)
                else:
                    print(name, seed, part, result, flush=True)


if __name__ == "__main__":
    main()
