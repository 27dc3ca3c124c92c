"""A module imported in a second thread while the caller computes: ``import torch`` (1.2-1.5
s of one core at a user's first fit) beside Uni-DHC's basis.

An import holds the GIL almost throughout, so it overlaps only what runs without it: a few
long calls such as scipy's sparse products (the basis). Beside many short calls that each
release the GIL (numpy on small blocks, a loop of scipy calls) it slows the caller instead:
each call waits up to the interpreter's switch interval (5 ms) to take the GIL back; at
10^6 nodes the input's blocked row norms took 0.34-1.02 s instead of 0.04-0.12 s.
So the caller runs such a stretch inside ``with BackgroundImport(...)``: the import starts
on entering and is waited for on leaving (an error inside included: no import is left
running in a thread the caller no longer knows of). The import changes no
number: the same modules are loaded, only earlier, and nothing is computed with torch
before the join.

The thread may first run one task of the caller's (``start(first=...)``): work that would
otherwise wait in the caller's queue, made of many short GIL-releasing calls (a neighbour
search). Beside the caller's own numpy steps neither holds the GIL for long, so they
overlap; beside an import such calls would stall. Its value (or error) comes back through
:meth:`first_result`, which runs the task in the caller where no thread ran.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading

__all__ = ["BackgroundImport"]


class BackgroundImport:
    """Import the module ``name`` in a daemon thread (:meth:`start`) when ``threads >= 2``
    allows a second one; with one allowed thread, an import already done, or a module that is
    not installed, ``threaded`` is False, nothing starts and :meth:`join` imports it where it
    is called (a missing module then raises there, as a plain import would).

    Parameters
    ----------
    name : str
        A top-level module outside hyperclust (``"torch"``): its import takes no lock that
        the caller's own imports could be waiting for.
    threads : int
        Threads the caller may use (the fit's thread limit): the import is a second
        thread beside the caller only when 2 or more are allowed.

    Attributes
    ----------
    threaded : bool
        Whether :meth:`start` would start a thread (decided at construction).
    started : bool
        Whether a thread was started.

    Examples
    --------
    >>> pending = BackgroundImport("json", threads=2)
    >>> with pending:  # the import runs beside this block
    ...     total = sum(range(10))
    >>> pending.join().__name__
    'json'
    >>> pending = BackgroundImport("json", threads=2).start(first=lambda: sum(range(10)))
    >>> pending.first_result()  # run before the import, in its thread when one started
    45
    """

    def __init__(self, name: str, threads: int):
        self.name = name
        self._thread = None
        self._first = None
        self._outcome = None  # (True, value) or (False, error) of a task run in the thread
        self.started = False
        self.threaded = threads >= 2 and name not in sys.modules \
            and importlib.util.find_spec(name) is not None

    def start(self, first=None) -> "BackgroundImport":
        """Start the import's thread (when :attr:`threaded` and not imported meanwhile).

        Parameters
        ----------
        first : callable, optional
            ``first()`` runs in the thread before the import (which follows whether or not
            it succeeded); read its value with :meth:`first_result`.
        """
        if self.started:
            return self
        self._first = first
        if self.threaded and self.name not in sys.modules:
            self._thread = threading.Thread(target=self._run, daemon=True,
                                            name=f"hyperclust-import-{self.name}")
            self._thread.start()
            self.started = True
        return self

    def __enter__(self) -> "BackgroundImport":
        return self.start(self._first)

    def __exit__(self, *exc) -> bool:
        if self._thread is not None:
            self._thread.join()
        return False

    def _run(self):
        if self._first is not None:
            try:
                self._outcome = (True, self._first())
            except BaseException as exc:  # noqa: BLE001 - raised in the caller (first_result)
                self._outcome = (False, exc)
        self._import()

    def _import(self):
        try:
            importlib.import_module(self.name)
        except BaseException:  # noqa: BLE001 - join() imports again and raises in the caller
            pass

    def join(self):
        """Wait for the thread (the task, then the import) and return the module (imported
        here when no thread ran or the thread's import failed: the error is raised in the
        caller's thread)."""
        if self._thread is not None:
            self._thread.join()
        return importlib.import_module(self.name)

    def first_result(self):
        """The value of :meth:`start`'s ``first``: computed in the thread (waited for here;
        its error raised here), or here where no thread ran it. None without a task, and on
        a second call (the task is read once)."""
        if self._thread is not None:
            self._thread.join()
        # read once: the task and its value are dropped here (they may hold large arrays)
        first, outcome, self._first, self._outcome = self._first, self._outcome, None, None
        if outcome is None:
            return first() if first is not None else None
        done, value = outcome
        if not done:
            raise value
        return value
