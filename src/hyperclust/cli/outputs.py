"""Writing the outputs of ``hyperclust cluster`` safely: checked before the fit, never an
input, written atomically."""

from __future__ import annotations

import contextlib
import csv
import os
import tempfile
from pathlib import Path

import numpy as np

from ._common import UserError
from .inputs import input_paths

__all__ = ["check_outputs", "write_atomically", "write_labels", "write_embedding"]


def check_output(path: str, inputs: list[Path], force: bool, option: str = "--out") -> Path:
    """Refuse an output that would destroy data, before any work is done.

    Never an input file (not even with ``--force``); an existing file only with ``--force``;
    the folder must exist and be writable (checked by creating a temporary file in it).
    ``option`` names the flag in the messages.

    Parameters
    ----------
    path : str
    inputs : list of Path
        What the command reads (:func:`~hyperclust.cli.inputs.input_paths`).
    force : bool
        Overwrite an existing file that is not an input.
    option : str

    Returns
    -------
    Path

    Examples
    --------
    >>> import pathlib, tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     edges = pathlib.Path(d) / "edges.txt"
    ...     _ = edges.write_text("0 1\\n")
    ...     check_output(str(edges), [edges], force=True)
    Traceback (most recent call last):
    ...
    hyperclust.cli._common.UserError: refusing to write /.../edges.txt: it is an input of this command
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


def write_atomically(path: Path, write, binary: bool = False) -> None:
    """Call ``write(file)`` on a temporary file beside ``path``, then rename it into place,
    so that an interrupted write never leaves a partial output. ``binary`` opens it in
    bytes mode (``.npy``, ``.npz``, ``.png``).

    Parameters
    ----------
    path : Path
    write : callable
        ``write(file)``; an exception from it leaves ``path`` as it was.
    binary : bool

    Examples
    --------
    >>> import pathlib, tempfile
    >>> def fail(fh):
    ...     fh.write("half a fi")
    ...     raise KeyboardInterrupt
    >>> with tempfile.TemporaryDirectory() as d:
    ...     out = pathlib.Path(d) / "labels.csv"
    ...     write_atomically(out, lambda fh: fh.write("node,cluster\\n"))
    ...     try:
    ...         write_atomically(out, fail)
    ...     except KeyboardInterrupt:
    ...         pass
    ...     print(repr(out.read_text()), len(list(pathlib.Path(d).iterdir())))
    'node,cluster\\n' 1
    """
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


OUTPUTS = (("out", "--out", None), ("embedding_out", "--embedding-out", (".npy", ".npz")),
            ("plot", "--plot", (".png",)))


def check_outputs(args) -> dict:
    """Every output of ``cluster``, checked before the fit: suffix, not an input, not
    existing without ``--force``, writable, and no two the same file.

    Parameters
    ----------
    args : argparse.Namespace
        ``out``, ``embedding_out``, ``plot`` (each a file name or None), ``force`` and the
        input fields of :func:`~hyperclust.cli.inputs.input_paths`.

    Returns
    -------
    dict
        ``{"out" | "embedding_out" | "plot": Path}`` for the outputs given.

    Examples
    --------
    >>> import argparse, pathlib, tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     args = argparse.Namespace(target=f"{d}/edges.txt", out=f"{d}/labels.csv",
    ...                               embedding_out=f"{d}/z.csv", plot=None, force=False)
    ...     check_outputs(args)
    Traceback (most recent call last):
    ...
    hyperclust.cli._common.UserError: --embedding-out /.../z.csv: the file name must end in .npy or .npz
    >>> with tempfile.TemporaryDirectory() as d:
    ...     args = argparse.Namespace(target=f"{d}/edges.txt", out=f"{d}/labels.csv",
    ...                               embedding_out=f"{d}/z.npz", plot=None, force=False)
    ...     print(sorted(check_outputs(args)))
    ['embedding_out', 'out']
    """
    inputs, outputs = None, {}
    for key, option, suffixes in OUTPUTS:
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
        inputs = input_paths(args) if inputs is None else inputs
        path = check_output(value, inputs, args.force, option)
        for other_key, other in outputs.items():
            if path.resolve() == other.resolve():
                other_option = next(o for k_, o, _ in OUTPUTS if k_ == other_key)
                raise UserError(f"{option} and {other_option} name the same file {value}")
        outputs[key] = path
    return outputs


def write_embedding(fh, path: Path, hg, Z: np.ndarray) -> None:
    """``.npy``: the bare array, rows in node order; ``.npz``: arrays ``embedding`` and
    ``node_ids`` (int64, or strings), loadable without pickle.

    Parameters
    ----------
    fh : binary file
    path : Path
        The output's name (its suffix picks the layout).
    hg : Hypergraph
    Z : ndarray, shape (n_nodes, d)

    Examples
    --------
    >>> import io, pathlib
    >>> from hyperclust import Hypergraph
    >>> hg = Hypergraph.from_edges([["ana", "bo"], ["bo", "cy"]])
    >>> buf = io.BytesIO()
    >>> write_embedding(buf, pathlib.Path("z.npz"), hg, np.eye(3))
    >>> _ = buf.seek(0)
    >>> with np.load(buf, allow_pickle=False) as z:
    ...     z["node_ids"].tolist(), z["embedding"].shape
    (['ana', 'bo', 'cy'], (3, 3))
    """
    if path.suffix.lower() == ".npz":
        ids = hg.node_ids
        np.savez(fh, embedding=Z, node_ids=ids.astype(str) if ids.dtype == object else ids)
    else:
        np.save(fh, Z)


def write_labels(fh, hg, labels: np.ndarray) -> None:
    """CSV ``node,cluster`` (plus ``name`` when the nodes have names): one row per node, the
    node's own id (``hg.node_ids``), never its position.

    Parameters
    ----------
    fh : text file
        Opened with ``newline=""``.
    hg : Hypergraph
    labels : ndarray of int, shape (n_nodes,)

    Examples
    --------
    >>> import io
    >>> from hyperclust import Hypergraph
    >>> hg = Hypergraph.from_edges([[10, 11, 12], [12, 13]], node_ids=[10, 11, 12, 13])
    >>> buf = io.StringIO()
    >>> write_labels(buf, hg, np.array([0, 0, 1, 1]))
    >>> print(buf.getvalue().replace("\\r", ""), end="")
    node,cluster
    10,0
    11,0
    12,1
    13,1
    """
    w = csv.writer(fh)
    names = hg.node_names
    w.writerow(["node", "cluster"] + (["name"] if names is not None else []))
    cols = [hg.node_ids.tolist(), labels.tolist()] + ([list(names)] if names is not None else [])
    w.writerows(zip(*cols))
