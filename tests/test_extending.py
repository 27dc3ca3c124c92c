"""docs/extending.md is true: its examples run, in order, in a fresh interpreter, and each
example adds its entry in under 20 lines."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "extending.md"


def _examples() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)


def test_there_is_one_short_example_per_concept():
    examples = _examples()
    assert len(examples) == 5
    for code, call in zip(examples, ("register_method(", "register_candidate(",
                                     "register_operator(", "register_format(",
                                     "register_dataset(")):
        assert call in code
        lines = [line for line in code.splitlines() if line.strip()]
        assert len(lines) < 20, (call, len(lines))


def test_the_examples_run(tmp_path):
    script = "\n".join(_examples()) + "\nprint('examples ok')\n"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src") + os.pathsep
           + os.environ.get("PYTHONPATH", ""), "HYPERCLUST_CACHE": str(tmp_path / "cache")}
    r = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                       text=True, timeout=300, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().endswith("examples ok")
