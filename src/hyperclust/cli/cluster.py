"""``hyperclust cluster``: cluster a hypergraph with one registered method; write labels, embedding, plot."""

from __future__ import annotations

import time
from contextlib import nullcontext
from pathlib import Path

import numpy as np

from ..runtime.progress import elapsed_bar, on_terminal
from ._common import DATA_HELP, UserError, check_device, check_seed, method_name
from .inputs import add_input_arguments, load_target
from .outputs import check_outputs, write_atomically, write_embedding, write_labels

__all__ = ["add_parser", "run"]


def add_parser(sub) -> None:
    """Register ``hyperclust cluster TARGET`` (and ``hyperclust partition``) on ``sub``.

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="hyperclust")
    >>> add_parser(parser.add_subparsers(dest="command"))
    >>> args = parser.parse_args(["cluster", "edges.txt", "--method", "spectral-zhou", "--k", "2"])
    >>> args.target, args.method, args.k, args.seed, args.scheduler, args.func is run
    ('edges.txt', 'spectral-zhou', 2, 0, None, True)
    """
    from ..cluster.registry import available_methods

    methods = available_methods()
    method_help = "; ".join(f"{k}: {v}" for k, v in methods.items())
    p = sub.add_parser("cluster", help="cluster a hypergraph and write node,cluster CSV")
    p.add_argument("target", help="dataset name, directory or file")
    p.add_argument("--method", default="auto", metavar="M",
                   help="clustering method, any case (default auto: fits a fixed set of "
                        "methods on part of the data and keeps the clustering whose block model "
                        "best predicts the held-out hyperedges and attribute columns; no labels "
                        f"used). {method_help}. kmeans "
                        "L2-normalises each node's feature row first: only a feature "
                        "vector's direction counts, not its length")
    p.add_argument("--k", type=int, default=None, help="number of clusters (default: number of label classes)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--device", default="cpu", help="torch device for deep methods (default cpu)")
    p.add_argument("--drop-isolated", action="store_true",
                   help="remove nodes in no hyperedge first (TriCL protocol); default clusters all nodes")
    p.add_argument("-o", "--out", default=None,
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
    p.add_argument("--data-dir", default=None, help=DATA_HELP)
    add_input_arguments(p)
    _add_pe_arguments(p)
    p.add_argument("--quiet", action="store_true", help="no training progress bar")
    p.add_argument("--plugins", nargs="+", default=[], metavar="MODULE",
                   help="modules imported first: the methods, operators, formats and datasets "
                        "they register can be named")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS|local:N",
                   help="run on a Dask cluster (a scheduler address, or local:N for N local "
                        "workers); TARGET is then a directory made by `hyperclust partition`")
    p.set_defaults(func=run)
    from .partition import add_partition_parser

    add_partition_parser(sub)


def _number_of_clusters(args, hg) -> int:
    """``--k``, else the number of label classes; an input with nothing to cluster is an error."""
    if hg.n_nodes == 0:
        raise UserError(f"{args.target} holds no node (an empty file?)")
    X = hg.features
    if hg.n_edges == 0 and (X is None or X.shape[0] < 2 or
                            not (X.max(axis=0) != X.min(axis=0)).sum()):
        raise UserError(f"{args.target} has no hyperedge and "
                        f"{'no features' if X is None else 'the same features for every node'}"
                        ": nothing tells its nodes apart")
    if args.k is not None:
        return args.k
    if hg.labels is None or not (hg.labels >= 0).any():
        raise UserError("--k is required: the input has no labels to take the number of "
                        "classes from")
    if hg.n_classes < 2:
        raise UserError(f"--k is required: the labels have {hg.n_classes} class, not a "
                        "number of clusters")
    return hg.n_classes


