"""Which Dask cluster runs the work: a given client, a scheduler address or a local cluster."""

from __future__ import annotations

import asyncio
import contextlib
import re

from ._deps import require

__all__ = ["resolve_client", "parse_scheduler", "check_scheduler", "CONNECT_TIMEOUT"]

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


def check_scheduler(address: str, timeout: float = CONNECT_TIMEOUT) -> None:
    """``ConnectionError`` (one line) unless a Dask scheduler answers at ``address`` within
    ``timeout`` seconds.

    ``distributed.Client(address, timeout=...)`` does not bound everything: a server that
    accepts the connection but is not a Dask scheduler (an HTTP server, a worker's port)
    can leave it waiting for minutes, or make it read a text reply as a frame length and
    report a memory error. The probe runs the handshake and one ``identity`` call under a
    hard deadline on its own event loop.

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
    """Yield a ``dask.distributed.Client``: ``client`` itself when given (left open), a
    client of the scheduler at that address when a string, else of a new
    ``LocalCluster(n_workers, threads_per_worker=1)`` (closed on exit).

    Parameters
    ----------
    client : dask.distributed.Client, str or None
        A client (used as is), a scheduler address, ``"local"``/``"local:N"``, or None (a
        local cluster of ``n_workers`` processes).
    n_workers : int, default 2
        Workers of the local cluster when ``client`` is None.

    Yields
    ------
    dask.distributed.Client

    Examples
    --------
    A given client is yielded as is and stays open:

    >>> import distributed
    >>> with distributed.Client(processes=False, n_workers=1, threads_per_worker=1,
    ...                         dashboard_address=":0") as c:
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
        yield client
        return
    if client is not None and not isinstance(client, str):
        raise TypeError(f"client must be a dask.distributed.Client, a scheduler address or "
                        f"None, got {type(client).__name__}")
    kind, value = parse_scheduler(client) if isinstance(client, str) else ("local", n_workers)
    if kind == "address":
        check_scheduler(value)
        try:
            c = distributed.Client(value, timeout=f"{CONNECT_TIMEOUT:g}s")
        except OSError as exc:
            raise ConnectionError(f"cannot reach the Dask scheduler at {value}: {exc}") from None
        with c:
            yield c
        return
    with distributed.LocalCluster(n_workers=value, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as c:
        yield c
