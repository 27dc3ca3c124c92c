"""Sign convention of computed eigenvectors (shared by every eigensolver route)."""

from __future__ import annotations

import numpy as np

__all__ = ["fix_signs"]


def fix_signs(V: np.ndarray) -> np.ndarray:
    """A copy of ``V`` (n, k) with each column's largest-magnitude entry (first on ties) positive.

    Examples
    --------
    >>> fix_signs(np.array([[1.0, -3.0], [-2.0, 1.0]])).tolist()
    [[-1.0, 3.0], [2.0, -1.0]]
    """
    V = np.array(V, dtype=np.float64, copy=True)
    if V.size == 0:
        return V
    idx = np.argmax(np.abs(V), axis=0)
    signs = np.sign(V[idx, np.arange(V.shape[1])])
    signs[signs == 0] = 1.0
    return V * signs
