"""benchmarks/README.md indexes every script and tool file of ``benchmarks/`` and of its
one-off ``studies/``, and names no file that is not there."""

from __future__ import annotations

import re
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
_FILES = ("*.py", "*.sh", "*.txt", "studies/*.py")


def _indexed() -> set:
    text = (BENCH / "README.md").read_text(encoding="utf-8")
    return set(re.findall(r"^\| `([\w./-]+\.(?:py|sh|txt))` \|", text, flags=re.M))


def test_every_benchmark_file_is_in_the_index():
    files = {str(f.relative_to(BENCH)) for pattern in _FILES for f in BENCH.glob(pattern)}
    indexed = _indexed()
    assert sorted(files - indexed) == []
    assert sorted(indexed - files) == []

