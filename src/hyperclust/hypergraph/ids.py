"""Node and hyperedge ids: the user's ids (ints or strings) against dense positions, and
the integer checks every constructor shares."""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp

from .._validation import is_int

__all__ = ["map_ids", "check_text_distinct"]


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
        return all(is_int(v) for v in values)
    return arr.dtype != bool and (np.issubdtype(arr.dtype, np.integer)
                                  or np.issubdtype(arr.dtype, np.floating))


def check_text_distinct(values, what: str = "node id") -> None:
    """Refuse ids that differ but read the same as text (``1`` and ``"1"``): one id in every file.

    Examples
    --------
    >>> check_text_distinct([1, "a", 2, "a"])
    >>> check_text_distinct([1, "1", 2])
    Traceback (most recent call last):
    ...
    ValueError: node ids 1 (int) and '1' (str) are the same id as text; make the ids all ints or all strings
    """
    vals = values.tolist() if isinstance(values, np.ndarray) else list(values)
    is_str = np.fromiter((isinstance(v, str) for v in vals), dtype=bool, count=len(vals))
    if is_str.all() or not is_str.any():
        return
    _, inverse = np.unique(np.asarray([str(v) for v in vals], dtype=str), return_inverse=True)
    inverse = inverse.reshape(-1)
    n_str, count = np.bincount(inverse, weights=is_str), np.bincount(inverse)
    bad = np.flatnonzero((n_str > 0) & (n_str < count))
    if bad.size:
        rows = np.flatnonzero(inverse == bad[0])
        a, b = vals[rows[~is_str[rows]][0]], vals[rows[is_str[rows]][0]]
        raise ValueError(f"{what}s {a!r} ({type(a).__name__}) and {b!r} (str) are the same id "
                         "as text; make the ids all ints or all strings")


def _check_positions(positions, count: int, what: str):
    """Positions per item (``parent_positions``) as frozen int64, or None."""
    if positions is None:
        return None
    arr = _as_int_array(positions, what)
    if arr.shape[0] != count:
        raise ValueError(f"{what} has length {arr.shape[0]}, expected {count}")
    return _frozen(arr)


def _check_ids(ids, count: int, what: str):
    """User ids, distinct, one per item, int64 or strings (object); None for ``0..count-1``."""
    if ids is None:
        return None
    arr = np.asarray(ids)
    if arr.dtype.kind == "U" and not isinstance(ids, np.ndarray):  # [1, "1"]: keep the 1
        arr = np.asarray(list(ids), dtype=object)
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
        check_text_distinct(arr, what.rstrip("s").replace("_", " "))
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
    """Map hashable ids to a dense index: ``(index of each value, ids)``.

    ``ids`` defaults to the distinct ``values``, sorted when all integers, else in order of first
    appearance; returned as int64, or an object array of ints and strings (other values as their
    ``str``, with a warning).

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
        listed = vals.tolist()
        other = next((v for v in listed if not is_int(v) and not isinstance(v, str)), None)
        if other is not None:
            warnings.warn(f"{what}s must be ints or strings: ids such as {other!r} "
                          f"({type(other).__name__}) are kept as their str, {str(other)!r}",
                          UserWarning, stacklevel=4)
        check_text_distinct(listed, what)
        keys = np.array([str(v) for v in listed], dtype=object)
        uniq, first, inverse = np.unique(keys.astype(str), return_index=True, return_inverse=True)
        order = np.argsort(first, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        kept = np.array([int(v) if is_int(v) else str(v) for v in vals[first[order]].tolist()],
                        dtype=object)
        return rank[inverse.reshape(-1)].astype(np.int64), kept
    if not isinstance(ids, np.ndarray):  # numpy would make [1, "1"] two strings
        ids = list(ids)
        ids = np.asarray(ids) if all(map(is_int, ids)) else np.asarray(ids, dtype=object)
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
    check_text_distinct(ids, what)
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
