"""The ``hyperclust`` command line: datasets, info, cluster, demo, bench."""

from __future__ import annotations

import argparse
import contextlib
import csv
import os
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

__all__ = ["main"]


class UserError(Exception):
    """A mistake in the command line or the input; :func:`main` prints it as one line
    ``hyperclust: error: ...`` and exits with status 2.

    Examples
    --------
    >>> main(["cluster", "no/such/file.txt", "--k", "2"])
    2
    """


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


def _input_options(args) -> dict:
    opts = {}
    if getattr(args, "sep", None) is not None:
        opts["sep"] = args.sep
    if getattr(args, "header", None) is not None:
        opts["header"] = args.header
    return opts


def _load_target(args):
    """The hypergraph named by ``args.target`` (a dataset name, a directory in one of the
    public formats, or a file), with ``--features``/``--labels`` attached by node id."""
    target, data_dir = args.target, getattr(args, "data_dir", None)
    fmt = getattr(args, "format", None)
    path = Path(target)
    if path.exists():
        from .io import read_hypergraph

        hg = read_hypergraph(path, format=fmt, **_input_options(args))
    elif fmt is not None or os.sep in target or (os.altsep and os.altsep in target) or \
            Path(target).suffix.lower() in (".json", ".txt", ".csv", ".tsv", ".pickle", ".npy"):
        raise UserError(f"no such file or directory: {target}")
    else:
        if _input_options(args):
            raise UserError("--sep/--header apply to files, not to registered dataset names")
        from .datasets import load_dataset

        hg = load_dataset(target, data_dir=data_dir)
    return _attach_tables(hg, args)


def _attach_tables(hg, args):
    features, labels = getattr(args, "features", None), getattr(args, "labels", None)
    if features is None and labels is None:
        return hg
    from .io import attach_node_data, read_node_table

    kw = {"index_base": getattr(args, "index_base", 0) or 0}
    if features is not None:
        if hg.features is not None:
            raise UserError(f"{args.target} already has node features; --features would "
                            "replace them (read the hypergraph without them first)")
        kw["feature_ids"], kw["features"] = read_node_table(features, kind="features",
                                                            sep=getattr(args, "sep", None))
    if labels is not None:
        kw["label_ids"], kw["labels"] = read_node_table(labels, kind="labels",
                                                        sep=getattr(args, "sep", None))
    return attach_node_data(hg, **kw)


def _input_paths(args) -> list[Path]:
    """Every file the command reads (an output must never be one of them)."""
    paths = []
    values = [args.target, getattr(args, "features", None), getattr(args, "labels", None)]
    if not Path(args.target).exists():
        from .datasets.registry import locate_dataset

        with contextlib.suppress(ValueError, TypeError):
            values.append(locate_dataset(args.target, data_dir=getattr(args, "data_dir", None)))
    for value in values:
        if value is None or not Path(value).exists():
            continue
        p = Path(value)
        paths.extend(sorted(x for x in p.rglob("*") if x.is_file()) if p.is_dir() else [p])
    return paths


def _check_output(path: str, inputs: list[Path], force: bool, option: str = "--out") -> Path:
    """Refuse an output that would destroy data, before any work is done.

    Never an input file (not even with ``--force``); an existing file only with ``--force``;
    the folder must exist and be writable (checked by creating a temporary file in it).
    ``option`` names the flag in the messages.
    """
    out = Path(path)
    if out.is_dir():
        raise UserError(f"{option} {path} is a directory; give a file name")
    for src in inputs:
        if out.exists() and os.path.samefile(out, src) or out.resolve() == src.resolve():
            raise UserError(f"refusing to write {path}: it is an input of this command")
    if out.exists() and not force:
        raise UserError(f"{path} exists; pass --force to overwrite it")
    parent = out.resolve().parent
    if not parent.is_dir():
        raise UserError(f"cannot write {path}: folder {parent} does not exist")
    try:
        with tempfile.NamedTemporaryFile(dir=parent, prefix=".hyperclust-check-"):
            pass
    except OSError as exc:
        raise UserError(f"cannot write {path}: {exc.strerror or exc}") from None
    return out


