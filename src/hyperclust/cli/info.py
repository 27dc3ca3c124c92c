"""``hyperclust info``: summary of a hypergraph (sizes, components, homophily)."""

from __future__ import annotations

from ._common import DATA_HELP, format_value
from .inputs import add_input_arguments, load_target

__all__ = ["add_parser", "run"]


def add_parser(sub) -> None:
    """Add the ``info`` subcommand to ``sub`` (from ``add_subparsers``).

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="hyperclust")
    >>> add_parser(parser.add_subparsers(dest="command"))
    >>> args = parser.parse_args(["info", "edges.csv", "--format", "edgelist", "--no-header"])
    >>> args.target, args.format, args.header, args.func is run
    ('edges.csv', 'edgelist', False, True)
    """
    p = sub.add_parser("info", help="summary of a hypergraph: sizes, components, homophily")
    p.add_argument("target", help="dataset name, directory (any public format) or file (HIF "
                                  "JSON, edge list, (node, hyperedge) pairs)")
    p.add_argument("--data-dir", default=None, help=DATA_HELP)
    add_input_arguments(p)
    p.set_defaults(func=run)


def run(args) -> int:
    """Print the summary of the hypergraph named by ``args.target``; return 0.

    Examples
    --------
    >>> import argparse, pathlib, tempfile
    >>> parser = argparse.ArgumentParser(prog="hyperclust")
    >>> add_parser(parser.add_subparsers(dest="command"))
    >>> with tempfile.TemporaryDirectory() as d:  # doctest: +ELLIPSIS
    ...     path = pathlib.Path(d) / "edges.txt"
    ...     _ = path.write_text("0,1,2\\n2,3\\n")
    ...     code = run(parser.parse_args(["info", str(path)]))
    /...edges.txt: Hypergraph('edges', n_nodes=4, n_edges=2)
      name                        edges
      n_nodes                     4
      n_edges                     2
    ...
    """
    hg = load_target(args)
    summary = hg.summary()
    width = max(len(k) for k in summary)
    print(f"{args.target}: {hg!r}")
    for key, value in summary.items():
        print(f"  {key.ljust(width)}  {format_value(value)}")
    return 0
