"""The benchmark harness (hyperclust.bench): store, seed loop, aggregation, table writer, and
a script of benchmarks/ run through it."""

import ast
import gzip
import importlib.util
import json
import pkgutil
import shutil
import sys
from pathlib import Path

import pytest

from hyperclust.bench import (ResultStore, commits_of, group_rows, markdown_table, mean_std,
                              run_seeds, seed_list, summarize)

ROOT = Path(__file__).resolve().parents[1]


def test_store_replaces_by_key_stamps_provenance_and_keeps_meta(tmp_path):
    path = tmp_path / "s.json"
    store = ResultStore(path, key=("dataset", "seed"))
    store.meta["conditions"] = {"cpu": "x"}
    store.add([{"dataset": "a", "seed": 0, "acc": 0.1},
               {"dataset": "a", "seed": 1, "acc": 0.2, "commit": "c0ffee", "dirty": False}])
    store.add({"dataset": "a", "seed": "0", "acc": 0.3})  # seed as text: same key
    again = ResultStore(path, key=("dataset", "seed"))
    assert [(r["seed"], r["acc"]) for r in again.runs] == [("0", 0.3), (1, 0.2)]
    assert again.meta == {"conditions": {"cpu": "x"}}
    assert "commit" in again.runs[0] and "load_avg_start" in again.runs[0]
    assert again.runs[1]["commit"] == "c0ffee" and "load_avg_start" not in again.runs[1]
    again.remove([{"dataset": "a", "seed": 1}])
    again.save()
    assert len(ResultStore(path, key=("dataset", "seed")).runs) == 1


def test_store_reads_files_written_before_the_harness(tmp_path):
    path = tmp_path / "old.json"
    path.write_text(json.dumps({"rows": [{"op": "PX", "n_nodes": 10}], "summary": "s"}))
    store = ResultStore(path, key=("op", "n_nodes"))
    assert store.runs == [{"op": "PX", "n_nodes": 10}] and store.meta == {"summary": "s"}


def test_run_seeds_tags_rows_and_stores_each_seed_at_once(tmp_path):
    store = ResultStore(tmp_path / "r.json", key=("m", "seed", "c"))

    def measure(seed):
        if seed == 2:
            raise RuntimeError("stop")
        return [{"c": c, "acc": seed + c} for c in (0, 1)] + [{"c": 9, "m": "own"}]

    with pytest.raises(RuntimeError):
        run_seeds(measure, 3, settings={"m": "x"}, store=store, echo=False)
    rows = ResultStore(tmp_path / "r.json", key=("m", "seed", "c")).runs
    assert [(r["m"], r["seed"], r["c"]) for r in rows] == [
        ("x", 0, 0), ("x", 0, 1), ("own", 0, 9), ("x", 1, 0), ("x", 1, 1), ("own", 1, 9)]
    assert seed_list([3, 1]) == [3, 1]
    with pytest.raises(ValueError):
        seed_list(0)


def test_aggregation_over_seeds():
    rows = [{"d": d, "seed": s, "acc": a} for d, s, a in
            (("b", 0, 0.5), ("a", 0, 0.2), ("b", 1, 0.7), ("b", 2, None), ("a", 1, float("nan")))]
    assert list(group_rows(rows, ("d",))) == [("b",), ("a",)]
    s = summarize(rows, ("d",), ("acc",))
    assert s[0]["n"] == 3 and s[0]["acc"] == pytest.approx(0.6)
    assert s[0]["acc_std"] == pytest.approx(0.1414213562)
    assert s[1]["acc"] == pytest.approx(0.2) and s[1]["acc_std"] == 0.0
    assert mean_std([0.5, 0.7], ddof=0)[1] == pytest.approx(0.1)
    assert markdown_table(["a", "b"], [[1, 2]]) == ["| a | b |", "|---|---|", "| 1 | 2 |"]
    assert commits_of([{"commit": "a" * 40}, {"commit": "a" * 40, "dirty": True}]) == \
        "aaaaaaaaaa, aaaaaaaaaa+dirty"


def test_a_benchmark_script_writes_its_rows_and_table_through_the_harness(tmp_path, capsys):
    spec = importlib.util.spec_from_file_location(
        "bench_spectral", ROOT / "benchmarks" / "bench_spectral.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    script.CONFIGS = [("zhou", "auto"), ("clique", "auto")]
    out = tmp_path / "spectral.md"
    script.main(["--datasets", "synthetic-h0.95-n120-k2", "--seeds", "2", "--out", str(out)])
    rows = ResultStore(out.with_suffix(".json"), key=script.KEY).runs
    assert len(rows) == 4 and all(r["commit"] is None or len(r["commit"]) == 40 for r in rows)
    assert {r["seed"] for r in rows} == {0, 1} and "time_s" in rows[0]
    table = [line for line in out.read_text().splitlines() if line.startswith("| synthetic")]
    assert len(table) == 2 and "| zhou | auto |" in table[0]
    acc = [r["acc"] for r in rows if r["operator"] == "zhou"]
    assert f"{sum(acc) / 2:.3f} ± " in table[0]


def _imports(name, path, known):
    """The modules of ``known`` that module ``name`` (file ``path``) imports, anywhere in it."""
    package = name if path.endswith("__init__.py") else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(Path(path).read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1] + ([base] if base else []))
            found |= {base} | {f"{base}.{a.name}" for a in node.names}
    # a package importing its own modules is not a circle of the modules
    return {f for f in found & known if f != name and not name.startswith(f + ".")}


