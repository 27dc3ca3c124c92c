"""Import Dask lazily, with a one-line error naming the extra to install."""

from __future__ import annotations

import importlib

INSTALL_HINT = 'the distributed methods need Dask: pip install "hyperclust[distributed]"'


def require(module: str = "distributed"):
    """Import and return ``module`` (``"dask"`` or ``"distributed"``), or raise ImportError
    with the install hint."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise ImportError(INSTALL_HINT) from None
