"""Progress of long fits: a tqdm bar on stderr, only inside :func:`show_progress`, only on a
terminal, and only once a loop has run for :data:`DELAY_S` seconds.
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
    """Whether stderr is a terminal.

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
    """A bar whose calls do nothing."""

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
    """A tqdm bar on stderr (a context manager) when bars are shown and tqdm is installed, else an
    object whose calls do nothing; ``total`` None for a counter.

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
    """A context manager showing ``desc`` with the seconds elapsed, from :data:`DELAY_S` into the
    block, when bars are shown.

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
