"""Spectral positional encodings of hypergraph nodes (eigenvectors or heat kernel signatures) of
any registered operator with an affinity or its own eigensolver.
"""

from __future__ import annotations

import numbers

import numpy as np

from ..hypergraph import Hypergraph
from .eigensolvers import heat_kernel_signature, hks_times

__all__ = ["ENCODING_KINDS", "encoding_operator_names", "encoding_operator", "encoding_affinity",
           "null_space", "laplacian_spectrum", "laplacian_eigenpairs", "node_encoding",
           "with_encoding"]

#: ``"eigvec"``: the eigenvectors; ``"heat"``: heat kernel signatures over log-spaced times.
ENCODING_KINDS = ("eigvec", "heat")


def encoding_operator_names() -> tuple:
    """Registered operators that give node encodings (read from the registry when called).

    Examples
    --------
    >>> encoding_operator_names()
    ('zhou', 'clique', 'clique-unit', 'collapsed', 'collapsed-cells', 'collapsed-closure')
    """
    from .registry import OPERATORS

    return tuple(name for name, spec in OPERATORS.items() if spec.node_rows_only
                 and {"affinity", "eigenpairs"} & set(spec.protocols))


def _has_affinity(operator: str) -> bool:
    from .registry import OPERATORS

    return "affinity" in OPERATORS[operator].protocols


def _check_request(hypergraph, k, operator, eps):
    if not isinstance(hypergraph, Hypergraph):
        raise TypeError(f"expected a Hypergraph, got {type(hypergraph).__name__}")
    names = encoding_operator_names()
    if operator not in names:
        raise ValueError(f"operator must be one of {names}, got {operator!r}")
    n = hypergraph.n_nodes
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or not 0 <= k < n:
        raise ValueError(f"k must be an integer in [1, {n - 1}] (fewer than the {n} nodes), got {k!r}")
    if eps is not None and not (isinstance(eps, numbers.Real) and np.isfinite(eps) and eps > 0):
        raise ValueError(f"eps must be a positive float, got {eps!r}")


def encoding_operator(hypergraph: Hypergraph, operator: str, eps: float | None = None):
    """The registered operator ``operator`` on ``hypergraph`` (``eps`` passed when given).

    Examples
    --------
    >>> encoding_operator(Hypergraph.from_edges([[0, 1, 2], [2, 3]]), "collapsed", eps=0.5).eps
    0.5
    """
    from .registry import make_operator

    _check_request(hypergraph, 0, operator, eps)
    return make_operator(operator, hypergraph, **({} if eps is None else {"eps": float(eps)}))


def encoding_affinity(hypergraph: Hypergraph, operator: str, eps: float | None = None):
    """``(M, d)`` whose ``I - D^-1/2 M D^-1/2`` is the normalized Laplacian of ``operator``.

    Examples
    --------
    >>> M, d = encoding_affinity(Hypergraph.from_edges([[0, 1, 2], [2, 3]]), "zhou")
    >>> d.tolist()
    [1.0, 1.0, 2.0, 1.0]
    """
    op = encoding_operator(hypergraph, operator, eps)
    if not _has_affinity(operator):
        raise ValueError(f"operator {operator!r} has no affinity form; operators with one: "
                         f"{', '.join(n for n in encoding_operator_names() if _has_affinity(n))}")
    return op.affinity()


def _own_spectrum(op, hypergraph, r, random_state):
    """``(null, values, vectors)`` of an operator with its own eigensolver (null: eigenvalue 0 to 1e-10).
    """
    import scipy.sparse as sp

    own = getattr(op, "spectrum", None)
    if callable(own):
        return own(r, random_state=random_state)
    n = hypergraph.n_nodes
    vals, V = op.smallest_eigenpairs(min(hypergraph.connected_components()[0] + r, n - 1),
                                     random_state=random_state)
    zero = np.abs(vals) <= 1e-10 * max(1.0, float(np.abs(vals).max(initial=0.0)))
    return sp.csc_matrix(V[:, zero]), vals[~zero][:r], V[:, ~zero][:, :r]


