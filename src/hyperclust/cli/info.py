"""``hyperclust info``: summary of a hypergraph (sizes, components, homophily)."""

from __future__ import annotations

from ._common import DATA_HELP, format_value
from .inputs import add_input_arguments, load_target

__all__ = ["add_parser", "run"]


def add_parser(sub) -> None:
    p = sub.add_parser("info", help="summary of a hypergraph: sizes, components, homophily")
    p.add_argument("target", help="dataset name, directory (any public format) or file (HIF JSON, edge list)")
    p.add_argument("--data-dir", default=None, help=DATA_HELP)
    add_input_arguments(p)
    p.set_defaults(func=run)


def run(args) -> int:
    hg = load_target(args)
    summary = hg.summary()
    width = max(len(k) for k in summary)
    print(f"{args.target}: {hg!r}")
    for key, value in summary.items():
        print(f"  {key.ljust(width)}  {format_value(value)}")
    return 0
