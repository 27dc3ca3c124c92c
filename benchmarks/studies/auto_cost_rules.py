"""Cheaper ``auto`` selections replayed on the split-fit cache of ``selection_rules.py``.

Usage::

    python benchmarks/studies/auto_cost_rules.py <sets> [--seeds 5] [--split-n-init 5]
        [--split-max-iter 100]

For every (set, seed) of the cache, the default rule of ``AutoClusterer`` (race of the 4
best of the first split, margin 2 paired standard errors, sequential) is replayed against
variants that fit less: a tighter ``race`` / ``race_margin``, a candidate left out of the
default set, and the pick's labels from its first-split fit instead of a refit on all the
data. Each variant prints its mean ACC gap to the best candidate's full fit, how many sets
are within .02, the picks that moved against the default, and the later-split fits it
needs (the cost that a race saves). Labels only score the picks.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from hyperclust.cluster.hsbm_heldout import heldout_errors, split_hypergraph
from hyperclust.metrics import evaluate

sys.path.insert(0, str(Path(__file__).resolve().parent))
from selection_rules import _path, load, sequential_race  # noqa: E402

#: ``{variant: (left-out candidates, race, race_margin, refit)}``; the first is the default.
VARIANTS = {
    "default": ((), 4, 2.0, True),
    "margin 1.5": ((), 4, 1.5, True),
    "margin 1": ((), 4, 1.0, True),
    "race 3": ((), 3, 2.0, True),
    "race 2": ((), 2, 2.0, True),
    "no hsbm": (("hsbm",), 4, 2.0, True),
    "no refit": ((), 4, 2.0, False),
}


def replay(d, hg, seed, left_out, race, margin):
    """``(pick, later-split fits)`` of the sequential race on the cached split fits."""
    names = [str(c) for c in d["names"] if str(c) not in left_out]
    k = int(d["k"])
    splits = [split_hypergraph(hg, edge_share=0.1, random_state=seed + 7919 * r)
              for r in range(3)]
    lab = [{c: d[f"split{r}/{c}"] for c in names} for r in range(3)]
    first = heldout_errors(splits[0], lab[0], "precision")
    return sequential_race(lab, first, k, splits, margin, top=race)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sets", nargs="+")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--split-n-init", type=int, default=5)
    ap.add_argument("--split-max-iter", type=int, default=100)
    args = ap.parse_args(argv)
    rows = {v: {} for v in VARIANTS}
    for name in args.sets:
        for seed in range(args.seeds):
            path = _path(name, seed, args.split_n_init, args.split_max_iter)
            if not path.exists():
                continue
            d, hg = np.load(path), load(name, seed)
            y = d["y"]
            full = {str(c): evaluate(y, d[f"full/{c}"])["acc"] for c in d["names"]}
            best = max(full.values())
            for variant, (left_out, race, margin, refit) in VARIANTS.items():
                pick, fits = replay(d, hg, seed, left_out, race, margin)
                acc = full[pick] if refit else evaluate(y, d[f"split0/{pick}"])["acc"]
                rows[variant].setdefault(name, []).append((acc, best, pick, fits))
    base = rows["default"]
    for variant, per_set in rows.items():
        gaps = np.array([np.mean([a - b for a, b, _, _ in v]) for v in per_set.values()])
        moved = sum(p != q[2] for s, v in per_set.items() for (_, _, p, _), q in
                    zip(v, base[s]))
        fits = np.mean([f for v in per_set.values() for *_, f in v])
        print(f"{variant:12s} mean gap {gaps.mean():+.4f}  within .02 {np.sum(gaps >= -0.02)}"
              f"/{gaps.size}  worst {gaps.min():+.3f}  picks moved {moved}  "
              f"later-split fits {fits:.2f}", flush=True)
        for s, v in per_set.items():
            if any(p != q[2] for (_, _, p, _), q in zip(v, base[s])):
                print(f"    {s:34s} ACC {np.mean([a for a, *_ in v]):.3f} "
                      f"(default {np.mean([a for a, *_ in base[s]]):.3f})")


if __name__ == "__main__":
    main()
