"""The ``hyperclust bench`` subcommand over the harness :mod:`hyperclust.bench`."""

from __future__ import annotations

import argparse
import importlib
import signal
import sys
from pathlib import Path

from ..cluster.registry import available_methods
from ..runtime.progress import on_terminal
from ._common import check_data_dir, check_device

__all__ = ["add_parser", "run", "default_published", "DEFAULT_SWEEP"]

DEFAULT_SWEEP = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)


def default_published():
    """``../shared/docs/published-results.csv`` relative to the working directory, or None.

    Examples
    --------
    >>> import os, pathlib, tempfile
    >>> here = os.getcwd()
    >>> with tempfile.TemporaryDirectory() as d:
    ...     (pathlib.Path(d) / "repo").mkdir()
    ...     os.chdir(pathlib.Path(d) / "repo")
    ...     try:
    ...         found = default_published()
    ...     finally:
    ...         os.chdir(here)
    >>> found is None
    True
    """
    p = Path.cwd().parent / "shared" / "docs" / "published-results.csv"
    return p if p.exists() else None


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Add the ``bench`` subcommand to ``subparsers``; return its parser.

    Examples
    --------
    >>> parser = argparse.ArgumentParser(prog="hyperclust")
    >>> _ = add_parser(parser.add_subparsers(dest="command"))
    >>> args = parser.parse_args(["bench", "--datasets", "zoo", "--seeds", "2",
    ...                           "--protocol", "lcc"])
    >>> args.datasets, args.seeds, args.protocols, args.time_limit
    (['zoo'], 2, ['lcc'], 300.0)
    """
    p = subparsers.add_parser(
        "bench", help="benchmark methods over datasets and seeds (JSON + markdown + plots)",
        description="Run every (dataset, method, seed, protocol) in its own capped process; "
                    "results accumulate in OUT/results.json (finished runs are not redone), "
                    "then OUT/report.md and PNG plots are written.")
    p.add_argument("--datasets", nargs="+", default=[],
                   help="dataset names (load_dataset names, synthetic-h0.3[-n2000][-k4], "
                        "module:function) or files/folders of your own (any input format)")
    p.add_argument("--synthetic-sweep", nargs="*", type=float, default=None, metavar="H",
                   help="add synthetic hypergraph SBMs at these pairwise homophily levels "
                        f"(no values: {' '.join(map(str, DEFAULT_SWEEP))})")
    p.add_argument("--sweep-nodes", type=int, default=2000, help="nodes of each sweep graph")
    p.add_argument("--methods", nargs="+", default=None,
                   help="method names (default: every registered method of ours); peers: "
                        + " ".join(sorted(set(available_methods(peers=True))
                                          - set(available_methods()))))
    p.add_argument("--seeds", type=int, default=5, help="number of seeds (0..N-1)")
    p.add_argument("--protocols", "--protocol", nargs="+", default=["all"],
                   help="all, isolated-removed (alias covered), lcc")
    p.add_argument("-o", "--out", default="bench-results", help="output directory")
    p.add_argument("--data-dir", default=None, help="dataset directory for load_dataset")
    p.add_argument("--time-limit", type=float, default=300.0, help="seconds per run")
    p.add_argument("--memory-limit", type=float, default=8192.0,
                   help="address-space cap per run in MiB (0: none)")
    p.add_argument("--threads", type=int, default=None, help="BLAS/OpenMP threads per run")
    p.add_argument("--device", default="cpu")
    p.add_argument("--start-method", choices=("forkserver", "subprocess"), default="forkserver",
                   help="each run forks from a preloaded server (fast) or starts a fresh "
                        "interpreter")
    p.add_argument("--retry", nargs="*", default=[],
                   help="re-run recorded runs with these statuses (e.g. timeout failed)")
    p.add_argument("--published", default=None,
                   help="published-results CSV (default ../shared/docs/published-results.csv "
                        "if present)")
    p.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    p.add_argument("--report-only", action="store_true",
                   help="only rewrite report.md and plots from OUT/results.json")
    p.add_argument("--merge", nargs="+", default=None, metavar="DIR",
                   help="with --report-only: first merge the results.json of these "
                        "directories into OUT/results.json (later directories win)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--plugins", nargs="+", default=[], metavar="MODULE",
                   help="modules imported here and first in every run: the methods, "
                        "operators (with their spectral-<operator> methods), formats and "
                        "datasets they register can be named")
    p.set_defaults(func=run)
    return p


def threading_is_main() -> bool:
    """Whether this is the main thread (the only one that may install a signal handler)."""
    import threading

    return threading.current_thread() is threading.main_thread()


def run(args) -> int:
    """Execute ``hyperclust bench``: 0 when every run finished ok, 1 when some did not, 2 for a usage error.

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> parser = argparse.ArgumentParser(prog="hyperclust")
    >>> _ = add_parser(parser.add_subparsers(dest="command"))
    >>> with tempfile.TemporaryDirectory() as d:  # doctest: +ELLIPSIS
    ...     rows = [{"dataset": "zoo", "protocol": "all", "method": "kmeans", "seed": 0,
    ...              "status": "failed", "error": "boom"}]
    ...     _ = (pathlib.Path(d) / "results.json").write_text(json.dumps({"runs": rows}))
    ...     code = run(parser.parse_args(["bench", "--out", d, "--report-only", "--no-plots",
    ...                                   "--published", "none.csv"]))
    ...     written = sorted(p.name for p in pathlib.Path(d).iterdir())
    /.../report.md
    >>> code, written
    (0, ['report.md', 'results.json'])
    >>> run(parser.parse_args(["bench"]))  # no datasets: 'error: ...' on stderr
    2
    """
    from ..bench.runner import run_benchmark

    args.device = check_device(args.device)  # before any run: one line, not one per run
    check_data_dir(args.data_dir)
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        print(f"hyperclust: error: --out {out} is a file; bench writes a folder (results.json, "
              "report.md, logs/)", file=sys.stderr)
        return 2
    if args.report_only:
        return _report_only(out, args.merge, args.published, plots=not args.no_plots)
    try:
        datasets, methods = _grid_names(args)
    except _UsageError as exc:
        print(exc, file=sys.stderr)
        return 2
    published = _published(args.published)

    def _terminate(signum, frame):
        raise SystemExit(128 + signum)  # unwinds through the runner, which ends its run

    previous = signal.signal(signal.SIGTERM, _terminate) if threading_is_main() else None
    try:
        runs = run_benchmark(datasets, methods, args.seeds, out, data_dir=args.data_dir,
                             time_limit=args.time_limit,
                             memory_limit=args.memory_limit or None, protocol=args.protocols,
                             device=args.device, threads=args.threads, retry=args.retry,
                             start_method=args.start_method,
                             progress=not (args.no_progress or getattr(args, "top_quiet", 0))
                             and on_terminal(),
                             report=True, published=published,
                             plots=not args.no_plots, plugins=args.plugins)
    except (ValueError, TypeError) as exc:
        print(f"hyperclust: error: {exc}", file=sys.stderr)
        return 2
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    return _summary(runs, out)


def _published(given):
    """``given``, else :func:`default_published` (with a note when there is none)."""
    if given is not None:
        return given
    found = default_published()
    if found is None:
        print("hyperclust: note: no published-results CSV found (looked for "
              f"{Path.cwd().parent / 'shared' / 'docs' / 'published-results.csv'}); the report "
              "omits published numbers", file=sys.stderr)
    return found


class _UsageError(Exception):
    """A command-line mistake; its message is printed as it is (exit status 2)."""


def _report_only(out: Path, merge, published, plots: bool) -> int:
    """``--report-only``: merge the ``merge`` directories' results into ``out``, rewrite its report."""
    from ..bench.report import write_report
    from ..bench.runner import ResultStore

    store = ResultStore(out / "results.json")
    for d in merge or ():
        store.update(ResultStore(Path(d) / "results.json").runs)
    if not store.runs:
        print(f"hyperclust: error: no runs in {out / 'results.json'}", file=sys.stderr)
        return 2
    print(write_report(store.runs, out, published=_published(published), plots=plots))
    return 0


