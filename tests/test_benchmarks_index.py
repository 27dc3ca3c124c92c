"""benchmarks/README.md indexes every script and tool file of ``benchmarks/`` and of its
one-off ``studies/``, docs/results/README.md every stored result, and neither names a file
that is not there."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "benchmarks"
RESULTS = ROOT / "docs" / "results"
_FILES = ("*.py", "*.sh", "*.txt", "studies/*.py")


def _indexed() -> set:
    text = (BENCH / "README.md").read_text(encoding="utf-8")
    return set(re.findall(r"^\| `([\w./-]+\.(?:py|sh|txt))` \|", text, flags=re.M))


def test_every_benchmark_file_is_in_the_index():
    files = {str(f.relative_to(BENCH)) for pattern in _FILES for f in BENCH.glob(pattern)}
    indexed = _indexed()
    assert sorted(files - indexed) == []
    assert sorted(indexed - files) == []


def results_index(text: str) -> set:
    """The file names in the first cell of the index's table rows."""
    cells = re.findall(r"^\| ([^|]*`[^|]*) \|", text, flags=re.M)
    return {name for cell in cells for name in re.findall(r"`([\w./-]+)`", cell)}


def test_results_index_reader():
    text = ("| file | measures |\n|---|---|\n| `a.md`, `b/c.json` | x |\n"
            "| `d.md` | reads `e.md` |\n")
    assert results_index(text) == {"a.md", "b/c.json", "d.md"}


def test_every_stored_result_is_in_the_results_index():
    files = {str(f.relative_to(RESULTS)) for f in RESULTS.rglob("*")
             if f.is_file() and f.name != "README.md"}
    indexed = results_index((RESULTS / "README.md").read_text(encoding="utf-8"))
    assert sorted(files - indexed) == []
    assert sorted(indexed - files) == []


def test_no_internal_run_names_in_result_file_names():
    names = [str(f.relative_to(RESULTS)) for f in RESULTS.rglob("*")]
    assert [n for n in names if re.search(r"_s\d+b?\b|session|idle_s\d", n)] == []


_RUN_NAME = re.compile(r"\b[Ss]ession \d+\b|\bidle_s\d+|\bIdle s\d+\b|\bs\d{1,2}-[a-z]+\b")


def test_no_internal_run_names_in_the_docs():
    """Results and docs name commits, not the internal runs that made them."""
    paths = [ROOT / "README.md", ROOT / "CHANGELOG.md", BENCH / "README.md",
             *sorted((ROOT / "docs").rglob("*.md"))]
    found = [f"{p.relative_to(ROOT)}: {m.group(0)}" for p in paths
             for m in _RUN_NAME.finditer(p.read_text(encoding="utf-8"))]
    assert found == []
    assert _RUN_NAME.search("rows of session 46 (branch s8-auto)")
