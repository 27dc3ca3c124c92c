"""The checks of AHCKA's adaptive iterations: each check's clustering is scored by
:func:`~hyperclust.selection.objectives.rwr_conductance`, whose restart-walk hops ride as
extra columns on the next products ``M q``; the queue applies the stop rule.
"""

from __future__ import annotations

import logging
from collections import deque

import numpy as np

from ..operators.row_ranges import even_ranges, run_on_ranges
from ..selection.loop import keep_best
from ..selection.objectives import is_degenerate
from .block_argmax import BLOCK_ENTRIES

__all__ = ["CheckQueue", "dense_indicators"]

class CheckQueue:
    """The open checks, oldest first, and what the closed ones decided.

    ``k``, ``patience`` and ``n_hops`` as in :class:`~hyperclust.cluster.ahcka.AHCKA`.
    ``history``: ``(iteration, objective)`` of every closed check; ``best``: ``(degenerate,
    objective, labels, embedding, iteration)`` of the best; ``stopped_at``: the stopping
    check's iteration or None.

    Examples
    --------
    >>> q = CheckQueue(k=2, patience=1, n_hops=0)
    >>> q.add(0, np.array([0, 0, 1, 1]), np.zeros((4, 2)))
    >>> [(it, round(f, 12)) for it, f in q.history], q.best[4]   # z = Y: objective 0
    ([(0, 0.0)], 0)
    """

    def __init__(self, k: int, patience: int, n_hops: int, logger=None):
        self.k, self.patience, self.n_hops = k, patience, n_hops
        self.logger = logging.getLogger(__name__) if logger is None else logger
        self.open = deque()
        self.history, self.best = [], None
        self.rises, self.last, self.stopped_at = 0, None, None

    def add(self, it, labels, embedding):
        """Open the check of iteration ``it`` (closed at once when ``n_hops`` is 0)."""
        Y = dense_indicators(labels)
        self.open.append(_Check(it, labels, embedding, Y))
        self.close_finished()

    def take_walks(self) -> list:
        """The open checks' walks ``z`` in queue order, dropped from the checks."""
        walks = [c.z for c in self.open]
        for c in self.open:
            c.z = None
        return walks

    def walk_one_hop(self, MZ: np.ndarray, alpha: float):
        """``z <- alpha Y + (1 - alpha) M z`` for each open check, ``M z`` read from the
        columns of ``MZ`` in queue order."""
        col = 0
        for c in self.open:
            w = c.Y.shape[1]
            c.z = np.empty((MZ.shape[0], w))
            _by_row_ranges(c.z, _restart_step, MZ[:, col:col + w], c.Y, alpha)
            c.hops += 1
            col += w

    def close_finished(self):
        """Score the checks that walked all their hops; stop after ``patience`` rises."""
        while self.open and self.open[0].hops == self.n_hops and self.stopped_at is None:
            c = self.open.popleft()
            if c.z is c.Y:  # no hop walked: z is Y itself
                c.z = c.Y.copy()
            _by_row_ranges(c.z, np.multiply, c.z, c.Y)  # z is not walked again: in place
            f = float(1.0 - np.sum(c.z) / c.Y.shape[1])
            c.z = c.Y = None  # freed before is_degenerate's temporaries
            self.history.append((c.it, f))
            self.logger.debug("AHCKA: objective of iteration %d: %.6f", c.it, f)
            bad = is_degenerate(c.labels, self.k)
            if keep_best(self.best, bad, f):
                self.best = (bad, f, c.labels, c.embedding, c.it)
            if c.it > 0:
                self.rises = self.rises + 1 if f > self.last else 0
                if self.rises >= self.patience:
                    self.stopped_at = c.it
                    self.open.clear()
            self.last = f


def _restart_step(MZ, Y, alpha, out):
    """``out = (1 - alpha) MZ + alpha Y`` by row blocks (no full-size ``alpha Y``)."""
    np.multiply(MZ, 1.0 - alpha, out=out)
    rows = max(1, BLOCK_ENTRIES // max(1, out.shape[1]))
    for lo in range(0, out.shape[0], rows):
        out[lo:lo + rows] += alpha * Y[lo:lo + rows]


def _by_row_ranges(out, op, *args):
    """``op(*args, out=out)`` by row ranges on the kernel threads (``(n, ...)`` args sliced)."""
    n = out.shape[0]

    def run(lo, hi):
        op(*[a[lo:hi] if isinstance(a, np.ndarray) and a.ndim and a.shape[0] == n else a
             for a in args], out=out[lo:hi])

    run_on_ranges(run, even_ranges(n, out.size))


def dense_indicators(labels: np.ndarray) -> np.ndarray:
    """Dense normalised indicators ``Y[v, c] = 1 / sqrt(|C_c|)``, one column per non-empty
    cluster in sorted order; ``labels`` (n,) are ``>= 0``.

    Examples
    --------
    >>> dense_indicators(np.array([2, 2, 0])).round(3).tolist()
    [[0.0, 0.707], [0.0, 0.707], [1.0, 0.0]]
    """
    counts = np.bincount(labels)
    codes = (np.cumsum(counts > 0) - 1)[labels]
    Y = np.zeros((labels.size, int(np.count_nonzero(counts))))
    Y[np.arange(labels.size), codes] = 1.0 / np.sqrt(counts[labels])
    return Y


class _Check:
    """A clustering being scored: ``z`` after ``hops`` restart-walk steps from ``Y``."""

    __slots__ = ("it", "labels", "embedding", "Y", "z", "hops")

    def __init__(self, it, labels, embedding, Y):
        self.it, self.labels, self.embedding = it, labels, embedding
        self.Y, self.z, self.hops = Y, Y, 0
