"""Node and hyperedge ids: the user's ids (ints or strings) against dense positions, and
the integer checks every constructor shares."""

from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp

__all__ = ["map_ids"]


def _frozen(a: np.ndarray) -> np.ndarray:
    a = np.asarray(a)
    a.flags.writeable = False
    return a


def _freeze_sparse(m: sp.csr_matrix) -> sp.csr_matrix:
    for arr in (m.data, m.indices, m.indptr):
        arr.flags.writeable = False
    return m


def _as_int_array(values, what: str) -> np.ndarray:
    arr = np.asarray(values)
    if arr.size == 0:
        return arr.astype(np.int64).reshape(-1)
    if arr.dtype == bool or not (
        np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)
    ):
        raise TypeError(f"{what} must be integers, got dtype {arr.dtype}")
    if np.issubdtype(arr.dtype, np.floating):
        bad = ~np.isfinite(arr) | (arr != np.round(arr))
        if bad.any():
            i = int(np.flatnonzero(bad.ravel())[0])
            raise TypeError(f"{what} must be integers; entry {i} is {arr.ravel()[i]!r}")
    return arr.astype(np.int64).reshape(-1)


def _all_integers(values: list) -> bool:
    """True when every value is an integer (or an integral float), i.e. a position."""
    if not values:
        return True
    arr = np.asarray(values) if all(not isinstance(v, (str, bytes)) for v in values[:64]) \
        else np.asarray(values, dtype=object)
    if arr.dtype == object:
        return all(isinstance(v, (numbers.Integral,)) and not isinstance(v, bool)
                   for v in values)
    return arr.dtype != bool and (np.issubdtype(arr.dtype, np.integer)
                                  or np.issubdtype(arr.dtype, np.floating))


def _check_positions(positions, count: int, what: str):
    """Validate positions given per item (``parent_positions``): ints, one per item; frozen
    int64, or None for None."""
    if positions is None:
        return None
    arr = _as_int_array(positions, what)
    if arr.shape[0] != count:
        raise ValueError(f"{what} has length {arr.shape[0]}, expected {count}")
    return _frozen(arr)


def _check_ids(ids, count: int, what: str):
    """Validate user ids: distinct, one per item, ints (int64) or strings (object array).

    Returns None for the default ``0..count-1`` (so that it costs nothing to store)."""
    if ids is None:
        return None
    arr = np.asarray(ids)
    if arr.ndim != 1:
        arr = np.asarray(list(ids), dtype=object) if arr.ndim > 1 else arr.reshape(-1)
    if arr.shape[0] != count:
        raise ValueError(f"{what} has length {arr.shape[0]}, expected {count}")
    if arr.dtype == bool:
        raise TypeError(f"{what} must be integers or strings, got booleans")
    if np.issubdtype(arr.dtype, np.integer):
        arr = arr.astype(np.int64)
        if np.array_equal(arr, np.arange(count)):
            return None
    elif np.issubdtype(arr.dtype, np.floating):
        arr = _as_int_array(arr, what)
    else:
        arr = np.array([x if isinstance(x, (int, np.integer)) and not isinstance(x, bool)
                        else str(x) for x in arr.tolist()], dtype=object)
    if count:
        uniq = np.unique(arr.astype(str) if arr.dtype == object else arr)
        if uniq.size != count:
            _, first = np.unique(arr.astype(str) if arr.dtype == object else arr,
                                 return_index=True)
            dup = np.setdiff1d(np.arange(count), first)[0]
            raise ValueError(f"{what} must be distinct; {arr.tolist()[dup]!r} occurs more than "
                             "once")
    return _frozen(arr)


def map_ids(values, ids=None, what: str = "node id"):
    """Map arbitrary hashable ids to a dense index.

    Parameters
    ----------
    values : sequence of hashable, shape (n_entries,)
        Ids as they occur (e.g. the flattened members of every hyperedge).
    ids : sequence, optional
        The full id list, defining the index order. Default: the distinct ``values``, sorted
        when they are all integers, else in order of first appearance.

    Returns
    -------
    index : ndarray of int64, shape (n_entries,)
        Position of each value in ``ids``.
    ids : ndarray, shape (n_ids,)
        int64 when every id is an integer, else an object array of strings.

    Examples
    --------
    >>> index, ids = map_ids(["bo", "ana", "bo", "cy"])
    >>> index.tolist(), ids.tolist()
    ([0, 1, 0, 2], ['bo', 'ana', 'cy'])
    >>> map_ids([30, 10], ids=[10, 20, 30])[0].tolist()
    [2, 0]
    """
    vals = np.asarray(values) if not isinstance(values, np.ndarray) else values
    if vals.dtype == object or vals.dtype.kind in "USb":
        vals = np.asarray([v.decode() if isinstance(v, bytes) else v for v in vals.tolist()],
                          dtype=object)
        if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in vals):
            vals = vals.astype(np.int64)
    if ids is None:
        if vals.dtype != object and np.issubdtype(vals.dtype, np.integer):
            ids, index = np.unique(vals, return_inverse=True)
            return index.reshape(-1).astype(np.int64), ids.astype(np.int64)
        keys = np.array([str(v) for v in vals.tolist()], dtype=object)
        uniq, first, inverse = np.unique(keys.astype(str), return_index=True, return_inverse=True)
        order = np.argsort(first, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        return rank[inverse.reshape(-1)].astype(np.int64), keys[first[order]]
    ids = np.asarray(ids)
    if ids.dtype != object and np.issubdtype(ids.dtype, np.integer) and \
            vals.dtype != object and np.issubdtype(vals.dtype, np.integer):
        order = np.argsort(ids, kind="stable")
        sorted_ids = ids[order]
        pos = np.searchsorted(sorted_ids, vals)
        pos = np.minimum(pos, max(sorted_ids.size - 1, 0))
        ok = sorted_ids[pos] == vals if sorted_ids.size else np.zeros(vals.shape, bool)
        if not ok.all():
            bad = vals[np.flatnonzero(~ok)[0]].item()
            raise ValueError(f"{what} {bad!r} is not among the {ids.size} given ids")
        return order[pos].astype(np.int64), ids.astype(np.int64)
    lookup = {str(k): i for i, k in enumerate(ids.tolist())}
    if len(lookup) != ids.size:
        raise ValueError(f"the given {what}s are not distinct")
    try:
        index = np.fromiter((lookup[str(v)] for v in vals.tolist()), dtype=np.int64,
                            count=vals.size)
    except KeyError as exc:
        raise ValueError(f"{what} {exc.args[0]!r} is not among the {ids.size} given ids") \
            from None
    return index, ids
