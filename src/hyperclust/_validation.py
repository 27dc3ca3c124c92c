"""Declarative parameter checks: one error line naming the parameter, its value and what is
allowed. An estimator's ``_parameter_constraints = {name: [constraint, ...]}`` accepts a
value when one constraint does: an :class:`Interval`, :class:`Options`, :class:`Check`, an
exact string, ``None``, or a type.
"""

from __future__ import annotations

import numbers

import numpy as np

__all__ = ["InvalidParameterError", "Interval", "Options", "Check", "RANDOM_STATE",
           "FINITE_ARRAY", "DEVICE", "check_parameter", "check_parameters", "is_int", "check_int",
           "check_fraction", "check_nonnegative"]


class InvalidParameterError(ValueError, TypeError):
    """A parameter value its constraints refuse (a ``ValueError`` and a ``TypeError``)."""


def is_int(value) -> bool:
    """Whether ``value`` is an integer (Python or numpy), booleans excluded.

    Examples
    --------
    >>> is_int(3), is_int(True), is_int(2.0)
    (True, False, False)
    """
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


class Check:
    """A constraint given by a predicate and the words describing what it accepts.

    Examples
    --------
    >>> even = Check(lambda v: is_int(v) and v % 2 == 0, "an even integer")
    >>> even.accepts(4), even.accepts(3), str(even)
    (True, False, 'an even integer')
    """

    def __init__(self, predicate, description: str):
        self.predicate, self.description = predicate, description

    def accepts(self, value) -> bool:
        return bool(self.predicate(value))

    def __str__(self):
        return self.description


class Interval(Check):
    """Integers (``kind=int``) or finite reals (``kind=float``) in ``[left, right]`` (None:
    unbounded), ``closed`` one of ``"both"``, ``"left"``, ``"right"``, ``"neither"``; no booleans.

    Examples
    --------
    >>> str(Interval(int, 1)), str(Interval(float, 0, 1, closed="left"))
    ('a positive integer', 'a float in [0, 1)')
    >>> Interval(float, 0).accepts(2), Interval(float, 0).accepts(float("nan"))
    (True, False)
    """

    def __init__(self, kind, left=None, right=None, *, closed="both"):
        if kind not in (int, float) or closed not in ("both", "left", "right", "neither"):
            raise ValueError(f"Interval takes int or float and a closed side, got {kind!r}, "
                             f"{closed!r}")
        self.kind, self.left, self.right, self.closed = kind, left, right, closed
        super().__init__(self._inside, self._describe())

    def _inside(self, value) -> bool:
        if isinstance(value, bool) or not isinstance(
                value, numbers.Integral if self.kind is int else numbers.Real):
            return False
        if self.kind is float and not np.isfinite(value):
            return False
        left_ok = self.left is None or value > self.left or (
            value == self.left and self.closed in ("both", "left"))
        right_ok = self.right is None or value < self.right or (
            value == self.right and self.closed in ("both", "right"))
        return bool(left_ok and right_ok)

    def _describe(self) -> str:
        noun = "integer" if self.kind is int else "float"
        closed_left = self.closed in ("both", "left")
        if self.right is None and self.left == 0:
            return f"a {'non-negative' if closed_left else 'positive'} {noun}"
        if self.right is None and self.left == 1 and self.kind is int and closed_left:
            return "a positive integer"
        if self.right is None and self.left is not None:
            return f"an {noun} {'>=' if closed_left else '>'} {self.left}" if noun == "integer" \
                else f"a float {'>=' if closed_left else '>'} {self.left}"
        if self.left is None and self.right is None:
            return f"{'an' if noun == 'integer' else 'a'} {noun}"
        lo = "-inf" if self.left is None else self.left
        return (f"{'an' if noun == 'integer' else 'a'} {noun} in {'[' if closed_left else '('}"
                f"{lo}, {self.right}{']' if self.closed in ('both', 'right') else ')'}")


class Options(Check):
    """One of some strings: a tuple, or a function returning it when checked.

    Examples
    --------
    >>> Options(("kmeans", "cpqr")).accepts("cpqr"), str(Options(("min", "mean")))
    (True, "one of ('min', 'mean')")
    """

    def __init__(self, options):
        self.options = options
        super().__init__(lambda value: isinstance(value, str) and value in self._current(), "")

    def _current(self) -> tuple:
        return tuple(self.options() if callable(self.options) else self.options)

    def __str__(self):
        return f"one of {self._current()}"


