"""benchmarks/bench_scaling.py: byte model, stale-row handling, markdown, one tiny run."""

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_scaling.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_scaling", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_pair_bytes_counts_each_array_once(bench):
    # nnz=10, n=4, m=3, d=2, float32: factors 2*10*(4+4) + (4+3+2)*4, blocks 2*4*2*4 + 2*3*2*4
    assert bench.pair_bytes(10, 4, 3, 2, 4) == 160 + 36 + 64 + 48


def test_old_rows_become_stale_and_are_marked(bench, tmp_path):
    old = {"rows": [{"status": "ok", "time_s": 27.6, "extra_mb": 1.0, "nnz": 4000367,
                     "n_edges": 10**6, "op": "PX", "n_nodes": 10**6}]}
    path = tmp_path / "scaling.json"
    path.write_text(json.dumps(old))
    data = bench.load_store(path)
    assert data["rows"] == [] and len(data["stale_rows"]) == 1
    row = {"op": "PX", "n_nodes": 1000, "nnz": 4000, "status": "ok", "min_s": 0.1,
           "median_s": 0.2, "kernel_min_s": 0.05, "ratio_kernel": 2.0, "bw_bound_s": 0.01,
           "ratio_bw": 10.0, "threads": 2, "repeats": 3, "extra_mb": 1.0,
           "load_before": [0.1, 0.1, 0.1], "load_after": [0.2, 0.1, 0.1],
           "commit": "a" * 40, "dirty": False}
    data["rows"] = [row, dict(row, n_nodes=10_000, nnz=40_000, commit="b" * 40)]
    md = bench.markdown(data, head_commit="a" * 40)
    assert "Pending an idle rerun" not in md  # load < 0.3 throughout
    assert "(stale)" in md and "Stale rows" in md
    assert "bbbbbbbbbb (older commit)" in md and "aaaaaaaaaa |" in md
    busy = dict(data, rows=[dict(row, load_before=[1.5, 1.0, 1.0])])
    assert "Pending an idle rerun" in bench.markdown(busy)


def test_idle_is_judged_by_the_cpu_others_used_not_by_a_lagging_load_average(bench):
    row = {"op": "PX", "n_nodes": 1000, "nnz": 4000, "status": "ok", "min_s": 0.1,
           "median_s": 0.2, "kernel_min_s": 0.05, "ratio_kernel": 2.0, "bw_bound_s": 0.01,
           "ratio_bw": 10.0, "threads": 2, "repeats": 3, "extra_mb": 1.0,
           "load_before": [1.8, 1.7, 1.5], "load_after": [1.9, 1.7, 1.5],
           "commit": "a" * 40, "dirty": False, "other_cpu": 0.02}
    # a load average left by this benchmark's own previous run: still idle
    data = {"rows": [row, dict(row, n_nodes=10_000)], "conditions": {"load_avg": [1.74, 1, 1]}}
    md = bench.markdown(data, head_commit="a" * 40)
    assert "idle rerun" not in md and "- idle: " in md
    data["rows"][1] = dict(row, n_nodes=10_000, other_cpu=0.4)
    md = bench.markdown(data, head_commit="a" * 40)
    assert "Partly pending an idle rerun" in md and "1 of 2 rows" in md


def test_tiny_run_in_process(bench, tmp_path):
    rc = bench.main(["--quick", "--sizes", "300", "--ops", "PX", "eigsh", "--repeats", "1",
                     "--out", str(tmp_path), "--no-spawn"])
    assert rc == 0
    data = json.loads((tmp_path / "scaling.json").read_text())
    rows = {r["op"]: r for r in data["runs"]}  # the harness's store
    assert set(rows) == {"PX", "eigsh"}
    for r in rows.values():
        assert r["status"] == "ok", r.get("error")
        assert r["min_s"] > 0 and r["kernel_min_s"] > 0 and np.isfinite(r["ratio_bw"])
        assert "commit" in r and "load_before" in r and r["threads"] >= 1
        assert r["thread_info"]["cores"] >= 1
    assert rows["eigsh"]["matvecs"] >= 1
    md = (tmp_path / "scaling.md").read_text()
    assert "### `PX`" in md and "## Conditions" in md
