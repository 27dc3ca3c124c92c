"""Benchmark inputs: dataset names -> hypergraphs, and the protocols ``all`` (every node),
``isolated-removed`` (alias ``covered``: nodes in a hyperedge) and ``lcc`` (largest component).
"""

from __future__ import annotations

import os
from pathlib import Path

from ..datasets.resolve import SYNTHETIC_PATTERN, check_dataset_name, import_object, resolve_dataset
from ..hypergraph import Hypergraph

# resolve_dataset, check_dataset_name, SYNTHETIC_PATTERN and import_object are re-exported:
# the benchmarks resolve dataset names with the command line's resolver
# (:mod:`hyperclust.datasets.resolve`).
__all__ = ["PROTOCOLS", "canonical_protocol", "resolve_dataset", "apply_protocol",
           "import_object", "SYNTHETIC_PATTERN", "check_dataset_name", "check_method_name",
           "default_data_dir"]

PROTOCOLS = ("all", "isolated-removed", "lcc")
_ALIASES = {"covered": "isolated-removed", "isolated_removed": "isolated-removed",
            "all-nodes": "all", "largest-component": "lcc"}


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


def check_method_name(name: str) -> None:
    """Raise ``ValueError`` unless ``name`` is a registered method or ``module:factory`` (nothing imported).

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


def default_data_dir() -> Path:
    """``$HYPERCLUST_DATA``, else ``shared/data`` beside the checkout of the imported hyperclust.

    Examples
    --------
    >>> import os
    >>> saved = os.environ.pop("HYPERCLUST_DATA", None)
    >>> default_data_dir().parts[-2:]
    ('shared', 'data')
    >>> _ = saved is None or os.environ.update(HYPERCLUST_DATA=saved)
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