def _spectrum(hypergraph, operator, eps, random_state, wanted):
    """``(null, values, vectors)``, ``wanted(c)`` eigenpairs off a null space of ``c`` vectors."""
    import scipy.sparse as sp

    from .components import (ComponentLayout, affinity_null_weights, null_basis,
                                       normalized_laplacian_spectrum)

    op = encoding_operator(hypergraph, operator, eps)
    if not _has_affinity(operator):
        null = _own_spectrum(op, hypergraph, 0, random_state)[0]
        r = int(wanted(null.shape[1]))
        if r == 0:
            return sp.csc_matrix(null), np.zeros(0), np.zeros((hypergraph.n_nodes, 0))
        return _own_spectrum(op, hypergraph, r, random_state)
    M, d = op.affinity()
    labels = hypergraph.connected_components()[1]
    layout = ComponentLayout(labels)
    c = null_basis(layout, affinity_null_weights(M, d, layout))[0].shape[1]
    return normalized_laplacian_spectrum(M, d, labels, int(wanted(c)), random_state=random_state)


def null_space(hypergraph: Hypergraph, operator: str = "collapsed-cells", eps: float | None = None):
    """The null space of a hypergraph Laplacian (see :func:`laplacian_spectrum`): CSC, shape
    (n_nodes, c), orthonormal columns in component order.

    Examples
    --------
    >>> hg = Hypergraph.from_edges([[0, 1], [2]], n_nodes=4)
    >>> [null_space(hg, op).shape[1] for op in encoding_operator_names()]
    [2, 1, 1, 0, 3, 3]
    """
    return _spectrum(hypergraph, operator, eps, 0, lambda c: 0)[0]


def laplacian_spectrum(hypergraph: Hypergraph, k: int, operator: str = "collapsed-cells",
                       eps: float | None = None, random_state=0):
    """The null space of a hypergraph Laplacian, written down, and its ``k`` smallest eigenpairs off it.

    For an operator with an affinity ``(M, d)`` the Laplacian is ``I - D^-1/2 M D^-1/2`` (null
    space ``sqrt(d)`` per component where ``M 1 = d``); for one with its own eigensolver the
    operator itself. The other eigenpairs are computed per component, so they do not depend on
    ``random_state`` except inside an eigenvalue repeated within one large component.

    Parameters
    ----------
    hypergraph : Hypergraph
    k : int
        Eigenpairs off the null space, ``0 <= k < n_nodes``.
    operator : str, default "collapsed-cells"
        A name of :func:`encoding_operator_names`.
    eps : float, optional
        The operator's ``eps`` (for those that take one).
    random_state : int, default 0

    Returns
    -------
    null : scipy.sparse CSC matrix, shape (n_nodes, c)
    values : ndarray, shape (k,), ascending, positive
    vectors : ndarray, shape (n_nodes, k), orthogonal to ``null``

    Examples
    --------
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [1, 2], [3, 4]], n_nodes=6)
    >>> null, vals, vecs = laplacian_spectrum(hg, 2, operator="zhou")
    >>> null.shape, vals.shape, vecs.shape
    ((6, 2), (2,), (6, 2))
    """
    _check_request(hypergraph, k, operator, eps)
    return _spectrum(hypergraph, operator, eps, random_state, lambda c: int(k))


