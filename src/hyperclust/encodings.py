"""Spectral positional encodings of hypergraph nodes: eigenvectors or heat kernel signatures
of a hypergraph Laplacian, including the collapsed effective operator S_eps."""

from __future__ import annotations

import numbers

import numpy as np

from .hypergraph import Hypergraph
from .spectral import heat_kernel_signature, hks_times, regularized_embedding

__all__ = ["ENCODING_OPERATORS", "ENCODING_KINDS", "laplacian_eigenpairs", "node_encoding"]

#: Operators whose smallest eigenpairs encode node positions.
ENCODING_OPERATORS = ("zhou", "clique", "collapsed", "collapsed-cells")
#: ``"eigvec"``: the eigenvectors; ``"heat"``: heat kernel signatures over log-spaced times.
ENCODING_KINDS = ("eigvec", "heat")


def laplacian_eigenpairs(hypergraph: Hypergraph, k: int, operator: str = "collapsed-cells",
                         eps: float | None = None, random_state=0):
    """The ``k`` smallest eigenpairs of a hypergraph Laplacian.

    Parameters
    ----------
    hypergraph : Hypergraph
    k : int
        Number of eigenpairs, ``1 <= k < n_nodes``.
    operator : {"zhou", "clique", "collapsed", "collapsed-cells"}
        ``"zhou"``: normalized Zhou Laplacian ``I - Dv^-1/2 H W De^-1 H^T Dv^-1/2``;
        ``"clique"``: normalized clique-expansion Laplacian (pair weight ``w_e / (|e| - 1)``);
        ``"collapsed"``: normalized star collapse ``Dv^-1/2 S_eps Dv^-1/2``
        (:class:`~hyperclust.operators.StarCollapsedOperator`, default ``eps = 1``);
        ``"collapsed-cells"``: S_eps of the graded complex vertices / clique edges / hyperedge
        cells (:class:`~hyperclust.operators.CoboundaryCollapsed`, default ``eps = 1e-2``,
        the route chosen by size; isolated nodes and each connected component contribute
        zero eigenvalues).
    eps : float, optional
        The operator's ``eps`` (``"collapsed"``, ``"collapsed-cells"`` only).
    random_state : int, default 0

    Returns
    -------
    values : ndarray, shape (k,), ascending
    vectors : ndarray, shape (n_nodes, k), sign-fixed

    Examples
    --------
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [1, 2, 3], [3, 4], [4, 5, 6], [5, 6]])
    >>> vals, vecs = laplacian_eigenpairs(hg, 3, operator="zhou")
    >>> np.round(vals, 6).tolist()[0], vecs.shape
    (0.0, (7, 3))
    """
    if not isinstance(hypergraph, Hypergraph):
        raise TypeError(f"expected a Hypergraph, got {type(hypergraph).__name__}")
    if operator not in ENCODING_OPERATORS:
        raise ValueError(f"operator must be one of {ENCODING_OPERATORS}, got {operator!r}")
    n = hypergraph.n_nodes
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or not 1 <= k < n:
        raise ValueError(f"k must be an integer in [1, {n - 1}] (fewer than the {n} nodes), got {k!r}")
    if eps is not None and not (isinstance(eps, numbers.Real) and np.isfinite(eps) and eps > 0):
        raise ValueError(f"eps must be a positive float, got {eps!r}")
    if operator == "collapsed-cells":
        from .operators.collapsed import CoboundaryCollapsed

        S = CoboundaryCollapsed(hypergraph, eps=1e-2 if eps is None else float(eps))
        return S.smallest_eigenpairs(int(k), random_state=random_state)
    if operator == "zhou":
        from .operators.laplacians import ZhouLaplacian

        M, d = ZhouLaplacian(hypergraph, kind="unnormalized").affinity()
    elif operator == "clique":
        from .operators.expansions import clique_adjacency

        M, d = clique_adjacency(hypergraph, "normalized")
    else:
        from .operators.collapsed import StarCollapsedOperator

        M, d = StarCollapsedOperator(hypergraph, eps=1.0 if eps is None else float(eps)).affinity()
    return regularized_embedding(M, d, int(k), tau=0.0, random_state=random_state)


def node_encoding(hypergraph: Hypergraph, kind: str = "heat", k: int = 16,
                  operator: str = "collapsed-cells", n_times: int = 8, eps: float | None = None,
                  random_state=0) -> np.ndarray:
    """Positional encoding of every node from the ``k`` smallest eigenpairs of a Laplacian.

    Parameters
    ----------
    hypergraph : Hypergraph
    kind : {"heat", "eigvec"}
        ``"heat"``: heat kernel signatures ``HKS(x, t) = sum_i exp(-lambda_i t) phi_i(x)^2``
        at ``n_times`` log-spaced times (:func:`~hyperclust.spectral.hks_times`), invariant to
        eigenvector signs and rotations within an eigenspace; ``"eigvec"``: the sign-fixed
        eigenvectors themselves.
    k : int, default 16
        Eigenpairs used (capped at ``n_nodes - 1``).
    operator : str, default "collapsed-cells"
        See :func:`laplacian_eigenpairs`.
    n_times : int, default 8
    eps : float, optional
    random_state : int, default 0

    Returns
    -------
    ndarray, shape (n_nodes, n_times) for ``"heat"``, (n_nodes, k) for ``"eigvec"``

    Examples
    --------
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [1, 2, 3], [3, 4], [4, 5, 6], [5, 6]])
    >>> node_encoding(hg, "heat", k=4, n_times=3).shape
    (7, 3)
    >>> node_encoding(hg, "eigvec", k=2, operator="zhou").shape
    (7, 2)
    """
    if kind not in ENCODING_KINDS:
        raise ValueError(f"kind must be one of {ENCODING_KINDS}, got {kind!r}")
    if isinstance(n_times, bool) or not isinstance(n_times, numbers.Integral) or n_times < 1:
        raise ValueError(f"n_times must be a positive integer, got {n_times!r}")
    if isinstance(k, numbers.Integral) and not isinstance(k, bool):
        k = min(int(k), max(hypergraph.n_nodes - 1, 1)) if isinstance(hypergraph, Hypergraph) else k
    vals, vecs = laplacian_eigenpairs(hypergraph, k, operator, eps, random_state)
    if kind == "eigvec":
        return vecs
    return heat_kernel_signature(vals, vecs, hks_times(vals, int(n_times)))
