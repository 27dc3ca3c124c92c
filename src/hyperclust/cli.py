"""The ``hyperclust`` command line: datasets, info, cluster, demo, bench."""

from __future__ import annotations

import argparse
import csv
import os
import sys
import time
from pathlib import Path

import numpy as np

__all__ = ["main"]


class UserError(Exception):
    """A mistake in the command line or the input; printed as one line."""


def _format_value(v) -> str:
    if isinstance(v, float):
        return f"{v:.3f}"
    return "-" if v is None else str(v)


def _print_table(rows: list[dict], columns: list[str], out=None) -> None:
    out = out or sys.stdout
    cells = [[_format_value(r.get(c)) for c in columns] for r in rows]
    widths = [max([len(c)] + [len(row[i]) for row in cells]) for i, c in enumerate(columns)]
    out.write("  ".join(c.ljust(w) for c, w in zip(columns, widths)).rstrip() + "\n")
    out.write("  ".join("-" * w for w in widths) + "\n")
    for row in cells:
        out.write("  ".join(v.ljust(w) for v, w in zip(row, widths)).rstrip() + "\n")


def _load_target(target: str, data_dir: str | None):
    """A dataset name, a directory in one of the public formats, or a file."""
    path = Path(target)
    if path.exists():
        from .io import read_hypergraph

        return read_hypergraph(path)
    if os.sep in target or target.endswith((".json", ".txt", ".csv", ".pickle")):
        raise UserError(f"no such file or directory: {target}")
    from .datasets import load_dataset

    return load_dataset(target, data_dir=data_dir)


# ---------------------------------------------------------------------------- commands
def cmd_datasets(args) -> int:
    from .datasets import list_datasets

    rows = [dict(r) if isinstance(r, dict) else vars(r) for r in list_datasets(data_dir=args.data_dir)]
    if not rows:
        print("no datasets registered")
        return 0
    preferred = ["name", "n_nodes", "n_edges", "n_classes", "features", "format", "available"]
    columns = [c for c in preferred if c in rows[0]] or list(rows[0])
    _print_table(rows, columns)
    return 0


def cmd_info(args) -> int:
    hg = _load_target(args.target, args.data_dir)
    summary = hg.summary()
    width = max(len(k) for k in summary)
    print(f"{args.target}: {hg!r}")
    for key, value in summary.items():
        print(f"  {key.ljust(width)}  {_format_value(value)}")
    return 0


def _write_labels(path: str, hg, labels: np.ndarray) -> None:
    names = hg.node_names
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["node", "cluster"])
        ids = names if names is not None else range(hg.n_nodes)
        w.writerows(zip(ids, labels.tolist()))


def cmd_cluster(args) -> int:
    from .cluster.registry import available_methods, make_estimator
    from .metrics import evaluate

    if args.method not in available_methods():
        raise UserError(f"unknown method {args.method!r}; available: {', '.join(available_methods())}")
    hg = _load_target(args.target, args.data_dir)
    if args.drop_isolated:
        hg = hg.drop_isolated()
    k = args.k
    if k is None:
        if hg.labels is None or hg.n_classes < 2:
            raise UserError("--k is required: the input has no labels to take the number of classes from")
        k = hg.n_classes
    est = make_estimator(args.method, k, random_state=args.seed, device=args.device)
    if hasattr(est, "verbose"):
        est.verbose = not args.quiet  # training progress bar of the deep methods
    t0 = time.perf_counter()
    est.fit(hg)
    elapsed = time.perf_counter() - t0
    labels = np.asarray(est.labels_)
    print(f"{args.method} on {hg!r}: {k} clusters in {elapsed:.2f} s "
          f"(protocol: {'isolated removed' if args.drop_isolated else 'all nodes'})")
    if hg.labels is not None and (hg.labels >= 0).any():
        scores = evaluate(hg.labels, labels)
        print("  ".join(f"{m.upper()} {v:.4f}" for m, v in scores.items()))
    if args.out:
        _write_labels(args.out, hg, labels)
        print(f"wrote {args.out} (columns node,cluster)")
    return 0


