"""Which label-free rule picks ``auto``'s candidate best? Fits once, replays every rule.

Usage::

    HYPERCLUST_NUM_THREADS=1 python benchmarks/studies/selection_rules.py fit cora-ca h=0.3 \\
        holdout:iris-knn5 [--seeds 5]
    python benchmarks/studies/selection_rules.py report cora-ca h=0.3 holdout:iris-knn5

``fit`` caches, per (set, seed), every candidate's labels fitted on the training part of
three hold-out splits (``AutoClusterer(n_splits=3).split_candidates_``) and on all the data
(what ``auto`` would refit), in ``bench-out/selection_rules/``. ``report`` replays the rules
of :data:`RULES` on the cache (labels only score the picks) and prints mean ACC / NMI per set
and rule, and each rule's gap to the best candidate's full fit. Set names: shared sets, the
synthetic sweep ``h=<h>`` (``hypergraph_sbm(2000, 4, h, 32 features, snr .35)``), or
``<pool>:<set>`` of ``bench_holdout.py``'s pools (sets never used to choose anything).
Results: docs/results/auto.md, "How the rule was chosen, and on what".
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from hyperclust.cluster.auto import AutoClusterer
from hyperclust.cluster.candidates import make_candidate
from hyperclust.cluster.hsbm_heldout import (heldout_error, heldout_errors, heldout_terms,
                                             paired_standard_errors, split_hypergraph)
from hyperclust.metrics import evaluate
from hyperclust.selection import rank_candidates, rank_rounds
from hyperclust.selection.race import race_survivors

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench_auto_heldout import _dataset  # noqa: E402

OUT = Path(__file__).resolve().parents[2] / "bench-out" / "selection_rules"


def load(name, seed):
    """The labelled hypergraph of a set name (see module)."""
    if ":" in name:
        from bench_holdout import pool_sets

        pool, set_name = name.split(":", 1)
        return dict(pool_sets(pool))[set_name]()
    return _dataset(name, seed)


def _path(name, seed, split_n_init=None, split_max_iter=None):
    """The cache file of (set, seed); split fits with ``split_n_init`` k-means restarts (and
    ``split_max_iter`` AHCKA iterations) in a subfolder of their own (the full fits are the
    same)."""
    folder = OUT if split_n_init is None else OUT / f"split_n_init{split_n_init}"
    if split_max_iter is not None:
        folder = folder.with_name(folder.name + f"_max_iter{split_max_iter}")
    return folder / f"{name.replace(':', '_').replace('=', '')}-s{seed}.npz"


def fit_capped(name, seed, split_n_init, split_max_iter):
    """Cache the split fits of ``AutoClusterer(split_n_init=..., split_max_iter=...)``: those
    of :func:`fit`'s cache for ``split_n_init``, the candidates that have a ``max_iter``
    refitted on every split with the cap (the others' fits do not change)."""
    path = _path(name, seed, split_n_init, split_max_iter)
    if path.exists():
        return
    fit(name, seed, split_n_init)
    out = dict(np.load(_path(name, seed, split_n_init)))
    hg = load(name, seed)
    settings = {"beta": float(out["beta"]), "n_neighbors": 10, "knn_method": "auto"}
    capped = [str(c) for c in out["names"]
              if "max_iter" in make_candidate(str(c), 2, seed, settings)[0].get_params()]
    # a second (cheap) candidate keeps every split fitted: alone, one would end the race
    est = AutoClusterer(int(out["k"]), candidates=capped + ["spectral-clique"],
                        beta=float(out["beta"]), n_splits=3, race=None, race_margin=None,
                        split_n_init=split_n_init, split_max_iter=split_max_iter,
                        random_state=seed).fit(hg)
    for r, labels in enumerate(est.split_candidates_):
        out.update({f"split{r}/{c}": labels[c] for c in capped})
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, **out)
    print(f"{name} seed {seed}: cached {capped} with max_iter {split_max_iter}", flush=True)


