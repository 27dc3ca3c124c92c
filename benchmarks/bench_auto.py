"""``auto`` against each candidate and against the oracle pick, on every labelled shared set.

Usage (after ``bench_pool.py`` and ``bench_objectives.py``)::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 python benchmarks/bench_auto.py
    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 python benchmarks/bench_auto.py --timing

The selection of ``auto`` is replayed from the cached candidate clusterings and their cached
objective values (``bench-out/scores.json``), for the default objective and for every
variant of ``benchmarks/_pool.py`` (the study of what separates candidates; no variant is
chosen per dataset). Oracle = the candidate with the best ACC in that setting (labels used
only here, to score). ``--timing`` fits ``AHCKA`` and ``AutoClusterer`` on cora-ca (5 seeds,
fresh estimators, after one warm-up fit) and prints the medians; ``--split-n-init none 3``
also times ``AutoClusterer(split_n_init=None)`` (every candidate's own k-means restarts on
the splits) and ``(split_n_init=3)``; ``--split-max-iter none`` times
``AutoClusterer(split_max_iter=None)`` (AHCKA's own 200 iterations on the splits);
``--race-margin 2`` times ``AutoClusterer(race_margin=2)`` (the former race margin).
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from hyperclust.bench import (fmt_mean_std, markdown_table, mean_std, run_seeds,
                              write_markdown)
from hyperclust.cluster.auto import CANDIDATES

try:
    from _pool import DATA, OUT, load_runs, load_scores
except ImportError:
    from benchmarks._pool import DATA, OUT, load_runs, load_scores

GOOD = 0.02
SELECTOR = "rwr-min"  # what AutoClusterer uses (balance="min")


def pick(cands, variant):
    """Lowest score, ties to the earlier candidate in CANDIDATES order."""
    usable = [c for c in cands if c["scores"][variant] is not None]
    if not usable:
        usable = cands
        variant = "rwr"
    return min(usable, key=lambda c: (c["scores"][variant], CANDIDATES.index(c["method"])))


def ms(values):
    """``mean ± std`` over seeds."""
    return fmt_mean_std(*mean_std(values))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--timing", action="store_true")
    ap.add_argument("--split-n-init", type=lambda v: None if v.lower() == "none" else int(v),
                    nargs="*", default=[],
                    help="with --timing: also time AutoClusterer(split_n_init=N) for each N "
                         "(an int or none)")
    ap.add_argument("--split-max-iter", type=lambda v: None if v.lower() == "none" else int(v),
                    nargs="*", default=[],
                    help="with --timing: also time AutoClusterer(split_max_iter=N) for each N")
    ap.add_argument("--race-margin", type=lambda v: None if v.lower() == "none" else float(v),
                    nargs="*", default=[],
                    help="with --timing: also time AutoClusterer(race_margin=M) for each M")
    args = ap.parse_args(argv)
    if args.timing:
        return timing(args.split_n_init, args.split_max_iter, args.race_margin)
    records = load_scores()
    runs = load_runs()
    settings = {}
    for r in records:
        if r["perturbed"] == 0.0:
            settings.setdefault((r["dataset"], r["seed"]), []).append(r)
    variants = list(records[0]["scores"])
    datasets = list(dict.fromkeys(d for d, _ in settings))

    # 1. the default objective: auto vs every candidate vs oracle, per dataset
    head = ["dataset", "auto ACC", "auto NMI", "picked", "oracle ACC", "best single (mean ACC)",
            "ahcka ACC", "ahcka NMI", "unidhc ACC", "within .02 of oracle"]
    cells, per_method = [], []
    for d in datasets:
        seeds = sorted(s for dd, s in settings if dd == d)
        autos, oracle, picks, within = [], [], [], 0
        by_method = {}
        for s in seeds:
            cands = [c for c in settings[(d, s)] if c["method"] in CANDIDATES]
            p = pick(cands, SELECTOR)
            best = max(c["acc"] for c in cands)
            autos.append((p["acc"], p["nmi"]))
            oracle.append(best)
            picks.append(p["method"])
            within += best - p["acc"] <= GOOD
            for c in settings[(d, s)]:
                by_method.setdefault(c["method"], []).append((c["acc"], c["nmi"]))
        a = np.array(autos)
        means = {m: np.mean([x[0] for x in v]) for m, v in by_method.items() if m in CANDIDATES}
        best_m = max(means, key=means.get)
        uni = by_method.get("unidhc")
        counts = {m: picks.count(m) for m in dict.fromkeys(picks)}
        cells.append([
            d, ms(a[:, 0]), ms(a[:, 1]),
            ", ".join(f"{m} x{c}" for m, c in counts.items()), ms(oracle),
            f"{best_m} {means[best_m]:.3f}",
            ms([x[0] for x in by_method["ahcka"]]), ms([x[1] for x in by_method["ahcka"]]),
            ms([x[0] for x in uni]) if uni else "", f"{within}/{len(seeds)}"])
        per_method.append([d] + [ms([x[0] for x in by_method[m]]) if m in by_method else ""
                                 for m in CANDIDATES + ("unidhc",)])

    # 2. every objective variant as the selector: share within .02 of the oracle, mean gap
    var_cells = []
    fixed = {f"always {m}": m for m in ("ahcka", "hgnn-mixed", "hgnn", "spectral-zhou")}
    for v in variants + list(fixed):
        gaps, gaps_a, gaps_s = [], [], []
        for (d, s), cs in settings.items():
            cands = [c for c in cs if c["method"] in CANDIDATES]
            if v in fixed:
                found = [c for c in cands if c["method"] == fixed[v]]
                if not found:
                    continue
                p = found[0]
            else:
                p = pick(cands, v)
            g = max(c["acc"] for c in cands) - p["acc"]
            gaps.append(g)
            (gaps_a if runs[(d, s)]["features"] else gaps_s).append(g)
        gaps = np.array(gaps)
        var_cells.append([v, f"{np.mean(gaps <= GOOD):.0%} ({np.sum(gaps <= GOOD)}/{gaps.size})",
                          f"{gaps.mean():.3f}", f"{np.mean(gaps_a):.3f}", f"{np.mean(gaps_s):.3f}"])

    # 3. times inside auto
    t_cells = []
    for d in datasets:
        rs = [runs[(dd, s)] for dd, s in runs if dd == d]
        med = lambda key: np.median([r["times"].get(key, np.nan) for r in rs])  # noqa: E731
        t_cells.append([d, f"{np.median([r['auto_time'] for r in rs]):.2f}", f"{med('knn'):.2f}",
                        *(f"{med(m):.2f}" if m in rs[0]["times"] else "" for m in CANDIDATES),
                        rs[0]["loadavg"][0]])
    lines = [
        f"## auto (selector {SELECTOR}) vs candidates and oracle (ACC/NMI mean ± std over 5 seeds)",
        *markdown_table(head, cells), "",
        "## Mean ACC of every candidate (and Uni-DHC, not a candidate)",
        *markdown_table(["dataset", *CANDIDATES, "unidhc"], per_method), "",
        "## Selector study: objective variant used to pick among the candidates",
        *markdown_table(["selector", "settings within .02 ACC of oracle", "mean ACC gap",
                         "mean gap, attributed", "mean gap, structure-only"], var_cells), "",
        "## Fit times inside auto (1 BLAS thread)",
        *markdown_table(["dataset", "auto fit (s, median)", "shared kNN (s)", *CANDIDATES,
                         "load avg"], t_cells)]
    print("\n".join(lines) + "\n")
    write_markdown(OUT / "auto_tables.md", lines)


def timing(split_n_inits=(), split_max_iters=(), race_margins=()):
    from functools import partial

    from hyperclust.cluster import AHCKA, AutoClusterer
    from hyperclust.datasets import load_dataset
    from hyperclust.metrics import evaluate

    hg = load_dataset("cora-ca", data_dir=str(DATA))
    k = hg.n_classes
    from hyperclust.bench.provenance import git_commit
    from hyperclust.runtime.threads import default_threads, input_work

    print(f"commit {git_commit().get('commit', '?')[:10]}, load average before: "
          f"{open('/proc/loadavg').read().split()[:3]}, "
          f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS')}, "
          f"HYPERCLUST_NUM_THREADS={os.environ.get('HYPERCLUST_NUM_THREADS')}, "
          f"threads of the policy for this input: {default_threads(input_work(hg))}")
    variants = {"AHCKA": AHCKA, "AutoClusterer": AutoClusterer,
                **{f"AutoClusterer(split_n_init={n})": partial(AutoClusterer, split_n_init=n)
                   for n in split_n_inits},
                **{f"AutoClusterer(split_max_iter={n})": partial(AutoClusterer, split_max_iter=n)
                   for n in split_max_iters},
                **{f"AutoClusterer(race_margin={m})": partial(AutoClusterer, race_margin=m)
                   for m in race_margins}}
    for name, cls in variants.items():
        cls(k).fit(hg)  # warm-up (imports, BLAS initialisation)

        def at_seed(seed):
            t0, c0 = time.perf_counter(), time.process_time()
            est = cls(k, random_state=seed).fit(hg)
            return {"fit_s": time.perf_counter() - t0, "cpu_s": time.process_time() - c0,
                    "picked": getattr(est, "selected_", ""), **evaluate(hg.labels, est.labels_)}

        res = run_seeds(at_seed, 5, settings={"method": name}, echo=False)
        ts, cs = [r["fit_s"] for r in res], [r["cpu_s"] for r in res]
        print(f"{name}: median {np.median(ts):.3f} s (min {min(ts):.3f}, max {max(ts):.3f}); "
              f"CPU median {np.median(cs):.3f} s (min {min(cs):.3f}); "
              f"ACC {ms([r['acc'] for r in res])}, NMI {ms([r['nmi'] for r in res])}"
              + (f"; picked {[r['picked'] for r in res]}" if res[0]["picked"] else ""))
    print(f"load average after: {open('/proc/loadavg').read().split()[:3]}")


if __name__ == "__main__":
    main()
