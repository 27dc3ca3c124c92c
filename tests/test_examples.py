"""The documentation site: every public module has a page, the gallery lists every example,
and every example runs."""

from __future__ import annotations

import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import hyperclust

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


def test_docs_site_covers_every_public_module_and_the_gallery(docs_site):
    out, r = docs_site
    assert r.returncode == 0, r.stderr[-2000:]
    assert "does not resolve" not in r.stderr
    public = [m.name for m in pkgutil.walk_packages(hyperclust.__path__, "hyperclust.")
              if not any(part.startswith("_") for part in m.name.split("."))]
    missing = [m for m in public if not (out / (m.replace(".", "/") + ".html")).is_file()]
    assert not missing, missing
    assert {"hyperclust.selection.objectives", "hyperclust.selection.alignment",
            "hyperclust.operators.eigensolvers", "hyperclust.operators.encodings",
            "hyperclust.threads", "hyperclust.distributed"} <= set(public)
    gallery = (out / "examples.html").read_text(encoding="utf-8")
    assert all(f"<h2 id='{p.stem}'>" in gallery for p in EXAMPLES)