def _write_atomically(path: Path, write, binary: bool = False) -> None:
    """Call ``write(file)`` on a temporary file beside ``path``, then rename it into place,
    so that an interrupted write never leaves a partial output. ``binary`` opens it in
    bytes mode (``.npy``, ``.npz``, ``.png``)."""
    fd, tmp = tempfile.mkstemp(dir=path.resolve().parent, prefix=f".{path.name}.",
                               suffix=".tmp")
    try:
        with (os.fdopen(fd, "wb") if binary else
              os.fdopen(fd, "w", newline="", encoding="utf-8")) as fh:
            write(fh)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; a new output gets the usual mode
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _check_device(device: str) -> str:
    """A usable torch device name, or a one-line UserError (no traceback)."""
    name = str(device).strip().lower()
    kind, _, index = name.partition(":")
    if kind not in ("cpu", "cuda", "mps") or (index and not index.isdigit()) or \
            (kind != "cuda" and index):
        raise UserError(f"unknown device {device!r}; use cpu, cuda, cuda:N or mps")
    if kind == "cpu":
        return name
    try:
        import torch
    except ImportError:
        raise UserError(f"device {device!r} needs torch, which is not installed") from None
    if kind == "cuda":
        if not torch.cuda.is_available():
            raise UserError(f"device {device!r}: no CUDA GPU is available here; use --device cpu")
        if index and int(index) >= torch.cuda.device_count():
            raise UserError(f"device {device!r}: only {torch.cuda.device_count()} CUDA "
                            "device(s) here")
    elif not (hasattr(torch.backends, "mps") and torch.backends.mps.is_available()):
        raise UserError("device 'mps' is not available here; use --device cpu")
    return name


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
    hg = _load_target(args)
    summary = hg.summary()
    width = max(len(k) for k in summary)
    print(f"{args.target}: {hg!r}")
    for key, value in summary.items():
        print(f"  {key.ljust(width)}  {_format_value(value)}")
    return 0


def _write_labels(fh, hg, labels: np.ndarray) -> None:
    """CSV ``node,cluster`` (plus ``name`` when the nodes have names): one row per node, the
    node's own id (``hg.node_ids``), never its position."""
    w = csv.writer(fh)
    names = hg.node_names
    w.writerow(["node", "cluster"] + (["name"] if names is not None else []))
    cols = [hg.node_ids.tolist(), labels.tolist()] + ([list(names)] if names is not None else [])
    w.writerows(zip(*cols))


