"""Thread policy: never more compute threads than cores, and results that do not depend on load.

Every estimator's ``fit`` runs under :func:`thread_limit` with :func:`default_threads`
threads (``$HYPERCLUST_NUM_THREADS``; else 1 for inputs under :data:`PARALLEL_MIN_WORK`; else
the cores this process may use), never above the caller's own limits; each kernel uses more
than one thread only above its size (:data:`KERNELS`). The default ignores the load on
purpose: sums split over other thread counts round differently. See README.md, "Threads".
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import math
import os
import sys
import threading

import numpy as np

from .._validation import check_int

__all__ = ["available_cores", "busy_cores", "free_cores", "default_threads", "thread_limit",
           "current_limit", "input_work", "env_thread_limit", "cached_controller",
           "limit_imported_torch", "ENV_VAR", "PARALLEL_MIN_WORK",
           "USER_LIMIT_VARS", "Kernel", "KERNELS", "kernel_threads", "kernel_thread_limit"]

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
    """Cores other processes keep busy now: runnable tasks of ``/proc/loadavg`` (less this thread)
    capped by the 1-minute load; 0 when unreadable.

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
    """:func:`available_cores` minus :func:`busy_cores`, at least 1.

    Examples
    --------
    >>> 1 <= free_cores() <= available_cores()
    True
    """
    return max(1, available_cores() - busy_cores())


def input_work(hypergraph) -> int | None:
    """``nnz(H)`` plus the features' stored entries; None for an object that is not a hypergraph.

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
    """``$HYPERCLUST_NUM_THREADS`` (an integer, or ``free``) if set; else 1 when ``work`` is under
    :data:`PARALLEL_MIN_WORK`; else :func:`available_cores`.

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

    No library's count is raised. ``n_threads`` defaults to :func:`default_threads` (``work``)
    capped by :func:`env_thread_limit` and the counts at entry; nested blocks keep the outer
    limit. Yields the number of threads in force.

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
    """Hold ``torch``, imported inside a :func:`thread_limit` block, to the block's count until it ends.

    Does nothing outside a block or for a torch imported before it.

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
    """A ``threadpoolctl.ThreadpoolController``, rebuilt only when the process or ``sys.modules``
    changes (building one scans every loaded library).

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
    """Decorator: run ``fit`` under :func:`thread_limit`."""
    @functools.wraps(fit)
    def wrapped(self, *args, **kwargs):
        with thread_limit(work=input_work(args[0]) if args else None):
            return fit(self, *args, **kwargs)

    wrapped.__thread_limited__ = True
    return wrapped


@dataclasses.dataclass(frozen=True)
class Kernel:
    """A kernel's thread rule: ``min_work`` (in ``unit``) from which it uses more than one thread,
    and the threadpoolctl ``pools`` its threads come from (empty: hyperclust's own).

    Examples
    --------
    >>> KERNELS["kmeans"].pools
    ('openmp', 'blas')
    >>> Kernel(1e6, "n x d").min_work
    1000000.0
    """

    min_work: float
    unit: str
    pools: tuple = ()


#: Kernels and the work of one call from which a second thread paid (whole fits checked idle by
#: ``benchmarks/bench_threads_idle.py``).
KERNELS = {
    "spmm": Kernel(2 ** 20, "multiply-adds of one CSR product (nnz x width)"),
    "lanczos": Kernel(1e8, "n x ncv (ARPACK's Krylov basis)", ("blas",)),
    "kmeans": Kernel(1e8, "n x k x d (one Lloyd step)", ("openmp", "blas")),
    "row_ranges": Kernel(2 ** 20, "entries of an n x w block passed once by row ranges"),
    "discretize": Kernel(2 ** 23, "entries of the n x k embedding of one Yu-Shi step"),
    "tall_skinny": Kernel(1e9, "n x w1 x w2 (QR of an n x w block: w1 = w2 = w; product "
                               "of an n x w1 block with a w1 x w2 matrix)", ("blas",)),
}


def kernel_threads(kernel: str, work: float) -> int:
    """Threads for one call of ``kernel`` (a key of :data:`KERNELS`) on ``work``: 1 below its
    ``min_work``, else the limit in force.

    Examples
    --------
    >>> with thread_limit(2):
    ...     kernel_threads("spmm", 1000), kernel_threads("spmm", 10 ** 7)
    (1, 2)
    >>> kernel_threads("fft", 1)
    Traceback (most recent call last):
    ...
    ValueError: unknown kernel 'fft'; known: spmm, lanczos, kmeans, row_ranges, discretize, tall_skinny
    """
    rule = KERNELS.get(kernel)
    if rule is None:
        raise ValueError(f"unknown kernel {kernel!r}; known: {', '.join(KERNELS)}")
    if not math.isfinite(work) or work < rule.min_work:
        return 1
    limit = current_limit()
    return int(limit) if limit is not None else default_threads()


@contextlib.contextmanager
def kernel_thread_limit(kernel: str, work: float):
    """Run the block with ``kernel``'s pools lowered (never raised) to :func:`kernel_threads`.

    Examples
    --------
    >>> from threadpoolctl import threadpool_info
    >>> with kernel_thread_limit("lanczos", 100):
    ...     [p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"][:1]
    [1]
    """
    n_threads = kernel_threads(kernel, work)
    pools = KERNELS[kernel].pools
    changed = []
    if pools:
        for lib in cached_controller().lib_controllers:
            if lib.user_api in pools and lib.num_threads > n_threads:
                changed.append((lib, lib.num_threads))
                lib.set_num_threads(n_threads)
    try:
        yield n_threads
    finally:
        for lib, before in changed:
            lib.set_num_threads(before)
