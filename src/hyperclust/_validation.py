"""Parameter checks shared by the estimators and objectives: one line, naming the parameter."""

from __future__ import annotations

import numbers

import numpy as np

__all__ = ["is_int", "check_int", "check_fraction", "check_nonnegative"]


def is_int(value) -> bool:
    """Whether ``value`` is an integer (Python or numpy), booleans excluded.

    Examples
    --------
    >>> is_int(3), is_int(True), is_int(2.0)
    (True, False, False)
    """
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def check_int(value, name: str, minimum: int = 0, *, alternatives: str = "") -> int:
    """``value`` as an int ``>= minimum`` (booleans refused), else ``ValueError``;
    ``alternatives`` names other accepted values in the message.

    Examples
    --------
    >>> check_int(3, "n_hops")
    3
    """
    if not is_int(value) or value < minimum:
        what = {0: "a non-negative integer", 1: "a positive integer"}.get(
            minimum, f"an integer >= {minimum}")
        alt = f" or {alternatives}" if alternatives else ""
        raise ValueError(f"{name} must be {what}{alt}, got {value!r}")
    return int(value)


def check_fraction(value, name: str, *, lo_open: bool = False) -> float:
    """``value`` as a float in ``[0, 1]`` (``(0, 1]`` with ``lo_open``), else ``ValueError``.

    Examples
    --------
    >>> check_fraction(0.5, "beta")
    0.5
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value) \
            or not 0.0 <= value <= 1.0 or (lo_open and value == 0.0):
        raise ValueError(f"{name} must be a float in {'(' if lo_open else '['}0, 1], "
                         f"got {value!r}")
    return float(value)


def check_nonnegative(value, name: str) -> float:
    """``value`` as a finite float ``>= 0`` (booleans refused), else ``ValueError``.

    Examples
    --------
    >>> check_nonnegative(1e-3, "lr")
    0.001
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value) \
            or value < 0:
        raise ValueError(f"{name} must be a non-negative number, got {value!r}")
    return float(value)