def cmd_cluster(args) -> int:
    from .cluster.registry import available_methods, make_estimator
    from .metrics import evaluate

    if args.method not in available_methods():
        raise UserError(f"unknown method {args.method!r}; available: {', '.join(available_methods())}")
    device = _check_device(args.device)
    if args.k is not None and args.k < 1:
        raise UserError(f"--k must be a positive number of clusters, got {args.k}")
    outputs = _check_outputs(args)
    hg = _load_target(args)
    if args.drop_isolated:
        hg = hg.drop_isolated()
        if hg.n_nodes == 0:
            raise UserError("--drop-isolated leaves no node: every node is in no hyperedge")
    k = args.k
    if k is None:
        if hg.labels is None or hg.n_classes < 2:
            raise UserError("--k is required: the input has no labels to take the number of classes from")
        k = hg.n_classes
    if k > hg.n_nodes:
        raise UserError(f"--k {k} is more than the {hg.n_nodes} nodes")
    est = make_estimator(args.method, k, random_state=args.seed, device=device)
    if hasattr(est, "verbose"):
        est.verbose = not args.quiet  # training progress bar of the deep methods
    t0 = time.perf_counter()
    est.fit(hg)
    elapsed = time.perf_counter() - t0
    labels = np.asarray(est.labels_)
    print(f"{args.method} on {hg!r}: {k} clusters in {elapsed:.2f} s "
          f"(protocol: {'isolated removed' if args.drop_isolated else 'all nodes'})")
    if getattr(est, "selected_", None) is not None:
        ranked = sorted(est.scores_.items(), key=lambda kv: kv[1])
        print(f"selected {est.selected_} (label-free objective, lower is better: "
              + ", ".join(f"{name} {score:.4f}" for name, score in ranked) + ")")
    if hg.labels is not None and (hg.labels >= 0).any():
        scores = evaluate(hg.labels, labels)
        print("  ".join(f"{m.upper()} {v:.4f}" for m, v in scores.items()))
    out = outputs.get("out")
    if out is not None:
        _write_atomically(out, lambda fh: _write_labels(fh, hg, labels))
        print(f"wrote {out} ({hg.n_nodes} rows: node id, cluster)")
    emb = outputs.get("embedding_out")
    if emb is not None:
        Z = getattr(est, "embedding_", None)
        if Z is None:
            raise UserError(f"method {args.method!r} has no embedding to write")
        Z = Z.toarray() if hasattr(Z, "toarray") else np.asarray(Z)
        _write_atomically(emb, lambda fh: _write_embedding(fh, emb, hg, Z), binary=True)
        what = "embedding, node_ids" if emb.suffix.lower() == ".npz" else "rows in node order"
        print(f"wrote {emb} ({Z.shape[0]} x {Z.shape[1]} embedding; {what})")
    png = outputs.get("plot")
    if png is not None:
        from .plotting import plot_clusters

        fig = plot_clusters(est.embedding_, labels, hg.labels, method=args.plot_method,
                            random_state=args.seed,
                            title=f"{args.method} on {hg.name or Path(args.target).name}: "
                                  f"{k} clusters")
        _write_atomically(png, lambda fh: fig.savefig(fh, format="png", dpi=110), binary=True)
        print(f"wrote {png} (embedding map by cluster{' and label' if hg.labels is not None else ''}"
              ", cluster sizes)")
    return 0


_OUTPUTS = (("out", "--out", None), ("embedding_out", "--embedding-out", (".npy", ".npz")),
            ("plot", "--plot", (".png",)))


def _check_outputs(args) -> dict:
    """Every output of ``cluster``, checked before the fit: suffix, not an input, not
    existing without ``--force``, writable, and no two the same file."""
    inputs, outputs = None, {}
    for key, option, suffixes in _OUTPUTS:
        value = getattr(args, key, None)
        if not value:
            continue
        if suffixes and Path(value).suffix.lower() not in suffixes:
            raise UserError(f"{option} {value}: the file name must end in "
                            f"{' or '.join(suffixes)}")
        if key == "plot":
            try:
                import matplotlib  # noqa: F401  (checked before the fit, used after it)
            except ImportError:
                raise UserError("--plot needs matplotlib, which is not installed: "
                                "pip install hyperclust[plots]") from None
        inputs = _input_paths(args) if inputs is None else inputs
        path = _check_output(value, inputs, args.force, option)
        for other_key, other in outputs.items():
            if path.resolve() == other.resolve():
                other_option = next(o for k_, o, _ in _OUTPUTS if k_ == other_key)
                raise UserError(f"{option} and {other_option} name the same file {value}")
        outputs[key] = path
    return outputs


def _write_embedding(fh, path: Path, hg, Z: np.ndarray) -> None:
    """``.npy``: the bare array, rows in node order; ``.npz``: arrays ``embedding`` and
    ``node_ids`` (int64, or strings), loadable without pickle."""
    if path.suffix.lower() == ".npz":
        ids = hg.node_ids
        np.savez(fh, embedding=Z, node_ids=ids.astype(str) if ids.dtype == object else ids)
    else:
        np.save(fh, Z)


DEMO_SUMMARY = (
    "The table shows, for two synthetic hypergraphs with 4 planted classes (h = share of "
    "same-class member pairs in a hyperedge: low is heterophilic, high homophilic) and each "
    "method, how well its clusters match the planted classes (ACC, NMI, ARI, macro-F1; 1 is "
    "perfect, NMI and ARI near 0 are chance) and the fit time in seconds.")


