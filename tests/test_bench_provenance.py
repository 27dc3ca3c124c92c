"""Provenance of benchmark rows: recorded per run, stale/unknown rows marked in the report.

Git histories are built in temporary repositories: nothing here depends on this
repository's own history."""

import importlib.util
import shutil
import subprocess
from pathlib import Path

import pytest

from hyperclust.bench import provenance
from hyperclust.bench.provenance import git_commit, load_average, run_provenance, thread_info
from hyperclust.bench.report import STALE, UNKNOWN, markdown_report


def _staleness_tool():
    """``benchmarks/staleness.py``: git-history tooling of the checkout, not in the package."""
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "staleness.py"
    spec = importlib.util.spec_from_file_location("staleness_tool", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_TOOL = _staleness_tool()
method_source_files, provenance_marks = _TOOL.method_source_files, _TOOL.provenance_marks

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")


def _git(repo, *args):
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org",
                           "-c", "commit.gpgsign=false", *args], cwd=repo, check=True,
                          capture_output=True, text=True).stdout.strip()


def _commit(repo, path, text, msg, moved_from=None):
    """Commit ``text`` as ``path`` (``git mv`` from ``moved_from`` first); the commit."""
    (repo / path).parent.mkdir(parents=True, exist_ok=True)
    if moved_from is not None:
        _git(repo, "mv", moved_from, path)
    (repo / path).write_text(text)
    _git(repo, "add", path)
    _git(repo, "commit", "-q", "-m", msg)
    return _git(repo, "rev-parse", "HEAD")


