"""Converters between :class:`hyperclust.Hypergraph` and other hypergraph libraries.

Every ``from_*`` function returns a :class:`~hyperclust.Hypergraph`; every ``to_*`` function
returns the other library's object. What survives a round trip:

========================  ========  ===========  =======  ========  ======  ================
library                   node ids  hyperedge    weights  features  labels  nodes in no
                                    ids                                     hyperedge
========================  ========  ===========  =======  ========  ======  ================
XGI ``Hypergraph``        yes       yes          yes      yes       yes     yes
HyperNetX ``Hypergraph``  yes       yes          yes      yes       yes     opt-in [1]_
DHG ``Hypergraph``        no [2]_   no [2]_      yes      no [3]_   no      yes
PyG ``HyperGraphData``    yes       yes          yes      yes       yes     yes
networkx bipartite graph  yes       yes          yes      yes       yes     yes
pandas tables             yes       yes          yes      yes       yes     yes (node table)
========================  ========  ===========  =======  ========  ======  ================

.. [1] HyperNetX shows only nodes that are in a hyperedge; :func:`to_hypernetx` keeps the
   others in its node property store, and ``from_hypernetx(..., include_isolated=True)``
   reads them back.
.. [2] DHG numbers vertices ``0..n-1`` and hyperedges in its own order; pass ``node_ids=``
   to :func:`from_dhg` to put ids back.
.. [3] DHG keeps features and labels outside the hypergraph; pass them to :func:`from_dhg`.

Conventions: hyperedge weights are the ``"weight"`` attribute of a hyperedge, class labels the
``"label"`` attribute of a node and features the ``"features"`` attribute of a node (one
1-D array, or a 1-row sparse matrix, per node); every name is a keyword argument. String
labels become ``0..k-1`` in sorted order (as the file readers do); a node without a label
gets ``-1`` (unlabelled). Ids are ints or strings (other hashables become their ``str``).

Each library is imported only when a converter needs it; a missing one raises a one-line
``ImportError`` naming the extra to install: one per library (``pip install
hyperclust[xgi]``, ``[hypernetx]``, ``[dhg]``, ``[pyg]``, ``[networkx]``, ``[pandas]``) or
all of them (``hyperclust[interop]``). Construction
goes through :meth:`Hypergraph.from_pairs`, so the usual cleaning applies (keyword arguments
``duplicates=``, ``singletons=``, ``empty=`` pass through). Duplicate hyperedges are
merged by default, as the file readers and the command line merge them (one policy for
every way in): weights summed into the first copy, later ids gone; ``hg.cleaning``
(``hyperclust info``) and the ``hyperclust`` logger say what was merged.
``duplicates="keep"`` keeps each copy with its own id and weight. DHG merges identical
hyperedges itself: :func:`to_dhg` warns when ``hg`` has any.

Results go back where users keep them: every ``to_*`` but :func:`to_dhg` (DHG keeps no
node attributes) takes ``clusters=`` (one label per node, or a fitted estimator, whose
``node_ids_`` must be ``hg``'s) and writes it as that library's node attribute
``"cluster"`` (XGI and networkx node attributes, a HyperNetX node property, ``data.cluster``
in PyG, a ``cluster`` column in pandas). :func:`to_pyg` writes float32 features and weights
(what PyG's layers compute in; ``dtype=None`` keeps float64).

:func:`from_any` picks the converter from the type of its argument; every estimator's
``fit`` takes the same objects.
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
