"""Marks on benchmark rows made by code older than their method's current code; in a git
checkout the checkout's ``benchmarks/staleness.py`` judges, elsewhere only rows without a
commit are marked.
"""

from __future__ import annotations

import importlib.util
import sys
from collections import Counter, defaultdict

from .provenance import package_root
from .tables import markdown_row, markdown_table

__all__ = ["STALE", "UNKNOWN", "MARK", "group_marks", "checkout_marks", "fresh_rows_table",
           "provenance_section"]

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
        ``{group: {"mark", "runs": {status: count}, "commits": {(commit, status): count},
        "touched"}}``; a group is STALE when one of its runs is, else UNKNOWN when one is.

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
    """:func:`group_marks` of ``runs`` as the checkout's tool judges them, else by recorded commit.

    Examples
    --------
    >>> runs = [{"dataset": "zoo", "protocol": "all", "method": "kmeans", "seed": 0}]
    >>> checkout_marks(runs)[("zoo", "all", "kmeans")]["mark"]
    'unknown provenance'
    """
    tool = _checkout_tool()
    if tool is not None:
        return tool.provenance_marks(runs)
    return group_marks(runs, lambda r: None if r.get("commit") else UNKNOWN)


_FRESH = "current"
_AGE_TEXT = {_FRESH: "fresh (current code)", STALE: f"older: stale{MARK[STALE]}",
             UNKNOWN: f"older: unknown provenance{MARK[UNKNOWN]}"}


def _run_age(run, marks) -> str:
    entry = (marks or {}).get((run["dataset"], run["protocol"], run["method"]))
    if entry is None:
        return _FRESH if run.get("commit") else UNKNOWN
    for (commit, status) in entry.get("commits", ()):
        if commit == (run.get("commit") or None):
            return status
    return entry["mark"] or _FRESH


def _minute(stamp) -> str:
    return str(stamp).replace("T", " ")[:16]


def fresh_rows_table(runs, marks, methods) -> list[str]:
    """The report header's table of fresh rows: per (age, commit) the runs, when and of which methods.

    Examples
    --------
    >>> runs = [{"dataset": "zoo", "protocol": "all", "method": "kmeans", "commit": "abc"},
    ...         {"dataset": "zoo", "protocol": "all", "method": "hgnn"}]
    >>> lines = fresh_rows_table(runs, {}, ["kmeans", "hgnn"])
    >>> lines[0][:27], lines[-1].split(" | ")[:3]
    ('**Fresh rows: 1 of 2 runs**', ['| older: unknown provenance ‡', 'none recorded', '1'])
    """
    groups = {}
    for r in runs:
        key = (_run_age(r, marks), r.get("commit") or None)
        g = groups.setdefault(key, {"n": 0, "methods": Counter(), "done": [], "dirty": False})
        g["n"] += 1
        g["methods"][r["method"]] += 1
        g["dirty"] |= bool(r.get("dirty"))
        if r.get("finished_at"):
            g["done"].append(str(r["finished_at"]))
    fresh = sum(g["n"] for (age, _), g in groups.items() if age == _FRESH)
    order = {_FRESH: 0, STALE: 1, UNKNOWN: 2}
    L = [f"**Fresh rows: {fresh} of {len(runs)} runs** were made by the current code of their "
         "method (a commit at or after the method's last change); the other "
         f"{len(runs) - fresh} are older and their cells are marked (†, ‡; see Provenance "
         "at the end). Rerun rows replace the older rows of the same dataset, protocol, "
         "method and seed; the rest are kept as they were.", ""]
    L += markdown_table(["rows", "made by commit", "runs", "finished (UTC)", "methods (runs)"],
                        [])
    for (age, commit), g in sorted(groups.items(),
                                   key=lambda t: (order.get(t[0][0], 3), -t[1]["n"])):
        made = f"`{commit[:10]}`" + ("+dirty" if g["dirty"] else "") if commit \
            else "none recorded"
        done = f"{_minute(min(g['done']))} – {_minute(max(g['done']))}" if g["done"] else ""
        made_of = ", ".join(f"`{m}` {g['methods'][m]}" for m in methods if m in g["methods"])
        L.append(markdown_row([_AGE_TEXT.get(age, age), made, str(g["n"]), done, made_of]))
    return L


def provenance_section(marks) -> list[str]:
    """The report's Provenance section: what † and ‡ mean, the marked groups per method.

    Examples
    --------
    >>> provenance_section({})[-1]
    'Every group of runs is current.'
    """
    bad = {k: v for k, v in marks.items() if v["mark"]}
    L = ["## Provenance", "",
         "Every run records the commit (and dirty flag) of the code that made it, its thread "
         "count and the load average at its start. † **stale**: made by a commit older than "
         "the last commit that touched the method's code (its estimator's module and the "
         "hyperclust modules it imports, transitively; the benchmark machinery, readers, "
         "datasets, CLI and thread policy excluded); ‡ **unknown provenance**: no commit "
         "recorded (runs from before provenance was recorded) or one unknown to this "
         "repository. Marked cells may not reflect the current code: rerun them.", ""]
    if not bad:
        return L + ["Every group of runs is current."]
    L += ["| method | mark | groups | runs by status | method code last changed in | "
          "dataset / protocol |", "|---|---|---|---|---|---|"]
    by = defaultdict(list)
    for (d, p, m), v in bad.items():
        by[(m, v["mark"])].append(((d, p), v))
    for (m, mark), items in sorted(by.items()):
        runs = Counter()
        for _, v in items:
            runs.update(v["runs"])
        where = sorted(f"{d} / {p}" for (d, p), _ in items)
        shown = ", ".join(where[:12]) + (f", … ({len(where) - 12} more)" if len(where) > 12 else "")
        touched = sorted({(v["touched"] or "")[:10] for _, v in items} - {""})
        L.append(f"| `{m}` | {mark}{MARK[mark]} | {len(items)} | "
                 f"{', '.join(f'{k}: {n}' for k, n in sorted(runs.items()))} | "
                 f"{', '.join(touched)} | {shown} |")
    return L
