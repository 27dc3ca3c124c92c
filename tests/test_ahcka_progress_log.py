"""AHCKA's per-iteration log lines and the blockwise, column-wise tie-robust argmax of its
discretisation."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from hyperclust.cluster.ahcka import AHCKA
from hyperclust.runtime.iteration_clock import IterationClock
from hyperclust.cluster.block_argmax import first_near_maximum_down_columns, rotated_labels
from hyperclust.cluster.rounding import first_near_maximum
from hyperclust.datasets.synthetic import hypergraph_sbm


@pytest.mark.parametrize("seed", range(20))
def test_first_near_maximum_down_columns_equals_the_row_reduction(seed):
    rng = np.random.default_rng(seed)
    n, k = int(rng.integers(1, 60)), int(rng.integers(1, 7))
    # small integers make exact ties; the scales put some ties inside and some outside tol
    P = rng.integers(-2, 3, size=(n, k)) * rng.choice([1.0, 1e-11, 1e-17])
    P = P + rng.choice([0.0, 1e-11, 1e-9]) * rng.normal(size=(n, k))
    P[rng.random(n) < 0.1] = np.nan  # no column qualifies
    P[rng.random(n) < 0.1] = 0.0
    Pt = P.T if seed % 2 else np.ascontiguousarray(P.T)
    np.testing.assert_array_equal(first_near_maximum_down_columns(Pt), first_near_maximum(P))


def test_first_near_maximum_down_columns_takes_the_first_tied_column():
    P = np.array([[0.0, 1.0, 1.0 - 1e-12, 1.0], [2.0, 0.0, 2.0 + 1e-11, 1.0],
                  [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 5.0]])
    assert first_near_maximum_down_columns(P.T).tolist() == [1, 0, 0, 3]
    P[1, 0] = np.nan  # no column qualifies: 0, as the row reduction gives
    assert first_near_maximum_down_columns(P.T)[1] == first_near_maximum(P)[1] == 0


def test_fit_logs_every_check_and_a_summary(caplog):
    hg = hypergraph_sbm(300, 2, homophily=0.8, n_features=0, random_state=0)
    with caplog.at_level(logging.DEBUG, logger="hyperclust.cluster.ahcka"):
        est = AHCKA(2, max_iter=20, check_interval=5, patience=10).fit(hg)
    lines = [r.getMessage() for r in caplog.records]
    checks = [line for line in lines if line.startswith("AHCKA: iteration ")]
    assert [int(line.split()[2]) for line in checks] == [5, 10, 15, 20]
    assert all(line.endswith("over the last 5") for line in checks)
    scored = [line for line in lines if line.startswith("AHCKA: objective of iteration")]
    assert len(scored) == len(est.objective_history_) == 5
    summary = [r for r in caplog.records if r.levelno == logging.INFO]
    assert len(summary) == 1
    assert summary[0].getMessage().startswith(f"AHCKA: {est.n_iter_} iterations in ")


def test_clock_accumulates_the_laps(caplog):
    clock = IterationClock("demo", logging.getLogger("demo"))
    with caplog.at_level(logging.DEBUG, logger="demo"):
        clock.iterated(3)
        clock.checked()
        with clock.check(7):
            pass
        clock.finished(9, stopped_at=7)
    messages = [r.getMessage() for r in caplog.records]
    assert "over the last 3" in messages[0] and "over the last 4" in messages[2]
    assert messages[1].startswith("demo: check ") and messages[3].startswith("demo: check ")
    assert messages[-1].startswith("demo: 9 iterations in ")
    assert messages[-1].endswith("stopped by the check of iteration 7")
    assert (clock.iterating >= 0).all() and (clock.checking >= 0).all() and clock.last_it == 7


@pytest.mark.parametrize("k", [1, 3, 4, 9])
def test_rotated_labels_equal_the_whole_product(k):
    # several row blocks (2^16 / k rows each) and a partial last one; exact ties in the
    # repeated rows and in the zero rows
    rng = np.random.default_rng(k)
    n = 3 * (2**16 // k) + 17
    X = rng.normal(size=(n, k))
    X[::5] = X[1]
    X[::7] = 0.0
    R = np.linalg.qr(rng.normal(size=(k, k)))[0]
    R[:, -1] = R[:, 0]  # two equal columns: every row ties
    np.testing.assert_array_equal(rotated_labels(X, R), first_near_maximum(X @ R))
    assert rotated_labels(X[:0], R).shape == (0,)
