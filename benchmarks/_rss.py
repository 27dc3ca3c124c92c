"""Peak resident memory of processes, sampled in a thread (benchmark helper)."""

from __future__ import annotations

import threading
import time

__all__ = ["PeakRSS"]


class PeakRSS:
    """Peak RSS in bytes of the processes ``pids`` while the ``with`` block runs
    (``peak[pid]``), and of RSS less its shared pages (``peak_private[pid]``: without the
    file-backed pages of memory-mapped files, which the kernel can drop), sampled every
    ``every`` seconds."""

    def __init__(self, pids, every=0.05):
        import psutil

        self.procs = {pid: psutil.Process(pid) for pid in pids}
        self.peak = {pid: 0 for pid in pids}
        self.peak_private = {pid: 0 for pid in pids}
        self.every, self._stop = every, threading.Event()

    def _run(self):
        while not self._stop.is_set():
            for pid, p in self.procs.items():
                try:
                    mem = p.memory_info()
                    self.peak[pid] = max(self.peak[pid], mem.rss)
                    self.peak_private[pid] = max(self.peak_private[pid], mem.rss - mem.shared)
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
