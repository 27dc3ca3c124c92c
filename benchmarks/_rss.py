"""Peak resident memory of processes, sampled in a thread (benchmark helper)."""

from __future__ import annotations

import threading
import time

__all__ = ["PeakRSS"]


class PeakRSS:
    """Peak RSS in bytes of the processes ``pids`` while the ``with`` block runs
    (``peak[pid]``), sampled every ``every`` seconds."""

    def __init__(self, pids, every=0.05):
        import psutil

        self.procs = {pid: psutil.Process(pid) for pid in pids}
        self.peak = {pid: 0 for pid in pids}
        self.every, self._stop = every, threading.Event()

    def _run(self):
        while not self._stop.is_set():
            for pid, p in self.procs.items():
                try:
                    self.peak[pid] = max(self.peak[pid], p.memory_info().rss)
                except Exception:  # a worker restarting: skip the sample
                    pass
            time.sleep(self.every)

    def __enter__(self):
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
