"""Where the workers' CPU goes in a distributed AHCKA fit: Dask's fine performance metrics
(``Scheduler.cumulative_worker_metrics``) summed per task function and activity, beside
the CPU seconds of every process (as ``bench_distributed_cpu.py`` counts them).

A child builds ``hypergraph_sbm(n, 4, homophily=0.7)`` into ``--blocks`` row blocks (kept in
``--dir`` for reruns); the driver starts a scheduler and 2 one-thread workers as processes,
fits ``DistributedAHCKA(4, random_state=0)`` and prints, per task function, the executor
thread's CPU (``thread-cpu``), and per activity the other costs the workers metered
(deserialising task inputs, serialising data sent, receiving it). Run as
``OMP_NUM_THREADS=1 HYPERCLUST_NUM_THREADS=1 PYTHONPATH=src python
benchmarks/studies/ahcka_task_cpu.py --n 1000000 --dir /tmp/ahcka-1e6``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _metrics(dask_scheduler):
    return [[list(k) if isinstance(k, tuple) else k, v]
            for k, v in dask_scheduler.cumulative_worker_metrics.items()]


def _rusage():
    import resource

    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime, r.ru_stime, r.ru_minflt, r.ru_maxrss / 2**10


def _mallopt(mmap_threshold, trim_threshold):
    import ctypes

    libc = ctypes.CDLL("libc.so.6")
    return libc.mallopt(-3, mmap_threshold), libc.mallopt(-1, trim_threshold)


def _summarise(before, after):
    """``{(context, function, activity): seconds}`` of the fit (seconds units only)."""
    old = {json.dumps(k): v for k, v in before}
    out = {}
    for k, v in after:
        if not isinstance(k, list) or k[-1] != "seconds":
            continue
        d = v - old.get(json.dumps(k), 0.0)
        context = k[0]
        func = k[1] if context == "execute" else "-"
        activity = k[-2]
        out[context, func, activity] = out.get((context, func, activity), 0.0) + d
    return out


def drive(path: str, est_kw: dict, mallopt=None) -> dict:
    import distributed

    import hyperclust.distributed as hd
    from bench_distributed_cpu import _cpu, _executed, _process_tree, _sent
    from bench_distributed_driver import shell_cluster

    with tempfile.TemporaryDirectory() as tmp, shell_cluster(tmp) as (sfile, _), \
            distributed.Client(scheduler_file=sfile) as client:
        client.wait_for_workers(2)
        procs = _process_tree([os.getpid()])
        if mallopt:
            print("mallopt", client.run(_mallopt, *mallopt))
        m0 = client.run_on_scheduler(_metrics)
        cpu0, sent0, t0 = _cpu(procs), _sent(client), _executed(client)
        r0 = client.run(_rusage)
        est = hd.DistributedAHCKA(4, client=client, random_state=0, **est_kw).fit(path)
        cpu1, sent, tasks = _cpu(procs), _sent(client) - sent0, _executed(client) - t0
        r1 = client.run(_rusage)
        rusage = [sum(r1[w][i] - r0[w][i] for w in r1) for i in range(3)] + \
            [max(r1[w][3] for w in r1)]
        time.sleep(1.5)  # the workers send their metrics with the heartbeat
        m1 = client.run_on_scheduler(_metrics)
    roles = {r: cpu1[r] - cpu0.get(r, 0.0) for r in cpu1}
    return {"roles": roles, "sent_mb": sent / 2**20, "tasks": tasks, "n_iter": est.n_iter_,
            "metrics": _summarise(m0, m1), "labels": est.labels_, "rusage": rusage}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=100_000)
    p.add_argument("--blocks", type=int, default=4)
    p.add_argument("--dir", required=True)
    p.add_argument("--top", type=int, default=25)
    p.add_argument("--save-labels", default=None)
    p.add_argument("--mallopt", type=int, nargs=2, default=None,
                   help="the workers' glibc M_MMAP_THRESHOLD and M_TRIM_THRESHOLD (bytes)")
    args = p.parse_args()
    if not os.path.exists(os.path.join(args.dir, "meta.json")) and \
            not os.path.exists(args.dir):
        from bench_distributed_cpu import build

        build(args.n, 0, args.blocks, "ids", args.dir)
    out = drive(args.dir, {}, args.mallopt)
    if args.save_labels:
        import numpy as np

        np.save(args.save_labels, out["labels"])
    roles = out["roles"]
    print(f"tasks {out['tasks']}  iterations {out['n_iter']}  sent {out['sent_mb']:.0f} MB  "
          f"CPU s " + " ".join(f"{r} {v:.1f}" for r, v in sorted(roles.items()))
          + f"  total {sum(roles.values()):.1f}  load {os.getloadavg()[0]:.2f}")
    u, sy, faults, peak = out["rusage"]
    print(f"workers: user {u:.1f} s, system {sy:.1f} s, minor page faults {faults:,.0f}, "
          f"largest peak RSS {peak:,.0f} MB")
    m = out["metrics"]
    by_func = {}
    for (ctx, func, act), v in m.items():
        if ctx == "execute" and act == "thread-cpu":
            by_func[func] = by_func.get(func, 0.0) + v
    print(f"executor thread CPU, by task function (sum {sum(by_func.values()):.1f} s):")
    for func, v in sorted(by_func.items(), key=lambda kv: -kv[1])[:args.top]:
        print(f"  {func:40s} {v:8.2f}")
    by_act = {}
    for (ctx, func, act), v in m.items():
        if not (ctx == "execute" and act == "thread-cpu"):
            by_act[ctx, act] = by_act.get((ctx, act), 0.0) + v
    print("other metered activities (seconds, wall):")
    for (ctx, act), v in sorted(by_act.items(), key=lambda kv: -kv[1]):
        print(f"  {ctx:12s} {act:24s} {v:8.2f}")


if __name__ == "__main__":
    main()
