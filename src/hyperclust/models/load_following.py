"""Torch threads that follow the machine's load during Uni-DHC's training.

The training's result does not depend on the number of torch threads, so each epoch may run
on the cores other processes left free (:class:`LoadFollower`).
"""

from __future__ import annotations

import time

import torch

__all__ = ["LoadFollower"]

#: Shortest window (s) of other processes' CPU use that picks an epoch's threads.
_FIRST_READING_S = 0.05


class LoadFollower:
    """Torch threads per epoch of :func:`hyperclust.models.unidhc.train_on_batches`.

    On CPU the training's result is the same with any number of torch threads (every sum of
    the losses is :func:`~hyperclust.models.losses.thread_invariant_sum`), so each epoch runs
    on the cores that other processes left free during the previous one
    (:class:`hyperclust.threads.OtherCpu`), at most the threads torch had on entry, which
    :meth:`restore` sets back. Two threads beside a process that keeps a core busy made these
    small steps 3-5x slower than one thread. ``load_meter``: a meter started earlier (its
    reading picks the first epoch's threads); by default one is started here and read after
    a 50 ms pause, only when more than one thread is allowed.

    Examples
    --------
    >>> follower = LoadFollower(torch.device("cpu"))
    >>> follower.epoch_threads() <= torch.get_num_threads()
    True
    >>> follower.restore()
    """

    def __init__(self, device, load_meter=None):
        from ..threads import OtherCpu

        self.limit = self.threads = torch.get_num_threads()
        self.follow = device.type == "cpu" and self.limit > 1
        self.meter = load_meter
        if self.follow and load_meter is None:
            self.meter = OtherCpu()
            time.sleep(_FIRST_READING_S)

    def epoch_threads(self) -> int:
        """The threads for the next epoch (set in torch); the meter restarts."""
        from ..threads import threads_beside

        if self.follow:
            other = self.meter.read(min_seconds=_FIRST_READING_S)
            if other is not None:
                self.threads = threads_beside(self.limit, other)
                torch.set_num_threads(self.threads)
                self.meter.restart()
        return self.threads

    def restore(self):
        if self.follow:
            torch.set_num_threads(self.limit)
