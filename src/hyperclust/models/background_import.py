"""A module imported in a second thread while the caller computes: ``import torch`` (1.2-1.5
s of one core at a user's first fit) off the critical path of Uni-DHC's set-up.

The set-up's long steps (scipy's sparse products, the first touch of the basis's memory,
numpy's large loops) release the GIL, so most of the import runs on the core they leave idle.
The import changes no number: the same modules are loaded, only earlier, and nothing is
computed with torch before the caller has joined the import (:meth:`BackgroundImport.join`).
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading

__all__ = ["BackgroundImport"]


class BackgroundImport:
    """Import the module ``name`` in a daemon thread when ``threads >= 2`` allows a second
    one; with one allowed thread, an import already done, or a module that is not installed,
    nothing starts and :meth:`join` imports it where it is called (a missing module then
    raises there, as a plain import would).

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
    started : bool
        Whether a thread was started.

    Examples
    --------
    >>> pending = BackgroundImport("json", threads=2)
    >>> pending.join().__name__
    'json'
    """

    def __init__(self, name: str, threads: int):
        self.name = name
        self._thread = None
        if threads >= 2 and name not in sys.modules \
                and importlib.util.find_spec(name) is not None:
            self._thread = threading.Thread(target=self._run, daemon=True,
                                            name=f"hyperclust-import-{name}")
            self._thread.start()
        self.started = self._thread is not None

    def _run(self):
        try:
            importlib.import_module(self.name)
        except BaseException:  # noqa: BLE001 - join() imports again and raises in the caller
            pass

    def join(self):
        """Wait for the import and return the module (imported here when no thread ran or
        the thread's import failed: the error is raised in the caller's thread)."""
        if self._thread is not None:
            self._thread.join()
        return importlib.import_module(self.name)
