"""Shared fixtures."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

# CI clones the repository with shared/ beside it: <parent>/main (this repo) and <parent>/shared.
_SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def shared_data_path() -> Path | None:
    """``$HYPERCLUST_DATA`` if set, else ``../shared/data`` next to the repository; None when
    neither exists."""
    env = os.environ.get("HYPERCLUST_DATA")
    for candidate in ([Path(env)] if env else []) + [_SHARED_DATA]:
        if candidate.is_dir():
            return candidate
    return None


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """Root of the benchmark collection (holding ``cora-ca/``, ``zoo/`` ...), or skip."""
    path = shared_data_path()
    if path is None:
        pytest.skip(f"benchmark data not found: set $HYPERCLUST_DATA or place the collection at "
                    f"{_SHARED_DATA}")
    return path


@pytest.fixture(scope="module")
def client():
    """A Dask client of a 2-worker in-process LocalCluster (one thread each), per module;
    skips without the ``distributed`` extra."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as c:
        yield c


@pytest.fixture(scope="session")
def docs_site(tmp_path_factory):
    """The documentation site built once by ``docs/build_api.sh`` (pdoc pages and the
    gallery): ``(folder, completed process)``; skips without pdoc."""
    pytest.importorskip("pdoc")
    out = tmp_path_factory.mktemp("docs") / "site"
    env = {**os.environ, "PYTHON": sys.executable, "MPLBACKEND": "Agg"}
    root = Path(__file__).resolve().parents[1]
    r = subprocess.run(["bash", str(root / "docs" / "build_api.sh"), str(out)], env=env,
                       capture_output=True, text=True, timeout=600)
    return out, r
