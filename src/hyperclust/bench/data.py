"""Benchmark inputs: dataset names -> hypergraphs, and the evaluation protocols.

Protocols say which nodes a run clusters and scores:

* ``all``: every node, isolated ones included (the AHCKA/ANCKA protocol);
* ``isolated-removed`` (alias ``covered``): nodes in at least one hyperedge (TriCL's);
* ``lcc``: the largest connected component only (what HyperNetX's spectral clustering
  accepts).
"""

from __future__ import annotations

import importlib
import os
import re
from pathlib import Path

from ..hypergraph import Hypergraph

__all__ = ["PROTOCOLS", "canonical_protocol", "resolve_dataset", "apply_protocol",
           "import_object", "SYNTHETIC_PATTERN", "check_dataset_name", "check_method_name",
           "default_data_dir"]

PROTOCOLS = ("all", "isolated-removed", "lcc")
_ALIASES = {"covered": "isolated-removed", "isolated_removed": "isolated-removed",
            "all-nodes": "all", "largest-component": "lcc"}

#: ``synthetic-h0.3`` with optional ``-n2000`` (nodes), ``-k4`` (classes), ``-s0`` (seed).
SYNTHETIC_PATTERN = re.compile(
    r"^synthetic-h(?P<h>[0-9]*\.?[0-9]+)(?:-n(?P<n>\d+))?(?:-k(?P<k>\d+))?(?:-s(?P<s>\d+))?$")


def canonical_protocol(protocol: str) -> str:
    """The canonical name of ``protocol`` (``ValueError`` for unknown names).

    Examples
    --------
    >>> canonical_protocol("covered"), canonical_protocol("LCC")
    ('isolated-removed', 'lcc')
    """
    if not isinstance(protocol, str):
        raise TypeError(f"protocol must be a string, got {type(protocol).__name__}")
    p = _ALIASES.get(protocol.lower(), protocol.lower())
    if p not in PROTOCOLS:
        raise ValueError(f"unknown protocol {protocol!r}; use one of {PROTOCOLS} "
                         f"(or aliases {sorted(_ALIASES)})")
    return p


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


def _is_path(name: str) -> bool:
    return Path(name).exists()


def check_dataset_name(name: str) -> None:
    """Raise ``ValueError`` (one line, with close matches) unless ``name`` can be resolved:
    a registered dataset, a synthetic name, ``module:function``, or an existing file or
    folder. Nothing is loaded.

    Examples
    --------
    >>> check_dataset_name("synthetic-h0.7-n500")   # nothing loaded
    >>> check_dataset_name("zooo")
    Traceback (most recent call last):
    ...
    ValueError: ...
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"dataset name must be a non-empty string, got {name!r}")
    if _is_path(name) or SYNTHETIC_PATTERN.match(name) or ":" in name:
        return
    from ..datasets.registry import get_spec

    get_spec(name)


def check_method_name(name: str) -> None:
    """Raise ``ValueError`` unless ``name`` is a registered method (ours or a peer's) or
    ``module:factory``; nothing is imported.

    Examples
    --------
    >>> check_method_name("spectral-zhou")
    >>> check_method_name("spectral-zou")
    Traceback (most recent call last):
    ...
    ValueError: unknown method 'spectral-zou' (did you mean spectral-zhou...
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"method name must be a non-empty string, got {name!r}")
    if ":" in name:
        return
    from ..cluster.registry import available_methods

    known = available_methods(peers=True)
    if name not in known:
        import difflib

        close = difflib.get_close_matches(name, list(known), n=3)
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        raise ValueError(f"unknown method {name!r}{hint}; available: {', '.join(known)}")


def resolve_dataset(name: str, data_dir=None) -> Hypergraph:
    """Load the dataset called ``name``.

    ``name`` is an existing file or folder (read with
    :func:`hyperclust.io.read_hypergraph`); a dataset of
    :func:`hyperclust.datasets.load_dataset`; a synthetic
    hypergraph SBM ``synthetic-h<homophily>[-n<nodes>][-k<classes>][-s<seed>]`` (defaults
    2000 nodes, 4 classes, seed 0: the graph is fixed, the run's seed only seeds the
    method); or ``module:function`` returning a Hypergraph (used by tests and plugins).

    Examples
    --------
    >>> hg = resolve_dataset("synthetic-h0.9-n200-k2")
    >>> hg.n_nodes, hg.n_classes
    (200, 2)
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"dataset name must be a non-empty string, got {name!r}")
    if _is_path(name):
        from ..io import read_hypergraph

        return read_hypergraph(name)
    m = SYNTHETIC_PATTERN.match(name)
    if m:
        from ..datasets.synthetic import hypergraph_sbm

        return hypergraph_sbm(n_nodes=int(m["n"] or 2000), n_classes=int(m["k"] or 4),
                              homophily=float(m["h"]), random_state=int(m["s"] or 0), name=name)
    if ":" in name:
        hg = import_object(name)()
        if not isinstance(hg, Hypergraph):
            raise TypeError(f"{name} returned {type(hg).__name__}, expected a Hypergraph")
        return hg
    from ..datasets import load_dataset

    return load_dataset(name, data_dir=data_dir)


def default_data_dir() -> Path:
    """Where the benchmarks read the shared datasets: ``$HYPERCLUST_DATA``, else
    ``shared/data`` beside the checkout that holds the imported hyperclust.

    Examples
    --------
    >>> import os
    >>> saved = os.environ.pop("HYPERCLUST_DATA", None)
    >>> default_data_dir().parts[-2:]
    ('shared', 'data')
    >>> os.environ["HYPERCLUST_DATA"] = "/data/hypergraphs"
    >>> str(default_data_dir())
    '/data/hypergraphs'
    >>> _ = os.environ.pop("HYPERCLUST_DATA") if saved is None else os.environ.update(HYPERCLUST_DATA=saved)
    """
    env = os.environ.get("HYPERCLUST_DATA")
    if env:
        return Path(env)
    from .provenance import package_root

    return package_root().parents[2] / "shared" / "data"


def apply_protocol(hg: Hypergraph, protocol: str) -> Hypergraph:
    """The sub-hypergraph a run under ``protocol`` clusters and scores.

    Examples
    --------
    >>> from hyperclust import Hypergraph
    >>> hg = Hypergraph.from_edges([[0, 1], [2, 3, 4]], n_nodes=6)
    >>> apply_protocol(hg, "all").n_nodes, apply_protocol(hg, "covered").n_nodes, apply_protocol(hg, "lcc").n_nodes
    (6, 5, 3)
    """
    p = canonical_protocol(protocol)
    if p == "all":
        return hg
    if p == "isolated-removed":
        return hg.drop_isolated()
    return hg.largest_component()
