"""Every example runs (the docs site's gallery of them is checked in ``test_docs.py``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))


def _env():
    return {**os.environ, "PYTHONPATH": str(ROOT / "src"), "PYTHON": sys.executable,
            "MPLBACKEND": "Agg"}


def test_there_are_examples():
    assert {p.stem for p in EXAMPLES} >= {"own_data", "xgi_round_trip", "pyg_features",
                                          "benchmark"}


@pytest.mark.parametrize("script", EXAMPLES, ids=lambda p: p.stem)
def test_example_runs(script, tmp_path):
    pytest.importorskip("xgi")
    pytest.importorskip("torch_geometric")
    r = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=_env(),
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
