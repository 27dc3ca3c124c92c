"""Row blocks handed on as the task that makes them (:func:`defer`), run inside the task that
reads them (:func:`resolve`) or made tasks (:func:`materialize`): one task a block fewer.
"""

from __future__ import annotations

from ._tasks import RETRIES

__all__ = ["defer", "is_deferred", "resolve", "materialize"]

_KEY = "deferred block"


def defer(fn, *args) -> dict:
    """``fn(*args)``, not run (a dict: Dask resolves the futures inside it).

    Examples
    --------
    >>> import numpy as np
    >>> block = defer(np.multiply, np.arange(3.0), 2.0)
    >>> is_deferred(block), resolve(block).tolist()
    (True, [0.0, 2.0, 4.0])
    """
    return {_KEY: [fn, *args]}


def is_deferred(X) -> bool:
    """Whether ``X`` is a block made by :func:`defer` (not yet run).

    Examples
    --------
    >>> import numpy as np
    >>> is_deferred(defer(np.zeros, 2)), is_deferred(np.zeros(2))
    (True, False)
    """
    return isinstance(X, dict) and _KEY in X


def resolve(X):
    """``X``'s block: run a deferred one, return any other as it is.

    Examples
    --------
    >>> import numpy as np
    >>> resolve(defer(np.add, np.ones(2), 1.0)).tolist(), resolve(np.zeros(1)).tolist()
    ([2.0, 2.0], [0.0])
    """
    if not is_deferred(X):
        return X
    fn, *args = X[_KEY]
    return fn(*args)


def materialize(client, blocks) -> list:
    """The blocks as futures: deferred ones submitted as tasks, the others as they are.

    Examples
    --------
    >>> import distributed
    >>> import numpy as np
    >>> with distributed.Client(processes=False, n_workers=1, dashboard_address=":0") as c:
    ...     x = c.scatter(np.ones(2))
    ...     blocks = materialize(c, [defer(np.add, x, 1.0), x])
    ...     [b.result().tolist() for b in blocks]
    [[2.0, 2.0], [1.0, 1.0]]
    """
    return [client.submit(resolve, X, retries=RETRIES, pure=False) if is_deferred(X) else X
            for X in blocks]
