"""Where the distributed Uni-DHC fit's CPU goes, per step, against the single process's.

Builds ``hypergraph_sbm(n, 4, homophily=0.7, n_features=16)`` in ``--blocks`` row blocks and
hyperedge partitions (``bench_distributed_cpu.build``), then in a driver child starts a
scheduler and 2 one-thread workers as separate processes (``bench_distributed_driver.
shell_cluster``) and fits ``DistributedUniDHC(4, random_state=0)``. Each step of the fit
ends in a gather, so the CPU seconds (user + system) of every process of the cluster are
read at the step boundaries (the estimator's own ``timings_`` laps, wrapped) and reported
per step and per role (driver / scheduler / nanny / worker), with the tasks the workers ran
in the step. ``--single`` adds the single process's fit CPU on the same hypergraph (one
number: ``UniDHC`` keeps no per-step laps; profile it for a split). CPU is valid under load,
wall time is not. Run as
``OMP_NUM_THREADS=1 HYPERCLUST_NUM_THREADS=1 PYTHONPATH=src python
benchmarks/studies/unidhc_cpu_phases.py --n 100000``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def drive(path: str, per_worker: str = "default") -> dict:
    import distributed

    import hyperclust.distributed as hd
    import hyperclust.distributed.unidhc as du
    from bench_distributed_cpu import _cpu, _executed, _process_tree, _sent
    from bench_distributed_driver import shell_cluster

    steps = []
    with tempfile.TemporaryDirectory() as tmp, shell_cluster(tmp) as (sfile, _), \
            distributed.Client(scheduler_file=sfile) as client:
        client.wait_for_workers(2)
        procs = _process_tree([os.getpid()])
        marks = []

        def mark(name):
            marks.append((name, _cpu(procs), (_executed(client), _sent(client))))

        real_time = du.time
        original = du.DistributedUniDHC._fit

        def timed_fit(self, *a, **kw):
            # every lap of the estimator calls perf_counter once: mark there
            calls = iter(["start", "input", "basis", "filter_choice", "training",
                          "inference_kmeans"])

            def counter():
                mark(next(calls, "extra"))
                return real_time.perf_counter()

            du.time = types.SimpleNamespace(perf_counter=counter)
            try:
                return original(self, *a, **kw)
            finally:
                du.time = real_time

        du.DistributedUniDHC._fit = timed_fit
        kw = {} if per_worker == "default" else {
            "blocks_per_worker": None if per_worker == "stored" else int(per_worker)}
        est = hd.DistributedUniDHC(4, client=client, random_state=0, **kw)
        mark("fit")
        digests0 = _digests(client)
        est.fit(hd.PartitionedHypergraph(path))
        mark("end")
        digests = _digests(client, digests0)
    for (name0, c0, t0), (name1, c1, t1) in zip(marks[1:], marks[2:]):
        steps.append({"step": name1 if name1 != "end" else "output",
                      "cpu": {r: round(c1.get(r, 0) - c0.get(r, 0), 3) for r in c1},
                      "tasks": t1[0] - t0[0], "sent_mb": round((t1[1] - t0[1]) / 2**20, 1)})
    total = {r: round(marks[-1][1].get(r, 0) - marks[0][1].get(r, 0), 3)
             for r in marks[-1][1]}
    return {"steps": steps, "total": total, "worker_metrics": digests}


def _digests(client, before=None) -> dict:
    """The workers' fine performance metrics summed over workers, ``"context prefix
    activity unit"`` -> value (minus ``before``); the 40 largest CPU / seconds entries."""
    def grab(dask_worker):
        return [(list(map(str, k)), v) for k, v in dask_worker.digests_total.items()
                if isinstance(k, tuple)]

    total = {}
    for rows in client.run(grab).values():
        for key, value in rows:
            name = " ".join(key)
            total[name] = total.get(name, 0.0) + value
    if before is None:
        return total
    diff = {k: v - before.get(k, 0.0) for k, v in total.items()}
    keep = sorted((k for k in diff if "seconds" in k), key=lambda k: -diff[k])[:40]
    return {k: round(diff[k], 3) for k in keep}


def single(path: str) -> dict:
    import hyperclust.cluster.unidhc as cu
    from hyperclust.distributed import PartitionedHypergraph

    hg = PartitionedHypergraph(path).to_hypergraph()
    est = cu.UniDHC(4, isolated_neighbors=None, random_state=0)
    t0 = time.process_time()
    est.fit(hg)
    return {"cpu_s": time.process_time() - t0}


def _child(args):
    out = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(out.stderr[-3000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=100_000)
    p.add_argument("--blocks", type=int, default=4)
    p.add_argument("--single", action="store_true")
    p.add_argument("--path", help="an existing partitioned directory (skips the build)")
    p.add_argument("--blocks-per-worker", default="default",
                   help="an integer, 'stored', or 'default' (the estimator's)")
    p.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        kind, path, per_worker = args.child
        print(json.dumps(drive(path, per_worker) if kind == "drive" else single(path)))
        return
    from bench_distributed_cpu import build

    with tempfile.TemporaryDirectory() as tmp:
        path = args.path or os.path.join(tmp, "h")
        if not args.path:
            build(args.n, 16, args.blocks, "ids", path)
        out = {"n": args.n, "load": os.getloadavg()[0], "drive": _child(["--child", "drive",
                                                                          path,
                                                                          args.blocks_per_worker])}
        if args.single:
            out["single"] = _child(["--child", "single", path, "-"])
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