def _as_constraint(spec) -> Check:
    """A :class:`Check` from a table entry's item."""
    if isinstance(spec, Check):
        return spec
    if spec is None:
        return Check(lambda value: value is None, "None")
    if isinstance(spec, str):
        return Check(lambda value: isinstance(value, str) and value == spec, repr(spec))
    if spec is bool:
        return Check(lambda value: isinstance(value, (bool, np.bool_)), "True or False")
    if isinstance(spec, type):
        return Check(lambda value: isinstance(value, spec), f"a {spec.__name__}")
    raise TypeError(f"not a parameter constraint: {spec!r}")


#: ``random_state``: what :meth:`HypergraphClusterer._rng_seed` takes.
RANDOM_STATE = Check(
    lambda v: v is None or isinstance(v, (numbers.Integral, np.random.RandomState,
                                          np.random.Generator)),
    "None, an int, a numpy.random.RandomState or a numpy.random.Generator")


def _finite_array(value) -> bool:
    if isinstance(value, (str, bytes)):
        return False
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        return False
    return array.ndim == 1 and bool(np.all(np.isfinite(array)))


#: A one-dimensional sequence of finite numbers (e.g. filter coefficients).
FINITE_ARRAY = Check(_finite_array, "a finite 1-D array of numbers")


#: A torch device: its name (``"cpu"``, ``"cuda:0"``), a ``torch.device`` (matched by its
#: type's name: torch is optional and not imported to check) or None.
DEVICE = Check(lambda v: v is None or isinstance(v, str) or type(v).__name__ == "device",
               "a device name, a torch.device or None")


def _either(words: list) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def check_parameter(name: str, value, constraints):
    """``value`` when one of ``constraints`` accepts it, else :class:`InvalidParameterError`.

    Examples
    --------
    >>> check_parameter("n_init", "auto", [Interval(int, 1), "auto"])
    'auto'
    >>> check_parameter("tol", -1.0, ["auto", Interval(float, 0)])
    Traceback (most recent call last):
    ...
    hyperclust._validation.InvalidParameterError: tol must be 'auto' or a non-negative float, got -1.0
    """
    checks = [_as_constraint(spec) for spec in constraints]
    if not any(check.accepts(value) for check in checks):
        raise InvalidParameterError(
            f"{name} must be {_either([str(check) for check in checks])}, got {value!r}")
    return value


def check_parameters(constraints: dict, params: dict) -> None:
    """Check each parameter of ``params`` named in ``constraints``, in the table's order.

    Examples
    --------
    >>> table = {"beta": [Interval(float, 0, 1)], "knn_method": [Options(("exact", "auto"))]}
    >>> check_parameters(table, {"beta": 0.5, "knn_method": "lsh"})
    Traceback (most recent call last):
    ...
    hyperclust._validation.InvalidParameterError: knn_method must be one of ('exact', 'auto'), got 'lsh'
    """
    for name, allowed in constraints.items():
        if name in params:
            check_parameter(name, params[name], allowed)


def check_int(value, name: str, minimum: int = 0, *, alternatives: str = "") -> int:
    """``value`` as an int ``>= minimum`` (no booleans), else ``ValueError``.

    Examples
    --------
    >>> check_int(3, "n_hops")
    3
    """
    # the caller has handled the alternatives; they are only named in the message
    allowed = [Interval(int, minimum)] + ([Check(lambda v: False, alternatives)]
                                          if alternatives else [])
    return int(check_parameter(name, value, allowed))


def check_fraction(value, name: str, *, lo_open: bool = False) -> float:
    """``value`` as a float in ``[0, 1]`` (``(0, 1]`` with ``lo_open``), else ``ValueError``.

    Examples
    --------
    >>> check_fraction(0.5, "beta")
    0.5
    """
    return float(check_parameter(name, value,
                                 [Interval(float, 0, 1, closed="right" if lo_open else "both")]))


def check_nonnegative(value, name: str) -> float:
    """``value`` as a finite float ``>= 0`` (booleans refused), else ``ValueError``.

    Examples
    --------
    >>> check_nonnegative(1e-3, "lr")
    0.001
    """
    return float(check_parameter(name, value, [Interval(float, 0)]))
