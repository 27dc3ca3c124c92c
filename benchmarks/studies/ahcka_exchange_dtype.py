"""Distributed AHCKA with the pairwise exchange's shared rows sent in another dtype
(:data:`hyperclust.distributed.pairwise.EXCHANGE_DTYPE`; float32 halves the bytes and
rounds every shared sum once): CPU, bytes sent, iterations and labels against the single
process and against the float64 exchange. Not the default: the results change.

The single process and each distributed fit run in children as in
``benchmarks/bench_distributed_cpu.py`` (its ``single`` and ``drive``: a shell-started
scheduler and 2 one-thread workers, CPU seconds of every process). Run as
``OMP_NUM_THREADS=1 HYPERCLUST_NUM_THREADS=1 PYTHONPATH=src python
benchmarks/studies/ahcka_exchange_dtype.py /tmp/s13ahcka/data/ahcka-1000000-4-ids``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("path", nargs="?", help="a partitioned directory (ids placement: the single "
                                            "process reads it back in the same node order)")
    p.add_argument("--dtypes", nargs="+", default=["float64", "float32"])
    p.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    import bench_distributed_cpu as bench

    if args.child:
        kind, path, out = args.child
        if kind == "single":
            print(json.dumps(bench.single("ahcka", path, out)))
            return
        import cloudpickle

        from hyperclust.distributed import pairwise

        cloudpickle.register_pickle_by_value(bench)  # its functions run on the workers
        pairwise.EXCHANGE_DTYPE = np.dtype(kind)
        print(json.dumps(bench.drive("ahcka@1@auto", path, out)))
        return
    with tempfile.TemporaryDirectory() as tmp:
        ref = os.path.join(tmp, "single.npz")
        one = bench._child(["--child", "single", args.path, ref], __file__)
        print(json.dumps({"fit": "single", "cpu_s": one["cpu_s"], "n_iter": one["n_iter"],
                          "best_iter": one["best_iter"]}), flush=True)
        for dt in args.dtypes:
            got = os.path.join(tmp, f"{dt}.npz")
            row = bench._child(["--child", dt, args.path, got], __file__)
            print(json.dumps({"fit": f"distributed, exchange {dt}", "cpu_s": row["cpu_s"],
                              "workers_cpu_s": row.get("cpu_worker_s"),
                              "sent_mb": row["sent_mb"], "n_iter": row["n_iter"],
                              "best_iter": row["best_iter"],
                              "history_equal_single": row["history"] == one["history"],
                              "ari_vs_single": bench._ari_by_id(got, ref),
                              "load": os.getloadavg()[0]}), flush=True)


if __name__ == "__main__":
    main()
