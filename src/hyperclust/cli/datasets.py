"""``hyperclust datasets``: list the registered benchmark datasets."""

from __future__ import annotations

from ._common import DATA_HELP, print_table

__all__ = ["add_parser", "run"]


def add_parser(sub) -> None:
    """Add the ``datasets`` subcommand to ``sub`` (from ``add_subparsers``).

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="hyperclust")
    >>> add_parser(parser.add_subparsers(dest="command"))
    >>> parser.parse_args(["datasets", "--data-dir", "data"]).data_dir
    'data'
    """
    p = sub.add_parser("datasets", help="list the registered benchmark datasets")
    p.add_argument("--data-dir", default=None, help=DATA_HELP)
    p.set_defaults(func=run)


def run(args) -> int:
    """Print the registered datasets (sizes, format, whether local); return 0.

    Examples
    --------
    >>> import argparse, contextlib, io, tempfile
    >>> with tempfile.TemporaryDirectory() as d, contextlib.redirect_stdout(io.StringIO()) as out:
    ...     code = run(argparse.Namespace(data_dir=d))
    >>> print(out.getvalue().splitlines()[0])
    name   n_nodes  n_edges  n_classes  features  format  available
    """
    from ..datasets import list_datasets

    rows = [dict(r) if isinstance(r, dict) else vars(r) for r in list_datasets(data_dir=args.data_dir)]
    if not rows:
        print("no datasets registered")
        return 0
    preferred = ["name", "n_nodes", "n_edges", "n_classes", "features", "format", "available"]
    columns = [c for c in preferred if c in rows[0]] or list(rows[0])
    print_table(rows, columns)
    return 0
