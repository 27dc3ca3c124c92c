"""Uni-DHC's in-memory batch source: basis rows of node batches and mean-member rows of
hyperedge batches, ``E[k] = De^-1 H^T B[k]``.

The hyperedge means are computed for the sampled hyperedges only until the training has
drawn as many hyperedges as there are, then for all of them at once (the cheaper of the two
whatever the size): a fit at 10^6 nodes draws ~41,000 hyperedges (20 epochs x 8 steps x
256) of 10^6, and the three products of the whole block (1.2-2.5 s CPU and 384 MB at
10^6 x 32) were a quarter of its set-up. Each row of a sparse-times-dense product depends
on that row alone (scipy's kernel accumulates every output row over its own entries, in
their stored order), so a sampled row is the same bits as that row of the whole product.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
import torch

from ..operators.kernels import csr_matmat

__all__ = ["ArrayBatches", "hyperedge_basis_means", "hyperedge_mean_rows"]


def hyperedge_mean_rows(incidence, dtype=np.float32) -> sp.csr_matrix:
    """``De^-1 H^T``: row ``e`` averages the members of hyperedge ``e``.

    Parameters
    ----------
    incidence : sparse, shape (n, m)
        Node-hyperedge incidence (every stored entry is a membership; the mean is
        unweighted). A CSC matrix (``Hypergraph.incidence_t.T``) is read without conversion.
    dtype : float32 or float64

    Returns
    -------
    scipy.sparse.csr_matrix, shape (m, n)

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
    # each row's members in descending order: the order the product diag(1/size) @ H^T
    # stored (scipy's kernel emits a row's columns last seen first), so the means' sums run
    # in it and keep their bits; the product cost 0.12 s CPU at 10^6 hyperedges, this 0.04.
    # Positions in indptr's integer type: int64 ones added 45 MiB to the fit's peak at 10^6
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
    """Mean member of every hyperedge in every basis order: ``E[k] = De^-1 H^T B[k]``.

    Parameters
    ----------
    basis : ndarray, shape (K+1, n, d)
    incidence : sparse, shape (n, m)
        Node-hyperedge incidence (any non-zero = membership; the mean is unweighted).

    Returns
    -------
    ndarray, shape (K+1, m, d), the dtype of ``basis`` (float64 for an integer basis);
    rows of empty hyperedges are 0.

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

    A batch source gives :func:`~hyperclust.models.unidhc.train_on_batches` what one step
    reads: ``n_nodes``, the basis width ``dim``, ``n_edges`` (hyperedges with at least 2
    members, the ones sampled), ``nodes(idx)`` the basis rows of nodes ``idx`` and
    ``edges(idx)`` the mean member rows of usable hyperedges ``idx``, both
    ``(K+1, len(idx), d)`` float32 tensors on the trainer's device.
    :class:`hyperclust.distributed.batches.BasisFileBatches` is the source that reads the
    per-block files of a partitioned basis.

    Parameters
    ----------
    basis : ndarray, shape (K+1, n, d)
    incidence : sparse, shape (n, m)
    device : str or torch.device
    edge_means : bool, default True
        Prepare the hyperedge means (``De^-1 H^T``; the products per batch, or all of them
        once the batches have drawn ``n_edges`` rows); without them ``edges`` cannot be
        called.

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

    # index_select, not basis[:, idx]: the same rows, 5-10x faster than advanced indexing
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
