"""The downward closure of a hypergraph (all nonempty subsets of its hyperedges up to a grade
cap) with its signed boundary maps, as a :class:`~hyperclust.operators.graded.GradedComplex`;
refused before building past ``max_faces`` faces or ``max_block_nnz`` nonzeros in a block.
"""

from __future__ import annotations

from itertools import combinations
from math import comb

import numpy as np
import scipy.sparse as sp

from ..hypergraph import Hypergraph
from .graded import GradedComplex, eps_gamma_bound

__all__ = ["closure_face_bound", "downward_closure", "closure_boundaries", "closure_complex",
           "closure_collapsed", "MAX_CLOSURE_FACES", "MAX_BLOCK_NNZ"]

#: Default cap on the faces of a downward closure (faces and maps about 60 MB at grade 2;
#: the sparse factorization of the higher block, not the faces, is then the larger cost).
MAX_CLOSURE_FACES = 1_000_000
#: Default cap on the nonzeros of the graded Laplacian's diagonal blocks ``B_g^T B_g``.
MAX_BLOCK_NNZ = 2_000_000


def closure_face_bound(hypergraph: Hypergraph, max_grade: int) -> np.ndarray:
    """Upper bound on the faces of each grade ``0..max_grade``: the nodes, then ``sum_e C(|e|, g + 1)``.

    Examples
    --------
    >>> closure_face_bound(Hypergraph.from_edges([[0, 1, 2, 3], [3, 4]]), 3).tolist()
    [5, 7, 4, 1]
    """
    sizes, counts = np.unique(hypergraph.edge_sizes, return_counts=True)
    bound = [hypergraph.n_nodes]
    for g in range(1, max_grade + 1):
        bound.append(int(sum(int(c) * comb(int(s), g + 1) for s, c in zip(sizes, counts))))
    return np.array(bound, dtype=np.int64)


def _row_keys(rows: np.ndarray) -> np.ndarray:
    """One sortable key per row of node ids (big-endian bytes)."""
    rows = np.ascontiguousarray(rows.astype(">i8"))
    return rows.view(np.dtype((np.void, 8 * rows.shape[1]))).ravel()


def downward_closure(hypergraph: Hypergraph, max_grade: int = 2,
                     max_faces: int = MAX_CLOSURE_FACES) -> list:
    """The faces of each grade ``0..max_grade`` of the downward closure.

    ``faces[g]`` has shape ``(F_g, g + 1)``, int64, nodes ascending, faces in lexicographic order.
    Raises ValueError when :func:`closure_face_bound` sums past ``max_faces``.

    Examples
    --------
    >>> faces = downward_closure(Hypergraph.from_edges([[0, 1, 2], [2, 3]]), 2)
    >>> [f.shape[0] for f in faces], faces[1].tolist()
    ([4, 4, 1], [[0, 1], [0, 2], [1, 2], [2, 3]])
    """
    if isinstance(max_grade, bool) or not isinstance(max_grade, (int, np.integer)) or max_grade < 1:
        raise ValueError(f"max_grade must be a positive integer, got {max_grade!r}")
    bound = closure_face_bound(hypergraph, int(max_grade))
    if bound.sum() > max_faces:
        raise ValueError(f"the downward closure up to grade {max_grade} has up to "
                         f"{int(bound.sum()):,} faces, over max_faces={max_faces:,}; lower "
                         "max_grade or raise max_faces")
    Ht = sp.csr_matrix(hypergraph.incidence_t)
    Ht.sort_indices()
    sizes = np.diff(Ht.indptr)
    faces = [np.arange(hypergraph.n_nodes, dtype=np.int64)[:, None]]
    for g in range(1, int(max_grade) + 1):
        parts = []
        for s in np.unique(sizes[sizes > g]):
            edges = np.flatnonzero(sizes == s)
            members = Ht.indices[Ht.indptr[edges][:, None] + np.arange(s)[None, :]]
            picks = np.array(list(combinations(range(int(s)), g + 1)), dtype=np.int64)
            parts.append(members[:, picks].reshape(-1, g + 1))
        rows = np.concatenate(parts) if parts else np.zeros((0, g + 1), dtype=np.int64)
        _, first = np.unique(_row_keys(rows), return_index=True)
        faces.append(rows[first].astype(np.int64))
    return faces


