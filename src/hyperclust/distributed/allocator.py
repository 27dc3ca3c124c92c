"""The workers' memory allocator during a fit: glibc's mmap and trim thresholds raised so
freed blocks are reused instead of faulted in again (docs/distributed.md, "Worker
memory"). glibc only; results do not depend on it.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import uuid

try:  # the distributed extra; without it no fit reaches this module
    from distributed.diagnostics.plugin import WorkerPlugin as _PluginBase
except ImportError:  # pragma: no cover
    _PluginBase = object

__all__ = ["reuse_freed_memory", "MMAP_THRESHOLD", "TRIM_THRESHOLD", "MMAP_MAX"]

#: Allocations below this are served from the heap (glibc's largest on 64-bit: 32 MiB).
MMAP_THRESHOLD = 32 * 2**20

#: Free memory at the top of the heap kept before it is returned to the system.
TRIM_THRESHOLD = 256 * 2**20

#: Allocations mapped on their own at most at once: none, so that blocks over
#: :data:`MMAP_THRESHOLD` (a 500,000 x 9 float64 block is 36 MB) are reused too.
MMAP_MAX = 0

_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD, _M_MMAP_MAX = -1, -3, -4
_GLIBC_DEFAULT = 128 * 1024  # both thresholds' static default
_GLIBC_MMAP_MAX = 65536


def _libc():
    """glibc through ctypes, or None (another C library, or none found)."""
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name) if name else None
    except OSError:
        return None
    return libc if libc is not None and hasattr(libc, "mallopt") \
        and hasattr(libc, "malloc_trim") else None


def _set(mmap_threshold: int, trim_threshold: int, mmap_max: int) -> bool:
    libc = _libc()
    if libc is None:
        return False
    done = [libc.mallopt(_M_MMAP_THRESHOLD, int(mmap_threshold)),
            libc.mallopt(_M_TRIM_THRESHOLD, int(trim_threshold)),
            libc.mallopt(_M_MMAP_MAX, int(mmap_max))]
    return all(done)


def _environ_value(name: str, default: int = _GLIBC_DEFAULT) -> int:
    try:
        return int(os.environ.get(name, default))
    except ValueError:
        return default


def _restore() -> None:
    """Put back the thresholds the process started with, and trim the free memory."""
    libc = _libc()
    if libc is None:
        return
    _set(_environ_value("MALLOC_MMAP_THRESHOLD_"), _environ_value("MALLOC_TRIM_THRESHOLD_"),
         _environ_value("MALLOC_MMAP_MAX_", _GLIBC_MMAP_MAX))
    libc.malloc_trim(0)


class _KeepFreed(_PluginBase):
    """Worker plugin: the fit's thresholds while registered (not in the driver's process)."""

    idempotent = False

    def __init__(self, mmap_threshold: int, trim_threshold: int, mmap_max: int):
        self.mmap_threshold, self.trim_threshold = mmap_threshold, trim_threshold
        self.mmap_max = mmap_max
        self.driver_pid = os.getpid()
        self.applied = False

    def setup(self, worker=None):
        if os.getpid() != self.driver_pid:
            self.applied = _set(self.mmap_threshold, self.trim_threshold, self.mmap_max)

    def teardown(self, worker=None):
        if self.applied:
            _restore()


@contextlib.contextmanager
def reuse_freed_memory(client, mmap_threshold: int = MMAP_THRESHOLD,
                       trim_threshold: int = TRIM_THRESHOLD, mmap_max: int = MMAP_MAX):
    """Raise the workers' glibc allocation thresholds while the ``with`` block runs.

    Parameters
    ----------
    client : dask.distributed.Client
    mmap_threshold : int, default :data:`MMAP_THRESHOLD`
    trim_threshold : int, default :data:`TRIM_THRESHOLD`
    mmap_max : int, default :data:`MMAP_MAX`
        0: every block from the heap, where a freed one is reused.

    Examples
    --------
    >>> import distributed, numpy as np
    >>> with distributed.Client(processes=False, n_workers=1, dashboard_address=":0") as c:
    ...     with reuse_freed_memory(c):
    ...         total = c.submit(np.sum, np.ones(10)).result()
    >>> float(total)
    10.0
    """
    name = f"hyperclust-keep-freed-{uuid.uuid4().hex}"
    try:
        client.register_plugin(_KeepFreed(int(mmap_threshold), int(trim_threshold),
                                          int(mmap_max)), name=name)
    except Exception:  # noqa: BLE001 - an old or unusual cluster: the fit runs as it is
        yield
        return
    try:
        yield
    finally:
        with contextlib.suppress(Exception):  # a closing cluster restores nothing
            client.unregister_worker_plugin(name)
