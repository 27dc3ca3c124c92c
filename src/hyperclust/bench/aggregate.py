"""The one aggregation of benchmark rows: groups in order of first appearance, mean and std over seeds."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np

__all__ = ["mean_std", "group_rows", "summarize", "aggregate", "METRICS", "is_peer"]

#: The clustering scores a grid run records (``run["metrics"][name]``).
METRICS = ("acc", "nmi", "ari", "f1")


def is_peer(method: str) -> bool:
    """Peer libraries' methods are named ``peer-<library>``.

    Examples
    --------
    >>> is_peer("peer-xgi"), is_peer("spectral-zhou")
    (True, False)
    """
    return method.startswith("peer-")


def mean_std(values, ddof: int = 1):
    """``(mean, std)`` of the finite values; ``(None, None)`` for none, std 0.0 for one.

    ``ddof``: 1 (sample std, every table's default) or 0 (population std).

    Examples
    --------
    >>> [round(x, 4) for x in mean_std([0.5, 0.7, None])]
    [0.6, 0.1414]
    >>> [round(x, 4) for x in mean_std([0.5, 0.7], ddof=0)]
    [0.6, 0.1]
    """
    a = np.asarray([v for v in values if v is not None and math.isfinite(v)], dtype=float)
    if a.size == 0:
        return None, None
    return float(a.mean()), float(a.std(ddof=ddof)) if a.size > 1 else 0.0


def group_rows(rows, by) -> dict:
    """``{tuple of the by fields: [row, ...]}`` in the order keys first appear.

    Examples
    --------
    >>> rows = [{"d": "a", "seed": 0}, {"d": "b", "seed": 0}, {"d": "a", "seed": 1}]
    >>> {k: [r["seed"] for r in v] for k, v in group_rows(rows, ("d",)).items()}
    {('a',): [0, 1], ('b',): [0]}
    """
    out: dict = {}
    for r in rows:
        out.setdefault(tuple(r.get(f) for f in by), []).append(r)
    return out


def summarize(rows, by, values, ddof: int = 1) -> list[dict]:
    """One dict per group of ``by`` fields: the fields, ``n``, and ``<value>``/``<value>_std`` of each value.

    Examples
    --------
    >>> rows = [{"method": "a", "seed": s, "acc": 0.5 + 0.1 * s} for s in range(3)]
    >>> s = summarize(rows, ("method",), ("acc",))[0]
    >>> s["method"], s["n"], round(s["acc"], 3), round(s["acc_std"], 3)
    ('a', 3, 0.6, 0.1)
    """
    out = []
    for key, sel in group_rows(rows, by).items():
        s = dict(zip(by, key), n=len(sel))
        for v in values:
            s[v], s[v + "_std"] = mean_std([r.get(v) for r in sel], ddof=ddof)
        out.append(s)
    return out


def aggregate(runs) -> dict:
    """``{(dataset, protocol, method): summary}`` of grid records.

    A summary holds ``n_runs``, ``n_ok``, ``statuses``, ``<metric>``/``<metric>_std`` (ok runs),
    ``time``/``time_std``, ``peak_mb``, ``extra_mb``, data statistics, ``timing_only`` and the
    first ``error``.

    Examples
    --------
    >>> runs = [{"dataset": "zoo", "protocol": "all", "method": "kmeans", "seed": s,
    ...          "status": "ok", "metrics": {"acc": a}, "fit_time_s": 1.0}
    ...         for s, a in enumerate((0.5, 0.7))]
    >>> s = aggregate(runs)[("zoo", "all", "kmeans")]
    >>> s["n_ok"], round(s["acc"], 2), round(s["acc_std"], 3), s["nmi"]
    (2, 0.6, 0.141, None)
    """
    out = {}
    for key, recs in group_rows(runs, ("dataset", "protocol", "method")).items():
        ok = [r for r in recs if r.get("status") == "ok"]
        s = {"n_runs": len(recs), "n_ok": len(ok),
             "statuses": Counter(r.get("status", "failed") for r in recs)}
        for m in METRICS:
            s[m], s[m + "_std"] = mean_std(
                [r["metrics"][m] for r in ok if r.get("metrics") and m in r["metrics"]])
        s["time"], s["time_std"] = mean_std([r.get("fit_time_s") for r in ok])
        s["peak_mb"], _ = mean_std([r.get("peak_rss_mb") for r in ok])
        s["extra_mb"], _ = mean_std([r.get("fit_extra_mb") for r in ok])
        stats_src = ok or [r for r in recs if r.get("n_nodes") is not None]
        for f in ("n_nodes", "n_edges", "nnz", "homophily", "n_labelled"):
            s[f] = next((r.get(f) for r in stats_src if r.get(f) is not None), None)
        s["timing_only"] = bool(ok) and all(r.get("timing_only") for r in ok)
        bad = [r for r in recs if r.get("status") != "ok"]
        s["error"] = bad[0].get("error") if bad else None
        out[key] = s
    return out
