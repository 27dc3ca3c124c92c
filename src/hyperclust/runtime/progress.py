"""Progress of long fits: a tqdm bar on stderr, shown only where asked for, only when stderr
is a terminal (a bar redrawn into a log file is noise), and only once a loop has run for
``DELAY_S`` seconds, so that short fits print nothing.

The library is quiet by default; :func:`show_progress` turns the bars on for a block of code
(the command line does so unless ``--quiet``). Nothing here changes what a fit computes: a
bar counts the iterations it is told about and nothing else.
"""

from __future__ import annotations

import contextlib
import contextvars
import sys

__all__ = ["show_progress", "progress_bar", "progress_shown", "elapsed_bar", "DELAY_S",
           "on_terminal"]

#: Seconds a loop runs before its bar appears.
DELAY_S = 2.0

_SHOWN = contextvars.ContextVar("hyperclust_progress", default=False)


@contextlib.contextmanager
def show_progress(enabled: bool = True):
    """Show (or hide) the progress bars of the fits run inside the block.

    Examples
    --------
    >>> progress_shown()
    False
    >>> with show_progress():
    ...     progress_shown() == on_terminal()  # bars only on a terminal
    True
    """
    token = _SHOWN.set(bool(enabled))
    try:
        yield
    finally:
        _SHOWN.reset(token)


def progress_shown() -> bool:
    """Whether bars are shown here (inside :func:`show_progress`, stderr a terminal).

    Examples
    --------
    >>> progress_shown()  # the library's default
    False
    """
    return _SHOWN.get() and on_terminal()


def on_terminal() -> bool:
    """Whether stderr is a terminal (not a file, a pipe or a captured stream).

    Examples
    --------
    >>> import contextlib, io
    >>> with contextlib.redirect_stderr(io.StringIO()):
    ...     on_terminal()
    False
    """
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):  # no stderr, or a closed one
        return False


class _NoBar:
    """What :func:`progress_bar` returns when no bar is shown: every call does nothing."""

    n = 0

    def update(self, n=1):
        self.n += n

    def set_postfix_str(self, s="", refresh=True):
        pass

    def close(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def progress_bar(desc: str, total: int | None = None, unit: str = "it"):
    """A tqdm bar (``update``, ``set_postfix_str``, ``close``; a context manager) on stderr
    when bars are shown and tqdm is installed, else an object whose calls do nothing.

    Parameters
    ----------
    desc : str
        What runs (e.g. ``"AHCKA iterations"``).
    total : int, optional
        Iterations at most; None when unknown (a counter).
    unit : str

    Examples
    --------
    >>> with progress_bar("loop", total=3) as bar:  # hidden: outside show_progress
    ...     for _ in range(3):
    ...         bar.update()
    >>> bar.n
    3
    """
    if not progress_shown():
        return _NoBar()
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return _NoBar()
    return tqdm(total=total, desc=desc, unit=unit, delay=DELAY_S, leave=False,
                file=sys.stderr, dynamic_ncols=True)


class elapsed_bar:
    """A context manager showing ``desc`` with the seconds elapsed, from ``DELAY_S`` seconds
    into the block until its end (for a fit that reports no iterations of its own), when
    bars are shown.

    Examples
    --------
    >>> import time
    >>> with elapsed_bar("fit"):  # hidden: outside show_progress
    ...     time.sleep(0.01)
    """

    def __init__(self, desc: str, refresh_s: float = 0.5):
        self.desc, self.refresh_s = desc, refresh_s
        self._stop = self._thread = None

    def __enter__(self):
        if not progress_shown():
            return self
        import threading

        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def _run(self):
        if self._stop.wait(DELAY_S):
            return
        try:
            from tqdm.auto import tqdm
        except ImportError:
            return
        bar = tqdm(total=None, desc=self.desc, bar_format="{desc}: {elapsed}",
                   leave=False, file=sys.stderr)
        while not self._stop.wait(self.refresh_s):
            bar.refresh()
        bar.close()

    def __exit__(self, *exc):
        if self._thread is not None:
            self._stop.set()
            self._thread.join()
