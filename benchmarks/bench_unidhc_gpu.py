"""Uni-DHC on a CUDA device beside the same fit on the host CPU (run on a machine with a GPU).

For each size: ``hypergraph_sbm(n, 4, homophily=.8, 32 features)``; ``unidhc`` fitted with
``device="cuda"`` and ``device="cpu"`` (the CPU fit only up to ``--cpu-max``), min and median
wall time of ``--repeats`` fits after one warm-up, ACC against the planted classes, ARI between
the two devices, peak GPU memory (``torch.cuda.max_memory_allocated``) and peak RSS; beside them
the bare kernel: one float32 ``H (H^T X)`` product on the GPU (torch CSR) and on the CPU (scipy),
same size, same run. Prints the commit, threads and load average.

    PYTHONPATH=src python benchmarks/bench_unidhc_gpu.py --sizes 10000 100000 1000000
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parent))


def _timed(fn, repeats):
    fn()                                   # warm-up: CUDA context, kernels, imports
    times, out = [], None
    for _ in range(repeats):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), float(np.median(times)), out


def _bare_kernel(hg, torch, repeats=5):
    H = sp.csr_matrix(hg.incidence, dtype=np.float32)
    X = np.random.default_rng(0).standard_normal((hg.n_nodes, 32)).astype(np.float32)
    HT = H.T.tocsr()
    cpu = min(_timed(lambda: H @ (HT @ X), repeats)[:2])
    Hg = torch.sparse_csr_tensor(torch.as_tensor(H.indptr, dtype=torch.int64),
                                 torch.as_tensor(H.indices, dtype=torch.int64),
                                 torch.as_tensor(H.data), size=H.shape, device="cuda")
    HTg = Hg.t().to_sparse_csr()
    Xg = torch.as_tensor(X, device="cuda")

    def gpu_product():
        out = Hg @ (HTg @ Xg)
        torch.cuda.synchronize()
        return out
    gpu = min(_timed(gpu_product, repeats)[:2])
    return cpu, gpu


def main(argv=None):
    import torch
    from sklearn.metrics import adjusted_rand_score

    from hyperclust.cluster.unidhc import UniDHC
    from hyperclust.datasets.synthetic import hypergraph_sbm
    from hyperclust.metrics import acc as clustering_accuracy

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--cpu-max", type=int, default=100_000)
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)
    from _rows import short_commit

    print(f"commit {short_commit()} torch {torch.__version__} "
          f"gpu {torch.cuda.get_device_name(0)} torch threads {torch.get_num_threads()} "
          f"cpus {os.cpu_count()} load {os.getloadavg()}", flush=True)
    rows = []
    for n in args.sizes:
        hg = hypergraph_sbm(n, 4, homophily=0.8, n_features=32, random_state=0)
        row = {"n": n, "nnz": int(hg.incidence.nnz)}
        torch.cuda.reset_peak_memory_stats()

        def fit(device):
            return UniDHC(4, random_state=0, device=device).fit(hg).labels_
        row["cuda_min_s"], row["cuda_median_s"], gpu_labels = _timed(lambda: fit("cuda"),
                                                                      args.repeats)
        row["cuda_peak_gb"] = torch.cuda.max_memory_allocated() / 2**30
        row["cuda_acc"] = float(clustering_accuracy(hg.labels, gpu_labels))
        if n <= args.cpu_max:
            row["cpu_min_s"], row["cpu_median_s"], cpu_labels = _timed(lambda: fit("cpu"),
                                                                        args.repeats)
            row["cpu_acc"] = float(clustering_accuracy(hg.labels, cpu_labels))
            row["ari_cpu_cuda"] = float(adjusted_rand_score(cpu_labels, gpu_labels))
        row["bare_spmm_cpu_s"], row["bare_spmm_cuda_s"] = _bare_kernel(hg, torch)
        row["peak_rss_gb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
        row["load"] = os.getloadavg()[0]
        rows.append(row)
        print(json.dumps(row), flush=True)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()
