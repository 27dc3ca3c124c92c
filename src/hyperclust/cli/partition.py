"""``hyperclust partition`` and ``hyperclust cluster DIR --scheduler ADDRESS|local:N``: the
command line of :mod:`hyperclust.distributed` (imported only when a command runs).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import csv
import time
from pathlib import Path

from ..runtime.progress import on_terminal

__all__ = ["add_partition_parser", "cluster_partitioned", "cluster_failures_as_errors"]


def add_partition_parser(sub) -> None:
    """Register ``hyperclust partition FILES... --out DIR`` on ``sub`` (from ``add_subparsers``).

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="hyperclust")
    >>> add_partition_parser(parser.add_subparsers(dest="command"))
    >>> args = parser.parse_args(["partition", "a.txt", "b.txt", "--out", "parts",
    ...                           "--block-size", "100"])
    >>> args.files, args.out, args.block_size, args.edge_block_size, args.scheduler
    (['a.txt', 'b.txt'], 'parts', 100, None, None)
    >>> args.header, args.duplicates, args.singletons  # the defaults of `hyperclust cluster`
    (None, 'merge', 'keep')
    """
    p = sub.add_parser("partition", help="split edge-list files into a partitioned hypergraph "
                                         "directory for `cluster --scheduler`")
    p.add_argument("files", nargs="+",
                   help="edge-list files (one hyperedge per line), in order; a name ending in "
                        ".parquet is a table of (node, hyperedge[, weight]) pairs, local or at "
                        "an fsspec URL (s3://, gs://, ...)")
    p.add_argument("-o", "--out", required=True, metavar="DIR", help="output directory")
    p.add_argument("--block-size", type=int, default=1_000_000, metavar="N",
                   help="nodes per row block (default 1,000,000)")
    p.add_argument("--edge-block-size", type=int, default=None, metavar="N",
                   help="hyperedges per hyperedge partition (default --block-size)")
    p.add_argument("--weighted", action="store_true",
                   help="the last field of each line is the hyperedge weight")
    p.add_argument("--sep", default=None, help="field separator (default commas and/or spaces)")
    header = p.add_mutually_exclusive_group()
    header.add_argument("--header", dest="header", action="store_true", default=None,
                        help="each file's first line is a header (default: detected, as "
                             "`hyperclust cluster` does)")
    header.add_argument("--no-header", dest="header", action="store_false",
                        help="no file has a header line")
    p.add_argument("--duplicates", choices=("merge", "drop", "keep"), default="merge",
                   help="repeated hyperedges: merge (sum their weights; default, as "
                        "`hyperclust cluster` reads them), drop the repeats, or keep each")
    p.add_argument("--singletons", choices=("keep", "drop"), default="keep",
                   help="hyperedges of one node: keep (default, as `hyperclust cluster`) "
                        "or drop")
    p.add_argument("--features", default=None, metavar="FILE",
                   help="node features, stored per row block (a CSV whose first column "
                        "'node' names the node, or a positional .npy/.npz/CSV, or a .parquet "
                        "table with a 'node' column)")
    p.add_argument("--pair-columns", default="node,hyperedge", metavar="NODE,HYPEREDGE[,WEIGHT]",
                   help="column names of .parquet pair tables (default node,hyperedge: "
                        "weight 1)")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS|local:N",
                   help="run the per-file and per-block work on a Dask cluster (default: here)")
    p.add_argument("--placement", choices=("ids", "rcm", "metis"), default="ids",
                   help="which nodes share a row block: ids (default: as numbered), rcm "
                        "(reverse Cuthill-McKee) or metis (needs pymetis): fewer hyperedges "
                        "across blocks; both read the whole incidence into this process "
                        "after the build, refused when it does not fit")
    p.add_argument("--overwrite", action="store_true", help="replace an existing DIR")
    p.set_defaults(func=cmd_partition)


@contextlib.contextmanager
def cluster_failures_as_errors():
    """Turn a Dask cluster's failures into one-line ``UserError``s; ``SIGTERM`` runs ``finally`` blocks.

    Examples
    --------
    >>> from hyperclust.distributed.client import WorkersStalled
    >>> with cluster_failures_as_errors():  # doctest: +ELLIPSIS
    ...     raise WorkersStalled("no Dask worker could run tasks for 60 s")
    Traceback (most recent call last):
    ...
    hyperclust.cli._common.UserError: no Dask worker could run tasks for 60 s
    """
    from ..distributed.client import WorkersStalled
    from ..distributed.scratch import exit_on_sigterm
    from ._common import UserError

    exit_on_sigterm()
    try:
        yield
    except WorkersStalled as exc:
        raise UserError(str(exc)) from None
    except (Exception, asyncio.CancelledError) as exc:  # asyncio's is a BaseException
        from distributed import KilledWorker

        if isinstance(exc, KilledWorker):
            raise UserError(
                "Dask workers kept dying while running a task (KilledWorker), most often "
                "because they ran out of memory: give the workers more memory (dask worker "
                "--memory-limit) or use smaller row blocks (hyperclust partition "
                "--block-size)") from None
        if isinstance(exc, (asyncio.CancelledError, concurrent.futures.CancelledError)):
            raise UserError("the Dask cluster cancelled the run's tasks (was the scheduler "
                            "restarted or the client closed?)") from None
        raise


def _pair_columns(text: str) -> tuple:
    names = [c.strip() for c in text.split(",")]
    if len(names) not in (2, 3) or not all(names):
        raise ValueError(f"--pair-columns {text!r}: give NODE,HYPEREDGE or "
                         "NODE,HYPEREDGE,WEIGHT")
    return (*names, None) if len(names) == 2 else tuple(names)


def cmd_partition(args) -> int:
    from ..distributed.client import resolve_client
    from ..distributed.partition import partition_edgelists
    from ..distributed.placed_partition import place_partition
    from ..distributed.placement import check_placement
    from ._common import UserError

    check_placement(args.placement)  # before the build: a missing pymetis costs nothing
    kw = dict(block_size=args.block_size, edge_block_size=args.edge_block_size,
              weighted=True if args.weighted else None, sep=args.sep, header=args.header,
              duplicates=args.duplicates, singletons=args.singletons,
              features=args.features, overwrite=args.overwrite,
              pair_columns=_pair_columns(args.pair_columns))
    t0 = time.perf_counter()
    if args.scheduler is None:
        phg = partition_edgelists(args.files, args.out, **kw)
    else:
        with cluster_failures_as_errors(), resolve_client(args.scheduler) as client:
            phg = partition_edgelists(args.files, args.out, client=client, progress=True, **kw)
    try:
        phg = place_partition(phg, args.placement)
    except (ValueError, ImportError) as exc:
        raise UserError(f"{exc} ({phg.path} holds the partition as numbered)") from None
    with_features = "" if phg.n_features is None else f", {phg.n_features} feature columns"
    print(f"wrote {phg.path}: {phg.n_nodes} nodes, {phg.n_edges} hyperedges, {phg.nnz} "
          f"incidences{with_features} in {phg.n_blocks} row blocks, placement "
          f"{args.placement} "
          f"({time.perf_counter() - t0:.2f} s)")
    return 0


def cluster_partitioned(args) -> int:
    """``hyperclust cluster DIR --scheduler ...``: fit ``--method``'s distributed twin, write the outputs.

    ``args.scheduler`` is an address, ``local:N`` or a ``dask.distributed.Client``; options with
    no distributed meaning raise ``ValueError``. Returns the exit status, 0.

    Examples
    --------
    >>> import argparse, pathlib, tempfile, distributed
    >>> from hyperclust.cli.cluster import add_parser
    >>> from hyperclust.distributed import partition_edgelists
    >>> parser = argparse.ArgumentParser(prog="hyperclust")
    >>> add_parser(parser.add_subparsers(dest="command"))
    >>> with tempfile.TemporaryDirectory() as d, distributed.Client(
    ...         processes=False, n_workers=1, threads_per_worker=1,
    ...         dashboard_address=":0") as client:  # doctest: +ELLIPSIS
    ...     path, out = pathlib.Path(d) / "edges.txt", pathlib.Path(d) / "labels.csv"
    ...     _ = path.write_text("0,1,2\\n1,2\\n3,4,5\\n4,5\\n")
    ...     phg = partition_edgelists([str(path)], str(pathlib.Path(d) / "parts"))
    ...     args = parser.parse_args(["cluster", str(phg.path), "--k", "2", "--out", str(out),
    ...                               "--quiet"])
    ...     args.scheduler = client
    ...     code = cluster_partitioned(args)
    ...     rows = out.read_text().split()
    spectral-zhou on PartitionedHypergraph(..., n_nodes=6, ...) via ...: 2 clusters in ... s (...)
    wrote ... (6 rows: node id, cluster)
    >>> labels = [row.split(",")[1] for row in rows[1:]]
    >>> code, labels[0] == labels[1] == labels[2] != labels[3] == labels[4] == labels[5]
    (0, True)
    """
    from ..distributed.partitioned import PartitionedHypergraph

    method = _check_options(args)
    out, emb = _check_outputs(args)
    phg = PartitionedHypergraph(args.target)
    est, steps = _estimator(method, args)
    from ..distributed.storage import is_parquet

    by_workers = out is not None and is_parquet(out) and emb is None
    if by_workers:  # the workers write it: this process holds nothing of size n
        est.set_params(output=out)
        est._output_labels_only = True
    t0 = time.perf_counter()
    with cluster_failures_as_errors():
        est.fit(phg)
    print(f"{method} on {phg!r} via {args.scheduler}: {args.k} clusters in "
          f"{time.perf_counter() - t0:.2f} s ({steps()})")
    if by_workers:
        print(f"wrote {out} ({_parquet_files(out)} written by the workers, "
              f"{phg.n_nodes} rows: node id, cluster)")
    else:
        _write_outputs(est, phg, out, emb, replace=args.force)
    return 0


def _check_options(args) -> str:
    """The distributed method ``args`` ask for; ``ValueError`` for options with no distributed meaning."""
    from ..cluster.registry import METHODS, distributed_methods

    twin = getattr(METHODS.get(args.method), "distributed", None)
    if twin is None:
        raise ValueError(f"method {args.method!r} has no distributed version; with --scheduler "
                         f"use one of {', '.join(distributed_methods())}")
    # auto's twin is another method's: name that method
    method = next((m for m in distributed_methods() if METHODS[m].distributed is twin),
                  args.method)
    if getattr(args, "plot", None):
        raise ValueError("--plot is not available with --scheduler (it needs the whole "
                         "embedding in one process); write --embedding-out and plot that")
    if args.drop_isolated:
        raise ValueError("--drop-isolated is not available with --scheduler; drop the nodes "
                         "before partitioning")
    given = [opt for opt, key in (("--features", "features"), ("--labels", "labels"),
                                  ("--format", "format"), ("--sep", "sep"),
                                  ("--header/--no-header", "header"))
             if getattr(args, key, None) is not None]
    if given:
        raise ValueError(f"{', '.join(given)} cannot be used with --scheduler: the input is a "
                         "directory made by `hyperclust partition` (pass reading options "
                         "and --features there)")
    if args.k is None or args.k < 1:
        raise ValueError("--k (a positive number of clusters) is required with --scheduler")
    return method


def _check_outputs(args) -> tuple:
    """The checked ``--out`` and ``--embedding-out`` (None when not asked for)."""
    from ..distributed.storage import is_parquet, path_exists
    from .outputs import check_output

    def check(path, flag):
        if is_parquet(path):  # a folder of one file per row block, on any fsspec path
            if path_exists(path) and not args.force:
                raise ValueError(f"{flag} {path} exists; pass --force to replace it")
            return str(path)
        return check_output(path, [Path(args.target)], args.force, flag)

    out = None if args.out is None else check(args.out, "--out")
    emb = None
    if args.embedding_out is not None:
        if Path(str(args.embedding_out).rstrip("/")).suffix.lower() not in (
                ".npy", ".npz", ".parquet"):
            raise ValueError(f"--embedding-out {args.embedding_out}: the file name must end "
                             "in .npy, .npz or .parquet")
        emb = check(args.embedding_out, "--embedding-out")
    return out, emb


def _estimator(method: str, args):
    """``(estimator, steps)``: ``method``'s distributed twin and a callable saying its steps after the fit."""
    import inspect

    from .. import distributed
    from ..cluster.registry import METHODS
    from ._common import check_device

    twin = METHODS[method].distributed
    cls = getattr(distributed, twin.estimator.partition(":")[2])
    takes = inspect.signature(cls).parameters
    options = {key: not args.quiet and on_terminal() for key in ("verbose", "progress")
               if key in takes}
    if "device" in takes:
        options["device"] = check_device(args.device)
    est = cls(args.k, client=args.scheduler, random_state=args.seed, **options)
    return est, lambda: twin.steps(est)


