"""Marks on benchmark rows made by code older than their method's current code.

A row records the commit that made it (:mod:`hyperclust.bench.provenance`). Judging whether
that commit is older than the method's last code change needs the git history of a
checkout, which is development tooling and not part of the package: in a git checkout of
hyperclust, ``benchmarks/staleness.py`` judges (:func:`checkout_marks` loads it); elsewhere
only rows without a recorded commit are marked (of unknown provenance).
"""

from __future__ import annotations

import importlib.util
import sys
from collections import Counter

from .provenance import package_root

__all__ = ["STALE", "UNKNOWN", "MARK", "group_marks", "checkout_marks"]

STALE = "stale"
UNKNOWN = "unknown provenance"
#: How the report marks a cell of each kind.
MARK = {STALE: " †", UNKNOWN: " ‡"}
#: The checkout's tool that judges rows against the git history.
_TOOL = "staleness.py"


def group_marks(runs, status, touched=lambda method: None) -> dict:
    """The marks of each ``(dataset, protocol, method)`` group of runs.

    Parameters
    ----------
    runs : iterable of dict
        Records with ``dataset, protocol, method`` and optionally ``commit``.
    status : callable
        ``status(run)``: STALE, UNKNOWN or None (current).
    touched : callable, optional
        ``touched(method)``: the last commit of the method's code, or None.

    Returns
    -------
    dict
        ``{(dataset, protocol, method): {"mark": STALE | UNKNOWN | None, "runs": {status:
        count}, "commits": {(commit, status): count}, "touched": commit or None}}``; a
        status is ``"current"``, STALE or UNKNOWN. A group is STALE when one of its runs is,
        else UNKNOWN when one is.

    Examples
    --------
    >>> runs = [{"dataset": "zoo", "protocol": "all", "method": "kmeans", "commit": c}
    ...         for c in ("abc", None)]
    >>> entry = group_marks(runs, lambda r: None if r["commit"] else UNKNOWN)[
    ...     ("zoo", "all", "kmeans")]
    >>> entry["mark"], dict(entry["runs"])
    ('unknown provenance', {'current': 1, 'unknown provenance': 1})
    """
    out = {}
    for r in runs:
        key = (r["dataset"], r["protocol"], r["method"])
        st = status(r)
        entry = out.setdefault(key, {"mark": None, "runs": Counter(), "commits": Counter(),
                                     "touched": None})
        entry["runs"][st or "current"] += 1
        entry["commits"][(r.get("commit") or None, st or "current")] += 1
        entry["touched"] = touched(r["method"])
        if st == STALE or (st == UNKNOWN and entry["mark"] is None):
            entry["mark"] = st
    return out


def _checkout_tool():
    """The checkout's ``benchmarks/staleness.py`` as a module, or None outside a checkout."""
    path = package_root().parents[1] / "benchmarks" / _TOOL
    name = "_hyperclust_checkout_staleness"
    if name in sys.modules:
        return sys.modules[name]
    if not path.is_file():
        return None
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def checkout_marks(runs) -> dict:
    """:func:`group_marks` of ``runs``: judged against the git history by the checkout's
    ``benchmarks/staleness.py`` when hyperclust runs from its git checkout, else only rows
    without a commit are marked UNKNOWN.

    Examples
    --------
    Rows without a commit are of unknown provenance:

    >>> runs = [{"dataset": "zoo", "protocol": "all", "method": "kmeans", "seed": 0}]
    >>> checkout_marks(runs)[("zoo", "all", "kmeans")]["mark"]
    'unknown provenance'
    """
    tool = _checkout_tool()
    if tool is not None:
        return tool.provenance_marks(runs)
    return group_marks(runs, lambda r: None if r.get("commit") else UNKNOWN)
