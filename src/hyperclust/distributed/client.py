"""Which Dask cluster runs the work: a given client, a scheduler address or a local cluster."""

from __future__ import annotations

import contextlib
import re

from ._deps import require

__all__ = ["resolve_client", "parse_scheduler"]

_LOCAL = re.compile(r"^local(?::(\d+))?$")


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
        try:
            c = distributed.Client(value, timeout="10s")
        except OSError as exc:
            raise ConnectionError(f"cannot reach the Dask scheduler at {value}: {exc}") from None
        with c:
            yield c
        return
    with distributed.LocalCluster(n_workers=value, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as c:
        yield c
