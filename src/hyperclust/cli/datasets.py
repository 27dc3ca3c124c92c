"""``hyperclust datasets``: list the registered benchmark datasets."""

from __future__ import annotations

from ._common import DATA_HELP, print_table

__all__ = ["add_parser", "run"]


def add_parser(sub) -> None:
    p = sub.add_parser("datasets", help="list the registered benchmark datasets")
    p.add_argument("--data-dir", default=None, help=DATA_HELP)
    p.set_defaults(func=run)


def run(args) -> int:
    from ..datasets import list_datasets

    rows = [dict(r) if isinstance(r, dict) else vars(r) for r in list_datasets(data_dir=args.data_dir)]
    if not rows:
        print("no datasets registered")
        return 0
    preferred = ["name", "n_nodes", "n_edges", "n_classes", "features", "format", "available"]
    columns = [c for c in preferred if c in rows[0]] or list(rows[0])
    print_table(rows, columns)
    return 0
