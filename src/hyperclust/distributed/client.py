"""Which Dask cluster runs the work: a given client, a scheduler address or a local cluster."""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import re

__all__ = ["resolve_client", "parse_scheduler", "check_scheduler", "fail_when_stalled",
           "WorkersStalled", "CONNECT_TIMEOUT", "STALL_TIMEOUT"]

INSTALL_HINT = 'the distributed methods need Dask: pip install "hyperclust[distributed]"'


def require(module: str = "distributed"):
    """Import ``module`` (``"dask"`` or ``"distributed"``), or raise ImportError with the hint."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise ImportError(INSTALL_HINT) from None

_LOCAL = re.compile(r"^local(?::(\d+))?$")

#: Seconds a scheduler address has to answer Dask's handshake and an ``identity`` call.
CONNECT_TIMEOUT = 10.0


def parse_scheduler(scheduler: str):
    """``("local", n_workers)`` for ``"local"``/``"local:N"``, else ``("address", scheduler)``.

    Examples
    --------
    >>> parse_scheduler("local:2"), parse_scheduler("tcp://10.0.0.5:8786")
    (('local', 2), ('address', 'tcp://10.0.0.5:8786'))
    """
    if not isinstance(scheduler, str) or not scheduler.strip():
        raise ValueError(f"scheduler must be 'local:N' or a scheduler address, got {scheduler!r}")
    m = _LOCAL.match(scheduler.strip())
    if m:
        n = int(m.group(1)) if m.group(1) else 2
        if n < 1:
            raise ValueError(f"local:N needs N >= 1 workers, got {scheduler!r}")
        return "local", n
    return "address", scheduler.strip()


async def _identity(address, timeout):
    from distributed.comm import connect

    comm = await connect(address, timeout=timeout)
    try:
        await comm.write({"op": "identity", "reply": True})
        return await comm.read()
    finally:
        comm.abort()


def check_scheduler(address: str, timeout: float | None = None) -> None:
    """Raise ``ConnectionError`` unless a Dask scheduler answers at ``address`` within ``timeout``.

    The handshake runs under a hard deadline: ``Client(address, timeout=...)`` can hang on a
    server that is not a scheduler.

    Examples
    --------
    >>> import socket
    >>> with socket.socket() as s:  # a port nobody listens on
    ...     s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]
    >>> check_scheduler(f"tcp://127.0.0.1:{port}", timeout=2)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ConnectionError: no Dask scheduler answered at tcp://127.0.0.1:...
    """
    require("distributed")
    timeout = CONNECT_TIMEOUT if timeout is None else float(timeout)
    hint = ("; is it the address a Dask scheduler prints, e.g. tcp://host:8786, and is the "
            "scheduler running?")
    try:
        reply = asyncio.run(asyncio.wait_for(_identity(address, timeout), timeout))
    except asyncio.TimeoutError:
        raise ConnectionError(f"no Dask scheduler answered at {address} within "
                              f"{timeout:g} s{hint}") from None
    except (MemoryError, ValueError, TypeError, KeyError, OverflowError):
        # a reply that is not Dask's framing read as one (e.g. a length of exabytes)
        raise ConnectionError(f"{address} does not speak Dask's protocol{hint}") from None
    except Exception as exc:  # noqa: BLE001 - whatever the other end did, one line
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ConnectionError(f"no Dask scheduler answered at {address} ({reason}){hint}") \
            from None
    if not isinstance(reply, dict) or reply.get("type") != "Scheduler":
        kind = reply.get("type") if isinstance(reply, dict) else type(reply).__name__
        raise ConnectionError(f"{address} is not a Dask scheduler (it answers as {kind}); "
                              "pass the scheduler's address, not a worker's")


@contextlib.contextmanager
def resolve_client(client=None, n_workers: int = 2):
    """Yield a ``dask.distributed.Client``; stalled workers raise :class:`WorkersStalled`.

    Parameters
    ----------
    client : dask.distributed.Client, str or None
        A client (used as is, left open), a scheduler address, ``"local"``/``"local:N"``,
        or None (a ``LocalCluster`` of ``n_workers`` one-thread processes, closed on exit).
    n_workers : int, default 2

    Examples
    --------
    A given client is yielded as is and stays open:

    >>> import distributed
    >>> with distributed.Client(processes=False, n_workers=1, dashboard_address=":0") as c:
    ...     with resolve_client(c) as same:
    ...         print(same is c, same.submit(sum, [1, 2]).result())
    ...     print(c.status)
    True 3
    running
    >>> with resolve_client(42):
    ...     pass
    Traceback (most recent call last):
    TypeError: client must be a dask.distributed.Client, a scheduler address or None, got int
    """
    distributed = require("distributed")
    if isinstance(client, distributed.Client):
        with fail_when_stalled(client):
            yield client
        return
    if client is not None and not isinstance(client, str):
        raise TypeError(f"client must be a dask.distributed.Client, a scheduler address or "
                        f"None, got {type(client).__name__}")
    kind, value = parse_scheduler(client) if isinstance(client, str) else ("local", n_workers)
    if kind == "address":
        check_scheduler(value)
        try:
            c = distributed.Client(value, timeout=f"{CONNECT_TIMEOUT:g}s")  # after the probe
        except OSError as exc:
            raise ConnectionError(f"cannot reach the Dask scheduler at {value}: {exc}") from None
        with c, fail_when_stalled(c):
            yield c
        return
    with distributed.LocalCluster(n_workers=value, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as c, fail_when_stalled(c):
        yield c


#: Seconds with no running worker (all paused for memory, or none left) before a run stops.
STALL_TIMEOUT = 60.0


class WorkersStalled(RuntimeError):
    """No Dask worker could run tasks for :data:`STALL_TIMEOUT` seconds.

    Examples
    --------
    >>> isinstance(WorkersStalled("every worker paused for memory"), RuntimeError)
    True
    """


def _any_added(dask_scheduler):
    return any(n > 0 for _, n in getattr(dask_scheduler, "total_nthreads_history", ()))


def _workers_ever_added(client) -> bool:
    try:
        return bool(client.run_on_scheduler(_any_added))
    except Exception:  # noqa: BLE001 - a scheduler without the record: polls decide
        return False


def _running_workers(client) -> tuple[set, int]:
    workers = client.scheduler_info(n_workers=-1)["workers"]
    return {a for a, w in workers.items() if w.get("status") == "running"}, len(workers)


@contextlib.contextmanager
def fail_when_stalled(client, seconds: float | None = None, poll: float = 1.0):
    """Raise :class:`WorkersStalled` when no worker has been running for ``seconds`` in the block.

    All paused (memory), all gone, or restarting again and again. A watcher thread polls the
    scheduler and cancels this client's futures on a stall.

    Examples
    --------
    A worker that pauses at its first memory check (at 1% of a 1 GiB limit):

    >>> import time, dask, distributed
    >>> paused = dask.config.set({"distributed.worker.memory.pause": 0.01})
    >>> with paused, distributed.LocalCluster(n_workers=1, processes=False, memory_limit="1GiB",
    ...                                       dashboard_address=":0") as cluster:
    ...     time.sleep(1)
    ...     with distributed.Client(cluster) as c, fail_when_stalled(c, seconds=1, poll=0.2):
    ...         c.submit(sum, [1, 2]).result()  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    hyperclust.distributed.client.WorkersStalled: no Dask worker could run tasks for 1 s: all 1 workers paused ...
    """
    import threading
    import time

    seconds = STALL_TIMEOUT if seconds is None else float(seconds)
    stop, stalled = threading.Event(), []

    def watch():
        since, seen, up, left_at = time.monotonic(), False, {}, None
        while not stop.wait(poll):
            try:
                running, total = _running_workers(client)
            except Exception:  # noqa: BLE001 - the client is closing: nothing to watch
                return
            now = time.monotonic()
            if any(a not in running for a in up):
                left_at = now
            up = {a: up.get(a, now) for a in running}
            # a nanny restarting a worker over its memory limit re-registers it every second
            # or so: while workers leave, only a worker up for half the window counts
            churn = left_at is not None and now - left_at < seconds
            alive = any(now - t >= seconds / 2 for t in up.values()) if churn else bool(up)
            # no worker yet is not a stall: a batch-queue cluster may wait for its workers;
            # a worker restarted every fraction of a second may be missed by every poll, so
            # the scheduler's own record of workers added counts too
            seen = seen or total > 0 or _workers_ever_added(client)
            if alive or not seen:
                since = now
            elif now - since >= seconds:
                stalled.append((total, churn))
                from distributed import Future

                client.cancel([Future(key, client) for key in list(client.futures)],
                              force=True)
                return

    thread = threading.Thread(target=watch, name="hyperclust-stall-watch", daemon=True)
    thread.start()
    try:
        yield client
    except Exception:
        if stalled:
            raise _stall_error(*stalled[0], seconds) from None
        raise
    finally:
        stop.set()
        # bounded: a watcher blocked in a scheduler call while the workers restart must not
        # hold up the error the block raised (it is a daemon thread and ends at its next poll)
        thread.join(timeout=10 * poll)
    if stalled:
        raise _stall_error(*stalled[0], seconds)


def _stall_error(total, churn, seconds):
    why = ("workers restarted again and again (each over 95% of its memory limit)" if churn
           else f"all {total} workers paused (each at 80% of its memory limit)" if total
           else "no worker left")
    return WorkersStalled(f"no Dask worker could run tasks for {seconds:g} s: {why}; give "
                          "the workers more memory (dask worker --memory-limit) or use "
                          "smaller row blocks (hyperclust partition --block-size)")
