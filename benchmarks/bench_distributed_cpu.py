"""CPU time of a distributed fit (driver + scheduler + workers, summed) against the
single-process fit, per node placement, with the bytes the workers sent each other and
the agreement of the labels.

For each placement a child process builds ``hypergraph_sbm(n, 4, homophily=0.7)`` (16
features for Uni-DHC, none for spectral and AHCKA) and writes it into ``--blocks`` row blocks
and as many hyperedge partitions (:func:`write_partitioned`, ``placement=``), then exits.
Single process: a child reads the ``ids`` directory back (``to_hypergraph``, the same
hypergraph) and fits the twin (``SpectralHypergraphClustering(4)``, ``AHCKA(4)``,
``UniDHC(4, isolated_neighbors=None)``, ``random_state=0``); its CPU seconds are the fit's
``process_time``. Distributed: a child (the driver) starts a scheduler and 2 one-thread
workers as separate processes (``dask scheduler`` / ``dask worker``, each worker a nanny and
its worker process), fits the distributed estimator on the directory
(``blocks_per_worker=``, by default 1: the stored blocks merged into one per worker;
spectral with ``eigensolver=`` from ``--eigensolver``, default "auto") and sums
``psutil``'s user + system CPU seconds of every one of those processes over the fit;
``sent MB`` is the workers' ``transfer_outgoing_bytes_total`` over the fit (the largest
worker process's peak RSS, ``ru_maxrss``, beside it), ``tasks`` the
tasks the workers ran during the fit and, in brackets, the tasks of one product of Zhou's
operator on the fit's blocks (a separate product after the fit). ARI compares
the labels node id by node id. CPU time holds under load (wall time does not); with
``--repeats R`` the distributed fit runs R times (fresh cluster each) and the row keeps the
run of least CPU, with the median beside it (``cpu_median_s``). The JSON rows also keep the
iterations of both fits (AHCKA: its checks' objectives, stopping and best iteration; the
single process's under ``single``), to see where the two part. Run as ``OMP_NUM_THREADS=1 HYPERCLUST_NUM_THREADS=1 PYTHONPATH=src python
benchmarks/bench_distributed_cpu.py --n 1000000 --methods spectral ahcka unidhc``.
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

DISTRIBUTED = {"spectral": "DistributedSpectralClustering", "ahcka": "DistributedAHCKA",
               "unidhc": "DistributedUniDHC"}


def build(n: int, n_features: int, n_blocks: int, placement: str, path: str) -> None:
    from hyperclust.datasets import hypergraph_sbm
    from hyperclust.distributed import write_partitioned

    hg = hypergraph_sbm(n, 4, homophily=0.7, n_features=n_features, random_state=0)
    write_partitioned(hg, path, block_size=-(-n // n_blocks),
                      edge_block_size=-(-hg.n_edges // n_blocks), overwrite=True,
                      placement=placement)


def single(method: str, path: str, labels_out: str) -> dict:
    from hyperclust.cluster.ahcka import AHCKA
    from hyperclust.cluster.spectral import SpectralHypergraphClustering
    from hyperclust.cluster.unidhc import UniDHC
    from hyperclust.distributed import PartitionedHypergraph

    hg = PartitionedHypergraph(path).to_hypergraph()
    est = {"spectral": lambda: SpectralHypergraphClustering(4, random_state=0),
           "ahcka": lambda: AHCKA(4, random_state=0),
           "unidhc": lambda: UniDHC(4, isolated_neighbors=None, random_state=0)}[method]()
    t0, w0 = time.process_time(), time.perf_counter()
    est.fit(hg)
    cpu, wall = time.process_time() - t0, time.perf_counter() - w0
    np.savez(labels_out, labels=est.labels_, ids=hg.node_ids)
    return {"cpu_s": cpu, "wall_s": wall, **_iterations(est)}


def _iterations(est) -> dict:
    """AHCKA's checks (iteration, objective), stopping and best iteration; spectral's
    iterations."""
    out = {"n_iter": int(getattr(est, "n_iter_", -1))}
    if hasattr(est, "objective_history_"):
        out.update(history=[[int(i), float(f)] for i, f in est.objective_history_],
                   best_iter=int(est.best_iter_))
    return out


def _process_tree(pids):
    import psutil

    procs = []
    for pid in pids:
        root = psutil.Process(pid)
        procs += [root] + root.children(recursive=True)
    return procs


def _role(proc) -> str:
    """driver, scheduler, nanny or worker (from the command line)."""
    try:
        cmd = " ".join(proc.cmdline())
    except Exception:
        return "gone"
    if proc.pid == os.getpid():
        return "driver"
    if "dask_scheduler" in cmd:
        return "scheduler"
    return "nanny" if "dask_worker" in cmd else "worker"


def _cpu(procs) -> dict:
    """CPU seconds (user + system) per role."""
    total = {}
    for p in procs:
        try:
            t = p.cpu_times()
            total[_role(p)] = total.get(_role(p), 0.0) + t.user + t.system
        except Exception:  # a process gone (a restarted worker): not counted
            pass
    return total


def _sent(client) -> int:
    return sum(client.run(lambda dask_worker: dask_worker.transfer_outgoing_bytes_total)
               .values())


def _executed(client) -> int:
    return sum(client.run(lambda dask_worker: dask_worker.state.executed_count).values())


def _tasks_per_product(client, phg, blocks_per_worker) -> int:
    """Tasks of one product of Zhou's operator on the fit's blocks (the second product: the
    first also makes the exchange plan)."""
    import distributed

    from hyperclust.distributed.inputs import fit_blocks
    from hyperclust.distributed.linalg import scatter_blocks
    from hyperclust.distributed.operator import normalized_affinity

    op = normalized_affinity(fit_blocks(phg, client, blocks_per_worker), client, tau=1.0)
    X = scatter_blocks(client, np.ones((phg.n_nodes, 4)), op.bounds)
    distributed.wait(op.apply(X))
    with distributed.get_task_stream(client) as stream:
        distributed.wait(op.apply(X))
    return len(stream.data)


def _peak_rss_mb() -> float:
    """This process's peak RSS (a worker's: it starts fresh for the fit)."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10


