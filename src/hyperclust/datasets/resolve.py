"""Dataset names -> hypergraphs: the one resolver of the command line and the benchmarks."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

from ..hypergraph import Hypergraph

__all__ = ["resolve_dataset", "check_dataset_name", "SYNTHETIC_PATTERN", "import_object"]

#: ``synthetic-h0.3`` with optional ``-n2000`` (nodes), ``-k4`` (classes), ``-s0`` (seed).
SYNTHETIC_PATTERN = re.compile(
    r"^synthetic-h(?P<h>[0-9]*\.?[0-9]+)(?:-n(?P<n>\d+))?(?:-k(?P<k>\d+))?(?:-s(?P<s>\d+))?$")


def import_object(path: str):
    """Import ``"package.module:attribute"``.

    Examples
    --------
    >>> import_object("hyperclust:Hypergraph").__name__
    'Hypergraph'
    """
    mod_name, _, attr = path.partition(":")
    if not mod_name or not attr:
        raise ValueError(f"expected 'module:attribute', got {path!r}")
    return getattr(importlib.import_module(mod_name), attr)


def _check_name(name) -> None:
    if not isinstance(name, str) or not name:
        raise ValueError(f"dataset name must be a non-empty string, got {name!r}")


def check_dataset_name(name: str) -> None:
    """Raise ``ValueError`` (with close matches) unless ``name`` resolves; nothing is loaded.

    Examples
    --------
    >>> check_dataset_name("synthetic-h0.7-n500")   # nothing loaded
    >>> check_dataset_name("zooo")
    Traceback (most recent call last):
    ...
    ValueError: ...
    """
    _check_name(name)
    if Path(name).exists() or SYNTHETIC_PATTERN.match(name) or ":" in name:
        return
    from .registry import get_spec

    get_spec(name)


def resolve_dataset(name: str, data_dir=None) -> Hypergraph:
    """Load the dataset called ``name``.

    ``name`` is an existing file or folder (:func:`hyperclust.io.read_hypergraph`), a
    registered dataset, a synthetic SBM
    ``synthetic-h<homophily>[-n<nodes>][-k<classes>][-s<seed>]`` (defaults 2000 nodes, 4
    classes, seed 0), or ``module:function`` returning a Hypergraph.

    Parameters
    ----------
    name : str
    data_dir : path, optional
        Where registered datasets are looked for first.

    Returns
    -------
    Hypergraph

    Examples
    --------
    >>> hg = resolve_dataset("synthetic-h0.9-n200-k2")
    >>> hg.n_nodes, hg.n_classes
    (200, 2)
    """
    _check_name(name)
    if Path(name).exists():
        from ..io import read_hypergraph

        return read_hypergraph(name)
    m = SYNTHETIC_PATTERN.match(name)
    if m:
        from .synthetic import hypergraph_sbm

        return hypergraph_sbm(n_nodes=int(m["n"] or 2000), n_classes=int(m["k"] or 4),
                              homophily=float(m["h"]), random_state=int(m["s"] or 0), name=name)
    if ":" in name:
        hg = import_object(name)()
        if not isinstance(hg, Hypergraph):
            raise TypeError(f"{name} returned {type(hg).__name__}, expected a Hypergraph")
        return hg
    from .load import load_dataset

    return load_dataset(name, data_dir=data_dir)
