"""A worker SIGKILLed in the middle of a distributed AHCKA fit: the labels and objective
history against an unkilled run's, the wall time of the fit with the kill against one
without, and the scratch the fit left.

Starts a scheduler and 2 one-thread workers as processes (``bench_distributed_driver
.shell_cluster``: each worker under its nanny, which restarts it), fits
``DistributedAHCKA(4, random_state=0)`` on a partition directory (as
``ahcka_task_cpu.py --dir`` writes it) once without a kill and once with the worker of the
larger process id killed ``--after`` seconds into the fit (from a thread), on a fresh
cluster each. Compares both fits' labels and histories bit for bit (``np.array_equal``)
with the first (or with ``--ref``, an ``.npz`` as ``ahcka_worker_memory.py --save`` writes
it) and lists what is left in the partition directory (the lineage cuts' scratch folder
goes there) and in the temporary folder the fit used. Run as ``OMP_NUM_THREADS=1
HYPERCLUST_NUM_THREADS=1 PYTHONPATH=src python benchmarks/studies/ahcka_worker_killed.py
/tmp/ahcka-1e6 --after 30``.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def fit(path: str, after: float | None) -> dict:
    """One fit on a fresh cluster; ``after``: seconds into the fit to kill a worker."""
    import distributed

    import hyperclust.distributed as hd
    from bench_distributed_driver import shell_cluster

    before = set(os.listdir(path))
    with tempfile.TemporaryDirectory() as tmp, shell_cluster(tmp) as (sfile, _), \
            distributed.Client(scheduler_file=sfile) as client:
        client.wait_for_workers(2)
        victim = max(client.run(os.getpid).values())
        killed = {}

        def kill():
            if not done.wait(after):
                killed["at"] = time.monotonic() - t0
                os.kill(victim, signal.SIGKILL)

        done = threading.Event()
        t0 = time.monotonic()
        if after is not None:
            threading.Thread(target=kill, daemon=True).start()
        est = hd.DistributedAHCKA(4, client=client, random_state=0).fit(path)
        wall = time.monotonic() - t0
        done.set()
        left_tmp = sorted(p for p in os.listdir(tmp) if p != "scheduler.json")
    return {"wall_s": wall, "killed_at_s": killed.get("at"), "labels": est.labels_,
            "history": est.objective_history_, "n_iter": est.n_iter_,
            "left": sorted(set(os.listdir(path)) - before), "left_tmp": left_tmp}


def main() -> None:
    import numpy as np

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("path", help="a partition directory")
    p.add_argument("--after", type=float, default=30.0,
                   help="seconds into the fit to kill the worker")
    p.add_argument("--ref", default=None, help="an .npz of labels and history to compare "
                   "with (default: this script's unkilled fit, run first)")
    args = p.parse_args()
    if args.ref:
        ref = np.load(args.ref)
        ref = {"labels": ref["labels"], "history": ref["history"], "wall_s": float("nan")}
    else:
        ref = fit(args.path, None)
        print(f"unkilled: wall {ref['wall_s']:.1f} s, {ref['n_iter']} iterations, "
              f"left {ref['left']} {ref['left_tmp']}")
    out = fit(args.path, args.after)
    same = np.array_equal(out["labels"], ref["labels"])
    same_history = np.array_equal(np.asarray(out["history"], dtype=np.float64),
                                  np.asarray(ref["history"], dtype=np.float64))
    print(f"killed at {out['killed_at_s']} s: wall {out['wall_s']:.1f} s (unkilled "
          f"{ref['wall_s']:.1f} s), {out['n_iter']} iterations, same labels {same}, same "
          f"history {same_history}, left in the partition directory {out['left']}, in the "
          f"temporary folder {out['left_tmp']}, load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