def fit(name, seed, split_n_init=None):
    """Cache the training fits of 3 splits (``AutoClusterer(split_n_init=...)``) and the full
    fits of every candidate (taken from the cache of ``split_n_init=None`` when there)."""
    path = _path(name, seed, split_n_init)
    if path.exists():
        return
    hg = load(name, seed)
    y = np.asarray(hg.labels)
    k = int(np.unique(y[y >= 0]).size)
    est = AutoClusterer(k, n_splits=3, race=None, race_margin=None, split_n_init=split_n_init,
                        split_max_iter=None, random_state=seed).fit(hg)
    out = {"y": y, "k": k, "beta": est.beta_, "names": np.array(list(est.scores_))}
    for r, labels in enumerate(est.split_candidates_):
        for c, lab in labels.items():
            out[f"split{r}/{c}"] = lab
    base = _path(name, seed)
    full = dict(np.load(base)) if split_n_init is not None and base.exists() else {}
    settings = {"beta": est.beta_, "n_neighbors": 10, "knn_method": "auto"}
    for c in est.scores_:
        out[f"full/{c}"] = full.get(f"full/{c}")
        if out[f"full/{c}"] is None:
            out[f"full/{c}"] = make_candidate(c, k, seed, settings)[0].fit(hg).labels_
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, **out)
    print(f"{name} seed {seed}: cached", flush=True)


def item_errors(split, labels):
    """``(edge terms, attribute terms)`` (:func:`heldout_terms`)."""
    t = heldout_terms(split, labels)
    return t["edges"], t["attributes"]


def _combined(split, terms):
    """The error and its per-view term arrays with their weights."""
    views = [(t, w) for t, w in zip(terms, (split.edge_coverage, split.attribute_coverage))
             if t is not None and w > 0]
    total = sum(w for _, w in views)
    return views, total


def paired_se(split, ta, tb):
    """Standard error of error(a) - error(b) on the same held-out items."""
    var = 0.0
    for (a, w), (b, _) in zip(_combined(split, ta)[0], _combined(split, tb)[0]):
        var += (w ** 2) * np.var(a - b) / a.size
    return np.sqrt(var) / max(_combined(split, ta)[1], 1e-12)


def _error(split, terms):
    views, total = _combined(split, terms)
    return sum(w * t.mean() for t, w in views) / total if views else 0.5


def _band(names, errs, terms, split, z):
    best = min(names, key=errs.get)
    return [c for c in names if errs[c] - errs[best] <= z * paired_se(split, terms[c], terms[best])]


def _medoid(names, labels):
    from sklearn.metrics import normalized_mutual_info_score as nmi

    if len(names) <= 2:
        return names[0]
    agree = {c: np.mean([nmi(labels[c], labels[o]) for o in names if o != c]) for c in names}
    return max(names, key=agree.get)


