"""The input of a command: a dataset name, a dataset folder or a file, with ``--features``/``--labels`` attached by node id."""

from __future__ import annotations

import contextlib
import os
import stat
import warnings
from pathlib import Path

from ._common import UserError, check_data_dir

__all__ = ["add_input_arguments", "load_target", "input_paths"]


def add_input_arguments(p) -> None:
    """Add ``--format``, ``--sep``, ``--header``/``--no-header``, ``--features``, ``--labels``, ``--index-base`` to ``p``.

    Examples
    --------
    >>> import argparse
    >>> p = argparse.ArgumentParser()
    >>> add_input_arguments(p)
    >>> args = p.parse_args(["--labels", "y.txt", "--index-base", "1"])
    >>> args.labels, args.index_base, args.header, args.format
    ('y.txt', 1, None, None)
    """
    from ..io.formats import FORMAT_NAMES

    p.add_argument("--format", default=None, metavar="NAME",
                   help="input format (default: detected): " +
                        "; ".join(f"{k}: {v}" for k, v in FORMAT_NAMES.items()))
    p.add_argument("--sep", default=None,
                   help="field separator of the input file (default: a tab in a .tsv file, "
                        "else commas and/or whitespace); not of --features/--labels, which "
                        "are read the same way on their own")
    header = p.add_mutually_exclusive_group()
    header.add_argument("--header", dest="header", action="store_true", default=None,
                        help="the edge list's first line is a header (default: detected)")
    header.add_argument("--no-header", dest="header", action="store_false",
                        help="the edge list's first line is data")
    p.add_argument("--features", default=None, metavar="FILE",
                   help="node features: .npy/.npz (row i = node id i + --index-base), or CSV "
                        "(first column 'node' = node id when the header names it)")
    p.add_argument("--labels", default=None, metavar="FILE",
                   help="node labels: one per line (row i = node id i + --index-base), "
                        "'node,label' lines, or .npy")
    p.add_argument("--index-base", type=int, choices=(0, 1), default=0,
                   help="node id of row 0 of a positional --features/--labels file (default 0)")


def input_options(args) -> dict:
    """The reader options (``sep``, ``header``) given on the command line.

    Examples
    --------
    >>> import argparse
    >>> input_options(argparse.Namespace(sep=";", header=None))
    {'sep': ';'}
    """
    opts = {}
    if getattr(args, "sep", None) is not None:
        opts["sep"] = args.sep
    if getattr(args, "header", None) is not None:
        opts["header"] = args.header
    return opts


def load_target(args):
    """The hypergraph named by ``args.target`` (dataset name, folder or file), tables attached by node id.

    Raises
    ------
    UserError
        A path-like target that does not exist, or ``--sep``/``--header`` with a dataset name.

    Examples
    --------
    A 1-based edge list with its labels, one per line (row 0 is node 1):

    >>> import argparse, pathlib, tempfile
    >>> p = argparse.ArgumentParser()
    >>> _ = p.add_argument("target")
    >>> add_input_arguments(p)
    >>> with tempfile.TemporaryDirectory() as d:
    ...     d = pathlib.Path(d)
    ...     _ = (d / "edges.txt").write_text("1 2 3\\n3 4\\n")
    ...     _ = (d / "labels.txt").write_text("a\\na\\nb\\nb\\n")
    ...     hg = load_target(p.parse_args([str(d / "edges.txt"), "--labels",
    ...                                    str(d / "labels.txt"), "--index-base", "1"]))
    >>> hg.node_ids.tolist(), hg.labels.tolist()
    ([1, 2, 3, 4], [0, 0, 1, 1])
    >>> load_target(p.parse_args(["missing/edges.txt"]))
    Traceback (most recent call last):
    ...
    hyperclust.cli._common.UserError: no such file or directory: missing/edges.txt
    """
    target, data_dir = args.target, getattr(args, "data_dir", None)
    fmt = getattr(args, "format", None)
    path = Path(target)
    for option, value in (("", target), ("--features ", getattr(args, "features", None)),
                          ("--labels ", getattr(args, "labels", None))):
        _check_readable(option, value)
    if path.exists():
        from ..io import read_hypergraph

        hg = read_hypergraph(path, format=fmt, **input_options(args))
    elif fmt is not None or os.sep in target or (os.altsep and os.altsep in target) or \
            Path(target).suffix.lower() in (".json", ".txt", ".csv", ".tsv", ".pickle", ".npy"):
        raise UserError(f"no such file or directory: {target}")
    else:
        if input_options(args):
            raise UserError("--sep/--header apply to files, not to registered dataset names")
        check_data_dir(data_dir)
        from ..datasets import resolve_dataset

        hg = resolve_dataset(target, data_dir=data_dir)
    _say_merged(hg)
    return attach_tables(hg, args)


