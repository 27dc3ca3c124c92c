"""``peer-hycosbm``: the public HyCoSBM code (Badalyan, Ruggeri & De Bacco 2023,
``badalyananna/HyCoSBM``, MIT), Hy-MMSBM with node attributes weighted by ``gamma``, run in a
checkout (``$HYCOSBM_DIR``) as ``peer-hymmsbm`` is; each feature column is one categorical
attribute (it one-hot encodes them). ``--training_rounds 1``: its 20 rounds give the same
output at 20 times the cost (commit bc8a1cd updates the seed and keeps the best after the loop).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import scipy.sparse as sp

from .._validation import Interval
from .peer_hymmsbm import HyMMSBMPeer

__all__ = ["HyCoSBMPeer", "write_attributes"]

#: The environment variable naming the HyCoSBM checkout.
CHECKOUT_ENV = "HYCOSBM_DIR"


def write_attributes(features, n_rows: int, folder) -> tuple:
    """``(csv file, column names)``: the first ``n_rows`` rows of ``features`` in HyCoSBM's format.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path, names = write_attributes(np.array([[1, 0.5], [2, 0], [3, 1]]), 2, tmp)
    ...     path.read_text().split("\\n"), names
    (['a0,a1', '1,0.5', '2,0', ''], ['a0', 'a1'])
    """
    X = features[:n_rows]
    X = X.toarray() if sp.issparse(X) else np.asarray(X)
    names = [f"a{j}" for j in range(X.shape[1])]
    path = Path(folder) / "attributes.csv"
    np.savetxt(path, X, fmt="%.17g", delimiter=",", header=",".join(names), comments="")
    return path, names


class HyCoSBMPeer(HyMMSBMPeer):
    """The public HyCoSBM code, run in its checkout (see the module docstring).

    Parameters
    ----------
    n_clusters : int
    gamma : float in [0, 1], default 0.8
        Its attribute weight (its README's example); 0 without node attributes.
    checkout : str or None, default None
        The HyCoSBM checkout; None: ``$HYCOSBM_DIR``.
    random_state : int, default 0

    Examples
    --------
    >>> sorted(HyCoSBMPeer(3).get_params().items())
    [('checkout', None), ('gamma', 0.8), ('n_clusters', 3), ('random_state', 0)]
    """

    _parameter_constraints = {**HyMMSBMPeer._parameter_constraints,
                              "gamma": [Interval(float, 0, 1)]}
    _method, _library, _repository = "peer-hycosbm", "HyCoSBM", "badalyananna/HyCoSBM"
    _checkout_env = CHECKOUT_ENV

    def __init__(self, n_clusters=2, gamma=0.8, checkout=None, random_state=0):
        self.n_clusters = n_clusters
        self.gamma = gamma
        self.checkout = checkout
        self.random_state = random_state

    def _more_arguments(self, hg, folder) -> list:
        args = ["--training_rounds", "1"]  # the same output as its 20 (module docstring)
        if hg.features is None or self.gamma == 0:
            return args + ["--gamma", "0"]
        in_pairs = np.flatnonzero(np.diff(
            hg.incidence[:, np.asarray(hg.edge_sizes) >= 2].tocsr().indptr))
        if in_pairs.size == 0:
            raise ValueError("peer-hycosbm needs a hyperedge of two or more members")
        n_rows = int(in_pairs[-1]) + 1  # its node count: the largest id it sees, plus one
        path, names = write_attributes(hg.features, n_rows, folder)
        return args + ["--gamma", repr(float(self.gamma)), "--attribute_file", str(path),
                       "--attribute_names", *names]
