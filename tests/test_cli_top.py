"""The command line's top level: ``--version``, ``python -m hyperclust``, ``-v``/``-q``."""

from __future__ import annotations

import logging
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import hyperclust
from hyperclust.cli import main

ROOT = Path(__file__).resolve().parents[1]


def _edges(tmp_path):
    path = tmp_path / "edges.txt"
    path.write_text("ana,bo,cy\ncy,di\ndi,eve,ana\nana,bo,cy\n")
    return str(path)


def test_version_matches_pyproject_and_python_dash_m_runs():
    text = (ROOT / "pyproject.toml").read_text()
    assert re.search(r'^version = "([^"]+)"', text, re.M).group(1) == hyperclust.__version__
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    out = subprocess.run([sys.executable, "-m", "hyperclust", "--version"], env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == f"hyperclust {hyperclust.__version__}"
    bad = subprocess.run([sys.executable, "-m", "hyperclust", "info", "/no/such/file"],
                         env=env, capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and bad.stderr.startswith("hyperclust: error:")


def test_verbose_logs_the_fit_and_the_cleaning(tmp_path, capsys):
    assert main(["-v", "cluster", _edges(tmp_path), "--k", "2", "--method",
                 "spectral-zhou"]) == 0
    err = capsys.readouterr().err
    assert "SpectralHypergraphClustering: fitted in" in err
    assert "merged 1 duplicate hyperedge" in err
    assert logging.getLogger("hyperclust").handlers == [
        h for h in logging.getLogger("hyperclust").handlers
        if isinstance(h, logging.NullHandler)]  # main leaves no handler behind


def test_default_is_silent_and_quiet_hides_warnings(tmp_path, capsys, monkeypatch):
    import warnings

    import hyperclust.cli as cli

    assert main(["cluster", _edges(tmp_path), "--k", "2", "--method", "spectral-zhou"]) == 0
    captured = capsys.readouterr()
    assert "fitted in" not in captured.err and "spectral-zhou on" in captured.out

    def warn_and_log(args):
        warnings.warn("something odd", UserWarning)
        logging.getLogger("hyperclust").warning("a logged warning")
        return 0

    monkeypatch.setattr(cli, "_run_command", warn_and_log)
    assert main(["datasets"]) == 0
    err = capsys.readouterr().err
    assert "hyperclust: warning: something odd" in err and "a logged warning" in err
    assert main(["-q", "datasets"]) == 0
    assert capsys.readouterr().err == ""


def test_verbose_and_quiet_exclude_each_other(capsys):
    with pytest.raises(SystemExit):
        main(["-v", "-q", "datasets"])
