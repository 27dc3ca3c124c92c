"""Markdown report of benchmark records: quality tables (mean ± std over seeds, best in
bold) beside published numbers, time and memory, peer comparison, and every failure."""

from __future__ import annotations

import csv
import datetime as _dt
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

from .aggregate import METRICS, aggregate, is_peer
from .marks import MARK, STALE, UNKNOWN, checkout_marks, fresh_rows_table, provenance_section
from .tables import fmt_mean_std as _fmt
from .tables import markdown_row, markdown_table

# aggregate, is_peer, METRICS and the marks are re-exported: this module was their home
# before the harness gave each its own.
__all__ = ["load_published", "markdown_report", "write_report", "aggregate", "METRICS",
           "is_peer", "STALE", "UNKNOWN"]

_CSV_METRIC = {"acc": "acc", "nmi": "nmi", "ari": "ari", "f1": "f1_macro"}
_PROTOCOL_TEXT = {
    "all": "all nodes (isolated nodes included)",
    "isolated-removed": "isolated nodes removed (nodes in at least one hyperedge)",
    "lcc": "largest connected component only",
}


def load_published(path) -> list[dict]:
    """Rows of the published-results CSV; ``[]`` when ``path`` is None or missing.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "published.csv"
    >>> _ = path.write_text("source,protocol,dataset,method,acc,nmi,ari,f1_macro,note\\n"
    ...                     "PaperA,all nodes,zoo,AHCKA,0.9,0.8,0.7,0.6,\\n")
    >>> [(r["dataset"], r["acc"]) for r in load_published(path)], load_published(None)
    ([('zoo', '0.9')], [])
    """
    if path is None or not Path(path).exists():
        return []
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def _published_protocol(text: str):
    t = (text or "").lower()
    if t.startswith("all nodes"):
        return "all"
    if t.startswith("isolated removed"):
        return "isolated-removed"
    return None


def _source_key(row):
    return (row["source"], row["protocol"], row.get("note") or "")


def _sources(published) -> dict:
    """``{(source, protocol, note): footnote number}`` in order of appearance."""
    return {k: i + 1 for i, k in enumerate(dict.fromkeys(_source_key(p) for p in published))}


def _status_text(s) -> str:
    common = [k for k, _ in s["statuses"].most_common() if k != "ok"]
    return "/".join(common) if common else "—"


def _cell(s, metric, best):
    if s is None:
        return ""
    if s[metric] is None:
        return "n/a (no labels)" if s["timing_only"] else f"*{_status_text(s)}*"
    txt = _fmt(s[metric], s[metric + "_std"])
    if best is not None and abs(s[metric] - best) <= 1e-12:
        txt = f"**{txt}**"
    if s["n_ok"] < s["n_runs"]:
        txt += f" ({s['n_ok']}/{s['n_runs']} ok)"
    return txt


def _ordered(values, first=()):
    seen = list(dict.fromkeys(values))
    return [v for v in first if v in seen] + [v for v in seen if v not in first]


def _marked(text, marks, key):
    mark = (marks or {}).get(key, {}).get("mark")
    return text + MARK[mark] if mark and text else text


def _quality_table(agg, protocol, metric, datasets, methods, published, marks=None) -> list[str]:
    rows = []
    pub_cols = bool(published) and any(_published_protocol(p["protocol"]) == protocol
                                       for p in published)
    sources = _sources(published or [])
    head = ["dataset", "nodes"] + [f"`{m}`" for m in methods]
    if pub_cols:
        head.append(f"published ({protocol})")
    rows += markdown_table(head, [])
    any_row = False
    for d in datasets:
        cells = {m: agg.get((d, protocol, m)) for m in methods}
        if all(c is None for c in cells.values()):
            continue
        means = [c[metric] for c in cells.values() if c is not None and c[metric] is not None]
        if not means:
            continue  # timing-only dataset: shown in the time table
        any_row = True
        best = max(means)
        n = next((c["n_nodes"] for c in cells.values() if c and c["n_nodes"]), "")
        line = [d, str(n)] + [_marked(_cell(cells[m], metric, best), marks, (d, protocol, m))
                              for m in methods]
        if pub_cols:
            col = _CSV_METRIC[metric]
            pubs = [f"{p['method']} {float(p[col]):.3f} [{sources[_source_key(p)]}]"
                    for p in published
                    if p["dataset"] == d and _published_protocol(p["protocol"]) == protocol
                    and p.get(col)]
            line.append("; ".join(pubs))
        rows.append(markdown_row(line))
    return rows if any_row else []