def picks(d, hg, seed):
    """``{rule: candidate}`` of every rule on one cached (set, seed)."""
    names = [str(c) for c in d["names"]]
    k = int(d["k"])
    splits = [split_hypergraph(hg, edge_share=0.1, random_state=seed + 7919 * r) for r in range(3)]
    lab = [{c: d[f"split{r}/{c}"] for c in names} for r in range(3)]
    terms = [{c: item_errors(splits[r], lab[r][c]) for c in names} for r in range(3)]
    errs = [{c: _error(splits[r], terms[r][c]) for c in names} for r in range(3)]
    for c in names:  # the replay scores as auto does
        assert abs(errs[0][c] - heldout_error(splits[0], lab[0][c])) < 1e-9, c
    ranked = lambda e, r=0: rank_candidates(lab[r], e, k)  # noqa: E731
    out = {f"{n} split{'s' if n > 1 else ''}": ranked(
        {c: float(np.mean([errs[r][c] for r in range(n)])) for c in names}).selected
        for n in (1, 2, 3)}
    usable = [c for c in ranked(errs[0]).order
              if not (ranked(errs[0]).n_found[c] < ranked(errs[0]).wanted
                      or ranked(errs[0]).degenerate[c])] or names
    for z in (1.0, 2.0):
        band = _band(usable, errs[0], terms[0], splits[0], z)
        out[f"band{z:g} table order"] = [c for c in names if c in band][0]
        out[f"band{z:g} medoid"] = _medoid([c for c in names if c in band], lab[0])
    for v, view in ((0, "edges only"), (1, "attributes only")):
        only = {c: float(terms[0][c][v].mean()) if terms[0][c][v] is not None else 0.5
                for c in names}
        out[view] = ranked(only).selected
    prec = [heldout_errors(splits[r], lab[r], "precision") for r in range(3)]
    for n in (1, 2, 3):
        out[f"precision-weighted {n}"] = ranked(
            {c: float(np.mean([prec[r][c] for r in range(n)])) for c in names}).selected
    # racing: every candidate on split 0, the best few also on splits 1 and 2
    for label in ("error", "precision"):
        first = ranked(errs[0] if label == "error" else prec[0]).order
        for top in (2, 3, 4):
            kept = [c for c in names if c in first[:top]]
            # as AutoClusterer(n_splits=3, race=top): later splits weigh over the survivors
            later = [errs[r] if label == "error" else heldout_errors(
                splits[r], {c: lab[r][c] for c in kept}, "precision") for r in (1, 2)]
            first_scores = errs[0] if label == "error" else prec[0]
            out[f"race top{top} {label}"] = rank_rounds(
                lab[0], [first_scores] + [{c: e[c] for c in kept} for e in later], k).selected
    for z in MARGINS:  # as AutoClusterer(race=4, race_margin=z)
        kept = margin_race(lab, prec[0], k, splits, z)
        later = [heldout_errors(splits[r], {c: lab[r][c] for c in kept}, "precision")
                 for r in (1, 2)] if len(kept) > 1 else []
        out[f"race top4 margin{z:g}"] = rank_rounds(lab[0], [prec[0]] + later, k).selected
        out[f"race top4 margin{z:g} seq"] = sequential_race(lab, prec[0], k, splits, z)[0]
        out[f"race top4 margin{z:g} splits"] = sequential_race(lab, prec[0], k, splits, z,
                                                               se="splits")[0]
    return out


def sequential_race(lab, first_scores, k, splits, z, top=4, se="items"):
    """``(pick, later fits)`` of :func:`margin_race` repeated after every split, as
    ``AutoClusterer(race=top, race_margin=z, race_se=se)``: the survivors' mean errors and
    :func:`~hyperclust.selection.race.race_survivors` decide who goes on."""
    kept = margin_race(lab, first_scores, k, splits, z, top, se)
    rounds, fits = [first_scores], 0
    for r in (1, 2):
        if len(kept) < 2:
            break
        rounds.append(heldout_errors(splits[r], {c: lab[r][c] for c in kept}, "precision"))
        fits += len(kept)
        lead = rank_rounds(lab[0], rounds, k).order[0]
        paired = [paired_standard_errors(splits[q], {c: lab[q][c] for c in kept}, lead,
                                         "precision") for q in range(len(rounds))]
        kept = list(race_survivors([{c: rd[c] for c in kept} for rd in rounds], paired, lead,
                                   z, se))
    return rank_rounds(lab[0], rounds, k).selected, fits


#: ``race_margin`` values replayed (paired standard errors behind the first split's best).
MARGINS = (1.0, 1.5, 2.0, 3.0)


def margin_race(lab, first_scores, k, splits, z, top=4, se="items"):
    """The candidates that go on past the first split with ``race=top, race_margin=z``."""
    ahead = rank_candidates(lab[0], first_scores, k).order[:top]
    paired = paired_standard_errors(splits[0], lab[0], ahead[0], "precision")
    kept = race_survivors([{c: first_scores[c] for c in ahead}], [paired], ahead[0], z, se)
    return [c for c in lab[0] if c in kept]