@pytest.fixture()
def history(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    c1 = _commit(repo, "pkg/a.py", "x = 1\n", "a")
    c2 = _commit(repo, "pkg/b.py", "y = 1\n", "b")
    c3 = _commit(repo, "pkg/a.py", "x = 2\n", "a changes")  # method m-a's code changes
    c4 = _commit(repo, "README", "docs\n", "docs only")
    sources = {"m-a": [str(repo / "pkg/a.py")], "m-b": [str(repo / "pkg/b.py")]}
    return repo, sources, (c1, c2, c3, c4)


def _run(method, commit, seed=0, dataset="d", acc=0.5):
    r = {"dataset": dataset, "protocol": "all", "method": method, "seed": seed,
         "status": "ok", "metrics": {"acc": acc, "nmi": acc, "ari": acc, "f1": acc},
         "fit_time_s": 1.0, "peak_rss_mb": 10.0, "fit_extra_mb": 1.0, "n_nodes": 10, "nnz": 20}
    if commit is not None:
        r["commit"] = commit
    return r


@needs_git
def test_rows_older_than_the_methods_last_change_are_stale(history):
    repo, sources, (c1, c2, c3, c4) = history
    runs = [_run("m-a", c2, dataset="old"),      # before a.py changed: stale
            _run("m-a", c3, dataset="new"),      # the change itself: current
            _run("m-a", c4, dataset="later"),    # a descendant: current
            _run("m-b", c2, dataset="old"),      # b.py unchanged since c2: current
            _run("m-b", c1, dataset="older"),    # before b.py existed: stale
            _run("m-a", None, dataset="none"),   # no commit: unknown provenance
            _run("m-a", "f" * 40, dataset="alien")]  # commit not in this repository
    marks = provenance_marks(runs, repo=repo, sources=sources)
    assert marks[("old", "all", "m-a")]["mark"] == STALE
    assert marks[("old", "all", "m-a")]["touched"] == c3
    assert marks[("new", "all", "m-a")]["mark"] is None
    assert marks[("later", "all", "m-a")]["mark"] is None
    assert marks[("old", "all", "m-b")]["mark"] is None
    assert marks[("older", "all", "m-b")]["mark"] == STALE
    assert marks[("none", "all", "m-a")]["mark"] == UNKNOWN
    assert marks[("alien", "all", "m-a")]["mark"] == UNKNOWN
    # a group with one stale seed among current ones is stale
    mixed = provenance_marks([_run("m-a", c3), _run("m-a", c2, seed=1)], repo=repo,
                             sources=sources)
    assert mixed[("d", "all", "m-a")]["mark"] == STALE
    assert mixed[("d", "all", "m-a")]["runs"] == {"current": 1, STALE: 1}


@needs_git
def test_report_marks_cells_and_lists_them(history):
    repo, sources, (c1, c2, c3, c4) = history
    runs = [_run("m-a", c2, dataset="old", acc=0.9), _run("m-b", c2, dataset="old", acc=0.4),
            _run("m-a", None, dataset="none", acc=0.7)]
    text = markdown_report(runs, provenance=provenance_marks(runs, repo=repo, sources=sources))
    acc = text.split("## ACC — protocol `all`")[1].split("\n## ")[0]
    old = next(line for line in acc.splitlines() if line.startswith("| old"))
    assert "**0.900 ± 0.000** †" in old and "0.400 ± 0.000 |" in old  # m-b is current
    none = next(line for line in acc.splitlines() if line.startswith("| none"))
    assert "0.700 ± 0.000** ‡" in none
    prov = text.split("## Provenance")[1].split("\n## ")[0]
    stale = next(line for line in prov.splitlines() if "| stale †" in line)
    assert stale.startswith("| `m-a` |") and c3[:10] in stale and "old / all" in stale
    unknown = next(line for line in prov.splitlines() if "unknown provenance ‡ |" in line)
    assert unknown.startswith("| `m-a` |") and "none / all" in unknown
    assert "`m-b`" not in prov
    times = text.split("## Fit time and memory")[1].split("\n## ")[0]
    assert "1.00 s (peak 10 MiB, +1 MiB) †" in times


def test_without_a_repository_only_missing_commits_are_marked(tmp_path):
    runs = [_run("m-a", "a" * 40), _run("m-a", None, dataset="none")]
    marks = provenance_marks(runs, repo=None, sources={"m-a": []})
    # repo=None means "find the repository of hyperclust"; sources=[] means nothing to check
    assert marks[("d", "all", "m-a")]["mark"] is None
    assert marks[("none", "all", "m-a")]["mark"] == UNKNOWN


@needs_git
def test_git_commit_and_dirty_flag(history):
    repo, _, (*_, c4) = history
    assert git_commit(repo) == {"commit": c4, "dirty": False}
    (repo / "pkg/a.py").write_text("x = 3\n")
    assert git_commit(repo / "pkg") == {"commit": c4, "dirty": True}
    assert git_commit(repo.parent) == {"commit": None, "dirty": None}


def test_run_provenance_and_thread_info():
    from hyperclust.runtime.threads import thread_limit

    with thread_limit(1):
        rec = run_provenance()
        info = thread_info()
    assert {"commit", "dirty", "hyperclust_version", "threads", "load_avg_start"} <= set(rec)
    assert rec["threads"] == 1 and info["limit"] == 1 and info["cores"] >= 1
    assert load_average("0.50 0.40 0.30 1/100 42") == [0.5, 0.4, 0.3]
    assert load_average("garbage") is None


def test_method_source_files_follow_imports():
    files = [f.replace("\\", "/") for f in method_source_files("spectral-zhou")]
    assert any(f.endswith("hyperclust/cluster/spectral.py") for f in files)
    assert any(f.endswith("hyperclust/operators/laplacians.py") for f in files)
    assert any(f.endswith("hyperclust/operators/kernels.py") for f in files)  # transitively
    assert not any("/bench/" in f or f.endswith("threads.py") or f.endswith("__init__.py")
                   for f in files)
    auto = [f.replace("\\", "/") for f in method_source_files("auto")]
    assert any(f.endswith("hyperclust/cluster/auto/__init__.py") for f in auto)
    # its candidates are named in a table, not imported: their code counts too
    assert any(f.endswith("hyperclust/cluster/ahcka.py") for f in auto)
    assert any(f.endswith("hyperclust/cluster/hsbm.py") for f in auto)
    assert not any(f.endswith("hyperclust/cluster/ahcka.py") for f in files)
    unidhc = method_source_files("unidhc")
    assert any(f.replace("\\", "/").endswith("hyperclust/models/basis.py") for f in unidhc)
    assert method_source_files("no-such-method") is None


def test_worker_records_provenance_per_run():
    from hyperclust.bench.worker import run_one

    rec = run_one({"dataset": "synthetic-h0.9-n200", "method": "kmeans", "seed": 0,
                   "protocol": "all", "threads": 1})
    assert rec["status"] == "ok", rec.get("error")
    assert {"commit", "dirty", "hyperclust_version", "load_avg_start"} <= set(rec)
    assert rec["threads_used"] == 1


def test_other_cpu_does_not_count_this_process():
    import time

    from hyperclust.bench.provenance import OtherCpu

    with OtherCpu() as other:
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < 0.3:  # keep one core busy ourselves
            pass
    if other.cores is None:
        pytest.skip("/proc not available")
    # our own busy core is excluded (other jobs on a shared machine may add some)
    assert 0.0 <= other.cores < 2.0


@needs_git
def test_report_header_counts_fresh_and_older_rows_per_commit(history):
    repo, sources, (c1, c2, c3, c4) = history
    runs = [dict(_run("m-a", c4, seed=s), finished_at=f"2026-12-05T00:0{s}:00+00:00")
            for s in range(3)]                                     # fresh: after a.py changed
    runs += [_run("m-a", c2, dataset="old"), _run("m-b", c2, dataset="old"),  # stale / fresh
             _run("m-a", None, dataset="none"), _run("m-b", None, dataset="none")]
    marks = provenance_marks(runs, repo=repo, sources=sources)
    assert marks[("old", "all", "m-a")]["commits"] == {(c2, STALE): 1}
    text = markdown_report(runs, provenance=marks)
    head = text.split("## ")[0]
    assert "**Fresh rows: 4 of 7 runs**" in head and "the other 3 are older" in head
    table = [line for line in head.splitlines() if line.startswith("| ")][1:]
    assert table == [
        f"| fresh (current code) | `{c4[:10]}` | 3 | 2026-12-05 00:00 – 2026-12-05 00:02 | `m-a` 3 |",
        f"| fresh (current code) | `{c2[:10]}` | 1 |  | `m-b` 1 |",
        f"| older: stale † | `{c2[:10]}` | 1 |  | `m-a` 1 |",
        "| older: unknown provenance ‡ | none recorded | 2 |  | `m-a` 1, `m-b` 1 |"]


def test_report_lists_methods_in_registry_order_whatever_the_row_order():
    runs = [_run(m, None) for m in ("peer-xgi", "spectral-zhou", "unidhc", "ahcka", "auto")]
    text = markdown_report(runs, provenance={})
    acc = text.split("## ACC — protocol `all`")[1].split("\n## ")[0]
    head = next(line for line in acc.splitlines() if line.startswith("| dataset"))
    assert head == ("| dataset | nodes | `auto` | `ahcka` | `spectral-zhou` | `unidhc` | "
                    "`peer-xgi` |")
    headline = text.split("## Headline — protocol `all`")[1].split("\n## ")[0]
    assert "| `auto` ACC | `auto` NMI | `unidhc` ACC | `unidhc` NMI |" in headline


@needs_git
def test_a_docstring_or_comment_edit_does_not_make_rows_stale(history):
    repo, sources, (c1, c2, c3, c4) = history
    c5 = _commit(repo, "pkg/a.py", '"""Module words."""\nx = 2  # why\n', "a: docstring only")
    runs = [_run("m-a", c3, dataset="before-doc")]
    assert provenance_marks(runs, repo=repo, sources=sources)[
        ("before-doc", "all", "m-a")]["mark"] is None
    c6 = _commit(repo, "pkg/a.py", '"""Module words."""\nx = 3\n', "a: code")
    marks = provenance_marks(runs + [_run("m-a", c5, dataset="doc")], repo=repo,
                             sources=sources)
    assert marks[("before-doc", "all", "m-a")]["mark"] == STALE
    assert marks[("doc", "all", "m-a")]["mark"] == STALE
    assert marks[("doc", "all", "m-a")]["touched"] == c6


def _move(repo, old, new, edits, msg):
    """Commit ``git mv old new`` with the moved file's text ``edits[new]`` (unchanged when
    absent) and the other files' texts of ``edits``; the commit."""
    for path, text in edits.items():
        if path != new:
            (repo / path).write_text(text)
            _git(repo, "add", path)
    return _commit(repo, new, edits.get(new, (repo / old).read_text()), msg, moved_from=old)


@pytest.fixture()
def moved(tmp_path):
    """A module ``pkg.tools`` with two importers (relative and absolute), committed once."""
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    tools = "def f(x):\n    return x + 1\n\n\ndef g(x):\n    return 2 * x\n"
    _commit(repo, "src/pkg/tools.py", tools, "tools")
    _commit(repo, "src/pkg/user.py", "from .tools import f\n\ny = f(1)\n", "user")
    first = _commit(repo, "src/pkg/other.py", "from pkg import tools\n\nz = tools.g(2)\n",
                    "other")
    return repo, tools, first


_IMPORTS_AFTER_MOVE = {"src/pkg/user.py": "from .ops.tools_moved import f\n\ny = f(1)\n",
                       "src/pkg/other.py": "from pkg.ops import tools_moved as tools\n\n"
                                           "z = tools.g(2)\n"}
_FILES_AFTER_MOVE = ["src/pkg/ops/tools_moved.py", "src/pkg/user.py", "src/pkg/other.py"]


@needs_git
def test_a_move_with_rewritten_imports_is_not_a_code_change(moved):
    repo, tools, first = moved
    moves = {"pkg.tools": "pkg.ops.tools_moved"}
    c_move = _move(repo, "src/pkg/tools.py", "src/pkg/ops/tools_moved.py", _IMPORTS_AFTER_MOVE,
                   "move tools, imports follow")
    files = [str(repo / f) for f in _FILES_AFTER_MOVE]
    assert _TOOL.last_code_change(files, repo, moves=moves) == first
    # without the table the rewritten imports name another module: a change of code
    assert _TOOL.last_code_change(files, repo, moves={}) == c_move


@needs_git
def test_a_move_with_one_changed_line_is_a_code_change(moved):
    repo, tools, first = moved
    moves = {"pkg.tools": "pkg.ops.tools_moved"}
    edits = dict(_IMPORTS_AFTER_MOVE)
    edits["src/pkg/ops/tools_moved.py"] = tools.replace("x + 1", "x + 2")
    c_move = _move(repo, "src/pkg/tools.py", "src/pkg/ops/tools_moved.py", edits,
                   "move tools and change f")
    files = [str(repo / f) for f in _FILES_AFTER_MOVE]
    assert _TOOL.last_code_change(files, repo, moves=moves) == c_move
    # the importers alone did not change: only the moved module's line counts
    assert _TOOL.last_code_change(files[1:], repo, moves=moves) == first


@needs_git
def test_an_importer_binding_another_name_is_a_code_change(moved):
    repo, tools, first = moved
    moves = {"pkg.tools": "pkg.ops.tools_moved"}
    edits = dict(_IMPORTS_AFTER_MOVE)
    edits["src/pkg/other.py"] = "from pkg.ops import tools_moved\n\nz = tools_moved.g(2)\n"
    c_move = _move(repo, "src/pkg/tools.py", "src/pkg/ops/tools_moved.py", edits,
                   "move tools, other names it anew")
    files = [str(repo / f) for f in _FILES_AFTER_MOVE]
    assert _TOOL.last_code_change(files, repo, moves=moves) == c_move


def test_the_committed_moves_table_names_modules_that_exist():
    import importlib.util

    moves = _TOOL.module_moves()
    for old, new in moves.items():
        assert importlib.util.find_spec(new) is not None, new
        assert old not in moves.values()  # one step per move: names are read through once


def test_other_cpu_counts_only_the_cores_of_this_process():
    stat = ("cpu  300 0 100 1000 0 0 0 0 0 0\n"
            "cpu0 100 0 50 500 0 0 0 0 0 0\n"
            "cpu1 200 0 50 500 0 0 0 0 0 0\n")
    own = "42 (python x) R " + " ".join(["0"] * 10) + " 70 30 0 0"
    assert provenance._cpu_jiffies(stat, own, cpus=[1]) == (250, 100)
    assert provenance._cpu_jiffies(stat, own, cpus=[0, 1]) == (400, 100)
    assert provenance._cpu_jiffies(stat, own, cpus=[5]) == (400, 100)  # no line: whole machine
    assert provenance._cpu_jiffies("not a stat file", own) is None


def test_other_cpu_reading_is_other_busy_time_over_wall_time(monkeypatch):
    readings = iter([(1000, 500), (1000 + 150, 500 + 50)])  # 100 jiffies of others
    clock = iter([10.0, 11.0])
    monkeypatch.setattr(provenance, "_cpu_jiffies", lambda *a, **k: next(readings))
    monkeypatch.setattr(provenance.time, "monotonic", lambda: next(clock))
    monkeypatch.setattr(provenance.os, "sysconf", lambda name: 100)
    meter = provenance.OtherCpu()
    assert meter.read() == pytest.approx(1.0)  # 100 jiffies at 100 Hz over 1 s