def cmd_demo(args) -> int:
    from .cluster.registry import make_estimator, needs_torch, torch_available
    from .datasets.synthetic import hypergraph_sbm
    from .metrics import evaluate

    methods = [m for m in ("kmeans", "hgnn", "spectral-zhou", "ahcka", "unidhc", "auto")
               if torch_available() or not needs_torch(m)]
    if "unidhc" not in methods:
        print("unidhc skipped: it needs torch (pip install hyperclust[deep])")
    rows, total, done = [], 2 * len(methods), 0
    for h in (0.15, 0.8):
        hg = hypergraph_sbm(2000, 4, homophily=h, n_features=32, random_state=args.seed,
                            name=f"synthetic h={h}")
        measured = hg.homophily()["pairwise"]
        print(f"{hg!r}: measured pairwise homophily {measured:.2f} (random pairs {1 / 4:.2f})")
        for name in methods:
            done += 1
            print(f"  [{done}/{total}] {name} on h={measured:.2f} ...", end="", flush=True)
            est = make_estimator(name, 4, random_state=args.seed, device=args.device)
            t0 = time.perf_counter()
            est.fit(hg)
            seconds = time.perf_counter() - t0
            scores = evaluate(hg.labels, est.labels_)
            print(f" ACC {scores['acc']:.3f} in {seconds:.1f} s", flush=True)
            rows.append({"hypergraph": f"h={measured:.2f}", "method": name, **scores,
                         "seconds": seconds})
    print("\nNext: `hyperclust datasets`, `hyperclust info cora-ca --data-dir DIR`, "
          "`hyperclust cluster cora-ca --method unidhc --data-dir DIR`.\n")
    _print_table(rows, ["hypergraph", "method", "acc", "nmi", "ari", "f1", "seconds"])
    print("\n" + DEMO_SUMMARY)
    return 0


# ---------------------------------------------------------------------------- parser
def _add_input_arguments(p) -> None:
    from .io.auto import FORMAT_NAMES

    p.add_argument("--format", default=None, metavar="NAME",
                   help="input format (default: detected): " +
                        "; ".join(f"{k}: {v}" for k, v in FORMAT_NAMES.items()))
    p.add_argument("--sep", default=None,
                   help="field separator of text inputs (default: commas and/or whitespace)")
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


