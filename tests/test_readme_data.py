"""The README's data parts agree with the package: every extra is listed, the shell examples
can run one after another, the help documents what methods do to the data."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hyperclust.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_every_extra_of_pyproject_is_in_the_readme_table():
    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    listed = set(re.findall(r"^\| `([a-z]+)` \|", README, flags=re.M))
    assert set(extras) <= listed, set(extras) - listed


def test_shell_examples_write_distinct_outputs():
    shell = README.split("Shell:", 1)[1].split("```", 2)[1]
    outs = re.findall(r"--out (\S+)", shell)
    assert len(outs) >= 2 and len(outs) == len(set(outs)), outs


def test_readme_states_the_id_rule_not_any_size():
    assert "integers of any size" not in README
    assert "`7`, `007` and `0007` are three nodes" in README


def test_cluster_help_says_kmeans_normalises_rows():
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    help_text = sub.choices["cluster"].format_help()
    assert "kmeans L2-normalises each node's feature row" in " ".join(help_text.split())
