"""Method names used by the CLI and the benchmark runner.

Each provider module defines ``METHODS = {name: (factory, description)}`` where
``factory(n_clusters, random_state, device) -> estimator``. Providers are imported lazily so
that listing methods stays cheap and one broken optional method cannot hide the others.
"""

from __future__ import annotations

import importlib

__all__ = ["available_methods", "make_estimator"]

_PROVIDERS = (
    "hyperclust.cluster.baselines",
    "hyperclust.cluster.spectral",
    "hyperclust.cluster.unidhc",
    "hyperclust.cluster.ahcka",
    "hyperclust.cluster.auto",
)


def _providers():
    """Yield each importable provider module (a missing optional provider is skipped)."""
    for mod_name in _PROVIDERS:
        try:
            yield importlib.import_module(mod_name)
        except ModuleNotFoundError as exc:
            if exc.name != mod_name:
                raise


def available_methods() -> dict:
    """``{name: description}`` for every registered method, in provider order."""
    return {name: desc for mod in _providers()
            for name, (_, desc) in getattr(mod, "METHODS", {}).items()}


def make_estimator(name: str, n_clusters: int, random_state=0, device: str = "cpu"):
    """Instantiate the estimator registered as ``name``."""
    for mod in _providers():
        methods = getattr(mod, "METHODS", {})
        if name in methods:
            return methods[name][0](n_clusters, random_state, device)
    known = ", ".join(available_methods())
    raise ValueError(f"unknown method {name!r}; available: {known}")
