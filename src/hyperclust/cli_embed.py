"""``hyperclust embed``: write spectral positional encodings of the nodes (``.npy``/``.npz``).

The command's reading, output checks and atomic writing are the main CLI's; they are passed
in (:class:`CliHelpers`) so that this module does not import :mod:`hyperclust.cli`.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from typing import Callable

__all__ = ["CliHelpers", "add_parser"]


@dataclass(frozen=True)
class CliHelpers:
    """The main CLI's shared pieces used by ``embed``.

    Examples
    --------
    >>> CliHelpers(*([None] * 6), UserWarning, "data dir").data_help
    'data dir'
    """

    load_target: Callable
    input_paths: Callable
    check_output: Callable
    write_atomically: Callable
    write_embedding: Callable
    add_input_arguments: Callable
    user_error: type
    data_help: str


def add_parser(subparsers, helpers: CliHelpers):
    """Register ``embed`` on the ``hyperclust`` subparsers.

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser()
    >>> sub = parser.add_subparsers(dest="command")
    >>> h = CliHelpers(*([None] * 5), lambda p: None, ValueError, "data dir")
    >>> _ = add_parser(sub, h)
    >>> args = parser.parse_args(["embed", "x.txt", "--pe", "heat", "--out", "pe.npy"])
    >>> args.pe, args.operator, args.k, args.times
    ('heat', 'collapsed-cells', 16, 8)
    """
    from .encodings import ENCODING_OPERATORS

    p = subparsers.add_parser(
        "embed", help="write spectral positional encodings of the nodes (.npy or .npz)")
    p.add_argument("target", help="dataset name, directory or file")
    p.add_argument("--pe", choices=("heat", "eigvec"), default="heat",
                   help="heat: heat kernel signatures at --times log-spaced times (default); "
                        "eigvec: the --k smallest eigenvectors, sign-fixed")
    p.add_argument("--operator", choices=ENCODING_OPERATORS, default="collapsed-cells",
                   help="Laplacian whose smallest eigenpairs are used (default collapsed-cells: "
                        "S_eps of vertices / clique edges / hyperedge cells)")
    p.add_argument("--k", type=int, default=16, help="eigenpairs used (default 16)")
    p.add_argument("--times", type=int, default=8, help="heat kernel times (default 8)")
    p.add_argument("--eps", type=float, default=None,
                   help="eps of the collapsed operators (default 1e-2 for collapsed-cells, "
                        "1 for collapsed)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--out", required=True, metavar="FILE",
                   help="FILE.npy = the array (one row per node, in input order); FILE.npz = "
                        "arrays 'embedding' and 'node_ids'; refuses to overwrite an input, or an "
                        "existing file without --force")
    p.add_argument("--force", action="store_true", help="overwrite an existing --out")
    p.add_argument("--data-dir", default=None, help=helpers.data_help)
    helpers.add_input_arguments(p)
    p.set_defaults(func=lambda args: run(args, helpers))
    return p


def run(args, helpers: CliHelpers) -> int:
    """Compute the encoding named by ``args`` and write it to ``args.out``."""
    from .encodings import node_encoding

    if not args.out.endswith((".npy", ".npz")):
        raise helpers.user_error(f"--out must end in .npy or .npz, got {args.out!r}")
    if args.k < 1 or args.times < 1:
        raise helpers.user_error("--k and --times must be positive")
    out = helpers.check_output(args.out, helpers.input_paths(args), args.force)
    hg = helpers.load_target(args)
    if hg.n_nodes < 2:
        raise helpers.user_error(f"an encoding needs at least 2 nodes, got {hg.n_nodes}")
    start = time.perf_counter()
    Z = node_encoding(hg, args.pe, k=args.k, operator=args.operator, n_times=args.times,
                      eps=args.eps, random_state=args.seed)

    helpers.write_atomically(out, lambda fh: helpers.write_embedding(fh, out, hg, Z), binary=True)
    print(f"{args.pe} encoding ({args.operator}) of {hg!r}: {Z.shape[0]} x {Z.shape[1]} in "
          f"{time.perf_counter() - start:.1f} s -> {out}", file=sys.stdout)
    return 0
