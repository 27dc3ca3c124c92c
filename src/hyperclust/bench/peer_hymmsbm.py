"""``peer-hymmsbm``: the public Hy-MMSBM code (Ruggeri et al. 2023, ``nickruggeri/Hy-MMSBM``, MIT)
as a benchmark peer: its ``main_inference.py`` run (never imported) in a checkout
(``checkout`` or ``$HYMMSBM_DIR``) with its defaults, ``--K`` and ``--seed``, on the hyperedges of
two or more members. A node's cluster is the argmax of its membership ``u`` (-1 without one).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from ..cluster.base import check_hypergraph, check_n_clusters
from ..cluster.registry import MissingDependency
from .peers import PeerClusterer

__all__ = ["HyMMSBMPeer", "write_hyperedges"]

#: The environment variable naming the Hy-MMSBM checkout.
CHECKOUT_ENV = "HYMMSBM_DIR"


def write_hyperedges(hg, folder) -> tuple[Path, Path]:
    """``(hyperedge file, weight file)`` of ``hg`` in Hy-MMSBM's text format (hyperedges of two or more).

    Examples
    --------
    >>> import tempfile
    >>> from hyperclust import Hypergraph
    >>> hg = Hypergraph.from_edges([[2, 0], [1], [0, 1, 3]], weights=[1.0, 2.0, 3.0])
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     hye, w = write_hyperedges(hg, tmp)
    ...     hye.read_text().split("\\n"), np.loadtxt(w).tolist()
    (['0 2', '0 1 3', ''], [1.0, 3.0])
    """
    folder = Path(folder)
    sizes = np.asarray(hg.edge_sizes)
    kept = np.flatnonzero(sizes >= 2)
    edges = hg.edges()
    lines = [" ".join(map(str, np.sort(edges[j]))) for j in kept]
    hye, weights = folder / "hye.txt", folder / "weights.txt"
    hye.write_text("\n".join(lines) + "\n")
    np.savetxt(weights, np.asarray(hg.weights, dtype=np.float64)[kept])
    return hye, weights


class HyMMSBMPeer(PeerClusterer):
    """The public Hy-MMSBM code, run in its checkout (see the module docstring).

    Parameters
    ----------
    n_clusters : int
    checkout : str or None, default None
        The Hy-MMSBM checkout; None: ``$HYMMSBM_DIR``.
    random_state : int, default 0
        Its ``--seed``.

    Attributes
    ----------
    labels_ : ndarray of int64, shape (n_nodes,)
        ``-1`` for the nodes it gave no membership.
    memberships_ : ndarray, shape (n_nodes, n_clusters)
        Its inferred ``u``.

    Examples
    --------
    >>> from hyperclust import Hypergraph
    >>> hg = Hypergraph.from_edges([[0, 1], [1, 2]])
    >>> HyMMSBMPeer(2, checkout="/no/such/dir").fit(hg)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    hyperclust.cluster.registry.MissingDependency: peer-hymmsbm needs a checkout of ...
    """

    _parameter_constraints = {**PeerClusterer._parameter_constraints,
                              "checkout": [None, str]}
    _method, _library, _repository = "peer-hymmsbm", "Hy-MMSBM", "nickruggeri/Hy-MMSBM"
    _checkout_env = CHECKOUT_ENV
    #: The checkout's file that :meth:`_command` runs (or imports).
    _script = "main_inference.py"

    def __init__(self, n_clusters=2, checkout=None, random_state=0):
        self.n_clusters = n_clusters
        self.checkout = checkout
        self.random_state = random_state

    def fit(self, hypergraph, y=None):
        hg = check_hypergraph(hypergraph)
        k = check_n_clusters(self.n_clusters, hg.n_nodes)
        seed = self._rng_seed(self.random_state)
        checkout = self.checkout or os.environ.get(self._checkout_env, "")
        if not (checkout and (Path(checkout) / self._script).is_file()):
            raise MissingDependency(
                f"{self._method} needs a checkout of {self._repository} (git clone it and "
                f"set {self._checkout_env}); no {self._script} in {checkout!r}")
        with tempfile.TemporaryDirectory() as tmp:
            cmd = self._command(hg, k, seed, tmp)
            done = subprocess.run(cmd, cwd=checkout, capture_output=True, text=True)
            if done.returncode:
                last = (done.stderr.strip().splitlines() or ["no message"])[-1]
                raise RuntimeError(f"{self._library} failed: {last}")
            u = np.atleast_2d(np.loadtxt(Path(tmp) / "inferred_u.txt"))
        self.memberships_ = np.zeros((hg.n_nodes, k))
        self.memberships_[:u.shape[0]] = u
        labels = np.full(hg.n_nodes, -1, dtype=np.int64)
        assigned = self.memberships_.sum(axis=1) > 0
        labels[assigned] = self.memberships_[assigned].argmax(axis=1)
        self.labels_ = labels
        return self

    def _command(self, hg, k, seed, folder) -> list:
        """The command run in the checkout (inputs written to ``folder``, where it leaves ``inferred_u.txt``)."""
        hye, weights = write_hyperedges(hg, folder)
        return [sys.executable, "main_inference.py", "--K", str(k), "--hyperedge_file",
                str(hye), "--weight_file", str(weights), "--seed", str(seed),
                "--out_dir", str(folder), *self._more_arguments(hg, folder)]

    def _more_arguments(self, hg, folder) -> list:
        """Arguments beyond the hyperedges, K and the seed: none for Hy-MMSBM."""
        return []
