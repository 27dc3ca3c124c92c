"""The selection rules the protocol replays beside ``auto``'s (benchmarks/auto_rules.py)."""

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

from hyperclust.cluster.auto.decide import decide
from hyperclust.datasets import two_view_sbm

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture(scope="module")
def rules():
    sys.path.insert(0, str(BENCH))
    try:
        spec = importlib.util.spec_from_file_location("auto_rules", BENCH / "auto_rules.py")
        module = sys.modules["auto_rules"] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.path.remove(str(BENCH))
        sys.modules.pop("auto_rules", None)


def _round(errors, noise, seed):
    """One scored round: per-item held-out terms ``error + noise * N(0, 1)`` (hyperedges
    only, 400 items) of candidates with the same labels."""
    from hyperclust.cluster.auto._fitting import Fits

    rng, y = np.random.default_rng(seed), np.repeat([0, 1], 10)
    memo = {c: {"edges": e + noise * rng.standard_normal(400), "attributes": None}
            for c, e in errors.items()}
    return Fits({c: y for c in errors}, {}, {}, {c: float(t["edges"].mean())
                                                for c, t in memo.items()}, memo)


A, B, C = "hgnn", "spectral-zhou", "hsbm"  # in the candidate table's order


def test_prefer_keeps_the_first_candidate_unless_beaten_on_every_split(rules):
    # B is ahead of the anchor A on average, by .6 paired standard errors a split
    tied = [_round({A: 0.30, B: 0.298, C: 0.40}, 0.05, s) for s in range(3)]
    assert rules.prefer(tied, 2, 1.5).selected == A and rules.contenders(tied, 2, 1.5) == (A,)
    # B and C both beat A far on every split: the first of them in the order, B, unless
    # C beats B on every split too (it does: chain)
    ahead = [_round({A: 0.40, B: 0.30, C: 0.20}, 0.05, s) for s in range(3)]
    assert rules.contenders(ahead, 2, 1.5) == (A, B, C) and rules.prefer(ahead, 2, 1.5).selected == C
    # beaten on two splits of three is not every split
    mixed = ahead[:2] + [_round({A: 0.30, B: 0.30, C: 0.30}, 0.05, 9)]
    assert rules.prefer(mixed, 2, 1.5).selected == A
    # the splits' spread: one round is no evidence for the decision
    assert rules.prefer(ahead[:1], 2, 1.5, evidence="splits").selected == A
    assert rules.prefer(ahead, 2, 1.5, evidence="splits").selected == C


def test_tied_lists_the_candidates_within_the_margin_of_the_leader_in_order(rules):
    rounds = [_round({A: 0.30, B: 0.298, C: 0.40}, 0.05, s) for s in range(3)]
    assert rules.tied(rounds, 2, 1.5) == (A, B)
    assert decide(rounds, 2, 1.5, rules.tied(rounds, 2, 1.5)[0]).selected == A


def test_every_replay_rule_decides_on_stored_rounds(rules):
    from hyperclust.cluster.auto._fitting import Settings, fit_round, holdout_splits, score

    hg = two_view_sbm(400, 3, agreement=1.0, classes="features", random_state=7)
    names = ("hgnn", "spectral-zhou", "kmeans")
    s = Settings(3, 0, 0.5, 10, "auto", "precision", 0.2, 3, "min", False, 5, 100, 1e-3)
    splits = holdout_splits(hg, "heldout", 0.1, 3, 0)
    rounds = [score(s, sp.train, sp, fit_round(s, sp.train, sp, names)) for sp in splits]
    asked = []

    def fit_more(i, c):
        asked.append((i, tuple(c)))
        return score(s, splits[i].train, splits[i], fit_round(s, splits[i].train, splits[i], c))

    for name, rule in rules.replay_rules(1.5).items():
        asked.clear()
        d = rule(rounds[0], fit_more, 3, 3)
        assert d.selected in names and d.order[0] == d.selected, name
        assert all(set(c) <= set(names) and i in (1, 2) for i, c in asked), name
        assert (len(d.order) == 1) == (name == "previous")
