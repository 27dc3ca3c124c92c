"""CPU that processes outside a Dask LocalCluster benchmark used while it ran.

:class:`hyperclust.bench.provenance.OtherCpu` counts every process but this one, so the
cluster's own workers would read as load. :class:`ClusterOtherCpu` subtracts the workers'
CPU time too (``os.times`` in each worker, through ``client.run``); what is left is other
jobs' CPU plus the nannies' heartbeats (a few hundredths of a core).
"""

from __future__ import annotations

import os
import time

from hyperclust.bench.provenance import OtherCpu, all_idle

__all__ = ["ClusterOtherCpu", "idle_phrase"]


def _cpu_s():
    t = os.times()
    return t.user + t.system


class ClusterOtherCpu:
    """Context manager: ``cores`` other than this process and ``client``'s workers used
    during the block (None where ``/proc`` cannot be read)."""

    def __init__(self, client):
        self.client, self.cores = client, None

    def __enter__(self):
        self._workers = sum(self.client.run(_cpu_s).values())
        self._t0 = time.monotonic()
        self._meter = OtherCpu()
        return self

    def __exit__(self, *exc):
        others = self._meter.read()
        wall = time.monotonic() - self._t0
        workers = sum(self.client.run(_cpu_s).values()) - self._workers
        if others is not None and wall > 0:
            self.cores = max(0.0, others - workers / wall)
        return False


def idle_phrase(values) -> str:
    """The report's first words: idle or not, judged by the rows' ``other_cpu_cores``.

    Examples
    --------
    >>> idle_phrase([0.01, 0.03])
    'Idle (other processes used at most 0.03 cores during any row).'
    >>> idle_phrase([0.01, 0.8])
    'Under load (other processes used up to 0.80 cores), to be rerun idle.'
    >>> idle_phrase([0.01, None])
    'Under load or not measured (a row without the CPU of other processes), to be rerun idle.'
    """
    values = list(values)
    if all_idle(values):
        return f"Idle (other processes used at most {max(values):.2f} cores during any row)."
    if not values or any(v is None for v in values):
        return ("Under load or not measured (a row without the CPU of other processes), "
                "to be rerun idle.")
    return f"Under load (other processes used up to {max(values):.2f} cores), to be rerun idle."
