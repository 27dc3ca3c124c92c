"""Per-step and per-block time and memory of DistributedUniDHC on LocalCluster(2 workers).

For each size: ``hypergraph_sbm(n, 4, homophily=0.7, n_features=16)``, written with
:func:`hyperclust.distributed.write_partitioned` into 4 row blocks and 2 hyperedge
partitions; ``DistributedUniDHC(4)`` with its defaults, which are ``UniDHC``'s (20 epochs, batches of 512,
hidden width 256) on a ``LocalCluster(n_workers=2, threads_per_worker=1, processes=True)``,
``--repeats`` fits, each under Dask's task stream, recording:

* wall time of a fit (min, median) and of each step (``timings_``, median);
* per-task compute time by task function (slowest block, median over fits);
* peak RSS of each worker process and of this (driver + trainer) process during a fit,
  sampled every 50 ms;
* in the same run: the bare kernel, ``order`` float32 CSR products ``H (H^T X)`` of width
  ``d`` in this process (what the basis costs without Dask), and the single-process
  ``UniDHC(4, isolated_neighbors=None)`` with the same settings (min of ``--repeats``), and
  how far the two agree: adjusted Rand index of the labels, largest difference of the
  learned coefficients;
* the CPU other processes used during the distributed fits, in cores (the workers' own CPU
  subtracted: ``_cluster_load.ClusterOtherCpu``); the table says idle when every row's is
  under :data:`hyperclust.bench.provenance.OTHER_CPU_IDLE`.

Writes docs/results/distributed_unidhc_scale.{json,md}. Run as
``HYPERCLUST_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONPATH=src
python benchmarks/bench_distributed_unidhc.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _cluster_load import ClusterOtherCpu, idle_phrase  # noqa: E402
from _rss import PeakRSS  # noqa: E402


def _task_name(key):
    return (key if isinstance(key, str) else str(key[0])).split("-")[0]


def measure(n, repeats, workdir, d=16, order=4):
    import distributed
    import scipy.sparse as sp
    from sklearn.metrics import adjusted_rand_score

    from hyperclust.cluster import UniDHC
    from hyperclust.datasets import hypergraph_sbm
    from hyperclust.distributed import DistributedUniDHC, write_partitioned

    hg = hypergraph_sbm(n, 4, homophily=0.7, n_features=d, random_state=0)
    phg = write_partitioned(hg, workdir, block_size=-(-n // 4),
                            edge_block_size=-(-hg.n_edges // 2), overwrite=True)
    load0 = os.getloadavg()
    walls, steps, phases, peaks, driver_peaks = [], [], {}, [], []
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as c:
        pids = list(c.run(os.getpid).values())
        with ClusterOtherCpu(c) as other:
            for _ in range(repeats):
                with PeakRSS(pids + [os.getpid()]) as rss, distributed.get_task_stream(c) as ts:
                    t = time.perf_counter()
                    est = DistributedUniDHC(4, client=c, random_state=0).fit(phg)
                    walls.append(time.perf_counter() - t)
                steps.append(est.timings_)
                peaks.append([rss.peak[p] / 2**20 for p in pids])
                driver_peaks.append(rss.peak[os.getpid()] / 2**20)
                per = {}
                for rec in ts.data:
                    comp = [s for s in rec["startstops"] if s["action"] == "compute"]
                    per.setdefault(_task_name(rec["key"]), []).append(
                        sum(s["stop"] - s["start"] for s in comp))
                for name, durs in per.items():
                    phases.setdefault(name, []).append(max(durs))
    H = sp.csr_matrix(hg.incidence, dtype=np.float32)
    Ht = H.T.tocsr()
    X = np.random.default_rng(0).standard_normal((n, d)).astype(np.float32)
    kernel = []
    for _ in range(repeats):
        t = time.perf_counter()
        Y = X
        for _ in range(order):
            Y = H @ (Ht @ Y)
        kernel.append(time.perf_counter() - t)
    single = []
    for _ in range(repeats):
        t = time.perf_counter()
        ref = UniDHC(4, isolated_neighbors=None, random_state=0).fit(hg)
        single.append(time.perf_counter() - t)
    load1 = os.getloadavg()
    return {
        "n_nodes": n, "n_edges": hg.n_edges, "nnz": int(hg.incidence.nnz), "d": d,
        "order": order, "row_blocks": phg.n_blocks, "edge_partitions": len(phg.edge_blocks),
        "fit_min_s": min(walls), "fit_median_s": float(np.median(walls)),
        "steps_median_s": {k: float(np.median([s[k] for s in steps])) for k in steps[0]},
        "task_max_block_median_s": {k: float(np.median(v)) for k, v in phases.items()},
        "worker_peak_rss_mb": np.max(peaks, axis=0).tolist(),
        "driver_peak_rss_mb": max(driver_peaks),
        "basis_block_mb": (order + 1) * (-(-n // 4)) * d * 4 / 2**20,
        "kernel_min_s": min(kernel), "single_process_min_s": min(single),
        "ari_single_process": float(adjusted_rand_score(est.labels_, ref.labels_)),
        "coefficients_max_diff": float(np.abs(est.coefficients_ - ref.coefficients_).max()),
        "loadavg_before": list(load0), "loadavg_after": list(load1),
        "other_cpu_cores": other.cores,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", default="docs/results/distributed_unidhc_scale")
    args = ap.parse_args()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    dirty = bool(subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                                capture_output=True, text=True).stdout.strip())
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.sizes:
            rows.append(measure(n, args.repeats, Path(tmp) / f"n{n}"))
            print(json.dumps(rows[-1]), flush=True)
    meta = {"commit": commit + ("+dirty" if dirty else ""), "threads": os.environ.get(
        "HYPERCLUST_NUM_THREADS"), "cpus": os.cpu_count(), "rows": rows}
    Path(args.out + ".json").write_text(json.dumps(meta, indent=1))
    lines = [f"{idle_phrase(r.get('other_cpu_cores') for r in rows)} "
             f"Commit {meta['commit']}, "
             f"HYPERCLUST_NUM_THREADS={meta['threads']}, {meta['cpus']} CPUs, "
             "LocalCluster(2 workers x 1 thread, processes), DistributedUniDHC(4) defaults, "
             f"d = 16 features, min/median of {args.repeats} fits.", "",
             "| nodes | nnz | fit min / median s | input / filter choice / basis / training / "
             "inference+k-means s | slowest block: basis `_write_rows` / `embed_block` s "
             "| worker peak RSS MB | driver peak RSS MB | basis block MB "
             "| bare kernel s | single-process s | ARI / max gamma diff vs single-process "
             "| load before/after |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        st, ph = r["steps_median_s"], r["task_max_block_median_s"]
        lines.append(
            f"| {r['n_nodes']:,} | {r['nnz']:,} | {r['fit_min_s']:.2f} / {r['fit_median_s']:.2f} "
            f"| {st['input']:.2f} / {st['filter_choice']:.2f} / {st['basis']:.2f} / "
            f"{st['training']:.2f} / {st['inference_kmeans']:.2f} "
            f"| {ph.get('_write_rows', ph.get('_write', 0)):.3f} / "
            f"{ph.get('embed_block', ph.get('_embed_block', 0)):.3f} "
            f"| {' / '.join(f'{v:.0f}' for v in r['worker_peak_rss_mb'])} "
            f"| {r['driver_peak_rss_mb']:.0f} | {r['basis_block_mb']:.1f} "
            f"| {r['kernel_min_s']:.3f} | {r['single_process_min_s']:.2f} "
            f"| {r['ari_single_process']:.4f} / {r['coefficients_max_diff']:.1e} "
            f"| {r['loadavg_before'][0]:.1f}/{r['loadavg_after'][0]:.1f} |")
    Path(args.out + ".md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
