"""Scripts of benchmarks/ over the harness: each answers --help, their stored results (converted
from the files written before the harness) still give the committed tables, and their rows
go through the harness's store."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from hyperclust import Hypergraph
from hyperclust.bench import ResultStore

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "docs" / "results"
SCRIPTS = ("bench_collapsed", "bench_distributed", "bench_distributed_driver", "bench_knn",
           "bench_placement", "bench_distributed_cpu", "bench_operator_cpu",
           "bench_unidhc", "bench_unidhc_select", "bench_unidhc_speed", "bench_unidhc_setup", "plot_unidhc_gamma",
           "bench_holdout", "study_truth_score", "bench_collapsed_1e5", "collapsed_closure",
           "collapsed_pe", "bench_unidhc_sweep", "unidhc_filter_criteria", "unidhc_data_share",
           "unidhc_heldout_choice", "unidhc_split_choice", "bench_knn_crossover", "bench_auto_attributed", "bench_past_1e6",
           "unidhc_cpu_phases", "bench_unidhc_heterophilic", "unidhc_heterophilic_filters")


def _script(name):
    path = ROOT / "benchmarks" / f"{name}.py"
    if not path.exists():  # a one-off study
        path = ROOT / "benchmarks" / "studies" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", SCRIPTS)
def test_script_answers_help_without_measuring(name, capsys):
    if name == "bench_unidhc":
        pytest.importorskip("torch")
    with pytest.raises(SystemExit) as exit_:
        _script(name).main(["--help"])
    assert exit_.value.code == 0 and capsys.readouterr().out.startswith("usage:")


def _cells(lines):
    """The cells of the markdown table lines among ``lines`` (blank cells written either way)."""
    return [[c.strip() for c in line.split("|")] for line in lines if line.startswith("|")]


def test_distributed_table_from_the_converted_store_is_the_committed_one():
    script = _script("bench_distributed")
    rows = ResultStore(RESULTS / "distributed_scale.json", key=script.KEY).runs
    assert len(rows) == 3 and len({r["commit"] for r in rows}) == 1  # one run
    assert script.table(rows) == (RESULTS / "distributed_scale.md").read_text().splitlines()


def test_driver_memory_table_is_made_from_the_stored_rows():
    import json

    rows = json.loads((RESULTS / "distributed_driver_memory.json").read_text())
    table = _script("bench_distributed_driver")._table(rows)
    committed = (RESULTS / "distributed_driver_memory.md").read_text()
    assert _cells(table.splitlines()) == _cells(committed.splitlines())
    assert {(r["method"], r["n"]) for r in rows} >= {("spectral", 10**5), ("spectral", 10**6)}


@pytest.mark.parametrize("script, name", [
    ("bench_placement", "distributed_placement"),
    ("bench_distributed_cpu", "distributed_cpu_1e5"),
    ("bench_distributed_driver", "distributed_scheduler_records")])
def test_distributed_tables_are_made_from_the_stored_rows(script, name):
    import json

    rows = json.loads((RESULTS / f"{name}.json").read_text())
    table = _script(script)._table(rows)
    committed = (RESULTS / f"{name}.md").read_text()
    assert rows and _cells(table.splitlines()) == _cells(committed.splitlines())


def test_collapsed_grid_table_from_the_converted_store_is_the_committed_one():
    script = _script("bench_collapsed")
    rows = ResultStore(RESULTS / "collapsed.json", key=script.GRID_KEY).runs
    assert [(r["dataset"], r["fraction"], r["method"]) for r in rows] == script.GRID
    table = _cells((RESULTS / "collapsed.md").read_text().splitlines())[:len(rows) + 2]
    assert _cells(script.grid_lines(rows)) == table  # the document's first table


def test_unidhc_rows_are_stored_per_method_and_later_stores_win(tmp_path, monkeypatch):
    pytest.importorskip("torch")
    script = _script("bench_unidhc")
    from hyperclust.cluster.baselines import KMeansFeatures

    monkeypatch.setattr(script, "OUT", tmp_path)
    monkeypatch.setattr(script, "methods", lambda k, seed, featured, isolated: {
        "kmeans(X)": KMeansFeatures(k, random_state=seed)})
    labels = np.repeat([0, 1], 4)
    features = np.eye(2)[labels] + np.arange(8)[:, None] * 1e-3
    hg = Hypergraph.from_edges([[0, 1], [6, 7]], n_nodes=8, features=features, labels=labels,
                               name="toy")
    script.run(hg, 2, "all nodes", script.suite_store("real"), {"homophily": 1.0})
    script.run(hg, 3, "all nodes", script.suite_store("real", "_later"))
    (row,) = ResultStore(tmp_path / "unidhc_real.json", key=script.KEY).runs
    assert (row["method"], row["seeds"], row["acc"], row["acc_std"]) == ("kmeans(X)", 2, 1.0, 0.0)
    assert row["homophily"] == 1.0 and "commit" in row
    assert [r["seeds"] for r in script.suite_rows("real")] == [3]  # "_later" sorts after


def test_speed_runs_are_numbered_and_never_replaced(tmp_path, monkeypatch):
    script = _script("bench_unidhc_speed")
    times = {"min": 1.0, "median": 1.0, "all": [1.0]}
    monkeypatch.setattr(script, "measure", lambda n, repeats: {
        "n": n, "unidhc_over_spectral": 2.0, "peak_rss_mib": 1.0, "loadavg_before": None,
        **{k: dict(times) for k in ("spectral-zhou", "unidhc", "kernel")}})
    out = tmp_path / "speed.json"
    script.main(["--sizes", "100", "--out", str(out)])
    script.main(["--sizes", "100", "200", "--out", str(out)])
    rows = ResultStore(out, key=script.KEY).runs
    assert [(r["n"], r["run"]) for r in rows] == [(100, 0), (100, 1), (200, 2)]
    assert all("commit" in r and "load_avg_start" in r for r in rows)


def test_consensus_rule_is_unchanged_by_a_copy_of_a_candidate():
    selectors = _script("study_selectors")
    rng = np.random.default_rng(0)
    labels = {c: rng.integers(0, 3, 30) for c in ("a", "b", "c", "d")}
    labels["b"][:20] = labels["a"][:20]          # b and c agree most with a
    labels["c"][10:] = labels["a"][10:]
    scores = dict(zip(labels, (0.3, 0.2, 0.4, 0.1)))
    names = list(labels)
    before = selectors.picks(labels, scores, names)
    assert before["rwr-min"] == "d" and before["anmi-dedup"] == "a"
    for copied in names:
        more = dict(labels, twin=labels[copied].copy())
        after = selectors.picks(more, dict(scores, twin=scores[copied]), names + ["twin"])
        assert after["anmi-dedup"] in (before["anmi-dedup"],
                                       "twin" if copied == before["anmi-dedup"] else None)


def test_paired_bootstrap_of_the_holdout_study():
    holdout = _script("bench_holdout")
    mean, lo, hi = holdout.paired_bootstrap([0.3, 0.2, 0.1, 0.0], [0.1, 0.1, 0.1, 0.1])
    assert mean == pytest.approx(0.05) and lo < mean < hi
    assert holdout.paired_bootstrap([0.2] * 5, [0.1] * 5)[1:] == pytest.approx((0.1, 0.1))


def test_truth_score_summary_counts_on_hand_made_rows():
    script = _script("study_truth_score")
    rows = [  # a miss whose better candidate scores worse; a hit whose truth scores best
        {"truth_score": 0.5, "pick": "a", "best": "b", "scores": {"a": 0.2, "b": 0.3, "c": 0.4},
         "acc": {"a": 0.5, "b": 0.9, "c": 0.6}},
        {"truth_score": 0.1, "pick": "a", "best": "a", "scores": {"a": 0.2, "b": 0.3},
         "acc": {"a": 0.9, "b": 0.8}},
    ]
    text = script.summary(rows)
    assert text.startswith("2 sets; the truth scores worse than the pick on 1, worse than "
                           "every candidate on 1.")
    assert "below the best candidate: 1; there the truth scores worse than the pick on 1 and "\
           "worse than the best candidate on 1." in text
    assert "median -0.25" in text  # Spearman +0.5 (first set) and -1 (second)


def test_collapsed_scale_report_says_idle_only_when_every_run_was_measured_idle():
    script = _script("bench_collapsed")
    assert script.idle_statement([{"other_cpu": 0.02}, {"other_cpu": 0.05}]).startswith(
        "idle: other processes used at most 0.050 cores")
    busy = script.idle_statement([{"other_cpu": 0.02}, {"other_cpu": 0.9}])
    assert "under load" in busy and "up to 0.90 cores" in busy
    assert "under load" in script.idle_statement([{"other_cpu": 0.0}, {}])  # not measured


def test_collapsed_1e5_script_is_correct_at_small_size(capsys):
    """The timing script's input and route agree with dense eigh (null space and the 16
    smallest nonzero eigenpairs) at 600 nodes."""
    assert _script("bench_collapsed_1e5").check(600, 1e-9) == 0
    assert "PASS" in capsys.readouterr().out
