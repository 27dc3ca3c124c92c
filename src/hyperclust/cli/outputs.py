"""Writing the outputs of ``hyperclust cluster`` safely (README.md, ``--out``): checked before
the fit, never an input, only a regular file, written and claimed atomically.
"""

from __future__ import annotations

import contextlib
import csv
import os
import stat
import tempfile
from pathlib import Path

import numpy as np

from ._common import UserError
from .inputs import input_paths

__all__ = ["check_outputs", "check_output", "write_atomically", "write_labels",
           "write_embedding"]


def _not_regular(mode: int) -> str | None:
    """What a non-regular file is, in words; None for a regular file."""
    for test, what in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISLNK, "a symbolic link")):
        if test(mode):
            return what
    return None if stat.S_ISREG(mode) else "not a regular file"


def _lstat(path) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None


def check_output(path: str, inputs: list[Path], force: bool, option: str = "--out") -> Path:
    """Refuse an output that would destroy data, before any work; return where it will be written.

    Parameters
    ----------
    path : str
    inputs : list of Path
        What the command reads (:func:`~hyperclust.cli.inputs.input_paths`).
    force : bool
        Overwrite an existing regular file that is not an input.
    option : str
        The flag named in the messages.

    Returns
    -------
    Path
        ``path`` with symbolic links resolved, for :func:`write_atomically`.

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
    try:
        real = Path(os.path.realpath(path))
        st = _lstat(real)
    except OSError as exc:
        raise UserError(f"cannot write {option} {path}: {exc.strerror or exc}") from None
    kind = None if st is None else _not_regular(st.st_mode)
    if kind == "a directory":
        raise UserError(f"{option} {path} is a directory; give a file name")
    if kind == "a symbolic link":  # still a link after resolving every link: a loop
        kind = "a symbolic link loop"
    if kind is not None:
        raise UserError(f"{option} {path} is {kind}, not a regular file; refusing to replace "
                        "it (even with --force)")
    for src in inputs:
        if real == src.resolve() or st is not None and os.path.samefile(real, src):
            raise UserError(f"refusing to write {path}: it is an input of this command")
    if st is not None and not force:
        raise UserError(f"{path} exists; pass --force to overwrite it")
    parent = real.parent
    if not parent.is_dir():
        raise UserError(f"cannot write {path}: folder {parent} does not exist")
    try:
        with tempfile.NamedTemporaryFile(dir=parent, prefix=".hyperclust-check-"):
            pass
    except OSError as exc:
        raise UserError(f"cannot write {path}: {exc.strerror or exc}") from None
    return real


def _claim(tmp: str, path: Path, replace: bool) -> None:
    """Move ``tmp`` to ``path`` in one step; without ``replace``, fail if ``path`` appeared meanwhile."""
    st = _lstat(path)
    kind = None if st is None else _not_regular(st.st_mode)
    if kind is not None:
        raise UserError(f"{path} became {kind} during the run; not replaced")
    if replace:
        os.replace(tmp, path)
        return
    taken = UserError(f"{path} was created by another process during the run; not replaced "
                      "(pass --force to overwrite it)")
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise taken from None
    except OSError:  # no hard links on this file system: claim the name exclusively
        try:
            os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
        except FileExistsError:
            raise taken from None
        os.replace(tmp, path)
    else:
        os.unlink(tmp)


def write_atomically(path: Path, write, binary: bool = False, replace: bool = False) -> None:
    """Call ``write(file)`` on a temporary file beside ``path``, then move it into place in one step.

    Parameters
    ----------
    path : Path
        What :func:`check_output` returned.
    write : callable
        ``write(file)``; an exception from it leaves ``path`` as it was.
    binary : bool
        Open the file in bytes mode.
    replace : bool
        An existing regular file may be replaced (``--force``; it keeps its permissions).

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
    ...         write_atomically(out, fail, replace=True)
    ...     except KeyboardInterrupt:
    ...         pass
    ...     print(repr(out.read_text()), len(list(pathlib.Path(d).iterdir())))
    'node,cluster\\n' 1
    """
    path = Path(path)
    old = _lstat(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with (os.fdopen(fd, "wb") if binary else
              os.fdopen(fd, "w", newline="", encoding="utf-8")) as fh:
            write(fh)
        if replace and old is not None and stat.S_ISREG(old.st_mode):
            mode = stat.S_IMODE(old.st_mode)
        else:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask  # mkstemp makes 0600; a new output gets the usual mode
        os.chmod(tmp, mode)
        _claim(tmp, path, replace)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


OUTPUTS = (("out", "--out", None), ("embedding_out", "--embedding-out", (".npy", ".npz")),
            ("plot", "--plot", (".png",)))


def check_outputs(args) -> dict:
    """Check every output of ``cluster`` (``args.out``, ``embedding_out``, ``plot``) before the fit.

    Returns
    -------
    dict
        ``{"out" | "embedding_out" | "plot": Path}`` for the outputs given.

    Examples
    --------
    >>> import argparse, tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     args = argparse.Namespace(target=f"{d}/edges.txt", out=f"{d}/labels.csv",
    ...                               embedding_out=f"{d}/z.csv", plot=None, force=False)
    ...     check_outputs(args)
    Traceback (most recent call last):
    ...
    hyperclust.cli._common.UserError: --embedding-out /.../z.csv: the file name must end in .npy or .npz
    """
    inputs, outputs = None, {}
    for key, option, suffixes in OUTPUTS:
        value = getattr(args, key, None)
        if value is None:
            continue
        if not value.strip():
            raise UserError(f"{option} needs a file name, got {value!r}")
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
    """Write ``Z`` (n_nodes, d): ``.npy`` the bare array, ``.npz`` arrays ``embedding`` and ``node_ids``.

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
    """Write CSV ``node,cluster`` (plus ``name`` when nodes have names), one row per node id.

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
