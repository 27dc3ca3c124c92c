"""Where one Uni-DHC fit spends its time: named phases, the set-up share, the bare kernel beside.

The input is ``hypergraph_sbm(n, 4, homophily=0.7, n_features=32, random_state=0)`` (as many
hyperedges as nodes, sizes 2..6; about 1.8% isolated nodes at 10^6), built once by the parent
and saved (uncompressed ``.npz``) so that each fit runs in a **fresh process** that pays
``import torch`` as a user's first fit does. Each child loads the hypergraph (not timed),
wraps the functions a fit calls (:data:`PHASES`) and fits ``UniDHC(4, random_state=0)``
once; the parent times the bare kernel between the children (scipy's float32 CSR pair
``H (H^T X)`` at the basis width, 32, one thread: the polynomial basis applies ``P`` =
that pair ``order`` times), so both see the same load.

Per phase: wall and process CPU seconds (min and median over the fits). ``set-up`` is
everything before the first training epoch, with and without
``import torch`` (paid once per process: a second fit in the same process does not pay it).
When the fit may use two threads, torch is imported in a second thread beside the set-up
(:mod:`hyperclust.models.background_import`), after the isolated nodes' search in the
same thread: the phase ``import`` is then the fit's wait for that thread (its wall on
the critical path), the search's phase overlaps the fit thread's phases (``other``, the
fit less its named phases, may then be negative), and the CPU share without the import
subtracts the import's CPU in both threads (``import_cpu_s``: the import thread's CPU for
the import alone and the main thread's own in ``_deep``; process CPU counts every thread).
``set-up CPU of the fit's own thread`` (``setup_main_cpu_s``, its ``thread_time`` up to the
first epoch) is the critical path's own work where the import's thread and the products'
pool run beside it on free cores: it grows little with other processes' load, which
stretches every wall. Also printed: commit, threads, load average before and after, peak
RSS of each child (``ru_maxrss``, the loaded input included) and its RSS before the fit.

Idle check (under 2 minutes on an idle 2-core machine at 10^6: 9 s to build the input, 3
fits of ~10 s in each tree, 3 kernel pairs; half that without ``--ref``)::

    mkdir -p /tmp/before && git archive 6471496 src | tar -x -C /tmp/before
    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 HYPERCLUST_NUM_THREADS=1 \\
        PYTHONPATH=src python benchmarks/bench_unidhc_setup.py --n 1e6 --repeats 3 \\
        --ref /tmp/before/src

Without the thread variables the fits use the thread policy's default (two threads on the
2-core machine: torch's import then runs beside the set-up, and the wall share is the
measure). ``--input NPZ`` keeps the input there (built and saved when the file does not
exist, reused when it does: 9-18 s less per run). ``--ref SRC`` also
fits with another source tree (its ``src``), interleaved with this checkout's
(``PYTHONPATH`` of each fit's process is its tree's ``src``), so both see the same load;
repeated, it adds trees (``ref``, ``ref2``, ...).
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

ROOT = Path(__file__).resolve().parents[1]
#: (phase, module, owner attribute or None for a module-level function, function name).
#: A phase's time is the sum over its calls (and over the functions of one name);
#: "import" is the first ``_deep()`` call.
PHASES = (
    ("import", "hyperclust.cluster.unidhc", None, "_deep"),
    ("validation", "hyperclust.cluster.unidhc", "UniDHC", "_validate_params"),
    ("validation", "hyperclust.cluster.unidhc", None, "check_hypergraph"),
    ("validation", "hyperclust.cluster.unidhc", None, "check_n_clusters"),
    ("validation", "hyperclust.cluster.unidhc", "UniDHC", "_validate"),
    ("input", "hyperclust.cluster.unidhc", "UniDHC", "_prepare_input"),
    ("operator", "hyperclust.cluster.unidhc", None, "PropagationOperator"),
    ("basis", "hyperclust.cluster.unidhc", None, "polynomial_basis"),
    ("initial filter", "hyperclust.cluster.unidhc", "UniDHC", "_initial_filter"),
    ("isolated kNN", "hyperclust.cluster.unidhc", None, "feature_neighbors"),
    ("isolated borrow", "hyperclust.cluster.unidhc", None, "borrow_for_isolated"),
    ("batches", "hyperclust.models.unidhc", "ArrayBatches", "__init__"),
    ("model", "hyperclust.models.unidhc", None, "UniDHCNet"),
    ("optimizer", "hyperclust.models.unidhc", None, "_adam"),
    ("epochs", "hyperclust.models.unidhc", None, "_train_epoch"),
    ("filter output", "hyperclust.cluster.unidhc", None, "_filter_output"),
    ("encode", "hyperclust.cluster.unidhc", "UniDHC", "_encode"),
    ("k-means", "hyperclust.cluster.unidhc", None, "kmeans_labels"),
)
#: Phases that end before the first epoch (with "other" before it: checks, small steps).
SETUP = ("import", "validation", "input", "operator", "basis", "initial filter", "isolated kNN",
         "isolated borrow", "batches", "model", "optimizer")


def save_input(n: int, path: Path) -> dict:
    """Build the HSBM of ``n`` nodes and save its incidence, weights and features."""
    import numpy as np

    from hyperclust.datasets.synthetic import hypergraph_sbm

    t = time.perf_counter()
    hg = hypergraph_sbm(n, 4, homophily=0.7, n_features=32, random_state=0)
    H = hg.incidence.tocsr()
    np.savez(path, indptr=H.indptr, indices=H.indices, shape=np.array(H.shape),
             weights=np.asarray(hg.weights), features=np.asarray(hg.features))
    return {"nnz": int(H.nnz), "isolated": int(hg.isolated.sum()),
            "build_s": round(time.perf_counter() - t, 2)}


def load_input(path):
    """The hypergraph :func:`save_input` wrote."""
    import numpy as np
    import scipy.sparse as sp

    from hyperclust import Hypergraph

    with np.load(path) as f:
        H = sp.csr_matrix((np.ones(f["indices"].size), f["indices"], f["indptr"]),
                          shape=tuple(f["shape"]))
        return Hypergraph(H, weights=f["weights"], features=f["features"])


class PhaseClock:
    """Wall and CPU seconds per phase of the wrapped functions, and the moment of the first
    training epoch (the end of the set-up)."""

    def __init__(self):
        self.wall, self.cpu, self.calls = {}, {}, {}
        self.import_cpu = 0.0  # the import's CPU in every thread (thread_time)
        self.import_thread = False  # whether torch was imported in a second thread
        self.first_epoch = None
        self.deferred = []  # specs in modules that import torch: wrapped after "import"

    def wrap_all(self, specs):
        """Wrap the phases of modules imported now; the others after the first "import"
        call (importing them here would move torch's import out of the fit)."""
        for spec in specs:
            if spec[1] in sys.modules:
                self.wrap(*spec)
            else:
                self.deferred.append(spec)

    def wrap(self, phase, module, owner, name):
        import importlib

        target = importlib.import_module(module)
        if owner is not None:
            target = getattr(target, owner)
        orig = getattr(target, name)

        def timed(*args, **kwargs):
            if phase == "epochs" and self.first_epoch is None:
                self.first_epoch = (time.perf_counter(), time.process_time(),
                                    time.thread_time())
            t, c, own = time.perf_counter(), time.process_time(), time.thread_time()
            try:
                return orig(*args, **kwargs)
            finally:
                if phase == "import":
                    self.import_cpu += time.thread_time() - own
                self.wall[phase] = self.wall.get(phase, 0.0) + time.perf_counter() - t
                self.cpu[phase] = self.cpu.get(phase, 0.0) + time.process_time() - c
                self.calls[phase] = self.calls.get(phase, 0) + 1
                if phase == "import":
                    while self.deferred:
                        self.wrap(*self.deferred.pop())

        setattr(target, name, timed)

    def wrap_background_import(self):
        """Add the CPU of torch's import in its own thread to :attr:`import_cpu`."""
        try:
            from hyperclust.models.background_import import BackgroundImport
        except ImportError:  # a tree from before it (--ref): torch imported in the fit
            return

        # the import alone: the thread may run a task of the fit's after it (kept in phases)
        name = "_import" if hasattr(BackgroundImport, "_import") else "_run"
        orig = getattr(BackgroundImport, name)

        def timed(imp):
            self.import_thread = True
            own = time.thread_time()
            try:
                orig(imp)
            finally:
                self.import_cpu += time.thread_time() - own

        setattr(BackgroundImport, name, timed)


def child(path: str, gamma_init: str, torch_imported: bool = False) -> dict:
    """One fit in this (fresh) process, its phases wrapped; returns the record
    (``torch_imported``: torch imported before the fit, as a second fit in a process or a
    program that already uses torch sees it)."""
    import resource

    hg = load_input(path)
    if torch_imported:
        import torch  # noqa: F401
    from hyperclust.bench.memory import current_rss_mb
    from hyperclust.cluster.unidhc import UniDHC
    from hyperclust.runtime.threads import current_limit, default_threads, input_work

    clock = PhaseClock()
    clock.wrap_all(PHASES)
    clock.wrap_background_import()
    rss_before, torch_before = current_rss_mb(), "torch" in sys.modules
    t, c, own = time.perf_counter(), time.process_time(), time.thread_time()
    UniDHC(4, gamma_init=gamma_init, random_state=0).fit(hg)
    wall, cpu = time.perf_counter() - t, time.process_time() - c
    setup = (clock.first_epoch[0] - t, clock.first_epoch[1] - c, clock.first_epoch[2] - own) \
        if clock.first_epoch else (None, None, None)
    return {"fit_s": wall, "fit_cpu_s": cpu, "setup_s": setup[0], "setup_cpu_s": setup[1],
            "setup_main_cpu_s": setup[2],
            "phases_s": clock.wall, "phases_cpu_s": clock.cpu, "calls": clock.calls,
            "other_s": wall - sum(clock.wall.values()),
            "other_cpu_s": cpu - sum(clock.cpu.values()),
            "torch_imported_before_fit": torch_before,
            "import_cpu_s": clock.import_cpu,
            "import_thread": clock.import_thread,
            "torch_dynamo_imported": "torch._dynamo" in sys.modules,
            # the fit's own limit (the thread policy for this input), not this script's
            "threads": current_limit() or default_threads(input_work(hg)),
            "rss_before_fit_mib": rss_before,
            "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def bare_pair(path, width: int = 32, repeats: int = 3) -> tuple:
    """Min wall and CPU seconds of the float32 pair ``H (H^T X)`` at ``width`` columns."""
    import numpy as np
    import scipy.sparse as sp

    with np.load(path) as f:
        H = sp.csr_matrix((np.ones(f["indices"].size, dtype=np.float32), f["indices"],
                           f["indptr"]), shape=tuple(f["shape"]))
    Ht = H.T.tocsr()
    X = np.random.default_rng(0).standard_normal((H.shape[0], width)).astype(np.float32)
    runs = []
    for _ in range(repeats):
        t, c = time.perf_counter(), time.process_time()
        H @ (Ht @ X)
        runs.append((time.perf_counter() - t, time.process_time() - c))
    return min(r[0] for r in runs), min(r[1] for r in runs)


def run_child(path, gamma_init, timeout, src, torch_imported=False) -> dict:
    """One fit in a fresh process importing hyperclust from ``src``."""
    out = subprocess.run([sys.executable, __file__, "--child", str(path), "--gamma-init",
                          gamma_init] + ["--torch-imported"] * torch_imported,
                         capture_output=True, text=True, timeout=timeout,
                         env=dict(os.environ, PYTHONPATH=str(src)))
    if out.returncode:
        sys.exit(f"the fit's process failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def _stats(values) -> dict:
    import numpy as np

    values = [v for v in values if v is not None]
    return {"min": float(min(values)), "median": float(np.median(values))} if values else {}


def summary(fits, kernel) -> dict:
    """Min / median of every phase (wall and CPU), the set-up shares and the kernel."""
    phases = sorted({p for f in fits for p in f["phases_s"]},
                    key=[p[0] for p in PHASES].index)
    out = {"fit_s": _stats([f["fit_s"] for f in fits]),
           "fit_cpu_s": _stats([f["fit_cpu_s"] for f in fits]),
           "phases_s": {p: _stats([f["phases_s"].get(p, 0.0) for f in fits]) for p in phases},
           "phases_cpu_s": {p: _stats([f["phases_cpu_s"].get(p, 0.0) for f in fits])
                            for p in phases},
           "other_s": _stats([f["other_s"] for f in fits]),
           "other_cpu_s": _stats([f["other_cpu_s"] for f in fits]),
           "peak_rss_mib": max(f["peak_rss_mib"] for f in fits),
           "kernel_pair_s": _stats([k[0] for k in kernel]),
           "kernel_pair_cpu_s": _stats([k[1] for k in kernel])}
    for clock, suffix in (("s", ""), ("cpu_s", "_cpu")):
        shares, bare = [], []
        for f in fits:
            if f["setup" + suffix + "_s"] is None:
                continue
            imp = f["phases_" + clock].get("import", 0.0) if clock == "s" \
                else f.get("import_cpu_s", f["phases_cpu_s"].get("import", 0.0))
            fit = f["fit" + suffix + "_s"]
            shares.append(f["setup" + suffix + "_s"] / fit)
            bare.append((f["setup" + suffix + "_s"] - imp) / (fit - imp))
        out["setup_share" + suffix] = _stats(shares)
        out["setup_share_without_import" + suffix] = _stats(bare)
    # the fit's own thread: the set-up's critical path where the import thread (and the
    # products' pool) run beside it on free cores; little inflated by other processes' load
    out["setup_main_cpu_s"] = _stats([f.get("setup_main_cpu_s") for f in fits])
    return out


def table(summ) -> list[str]:
    lines = ["| phase | wall min | wall median | CPU min | CPU median | in set-up |",
             "|---|---|---|---|---|---|"]
    rows = [(p, summ["phases_s"][p], summ["phases_cpu_s"][p], p in SETUP)
            for p in summ["phases_s"]]
    rows.append(("other", summ["other_s"], summ["other_cpu_s"], "part"))
    rows.append(("**fit**", summ["fit_s"], summ["fit_cpu_s"], ""))
    rows.append(("bare pair H (H^T X), w=32", summ["kernel_pair_s"],
                 summ["kernel_pair_cpu_s"], ""))
    for name, wall, cpu, in_setup in rows:
        mark = {True: "yes", False: "", "part": "part", "": ""}[in_setup]
        lines.append(f"| {name} | {wall['min']:.3f} | {wall['median']:.3f} | "
                     f"{cpu['min']:.3f} | {cpu['median']:.3f} | {mark} |")
    return lines


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=float, default=1e6, help="nodes of the HSBM")
    ap.add_argument("--repeats", type=int, default=3, help="fits, each in a fresh process")
    ap.add_argument("--gamma-init", default="canonical", help="UniDHC's gamma_init")
    ap.add_argument("--timeout", type=float, default=300, help="seconds per fit")
    ap.add_argument("--ref", metavar="SRC", action="append", default=[],
                    help="also fit with this source tree (its src/), interleaved with this "
                    "checkout's; repeatable (trees ref, ref2, ...)")
    ap.add_argument("--input", metavar="NPZ", help="the input's file: reused when it "
                    "exists (save_input's format), else the HSBM of --n is built and saved there")
    ap.add_argument("--torch-imported", action="store_true", help="import torch in each "
                    "fit's process before the fit (a second fit's set-up, or a program's "
                    "that already uses torch): the fit does not pay torch's first import")
    ap.add_argument("--child", metavar="NPZ", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child, args.gamma_init, args.torch_imported)), flush=True)
        return
    from hyperclust.bench.provenance import load_average, run_provenance

    trees = {"this": ROOT / "src", **{"ref" + (str(i + 1) if i else ""): Path(src)
                                      for i, src in enumerate(args.ref)}}
    head = {**run_provenance(), "n": int(args.n), "repeats": args.repeats,
            "gamma_init": args.gamma_init, "torch_imported": args.torch_imported,
            "trees": {k: str(v) for k, v in trees.items()},
            "env_threads": {k: os.environ.get(k) for k in ("HYPERCLUST_NUM_THREADS",
                                                           "OMP_NUM_THREADS")}}
    fits, kernel = {tree: [] for tree in trees}, []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(args.input) if args.input else Path(tmp) / "hsbm.npz"
        if not path.exists():
            head.update(save_input(int(args.n), path))
        print(json.dumps(head), flush=True)
        for _ in range(args.repeats):  # the trees interleaved: both see the same load
            for tree, src in trees.items():
                fits[tree].append(run_child(path, args.gamma_init, args.timeout, src,
                                            args.torch_imported))
                print(json.dumps({"tree": tree, **fits[tree][-1]}), flush=True)
            kernel.append(bare_pair(path))
    for tree in trees:
        report(tree, fits[tree], kernel, load_average())


