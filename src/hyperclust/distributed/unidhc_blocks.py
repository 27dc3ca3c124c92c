"""The per-block tasks of the distributed Uni-DHC, numpy only (workers import neither torch
nor scikit-learn; docs/distributed.md, "CPU against one process").
"""

from __future__ import annotations

import numpy as np

__all__ = ["normalize_rows", "encode", "embed_block"]  # and the small tasks of unidhc.py

#: Rows per encoder pass, as the single process's ``cluster.unidhc.ENCODE_ROWS``: the hidden
#: layer of a pass (4096 x 256 float32, 4 MB) stays in cache.
ENCODE_ROWS = 2 ** 12
#: Rows per pass of :func:`embed_block`.
EMBED_ROWS = 2 ** 15


def square_sum(X) -> float:
    return float(np.einsum("ij,ij->", X, X))


def divided(X, scale):
    return X / scale


def save(path, X):
    np.save(path, X, allow_pickle=False)
    return path


def normalize_rows(X):
    """Rows of ``X`` over their L2 norms in ``X``'s dtype, zero rows kept (sklearn's arithmetic).

    Examples
    --------
    >>> normalize_rows(np.array([[3.0, 4.0], [0.0, 0.0]], dtype=np.float32)).tolist()
    [[0.6000000238418579, 0.800000011920929], [0.0, 0.0]]
    """
    norms = np.sqrt(np.einsum("ij,ij->i", X, X))
    norms[norms == 0.0] = 1.0
    return X / norms[:, None]


def encode(Z, weights) -> np.ndarray:
    """The residual encoder ``Z + W2 prelu(W1 Z + b1) + b2`` in numpy float32, by row passes.

    Parameters
    ----------
    Z : ndarray, shape (n, d)
    weights : dict
        :class:`hyperclust.models.unidhc.ResidualEncoder`'s ``state_dict`` as numpy arrays.

    Returns
    -------
    ndarray of float32, shape (n, d)

    Examples
    --------
    >>> w = {"correction.0.weight": np.ones((2, 1)), "correction.0.bias": np.zeros(2),
    ...      "correction.1.weight": np.array([0.25]), "correction.2.weight": np.ones((1, 2)),
    ...      "correction.2.bias": np.zeros(1)}
    >>> encode(np.array([[1.0], [-1.0]]), w).ravel().tolist()  # x + 2 prelu(x)
    [3.0, -1.5]
    """
    f32 = np.float32
    w1 = np.ascontiguousarray(np.asarray(weights["correction.0.weight"], dtype=f32).T)
    b1 = np.asarray(weights["correction.0.bias"], dtype=f32)
    slope = f32(np.asarray(weights["correction.1.weight"]).ravel()[0])
    w2 = np.ascontiguousarray(np.asarray(weights["correction.2.weight"], dtype=f32).T)
    b2 = np.asarray(weights["correction.2.bias"], dtype=f32)
    Z = np.asarray(Z, dtype=f32)
    out = np.empty_like(Z)
    hidden = np.empty((min(ENCODE_ROWS, Z.shape[0]), w1.shape[1]), dtype=f32)
    scaled = np.empty_like(hidden)
    for lo in range(0, Z.shape[0], ENCODE_ROWS):
        z = Z[lo:lo + ENCODE_ROWS]
        h = np.matmul(z, w1, out=hidden[:z.shape[0]])
        h += b1
        _prelu(h, slope, scaled[:z.shape[0]])
        o = np.matmul(h, w2, out=out[lo:lo + ENCODE_ROWS])
        o += b2
        o += z
    return out


def _prelu(h, slope, scaled):
    """``h > 0 ? h : slope h`` in place, branch-free, the same bits as torch."""
    np.multiply(h, slope, out=scaled)
    if 0 <= slope <= 1:
        np.fmax(h, scaled, out=h)
    elif slope > 1:
        np.fmin(h, scaled, out=h)
    else:
        np.copyto(h, scaled, where=h <= 0)


def embed_block(path, gamma, encoder_weights, concat: bool):
    """One basis block's embedding rows: ``sum_k gamma_k B[k]`` L2-normalised [, encoder output].

    Parameters
    ----------
    path : str
        A ``(K+1, n_b, d)`` basis block file.
    gamma : ndarray, shape (K+1,)
    encoder_weights : dict or None
        :func:`encode`'s weights (needed when ``concat``).
    concat : bool

    Returns
    -------
    ndarray, shape (n_b, 2 d) or (n_b, d), the basis dtype

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "basis-00000.npy")
    >>> np.save(path, np.array([[[3.0, 0.0]], [[0.0, 4.0]]], dtype=np.float32))  # K = 1
    >>> embed_block(path, np.array([1.0, 1.0]), None, False).tolist()  # (3, 4) / 5
    [[0.6000000238418579, 0.800000011920929]]
    """
    # memory-mapped and by passes of rows: the only fresh memory is the result (the whole
    # block, its filter output and the encoder's were ~4x it, each page first-touched)
    B = np.load(path, mmap_mode="r")
    gamma = np.asarray(gamma, dtype=B.dtype)
    d = B.shape[2]
    out = np.empty((B.shape[1], 2 * d if concat else d), dtype=B.dtype)
    for lo in range(0, B.shape[1], EMBED_ROWS):
        Z = np.tensordot(gamma, B[:, lo:lo + EMBED_ROWS], axes=1)
        out[lo:lo + EMBED_ROWS, :d] = normalize_rows(Z)
        if concat:
            out[lo:lo + EMBED_ROWS, d:] = normalize_rows(encode(Z, encoder_weights))
    return out