def test_no_import_circle_in_the_harness_hypergraph_and_converters():
    import hyperclust.bench
    import hyperclust.convert
    import hyperclust.hypergraph

    pkgs = (hyperclust.bench, hyperclust.convert, hyperclust.hypergraph)
    files = {p.__name__: p.__file__ for p in pkgs}
    for p in pkgs:
        for m in pkgutil.iter_modules(p.__path__, p.__name__ + "."):
            files[m.name] = str(Path(p.__file__).parent / (m.name.rpartition(".")[2] + ".py"))
    for other in ("hyperclust.bench.peers", "hyperclust.bench.worker"):  # not this change's
        files.pop(other)
    graph = {n: _imports(n, f, set(files)) for n, f in files.items()}
    assert "hyperclust.bench.aggregate" in graph["hyperclust.bench.plots"]  # the parser sees
    state = {}

    def visit(n, path):
        state[n] = "open"
        for m in sorted(graph[n]):
            assert state.get(m) != "open", "import circle: " + " -> ".join(path + [m])
            if m not in state:
                visit(m, path + [m])
        state[n] = "done"

    for n in sorted(graph):
        if n not in state:
            visit(n, [n])


def _pool_module():
    """``benchmarks/_pool.py``, loaded fresh (the benchmarks folder is not a package)."""
    spec = importlib.util.spec_from_file_location("_pool", ROOT / "benchmarks" / "_pool.py")
    pool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(pool)
    return pool


def test_the_candidate_pool_is_a_store_read_over_its_legacy_jsonl(tmp_path, monkeypatch):
    pool = _pool_module()
    monkeypatch.setattr(pool, "POOL", tmp_path)
    with pytest.raises(SystemExit, match="bench_pool.py"):
        pool.load_runs()
    with open(tmp_path / "runs.jsonl", "w") as fh:
        for seed, selected in ((0, "old"), (1, "old"), (0, "older-rerun")):
            fh.write(json.dumps({"dataset": "zoo", "seed": seed, "selected": selected}) + "\n")
    assert {k: r["selected"] for k, r in pool.load_runs().items()} == \
        {("zoo", 0): "older-rerun", ("zoo", 1): "old"}
    pool.pool_store().add([{"dataset": "zoo", "seed": 1, "selected": "new"},
                           {"dataset": "cora-ca", "seed": 0, "selected": "new"}])
    runs = pool.load_runs()
    assert {k: r["selected"] for k, r in runs.items()} == \
        {("zoo", 0): "older-rerun", ("zoo", 1): "new", ("cora-ca", 0): "new"}
    assert "commit" in runs[("zoo", 1)]


def test_the_objective_scores_are_a_store_preferred_over_their_legacy_jsonl(tmp_path, monkeypatch):
    pool = _pool_module()
    monkeypatch.setattr(pool, "OUT", tmp_path)
    with pytest.raises(SystemExit, match="bench_objectives.py"):
        pool.load_scores()
    row = {"dataset": "zoo", "seed": 0, "method": "hgnn", "scores": {"rwr": 0.5}}
    (tmp_path / "scores.jsonl").write_text(json.dumps(row) + "\n")
    assert pool.load_scores() == [row]
    pool.scores_store().add({**row, "scores": {"rwr": 0.25}})
    assert [r["scores"] for r in pool.load_scores()] == [{"rwr": 0.25}]


def _grid_row(method, seed, acc, commit=None):
    return {"dataset": "zoo", "protocol": "all", "method": method, "seed": seed, "status": "ok",
            "metrics": {"acc": acc, "nmi": acc, "ari": acc, "f1": acc}, "n_nodes": 101,
            "nnz": 200, "fit_time_s": 0.1, "peak_rss_mb": 10.0, "commit": commit}


def _full_bench(tmp_path, **env):
    import os
    import subprocess

    env = dict(os.environ, WORK=str(tmp_path / "work"), OUT=str(tmp_path / "out"),
               PYTHON=sys.executable, PUBLISHED=str(tmp_path / "none.csv"),
               PYTHONPATH=os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]),
               **env)
    return subprocess.run(["bash", str(ROOT / "benchmarks" / "run_full_bench.sh")], env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.skipif(shutil.which("bash") is None or shutil.which("gzip") is None,
                    reason="needs bash and gzip")
def test_full_bench_report_stage_merges_reruns_over_the_committed_rows(tmp_path):
    out, store = tmp_path / "out", tmp_path / "work" / "cheap"
    out.mkdir()
    store.mkdir(parents=True)
    committed = [_grid_row("kmeans", 0, 0.5), _grid_row("kmeans", 1, 0.6),
                 _grid_row("hgnn", 0, 0.7)]
    with gzip.open(out / "results.json.gz", "wt") as fh:
        json.dump({"version": 1, "runs": committed}, fh)
    ResultStore(store / "results.json").add(_grid_row("kmeans", 0, 0.9, commit="c" * 40))
    done = _full_bench(tmp_path, STAGE="report")
    assert done.returncode == 0, done.stderr
    with gzip.open(out / "results.json.gz", "rt") as fh:
        runs = json.load(fh)["runs"]
    # the rerun replaced its row; the rows it did not rerun stay
    assert sorted((r["method"], r["seed"], r["metrics"]["acc"]) for r in runs) == [
        ("hgnn", 0, 0.7), ("kmeans", 0, 0.9), ("kmeans", 1, 0.6)]
    assert not (out / "results.json").exists()
    assert "**Fresh rows: 0 of 3 runs**" in (out / "report.md").read_text()


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_full_bench_names_an_unknown_dataset_set_in_one_line(tmp_path):
    done = _full_bench(tmp_path, STAGE="cheap", SETS="SMALL TINY")
    assert done.returncode == 2
    assert done.stderr == "error: SETS takes SMALL SYNTH HSBM LARGE, got 'TINY'\n"
