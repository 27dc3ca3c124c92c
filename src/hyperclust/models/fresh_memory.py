"""Large work arrays in plain anonymous memory: no transparent-huge-page advice, so their
first touch never waits for the kernel to compact memory.

numpy advises huge pages (``madvise(MADV_HUGEPAGE)``) for every array of 4 MiB or more.
Where the kernel's ``transparent_hugepage/defrag`` is ``madvise`` (a common default), a page
fault in an advised range compacts memory synchronously whenever no free 2 MiB page is at
hand, and on a machine whose memory other processes keep fragmented most of them must: on the
2-core development machine (24 GB, ``enabled`` and ``defrag`` both ``madvise``) the first
touch of 512 MiB cost 0.72-1.23 s of system time as numpy allocates it and 0.17-0.19 s in
plain 4 KiB pages; the plain pages cost TLB misses in the sparse products' random row reads
instead (0.04-0.1 s over Uni-DHC's basis at 10^6 x 32; both in
``benchmarks/studies/basis_memory.py``). Only the arrays allocated here change: numpy's own
setting (a process-wide switch) is left alone.

The pages are faulted in by the kernel in one call where it can (``MAP_POPULATE``, Linux):
every array allocated here is written whole, and one call costs less than a fault per page
(512 MiB: 0.16-0.19 s CPU against 0.20-0.25 s touched page by page, loaded machine; Uni-DHC's
basis at 10^6 x 32: 1.07 s CPU min against 1.16 s).
"""

from __future__ import annotations

import mmap

import numpy as np

__all__ = ["PLAIN_PAGES_MIN_BYTES", "plain_empty"]

#: Below numpy's huge-page threshold (4 MiB) an array is allocated by numpy as usual.
PLAIN_PAGES_MIN_BYTES = 4 * 2 ** 20


def plain_empty(shape, dtype) -> np.ndarray:
    """An uninitialised C-contiguous array, as ``np.empty``, in anonymous memory that is not
    advised for huge pages (arrays of :data:`PLAIN_PAGES_MIN_BYTES` or more).

    The memory is returned to the system when the last array viewing it is freed.

    Parameters
    ----------
    shape : tuple of int
    dtype : data type

    Returns
    -------
    ndarray, shape ``shape``, writeable

    Examples
    --------
    >>> a = plain_empty((1024, 1024, 2), np.float32)
    >>> a.shape, a.dtype, a.flags.c_contiguous, a.flags.writeable
    ((1024, 1024, 2), dtype('float32'), True, True)
    >>> plain_empty((2, 3), np.float64).shape
    (2, 3)
    """
    dtype = np.dtype(dtype)
    shape = tuple(int(s) for s in np.atleast_1d(shape)) if np.ndim(shape) else (int(shape),)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if nbytes < PLAIN_PAGES_MIN_BYTES:
        return np.empty(shape, dtype=dtype)
    return np.frombuffer(_anonymous(nbytes), dtype=dtype).reshape(shape)


def _anonymous(nbytes: int) -> mmap.mmap:
    """Private anonymous memory (``mmap``'s default is shared memory, which a forked child
    would write through), faulted in at once where ``MAP_POPULATE`` exists."""
    if hasattr(mmap, "MAP_PRIVATE"):  # CPython adds MAP_ANONYMOUS for fd -1 where it exists
        return mmap.mmap(-1, nbytes, flags=mmap.MAP_PRIVATE | getattr(mmap, "MAP_ANONYMOUS", 0)
                         | getattr(mmap, "MAP_POPULATE", 0))
    return mmap.mmap(-1, nbytes)  # Windows: a private page-file mapping
