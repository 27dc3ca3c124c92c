"""Consensus-type selectors against ``auto``'s ``rwr-min`` pick, replayed on the cached pool.

Usage (after ``bench_pool.py``)::

    python benchmarks/study_selectors.py

For every (dataset, seed) of ``bench-out/pool`` it replays four label-free rules over the
cached candidate clusterings: the lowest ``rwr-min`` score (what ``AutoClusterer`` does),
the highest mean NMI to the other candidates (ANMI, a consensus signal), the best ANMI among
candidates scoring within 2/5/10% of the best score, the rank sum of both signals and the
rules of the hold-out study (:func:`picks`; ``bench_holdout.py``); and
prints the share of settings within .02 ACC of the oracle (labels only score here) and the
mean ACC gap, with each dataset's mean ACC. Results: docs/results/auto.md, "Second selector
study".
"""

from __future__ import annotations

import numpy as np
from sklearn.metrics import normalized_mutual_info_score

from hyperclust.bench import group_rows, mean_std
from hyperclust.cluster.auto import CANDIDATES

try:
    from _pool import load_labels, load_runs
except ImportError:
    from benchmarks._pool import load_labels, load_runs


def agreement_matrix(labels, names):
    """``(c, c)`` NMI between every pair of candidate clusterings (1 on the diagonal)."""
    M = np.eye(len(names))
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            M[i, j] = M[j, i] = normalized_mutual_info_score(labels[names[i]], labels[names[j]])
    return M


def picks(labels, scores, names):
    """``{rule: candidate}`` for every selection rule studied.

    ``anmi``: the highest mean NMI to the other candidates (consensus). ``anmi-dedup``: the
    same with candidates that return the same clustering (NMI > .99, e.g. spectral-zhou and
    spectral-clique on most sets) counted as one voter between them, and a candidate's own
    twins not voting for it, so adding a copy of a candidate changes no one's support. ``within<x>-anmi``: the best consensus among candidates scoring
    within ``x`` of the best score (relative to its magnitude). ``ranksum``: the sum of both
    ranks. ``hybrid``: ``anmi-dedup`` with attributes (seven candidates over three views),
    ``rwr-min`` without (four candidates on one view). ``always-*``: one fixed candidate
    (``hgnn`` stands in for ``hgnn-mixed`` without attributes).
    """
    M = agreement_matrix(labels, names)
    n = len(names)
    agree = {c: (M[i].sum() - 1) / max(n - 1, 1) for i, c in enumerate(names)}
    twin = M > 0.99
    voter = 1.0 / twin.sum(axis=1)
    agree_dedup = {}
    for i, c in enumerate(names):
        others = ~twin[i]          # its own twins do not vote for it
        weight = voter * others
        agree_dedup[c] = float(M[i] @ weight / weight.sum()) if others.any() else 0.0
    best = min(scores.values())
    out = {"rwr-min": min(names, key=lambda c: (scores[c], names.index(c))),
           "anmi": max(names, key=lambda c: agree[c]),
           "anmi-dedup": max(names, key=lambda c: agree_dedup[c])}
    for slack in (0.02, 0.05, 0.1):
        near = [c for c in names if scores[c] <= best + slack * abs(best)]
        out[f"within{slack:g}-anmi"] = max(near, key=lambda c: agree[c])
    by_score = sorted(names, key=lambda c: scores[c])
    by_agree = sorted(names, key=lambda c: -agree[c])
    out["ranksum"] = min(names, key=lambda c: (by_score.index(c) + by_agree.index(c),
                                               by_score.index(c)))
    attributed = "kmeans" in names
    out["hybrid"] = out["anmi-dedup"] if attributed else out["rwr-min"]
    out["always-ahcka"] = "ahcka"
    out["always-hgnn-mixed"] = "hgnn-mixed" if "hgnn-mixed" in names else "hgnn"
    return out


def replay(dataset, seed, run):
    """One row per rule: the ACC of its pick and the gap to the oracle's."""
    _, labels = load_labels(dataset, seed)
    names = [c for c in CANDIDATES if c in labels]
    acc = {c: run["metrics"][c]["acc"] for c in names}
    oracle = max(acc.values())
    return [{"dataset": dataset, "seed": seed, "rule": rule, "acc": acc[chosen],
             "gap": oracle - acc[chosen]}
            for rule, chosen in picks(labels, run["scores"], names).items()]


def main():
    rows = [r for (dataset, seed), run in sorted(load_runs().items())
            for r in replay(dataset, seed, run)]
    for (rule,), sel in group_rows(rows, ("rule",)).items():
        g = np.asarray([r["gap"] for r in sel])
        print(f"{rule:18s} within .02: {np.mean(g <= 0.02):.0%}  mean gap {g.mean():.3f}")
        print("    " + "; ".join(f"{d} {mean_std([r['acc'] for r in v])[0]:.3f}"
                                 for (d,), v in group_rows(sel, ("dataset",)).items()))


if __name__ == "__main__":
    main()
