"""Time per iteration of a long iterative fit, logged as it goes (so a fit stopped from outside
still says how far it got and at what pace).
"""

from __future__ import annotations

import contextlib
import logging
import time

import numpy as np

__all__ = ["IterationClock"]


class IterationClock:
    """Logs wall and CPU seconds per iteration and per check of an iterative fit: a DEBUG line per
    check, an INFO line at the end.

    Call :meth:`iterated` after the iterations up to a check, :meth:`checked` after the check
    (or ``with clock.check(it):``), :meth:`finished` at the end.

    Attributes
    ----------
    iterating, checking : ndarray, shape (2,)
        Wall and CPU seconds spent in iterations and in checks so far.

    Examples
    --------
    >>> import logging
    >>> clock = IterationClock("demo", logging.getLogger("demo"))
    >>> clock.iterated(5); clock.checked(); clock.finished(5, stopped_at=None)
    >>> bool((clock.iterating >= 0).all() and (clock.checking >= 0).all())
    True
    """

    def __init__(self, name: str, logger: logging.Logger):
        self.name, self.logger = name, logger
        self.start = self.mark = _now()
        self.last_it = 0
        self.iterating, self.checking = np.zeros(2), np.zeros(2)

    def _lap(self) -> np.ndarray:
        now = _now()
        spent, self.mark = now - self.mark, now
        return spent

    def iterated(self, it: int):
        """Iterations ``last_it + 1 .. it`` are done."""
        spent = self._lap()
        self.iterating += spent
        ran = max(1, it - self.last_it)
        wall, cpu = spent / ran
        self.logger.debug("%s: iteration %d at %.1f s, %.3f s per iteration (CPU %.3f s) over "
                          "the last %d", self.name, it, self.mark[0] - self.start[0], wall, cpu,
                          ran)
        self.last_it = it

    def checked(self):
        """The check after the last :meth:`iterated` is done."""
        spent = self._lap()
        self.checking += spent
        self.logger.debug("%s: check %.2f s (CPU %.2f s)", self.name, *spent)

    @contextlib.contextmanager
    def check(self, it: int):
        """:meth:`iterated` on entering the block, :meth:`checked` on leaving it."""
        self.iterated(it)
        yield
        self.checked()

    def finished(self, it: int, stopped_at: int | None):
        """The loop ended after ``it`` iterations, stopped at check ``stopped_at`` (or None)."""
        self._lap()
        total, per_it = self.mark - self.start, self.iterating / max(1, self.last_it)
        self.logger.info("%s: %d iterations in %.1f s (CPU %.1f s); per iteration up to the "
                         "last check %.3f s (CPU %.3f s); checks %.1f s (CPU %.1f s) in all; %s",
                         self.name, it, *total, *per_it, *self.checking,
                         "no stop before max_iter" if stopped_at is None
                         else f"stopped by the check of iteration {stopped_at}")


def _now() -> np.ndarray:
    return np.array([time.perf_counter(), time.process_time()])