def _time_table(agg, protocol, datasets, methods, marks=None) -> list[str]:
    head = ["dataset", "nodes", "nnz(H)"] + [f"`{m}`" for m in methods]
    rows = markdown_table(head, [])
    for d in datasets:
        cells = {m: agg.get((d, protocol, m)) for m in methods}
        if all(c is None for c in cells.values()):
            continue
        ref = next((c for c in cells.values() if c and c["n_nodes"]), None)
        line = [d, str(ref["n_nodes"]) if ref else "", str(ref["nnz"]) if ref else ""]
        for m in methods:
            c = cells[m]
            if c is None:
                line.append("")
            elif c["time"] is None:
                line.append(f"*{_status_text(c)}*")
            else:
                extra = "" if c["extra_mb"] is None else f", +{c['extra_mb']:.0f} MiB"
                line.append(_marked(f"{c['time']:.2f} s (peak {c['peak_mb']:.0f} MiB{extra})",
                                    marks, (d, protocol, m)))
        rows.append(markdown_row(line))
    return rows


def _ratio(a, b):
    if a is None or b is None or b == 0:
        return ""
    return f"{a / b:.2f}"


def _peer_table(agg, datasets, ours, peers) -> list[str]:
    head = ["dataset", "subset (protocol)", "nodes", "peer", "peer status", "peer ACC",
            "peer NMI", "ours (best by ACC)", "ours ACC", "ours NMI", "NMI ratio peer/ours",
            "peer time s", "ours time s", "time ratio peer/ours"]
    rows = markdown_table(head, [])
    protocols = _ordered([k[1] for k in agg], first=("isolated-removed", "lcc", "all"))
    for d in datasets:
        for p in protocols:
            mine = [(m, agg[(d, p, m)]) for m in ours if (d, p, m) in agg]
            mine_ok = [(m, s) for m, s in mine if s["n_ok"]]
            for peer in peers:
                s = agg.get((d, p, peer))
                if s is None:
                    continue
                ref_m, ref = None, None
                if mine_ok:
                    ref_m, ref = max(mine_ok, key=lambda t: (t[1]["acc"] if t[1]["acc"] is not None
                                                             else -t[1]["time"]))
                stat = "ok" if s["n_ok"] == s["n_runs"] else (
                    f"{s['n_ok']}/{s['n_runs']} ok; {_status_text(s)}")
                rows.append(markdown_row([
                    d, p, str(s["n_nodes"] or (ref["n_nodes"] if ref else "")), f"`{peer}`", stat,
                    _fmt(s["acc"], s["acc_std"]), _fmt(s["nmi"], s["nmi_std"]),
                    f"`{ref_m}`" if ref_m else "(no ok run of ours)",
                    _fmt(ref["acc"], ref["acc_std"]) if ref else "",
                    _fmt(ref["nmi"], ref["nmi_std"]) if ref else "",
                    _ratio(s["nmi"], ref["nmi"] if ref else None),
                    "" if s["time"] is None else f"{s['time']:.2f}",
                    "" if not ref or ref["time"] is None else f"{ref['time']:.2f}",
                    _ratio(s["time"], ref["time"] if ref else None)]))
    return rows if len(rows) > 2 else []


def _focus_cells(s) -> list[str]:
    """ACC and NMI cells of one method in the headline (its status when it has no score)."""
    if s is None:
        return ["not run", ""]
    if s["acc"] is None:
        return [f"*{_status_text(s)}*", ""]
    return [_fmt(s["acc"], s["acc_std"]),
            _fmt(s["nmi"], s["nmi_std"]) if s["nmi"] is not None else ""]


def _headline(agg, protocol, datasets, ours, published, focus=("auto", "unidhc")) -> list[str]:
    """Per dataset: our best method by mean ACC, the ``focus`` methods (the default `auto`
    and Uni-DHC), the best peer, and the best published ACC/NMI under the same protocol."""
    peers = sorted({k[2] for k in agg if is_peer(k[2]) and k[1] == protocol})
    head = (["dataset", "nodes", "our best (ACC)", "ACC", "NMI"]
            + [f"`{f}` {metric}" for f in focus for metric in ("ACC", "NMI")]
            + ["best peer ACC", "published ACC", "published NMI"])
    rows = markdown_table(head, [])
    sources = _sources(published or [])
    for d in datasets:
        mine = [(m, agg[(d, protocol, m)]) for m in ours if (d, protocol, m) in agg]
        mine = [(m, s) for m, s in mine if s["acc"] is not None]
        if not mine:
            continue
        m, s = max(mine, key=lambda t: t[1]["acc"])
        pe = [(p, agg[(d, protocol, p)]) for p in peers if (d, protocol, p) in agg
              and agg[(d, protocol, p)]["acc"] is not None]
        pb = max(pe, key=lambda t: t[1]["acc"]) if pe else None

        def best_pub(col):
            vals = [(float(p[col]), p) for p in published or []
                    if p["dataset"] == d and _published_protocol(p["protocol"]) == protocol
                    and p.get(col)]
            if not vals:
                return ""
            v, p = max(vals, key=lambda t: t[0])
            return f"{v:.3f} ({p['method']} [{sources[_source_key(p)]}])"

        rows.append(markdown_row(
            [d, str(s["n_nodes"]), f"`{m}`", _fmt(s["acc"], s["acc_std"]),
             _fmt(s["nmi"], s["nmi_std"])]
            + [c for f in focus for c in _focus_cells(agg.get((d, protocol, f)))]
            + [f"{pb[1]['acc']:.3f} (`{pb[0]}`)" if pb else "", best_pub("acc"),
               best_pub("nmi")]))
    return rows if len(rows) > 2 else []


