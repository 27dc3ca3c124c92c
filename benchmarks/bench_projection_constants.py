"""The machine constants behind docs/distributed.md's scale projection, measured here.

* ``c``: seconds per incidence and column of one CSR product on one core (float64, the
  distributed iterates' dtype): ``H^T X`` then ``H (H^T X)`` on
  ``hypergraph_sbm(n, 4, homophily=0.7)``, divided by ``2 nnz d``; min of ``--repeats``.
* ``F``: the dense product rate of one core (float64 and float32 GEMM of
  ``(4096, 64) x (64, 4096)``, the shape of the exact kNN's similarity chunks), GFLOP/s.
* ``t_task``: CPU seconds of the scheduler (and of the workers, and the driver) per task, on a
  scheduler and 2 one-thread workers started as separate processes (as ``dask scheduler`` /
  ``dask worker``; :func:`bench_distributed_driver.shell_cluster`), running ``--tasks``
  small tasks in the shape of the row exchange: rounds of one task per (worker, worker)
  pair reading two results of the round before, then one sum per worker.

Not measured here (a property of the cluster it runs on): the network bandwidth per worker.
Run idle, one thread, as ``OMP_NUM_THREADS=1 HYPERCLUST_NUM_THREADS=1 PYTHONPATH=src python
benchmarks/bench_projection_constants.py``; prints one JSON line per constant.
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

sys.path.insert(0, str(Path(__file__).resolve().parent))


def csr_constant(n: int, width: int, repeats: int) -> dict:
    import numpy as np

    from hyperclust.datasets import hypergraph_sbm

    hg = hypergraph_sbm(n, 4, homophily=0.7, random_state=0)
    Ht = hg.incidence_t.tocsr().astype(np.float64)
    H = Ht.T.tocsr()
    X = np.random.default_rng(0).standard_normal((hg.n_nodes, width))
    runs = []
    for _ in range(repeats):
        start = time.process_time()
        H @ (Ht @ X)
        runs.append(time.process_time() - start)
    per = min(runs) / (2 * H.nnz * width)
    return {"constant": "c", "n": hg.n_nodes, "nnz": int(H.nnz), "width": width,
            "min_s": min(runs), "median_s": float(np.median(runs)), "ns_per_incidence_column": per * 1e9}


def gemm_rate(repeats: int) -> list:
    import numpy as np

    rows = []
    for dtype in (np.float64, np.float32):
        rng = np.random.default_rng(0)
        A = rng.standard_normal((4096, 64)).astype(dtype)
        B = rng.standard_normal((64, 4096)).astype(dtype)
        runs = []
        for _ in range(repeats):
            start = time.process_time()
            A @ B
            runs.append(time.process_time() - start)
        rows.append({"constant": "F", "dtype": np.dtype(dtype).name,
                     "gflops": 2 * 4096 * 64 * 4096 / min(runs) / 1e9, "min_s": min(runs)})
    return rows


def _pair_task(a, b):
    return a + b


def _sum(values):
    return sum(values)


def task_constant(n_tasks: int) -> dict:
    import distributed
    import psutil

    from bench_distributed_driver import shell_cluster

    with tempfile.TemporaryDirectory() as tmp, shell_cluster(tmp) as (sfile, _):
        with distributed.Client(scheduler_file=sfile) as client:
            client.wait_for_workers(2)
            workers = list(client.scheduler_info()["workers"])
            me = psutil.Process()
            procs = {"scheduler": [], "workers": []}
            for child in me.children(recursive=True):
                cmd = " ".join(child.cmdline())
                procs["scheduler" if "dask_scheduler" in cmd else "workers"].append(child)

            def cpu():
                out = {}
                for role, ps in procs.items():
                    out[role] = sum(p.cpu_times().user + p.cpu_times().system for p in ps)
                t = me.cpu_times()
                out["driver"] = t.user + t.system
                return out

            # warm-up round: imports, connections
            client.gather(client.map(_pair_task, range(50), range(50), pure=False))
            before, start = cpu(), time.perf_counter()
            level = [client.submit(_pair_task, 0, i, workers=[w], pure=False)
                     for i, w in enumerate(workers)]
            submitted = len(level)
            while submitted < n_tasks:  # one exchange round: W^2 pair tasks, W sums
                pairs = [[client.submit(_pair_task, level[i], level[j], workers=[wj], pure=False)
                          for j, wj in enumerate(workers)] for i in range(len(workers))]
                level = [client.submit(_sum, [pairs[i][j] for i in range(len(workers))],
                                       workers=[wj], pure=False) for j, wj in enumerate(workers)]
                submitted += len(workers) ** 2 + len(workers)
            client.gather(level)
            wall = time.perf_counter() - start
            after = cpu()
    spent = {k: after[k] - before[k] for k in before}
    return {"constant": "t_task", "tasks": submitted, "wall_s": wall,
            **{f"{k}_cpu_ms_per_task": 1e3 * v / submitted for k, v in spent.items()}}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=float, default=1e6, help="nodes of the CSR constant's input")
    ap.add_argument("--width", type=int, default=16)
    ap.add_argument("--tasks", type=int, default=4000)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args(argv)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    head = {"commit": commit, "load_before": list(os.getloadavg()),
            "threads": os.environ.get("OMP_NUM_THREADS")}
    print(json.dumps(head), flush=True)
    print(json.dumps(csr_constant(int(args.n), args.width, args.repeats)), flush=True)
    for row in gemm_rate(args.repeats):
        print(json.dumps(row), flush=True)
    print(json.dumps(task_constant(args.tasks)), flush=True)
    print(json.dumps({"load_after": list(os.getloadavg())}), flush=True)


if __name__ == "__main__":
    main()
