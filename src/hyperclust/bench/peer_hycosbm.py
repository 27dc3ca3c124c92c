"""``peer-hycosbm``: the public HyCoSBM code (Badalyan, Ruggeri & De Bacco, "Hypergraphs with
node attributes: structure and inference", 2023; ``badalyananna/HyCoSBM``, MIT) run as a
benchmark peer: Hy-MMSBM's hypergraph block model with a term for node attributes, weighted
by ``gamma``.

It is no pip package, so it is run, never imported, as ``peer-hymmsbm`` is
(:class:`~hyperclust.bench.peer_hymmsbm.HyMMSBMPeer`): its ``main_inference.py`` in a
checkout (``checkout``, or the environment variable ``HYCOSBM_DIR``) on the hyperedges in its
text format and the attributes in its CSV format, where every column is one categorical
attribute that it one-hot encodes (so a binary bag-of-words column is two one-hot columns;
zoo's and mushroom's columns are category codes). Its defaults otherwise (100 EM rounds, a
full affinity matrix), ``--K`` the number of clusters, ``--seed`` the seed, ``--gamma`` the
attribute weight (its default 0 ignores the attributes; 0.8 is its README's example). It
reads the attributes of the nodes up to the largest id in a hyperedge of two or more members;
the nodes past it get ``-1``, scored as wrong, as for every peer.

``--training_rounds 1``: its default (20 rounds "of which the best likelihood is kept") gives
the same output at 20 times the cost: in its ``main_inference.py`` (commit bc8a1cd) the seed
update and the choice of the best model sit after the loop, so every round starts from the
same seed and the last round is kept.
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
    """``(csv file, column names)``: the first ``n_rows`` rows of ``features`` in HyCoSBM's
    attribute format, one named column per attribute, values written as numbers.

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
        Its attribute weight (0: the attributes are ignored); without node attributes 0.
    checkout : str or None, default None
        The HyCoSBM checkout; None: ``$HYCOSBM_DIR``.
    random_state : int, default 0
        Its ``--seed``.

    Attributes
    ----------
    labels_, memberships_ : as :class:`~hyperclust.bench.peer_hymmsbm.HyMMSBMPeer`

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
