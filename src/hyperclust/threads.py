"""Thread policy: never more compute threads than cores, and results that do not depend on
the machine's load.

BLAS, OpenMP (scikit-learn's k-means) and torch each start one thread per core of the
machine, not of the process: in a container or under ``taskset`` that oversubscribes, and
when another process keeps a core busy those threads wait for each other at every barrier (a
small torch matmul then ran ~70x slower: a Uni-DHC epoch at 10^5 nodes took 31 s instead of
2.8 s on 2 cores with one busy). Every estimator's ``fit`` runs under :func:`thread_limit`
with :func:`default_threads` threads:

1. ``$HYPERCLUST_NUM_THREADS`` when set: a positive integer, or ``free`` for the cores that
   are free now (the cores this process may use minus those other processes keep busy, read
   from ``/proc/loadavg``);
2. else one thread for small inputs (:func:`input_work` under :data:`PARALLEL_MIN_WORK`
   stored nonzeros: at cora-ca's size, ~5e4, thread start-up and barriers cost more than
   they save, and auto fitted 1.6x slower with two threads than with one);
3. else the cores this process may use (``sched_getaffinity``).

Inside a fit each kernel uses that count only where its work pays for the threads, one
thread below a measured size (:mod:`hyperclust.kernel_threads`: ARPACK's BLAS, k-means,
QR of tall blocks, the sparse products).

Whatever the policy says, a fit never raises a thread count above the caller's own limit:
the ``*_NUM_THREADS`` variables (``OMP_NUM_THREADS=1`` holds), and each library's count as
it is when the fit starts (a ``threadpoolctl.threadpool_limits(1)`` block, or
``torch.set_num_threads(1)``, holds inside the fit); the policy only ever lowers them, and
hyperclust's own kernels (:func:`current_limit`) use no more threads than that.

The default does not follow the load on purpose: float sums split over a different number of
threads round differently, and k-means can then land in another optimum (cora-ca's
landscape is bimodal: seed 1 gives ACC .586 with one thread, .652 with two). Same seed, same
machine, same labels matters more than speed under load, so ``free`` is an explicit choice
(for shared machines), as is ``1`` (one thread per benchmark worker).

The one exception is work whose result is bit-identical with any thread count: Uni-DHC's
encoder pass over all rows in blocks (a forward pass; blocks of a few rows, where torch
splits a row's sums, run on one thread; tested with 1 and 2 threads). Two threads beside a
process that keeps a core busy made such small torch steps 3-5x slower than one. (Its
training is not such work: torch splits narrow layers' weight gradients over the batch
between threads, so it runs on one thread.) Such work follows the load as it is *now*: :class:`OtherCpu` measures
the CPU other processes used on this process's cores since the last reading (not the lagging
load average) and :func:`threads_beside` gives the threads that leaves, at most the limit
in force.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
import threading
import time

import numpy as np

from ._validation import check_int

__all__ = ["available_cores", "busy_cores", "free_cores", "default_threads", "thread_limit",
           "current_limit", "input_work", "OtherCpu", "threads_beside", "env_thread_limit",
           "cached_controller", "limit_imported_torch", "ENV_VAR", "PARALLEL_MIN_WORK", "USER_LIMIT_VARS"]

ENV_VAR = "HYPERCLUST_NUM_THREADS"
#: Inputs with fewer stored nonzeros (incidence plus features) run on one thread by default.
PARALLEL_MIN_WORK = 1_000_000
#: Environment variables by which users limit BLAS/OpenMP threads; a fit stays under them.
USER_LIMIT_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                   "BLIS_NUM_THREADS", "VECLIB_MAXIMUM_THREADS")
_state = threading.local()
_controller_cache: dict = {}


def env_thread_limit() -> int | None:
    """The lowest positive integer among :data:`USER_LIMIT_VARS` (None when none is set).

    Examples
    --------
    >>> import os
    >>> env_thread_limit() is None or env_thread_limit() >= 1
    True
    """
    values = []
    for var in USER_LIMIT_VARS:
        text = os.environ.get(var, "").strip()
        if text.isdigit() and int(text) >= 1:
            values.append(int(text))
    return min(values) if values else None


def available_cores() -> int:
    """Cores this process may run on (its CPU affinity), at least 1.

    Examples
    --------
    >>> available_cores() >= 1
    True
    """
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def busy_cores(loadavg: str | None = None) -> int:
    """Cores that other processes keep busy now (0 when it cannot be read).

    The runnable-task count of ``/proc/loadavg`` minus this thread, capped by the 1-minute
    load average: this process's own work of the last minute shows in the load average but
    not in the runnable count of this instant, and a process that only just started shows in
    the count but not yet in the average; a process that keeps a core busy shows in both.

    Parameters
    ----------
    loadavg : str, optional
        The text of ``/proc/loadavg`` (read from the file by default).

    Examples
    --------
    >>> busy_cores("1.02 0.98 0.90 2/130 999")   # another process kept a core busy
    1
    >>> busy_cores("0.00 0.01 0.05 1/120 999")   # only this process runs
    0
    """
    try:
        if loadavg is None:
            with open("/proc/loadavg") as fh:
                loadavg = fh.read()
        fields = loadavg.split()
        runnable = int(fields[3].split("/")[0]) - 1
        load1 = float(fields[0])
    except (OSError, IndexError, ValueError):
        return 0
    return max(0, min(runnable, int(load1 + 0.5)))


def free_cores() -> int:
    """Cores this process may use minus those other processes keep busy now (at least 1).

    Examples
    --------
    >>> 1 <= free_cores() <= available_cores()
    True
    """
    return max(1, available_cores() - busy_cores())


def _cpu_jiffies(stat: str | None = None, own: str | None = None, cpus=None):
    """``(busy jiffies of the CPUs this process may run on, jiffies of this process)``, or
    None where ``/proc`` cannot be read.

    Parameters
    ----------
    stat, own : str, optional
        The texts of ``/proc/stat`` and ``/proc/self/stat`` (read from the files by default).
    cpus : iterable of int, optional
        CPU numbers to count (default: this process's affinity); the machine-wide ``cpu``
        line when none of them has its own line.

    Examples
    --------
    >>> stat = ("cpu  30 0 10 100 0 0 0 0 0 0\\n"
    ...         "cpu0 20 0 5 50 0 0 0 0 0 0\\ncpu1 10 0 5 50 0 0 0 0 0 0\\n")
    >>> own = "1 (python) R " + " ".join(["0"] * 10) + " 7 3"
    >>> _cpu_jiffies(stat, own, cpus=[0])      # user + system of cpu0; utime + stime
    (25, 10)
    >>> _cpu_jiffies(stat, own, cpus=[0, 1])
    (40, 10)
    """
    try:
        if stat is None:
            with open("/proc/stat") as fh:
                stat = fh.read()
        if own is None:
            with open("/proc/self/stat") as fh:
                own = fh.read()
        if cpus is None:
            cpus = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else ()
        wanted = {f"cpu{c}" for c in cpus}
        lines = [line.split() for line in stat.splitlines() if line.startswith("cpu")]
        rows = [f for f in lines if f[0] in wanted] or [f for f in lines if f[0] == "cpu"]
        if not rows:
            return None
        busy = 0
        for f in rows:
            v = [int(x) for x in f[1:9]]
            busy += sum(v) - v[3] - v[4]  # user..steal minus idle and iowait
        fields = own.rsplit(")", 1)[1].split()
        return busy, int(fields[11]) + int(fields[12])  # utime + stime of all threads
    except (OSError, ValueError, IndexError):
        return None


class OtherCpu:
    """The CPU that *other* processes used on this process's cores, in cores.

    Busy time of the CPUs in this process's affinity (``/proc/stat``) minus this process's
    own CPU time (``/proc/self/stat``, all threads), over the wall time since the start or
    the last :meth:`restart`. Unlike the load average it is current and does not count this
    process's own work. Linux only: elsewhere every reading is None. CPU quotas of a cgroup
    (``docker --cpus``) are not seen.

    Use it as a context manager (``cores`` is set on exit) or call :meth:`read`.

    Attributes
    ----------
    cores : float or None
        Set by ``__exit__``.

    Examples
    --------
    >>> with OtherCpu() as other:
    ...     _ = sum(range(1000))
    >>> other.cores is None or other.cores >= 0
    True
    """

    def __init__(self):
        self.cores = None
        self.restart()

    def restart(self):
        """Start a new measuring window now."""
        self._t0 = time.monotonic()
        self._start = _cpu_jiffies()

    def read(self, min_seconds: float = 0.0) -> float | None:
        """Cores other processes used since the window started (None when ``/proc`` is
        unavailable or the window is shorter than ``min_seconds``)."""
        wall = time.monotonic() - self._t0
        end = _cpu_jiffies()
        if self._start is None or end is None or wall <= 0 or wall < min_seconds:
            return None
        hz = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
        other = (end[0] - self._start[0]) - (end[1] - self._start[1])
        return max(0.0, other / hz / wall)

    def __enter__(self):
        self.restart()
        return self

    def __exit__(self, *exc):
        self.cores = self.read()
        return False


def threads_beside(limit: int, other_cores: float | None) -> int:
    """Threads for work that may follow the load: the cores of this process that other
    processes left free (``other_cores`` rounded), between 1 and ``limit``; ``limit`` when
    ``other_cores`` is unknown (None).

    Examples
    --------
    >>> cores = available_cores()
    >>> threads_beside(cores, 0.0) == cores, threads_beside(cores, float(cores)), threads_beside(1, None)
    (True, 1, 1)
    """
    if other_cores is None:
        return int(limit)
    return max(1, min(int(limit), int(available_cores() - other_cores + 0.5)))


def input_work(hypergraph) -> int | None:
    """Stored nonzeros one pass over ``hypergraph`` touches: ``nnz(H)`` plus the features'
    nonzeros (all ``n x d`` entries when dense); None for an object that is not a hypergraph.

    Examples
    --------
    >>> from hyperclust import Hypergraph
    >>> input_work(Hypergraph.from_edges([[0, 1, 2], [2, 3]]))
    5
    """
    incidence = getattr(hypergraph, "incidence", None)
    if incidence is None or not hasattr(incidence, "nnz"):
        return None
    work = int(incidence.nnz)
    features = getattr(hypergraph, "features", None)
    if features is not None:
        work += int(features.nnz) if hasattr(features, "nnz") else int(np.size(features))
    return work


def default_threads(work: int | None = None) -> int:
    """``$HYPERCLUST_NUM_THREADS`` (an integer, or ``free``: :func:`free_cores`) if set; else
    1 when ``work`` (:func:`input_work`) is under :data:`PARALLEL_MIN_WORK`; else
    :func:`available_cores`. Never the load: the same input gets the same thread count on
    every run, so results do not follow the load.

    Examples
    --------
    >>> import os
    >>> "HYPERCLUST_NUM_THREADS" in os.environ or default_threads(work=10) == 1
    True
    """
    env = os.environ.get(ENV_VAR, "").strip().lower()
    if not env:
        if work is not None and work < PARALLEL_MIN_WORK:
            return 1
        return available_cores()
    if env == "free":
        return free_cores()
    try:
        value = int(env)
    except ValueError:
        value = 0
    if value < 1:
        raise ValueError(f"${ENV_VAR} must be a positive integer or 'free', got {env!r}")
    return value


@contextlib.contextmanager
def thread_limit(n_threads: int | None = None, *, work: int | None = None):
    """Run the block with at most ``n_threads`` BLAS/OpenMP/torch threads, then restore.

    No library's thread count is raised: each runs with the smaller of ``n_threads`` and its
    count at entry.

    Parameters
    ----------
    n_threads : int, optional
        Default :func:`default_threads` (``work``), capped by the caller's limits: the
        ``*_NUM_THREADS`` variables (:func:`env_thread_limit`) and the BLAS/OpenMP counts at
        entry (a ``threadpoolctl.threadpool_limits`` block). An explicit count is kept as
        given for hyperclust's own kernels; the libraries still only go down. Nested blocks keep the outer limit (an
        estimator fitted inside another one's ``fit`` does not re-measure the machine).
    work : int, optional
        Size of the input (:func:`input_work`), for the default.

    Yields
    ------
    int
        The number of threads in force.

    Examples
    --------
    >>> with thread_limit(1) as n:
    ...     n
    1
    """
    outer = getattr(_state, "n_threads", None)
    if outer is not None and n_threads is None:
        yield outer
        return
    # Each library only ever goes down: its count now is the caller's limit for it.
    libraries = [(lib, lib.num_threads) for lib in cached_controller().lib_controllers]
    if n_threads is None:
        # The policy's count, under the caller's limits: the *_NUM_THREADS variables and a
        # threadpool_limits block around the call (torch's count is left out: it depends
        # on whether torch was imported, and the count must not).
        n_threads = min([default_threads(work)] + [before for _, before in libraries]
                        + [env_thread_limit() or default_threads(work)])
    n_threads = check_int(n_threads, "n_threads", 1)
    torch = sys.modules.get("torch")  # only limit torch if it is already in use
    torch_before = torch.get_num_threads() if torch is not None else None
    outer_late = getattr(_state, "late_torch", None)
    # None: torch not imported yet; a fit that imports it hands it over (limit_imported_torch)
    _state.n_threads, _state.late_torch = n_threads, (False if torch is not None else None)
    try:
        for lib, before in libraries:
            lib.set_num_threads(min(n_threads, before))
        if torch is not None:
            torch.set_num_threads(min(n_threads, torch_before))
        yield n_threads
    finally:
        _state.n_threads = outer
        for lib, before in libraries:
            lib.set_num_threads(before)
        if torch is not None and torch_before is not None:
            torch.set_num_threads(torch_before)
        late, _state.late_torch = _state.late_torch, outer_late
        if late:  # torch imported inside the block: its count at import back
            late[0].set_num_threads(late[1])


def limit_imported_torch(torch) -> None:
    """Hold ``torch``, imported inside a :func:`thread_limit` block, to the block's count, and
    give it back its count of now (its default: the import was not limited) when the block
    ends.

    A block limits torch only when torch was imported before it; a fit that imports torch
    itself calls this right after the import, so that neither the fit runs torch on more
    threads than its limit nor the caller's session keeps the fit's limit afterwards.
    Outside a block, for a torch imported before the block (which the block holds and
    restores itself) or already handed over, it does nothing.

    Parameters
    ----------
    torch : module
        The ``torch`` module (anything with ``get_num_threads`` / ``set_num_threads``).

    Examples
    --------
    >>> class Torch:  # stands for a torch imported inside the block
    ...     n = 8
    ...     def get_num_threads(self): return self.n
    ...     def set_num_threads(self, n): self.n = n
    >>> t = Torch()
    >>> limit_imported_torch(t)  # outside a thread_limit block: nothing to hold it to
    >>> t.n
    8
    """
    n_threads = getattr(_state, "n_threads", None)
    if n_threads is None or getattr(_state, "late_torch", None) is not None:
        return
    before = torch.get_num_threads()
    _state.late_torch = (torch, before)
    torch.set_num_threads(min(n_threads, before))


def cached_controller():
    """A ``threadpoolctl.ThreadpoolController`` of the loaded BLAS/OpenMP libraries, built
    again only when the process or its set of imported modules changed.

    Building one scans every loaded shared library (20-90 ms on a busy machine); a kernel
    that sets its pools on every call (:mod:`hyperclust.kernel_threads`) cannot pay that. A
    library that brings a thread pool is loaded by an import, which changes the count of
    ``sys.modules``, so the controller is rebuilt then.

    Examples
    --------
    >>> cached_controller() is cached_controller()
    True
    """
    from threadpoolctl import ThreadpoolController

    key = (os.getpid(), len(sys.modules))
    controller = _controller_cache.get(key)
    if controller is None:
        controller = ThreadpoolController()
        _controller_cache.clear()
        _controller_cache[key] = controller
    return controller


def current_limit() -> int | None:
    """The limit of the innermost :func:`thread_limit` block of this thread, or None.

    Code that imports torch inside a limited block calls ``torch.set_num_threads`` with it
    (the block could only limit torch if it was already imported).

    Examples
    --------
    >>> current_limit() is None
    True
    >>> with thread_limit(1):
    ...     current_limit()
    1
    """
    return getattr(_state, "n_threads", None)


def limit_threads_in(fit):
    """Decorator: run ``fit`` under :func:`thread_limit` (used by every estimator)."""
    @functools.wraps(fit)
    def wrapped(self, *args, **kwargs):
        with thread_limit(work=input_work(args[0]) if args else None):
            return fit(self, *args, **kwargs)

    wrapped.__thread_limited__ = True
    return wrapped