def _failure_table(runs) -> list[str]:
    groups = defaultdict(list)
    for r in runs:
        if r.get("status") != "ok":
            groups[(r["dataset"], r["protocol"], r["method"], r.get("status"))].append(r)
    if not groups:
        return []
    rows = ["| dataset | protocol | method | status | runs | first error |", "|---|---|---|---|---|---|"]
    for (d, p, m, st), recs in sorted(groups.items()):
        err = (recs[0].get("error") or "").replace("|", "\\|").replace("\n", " ")
        if len(err) > 300:
            err = err[:300] + "…"
        rows.append(f"| {d} | {p} | `{m}` | {st} | {len(recs)} | {err} |")
    return rows


def _header(runs, datasets, methods) -> list[str]:
    """The report's title and the paragraph saying what was run and how to read it."""
    status = Counter(r.get("status") for r in runs)
    seeds = sorted({int(r["seed"]) for r in runs})
    caps = sorted({(r.get("time_limit_s"), r.get("memory_limit_mb"), r.get("threads")) for r in runs},
                  key=repr)
    L = ["# hyperclust benchmark report", "",
         f"Generated {_dt.datetime.now(_dt.timezone.utc).isoformat(timespec='seconds')} from "
         f"{len(runs)} runs ({', '.join(f'{k}: {v}' for k, v in status.most_common())}); "
         f"seeds {seeds}; {len(datasets)} datasets; methods "
         + ", ".join(f"`{m}`" for m in methods) + ".", "",
         "Each run is a separate process with a wall-clock cap and an address-space cap "
         "(time cap s, memory cap MiB, threads): "
         + "; ".join(f"{t}, {m}, {th}" for t, m, th in caps) + ". "
         "Cells are mean ± sample std over the seeds whose run finished; "
         "`(3/5 ok)` says how many did. The best mean of each row is **bold** (ours and "
         "peers alike). Failed runs show their status in italics; errors are listed at the end. "
         "Labels are used only to score: no label influences training, model selection or "
         "hyperparameters. n_clusters = number of label classes of the scored nodes.", ""]
    return L


def _headline_sections(agg, protocols, datasets, ours, published) -> list[str]:
    """One headline table per protocol (see :func:`_headline`)."""
    L = []
    for p in protocols:
        rows = _headline(agg, p, datasets, ours, published)
        if rows:
            L += [f"## Headline — protocol `{p}`", "",
                  "Our best method per dataset (by mean ACC over seeds), the API default "
                  "`auto`, Uni-DHC, the best peer on the same nodes and the best published "
                  "number under this protocol "
                  "(see the footnotes below the detailed tables).", ""] + rows + [""]
    return L


def _published_sources(published) -> list[str]:
    """The numbered sources and protocols of the published numbers (nothing without)."""
    if not published:
        return []
    L = ["Published numbers (the `[n]` after each) are quoted from these sources and "
         "protocols; a number is shown only under the protocol it was measured with:", ""]
    for (src, prot, note), i in _sources(published).items():
        L.append(f"{i}. {src}: {prot}" + (f" — **{note}**" if note else ""))
    return L + [""]


def _peer_section(agg, datasets, ours, peers) -> list[str]:
    """Each peer against our best method on the same nodes (nothing without peers)."""
    rows = _peer_table(agg, datasets, ours, peers) if peers else []
    if not rows:
        return []
    return ["## Peer libraries vs ours on the same subset", "",
            "Each row compares a peer with our best method (by mean ACC) on exactly the "
            "same nodes: `isolated-removed` = nodes in some hyperedge, `lcc` = largest "
            "connected component. Ratios > 1 in time mean the peer is slower.", ""] + rows + [""]


def _learned_filters_section(runs) -> list[str]:
    """The mean learned filter coefficients per group (runs storing ``filter_response``)."""
    filt = [r for r in runs if r.get("filter_response")]
    if not filt:
        return []
    L = ["## Learned filters", "",
         "Runs of estimators exposing `spectral_response` store g(lambda) in "
         "`results.json` (see the filter plot).", ""]
    by = defaultdict(list)
    for r in filt:
        if r.get("coefficients") is not None:
            by[(r["dataset"], r["protocol"], r["method"])].append(r["coefficients"])
    for (d, p, m), coefs in sorted(by.items()):
        try:
            mean = np.mean(np.asarray(coefs, dtype=float), axis=0)
            L.append(f"- {d} / {p} / `{m}`: mean coefficients "
                     + ", ".join(f"{c:+.3f}" for c in np.ravel(mean)))
        except (ValueError, TypeError):
            continue
    return L + [""]


