"""Run one function over many argument tuples, on a Dask client or in this process."""

from __future__ import annotations

__all__ = ["run_tasks", "RETRIES"]

#: Times a task that raised is resubmitted (a worker lost mid-task is rescheduled by the
#: scheduler anyway, up to ``distributed.scheduler.allowed-failures``).
RETRIES = 2


def run_tasks(client, fn, arg_tuples, *, gather=True, progress=False):
    """``[fn(*args) for args in arg_tuples]``, as Dask tasks when ``client`` is given.

    ``gather=False``: the futures; ``progress``: Dask's progress bar.
    """
    arg_tuples = list(arg_tuples)
    if client is None:
        return [fn(*args) for args in arg_tuples]
    futures = [client.submit(fn, *args, pure=False, retries=RETRIES) for args in arg_tuples]
    if progress:
        from distributed import progress as dask_progress

        dask_progress(futures)
    return client.gather(futures) if gather else futures