def drive(method: str, path: str, labels_out: str) -> dict:
    """``method``: ``NAME@B@SOLVER`` (``B`` blocks per worker, or ``stored``; ``SOLVER``
    spectral's ``eigensolver``)."""
    import distributed

    import hyperclust.distributed as hd
    from bench_distributed_driver import shell_cluster

    method, per_worker, solver = method.split("@")
    per_worker = None if per_worker == "stored" else int(per_worker)
    with tempfile.TemporaryDirectory() as tmp, shell_cluster(tmp) as (sfile, _), \
            distributed.Client(scheduler_file=sfile) as client:
        client.wait_for_workers(2)
        # the scheduler and the workers (nanny and worker process) are this one's children
        procs = _process_tree([os.getpid()])
        phg = hd.PartitionedHypergraph(path)
        kw = {"blocks_per_worker": per_worker}
        if method == "spectral":
            kw["eigensolver"] = solver
        est = getattr(hd, DISTRIBUTED[method])(4, client=client, random_state=0, **kw)
        cpu0, sent0, w0 = _cpu(procs), _sent(client), time.perf_counter()
        tasks0 = _executed(client)
        est.fit(phg)
        wall = time.perf_counter() - w0
        cpu1, sent = _cpu(procs), _sent(client) - sent0
        tasks = _executed(client) - tasks0
        peak = max(client.run(_peak_rss_mb).values())
        per_product = _tasks_per_product(client, phg, per_worker)
    roles = {f"cpu_{role}_s": cpu1[role] - cpu0.get(role, 0.0) for role in cpu1}
    np.savez(labels_out, labels=est.labels_, ids=est.node_ids_)
    return {"cpu_s": sum(roles.values()), **roles, "wall_s": wall, "sent_mb": sent / 2**20,
            "n_processes": len(procs), "tasks": tasks, "worker_peak_rss_mb": peak, "tasks_per_product": per_product,
            "fit_blocks": getattr(est, "n_blocks_", phg.n_blocks),
            "eigensolver": getattr(est, "eigensolver_", None), **_iterations(est)}


