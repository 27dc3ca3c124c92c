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


def _env(*paths) -> dict:
    return {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT / "src"), *map(str, paths), os.environ.get("PYTHONPATH", "")])}


def test_the_method_example_meets_the_estimator_contract():
    """The page's method, registered as it says, passes the contract every registered
    method is held to (``tests/test_sklearn_contract.py``)."""
    script = _examples()[0] + (
        "import test_sklearn_contract as contract\n"
        "tiny = contract.hypergraph_sbm(60, 3, homophily=0.9, n_features=8, random_state=0)\n"
        "contract.test_clone_and_params_round_trip('degree-split')\n"
        "contract.test_params_are_validated_in_fit_not_init('degree-split', tiny)\n"
        "contract.test_parameter_grid_sweep('degree-split', tiny)\n"
        "print('contract ok')\n")
    r = subprocess.run([sys.executable, "-c", script], env=_env(ROOT / "tests"),
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().endswith("contract ok")


def test_the_method_example_runs_from_the_shell(tmp_path):
    """``hyperclust cluster --plugins MODULE`` runs the page's method with every output; with
    no embedding, ``--plot`` maps the node features, or says in one line there is nothing."""
    (tmp_path / "degree_plugin.py").write_text(_examples()[0], encoding="utf-8")
    out, png = tmp_path / "labels.csv", tmp_path / "map.png"

    def cluster(target, *flags):
        return subprocess.run([sys.executable, "-m", "hyperclust", "cluster", target, "--method",
                               "degree-split", "--k", "2", "--quiet", *flags],
                              env=_env(tmp_path), capture_output=True, text=True, timeout=300,
                              cwd=tmp_path)

    r = cluster("synthetic-h0.9-n60-k3", "--plugins", "degree_plugin", "--out", str(out),
                "--plot", str(png))
    assert r.returncode == 0, r.stderr
    rows = out.read_text().split()
    assert rows[0] == "node,cluster" and len(rows) == 61
    assert {row.split(",")[1] for row in rows[1:]} == {"0", "1"}
    assert "--plot maps the node features" in r.stdout and png.stat().st_size > 0
    (tmp_path / "edges.txt").write_text("0,1,2\n1,3\n2,3,4\n")
    for flags in (("--plot", str(tmp_path / "b.png")), ("--embedding-out", "e.npy")):
        r = cluster("edges.txt", "--plugins", "degree_plugin", *flags)
        err = r.stderr.strip().splitlines()
        assert r.returncode == 2 and len(err) == 1 and "has no embedding" in err[0], r.stderr
    r = cluster("edges.txt")
    assert r.returncode == 2 and "unknown method 'degree-split'" in r.stderr
    r = cluster("edges.txt", "--plugins", "no_such_plugin")
    assert r.returncode == 2 and r.stderr.strip().count("\n") == 0 and "--plugins" in r.stderr
