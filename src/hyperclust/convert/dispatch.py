"""Convert any supported object, dispatching on its type."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..hypergraph import Hypergraph
from .dhg import from_dhg
from .hypernetx import from_hypernetx
from .networkx import from_networkx
from .pandas import from_pandas
from .pyg import from_pyg
from ._common import DUPLICATES
from .xgi import from_xgi

__all__ = ["from_any", "converter_for", "SUPPORTED"]

#: What :func:`from_any` takes, in words (for error messages).
SUPPORTED = ("xgi/hypernetx/dhg Hypergraph, PyG HyperGraphData or hyperedge_index, networkx "
             "bipartite graph, pandas DataFrame, scipy sparse incidence, list or dict of "
             "hyperedges")


def _roots(obj) -> set:
    return {cls.__module__.split(".")[0] for cls in type(obj).__mro__}


def from_any(obj, **kwargs) -> Hypergraph:
    """Convert any supported hypergraph object into a hyperclust Hypergraph.

    Takes what :data:`SUPPORTED` lists (a Hypergraph is returned as it is); duplicate
    hyperedges are merged unless ``duplicates="keep"``.

    Parameters
    ----------
    obj : object
    **kwargs
        Passed to the converter.

    Raises
    ------
    TypeError
        For any other type.

    Examples
    --------
    >>> from_any({"e1": ["ana", "bo"], "e2": ["bo", "cy"]}).edge_ids.tolist()
    ['e1', 'e2']
    >>> from_any(42)
    Traceback (most recent call last):
    ...
    TypeError: cannot convert a int to a hyperclust Hypergraph; supported: xgi/hypernetx/dhg Hypergraph, PyG HyperGraphData or hyperedge_index, networkx bipartite graph, pandas DataFrame, scipy sparse incidence, list or dict of hyperedges
    """
    if isinstance(obj, Hypergraph):
        return obj
    convert = converter_for(obj)
    if convert is None:
        raise TypeError(f"cannot convert a {type(obj).__qualname__} to a hyperclust Hypergraph; "
                        f"supported: {SUPPORTED}")
    return convert(obj, **kwargs)


def _from_dict(obj, **kwargs) -> Hypergraph:
    return Hypergraph.from_edges(list(obj.values()), edge_ids=list(obj.keys()),
                                 **{"duplicates": DUPLICATES, **kwargs})


def _from_list(obj, **kwargs) -> Hypergraph:
    return Hypergraph.from_edges(obj, **{"duplicates": DUPLICATES, **kwargs})


def _from_sparse(obj, **kwargs) -> Hypergraph:
    return Hypergraph.from_incidence(obj, **{"duplicates": DUPLICATES, **kwargs})


def _refuse_dense(obj, **kwargs):
    raise TypeError(f"a dense {type(obj).__name__} is ambiguous (incidence or features?): pass "
                    "Hypergraph.from_incidence(array) for an incidence matrix, or "
                    "hyperclust.datasets.hypergraph_from_features(array) for node features")


def converter_for(obj):
    """The converter :func:`from_any` would use for ``obj``, or None.

    Examples
    --------
    >>> converter_for({"e1": [0, 1]}) is not None, converter_for(42) is None
    (True, True)
    """
    roots = _roots(obj)
    if "xgi" in roots:
        return from_xgi
    if "hypernetx" in roots:
        return from_hypernetx
    if "dhg" in roots:
        return from_dhg
    if "torch_geometric" in roots or ("torch" in roots and getattr(obj, "ndim", 0) == 2):
        return from_pyg
    if "networkx" in roots:
        return from_networkx
    if "pandas" in roots and type(obj).__name__ == "DataFrame":
        return from_pandas
    if sp.issparse(obj):
        return _from_sparse
    if isinstance(obj, np.ndarray):
        return _refuse_dense
    if isinstance(obj, dict):
        return _from_dict
    if isinstance(obj, (list, tuple)):
        return _from_list
    return None
