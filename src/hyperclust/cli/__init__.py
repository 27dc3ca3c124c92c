"""The ``hyperclust`` command line: one module per command (``add_parser``, ``run``), each importing what it uses only when it runs."""

from __future__ import annotations

import argparse
import logging
import os
import sys
import warnings

from ..runtime.progress import show_progress
from . import bench, cluster, datasets, demo, embed, info
from ._common import UserError, check_device, cli_words
from .demo import DEMO_SUMMARY

__all__ = ["main", "build_parser", "UserError", "DEMO_SUMMARY"]


def build_parser() -> argparse.ArgumentParser:
    """The ``hyperclust`` argument parser (imports neither torch nor scikit-learn).

    Examples
    --------
    >>> args = build_parser().parse_args(["cluster", "edges.txt", "--k", "3", "--plot", "a.png"])
    >>> args.command, args.k, args.plot, args.plot_method
    ('cluster', 3, 'a.png', 'pca')
    """
    from .. import __version__

    parser = argparse.ArgumentParser(
        prog="hyperclust", description="Cluster the nodes of hypergraphs.")
    parser.add_argument("--version", action="version", version=f"hyperclust {__version__}")
    parser.add_argument("--debug", action="store_true", help="show full tracebacks on errors")
    talk = parser.add_mutually_exclusive_group()
    talk.add_argument("-v", "--verbose", action="count", default=0,
                      help="say what happens (fits, cleaning of the input); -vv for details")
    talk.add_argument("-q", "--quiet", action="store_true", dest="top_quiet",
                      help="only errors and results: no warnings, no progress")
    sub = parser.add_subparsers(dest="command", required=True)

    for command in (datasets, info, cluster, embed, demo, bench):
        command.add_parser(sub)
    return parser


def _log_level(args) -> int:
    if args.top_quiet:
        return logging.ERROR
    return {0: logging.WARNING, 1: logging.INFO}.get(args.verbose, logging.DEBUG)


def _start_logging(args):
    """Send the ``hyperclust`` logger to stderr at the flags' level; return the function that undoes it."""
    logger = logging.getLogger("hyperclust")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("hyperclust: %(message)s"))
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(_log_level(args))

    def stop():
        logger.removeHandler(handler)
        logger.setLevel(level)

    return stop


def _one_line_warning(message, category, filename, lineno, file=None, line=None):
    text = str(message).strip().splitlines()[0] if str(message).strip() else category.__name__
    print(f"hyperclust: warning: {cli_words(text)}", file=sys.stderr)


def _run_command(args) -> int:
    if getattr(args, "device", None) is not None and args.command == "demo":
        args.device = check_device(args.device)
    return int(args.func(args) or 0)


def main(argv=None) -> int:
    """Run the ``hyperclust`` command line (``hyperclust COMMAND --help`` says more).

    Parameters
    ----------
    argv : list of str, optional
        Default ``sys.argv[1:]``.

    Returns
    -------
    int
        0 on success, 2 on a user error (one line ``hyperclust: error: ...``), 130 when interrupted.

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
    stop_logging = _start_logging(args)
    try:
        with warnings.catch_warnings():
            if args.top_quiet:
                warnings.simplefilter("ignore")
                if hasattr(args, "quiet"):  # a command's own --quiet (progress bars)
                    args.quiet = True
            with show_progress(not args.top_quiet):
                return _run_command(args)
    except KeyboardInterrupt:
        print("hyperclust: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader of stdout went away (e.g. `| head`): stop quietly, as Unix tools do
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
    except MemoryError:
        if args.debug:
            raise
        print("hyperclust: error: out of memory (the input is too large for this machine, or "
              "malformed so that it asks for too much)", file=sys.stderr)
        return 2
    except RuntimeError as exc:
        if args.debug or type(exc).__name__ not in ("ArpackError", "ArpackNoConvergence"):
            raise
        print(f"hyperclust: error: the eigensolver failed ({str(exc).strip()[:80]}): the "
              "input is too degenerate for this method; try another --method", file=sys.stderr)
        return 2
    except (UserError, ValueError, TypeError, OSError, RecursionError, ImportError) as exc:
        if args.debug:
            raise
        msg = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        print(f"hyperclust: error: {cli_words(msg)}", file=sys.stderr)
        return 2
    finally:
        stop_logging()
        warnings.showwarning = previous