def _say_merged(hg) -> None:
    """Warn that duplicate hyperedges were merged (it changes the hyperedge count)."""
    n, policy = hg.cleaning.duplicate_edges, hg.cleaning.duplicate_policy
    if n and policy != "keep":
        done = ("merged into the first with the same members (weights summed)"
                if policy == "merge" else "dropped")
        warnings.warn(f"{n} duplicate hyperedge{'s' if n > 1 else ''} {done}: {hg.n_edges} "
                      "hyperedges remain")


def _check_readable(option: str, value) -> None:
    """Refuse a FIFO, socket or device as an input: reading it could block, and readers may read twice."""
    if value is None or not Path(value).exists() or Path(value).is_dir():
        return
    if not stat.S_ISREG(os.stat(value).st_mode):
        raise UserError(f"{option}{value} is not a regular file (a FIFO, socket or device); "
                        "save the data to a file first")


def attach_tables(hg, args):
    """``hg`` with ``args``' ``--features``/``--labels`` tables attached by node id.

    Examples
    --------
    >>> import argparse, pathlib, tempfile
    >>> from hyperclust import Hypergraph
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [2, 3]])
    >>> with tempfile.TemporaryDirectory() as d:
    ...     _ = (pathlib.Path(d) / "y.csv").write_text("node,label\\n3,b\\n0,a\\n")
    ...     args = argparse.Namespace(target="hg", features=None, index_base=0,
    ...                               labels=str(pathlib.Path(d) / "y.csv"))
    ...     attach_tables(hg, args).labels.tolist()
    [0, -1, -1, 1]
    """
    features, labels = getattr(args, "features", None), getattr(args, "labels", None)
    if features is None and labels is None:
        return hg
    from ..io import attach_node_data, read_node_table

    kw = {"index_base": getattr(args, "index_base", 0) or 0}
    if features is not None:
        if hg.features is not None:
            raise UserError(f"{args.target} already has node features; --features would "
                            "replace them (read the hypergraph without them first)")
        kw["feature_ids"], kw["features"] = read_node_table(features, kind="features")
    if labels is not None:
        kw["label_ids"], kw["labels"] = read_node_table(labels, kind="labels")
    return attach_node_data(hg, **kw)


def input_paths(args) -> list[Path]:
    """Every file the command reads (the target's files, the located dataset's, the tables).

    Examples
    --------
    >>> import argparse, pathlib, tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     d = pathlib.Path(d)
    ...     (d / "benson").mkdir()
    ...     for name in ("hyperedges-x.txt", "node-labels-x.txt"):
    ...         _ = (d / "benson" / name).write_text("1\\n")
    ...     paths = input_paths(argparse.Namespace(target=str(d / "benson"), labels=None,
    ...                                            features=str(d / "absent.csv")))
    ...     print([p.name for p in paths])
    ['hyperedges-x.txt', 'node-labels-x.txt']
    """
    paths = []
    values = [args.target, getattr(args, "features", None), getattr(args, "labels", None)]
    if not Path(args.target).exists():
        from ..datasets.locate import locate_dataset

        with contextlib.suppress(ValueError, TypeError):
            values.append(locate_dataset(args.target, data_dir=getattr(args, "data_dir", None)))
    for value in values:
        if value is None or not Path(value).exists():
            continue
        p = Path(value)
        paths.extend(sorted(x for x in p.rglob("*") if x.is_file()) if p.is_dir() else [p])
    return paths