def laplacian_eigenpairs(hypergraph: Hypergraph, k: int, operator: str = "collapsed-cells",
                         eps: float | None = None, random_state=0):
    """The ``k`` smallest eigenpairs (``1 <= k < n_nodes``) of a hypergraph Laplacian: the null
    vectors of :func:`laplacian_spectrum` first, then the others.

    Examples
    --------
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [1, 2, 3], [3, 4], [4, 5, 6], [5, 6]])
    >>> vals, vecs = laplacian_eigenpairs(hg, 3, operator="zhou")
    >>> np.round(vals, 6).tolist()[0], vecs.shape
    (0.0, (7, 3))
    """
    _check_request(hypergraph, k, operator, eps)
    if k < 1:
        raise ValueError(f"k must be an integer in [1, {hypergraph.n_nodes - 1}], got {k!r}")
    null, vals, vecs = _spectrum(hypergraph, operator, eps, random_state,
                                 lambda c: max(int(k) - c, 0))
    c = null.shape[1]
    if k <= c:
        return np.zeros(k), null[:, :k].toarray()
    return np.concatenate([np.zeros(c), vals]), np.hstack([null.toarray(), vecs])


def node_encoding(hypergraph: Hypergraph, kind: str = "heat", k: int = 16,
                  operator: str = "collapsed-cells", n_times: int = 8, eps: float | None = None,
                  random_state=0) -> np.ndarray:
    """Positional encoding of every node from the ``k`` smallest eigenpairs off the null space.

    ``"eigvec"`` leaves the null space out; ``"heat"`` adds its exact contribution to the heat
    kernel diagonal.

    Parameters
    ----------
    hypergraph : Hypergraph
    kind : {"heat", "eigvec"}
        Heat kernel signatures at ``n_times`` log-spaced times, or sign-fixed eigenvectors.
    k : int, default 16
        Eigenpairs off the null space (capped at the number that exist).
    operator : str, default "collapsed-cells"
        See :func:`laplacian_spectrum`.
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
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}")
    _check_request(hypergraph, 0, operator, eps)
    n = hypergraph.n_nodes
    null, vals, vecs = _spectrum(hypergraph, operator, eps, random_state,
                                 lambda c: min(int(k), n - c))
    if kind == "eigvec":
        return vecs
    base = np.asarray(null.multiply(null).sum(axis=1)).ravel()
    return base[:, None] + heat_kernel_signature(vals, vecs, hks_times(vals, int(n_times)))


def _column_std(X) -> np.ndarray:
    import scipy.sparse as sp

    if sp.issparse(X):
        mean = np.asarray(X.mean(axis=0)).ravel()
        sq = np.asarray(X.multiply(X).mean(axis=0)).ravel()
        return np.sqrt(np.maximum(sq - mean * mean, 0.0))
    return np.asarray(X, dtype=np.float64).std(axis=0)


def with_encoding(hypergraph: Hypergraph, kind: str = "heat", k: int = 16,
                  operator: str = "collapsed-cells", n_times: int = 8, eps: float | None = None,
                  random_state=0) -> Hypergraph:
    """The hypergraph with :func:`node_encoding` columns appended to its node features.

    Each encoding column is standardized and scaled by the root mean square of the feature
    columns' standard deviations; sparse features stay sparse.

    Examples
    --------
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [1, 2, 3], [3, 4], [4, 5, 6], [5, 6]],
    ...                            features=np.eye(7))
    >>> with_encoding(hg, "eigvec", k=2, operator="zhou").features.shape
    (7, 9)
    """
    import scipy.sparse as sp

    Z = node_encoding(hypergraph, kind, k, operator, n_times, eps, random_state)
    std = Z.std(axis=0)
    Zs = np.divide(Z - Z.mean(axis=0), std, out=np.zeros_like(Z), where=std > 1e-12 * np.abs(Z).max(initial=1.0))
    X = hypergraph.features
    if X is None:
        return hypergraph.replace(features=Zs)
    scale = float(np.sqrt(np.mean(_column_std(X) ** 2))) if X.shape[1] else 1.0
    scale = scale if scale > 0 else 1.0
    if sp.issparse(X):
        return hypergraph.replace(features=sp.hstack([X, sp.csr_matrix(scale * Zs)], format="csr"))
    return hypergraph.replace(features=np.hstack([np.asarray(X, dtype=np.float64), scale * Zs]))