def cmd_demo(args) -> int:
    from .cluster.registry import available_methods, make_estimator
    from .datasets.synthetic import hypergraph_sbm
    from .metrics import evaluate

    methods = [m for m in ("kmeans", "hgnn", "spectral-zhou", "unidhc") if m in available_methods()]
    rows = []
    for h in (0.15, 0.8):
        hg = hypergraph_sbm(2000, 4, homophily=h, n_features=32, random_state=args.seed,
                            name=f"synthetic h={h}")
        measured = hg.homophily()["pairwise"]
        print(f"{hg!r}: measured pairwise homophily {measured:.2f} (random pairs {1 / 4:.2f})")
        for name in methods:
            est = make_estimator(name, 4, random_state=args.seed, device=args.device)
            t0 = time.perf_counter()
            est.fit(hg)
            scores = evaluate(hg.labels, est.labels_)
            rows.append({"hypergraph": f"h={measured:.2f}", "method": name, **scores,
                         "seconds": time.perf_counter() - t0})
    print()
    _print_table(rows, ["hypergraph", "method", "acc", "nmi", "ari", "f1", "seconds"])
    print("\nNext: `hyperclust datasets`, `hyperclust info cora-ca --data-dir DIR`, "
          "`hyperclust cluster cora-ca --method unidhc --data-dir DIR`.")
    return 0


# ---------------------------------------------------------------------------- parser
def build_parser() -> argparse.ArgumentParser:
    from .cluster.registry import available_methods

    parser = argparse.ArgumentParser(
        prog="hyperclust", description="Cluster the nodes of hypergraphs.")
    parser.add_argument("--debug", action="store_true", help="show full tracebacks on errors")
    sub = parser.add_subparsers(dest="command", required=True)
    data_help = ("local data directory (a folder of dataset folders, or one dataset folder); "
                 "default $HYPERCLUST_DATA, then the download cache")

    p = sub.add_parser("datasets", help="list the registered benchmark datasets")
    p.add_argument("--data-dir", default=None, help=data_help)
    p.set_defaults(func=cmd_datasets)

    p = sub.add_parser("info", help="summary of a hypergraph: sizes, components, homophily")
    p.add_argument("target", help="dataset name, directory (any public format) or file (HIF JSON, edge list)")
    p.add_argument("--data-dir", default=None, help=data_help)
    p.set_defaults(func=cmd_info)

    methods = available_methods()
    method_help = "; ".join(f"{k}: {v}" for k, v in methods.items())
    p = sub.add_parser("cluster", help="cluster a hypergraph and write node,cluster CSV")
    p.add_argument("target", help="dataset name, directory or file")
    p.add_argument("--method", default="unidhc" if "unidhc" in methods else "hgnn",
                   metavar="M", help=f"clustering method. {method_help}")
    p.add_argument("--k", type=int, default=None, help="number of clusters (default: number of label classes)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--device", default="cpu", help="torch device for deep methods (default cpu)")
    p.add_argument("--drop-isolated", action="store_true",
                   help="remove nodes in no hyperedge first (TriCL protocol); default clusters all nodes")
    p.add_argument("--out", default=None, help="write labels to this CSV (columns node,cluster)")
    p.add_argument("--data-dir", default=None, help=data_help)
    p.add_argument("--quiet", action="store_true", help="no training progress bar")
    p.set_defaults(func=cmd_cluster)

    p = sub.add_parser("demo", help="cluster built-in synthetic hypergraphs (no download)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--device", default="cpu")
    p.set_defaults(func=cmd_demo)

    try:
        from .bench import cli as bench_cli
    except ImportError:
        bench_cli = None
    if bench_cli is not None and hasattr(bench_cli, "add_parser"):
        bench_cli.add_parser(sub)
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "bench":
            from .bench import cli as bench_cli

            return int(bench_cli.run(args) or 0)
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("hyperclust: interrupted", file=sys.stderr)
        return 130
    except (UserError, ValueError, TypeError, OSError) as exc:
        if args.debug:
            raise
        msg = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        print(f"hyperclust: error: {msg}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
