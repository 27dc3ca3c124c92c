"""Scratch folders that do not outlive their process: removed on exit, at ``atexit``, on
``SIGTERM`` (:func:`exit_on_sigterm`), or by the next process on the host once theirs ended.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import signal
import socket
import tempfile
from pathlib import Path

__all__ = ["scratch_folder", "exit_on_sigterm"]

_OPEN: set[str] = set()


def _host() -> str:
    return socket.gethostname().replace("-", "_") or "host"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's live process
        return True
    return True


def _sweep(base: Path, prefix: str) -> None:
    """Remove ``prefix<host>-<pid>-*`` folders under ``base`` whose process has ended."""
    host = _host()
    for path in base.glob(f"{prefix}{host}-*-*"):
        try:
            pid = int(path.name[len(prefix) + len(host) + 1:].split("-", 1)[0])
        except ValueError:
            continue
        if pid != os.getpid() and not _alive(pid):
            shutil.rmtree(path, ignore_errors=True)


@atexit.register
def _remove_open() -> None:
    for path in list(_OPEN):
        shutil.rmtree(path, ignore_errors=True)
        _OPEN.discard(path)


@contextlib.contextmanager
def scratch_folder(prefix: str, dir=None):
    """Yield a new folder ``<dir>/<prefix><host>-<pid>-<random>``, removed on exit.

    Stale folders of ended processes with the same prefix are removed first.

    Parameters
    ----------
    prefix : str
    dir : str or PathLike, optional
        Default: the system's temporary folder.

    Examples
    --------
    >>> import os
    >>> with scratch_folder("hyperclust-doc-") as path:
    ...     print(os.path.isdir(path), os.path.basename(path).startswith("hyperclust-doc-"))
    True True
    >>> os.path.exists(path)
    False
    """
    base = Path(tempfile.gettempdir() if dir is None else dir)
    _sweep(base, prefix)
    path = tempfile.mkdtemp(prefix=f"{prefix}{_host()}-{os.getpid()}-", dir=base)
    _OPEN.add(path)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)
        _OPEN.discard(path)


def _raise_exit(signum, frame):
    raise SystemExit(128 + signum)


def exit_on_sigterm() -> None:
    """Make ``SIGTERM`` raise ``SystemExit`` in the main thread, where it has its default action.

    Examples
    --------
    >>> import signal
    >>> previous = signal.signal(signal.SIGTERM, signal.SIG_DFL)
    >>> exit_on_sigterm(); signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    False
    >>> _ = signal.signal(signal.SIGTERM, previous)
    """
    try:
        if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
            signal.signal(signal.SIGTERM, _raise_exit)
    except ValueError:  # not the main thread
        pass
