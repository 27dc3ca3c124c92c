"""Uni-DHC's in-memory batch source: basis rows of node batches and mean-member rows of
hyperedge batches, ``E[k] = De^-1 H^T B[k]``.

Hyperedge means are computed per batch until the batches have drawn ``n_edges`` rows, then
for all hyperedges at once; a row of a sparse-dense product is the same bits either way.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
import torch

from ..operators.kernels import csr_matmat

__all__ = ["ArrayBatches", "hyperedge_basis_means", "hyperedge_mean_rows"]


def hyperedge_mean_rows(incidence, dtype=np.float32) -> sp.csr_matrix:
    """``De^-1 H^T``, CSR (m, n) of ``dtype``: row ``e`` averages the members of hyperedge ``e``.

    Every stored entry of ``incidence`` (n, m) is a membership; CSC is read without conversion.

    Examples
    --------
    >>> H = sp.csr_matrix(np.array([[1, 0], [1, 1], [0, 1]]))
    >>> hyperedge_mean_rows(H).toarray().tolist()
    [[0.5, 0.5, 0.0], [0.0, 0.5, 0.5]]
    """
    H = sp.csc_matrix(incidence)  # its arrays are H^T in CSR
    Ht = sp.csr_matrix((np.ones(H.nnz, dtype=dtype), H.indices, H.indptr), shape=H.shape[::-1])
    Ht.sort_indices()
    sizes = np.diff(Ht.indptr)
    # members in descending order, the order scipy's diag(1/size) @ H^T stored: same bits;
    # positions in indptr's integer type to keep the peak memory down
    reverse = np.repeat(Ht.indptr[:-1] + Ht.indptr[1:] - 1, sizes)
    reverse -= np.arange(Ht.nnz, dtype=reverse.dtype)
    indices = Ht.indices[reverse]
    del reverse
    scale = (1.0 / np.maximum(sizes, 1)).astype(dtype)
    return sp.csr_matrix((np.repeat(scale, sizes), indices, Ht.indptr), shape=Ht.shape)


def _basis_products(rows: sp.csr_matrix, basis: np.ndarray, n_threads=None) -> np.ndarray:
    """``rows @ basis[k]`` for every order ``k``, shape (K+1, r, d), written in place."""
    out = np.empty((basis.shape[0], rows.shape[0], basis.shape[2]), dtype=rows.dtype)
    for k in range(basis.shape[0]):
        csr_matmat(rows, np.ascontiguousarray(basis[k], dtype=rows.dtype), out[k],
                   n_threads=n_threads)
    return out


def hyperedge_basis_means(basis: np.ndarray, incidence: sp.spmatrix) -> np.ndarray:
    """Mean member of every hyperedge in every order, ``E[k] = De^-1 H^T B[k]``, (K+1, m, d).

    ``basis`` (K+1, n, d) and ``incidence`` (n, m); the dtype of ``basis`` (float64 for an
    integer one); empty hyperedges give 0.

    Examples
    --------
    >>> H = sp.csr_matrix(np.array([[1, 0], [1, 1], [0, 1]]))
    >>> B = np.arange(6, dtype=np.float32).reshape(1, 3, 2)
    >>> hyperedge_basis_means(B, H)[0].tolist()
    [[1.0, 2.0], [3.0, 4.0]]
    """
    basis = np.asarray(basis)
    rows = hyperedge_mean_rows(incidence, np.result_type(basis.dtype, np.float32))
    return _basis_products(rows, basis)


class ArrayBatches:
    """Training batches cut from an in-memory basis (the single-process batch source).

    Offers what :func:`~hyperclust.models.unidhc.train_on_batches` reads: ``n_nodes``, ``dim``,
    ``n_edges`` (hyperedges with >= 2 members), and ``nodes(idx)`` / ``edges(idx)``, float32
    tensors ``(K+1, len(idx), d)`` on ``device``. The distributed twin is
    :class:`hyperclust.distributed.batches.BasisFileBatches`.

    Parameters
    ----------
    basis : ndarray, shape (K+1, n, d)
    incidence : sparse, shape (n, m)
    device : str or torch.device
    edge_means : bool, default True
        Prepare the hyperedge means; without them ``edges`` raises ``ValueError``.

    Examples
    --------
    >>> H = sp.csr_matrix(np.array([[1, 0], [1, 1], [0, 1]]))  # hyperedges {0, 1}, {1, 2}
    >>> src = ArrayBatches(np.arange(6, dtype=np.float32).reshape(1, 3, 2), H, "cpu")
    >>> src.n_nodes, src.dim, src.n_edges
    (3, 2, 2)
    >>> src.nodes(np.array([2, 0]))[0].tolist(), src.edges(np.array([1]))[0].tolist()
    ([[4.0, 5.0], [0.0, 1.0]], [[3.0, 4.0]])
    """

    def __init__(self, basis, incidence, device, edge_means: bool = True):
        self.device = torch.device(device)
        self._host = np.ascontiguousarray(basis, dtype=np.float32)
        self.basis = torch.as_tensor(self._host, device=self.device)
        self.n_nodes, self.dim = basis.shape[1], basis.shape[2]
        incidence = sp.csc_matrix(incidence)
        usable = np.flatnonzero(np.diff(incidence.indptr) >= 2)
        self.n_edges = int(usable.size)
        self._mean_rows, self._means, self._drawn = None, None, 0
        if edge_means and usable.size:
            if usable.size < incidence.shape[1]:
                incidence = incidence[:, usable]
            self._mean_rows = hyperedge_mean_rows(incidence, np.float32)

    # index_select, not basis[:, idx]: the same rows, several times faster
    def nodes(self, idx):
        return torch.index_select(self.basis, 1, torch.as_tensor(idx, device=self.device))

    def edges(self, idx):
        if self._mean_rows is None:
            raise ValueError("this batch source was built without hyperedge means "
                             "(edge_means=False)")
        idx = np.asarray(idx)
        self._drawn += idx.size
        if self._means is None and self._drawn > self.n_edges:
            self._means = torch.as_tensor(_basis_products(self._mean_rows, self._host),
                                          device=self.device)
        if self._means is not None:
            return torch.index_select(self._means, 1, torch.as_tensor(idx, device=self.device))
        return torch.as_tensor(_basis_products(self._mean_rows[idx], self._host, n_threads=1),
                               device=self.device)
