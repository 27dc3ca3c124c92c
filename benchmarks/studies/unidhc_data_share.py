"""Low-pass share of Uni-DHC's learned filter measured on the spectrum the data occupies.

Issue 29's target asks that the learned filter's low-pass share rise with the homophily h
(Spearman >= .9 over h = 0..1, every seed). The share of gamma alone,
``(g(0) - g(1)) / max |g|``, cannot rise past h = .6, where the learned mixture sits at
the ``P^K`` corner (docs/unidhc.md). Two shares that weigh the response by where the
features' energy lies on the spectrum of ``P`` (``mu_j`` its eigenvalues, ``u_j`` its
eigenvectors, ``e_j = ||u_j^T Xc||^2`` the spectral energy of the column-centred input),
both defined before their Spearman was looked at:

- **smoothing gain** (the primary one): ``R(g(P) X) - R(X)`` with the Rayleigh quotient
  ``R(Z) = tr(Zc^T P Zc) / tr(Zc^T Zc)``; equivalently the energy-weighted mean of ``mu``
  under the output's spectral weights ``e_j g(mu_j)^2`` minus the same under the input's
  ``e_j``. It is what the filter does to this input: > 0 when it moves the energy toward
  the smooth end, < 0 toward the rough end, 0 for the identity, and the input's own
  smoothness cancels.
- **energy-weighted response**: ``sum_j e_j g(mu_j) / (sum_j e_j * max_{[0,1]} |g|)`` =
  ``tr(Xc^T g(P) Xc) / (tr(Xc^T Xc) max |g|)``, the mean response over the data's
  spectrum . For a fixed filter it still rises when the input's
  energy moves to the smooth end, so part of its rise is the input's, not the learning's.

Both are computed with sparse products (no eigendecomposition: ``sum_j e_j f(mu_j) =
tr(Xc^T f(P) Xc)``). The filter is the default's (``UniDHC(4)``; its filter does not
depend on the encoder, ``gamma_lr = 0``), learned on ``hypergraph_sbm(2000, 4, h,
n_features=32)``.

Usage: ``PYTHONPATH=src python benchmarks/studies/unidhc_data_share.py [--seeds 0 1 2 3 4]``
"""

from __future__ import annotations

import argparse

import numpy as np
from scipy.stats import spearmanr

from hyperclust.cluster.unidhc import UniDHC
from hyperclust.datasets.synthetic import hypergraph_sbm
from hyperclust.models.basis import basis_response, polynomial_basis
from hyperclust.models.contrast import low_pass_share
from hyperclust.operators.propagation import PropagationOperator

LEVELS = [round(0.1 * i, 1) for i in range(11)]


def _rayleigh(P, Z):
    Zc = Z - Z.mean(axis=0)
    return float(np.sum(Zc * P.matmat(Zc)) / np.sum(Zc * Zc))


def data_shares(hg, gamma):
    """``(smoothing gain, energy-weighted response)`` of the power coefficients ``gamma``
    on ``hg``'s features (module docstring)."""
    X = np.asarray(hg.features, dtype=np.float64)
    P = PropagationOperator(hg)
    B = polynomial_basis(P, X - X.mean(axis=0), len(gamma) - 1)
    out = np.tensordot(np.asarray(gamma, dtype=np.float64), np.asarray(B, np.float64), axes=1)
    gain = _rayleigh(P, out) - _rayleigh(P, X)
    Xc = X - X.mean(axis=0)
    top = np.abs(gamma @ basis_response(np.linspace(0, 1, 201), len(gamma) - 1)).max()
    response = float(np.sum(Xc * out) / (np.sum(Xc * Xc) * top))
    return gain, response


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    args = ap.parse_args(argv)
    table = {}
    for seed in args.seeds:
        for h in LEVELS:
            hg = hypergraph_sbm(2000, 4, homophily=h, n_features=32, random_state=seed)
            gamma = UniDHC(4, epochs=0, embedding="filter", random_state=seed).fit(
                hg).coefficients_
            table[seed, h] = (low_pass_share(gamma), *data_shares(hg, gamma))
        print(f"seed {seed}: " + " ".join(
            f"h={h}: {table[seed, h][0]:+.3f}/{table[seed, h][1]:+.3f}/{table[seed, h][2]:+.3f}"
            for h in LEVELS), flush=True)
    print("h | share of gamma | smoothing gain | energy-weighted response (mean ± std)")
    for h in LEVELS:
        v = np.array([table[s, h] for s in args.seeds])
        print(f"{h} | " + " | ".join(f"{m:+.3f} ± {s:.3f}" for m, s in
                                    zip(v.mean(axis=0), v.std(axis=0))))
    for i, name in enumerate(("share of gamma", "smoothing gain", "energy-weighted response")):
        rho = [spearmanr(LEVELS, [table[s, h][i] for h in LEVELS])[0] for s in args.seeds]
        print(f"Spearman(h, {name}) per seed: " + ", ".join(f"{r:.3f}" for r in rho))


if __name__ == "__main__":
    main()
