"""Distributed spectral clustering against the single process at 10^5 nodes: how much of
their label difference is the k-means seed, how much the eigensolver's tolerance.

``hypergraph_sbm(10^5, 4, homophily=0.7, random_state=0)``, 4 row blocks, a
``LocalCluster`` of 2 one-thread worker processes. Fits
``SpectralHypergraphClustering(4)`` with ``random_state`` 0 and 1 and ``tol`` "auto" (1e-3
at this size) and 1e-8, and ``DistributedSpectralClustering(4)`` with the same settings;
prints each one's ARI to the planted groups and to the single process's fits. Run as
``OMP_NUM_THREADS=1 HYPERCLUST_NUM_THREADS=1 PYTHONPATH=src python
benchmarks/studies/spectral_seed_agreement.py``.
"""

from __future__ import annotations

import tempfile


def main() -> None:
    import distributed
    from sklearn.metrics import adjusted_rand_score as ari

    from hyperclust.cluster.spectral import SpectralHypergraphClustering
    from hyperclust.datasets import hypergraph_sbm
    from hyperclust.distributed import DistributedSpectralClustering, write_partitioned

    hg = hypergraph_sbm(100_000, 4, homophily=0.7, n_features=0, random_state=0)
    fits = {("single", tol, seed): SpectralHypergraphClustering(
        4, random_state=seed, tol=tol).fit(hg).labels_
        for tol, seed in (("auto", 0), (1e-8, 0), ("auto", 1))}
    with tempfile.TemporaryDirectory() as tmp, \
            distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                     dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        phg = write_partitioned(hg, tmp, block_size=25_000)
        for tol in ("auto", 1e-8):
            for seed in (0, 1):
                fits["distributed", tol, seed] = DistributedSpectralClustering(
                    4, client=client, random_state=seed, tol=tol).fit(phg).labels_
    ref, tight = fits["single", "auto", 0], fits["single", 1e-8, 0]
    for key, labels in fits.items():
        print(key, f"ARI to the planted groups {ari(hg.labels, labels):.4f}, to the single "
              f"process (seed 0) {ari(ref, labels):.4f}, tol 1e-8 {ari(tight, labels):.4f}")


if __name__ == "__main__":
    main()
