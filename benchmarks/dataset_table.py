"""Print a markdown table of ``Hypergraph.summary()`` for every registered dataset.

Usage: ``python benchmarks/dataset_table.py [--data-dir DIR] [--names a,b,...]``. Datasets are
loaded with the default cleaning (duplicate hyperedges merged, singletons kept); datasets not
found locally are listed as unavailable (nothing is downloaded).
"""

from __future__ import annotations

import argparse
import sys
import time

from hyperclust.bench import default_data_dir, markdown_row, markdown_table
from hyperclust.datasets import list_datasets, load_dataset

COLUMNS = [
    ("name", "name"), ("nodes", "n_nodes"), ("edges", "n_edges"), ("nnz", "nnz"),
    ("classes", "classes"), ("features", "features"), ("isolated", "isolated_nodes"),
    ("components", "components"), ("comp. covered", "components_covered"),
    ("homophily pairwise", "homophily_pairwise"), ("pairwise random", "homophily_pairwise_random"),
    ("duplicates merged", "duplicate_edges"), ("singletons", "singleton_edges"),
    ("load s", "load_s"),
]


def _fmt(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.3f}"
    return str(v)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data-dir", default=str(default_data_dir()))
    p.add_argument("--names", default=None, help="comma-separated subset")
    args = p.parse_args(argv)
    rows = list_datasets(data_dir=args.data_dir)
    wanted = set(args.names.split(",")) if args.names else None
    print("\n".join(markdown_table([c for c, _ in COLUMNS], [])))
    for rec in rows:
        if wanted is not None and rec["name"] not in wanted:
            continue
        if not rec["available"]:
            print(markdown_row([rec["name"], "(not available locally)"] + [""] * (len(COLUMNS) - 2)))
            continue
        t0 = time.perf_counter()
        hg = load_dataset(rec["name"], data_dir=args.data_dir, download=False)
        load_s = time.perf_counter() - t0
        s = hg.summary()
        s["load_s"] = load_s
        s["name"] = rec["name"]
        print(markdown_row([_fmt(s.get(key)) for _, key in COLUMNS]))
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
