"""Converters between :class:`hyperclust.Hypergraph` and other hypergraph libraries.

``from_*`` returns a Hypergraph, ``to_*`` the other library's object; :func:`from_any`
dispatches on the type. What survives a round trip:

========================  ========  ========  =======  ========  ======  ==============
library                   node ids  edge ids  weights  features  labels  isolated nodes
========================  ========  ========  =======  ========  ======  ==============
XGI ``Hypergraph``        yes       yes       yes      yes       yes     yes
HyperNetX ``Hypergraph``  yes       yes       yes      yes       yes     opt-in [1]_
DHG ``Hypergraph``        no [2]_   no [2]_   yes      no [2]_   no      yes
PyG ``HyperGraphData``    yes       yes       yes      yes       yes     yes
networkx bipartite graph  yes       yes       yes      yes       yes     yes
pandas tables             yes       yes       yes      yes       yes     yes
========================  ========  ========  =======  ========  ======  ==============

.. [1] ``from_hypernetx(..., include_isolated=True)`` reads back what :func:`to_hypernetx` stores.
.. [2] DHG keeps no ids, features or labels: pass them to :func:`from_dhg`.

Weights, labels and features are the ``"weight"``, ``"label"`` and ``"features"`` attributes
(keyword arguments rename them); string labels become ``0..k-1`` in sorted order, missing -1.
Duplicate hyperedges are merged (weights summed) as the readers do; ``duplicates="keep"``
keeps them. ``to_*`` (but :func:`to_dhg`) take ``clusters=`` and write a ``"cluster"``
attribute. A missing library raises an ``ImportError`` naming the extra to install
(``pip install hyperclust[xgi]``, ..., or ``[interop]``).
"""

from __future__ import annotations

from .dhg import from_dhg, to_dhg
from .dispatch import from_any
from .hypernetx import from_hypernetx, to_hypernetx
from .networkx import from_networkx, to_networkx
from .pandas import from_pandas, to_pandas, to_pandas_incidence
from .pyg import from_pyg, to_hyperedge_index, to_pyg
from .xgi import from_xgi, to_xgi

__all__ = [
    "from_any",
    "from_xgi", "to_xgi",
    "from_hypernetx", "to_hypernetx",
    "from_dhg", "to_dhg",
    "from_pyg", "to_pyg", "to_hyperedge_index",
    "from_networkx", "to_networkx",
    "from_pandas", "to_pandas", "to_pandas_incidence",
]
