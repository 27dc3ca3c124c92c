"""Converters for any supported object (dispatch on its type); see :mod:`hyperclust.convert`."""

from __future__ import annotations

import scipy.sparse as sp

from ..hypergraph import Hypergraph
from .dhg import from_dhg
from .hypernetx import from_hypernetx
from .networkx import from_networkx
from .pandas import from_pandas
from .pyg import from_pyg
from .xgi import from_xgi

__all__ = ["from_any"]


def _roots(obj) -> set:
    """Top-level package names of the classes of ``obj`` (its MRO)."""
    return {cls.__module__.split(".")[0] for cls in type(obj).__mro__}


def from_any(obj, **kwargs) -> Hypergraph:
    """Convert any supported hypergraph object into a hyperclust Hypergraph.

    Dispatches on the type of ``obj``: ``xgi.Hypergraph`` (:func:`from_xgi`),
    ``hypernetx.Hypergraph`` (:func:`from_hypernetx`), ``dhg.Hypergraph`` (:func:`from_dhg`),
    a PyG ``HyperGraphData``/``Data`` or a torch hyperedge index of shape (2, nnz)
    (:func:`from_pyg`), a networkx bipartite graph (:func:`from_networkx`), a pandas
    incidence table (:func:`from_pandas`), a scipy sparse incidence matrix
    (:meth:`Hypergraph.from_incidence`), a list of hyperedges or a dict
    ``{hyperedge id: members}`` (:meth:`Hypergraph.from_edges`); a Hypergraph is returned
    as it is.

    Parameters
    ----------
    obj : object
    **kwargs
        Passed to the converter.

    Returns
    -------
    Hypergraph

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
    roots = _roots(obj)
    if "xgi" in roots:
        return from_xgi(obj, **kwargs)
    if "hypernetx" in roots:
        return from_hypernetx(obj, **kwargs)
    if "dhg" in roots:
        return from_dhg(obj, **kwargs)
    if "torch_geometric" in roots or ("torch" in roots and getattr(obj, "ndim", 0) == 2):
        return from_pyg(obj, **kwargs)
    if "networkx" in roots:
        return from_networkx(obj, **kwargs)
    if "pandas" in roots and type(obj).__name__ == "DataFrame":
        return from_pandas(obj, **kwargs)
    if sp.issparse(obj):
        return Hypergraph.from_incidence(obj, **kwargs)
    if isinstance(obj, dict):
        return Hypergraph.from_edges(list(obj.values()), edge_ids=list(obj.keys()), **kwargs)
    if isinstance(obj, (list, tuple)):
        return Hypergraph.from_edges(obj, **kwargs)
    raise TypeError(
        f"cannot convert a {type(obj).__qualname__} to a hyperclust Hypergraph; supported: "
        "xgi/hypernetx/dhg Hypergraph, PyG HyperGraphData or hyperedge_index, networkx "
        "bipartite graph, pandas DataFrame, scipy sparse incidence, list or dict of "
        "hyperedges")
