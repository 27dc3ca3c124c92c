"""torch is optional (extra ``deep``): everything else works without it, and the CLI's
listing commands never import it."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

SRC = str(Path(__file__).resolve().parents[1] / "src")
# A finder first on sys.meta_path that refuses torch: `import torch` fails as if it were not
# installed (sys.modules['torch'] = None would break scipy, which looks torch up there).
_NO_TORCH = textwrap.dedent("""
    import importlib.abc, sys
    class _NoTorch(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name == "torch" or name.startswith("torch."):
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
    sys.meta_path.insert(0, _NoTorch())
""")


def _run(code: str, *, block_torch: bool, cwd=None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}
    prefix = _NO_TORCH if block_torch else ""
    return subprocess.run([sys.executable, "-c", prefix + textwrap.dedent(code)], env=env,
                          capture_output=True, text=True, timeout=300, cwd=cwd)


def test_listing_commands_do_not_import_torch(tmp_path):
    edges = tmp_path / "e.txt"
    edges.write_text("a,b,c\nc,d\n")
    for argv in (["datasets"], ["info", str(edges)]):
        r = _run(f"""
            import sys
            from hyperclust.cli import main
            assert main({argv!r}) == 0
            assert 'torch' not in sys.modules, 'torch imported'
            assert 'sklearn' not in sys.modules, 'scikit-learn imported'
        """, block_torch=False)
        assert r.returncode == 0, r.stderr


def test_package_and_methods_without_torch(tmp_path):
    r = _run("""
        import numpy as np
        import hyperclust, hyperclust.convert, hyperclust.cluster
        from hyperclust.cluster import UniDHC, available_methods, make_estimator
        from hyperclust.cluster.registry import needs_torch, torch_available
        from hyperclust.datasets.synthetic import hypergraph_sbm
        assert not torch_available()
        hg = hypergraph_sbm(80, 2, n_features=6, random_state=0)
        for name in available_methods():
            est = make_estimator(name, 2)          # every estimator can be made
            if needs_torch(name):
                try:
                    est.fit(hg)
                except ImportError as exc:
                    msg = str(exc)
                    assert 'pip install hyperclust[deep]' in msg and '\\n' not in msg, msg
                else:
                    raise AssertionError(name + ' fitted without torch')
            else:
                assert est.fit(hg).labels_.shape == (80,)
        try:
            hyperclust.convert.to_hyperedge_index(hg)
        except ImportError as exc:
            assert 'hyperclust[deep]' in str(exc)
        print('ok')
    """, block_torch=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().endswith("ok")


def test_cli_without_torch(tmp_path):
    edges = tmp_path / "e.txt"
    edges.write_text("0,1,2\n2,3\n3,4,5\n0,5\n")
    r = _run(f"""
        import sys
        from hyperclust.cli import main
        assert main(['cluster', {str(edges)!r}, '--k', '2', '--quiet']) == 0   # default auto: no torch
        rc = main(['cluster', {str(edges)!r}, '--k', '2', '--method', 'unidhc'])
        assert rc == 2, rc
    """, block_torch=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("auto on")
    assert r.stderr.strip() == ("hyperclust: error: UniDHC needs torch, which is not installed: "
                                "pip install hyperclust[deep]")