def markdown_report(runs, published=None, plot_files=(), published_note=None,
                    provenance=None) -> str:
    """The report as markdown text.

    Parameters
    ----------
    runs : list of dict
        Records as written by the runner.
    published : list of dict or None
        Rows from :func:`load_published`; None omits the published column.
    plot_files : sequence of str
        PNG file names (relative to the report) to embed.
    published_note : str, optional
        Why published numbers are missing.
    provenance : dict, optional
        From :func:`~hyperclust.bench.marks.group_marks` (default
        :func:`~hyperclust.bench.marks.checkout_marks`): marked groups get † / ‡.

    Examples
    --------
    >>> runs = [{"dataset": "zoo", "protocol": "all", "method": "kmeans", "seed": s,
    ...          "status": "ok", "metrics": {"acc": a, "nmi": a}, "fit_time_s": 0.1,
    ...          "peak_rss_mb": 100.0, "n_nodes": 101, "nnz": 1656, "commit": None}
    ...         for s, a in enumerate((0.5, 0.7))]
    >>> text = markdown_report(runs, provenance={})
    >>> acc = text.split("## ACC")[1]
    >>> next(line for line in acc.splitlines() if line.startswith("| zoo"))
    '| zoo | 101 | **0.600 ± 0.141** |'
    """
    runs = list(runs)
    marks = checkout_marks(runs) if provenance is None else provenance
    agg = aggregate(runs)
    datasets = _ordered(r["dataset"] for r in runs)
    from ..cluster.registry import METHODS

    # Registry order (the default `auto` first, peers last), whatever order the rows came in.
    all_methods = _ordered((r["method"] for r in runs), first=tuple(METHODS))
    ours = [m for m in all_methods if not is_peer(m)]
    peers = [m for m in all_methods if is_peer(m)]
    protocols = _ordered((r["protocol"] for r in runs), first=("all", "isolated-removed", "lcc"))
    L = _header(runs, datasets, all_methods)
    L += fresh_rows_table(runs, marks, all_methods) + [""]
    L += ["Protocols: " + "; ".join(f"`{p}` = {_PROTOCOL_TEXT.get(p, p)}" for p in protocols) + ".", ""]
    if published is None:
        L += [f"Published numbers: not shown ({published_note or 'no CSV given'}).", ""]
    L += _headline_sections(agg, protocols, datasets, ours, published)

    def used(p):
        return [m for m in all_methods if any(k[1] == p and k[2] == m for k in agg)]

    for p in protocols:
        for metric in METRICS:
            rows = _quality_table(agg, p, metric, datasets, used(p), published, marks)
            if rows:
                L += [f"## {metric.upper()} — protocol `{p}`", ""] + rows + [""]
    L += _published_sources(published)
    for p in protocols:
        L += [f"## Fit time and memory — protocol `{p}`", "",
              "Mean fit time over finished runs, mean peak RSS of the run's process (data "
              "loading included) and mean RSS growth during `fit` (sampled).", ""]
        L += _time_table(agg, p, datasets, used(p), marks) + [""]
    L += _peer_section(agg, datasets, ours, peers) + _learned_filters_section(runs)
    if plot_files:
        L += ["## Plots", ""] + [f"![{f}]({f})" for f in plot_files] + [""]
    L += provenance_section(marks) + [""]
    fails = _failure_table(runs)
    L += ["## Runs that did not finish", ""]
    L += fails if fails else ["None."]
    L.append("")
    return "\n".join(L)


def write_report(runs, out_dir, published=None, plots=True) -> Path:
    """Write ``report.md`` (and the plots) into ``out_dir``; ``published``: the CSV's path or None.

    Examples
    --------
    >>> import tempfile
    >>> runs = [{"dataset": "zoo", "protocol": "all", "method": "kmeans", "seed": 0,
    ...          "status": "failed", "error": "boom"}]
    >>> write_report(runs, tempfile.mkdtemp(), plots=False).name
    'report.md'
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    plot_files = []
    if plots:
        from .plots import write_plots

        plot_files = [p.name for p in write_plots(runs, out)]
    note = None
    if published is None:
        pub = None
        note = "no published-results CSV given"
    elif not Path(published).exists():
        pub = None
        note = f"{published} not found"
    else:
        pub = load_published(published)
    path = out / "report.md"
    path.write_text(markdown_report(runs, pub, plot_files, note))
    return path
