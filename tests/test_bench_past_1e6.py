"""benchmarks/bench_past_1e6.py: a rung saved by ``--save`` and read back by ``--load`` is the
same hypergraph (same fit), and the bare kernel beside the fits computes ``H (H^T X)``."""

import multiprocessing as mp
import runpy
import types
from pathlib import Path

import numpy as np
import pytest

from hyperclust.datasets.synthetic import hypergraph_sbm

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_past_1e6.py"


@pytest.fixture(scope="module")
def past():
    return types.SimpleNamespace(**runpy.run_path(str(SCRIPT), run_name="bench_past_1e6"))


def test_saved_rung_reads_back_as_the_same_hypergraph_and_fit(past, tmp_path):
    hg = hypergraph_sbm(2000, 4, homophily=0.7, n_features=0, random_state=0)
    path = past.input_path(tmp_path, 8e3)
    past.save_input(hg, path)
    back = past.load_input(path)
    assert (back.incidence != hg.incidence).nnz == 0 and back.incidence.shape == hg.incidence.shape
    assert np.array_equal(back.weights, hg.weights)
    a = past.make_estimator("spectral-zhou").fit(hg).labels_
    b = past.make_estimator("spectral-zhou").fit(back).labels_
    assert np.array_equal(a, b)


def test_load_without_a_saved_rung_fails(past, tmp_path):
    with pytest.raises(FileNotFoundError):
        past.load_input(past.input_path(tmp_path, 1e8))


def test_bare_kernel_reports_each_width(past):
    hg = hypergraph_sbm(500, 4, homophily=0.7, n_features=0, random_state=0)
    queue = mp.get_context("fork").SimpleQueue()
    past.run_bare_kernel(hg, queue, widths=(1, 3), repeats=2)
    rows = queue.get()
    assert [r[0] for r in rows] == [1, 3]
    assert all(0 <= r[1] <= r[2] and 0 <= r[3] <= r[4] for r in rows)


def test_save_and_load_are_exclusive(past, capsys):
    with pytest.raises(SystemExit):
        past.main(["--save", "a", "--load", "b"])
    assert "not allowed with" in capsys.readouterr().err