def _parquet_files(url) -> str:
    """How many parquet files the folder ``url`` holds, in words."""
    import fsspec

    fs, root = fsspec.core.url_to_fs(str(url))
    n = len(fs.glob(root.rstrip("/") + "/*.parquet"))
    return f"{n} parquet file{'' if n == 1 else 's'}"


def _write_outputs(est, phg, out, emb, replace: bool) -> None:
    from ..distributed.storage import is_parquet, write_node_table
    from .outputs import write_atomically, write_embedding

    for path, emb_columns in ((out, None), (emb, est.embedding_)):
        if path is not None and is_parquet(path):
            write_node_table(path, est.node_ids_, est.labels_, emb_columns,
                             bounds=phg.block_bounds)
            print(f"wrote {path} ({_parquet_files(path)}, {phg.n_nodes} rows: node id, "
                  f"cluster{'' if emb_columns is None else ', embedding e0..'})")
    out = None if out is None or is_parquet(out) else out
    emb = None if emb is None or is_parquet(emb) else emb
    if out is not None:
        def write(fh):
            w = csv.writer(fh)
            w.writerow(["node", "cluster"])
            w.writerows(zip(est.node_ids_.tolist(), est.labels_.tolist()))
        write_atomically(out, write, replace=replace)
        print(f"wrote {out} ({phg.n_nodes} rows: node id, cluster)")
    if emb is not None:
        write_atomically(emb, lambda fh: write_embedding(fh, emb, phg, est.embedding_),
                         binary=True, replace=replace)
        print(f"wrote {emb} ({est.embedding_.shape[0]} x {est.embedding_.shape[1]} embedding)")
