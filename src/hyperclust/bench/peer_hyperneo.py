"""``peer-hyperneo``: the public HyperNEO code (Nakajima & Uno 2025, ``kazuibasou/hyperneo``, MIT),
its HyCoSBM with one categorical node attribute weighted by ``gamma``, as a benchmark peer.

No pip package and no command line: :data:`DRIVER` runs ``hycosbm.HyCoSBM(G, K, gamma,
random_state=seed).fit()`` (its defaults) with ``python -c`` in a checkout (``checkout`` or
``$HYPERNEO_DIR``). The attribute is a label-free k-means category of the L2-normalised
feature rows (``categories`` groups, default ``n_clusters``); without features ``gamma`` is 0.
``gamma`` 0.8 is the middle of its notebook's tuned weights (0.7-0.9); its tuning is not run.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from .._validation import Interval
from .peer_hymmsbm import HyMMSBMPeer

__all__ = ["HyperNEOPeer", "attribute_categories"]

#: The environment variable naming the HyperNEO checkout.
CHECKOUT_ENV = "HYPERNEO_DIR"

#: Run with ``python -c`` in the checkout: argv = input ``.npz``, output ``inferred_u.txt``.
DRIVER = """
import sys
import numpy as np
import hycosbm, hypergraph
d = np.load(sys.argv[1])
ptr, members = d["indptr"], d["members"]
G = hypergraph.HyperGraph(int(d["n"]), ptr.size - 1, int(d["z"]))
G.E = [set(members[ptr[m]:ptr[m + 1]].tolist()) for m in range(ptr.size - 1)]
G.A, G.X = d["weights"], d["codes"]
model = hycosbm.HyCoSBM(G, int(d["k"]), float(d["gamma"]), random_state=int(d["seed"]))
np.savetxt(sys.argv[2], model.fit()[1][0])
"""


def attribute_categories(features, n_categories: int, seed: int) -> np.ndarray:
    """One category per node: k-means (10 restarts) of the L2-normalised rows into ``n_categories``.

    Returns codes ``0 .. Z - 1`` (every code used; fewer groups when there are fewer distinct rows).

    Examples
    --------
    >>> X = np.array([[1.0, 0], [2, 0], [0, 1], [0, 3]])
    >>> attribute_categories(X, 2, 0).tolist() in ([0, 0, 1, 1], [1, 1, 0, 0])
    True
    """
    from sklearn.cluster import KMeans
    from sklearn.preprocessing import normalize

    X = normalize(sp.csr_matrix(features) if sp.issparse(features) else np.asarray(features,
                                                                                   dtype=float))
    distinct = np.unique(X.toarray() if sp.issparse(X) else X, axis=0).shape[0]
    km = KMeans(min(int(n_categories), distinct), n_init=10, random_state=seed).fit(X)
    return np.unique(km.labels_, return_inverse=True)[1].astype(np.int64)


class HyperNEOPeer(HyMMSBMPeer):
    """The public HyperNEO code, run in its checkout (see the module docstring).

    Parameters
    ----------
    n_clusters : int
    gamma : float in [0, 1], default 0.8
        Its attribute weight; 0 without node attributes.
    categories : int >= 1 or None, default None
        Categories of its one attribute; None: ``n_clusters``.
    checkout : str or None, default None
        The HyperNEO checkout; None: ``$HYPERNEO_DIR``.
    random_state : int, default 0

    Examples
    --------
    >>> sorted(HyperNEOPeer(3).get_params())
    ['categories', 'checkout', 'gamma', 'n_clusters', 'random_state']
    """

    _parameter_constraints = {**HyMMSBMPeer._parameter_constraints,
                              "gamma": [Interval(float, 0, 1)],
                              "categories": [None, Interval(int, 1)]}
    _method, _library, _repository = "peer-hyperneo", "HyperNEO", "kazuibasou/hyperneo"
    _checkout_env = CHECKOUT_ENV
    _script = "hycosbm.py"

    def __init__(self, n_clusters=2, gamma=0.8, categories=None, checkout=None,
                 random_state=0):
        self.n_clusters = n_clusters
        self.gamma = gamma
        self.categories = categories
        self.checkout = checkout
        self.random_state = random_state

    def _command(self, hg, k, seed, folder) -> list:
        sizes = np.asarray(hg.edge_sizes)
        kept = np.flatnonzero(sizes >= 2)
        if kept.size == 0:
            raise ValueError("peer-hyperneo needs a hyperedge of two or more members")
        H = sp.csc_matrix(hg.incidence)[:, kept]
        H.sort_indices()
        if hg.features is None:
            codes, gamma = np.zeros(hg.n_nodes, dtype=np.int64), 0.0
        else:
            codes = attribute_categories(hg.features, self.categories or k, seed)
            gamma = float(self.gamma)
        weights = np.maximum(np.rint(np.asarray(hg.weights, dtype=float)[kept]), 1)
        path = Path(folder) / "input.npz"
        np.savez(path, indptr=H.indptr, members=H.indices, n=hg.n_nodes,
                 z=int(codes.max()) + 1, codes=codes, weights=weights.astype(np.int64), k=k,
                 gamma=gamma, seed=seed)
        return [sys.executable, "-c", DRIVER, str(path), str(Path(folder) / "inferred_u.txt")]
