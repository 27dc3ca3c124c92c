"""Tests of the benchmark runner, report, plots and CLI (hyperclust.bench).

Runs use tiny hand-made hypergraphs and fake estimators defined here, referenced by
``module:function`` names, so that timeouts, crashes and memory caps are exercised for real
in separate processes without depending on any real method.
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np
import pytest

from hyperclust import Hypergraph
from hyperclust.bench import ResultStore, run_benchmark
from hyperclust.cli.bench import add_parser, run as cli_run
from hyperclust.bench.data import apply_protocol, canonical_protocol, resolve_dataset
from hyperclust.bench.plots import loglog_slope, sweep_family, write_plots
from hyperclust.bench.report import aggregate, markdown_report, write_report
from hyperclust.bench.worker import classify_error, run_one

MOD = __name__


# ---------------------------------------------------------------- datasets (module:function)
def tiny_labelled():
    """Two 4-node communities (labels = community) and two isolated nodes (labels 0, 1)."""
    edges = [[0, 1, 2], [1, 2, 3], [0, 3], [4, 5, 6], [5, 6, 7], [4, 7]]
    labels = [0, 0, 0, 0, 1, 1, 1, 1, 0, 1]
    return Hypergraph.from_edges(edges, n_nodes=10, labels=labels, name="tiny")


def tiny_unlabelled():
    return Hypergraph.from_edges([[0, 1], [1, 2], [3, 4]], n_nodes=5, name="tiny-nolabels")


# ---------------------------------------------------------------- fake estimators
class _Fake:
    def __init__(self, n_clusters, random_state, behaviour):
        self.n_clusters, self.random_state, self.behaviour = n_clusters, random_state, behaviour

    def get_params(self, deep=False):
        return {"n_clusters": self.n_clusters, "random_state": self.random_state}

    def fit(self, hg):
        b = self.behaviour
        if b == "sleep":
            time.sleep(60)
        elif b == "raise":
            raise RuntimeError("boom: deliberate failure")
        elif b == "exit":
            os._exit(3)
        elif b == "alloc":
            self.buf = np.empty(8 * 2**30, dtype=np.uint8)  # 8 GiB of address space
        if b == "constant":
            self.labels_ = np.zeros(hg.n_nodes, dtype=int)
        else:  # "components": a structure-only clustering, perfect on tiny_labelled's edges
            self.labels_ = hg.connected_components()[1]
        self.coefficients_ = np.array([1.0, -0.5])
        return self

    def spectral_response(self, lam):
        return 1.0 - 1.5 * np.asarray(lam)


def make_components(n_clusters, random_state, device):
    return _Fake(n_clusters, random_state, "components")


def make_constant(n_clusters, random_state, device):
    return _Fake(n_clusters, random_state, "constant")


def make_sleeper(n_clusters, random_state, device):
    return _Fake(n_clusters, random_state, "sleep")


def make_raiser(n_clusters, random_state, device):
    return _Fake(n_clusters, random_state, "raise")


def make_exiter(n_clusters, random_state, device):
    return _Fake(n_clusters, random_state, "exit")


def make_allocator(n_clusters, random_state, device):
    return _Fake(n_clusters, random_state, "alloc")


GOOD, CONST = f"{MOD}:make_components", f"{MOD}:make_constant"
LAB, UNLAB = f"{MOD}:tiny_labelled", f"{MOD}:tiny_unlabelled"


def _runs(out):
    return {(r["dataset"], r["method"], r["seed"], r["protocol"]): r
            for r in json.loads((out / "results.json").read_text())["runs"]}


@pytest.fixture(scope="module")
def grid(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench")
    run_benchmark([LAB], [GOOD, CONST], seeds=2, out_dir=out, protocol=["all", "covered"],
                  time_limit=60, progress=False, report=False)
    run_benchmark([UNLAB], [GOOD], seeds=1, out_dir=out, time_limit=60, progress=False,
                  report=True, plots=False)
    return out


# ---------------------------------------------------------------- runner
def test_grid_records_every_run_with_metrics_and_stats(grid):
    runs = _runs(grid)
    assert len(runs) == 2 * 2 * 2 + 1
    assert "**1.000 ± 0.000**" in (grid / "report.md").read_text()
    assert all(r["status"] == "ok" for r in runs.values())
    perfect = runs[(LAB, GOOD, 0, "isolated-removed")]
    assert perfect["metrics"]["acc"] == 1.0 and perfect["metrics"]["nmi"] == pytest.approx(1.0)
    assert perfect["n_nodes"] == 8 and perfect["n_clusters"] == 2
    assert runs[(LAB, GOOD, 0, "all")]["n_nodes"] == 10
    const = runs[(LAB, CONST, 1, "all")]
    assert const["metrics"]["acc"] == pytest.approx(0.5)
    unl = runs[(UNLAB, GOOD, 0, "all")]
    assert unl["metrics"] is None and unl["timing_only"] and unl["fit_time_s"] >= 0
    for r in runs.values():
        assert r["peak_rss_mb"] > 0 and r["wall_s"] > 0
        assert r["filter_response"][0] == pytest.approx(1.0)
        assert r["coefficients"] == [1.0, -0.5]


def test_resume_skips_finished_runs_and_adds_new_seeds(grid, tmp_path):
    out = tmp_path / "resume"
    out.mkdir()
    (out / "results.json").write_text((grid / "results.json").read_text())
    before = _runs(out)
    run_benchmark([LAB], [GOOD], seeds=3, out_dir=out, protocol="all", progress=False,
                  report=False)
    after = _runs(out)
    assert set(after) - set(before) == {(LAB, GOOD, 2, "all")}
    assert set(before) <= set(after)
    for key, rec in before.items():
        assert after[key]["pid"] == rec["pid"]  # not redone


def test_timeout_and_crashes_are_recorded_and_the_grid_goes_on(tmp_path):
    methods = [f"{MOD}:make_sleeper", f"{MOD}:make_raiser", f"{MOD}:make_exiter",
               "no-such-method", GOOD]
    t0 = time.perf_counter()
    run_benchmark([LAB], methods, seeds=1, out_dir=tmp_path, time_limit=2, progress=False,
                  report=False)
    assert time.perf_counter() - t0 < 40
    runs = _runs(tmp_path)
    sleep = runs[(LAB, methods[0], 0, "all")]
    assert sleep["status"] == "timeout" and "time limit" in sleep["error"]
    raised = runs[(LAB, methods[1], 0, "all")]
    assert raised["status"] == "failed" and "boom: deliberate failure" in raised["error"]
    exited = runs[(LAB, methods[2], 0, "all")]
    assert exited["status"] == "failed" and exited["exit_code"] == 3
    assert runs[(LAB, "no-such-method", 0, "all")]["status"] == "failed"
    assert runs[(LAB, GOOD, 0, "all")]["status"] == "ok"

    # retry re-runs only the statuses asked for
    run_benchmark([LAB], methods, seeds=1, out_dir=tmp_path, time_limit=2, progress=False,
                  report=False, retry=["failed"])
    again = _runs(tmp_path)
    assert again[(LAB, methods[1], 0, "all")]["pid"] != raised["pid"]
    assert again[(LAB, GOOD, 0, "all")]["pid"] == runs[(LAB, GOOD, 0, "all")]["pid"]
    assert again[(LAB, methods[0], 0, "all")]["finished_at"] == sleep["finished_at"]


def test_memory_cap_turns_a_huge_allocation_into_oom(tmp_path):
    alloc = f"{MOD}:make_allocator"
    run_benchmark([LAB], [alloc], seeds=1, out_dir=tmp_path / "capped", memory_limit=2048,
                  progress=False, report=False)
    rec = _runs(tmp_path / "capped")[(LAB, alloc, 0, "all")]
    assert rec["status"] == "oom", rec["error"]
    # Without the cap the same (untouched, hence cheap) allocation succeeds.
    run_benchmark([LAB], [alloc], seeds=1, out_dir=tmp_path / "free", memory_limit=None,
                  progress=False, report=False)
    assert _runs(tmp_path / "free")[(LAB, alloc, 0, "all")]["status"] == "ok"


def test_subprocess_start_method_runs_a_fresh_interpreter(tmp_path):
    run_benchmark([LAB], [GOOD], seeds=1, out_dir=tmp_path, start_method="subprocess",
                  progress=False, report=False)
    rec = _runs(tmp_path)[(LAB, GOOD, 0, "all")]
    assert rec["status"] == "ok" and rec["metrics"]["acc"] == pytest.approx(0.8)


def test_invalid_arguments_raise(tmp_path):
    with pytest.raises(ValueError, match="protocol"):
        run_benchmark([LAB], [GOOD], 1, tmp_path, protocol="sometimes", progress=False)
    with pytest.raises(ValueError, match="seeds"):
        run_benchmark([LAB], [GOOD], 0, tmp_path, progress=False)
    with pytest.raises(ValueError, match="time_limit"):
        run_benchmark([LAB], [GOOD], 1, tmp_path, time_limit=0, progress=False)
    with pytest.raises(ValueError, match="retry"):
        run_benchmark([LAB], [GOOD], 1, tmp_path, retry=["maybe"], progress=False)
    with pytest.raises(ValueError, match="start_method"):
        run_benchmark([LAB], [GOOD], 1, tmp_path, start_method="thread", progress=False)


# ---------------------------------------------------------------- data and worker
def test_protocols_select_the_right_nodes():
    hg = tiny_labelled()
    assert canonical_protocol("covered") == "isolated-removed"
    assert apply_protocol(hg, "all").n_nodes == 10
    assert apply_protocol(hg, "isolated-removed").n_nodes == 8
    assert apply_protocol(hg, "lcc").n_nodes == 4
    with pytest.raises(ValueError):
        canonical_protocol("nodes")


def test_synthetic_names_resolve_to_the_requested_graph():
    hg = resolve_dataset("synthetic-h0.9-n300-k3")
    assert hg.n_nodes == 300 and hg.n_classes == 3
    assert hg.homophily()["pairwise"] > 0.8
    with pytest.raises(ValueError):
        resolve_dataset("")


def test_missing_peer_library_is_unavailable(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "xgi", None)  # makes `import xgi` raise ImportError
    rec = run_one({"dataset": LAB, "method": "peer-xgi", "seed": 0, "protocol": "lcc"})
    assert rec["status"] == "unavailable" and "pip install xgi" in rec["error"]


def test_classify_error():
    assert classify_error(MemoryError()) == "oom"
    assert classify_error(RuntimeError("DefaultCPUAllocator: can't allocate memory")) == "oom"
    assert classify_error(ValueError("bad k")) == "failed"


def test_hypernetx_peer_separates_two_communities():
    pytest.importorskip("hypernetx")
    from hyperclust.bench.peers import make_peer
    from hyperclust.metrics import acc

    edges = [[0, 1, 2], [0, 1, 3], [1, 2, 3], [0, 2, 3], [4, 5, 6], [4, 5, 7], [5, 6, 7],
             [4, 6, 7], [3, 4]]
    hg = Hypergraph.from_edges(edges, n_nodes=8, labels=[0] * 4 + [1] * 4)
    labels = make_peer("peer-hypernetx", 2, 0).fit(hg).labels_
    assert acc(hg.labels, labels) == 1.0


# ---------------------------------------------------------------- report and plots
def _rec(dataset, method, seed, protocol="all", acc=0.5, time_s=1.0, status="ok", **extra):
    r = {"dataset": dataset, "method": method, "seed": seed, "protocol": protocol,
         "status": status, "fit_time_s": time_s if status == "ok" else None,
         "peak_rss_mb": 100.0, "fit_extra_mb": 5.0, "n_nodes": 100, "nnz": 400,
         "metrics": ({"acc": acc, "nmi": acc / 2, "ari": acc / 3, "f1": acc}
                     if status == "ok" else None),
         "error": None if status == "ok" else "Trouble | with a pipe"}
    r.update(extra)
    return r


def _fake_runs():
    runs = []
    for s, noise in enumerate((0.0, 0.02, -0.02)):
        runs += [_rec("cora-ca", "ours-a", s, acc=0.60 + noise),
                 _rec("cora-ca", "ours-b", s, acc=0.70 + noise, time_s=2.0),
                 _rec("cora-ca", "peer-xgi", s, "lcc", acc=0.30 + noise, time_s=8.0),
                 _rec("cora-ca", "ours-b", s, "lcc", acc=0.65 + noise, time_s=2.0)]
    runs.append(_rec("cora-ca", "peer-xgi", 0, status="failed"))
    return runs


def test_report_marks_best_and_quotes_published_by_protocol(tmp_path):
    csv = tmp_path / "published.csv"
    csv.write_text("source,protocol,dataset,method,acc,nmi,ari,f1_macro,f1_pairwise,note\n"
                   "PaperA,all nodes; true k,cora-ca,AHCKA,0.651,0.462,0.406,0.608,,\n"
                   "PaperB,isolated removed; true k,cora-ca,TriCL,,0.498,,,0.567,\n")
    from hyperclust.bench.report import load_published

    text = markdown_report(_fake_runs(), load_published(csv))
    acc_all = text.split("## ACC — protocol `all`")[1].split("##")[0]
    row = next(line for line in acc_all.splitlines() if line.startswith("| cora-ca"))
    assert "**0.700 ± 0.020**" in row and "**0.600" not in row
    assert "AHCKA 0.651 [1]" in row and "TriCL" not in row  # TriCL used another protocol
    assert "*failed*" in row
    lcc = text.split("## ACC — protocol `lcc`")[1].split("##")[0]
    assert "published" not in lcc  # no published numbers under this protocol
    peers = text.split("## Peer libraries vs ours")[1].split("\n## ")[0]
    prow = next(line for line in peers.splitlines() if "| lcc |" in line)
    assert "`ours-b`" in prow and "| 4.00 |" in prow  # time ratio 8 s / 2 s
    assert "Trouble \\| with a pipe" in text  # failure listed, table-safe
    head = text.split("## Headline — protocol `all`")[1].split("\n## ")[0]
    hrow = next(line for line in head.splitlines() if line.startswith("| cora-ca"))
    assert "`ours-b`" in hrow and "0.651 (AHCKA [1])" in hrow and "not run" in hrow


def test_report_without_published_says_why(tmp_path):
    path = write_report(_fake_runs(), tmp_path, published=tmp_path / "missing.csv", plots=False)
    text = path.read_text()
    assert "missing.csv not found" in text and "published (" not in text


def test_aggregate_mean_std_and_partial_counts():
    agg = aggregate(_fake_runs())
    s = agg[("cora-ca", "all", "ours-a")]
    assert s["acc"] == pytest.approx(0.60) and s["acc_std"] == pytest.approx(0.02)
    p = agg[("cora-ca", "all", "peer-xgi")]
    assert p["n_ok"] == 0 and p["acc"] is None and p["statuses"]["failed"] == 1


def test_plots_are_written_as_png(tmp_path):
    runs = _fake_runs()
    for h in (0.2, 0.5, 0.8):
        for s in range(2):
            runs.append(_rec(f"synthetic-h{h}-n500", "ours-a", s, acc=h, homophily=h + 0.01,
                             nnz=int(1000 * (1 + h * 10)), fit_time_s=h,
                             filter_lambdas=[0.0, 0.5, 1.0], filter_response=[1.0, 0.0, -1.0]))
    paths = {p.name for p in write_plots(runs, tmp_path)}
    assert {"quality_all.png", "quality_lcc.png", "homophily_sweep.png", "filters.png",
            "scaling.png"} <= paths
    for name in paths:
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_loglog_slope_and_sweep_names():
    x = np.array([1e3, 1e4, 1e5])
    assert loglog_slope(x, 3 * x ** 2) == pytest.approx(2.0)
    assert loglog_slope([1, 1], [2, 3]) is None
    assert sweep_family("synthetic-h0.3-n2000") == ("synthetic-n2000", 0.3)
    assert sweep_family("hsbm-node-0.7") == ("hsbm-node", 0.7)
    assert sweep_family("cora-ca") is None


# ---------------------------------------------------------------- CLI
def _parse(argv):
    parser = argparse.ArgumentParser(prog="hyperclust")
    add_parser(parser.add_subparsers(dest="command"))
    return parser.parse_args(argv)


def test_cli_runs_grid_then_rewrites_report(tmp_path, capsys):
    out = tmp_path / "cli"
    rc = cli_run(_parse(["bench", "--datasets", LAB, "--methods", GOOD, "--seeds", "1",
                         "--out", str(out), "--no-progress", "--no-plots",
                         "--published", str(tmp_path / "none.csv")]))
    assert rc == 0 and len(ResultStore(out / "results.json").runs) == 1
    (out / "report.md").unlink()
    assert cli_run(_parse(["bench", "--out", str(out), "--report-only", "--no-plots"])) == 0
    assert f"`{GOOD}`" in (out / "report.md").read_text()


def test_cli_without_datasets_is_an_error(tmp_path, capsys):
    assert cli_run(_parse(["bench", "--out", str(tmp_path), "--methods", GOOD])) == 2
    assert "--datasets" in capsys.readouterr().err


def test_seeds_after_a_timeout_are_skipped_not_rerun(tmp_path):
    sleeper = f"{MOD}:make_sleeper"
    t0 = time.perf_counter()
    run_benchmark([LAB], [sleeper], seeds=3, out_dir=tmp_path, time_limit=1, progress=False,
                  report=False)
    assert time.perf_counter() - t0 < 15
    runs = _runs(tmp_path)
    assert runs[(LAB, sleeper, 0, "all")]["status"] == "timeout"
    for s in (1, 2):
        assert runs[(LAB, sleeper, s, "all")]["status"] == "skipped"
        assert "seed 0" in runs[(LAB, sleeper, s, "all")]["error"]
