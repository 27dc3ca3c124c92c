"""The paper's smoothing experiment, our construction: random geometric graph (n=500 nodes in
the unit square, radius 0.08), clean signal sin(2 pi x) cos(2 pi y), noise sigma=0.5;
0/100/150/200 random shortcut edges injected; denoise by (I + tau L)^-1 with

* the graph Laplacian L (unit edge weights),
* S_eps of the coboundary complex on the graph (edges as size-2 hyperedges),
* S_eps of the coboundary complex on edges + triangles (every triangle of the graph, shortcut
  edges included, is a size-3 hyperedge; a shortcut edge lies in almost no triangle),

S_eps with library defaults (unit clique weights, eps=1e-2, gamma="auto", the PSD-safe
couplings). Each operator is scaled to unit largest eigenvalue. tau is chosen per run, without
the clean signal, by Stein's unbiased risk estimate (SURE, noise sigma known) over a fixed grid;
the "oracle" columns take the best tau on the clean signal (an upper bound, not a method).
MSE against the clean signal, mean +- std (population std, as first published) over 5 seeds.
Rows go to the harness's store (``--store``, each row with its commit).

Usage: nice python benchmarks/studies/bench_smoothing.py [--out docs/results/collapsed.md (appended)]
       [--store docs/results/smoothing.json]
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
import scipy.sparse as sp

from hyperclust import Hypergraph
from hyperclust.bench import (ResultStore, fmt_mean_std, markdown_row, markdown_table, mean_std,
                              run_seeds, write_markdown)
from hyperclust.operators import CoboundaryCollapsed

SIGMA = 0.5
TAUS = np.geomspace(0.1, 1000.0, 60)
PAPER = {"graph Laplacian": [0.066, 0.082, 0.092, 0.099], "S_eps": [0.066, 0.074, 0.072, 0.073]}
SHORTCUTS = (0, 100, 150, 200)
OPERATORS = ("graph Laplacian", "S_eps edges", "S_eps edges+triangles")
SEEDS = 5


def triangles(A: sp.csr_matrix) -> np.ndarray:
    """All triangles ``u < v < w`` of a graph (dense boolean rows; benchmark sizes only)."""
    Ad = A.toarray() > 0
    u, v = np.nonzero(np.triu(Ad, 1))
    e, w = np.nonzero(Ad[u] & Ad[v])
    keep = w > v[e]
    return np.column_stack([u[e[keep]], v[e[keep]], w[keep]])


def smooth_errors(S, noisy, clean):
    """(MSE at the SURE tau, MSE at the oracle tau) of ``(I + tau S)^-1 noisy``."""
    lam, U = np.linalg.eigh(S)
    lam = np.clip(lam / lam.max(), 0.0, None)
    c = U.T @ noisy
    n = noisy.size
    mse, sure = [], []
    for t in TAUS:
        f = 1.0 / (1.0 + t * lam)
        est = U @ (f * c)
        mse.append(np.mean((est - clean) ** 2))
        sure.append(np.mean((noisy - est) ** 2) - SIGMA ** 2 + 2 * SIGMA ** 2 * f.sum() / n)
    return float(mse[int(np.argmin(sure))]), float(min(mse))


def run(seed, shortcuts, n=500, radius=0.08):
    rng = np.random.default_rng(seed)
    P = rng.random((n, 2))
    D = np.linalg.norm(P[:, None] - P[None], axis=2)
    iu = np.triu_indices(n, 1)
    close = D[iu] < radius
    E = np.vstack([np.column_stack([iu[0][close], iu[1][close]]),
                   np.sort(np.array([rng.choice(n, 2, replace=False) for _ in range(shortcuts)]).reshape(-1, 2), axis=1)])
    clean = np.sin(2 * np.pi * P[:, 0]) * np.cos(2 * np.pi * P[:, 1])
    noisy = clean + SIGMA * rng.standard_normal(n)
    A = sp.csr_matrix((np.ones(2 * len(E)), (np.r_[E[:, 0], E[:, 1]], np.r_[E[:, 1], E[:, 0]])), shape=(n, n))
    A.data[:] = 1.0
    L = (sp.diags(np.asarray(A.sum(1)).ravel()) - A).toarray()
    T = triangles(A)
    edges_hg = Hypergraph.from_edges(list(E), n_nodes=n)
    tri_hg = Hypergraph.from_edges(list(E) + list(T), n_nodes=n)
    ops = {"graph Laplacian": L,
           "S_eps edges": CoboundaryCollapsed(edges_hg, weighting="unit").to_dense(),
           "S_eps edges+triangles": CoboundaryCollapsed(tri_hg, weighting="unit").to_dense()}
    return {k: smooth_errors(S, noisy, clean) for k, S in ops.items()}


def measure(shortcuts):
    """``measure(seed)``: one row per operator with the MSE at the SURE and oracle tau."""
    def one(seed):
        return [{"operator": k, "mse_sure": sure, "mse_oracle": oracle}
                for k, (sure, oracle) in run(seed, shortcuts).items()]
    return one


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=None, help="markdown file the table is appended to")
    ap.add_argument("--store", default="docs/results/smoothing.json")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    store = ResultStore(args.store, key=("shortcuts", "operator", "seed"))
    head = ["shortcuts"] + [f"{k} {t}" for k in OPERATORS for t in ("SURE", "oracle")] \
        + ["paper graph L", "paper S_eps"]
    cells = []
    for i, s in enumerate(SHORTCUTS):
        rows = run_seeds(measure(s), SEEDS, settings={"shortcuts": s}, store=store, echo=False)
        cells.append([s] + [fmt_mean_std(*mean_std([r[f] for r in rows if r["operator"] == k],
                                                   ddof=0), digits=4)
                            for k in OPERATORS for f in ("mse_sure", "mse_oracle")]
                     + [PAPER["graph Laplacian"][i], PAPER["S_eps"][i]])
        print(markdown_row(cells[-1]), flush=True)
    lines = ["", "## Smoothing experiment (bench_smoothing.py)", "",
             __doc__.split("Usage")[0].strip(), ""] + markdown_table(head, cells)
    if args.out:
        write_markdown(args.out, lines, append=True)


if __name__ == "__main__":
    main()
