"""PNG plots of benchmark records (matplotlib's Agg canvas; pyplot is never imported, so the
caller's backend is left alone)."""

from __future__ import annotations

import math
import re
from collections import defaultdict
from pathlib import Path

import numpy as np

from .data import SYNTHETIC_PATTERN
from .aggregate import aggregate, is_peer

__all__ = ["write_plots", "loglog_slope", "sweep_family"]

_HSBM = re.compile(r"^(?P<family>hsbm-[a-z]+)-(?P<h>\d*\.?\d+)$")


def _figure(n_panels, ncols=4, size=(3.6, 2.8)):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    ncols = max(1, min(ncols, n_panels))
    nrows = math.ceil(n_panels / ncols)
    fig = Figure(figsize=(size[0] * ncols, size[1] * nrows), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
    for ax in axes[n_panels:]:
        ax.set_visible(False)
    return fig, axes


def loglog_slope(x, y):
    """Least-squares slope of log10(y) against log10(x) (None with < 2 positive points).

    Examples
    --------
    >>> round(loglog_slope([1e3, 1e4, 1e5], [1.0, 10.0, 100.0]), 6)
    1.0
    """
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    ok = (x > 0) & (y > 0) & np.isfinite(x) & np.isfinite(y)
    if np.unique(x[ok]).size < 2:
        return None
    return float(np.polyfit(np.log10(x[ok]), np.log10(y[ok]), 1)[0])


def sweep_family(dataset: str):
    """``("synthetic", 0.3)`` for ``synthetic-h0.3``, ``("hsbm-node", 0.3)`` for
    ``hsbm-node-0.3``; None for datasets outside a homophily sweep.

    Examples
    --------
    >>> sweep_family("synthetic-h0.3-n2000"), sweep_family("cora-ca")
    (('synthetic-n2000', 0.3), None)
    """
    m = SYNTHETIC_PATTERN.match(dataset)
    if m:
        rest = "".join(f"-{c}{m[c]}" for c in "nks" if m[c] is not None)
        return ("synthetic" + rest, float(m["h"]))
    m = _HSBM.match(dataset)
    return (m["family"], float(m["h"])) if m else None


def _colors(methods):
    from matplotlib import colormaps

    cmap = colormaps["tab10" if len(methods) <= 10 else "tab20"]
    return {m: cmap(i % cmap.N) for i, m in enumerate(methods)}


def _quality_plot(agg, protocol, datasets, methods, colors, path, metric="acc"):
    rows = [d for d in datasets
            if any((agg.get((d, protocol, m)) or {}).get(metric) is not None for m in methods)]
    if not rows:
        return None
    fig, axes = _figure(len(rows))
    for ax, d in zip(axes, rows):
        xs, hs, es, cs, names = [], [], [], [], []
        for i, m in enumerate(methods):
            s = agg.get((d, protocol, m))
            if s is None or s[metric] is None:
                continue
            xs.append(len(xs))
            hs.append(s[metric])
            es.append(s[metric + "_std"])
            cs.append(colors[m])
            names.append(m)
        ax.bar(xs, hs, yerr=es, color=cs, capsize=3)
        ax.set_xticks(xs, names, rotation=45, ha="right", fontsize=7)
        ax.set_ylim(0, 1)
        ax.set_title(d, fontsize=9)
        ax.set_ylabel(metric.upper(), fontsize=8)
    fig.suptitle(f"{metric.upper()} (mean ± std over seeds), protocol {protocol}")
    fig.savefig(path, dpi=80)
    return path


def _sweep_plot(agg, methods, colors, path):
    series = defaultdict(list)  # (family, protocol, method) -> [(homophily, mean, std)]
    for (d, p, m), s in agg.items():
        fam = sweep_family(d)
        if fam is None or s["acc"] is None:
            continue
        h = s["homophily"] if s["homophily"] is not None else fam[1]
        series[(fam[0], p, m)].append((h, s["acc"], s["acc_std"]))
    panels = sorted({(f, p) for f, p, _ in series})
    if not panels:
        return None
    fig, axes = _figure(len(panels), ncols=3, size=(4.5, 3.4))
    for ax, (fam, p) in zip(axes, panels):
        for m in methods:
            pts = sorted(series.get((fam, p, m), []))
            if not pts:
                continue
            h, y, e = map(np.asarray, zip(*pts))
            ax.errorbar(h, y, yerr=e, marker="o", ms=3, capsize=2, label=m, color=colors[m])
        ax.set_xlabel("measured pairwise homophily", fontsize=8)
        ax.set_ylabel("ACC", fontsize=8)
        ax.set_title(f"{fam} ({p})", fontsize=9)
        ax.legend(fontsize=6)
    fig.savefig(path, dpi=80)
    return path


def _filter_plot(runs, path):
    curves = defaultdict(list)
    lams = {}
    for r in runs:
        if r.get("status") == "ok" and r.get("filter_response"):
            key = (r["dataset"], r["protocol"], r["method"])
            curves[key].append(r["filter_response"])
            lams[key] = r["filter_lambdas"]
    if not curves:
        return None
    panels = sorted({(d, p) for d, p, _ in curves})
    fig, axes = _figure(len(panels))
    for ax, (d, p) in zip(axes, panels):
        for (dd, pp, m), ys in sorted(curves.items()):
            if (dd, pp) != (d, p):
                continue
            lam = np.asarray(lams[(dd, pp, m)])
            for y in ys:
                ax.plot(lam, y, lw=0.6, alpha=0.35, color="C0")
            ax.plot(lam, np.mean(np.asarray(ys, dtype=float), axis=0), lw=1.8, color="C3",
                    label=f"{m} (mean of {len(ys)})")
        ax.axhline(0, color="k", lw=0.5)
        ax.set_xlabel("lambda (eigenvalue of I - P)", fontsize=8)
        ax.set_ylabel("g(lambda)", fontsize=8)
        ax.set_title(f"{d} ({p})", fontsize=9)
        ax.legend(fontsize=6)
    fig.suptitle("Learned spectral filter responses (one thin line per seed)")
    fig.savefig(path, dpi=80)
    return path


def _scaling_plot(agg, methods, colors, path):
    protocol = "all" if any(k[1] == "all" for k in agg) else next(iter(agg))[1]
    fig, axes = _figure(2, ncols=2, size=(5.0, 3.8))
    drawn = False
    for ax, field, label in ((axes[0], "time", "fit time (s)"),
                             (axes[1], "peak_mb", "peak RSS of the run (MiB)")):
        for m in methods:
            pts = sorted((s["nnz"], s[field]) for (d, p, mm), s in agg.items()
                         if mm == m and p == protocol and s[field] is not None and s["nnz"])
            if len(pts) < 2:
                continue
            x, y = map(np.asarray, zip(*pts))
            slope = loglog_slope(x, y)
            ax.loglog(x, y, marker="o", ms=3, lw=0.8, color=colors[m],
                      label=f"{m} (slope {slope:.2f})" if slope is not None else m)
            drawn = True
        ax.set_xlabel("nnz(H) of the dataset", fontsize=8)
        ax.set_ylabel(label, fontsize=8)
        ax.legend(fontsize=6)
    if not drawn:
        return None
    fig.suptitle(f"Cost vs hypergraph size across datasets (protocol {protocol}); "
                 "slopes are log-log least-squares fits")
    fig.savefig(path, dpi=80)
    return path


def write_plots(runs, out_dir) -> list[Path]:
    """Write every plot the records support into ``out_dir``; returns the paths written.

    ``quality_<protocol>.png`` (ACC bars with std error bars per dataset),
    ``homophily_sweep.png`` (ACC vs measured pairwise homophily, one line per method),
    ``filters.png`` (learned g(lambda)), ``scaling.png`` (fit time and peak memory vs
    nnz(H), log-log, with fitted slopes).

    Examples
    --------
    >>> import tempfile
    >>> runs = [{"dataset": "toy", "protocol": "all", "method": "m", "seed": s, "status": "ok",
    ...          "metrics": {"acc": 0.8, "nmi": 0.5}, "fit_time_s": 1.0, "nnz": 10}
    ...         for s in range(2)]
    >>> [p.name for p in write_plots(runs, tempfile.mkdtemp())]
    ['quality_all.png']
    """
    runs = list(runs)
    if not runs:
        return []
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    agg = aggregate(runs)
    datasets = list(dict.fromkeys(r["dataset"] for r in runs))
    methods = list(dict.fromkeys(r["method"] for r in runs))
    methods = [m for m in methods if not is_peer(m)] + [m for m in methods if is_peer(m)]
    colors = _colors(methods)
    written = []
    for p in dict.fromkeys(r["protocol"] for r in runs):
        written.append(_quality_plot(agg, p, datasets, methods, colors, out / f"quality_{p}.png"))
    written.append(_sweep_plot(agg, methods, colors, out / "homophily_sweep.png"))
    written.append(_filter_plot(runs, out / "filters.png"))
    written.append(_scaling_plot(agg, methods, colors, out / "scaling.png"))
    return [p for p in written if p is not None]