def report(sets, n_seeds, markdown=False, split_n_init=None, split_max_iter=None):
    """Print mean ACC / NMI of each rule's pick (full fit) and the best full fit per set."""
    rows = {}
    for name in sets:
        for seed in range(n_seeds):
            path = _path(name, seed, split_n_init, split_max_iter)
            if not path.exists():
                continue
            d = np.load(path)
            hg = load(name, seed)
            y = d["y"]
            full = {str(c): evaluate(y, d[f"full/{c}"]) for c in d["names"]}
            best = max(full, key=lambda c: full[c]["acc"])
            for rule, c in picks(d, hg, seed).items():
                rows.setdefault((name, rule), []).append(
                    (full[c]["acc"], full[c]["nmi"], full[best]["acc"], c))
    if markdown:
        return _markdown(sets, rows)
    by_rule = {}
    for (name, rule), v in rows.items():
        a = np.array([x[:3] for x in v])
        gap = a[:, 0].mean() - a[:, 2].mean()
        by_rule.setdefault(rule, []).append(gap)
        print(f"{name:34s} {rule:22s} ACC {a[:, 0].mean():.3f}±{a[:, 0].std():.3f} "
              f"NMI {a[:, 1].mean():.3f} best-full {a[:, 2].mean():.3f} gap {gap:+.3f} "
              f"n={len(v)} picks {[x[3] for x in v]}")
    for rule, gaps in by_rule.items():
        g = np.array(gaps)
        print(f"RULE {rule:22s} mean gap {g.mean():+.4f}  sets within .02 {np.sum(g >= -0.02)}"
              f"/{g.size}  worst {g.min():+.3f}")


#: The rules of the markdown table: the former default, the new default, and the options.
TABLE_RULES = ("1 split", "precision-weighted 1", "race top4 precision", "precision-weighted 3")


def _markdown(sets, rows):
    """One row per set: ACC ± std / NMI of each rule of :data:`TABLE_RULES`, the best
    candidate's full fit (mean of the per-seed best ACC), and the gaps."""
    head = ["set", *TABLE_RULES, "best full fit"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    gaps = {r: [] for r in TABLE_RULES}
    for name in sets:
        cells = []
        for rule in TABLE_RULES:
            a = np.array([x[:3] for x in rows[(name, rule)]])
            gaps[rule].append(a[:, 0].mean() - a[:, 2].mean())
            cells.append(f"{a[:, 0].mean():.3f} ± {a[:, 0].std():.3f} / {a[:, 1].mean():.3f}")
        print(f"| {name} | " + " | ".join(cells) + f" | {a[:, 2].mean():.3f} |")
    print("| mean gap to best / within .02 | " + " | ".join(
        f"{np.mean(g):+.4f} / {np.sum(np.array(g) >= -0.02)} of {len(g)}"
        for g in gaps.values()) + " | |")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("action", choices=("fit", "report"))
    ap.add_argument("sets", nargs="+")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--markdown", action="store_true", help="report: one markdown table")
    ap.add_argument("--split-n-init", type=int, default=None,
                    help="k-means restarts of the split fits (default: the candidates' own)")
    ap.add_argument("--split-max-iter", type=int, default=None,
                    help="with --split-n-init: AHCKA's iteration cap in the split fits "
                         "(default: its own)")
    args = ap.parse_args(argv)
    if args.split_max_iter is not None and args.split_n_init is None:
        ap.error("--split-max-iter needs --split-n-init")
    if args.action == "fit":
        for name in args.sets:
            for seed in range(args.seeds):
                if args.split_max_iter is None:
                    fit(name, seed, args.split_n_init)
                else:
                    fit_capped(name, seed, args.split_n_init, args.split_max_iter)
        return
    report(args.sets, args.seeds, args.markdown, args.split_n_init, args.split_max_iter)


if __name__ == "__main__":
    main()