def run(args) -> int:
    """Fit ``args.method`` on ``args.target``, print a summary (ACC/NMI with labels), write the outputs.

    Returns the exit status, 0; a user mistake raises :class:`~hyperclust.cli._common.UserError`.
    With ``args.scheduler`` set the work is :func:`hyperclust.cli.partition.cluster_partitioned`.

    Examples
    --------
    >>> import argparse, pathlib, tempfile
    >>> parser = argparse.ArgumentParser(prog="hyperclust")
    >>> add_parser(parser.add_subparsers(dest="command"))
    >>> with tempfile.TemporaryDirectory() as d:  # doctest: +ELLIPSIS
    ...     path, out = pathlib.Path(d) / "edges.txt", pathlib.Path(d) / "labels.csv"
    ...     _ = path.write_text("0,1,2\\n1,2\\n3,4,5\\n4,5\\n")
    ...     code = run(parser.parse_args(["cluster", str(path), "--method", "spectral-zhou",
    ...                                   "--k", "2", "--out", str(out), "--quiet"]))
    ...     rows = out.read_text().split()
    spectral-zhou on Hypergraph('edges', n_nodes=6, n_edges=4): 2 clusters in ... s ...
    wrote ... (6 rows: node id, cluster)
    >>> labels = [row.split(",")[1] for row in rows[1:]]
    >>> code, labels[0] == labels[1] == labels[2] != labels[3] == labels[4] == labels[5]
    (0, True)
    """
    from ..cluster import registry
    from ..metrics import evaluate

    _import_plugins(getattr(args, "plugins", ()))
    args.method = method_name(args.method, registry.available_methods())
    if args.scheduler is not None:
        from .partition import cluster_partitioned

        return cluster_partitioned(args)
    device = check_device(args.device)
    if args.k is not None and args.k < 1:
        raise UserError(f"--k must be a positive number of clusters, got {args.k}")
    check_seed(args.seed)
    outputs = check_outputs(args)
    hg, k = _input_and_k(args)
    est = registry.make_estimator(args.method, k, random_state=args.seed, device=device)
    if hasattr(est, "verbose"):
        est.verbose = not args.quiet and on_terminal()  # the deep methods' training bar
    t0 = time.perf_counter()
    with nullcontext() if args.quiet or hasattr(est, "verbose") else elapsed_bar(args.method):
        est.fit(hg)  # a bar for a fit with no progress of its own, after a few seconds
    elapsed = time.perf_counter() - t0
    labels = np.asarray(est.labels_)
    print(f"{args.method} on {hg!r}: {k} clusters in {elapsed:.2f} s "
          f"(protocol: {'isolated removed' if args.drop_isolated else 'all nodes'})")
    _print_selection(est, k, hg.n_nodes)
    if hg.labels is not None and (hg.labels >= 0).any():
        scores = evaluate(hg.labels, labels)
        n_labelled = int((hg.labels >= 0).sum())
        print("  ".join(f"{m.upper()} {v:.4f}" for m, v in scores.items())
              + ("" if n_labelled == hg.n_nodes else
                 f"  (on the {n_labelled} of {hg.n_nodes} nodes with a label)"))
    _write_outputs(args, outputs, est, hg, labels, k)
    return 0


def _import_plugins(modules) -> None:
    """Import each ``--plugins`` module, which registers its entries."""
    import importlib

    for module in modules:
        try:
            importlib.import_module(module)
        except ImportError as exc:
            raise UserError(f"--plugins: {exc}") from exc


def _input_and_k(args):
    """``(hypergraph, k)``: the target loaded (``--drop-isolated``, ``--pe`` applied) and checked."""
    hg = load_target(args)
    if args.drop_isolated:
        hg = hg.drop_isolated()
        if hg.n_nodes == 0:
            raise UserError("--drop-isolated leaves no node: every node is in no hyperedge")
    k = _number_of_clusters(args, hg)
    hg = _with_pe(hg, args)
    if k > hg.n_nodes:
        raise UserError(f"--k {k} is more than the {hg.n_nodes} nodes")
    return hg, k


