"""Run one function over many argument tuples, on a Dask client or in this process."""

from __future__ import annotations

__all__ = ["run_tasks", "RETRIES"]

#: Times a task that raised is resubmitted (a worker lost mid-task is rescheduled by the
#: scheduler anyway, up to ``distributed.scheduler.allowed-failures``).
RETRIES = 2


def run_tasks(client, fn, arg_tuples, *, gather=True):
    """``[fn(*args) for args in arg_tuples]``, as Dask tasks when ``client`` is given.

    With a client and ``gather=False`` the futures are returned instead of the results.
    """
    arg_tuples = list(arg_tuples)
    if client is None:
        return [fn(*args) for args in arg_tuples]
    futures = [client.submit(fn, *args, pure=False, retries=RETRIES) for args in arg_tuples]
    return client.gather(futures) if gather else futures