def report(tree, fits, kernel, load_end):
    """Print the summary of one tree's fits: JSON, the phase table, the set-up shares."""
    summ = summary(fits, kernel)
    summ.update(tree=tree, load_avg_end=load_end,
                threads=sorted({f["threads"] for f in fits}, key=str),
                torch_dynamo_imported=sorted({f["torch_dynamo_imported"] for f in fits}),
                import_thread=sorted({f.get("import_thread", False) for f in fits}))
    print(json.dumps(summ), flush=True)
    print(f"\n{tree}:")
    print("\n".join(table(summ)))
    for suffix, clock in (("", "wall"), ("_cpu", "CPU")):
        print(f"set-up share ({clock}, min / median): with import "
              f"{summ['setup_share' + suffix]['min']:.3f} / "
              f"{summ['setup_share' + suffix]['median']:.3f}; without import "
              f"{summ['setup_share_without_import' + suffix]['min']:.3f} / "
              f"{summ['setup_share_without_import' + suffix]['median']:.3f}")
    if summ["setup_main_cpu_s"]:
        print(f"set-up CPU of the fit's own thread (min / median): "
              f"{summ['setup_main_cpu_s']['min']:.3f} / {summ['setup_main_cpu_s']['median']:.3f}")

if __name__ == "__main__":
    main()
