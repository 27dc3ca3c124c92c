"""Process memory for benchmarks: current RSS, lifetime peak, and the peak inside a block."""

from __future__ import annotations

import os
import resource
import sys
import threading

__all__ = ["current_rss_mb", "max_rss_mb", "PeakMemory"]

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def current_rss_mb() -> float:
    """Resident set size of this process now, in MiB (0.0 where /proc is unavailable).

    Examples
    --------
    >>> 0.0 < current_rss_mb() <= max_rss_mb()  # on Linux
    True
    """
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * _PAGE / 2**20
    except (OSError, IndexError, ValueError):
        return 0.0


def max_rss_mb() -> float:
    """Peak resident set size of this process so far, in MiB (getrusage).

    Examples
    --------
    >>> max_rss_mb() >= current_rss_mb()
    True
    """
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    # Linux reports KiB, macOS bytes.
    return peak / 2**20 if sys.platform == "darwin" else peak / 2**10


class PeakMemory:
    """Context manager measuring the peak RSS above the RSS at entry, sampled every ``interval`` s.

    Short spikes between samples can be missed: ``extra_mb`` is a lower bound.

    Attributes
    ----------
    start_mb, peak_mb, extra_mb : float
        RSS at entry, highest sampled RSS, and ``peak_mb - start_mb``, in MiB.

    Examples
    --------
    >>> import numpy as np
    >>> with PeakMemory() as mem:
    ...     block = np.ones(8 * 2**20)  # 64 MiB, written
    >>> 60 < mem.extra_mb < 200
    True
    """

    def __init__(self, interval: float = 0.005):
        self.interval = interval
        self.start_mb = self.peak_mb = self.extra_mb = 0.0
        self._stop = threading.Event()
        self._thread = None

    def _sample(self):
        while not self._stop.wait(self.interval):
            self.peak_mb = max(self.peak_mb, current_rss_mb())

    def __enter__(self):
        self.start_mb = self.peak_mb = current_rss_mb()
        self._stop.clear()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.peak_mb = max(self.peak_mb, current_rss_mb())
        self.extra_mb = self.peak_mb - self.start_mb
        return False