def build_parser() -> argparse.ArgumentParser:
    """The ``hyperclust`` argument parser (imports neither torch nor scikit-learn).

    Returns
    -------
    argparse.ArgumentParser

    Examples
    --------
    >>> args = build_parser().parse_args(["cluster", "edges.txt", "--k", "3", "--plot", "a.png"])
    >>> args.command, args.k, args.plot, args.plot_method
    ('cluster', 3, 'a.png', 'pca')
    """
    from .cluster.registry import available_methods, torch_available

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
    _add_input_arguments(p)
    p.set_defaults(func=cmd_info)

    methods = available_methods()
    method_help = "; ".join(f"{k}: {v}" for k, v in methods.items())
    p = sub.add_parser("cluster", help="cluster a hypergraph and write node,cluster CSV")
    p.add_argument("target", help="dataset name, directory or file")
    p.add_argument("--method", default="auto", metavar="M",
                   help="clustering method (default auto: fits several methods and keeps the "
                        f"one with the lowest label-free objective). {method_help}")
    p.add_argument("--k", type=int, default=None, help="number of clusters (default: number of label classes)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--device", default="cpu", help="torch device for deep methods (default cpu)")
    p.add_argument("--drop-isolated", action="store_true",
                   help="remove nodes in no hyperedge first (TriCL protocol); default clusters all nodes")
    p.add_argument("--out", default=None,
                   help="write a CSV with one row per node: node (its id in the input), cluster "
                        "(and name when the input names nodes); refuses to overwrite an input, "
                        "or an existing file without --force")
    p.add_argument("--embedding-out", default=None, metavar="FILE",
                   help="write the method's node embedding: FILE.npy = the array (one row per "
                        "node, in the order of --out), FILE.npz = arrays 'embedding' and "
                        "'node_ids'; same safety as --out")
    p.add_argument("--plot", default=None, metavar="FILE.png",
                   help="write a PNG: 2-D map of the embedding (at most 5000 sampled nodes) "
                        "coloured by cluster and by label, and the cluster sizes (needs "
                        "matplotlib: pip install hyperclust[plots]); same safety as --out")
    p.add_argument("--plot-method", choices=("pca", "tsne"), default="pca",
                   help="2-D map of --plot: PCA (default) or t-SNE")
    p.add_argument("--force", action="store_true",
                   help="overwrite existing --out/--embedding-out/--plot files")
    p.add_argument("--data-dir", default=None, help=data_help)
    _add_input_arguments(p)
    p.add_argument("--quiet", action="store_true", help="no training progress bar")
    p.set_defaults(func=cmd_cluster)

    from . import cli_embed
    cli_embed.add_parser(sub, cli_embed.CliHelpers(_load_target, _input_paths, _check_output,
                                                   _write_atomically, _write_embedding,
                                                   _add_input_arguments,
                                                   UserError, data_help))

    p = sub.add_parser("demo", help="cluster built-in synthetic hypergraphs (no download)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--device", default="cpu", help="torch device for deep methods (default cpu)")
    p.set_defaults(func=cmd_demo)

    try:
        from .bench import cli as bench_cli
    except ImportError:
        bench_cli = None
    if bench_cli is not None and hasattr(bench_cli, "add_parser"):
        bench_cli.add_parser(sub)
    return parser


def _one_line_warning(message, category, filename, lineno, file=None, line=None):
    text = str(message).strip().splitlines()[0] if str(message).strip() else category.__name__
    print(f"hyperclust: warning: {text}", file=sys.stderr)


def main(argv=None) -> int:
    """Run the ``hyperclust`` command line.

    Commands: ``datasets``, ``info``, ``cluster`` (``--out`` labels CSV, ``--embedding-out``
    ``.npy``/``.npz``, ``--plot`` PNG), ``demo``, ``bench``; ``hyperclust COMMAND --help``
    says more. Bad input ends with one line ``hyperclust: error: ...`` on stderr.

    Parameters
    ----------
    argv : list of str, optional
        Arguments (default ``sys.argv[1:]``).

    Returns
    -------
    int
        Exit status: 0 on success, 2 on a user error, 130 when interrupted.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> edges = pathlib.Path(tempfile.mkdtemp()) / "edges.txt"
    >>> _ = edges.write_text("ana,bo,cy\\ncy,di\\ndi,eve,ana\\n")
    >>> main(["cluster", str(edges), "--method", "spectral-zhou", "--k", "2"])  # doctest: +ELLIPSIS
    spectral-zhou on Hypergraph('edges', n_nodes=5, n_edges=3): 2 clusters in ... s (protocol: all nodes)
    0
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    previous = warnings.showwarning
    if not args.debug:
        warnings.showwarning = _one_line_warning
    try:
        if args.command == "bench":
            from .bench import cli as bench_cli

            return int(bench_cli.run(args) or 0)
        if getattr(args, "device", None) is not None and args.command == "demo":
            args.device = _check_device(args.device)
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("hyperclust: interrupted", file=sys.stderr)
        return 130
    except MemoryError:
        if args.debug:
            raise
        print("hyperclust: error: out of memory (the input is too large for this machine, or "
              "malformed so that it asks for too much)", file=sys.stderr)
        return 2
    except (UserError, ValueError, TypeError, OSError, RecursionError, ImportError) as exc:
        if args.debug:
            raise
        msg = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        print(f"hyperclust: error: {msg}", file=sys.stderr)
        return 2
    finally:
        warnings.showwarning = previous


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