def _print_selection(est, k: int, n_nodes: int) -> None:
    """What a selecting method picked and why, and ``auto``'s heterophily note."""
    if getattr(est, "selection_reason_", None) is not None:
        print(est.selection_reason_)
        for name, why in getattr(est, "skipped_", {}).items():
            print(f"skipped {name}: {why}")
    alignment = getattr(est, "alignment_", None)
    if alignment is not None and alignment.heterophilic:
        print(f"hyperedges join less similar nodes than random pairs (t = {alignment.t:.1f}): "
              "clustered on the attribute kNN walk (beta = 1), with the hyperedges as repulsion "
              "(candidate spectral-signed; the score adds their cohesion)")


def _write_outputs(args, outputs: dict, est, hg, labels, k: int) -> None:
    out = outputs.get("out")
    if out is not None:
        write_atomically(out, lambda fh: write_labels(fh, hg, labels), replace=args.force)
        print(f"wrote {out} ({hg.n_nodes} rows: node id, cluster)")
    emb = outputs.get("embedding_out")
    if emb is not None:
        Z = getattr(est, "embedding_", None)
        if Z is None:
            raise UserError(f"method {args.method!r} has no embedding to write")
        Z = Z.toarray() if hasattr(Z, "toarray") else np.asarray(Z)
        write_atomically(emb, lambda fh: write_embedding(fh, emb, hg, Z), binary=True,
                         replace=args.force)
        what = "embedding, node_ids" if emb.suffix.lower() == ".npz" else "rows in node order"
        print(f"wrote {emb} ({Z.shape[0]} x {Z.shape[1]} embedding; {what})")
    png = outputs.get("plot")
    if png is not None:
        from ..plotting import plot_clusters

        Z = getattr(est, "embedding_", None)
        if Z is None and hg.features is None:
            raise UserError(f"method {args.method!r} has no embedding and the input no node "
                            "features to plot")
        if Z is None:
            print(f"{args.method} has no embedding: --plot maps the node features")
            Z = hg.features
        fig = plot_clusters(Z, labels, hg.labels, method=args.plot_method,
                            random_state=args.seed,
                            title=f"{args.method} on {hg.name or Path(args.target).name}: "
                                  f"{k} clusters")
        write_atomically(png, lambda fh: fig.savefig(fh, format="png", dpi=110), binary=True,
                         replace=args.force)
        print(f"wrote {png} (embedding map by cluster{' and label' if hg.labels is not None else ''}"
              ", cluster sizes)")


def _add_pe_arguments(p) -> None:
    """``--pe KIND``, ``--pe-operator``, ``--pe-k``: positional encodings appended to the features."""
    from ..operators.encodings import ENCODING_KINDS, encoding_operator_names

    p.add_argument("--pe", choices=ENCODING_KINDS, default=None,
                   help="append positional encodings to the node features (standardized, "
                        "scaled like an average feature column) for methods that use features: "
                        "heat kernel signatures or eigenvectors of --pe-operator")
    p.add_argument("--pe-operator", choices=encoding_operator_names(), default="collapsed-cells",
                   help="Laplacian of --pe (default collapsed-cells: S_eps)")
    p.add_argument("--pe-k", type=int, default=16, help="eigenpairs of --pe (default 16)")


def _with_pe(hg, args):
    if getattr(args, "pe", None) is None:
        return hg
    from ..operators.encodings import with_encoding

    if args.pe_k < 1:
        raise UserError(f"--pe-k must be positive, got {args.pe_k}")
    if hg.n_nodes < 2:
        raise UserError(f"--pe needs at least 2 nodes, got {hg.n_nodes}")
    before = 0 if hg.features is None else hg.features.shape[1]
    hg = with_encoding(hg, args.pe, k=args.pe_k, operator=args.pe_operator, random_state=args.seed)
    print(f"features: {before} + {hg.features.shape[1] - before} {args.pe} encoding columns "
          f"({args.pe_operator})")
    return hg
