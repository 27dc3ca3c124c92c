"""Progress of long fits: quiet in the API, shown by the command line unless --quiet, and
only after a few seconds; the ``hyperclust`` logger says when each fit starts and ends."""

from __future__ import annotations

import logging
import time

import pytest

from hyperclust.runtime import progress
from hyperclust.cli import main
from hyperclust.runtime.progress import elapsed_bar, progress_bar, progress_shown, show_progress


@pytest.fixture
def no_delay(monkeypatch):
    monkeypatch.setattr(progress, "DELAY_S", 0.0)


@pytest.fixture
def terminal(monkeypatch):
    """stderr taken for a terminal (pytest captures it: not one)."""
    monkeypatch.setattr(progress, "on_terminal", lambda: True)


@pytest.fixture
def edges(tmp_path):
    path = tmp_path / "edges.txt"
    path.write_text("0 1 2\n1 2\n3 4 5\n4 5\n2 3 4\n")
    return path


def test_bars_are_hidden_in_the_api_by_default(capsys, no_delay):
    assert not progress_shown()
    with progress_bar("loop", total=2) as bar:
        bar.update(2)
    with elapsed_bar("fit"):
        time.sleep(0.05)
    assert bar.n == 2
    assert capsys.readouterr().err == ""


def test_shown_bars_count_and_name_the_loop(capsys, no_delay, terminal):
    with show_progress():
        assert progress_shown()
        with progress_bar("AHCKA iterations", total=4) as bar:
            bar.update(3)
        assert bar.n == 3
    assert not progress_shown()
    err = capsys.readouterr().err
    assert "AHCKA iterations" in err and "/4 " in err  # the bar, with its total


def test_a_loop_shorter_than_the_delay_prints_nothing(capsys):
    with show_progress(), progress_bar("short", total=2) as bar:
        bar.update(2)
    with show_progress(), elapsed_bar("short fit"):
        pass
    assert capsys.readouterr().err == ""


def test_the_elapsed_bar_runs_while_the_block_runs(capsys, no_delay, terminal):
    with show_progress(), elapsed_bar("slow fit", refresh_s=0.01):
        time.sleep(0.2)
    assert "slow fit" in capsys.readouterr().err


def test_no_bar_is_drawn_into_a_file_or_a_pipe(capsys, no_delay):
    with show_progress():
        assert not progress_shown()  # pytest's captured stderr is not a terminal
        with progress_bar("AHCKA iterations", total=4) as bar:
            bar.update(3)
        with elapsed_bar("slow fit", refresh_s=0.01):
            time.sleep(0.1)
    assert bar.n == 3 and capsys.readouterr().err == ""


@pytest.mark.parametrize("quiet, tty", [([], True), (["--quiet"], True), ([], False)])
def test_the_cli_shows_a_bar_for_a_fit_on_a_terminal_unless_quiet(edges, capsys, no_delay,
                                                                  monkeypatch, quiet, tty):
    from hyperclust.cluster.registry import make_estimator

    SpectralClustering = type(make_estimator("spectral-zhou", 2))
    fit = SpectralClustering.fit

    def slow_fit(self, *args, **kwargs):
        time.sleep(0.3)
        return fit(self, *args, **kwargs)

    monkeypatch.setattr(SpectralClustering, "fit", slow_fit)
    monkeypatch.setattr(progress, "on_terminal", lambda: tty)
    assert main([*quiet, "cluster", str(edges), "--method", "spectral-zhou", "--k", "2"]) == 0
    err = capsys.readouterr().err
    assert ("spectral-zhou: " in err) == (not quiet and tty)


def test_verbose_logs_each_fit_with_its_time(edges, capsys):
    assert main(["-v", "cluster", str(edges), "--method", "spectral-zhou", "--k", "2"]) == 0
    err = capsys.readouterr().err
    assert "fitting on" in err and "fitted in" in err


def test_the_logger_is_silent_in_the_api(caplog):
    from hyperclust import Hypergraph
    from hyperclust.cluster.registry import make_estimator

    caplog.set_level(logging.WARNING, logger="hyperclust")
    hg = Hypergraph.from_edges([[0, 1, 2], [1, 2], [3, 4, 5], [4, 5], [2, 3]])
    make_estimator("spectral-zhou", 2).fit(hg)
    assert [r for r in caplog.records if r.name.startswith("hyperclust")] == []


@pytest.mark.parametrize("flags,tty,shown", [([], True, True), (["--quiet"], True, False),
                                              ([], False, False)])
def test_the_bench_grid_bar_follows_the_top_level_quiet_and_the_terminal(monkeypatch, tmp_path,
                                                                         flags, tty, shown):
    from hyperclust.bench import runner
    from hyperclust.cli import bench

    monkeypatch.setattr(bench, "on_terminal", lambda: tty)
    seen = {}

    def fake_run_benchmark(*args, progress, **kwargs):
        seen["progress"] = progress
        return []

    monkeypatch.setattr(runner, "run_benchmark", fake_run_benchmark)
    main([*flags, "bench", "--datasets", "zoo", "--methods", "kmeans", "--seeds", "1",
          "--out", str(tmp_path), "--no-plots", "--published", "none.csv"])
    assert seen == {"progress": shown}
