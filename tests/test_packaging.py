"""Packaging: licence, citation, changelog, typing marker and exports agree with
pyproject.toml."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import hyperclust

ROOT = Path(__file__).resolve().parents[1]


def _pyproject():
    tomllib = pytest.importorskip("tomllib")
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def test_license_file_matches_pyproject():
    project = _pyproject()
    assert project["license"] == "MIT" and project["license-files"] == ["LICENSE"]
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")
    assert not any(c.startswith("License ::") for c in project["classifiers"])  # SPDX instead


def test_build_backend_reads_spdx_licenses_and_python_classifiers_are_current():
    tomllib = pytest.importorskip("tomllib")
    build = tomllib.loads((ROOT / "pyproject.toml").read_text())["build-system"]
    assert "setuptools>=77" in build["requires"]  # the first to read license = "MIT"
    assert "Programming Language :: Python :: 3.13" in _pyproject()["classifiers"]


def test_citation_and_changelog_name_this_version():
    cff = (ROOT / "CITATION.cff").read_text()
    assert re.search(r'^version: "([^"]+)"', cff, re.M).group(1) == hyperclust.__version__
    assert "license: MIT" in cff and cff.startswith("cff-version: 1.2.0")
    changelog = (ROOT / "CHANGELOG.md").read_text()
    assert f"## [{hyperclust.__version__}]" in changelog


def test_typed_marker_ships():
    assert (ROOT / "src" / "hyperclust" / "py.typed").is_file()
    text = (ROOT / "pyproject.toml").read_text()
    assert '"py.typed"' in text and "Typing :: Typed" in _pyproject()["classifiers"]


def test_every_estimator_class_is_exported():
    import hyperclust.cluster as cluster
    from hyperclust.cluster.base import HypergraphClusterer

    for name in cluster.__all__:
        getattr(cluster, name)
    from hyperclust.cluster.signed import SignedSpectralClustering

    assert cluster.SignedSpectralClustering is SignedSpectralClustering
    exported = {getattr(cluster, n) for n in cluster.__all__}
    from hyperclust.cluster.registry import available_methods, make_estimator

    for method in available_methods():
        est = make_estimator(method, 2)
        assert isinstance(est, HypergraphClusterer) and type(est) in exported, method
