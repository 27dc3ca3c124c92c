"""Threads per kernel: a kernel runs on more than one thread only where that has paid.

The fit-wide policy (:mod:`hyperclust.threads`) picks one thread count per input; inside a
fit, kernels differ in what an extra thread gains. A thread pays when the work of one call
exceeds the cost of handing it out and gathering it back (waking a pooled thread, a barrier;
~0.1 ms of CPU per dispatch measured on the 2-core development machine). Per kernel
(:data:`KERNELS`): the work of one call in the kernel's own unit, and the work from which
more than one thread is used (``min_work``). Below it the kernel runs on one thread;
from it on, on the threads of the policy in force (:func:`~hyperclust.threads.current_limit`,
else :func:`~hyperclust.threads.default_threads`). Never more than the caller's limits: a
pool's count is only ever lowered (:func:`kernel_thread_limit`).

What was measured (``benchmarks/studies/bench_kernel_threads.py``; 2-core AMD EPYC VM,
hypergraph_sbm inputs, min of interleaved runs; the first rows at load average < 1, the
rest under load 5-11, where only the CPU ratios count):

* ``spmm`` (hyperclust's row-block CSR kernel, :func:`~hyperclust.operators.kernels.
  csr_matmat`): 2 threads cost 1.0-1.1x the CPU of one from 8e6 multiply-adds on (they
  split the work, so the wall time halves on an idle machine), 1.2-3x below 1e6 (the
  dispatch is a fixed ~0.1 ms). Threshold: 2^20 multiply-adds (nnz x width).
* ``lanczos`` (OpenBLAS inside ARPACK: BLAS-1/2 on the ``n x ncv`` Krylov basis, memory
  bound, one call per vector operation): ``eigsh`` at 10^5 nodes took 0.47-0.54 s with 2
  BLAS threads against 0.15 s with one (load < 1; 6x the CPU); at 10^6, 2.1x the CPU (load
  5-7); ``Q^T v`` on ``10^5 x 20`` 2.3x the wall time. This was 90% of
  ``spectral-zhou``'s 2-thread slowdown at 10^5 (0.58 s against 0.20 s). No size measured
  (up to 10^6 x 20) gained, so one thread up to ``n x ncv = 10^8``.
* ``kmeans`` (scikit-learn's OpenMP Lloyd steps and k-means++ on the embedding): 10^5 x 4
  rows, k = 4: 0.35 s with 2 threads against 0.15 s (load < 1); at 10^6 1.45x the CPU (load
  5-7). Threshold ``n x k x d = 10^8`` (above the sizes measured).
* ``row_ranges`` (hyperclust's row ranges of one elementwise pass over an ``n x w`` block,
  :mod:`hyperclust.operators.row_ranges`: AHCKA's restart-walk hops, objective product,
  stacked copies and the walk's row scalings): the same pool and dispatch cost as ``spmm``.
  Three hops and an objective at ``2.5e6 x 4`` (min of 5 interleaved, load 1.3-2.2): 0.113
  s wall (CPU 0.112) with one thread, 0.116 s (0.115) with 2: neither gained nor lost on
  the loaded machine (``benchmarks/studies/bench_ahcka_check.py`` times the fit idle).
  Threshold 2^20 entries (as ``spmm``'s multiply-adds).
* ``discretize`` (AHCKA's Yu-Shi steps by row blocks,
  :func:`~hyperclust.cluster.block_argmax.rotated_labels_and_sums`: ~20 numpy calls per
  block of 2^16 entries, each handing the GIL over): at ``2.5e6 x 4`` on the idle machine 2
  threads took 1.24 s wall (median; 1.9 CPU s) against 1.66 s for one (1.6 CPU s); under
  load neither gained. Threshold 2^23 entries (from ~2·10^6 nodes at k = 4), where the
  blocks are many enough for the GIL hand-overs not to dominate.
* ``tall_skinny`` (BLAS-3/LAPACK on ``n x w`` blocks with small ``w``: AHCKA's QR and
  rotations, the ``hsbm`` EM's ``n x k`` and ``n x d`` products): the same memory-bound
  shape; thin QR of ``10^4 x 8`` took 11x the CPU with 2 threads under load, the ``hsbm``
  attribute term of ``auto`` at 10^4 nodes x 32 features 3.1 s CPU against 0.27 s.
  Threshold ``n x w1 x w2 = 10^9``.

Above the thresholds nothing was measured to lose or win: there the policy's threads are
used, and ``benchmarks/bench_threads_idle.py`` checks the whole fits on an idle machine.

Kernels with a thread count that rounds differently (BLAS, OpenMP reductions) get a count
that depends only on the work size, so results stay the same run to run.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math

from .threads import cached_controller, current_limit, default_threads

__all__ = ["Kernel", "KERNELS", "kernel_threads", "kernel_thread_limit"]


@dataclasses.dataclass(frozen=True)
class Kernel:
    """A kernel's thread rule.

    Attributes
    ----------
    min_work : float
        Work of one call (in ``unit``) from which the kernel uses more than one thread.
    unit : str
        What the work counts.
    pools : tuple of str
        threadpoolctl ``user_api`` names the kernel's threads come from (``"blas"``,
        ``"openmp"``); empty for hyperclust's own thread pool.

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


#: The kernels and their measured thresholds (module docstring).
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
    """Threads for one call of ``kernel`` on ``work``: 1 below its ``min_work``, else the
    limit in force (the innermost :func:`~hyperclust.threads.thread_limit`, else
    :func:`~hyperclust.threads.default_threads`).

    Parameters
    ----------
    kernel : str
        A key of :data:`KERNELS`.
    work : float
        The call's work in the kernel's unit.

    Returns
    -------
    int, >= 1

    Examples
    --------
    >>> from hyperclust.threads import thread_limit
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
    """Run the block with the BLAS/OpenMP pools of ``kernel`` lowered to
    :func:`kernel_threads` (never raised), then restore them.

    Parameters
    ----------
    kernel : str
        A key of :data:`KERNELS` whose ``pools`` are set.
    work : float

    Yields
    ------
    int
        The kernel's thread count.

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