def _child(args: list, script: str = __file__) -> dict:
    """The last JSON line a child run of ``script`` (this file by default) prints."""
    out = subprocess.run([sys.executable, script, *args], capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(out.stderr[-3000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def _ari_by_id(a: str, b: str) -> float:
    from sklearn.metrics import adjusted_rand_score

    za, zb = np.load(a), np.load(b)
    order_a, order_b = np.argsort(za["ids"], kind="stable"), np.argsort(zb["ids"], kind="stable")
    if not np.array_equal(za["ids"][order_a], zb["ids"][order_b]):
        raise AssertionError("the two fits name different nodes")
    return float(adjusted_rand_score(za["labels"][order_a], zb["labels"][order_b]))


def _table(rows) -> str:
    """The rows as a table; rows stored before the fits merged blocks (no ``tasks``) keep
    their former columns."""
    counted = any("tasks" in r for r in rows)
    peaks = any("worker_peak_rss_mb" in r for r in rows)
    extra = "blocks stored | blocks in the fit | tasks in the fit (per product) |" if counted \
        else "blocks |"
    head = (f"| method | nodes | placement | {extra} single-process CPU s | distributed CPU s "
            "(all processes) | driver / scheduler / nannies / workers CPU s | ratio | workers "
            "sent MB | ARI vs single process |" + " largest worker peak RSS MB |" * peaks
            + "\n|---|---|---|---|" + "---|---|" * counted + "---|---|---|---|---|---|"
            + "---|" * peaks + "\n")
    return head + "".join(
        f"| {r['method']} | {r['n']:,} | {r['placement']} | {r['blocks']} | "
        + (f"{r.get('fit_blocks', r['blocks'])} | {r.get('tasks', '-')} "
           f"({r.get('tasks_per_product', '-')}) | " if counted else "")
        + f"{r['single_cpu_s']:.1f} | {r['cpu_s']:.1f} | "
        + " / ".join(f"{r.get(f'cpu_{k}_s', float('nan')):.1f}"
                     for k in ("driver", "scheduler", "nanny", "worker"))
        + f" | {r['cpu_s'] / r['single_cpu_s']:.2f}x "
        f"| {r['sent_mb']:.0f} | {r['ari']:.4f} |"
        + (f" {r.get('worker_peak_rss_mb', float('nan')):,.0f} |" if peaks else "")
        + "\n" for r in rows)


def _save(rows, out: str, argv) -> None:
    from _rows import write_rows

    runs = rows[0].get("repeats", 1)
    what = "one run" if runs == 1 else f"the least of {runs} runs (median in the json)"
    write_rows(out, rows, f"Commit {rows[0]['commit']}; `python benchmarks/"
               f"bench_distributed_cpu.py {' '.join(argv)}`; one-thread processes, CPU seconds "
               f"of {what} (valid under load; wall times are not results).", _table(rows))


def _least_cpu(args: list, repeats: int) -> dict:
    """The run of least CPU among ``repeats`` runs of a drive child, with the median."""
    runs = [_child(args) for _ in range(repeats)]
    best = min(runs, key=lambda r: r["cpu_s"])
    return {**best, "cpu_median_s": float(np.median([r["cpu_s"] for r in runs])),
            "repeats": repeats}


def _run(args, tmp: str, commit: str, argv) -> list:
    rows = []
    for method in args.methods:
        feats = 16 if method == "unidhc" else 0
        where = args.keep or tmp
        name = f"{method}-{args.n}-{args.blocks}" if args.keep else method
        dirs = {pl: os.path.join(where, f"{name}-{pl}") for pl in args.placements}
        ids_dir = dirs.get("ids") or os.path.join(where, f"{name}-ids")
        for pl, path in {**dirs, "ids": ids_dir}.items():
            if not os.path.exists(os.path.join(path, "manifest.json")):
                _child(["--child", "build", f"{args.n},{feats},{args.blocks}", pl, path])
        ref = os.path.join(tmp, f"{method}-single.npz")
        one = _child(["--child", "single", method, ids_dir, ref])
        for pl, path in dirs.items():
            got = os.path.join(tmp, f"{method}-{pl}.npz")
            row = _least_cpu(["--child", "drive",
                              f"{method}@{args.blocks_per_worker}@{args.eigensolver}", path,
                              got], args.repeats)
            rows.append({**row, "method": method, "n": args.n, "placement": pl,
                         "blocks": args.blocks, "blocks_per_worker": args.blocks_per_worker,
                         "single_cpu_s": one["cpu_s"],
                         "single": {k: v for k, v in one.items()
                                    if k not in ("cpu_s", "wall_s")},
                         "single_wall_s": one["wall_s"], "ari": _ari_by_id(got, ref),
                         "load": os.getloadavg()[0], "commit": commit})
            print(_table(rows[-1:]).splitlines()[-1], flush=True)
            _save(rows, args.out, argv)  # row by row: a run cut short keeps its rows
    return rows


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=100_000)
    p.add_argument("--blocks", type=int, default=4)
    p.add_argument("--methods", nargs="+", default=["spectral"], choices=list(DISTRIBUTED))
    p.add_argument("--placements", nargs="+", default=["ids", "metis"])
    p.add_argument("--out", default="docs/results/distributed_cpu")
    p.add_argument("--repeats", type=int, default=1,
                   help="distributed runs per row: the least CPU is kept, the median stored")
    p.add_argument("--blocks-per-worker", default="1",
                   help="the estimators' blocks_per_worker: an integer, or 'stored' (None: "
                        "the stored blocks)")
    p.add_argument("--eigensolver", default="auto", choices=["auto", "lanczos", "subspace"],
                   help="DistributedSpectralClustering's eigensolver")
    p.add_argument("--keep", default=None,
                   help="a folder keeping the built hypergraphs, reused by later runs (old "
                        "and new source trees back to back on the same input)")
    p.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        kind, a, b, c = args.child
        if kind == "build":
            n, feats, blocks = a.split(",")
            build(int(n), int(feats), int(blocks), b, c)
            print("{}")
        else:
            print(json.dumps((single if kind == "single" else drive)(a, b, c)))
        return
    from _rows import short_commit

    commit = short_commit()
    with tempfile.TemporaryDirectory() as tmp:
        _run(args, tmp, commit, argv or sys.argv[1:])


if __name__ == "__main__":
    main()
