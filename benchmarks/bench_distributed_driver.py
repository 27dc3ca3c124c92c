"""Peak memory of the driver (the process that calls ``fit``) of the distributed spectral,
AHCKA and Uni-DHC estimators, against the number of nodes.

For each size: a child process builds ``hypergraph_sbm(n, 4, homophily=0.7)`` (no
features for spectral and AHCKA, 16 for Uni-DHC, whose trainer runs in the driver)
and writes it into 10 row blocks and 4 hyperedge partitions, then exits, so no process
that is measured ever held the hypergraph. For each method a fresh child process (the
driver) starts a scheduler and 2 one-thread workers as separate processes (as ``dask
scheduler`` / ``dask worker`` are started on a real cluster: a ``LocalCluster`` would run
the scheduler inside the driver and mix its memory in), records its own RSS (baseline:
imports, the client), fits the estimator on the directory and
samples its RSS every 20 ms (:class:`_rss.PeakRSS`); it reports the peak, the peak above the
baseline and that per node; with ``--trace`` also ``tracemalloc``'s peak of Python-level
allocations during the fit and the largest sites still allocated after it (what holds
O(n) on the driver; tracing slows the fit several times).

Memory does not depend on the machine's load, so these rows are results whatever the load
(their wall times are not). Writes ``--out`` + ``.json`` and ``.md``. Run as
``HYPERCLUST_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONPATH=src
python benchmarks/bench_distributed_driver.py --sizes 100000 1000000``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

METHODS = {"spectral": "DistributedSpectralClustering", "ahcka": "DistributedAHCKA",
           "unidhc": "DistributedUniDHC"}
FEATURES = {"unidhc": 16}  # node features of the built hypergraph, per method (default 0)


def build(n: int, path: str, n_features: int = 0) -> None:
    from hyperclust.datasets import hypergraph_sbm
    from hyperclust.distributed import write_partitioned

    hg = hypergraph_sbm(n, 4, homophily=0.7, n_features=n_features, random_state=0)
    write_partitioned(hg, path, block_size=-(-n // 10), edge_block_size=-(-hg.n_edges // 4),
                      overwrite=True)


@contextmanager
def shell_cluster(tmp: str, n_workers: int = 2):
    """A scheduler and ``n_workers`` one-thread workers started as separate processes, as
    ``dask scheduler`` / ``dask worker`` would be; yields ``(scheduler file, scheduler pid)``."""
    sfile = os.path.join(tmp, "scheduler.json")
    quiet = dict(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    procs = [subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler",
                               "--scheduler-file", sfile, "--port", "0",
                               "--dashboard-address", ":0"], **quiet)]
    try:
        while not os.path.exists(sfile):
            time.sleep(0.2)
        procs += [subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker",
                                    "--scheduler-file", sfile, "--nthreads", "1",
                                    "--dashboard-address", ":0"], **quiet)
                  for _ in range(n_workers)]
        yield sfile, procs[0].pid
    finally:
        for proc in procs[::-1]:
            proc.terminate()
            proc.wait(timeout=60)


class PeakRecords:
    """Peak number of task records the scheduler holds while the ``with`` block runs
    (``peak``), polled every ``every`` seconds from a thread."""

    def __init__(self, client, every=0.1):
        import threading

        self.client, self.every, self.peak = client, every, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self._stop.is_set():
            try:
                self.peak = max(self.peak, self.client.run_on_scheduler(
                    lambda dask_scheduler: len(dask_scheduler.tasks)))
            except Exception:  # the client closing: the last samples are lost
                pass
            time.sleep(self.every)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def drive(method: str, path: str, trace: bool, output: bool) -> dict:
    """Fit ``method`` on the partitioned ``path`` in this process; memory figures of this
    process (the driver) and of the scheduler (with ``trace``, also tracemalloc's, which
    slows the fit several times). With ``output`` the labels and embedding are written
    per row block by the workers (the estimators' ``output``) instead of gathered here."""
    import tracemalloc

    import distributed
    import psutil

    import hyperclust.distributed as hd
    from _rss import PeakRSS

    me = psutil.Process()
    with tempfile.TemporaryDirectory() as tmp, shell_cluster(tmp) as (sfile, spid), \
            distributed.Client(scheduler_file=sfile) as client:
        client.wait_for_workers(2)
        phg = hd.PartitionedHypergraph(path)
        written = {"output": os.path.join(tmp, "labels.parquet")} if output else {}
        est = getattr(hd, METHODS[method])(4, client=client, random_state=0, **written)
        base, sbase = me.memory_info().rss, psutil.Process(spid).memory_info().rss
        if trace:
            tracemalloc.start(1)
        t0 = time.perf_counter()
        with PeakRSS([os.getpid(), spid], every=0.02) as rss, PeakRecords(client) as records:
            est.fit(phg)
        wall = time.perf_counter() - t0
        traced_peak, top = 0, []
        if trace:
            top = [{"site": str(stat.traceback[-1]), "mb": stat.size / 2**20}
                   for stat in tracemalloc.take_snapshot().statistics("lineno")[:8]]
            traced_peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
    peak = rss.peak[os.getpid()]
    return {"method": method, "output": "written by the workers" if output else "gathered",
            "n": phg.n_nodes, "nnz": phg.nnz, "blocks": phg.n_blocks,
            "baseline_mb": base / 2**20, "peak_mb": peak / 2**20,
            "above_baseline_mb": (peak - base) / 2**20,
            "private_peak_mb": rss.peak_private[os.getpid()] / 2**20,
            "bytes_per_node": (peak - base) / phg.n_nodes,
            "scheduler_baseline_mb": sbase / 2**20,
            "scheduler_peak_mb": rss.peak[spid] / 2**20,
            "scheduler_peak_records": records.peak, "iterations": getattr(est, "n_iter_", None),
            "traced_peak_mb": traced_peak / 2**20, "top_sites_after_fit": top,
            "fit_wall_s_under_load": wall, "load": os.getloadavg()[0]}


def _child(args: list) -> dict:
    out = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _mb(value) -> str:
    return "-" if value is None else f"{value:.0f}"


def _row(r) -> str:
    traced = f"{r['traced_peak_mb']:.0f}" if r["traced_peak_mb"] else "-"
    return (f"| {r['method']} | {r.get('output', 'gathered')} | {r['n']:,} | {r['nnz']:,} | "
            f"{r['baseline_mb']:.0f} | {r['peak_mb']:.0f} | {r['above_baseline_mb']:.0f} | "
            f"{r['bytes_per_node']:.0f} | {_mb(r.get('private_peak_mb'))} | "
            f"{r['scheduler_baseline_mb']:.0f} / "
            f"{r['scheduler_peak_mb']:.0f} | {r.get('scheduler_peak_records', '-')} | "
            f"{r.get('iterations') or '-'} | {traced} |\n")


def _table(rows) -> str:
    head = ("| method | labels, embedding | nodes | nnz(H) | driver baseline MB | driver peak "
            "MB | above baseline MB | bytes per node | driver peak without shared pages MB | "
            "scheduler baseline / peak MB | "
            "scheduler peak task records | iterations | tracemalloc peak MB |\n"
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
    return head + "".join(_row(r) for r in rows)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", type=int, nargs="+", default=[100_000])
    p.add_argument("--methods", nargs="+", default=["spectral", "ahcka"], choices=list(METHODS))
    p.add_argument("--out", default="docs/results/distributed_driver_memory")
    p.add_argument("--output", action="store_true",
                   help="labels and embedding written per row block by the workers")
    p.add_argument("--trace", action="store_true",
                   help="also tracemalloc's peak and largest sites (slows the fits)")
    p.add_argument("--child", nargs=3, metavar=("KIND", "ARG", "PATH"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        kind, arg, path = args.child
        if kind == "build":
            n, n_features = (int(v) for v in arg.split(","))
            build(n, path, n_features)
            print("{}")
        else:
            print(json.dumps(drive(arg, path, kind.startswith("trace"),
                                   kind.endswith("output"))))
        return
    from _rows import short_commit, write_rows

    commit = short_commit()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.sizes:
            for method in args.methods:
                feats = FEATURES.get(method, 0)
                path = os.path.join(tmp, f"hsbm-{n}-{feats}")
                if not os.path.exists(path):
                    _child(["--child", "build", f"{n},{feats}", path])
                kind = ("trace" if args.trace else "drive") + ("-output" if args.output else "")
                row = {**_child(["--child", kind, method, path]), "commit": commit}
                rows.append(row)
                print(_table([row]).splitlines()[-1], flush=True)
    write_rows(args.out, rows, f"Commit {commit}; a scheduler and 2 one-thread workers as "
               "separate processes; driver = the process calling fit; memory rows hold under "
               "load.", _table(rows))


if __name__ == "__main__":
    main()