def _grid_names(args) -> tuple[list, list]:
    """The checked dataset and method names of the grid (plugins imported first)."""
    datasets = list(args.datasets)
    if args.synthetic_sweep is not None:
        levels = args.synthetic_sweep or DEFAULT_SWEEP
        datasets += [f"synthetic-h{h:g}-n{args.sweep_nodes}" for h in levels]
    if not datasets:
        raise _UsageError("hyperclust: error: give --datasets and/or --synthetic-sweep")
    try:
        for module in args.plugins:
            importlib.import_module(module)
    except ImportError as exc:
        raise _UsageError(f"hyperclust: error: --plugins: {exc}") from exc
    methods = args.methods
    if methods is None:
        methods = list(available_methods())
        if not methods:
            raise _UsageError("hyperclust: error: no method is registered; give --methods")
    from ..bench.data import check_dataset_name, check_method_name

    try:
        for m in methods:
            check_method_name(m)
        for d in datasets:
            check_dataset_name(d)
    except (ValueError, TypeError) as exc:
        raise _UsageError(f"hyperclust: error: {exc}") from exc
    return datasets, methods


def _summary(runs, out: Path) -> int:
    """Print where the runs and report are; 1 when some run did not finish ok, else 0."""
    bad = [r for r in runs if r.get("status") != "ok"]
    print(f"{len(runs)} runs in {out / 'results.json'} ({len(bad)} not ok); "
          f"report: {out / 'report.md'}")
    if bad:
        first = bad[0]
        print(f"hyperclust: error: {len(bad)} of {len(runs)} runs did not finish ok (first: "
              f"{first.get('dataset')} / {first.get('method')} seed {first.get('seed')}: "
              f"{first.get('status')}); see {out / 'logs'}", file=sys.stderr)
        return 1
    return 0
