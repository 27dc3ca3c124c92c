"""Torch threads that follow the machine's load during Uni-DHC's encoder pass.

The pass over all rows is a forward pass, whose rows do not depend on how many torch
threads compute them (tested), so each block runs on the cores other processes left free
(:class:`LoadFollower`, :func:`encode_in_blocks`). The training is not such a computation:
its weight gradients are sums over the batch that torch splits between threads, so it runs
on one thread (:data:`hyperclust.models.unidhc.TRAINING_THREADS`).
"""

from __future__ import annotations


import numpy as np
import torch

__all__ = ["LoadFollower", "MIN_THREADED_ROWS", "encode_in_blocks"]

#: Shortest window (s) of other processes' CPU use that picks a block's threads.
_FIRST_READING_S = 0.05

#: Blocks of fewer rows run on one torch thread. With a handful of rows torch splits a
#: row's sums between threads (a residual encoder on 7 rows gave other bits on 2 threads
#: than on 1, for hidden widths 16-256); from 8 rows on, 1 and 2 threads gave the same bits
#: for every width tried (input 1-130, hidden 4-256, 8-65,536 rows).
MIN_THREADED_ROWS = 1024


class LoadFollower:
    """Torch threads per block of :func:`encode_in_blocks`.

    Each block runs on the cores that other processes left free during the previous one
    (``load_meter``, a :class:`hyperclust.threads.OtherCpu` started before the first
    block), at most the threads torch had on entry. Two threads beside a process that keeps
    a core busy made small torch steps 3-5x slower than one thread.

    Examples
    --------
    >>> from hyperclust.threads import OtherCpu
    >>> before = torch.get_num_threads()
    >>> LoadFollower(torch.device("cpu"), OtherCpu()).block_threads() <= before
    True
    >>> torch.set_num_threads(before)
    """

    def __init__(self, device, load_meter):
        self.limit = self.threads = torch.get_num_threads()
        self.follow = device.type == "cpu" and self.limit > 1
        self.meter = load_meter

    def block_threads(self) -> int:
        """The threads for the next block (set in torch); the meter restarts."""
        from ..threads import threads_beside

        if self.follow:
            other = self.meter.read(min_seconds=_FIRST_READING_S)
            if other is not None:
                self.threads = threads_beside(self.limit, other)
                torch.set_num_threads(self.threads)
                self.meter.restart()
        return self.threads


def encode_in_blocks(encoder, Z, device, block_rows: int) -> np.ndarray:
    """``encoder(Z)`` without gradients, ``block_rows`` rows at a time, each block's torch
    threads following the load (:class:`LoadFollower`, from the second block: a pass of
    10^6 rows on two threads beside a busy core took 5-15 s instead of 0.8 s idle); blocks
    of fewer than :data:`MIN_THREADED_ROWS` rows (a short last block, a small input) on one
    thread, so the rows do not depend on the threads.

    Parameters
    ----------
    encoder : torch.nn.Module
        Maps float32 rows of width ``d`` to rows of width ``d``.
    Z : ndarray, shape (n, d)
    device : str or torch.device
    block_rows : int

    Returns
    -------
    ndarray of float32, shape (n, d)

    Examples
    --------
    >>> enc = torch.nn.Linear(3, 3)
    >>> Z = np.random.default_rng(0).normal(size=(10, 3)).astype(np.float32)
    >>> out = encode_in_blocks(enc, Z, "cpu", 4)
    >>> bool(np.allclose(out, enc(torch.as_tensor(Z)).detach().numpy(), atol=1e-6))
    True
    """
    from ..threads import OtherCpu

    device = torch.device(device)
    out = np.empty(Z.shape, dtype=np.float32)
    # a fresh meter, no pause: the first block runs on the threads as set, later ones on
    # what the meter saw during the blocks before (one block: nothing to follow)
    follower = LoadFollower(device, OtherCpu()) if Z.shape[0] > block_rows else None
    threads_before = torch.get_num_threads()
    try:
        with torch.no_grad():
            for lo in range(0, Z.shape[0], block_rows):
                if follower is not None:
                    follower.block_threads()
                if min(block_rows, Z.shape[0] - lo) < MIN_THREADED_ROWS \
                        and device.type == "cpu":
                    torch.set_num_threads(1)
                block = torch.as_tensor(Z[lo:lo + block_rows], dtype=torch.float32,
                                        device=device)
                out[lo:lo + block_rows] = encoder(block).cpu().numpy()
    finally:
        torch.set_num_threads(threads_before)
    return out
