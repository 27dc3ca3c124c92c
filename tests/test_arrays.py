"""``unique_inverse`` gives ``np.unique(..., return_inverse=True)``'s answer on both of its paths."""

from __future__ import annotations

import numpy as np
import pytest

from hyperclust import _arrays
from hyperclust._arrays import unique_inverse


@pytest.mark.parametrize("span", [3, 50, 10**9])  # table path, table path, sort path
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_equals_numpy_unique(span, dtype):
    rng = np.random.default_rng(span)
    values = (rng.integers(0, span, size=200) + 17).astype(dtype)
    unique, inverse = unique_inverse(values)
    ref, ref_inverse = np.unique(values, return_inverse=True)
    np.testing.assert_array_equal(unique, ref)
    np.testing.assert_array_equal(inverse, ref_inverse.reshape(-1))
    assert unique.dtype == values.dtype and inverse.dtype == np.intp
    np.testing.assert_array_equal(unique[inverse], values)


def test_the_table_is_used_only_within_its_span(monkeypatch):
    calls = []
    real = np.unique
    monkeypatch.setattr(_arrays.np, "unique", lambda *a, **k: calls.append(1) or real(*a, **k))
    unique_inverse(np.array([0, 8]))  # range 9 > 4 x 2 ids: the sort
    assert calls == [1]
    unique_inverse(np.array([0, 7]))  # range 8 = 4 x 2: the table
    assert calls == [1]


def test_empty_and_single():
    u, inv = unique_inverse(np.zeros(0, dtype=np.int64))
    assert u.size == 0 and inv.size == 0 and u.dtype == np.int64
    u, inv = unique_inverse(np.array([5]))
    assert u.tolist() == [5] and inv.tolist() == [0]