def closure_boundaries(faces: list) -> list:
    """Signed boundary maps ``B_g`` (``(F_{g-1}, F_g)``, CSR) of the faces, ``B_{g-1} B_g = 0``.

    Examples
    --------
    >>> faces = downward_closure(Hypergraph.from_edges([[0, 1, 2]]), 2)
    >>> B1, B2 = closure_boundaries(faces)
    >>> B2.toarray().ravel().tolist(), float(abs(B1 @ B2).sum())
    ([1.0, -1.0, 1.0], 0.0)
    """
    maps = []
    for g in range(1, len(faces)):
        low, high = faces[g - 1], faces[g]
        keys = _row_keys(low)
        rows, signs = [], []
        for i in range(g + 1):
            facet = np.delete(high, i, axis=1)
            rows.append(np.searchsorted(keys, _row_keys(facet)) if g > 1 else facet[:, 0])
            signs.append(np.full(high.shape[0], (-1.0) ** i))
        cols = np.tile(np.arange(high.shape[0]), g + 1)
        maps.append(sp.csr_matrix((np.concatenate(signs), (np.concatenate(rows), cols)),
                                  shape=(low.shape[0], high.shape[0])))
    return maps


def closure_complex(hypergraph: Hypergraph, max_grade: int = 2, beta=None, gamma="auto",
                    eps: float = 1e-2, max_faces: int = MAX_CLOSURE_FACES,
                    max_block_nnz: int = MAX_BLOCK_NNZ) -> GradedComplex:
    """The downward closure up to ``max_grade`` as a :class:`GradedComplex` (unit face weights;
    ``gamma="auto"``: the PSD-safe ``sqrt(beta eps)``).

    Examples
    --------
    >>> cx = closure_complex(Hypergraph.from_edges([[0, 1, 2], [2, 3]]), 2)
    >>> cx.sizes, cx.psd_report(1e-2)["eps_gamma_ok"]
    ([4, 4, 1], True)
    """
    faces = downward_closure(hypergraph, max_grade, max_faces)
    maps = closure_boundaries(faces)
    for g, B in enumerate(maps, start=1):
        nnz = int(np.sum(np.diff(B.indptr).astype(np.int64) ** 2))
        if nnz > max_block_nnz:
            raise ValueError(f"the closure's grade-{g} block B_{g}^T B_{g} has up to {nnz:,} "
                             f"nonzeros, over max_block_nnz={max_block_nnz:,}; lower max_grade "
                             "or raise max_block_nnz")
    beta = np.ones(len(faces) - 1) if beta is None else beta
    if isinstance(gamma, str):
        if gamma != "auto":
            raise ValueError(f"gamma must be 'auto' or numbers, got {gamma!r}")
        gamma = eps_gamma_bound(np.broadcast_to(beta, (len(faces) - 1,)), eps)
    return GradedComplex(maps, beta=beta, gamma=gamma)


def closure_collapsed(hypergraph: Hypergraph, eps: float = 1e-2, max_grade: int = 2,
                      max_faces: int = MAX_CLOSURE_FACES, max_block_nnz: int = MAX_BLOCK_NNZ):
    """S_eps of the downward closure collapsed onto the nodes (registry name ``"collapsed-closure"``).

    Examples
    --------
    >>> S = closure_collapsed(Hypergraph.from_edges([[0, 1, 2], [3, 4]], n_nodes=6))
    >>> vals, _ = S.smallest_eigenpairs(4)
    >>> np.round(vals, 10).tolist()[:3]
    [0.0, 0.0, 0.0]
    """
    if not (np.isfinite(eps) and eps > 0):
        raise ValueError(f"eps must be a positive float, got {eps!r}")
    return closure_complex(hypergraph, max_grade, eps=eps, max_faces=max_faces,
                           max_block_nnz=max_block_nnz).collapsed(eps=eps)
