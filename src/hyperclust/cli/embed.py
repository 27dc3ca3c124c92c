"""``hyperclust embed``: write spectral positional encodings, or features smoothed by a Laplacian (``--diffuse``)."""

from __future__ import annotations

import sys
import time

from ._common import DATA_HELP, UserError, check_seed
from .inputs import add_input_arguments, input_paths, load_target
from .outputs import check_output, write_atomically, write_embedding

__all__ = ["add_parser", "run"]


def add_parser(sub) -> None:
    """Add the ``embed`` subcommand to ``sub`` (from ``add_subparsers``).

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="hyperclust")
    >>> add_parser(parser.add_subparsers(dest="command"))
    >>> args = parser.parse_args(["embed", "x.txt", "--pe", "heat", "--out", "pe.npy"])
    >>> args.pe, args.operator, args.k, args.times, args.func is run
    ('heat', 'collapsed-cells', 16, 8, True)
    """
    from ..operators.encodings import ENCODING_KINDS, encoding_operator_names

    p = sub.add_parser(
        "embed", help="write spectral positional encodings of the nodes (.npy or .npz)")
    p.add_argument("target", help="dataset name, directory or file")
    p.add_argument("--pe", choices=ENCODING_KINDS, default="heat",
                   help="heat: heat kernel signatures at --times log-spaced times (default); "
                        "eigvec: the --k smallest eigenvectors, sign-fixed")
    p.add_argument("--operator", choices=encoding_operator_names(), default="collapsed-cells",
                   help="Laplacian whose smallest eigenpairs are used (default collapsed-cells: "
                        "S_eps of vertices / clique edges / hyperedge cells)")
    p.add_argument("--k", type=int, default=16, help="eigenpairs used (default 16)")
    p.add_argument("--times", type=int, default=8, help="heat kernel times (default 8)")
    p.add_argument("--eps", type=float, default=None,
                   help="eps of the collapsed operators (default 1e-2 for collapsed-cells, "
                        "1 for collapsed)")
    p.add_argument("--diffuse", choices=("resolvent", "heat"), default=None,
                   help="instead of encodings, write the node features smoothed by the "
                        "--operator Laplacian L scaled to unit top eigenvalue: resolvent "
                        "(I + tau L)^-1 X or heat exp(-tau L) X (needs node features)")
    p.add_argument("--tau", type=float, default=1.0, help="--diffuse strength (default 1)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("-o", "--out", required=True, metavar="FILE",
                   help="FILE.npy = the array (one row per node, in input order); FILE.npz = "
                        "arrays 'embedding' and 'node_ids'; refuses to overwrite an input, or an "
                        "existing file without --force")
    p.add_argument("--force", action="store_true", help="overwrite an existing --out")
    p.add_argument("--data-dir", default=None, help=DATA_HELP)
    add_input_arguments(p)
    p.set_defaults(func=run)


def run(args) -> int:
    """Compute the encoding named by ``args`` and write it to ``args.out``; return 0.

    Examples
    --------
    >>> import os, tempfile, contextlib, io
    >>> import numpy as np
    >>> from hyperclust.cli import build_parser
    >>> d = tempfile.mkdtemp()
    >>> _ = open(os.path.join(d, "e.txt"), "w").write("0 1 2\\n2 3\\n3 4 5\\n")
    >>> args = build_parser().parse_args(["embed", os.path.join(d, "e.txt"), "--operator",
    ...                                   "zhou", "--pe", "eigvec", "--k", "2",
    ...                                   "--out", os.path.join(d, "pe.npy")])
    >>> with contextlib.redirect_stdout(io.StringIO()):
    ...     rc = run(args)
    >>> rc, np.load(os.path.join(d, "pe.npy")).shape
    (0, (6, 2))
    """
    if not args.out.endswith((".npy", ".npz")):
        raise UserError(f"--out must end in .npy or .npz, got {args.out!r}")
    if args.k < 1 or args.times < 1:
        raise UserError("--k and --times must be positive")
    check_seed(args.seed)
    if not args.tau >= 0:
        raise UserError(f"--tau must be a non-negative number, got {args.tau}")
    out = check_output(args.out, input_paths(args), args.force)
    hg = load_target(args)
    if hg.n_nodes < 2:
        raise UserError(f"an encoding needs at least 2 nodes, got {hg.n_nodes}")
    if args.diffuse is not None and hg.features is None:
        raise UserError("--diffuse needs node features: the input has none (give --features FILE)")
    start = time.perf_counter()
    _announce(hg, args)
    if args.diffuse is not None:
        from ..smoothing import smooth_features

        Z = smooth_features(hg, kind=args.diffuse, tau=args.tau, operator=args.operator,
                            eps=args.eps)
        what = f"{args.diffuse} smoothing (tau {args.tau:g}) of the features"
    else:
        from ..operators.encodings import node_encoding

        Z = node_encoding(hg, args.pe, k=args.k, operator=args.operator, n_times=args.times,
                          eps=args.eps, random_state=args.seed)
        what = f"{args.pe} encoding"
    write_atomically(out, lambda fh: write_embedding(fh, out, hg, Z), binary=True,
                     replace=args.force)
    print(f"{what} ({args.operator}) of {hg!r}: {Z.shape[0]} x {Z.shape[1]} in "
          f"{time.perf_counter() - start:.1f} s -> {out}")
    return 0


#: Seconds per n^3 of the dense S_eps route (build + eigenpairs), measured at 1,718 nodes
#: (congress-bills, 19 s, one thread, machine under load): a rough guide only.
_DENSE_SECONDS_PER_CUBE = 19.0 / 1718 ** 3


def _announce(hg, args) -> None:
    """One line on stderr before the work: operator, route, and a rough time for the dense route."""
    line = f"embed: {args.operator} on {hg.n_nodes:,} nodes"
    if args.operator == "collapsed-cells":
        from ..operators.collapsed import auto_route

        route = auto_route(hg)
        line += f", S_eps route {route}"
        if route == "dense":
            est = _DENSE_SECONDS_PER_CUBE * hg.n_nodes ** 3
            line += f" (n x n array; roughly {max(est, 1):.0f} s, cubic in the nodes)"
        elif route == "iterative":
            line += " (LOBPCG with CG solves; minutes above 20,000 nodes)"
    print(line + " ...", file=sys.stderr, flush=True)
