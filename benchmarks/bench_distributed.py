"""Per-block time and memory of the distributed block operator on LocalCluster(2 workers).

For each size: ``hypergraph_sbm(n, 4, homophily=0.7)`` (as many hyperedges as nodes, sizes
2..6), written with :func:`hyperclust.distributed.write_partitioned` into 4 row blocks and 2
hyperedge partitions; a ``LocalCluster(n_workers=2, threads_per_worker=1, processes=True)``
loads the blocks; then ``--repeats`` applications of Zhou's normalized affinity to a
``(n, d)`` float64 block (the product inside every subspace iteration), each under Dask's
task stream, recording:

* wall time of one application (min, median), and the bare kernel: the same two CSR
  products (``E = A X; Y = A^T E``, float64, one thread) in this process, same run;
* per-task compute time by phase (``_down``: ``H_b^T X_b``; ``_sum_edges``: partition sums;
  ``_slice_edges``: rows each block needs; ``_up``: ``H_b E``), max over blocks, median
  over repeats; since the per-worker exchange (:mod:`hyperclust.distributed.exchange`) the
  same columns hold its phases ``down_worker``, ``reduce_home``, ``slice_for`` and
  ``_up_block`` (rows stored before it keep the former ones);
* worker memory: RSS of each worker before and after loading the blocks, and the bytes of
  one loaded block (``_NodeBlock.nbytes``);
* the CPU other processes used during the applications, in cores (the workers' own CPU
  subtracted: ``_cluster_load.ClusterOtherCpu``); the table says idle when every row's is
  under :data:`hyperclust.bench.provenance.OTHER_CPU_IDLE`;
* the numbers moved per application by the per-block exchange: ``2 sum_b |E_b| d`` float64
  (phase-1 pieces and phase-2 slices), ``E_b`` the hyperedges row block ``b`` touches (an
  upper bound since the per-worker exchange, which moves only rows several workers touch).

A stored row whose code has changed since carries ``stale`` (why), printed first; a rerun
replaces it. Rows (one per size and ``d``) go to the harness's store ``--out`` + ``.json`` (each with
its commit; a rerun replaces the rows it measures and keeps the others); the table
``--out`` + ``.md`` is rewritten from every stored row. Run as
``HYPERCLUST_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONPATH=src python benchmarks/bench_distributed.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from hyperclust.bench import ResultStore, commits_of, markdown_table, write_markdown

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _cluster_load import ClusterOtherCpu, idle_phrase  # noqa: E402

KEY = ("n_nodes", "d")


def _rss():
    import psutil

    return psutil.Process().memory_info().rss


def _edges_touched(block):
    return int(block.edges.size)


def _block_bytes(block):
    return block.nbytes


def measure(n, d, repeats, workdir):
    import distributed

    from hyperclust.datasets import hypergraph_sbm
    from hyperclust.distributed import write_partitioned
    from hyperclust.distributed.linalg import random_blocks
    from hyperclust.distributed.operator import normalized_affinity

    hg = hypergraph_sbm(n, 4, homophily=0.7, n_features=0, random_state=0)
    t0 = time.perf_counter()
    phg = write_partitioned(hg, workdir, block_size=-(-n // 4),
                            edge_block_size=-(-hg.n_edges // 2), overwrite=True)
    t_write = time.perf_counter() - t0
    load0 = os.getloadavg()[0]
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as c:
        rss0 = c.run(_rss)
        A = normalized_affinity(phg, c, tau=1.0)
        distributed.wait(A.blocks)
        rss1 = c.run(_rss)
        block_bytes = c.gather([c.submit(_block_bytes, b) for b in A.blocks])
        touched = c.gather([c.submit(_edges_touched, b) for b in A.blocks])
        X = random_blocks(c, phg.block_bounds, d, 0)
        distributed.wait(X)
        distributed.wait(A.apply(X))  # warm-up
        walls, phases = [], {}
        with ClusterOtherCpu(c) as other:
            for _ in range(repeats):
                with distributed.get_task_stream(c) as ts:
                    t = time.perf_counter()
                    Y = A.apply(X)
                    distributed.wait(Y)
                    walls.append(time.perf_counter() - t)
                per = {}
                for rec in ts.data:
                    name = rec["key"].split("-")[0] if isinstance(rec["key"], str) else \
                        str(rec["key"][0]).split("-")[0]
                    comp = [s for s in rec["startstops"] if s["action"] == "compute"]
                    dur = sum(s["stop"] - s["start"] for s in comp)
                    per.setdefault(name, []).append(dur)
                for name, durs in per.items():
                    phases.setdefault(name, []).append(max(durs))
                del Y
        rss2 = c.run(_rss)
    load1 = os.getloadavg()[0]
    import scipy.sparse as sp

    At = sp.csr_matrix(hg.incidence_t, dtype=np.float64)
    Aa = sp.csr_matrix(hg.incidence, dtype=np.float64)
    Xd = np.random.default_rng(0).standard_normal((n, d))
    kern = []
    for _ in range(repeats):
        t = time.perf_counter()
        Aa @ (At @ Xd)
        kern.append(time.perf_counter() - t)
    return {
        "n_nodes": n, "n_edges": hg.n_edges, "nnz": int(hg.incidence.nnz), "d": d,
        "repeats": repeats, "cpus": os.cpu_count(),
        "hyperclust_num_threads": os.environ.get("HYPERCLUST_NUM_THREADS"),
        "row_blocks": phg.n_blocks, "edge_partitions": len(phg.edge_blocks),
        "write_s": t_write,
        "apply_min_s": min(walls), "apply_median_s": float(np.median(walls)),
        "kernel_min_s": min(kern), "kernel_median_s": float(np.median(kern)),
        "phase_max_block_median_s": {k: float(np.median(v)) for k, v in phases.items()},
        "worker_rss_before_mb": [v / 2**20 for v in rss0.values()],
        "worker_rss_loaded_mb": [v / 2**20 for v in rss1.values()],
        "worker_rss_after_mb": [v / 2**20 for v in rss2.values()],
        "block_mb": [b / 2**20 for b in block_bytes],
        "edges_touched_per_block": touched,
        "shuffled_mb_per_apply": 2 * sum(touched) * d * 8 / 2**20,
        "loadavg_before": load0, "loadavg_after": load1, "other_cpu_cores": other.cores,
    }


def _values(rows, field) -> str:
    """The values of ``field`` over ``rows``, each once (one for the rows of one run)."""
    return ", ".join(str(v) for v in dict.fromkeys(r.get(field) for r in rows))


def table(rows) -> list[str]:
    """The report of the stored rows: their conditions, then one line per size."""
    rows = sorted(rows, key=lambda r: (r["n_nodes"], r["d"]))
    stale = list(dict.fromkeys(r["stale"] for r in rows if r.get("stale")))
    lines = [f"**Stale**: {note}" for note in stale] + ["" for _ in stale[:1]]
    lines += [f"{idle_phrase(r.get('other_cpu_cores') for r in rows)} "
             f"Commit {commits_of(rows)}, "
             f"HYPERCLUST_NUM_THREADS={_values(rows, 'hyperclust_num_threads')}, "
             f"{_values(rows, 'cpus')} CPUs, "
             "LocalCluster(2 workers x 1 thread, processes), Zhou normalized affinity, "
             f"d = {_values(rows, 'd')}, min/median of {_values(rows, 'repeats')}.", ""]
    cells = []
    for r in rows:
        ph = r["phase_max_block_median_s"]
        cells.append([
            f"{r['n_nodes']:,}", f"{r['nnz']:,}", f"{r['row_blocks']}/{r['edge_partitions']}",
            f"{r['apply_min_s']:.3f} / {r['apply_median_s']:.3f}", f"{r['kernel_min_s']:.3f}",
            " / ".join(f"{ph.get(k, 0):.3f}" for k in _phases(ph)),
            f"{max(r['block_mb']):.1f}",
            f"{max(r['worker_rss_before_mb']):.0f} / {max(r['worker_rss_loaded_mb']):.0f}",
            f"{r['shuffled_mb_per_apply']:.1f}",
            f"{r['loadavg_before']:.1f}/{r['loadavg_after']:.1f}"])
    return lines + markdown_table(
        ["nodes", "nnz", "blocks (row/edge)", "apply min / median s", "bare kernel min s",
         "_down / _sum_edges / _slice_edges / _up s (slowest block)", "block MB",
         "worker RSS before / loaded MB", "shuffled MB / apply", "load before/after"], cells)


def _phases(phase_times):
    """The four phase keys of a row: the per-worker exchange's, or the per-block one's
    (rows stored before it)."""
    if "down_worker" in phase_times:
        return ("down_worker", "reduce_home", "slice_for", "_up_block")
    return ("_down", "_sum_edges", "_slice_edges", "_up")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[100_000, 300_000, 1_000_000])
    ap.add_argument("--d", type=int, default=16)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--out", default="docs/results/distributed_scale",
                    help="the store is OUT.json, the table OUT.md")
    args = ap.parse_args(argv)
    store = ResultStore(args.out + ".json", key=KEY)
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.sizes:
            row = measure(n, args.d, args.repeats, Path(tmp) / f"n{n}")
            store.add(row)
            print(json.dumps(row, default=repr), flush=True)
    lines = table(store.runs)
    write_markdown(args.out + ".md", lines)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
