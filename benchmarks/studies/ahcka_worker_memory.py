"""Where a distributed AHCKA worker's memory is at its peak: the task data Dask holds (and
the lineage cut's kept blocks) against the worker process's RSS, sampled during the fit.

Starts a scheduler and 2 one-thread workers as processes (``bench_distributed_driver
.shell_cluster``), fits ``DistributedAHCKA(4, random_state=0)`` on a partition directory
(as ``ahcka_task_cpu.py --dir`` writes it) in a thread, and asks every worker every
``--every`` seconds for its RSS, the bytes of its task data (``dask.sizeof``, per task name)
and of ``lineage._KEPT``; prints, per worker, its RSS before the fit (the fit's modules
imported) and the sample of largest RSS with its task data by task name (``--save``: the
labels and objective history to an ``.npz``, to compare two trees bit for bit). Run as
``OMP_NUM_THREADS=1 HYPERCLUST_NUM_THREADS=1 PYTHONPATH=src python
benchmarks/studies/ahcka_worker_memory.py /tmp/ahcka-1e6``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _probe(dask_worker):
    """``(task data bytes, lineage kept bytes, RSS, keys, {task prefix: (keys, bytes)})``;
    sizes by ``dask.sizeof`` (which counts the dicts and tuples tasks return)."""
    import psutil
    from dask.sizeof import sizeof
    from dask.utils import key_split

    from hyperclust.distributed import lineage

    by_prefix = {}
    for key, value in list(dask_worker.data.items()):
        n, size = by_prefix.get(key_split(key), (0, 0))
        by_prefix[key_split(key)] = (n + 1, size + sizeof(value))
    managed = sum(size for _, size in by_prefix.values())
    kept = sum(getattr(v, "nbytes", 0) for v in lineage._KEPT.values())
    return managed, kept, psutil.Process().memory_info().rss, len(dask_worker.data), by_prefix


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("path", help="a partition directory")
    p.add_argument("--every", type=float, default=0.3, help="seconds between samples")
    p.add_argument("--save", default=None,
                   help="an .npz to write the labels and objective history to")
    args = p.parse_args()
    import distributed

    import hyperclust.distributed as hd
    from bench_distributed_driver import shell_cluster

    with tempfile.TemporaryDirectory() as tmp, shell_cluster(tmp) as (sfile, _), \
            distributed.Client(scheduler_file=sfile) as client:
        client.wait_for_workers(2)
        client.run(lambda: __import__("hyperclust.distributed.ahcka"))  # the fit's imports
        before = client.run(_probe)
        done = []
        fit = threading.Thread(target=lambda: done.append(hd.DistributedAHCKA(
            4, client=client, random_state=0).fit(args.path)))
        fit.start()
        peak = {}
        while not done and fit.is_alive():
            for w, sample in client.run(_probe).items():
                if sample[2] > peak.get(w, (0, 0, 0, 0, {}))[2]:
                    peak[w] = sample
            time.sleep(args.every)
        fit.join()
    if args.save:
        import numpy as np

        np.savez(args.save, labels=done[0].labels_,
                 history=np.asarray(done[0].objective_history_, dtype=np.float64),
                 n_iter=done[0].n_iter_)
    for w, (managed, kept, rss, keys, by_prefix) in sorted(peak.items()):
        print(f"{w}: RSS before the fit (imports done) {before[w][2] / 2**20:.0f} MB; at its "
              f"largest sampled RSS {rss / 2**20:.0f} MB: task data {managed / 2**20:.0f} MB "
              f"in {keys} keys, lineage kept {kept / 2**20:.0f} MB")
        for prefix, (n, size) in sorted(by_prefix.items(), key=lambda kv: -kv[1][1]):
            if size >= 2**20:
                print(f"    {prefix:28s} {n:4d} keys {size / 2**20:8.1f} MB")


if __name__ == "__main__":
    main()
