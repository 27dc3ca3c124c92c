"""The deep methods on a CUDA device (skipped where torch or a CUDA device is missing; CI has
none, the lent GPU machine runs it): outputs are host numpy arrays and agree with the CPU fit
on a well-separated planted input."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")

from sklearn.metrics import adjusted_rand_score  # noqa: E402

from hyperclust.cluster.registry import make_estimator  # noqa: E402
from hyperclust.datasets.synthetic import hypergraph_sbm  # noqa: E402


@pytest.fixture(scope="module")
def planted():
    return hypergraph_sbm(600, 3, homophily=0.9, n_features=16, feature_snr=1.0, random_state=3)


@pytest.mark.parametrize("method", ["unidhc", "unidhc-filter"])
def test_cuda_fit_matches_cpu(planted, method):
    cpu = make_estimator(method, 3, random_state=0, device="cpu").fit(planted)
    gpu = make_estimator(method, 3, random_state=0, device="cuda").fit(planted)
    assert isinstance(gpu.labels_, np.ndarray) and gpu.labels_.shape == (planted.n_nodes,)
    assert isinstance(gpu.embedding_, np.ndarray)
    assert np.isfinite(gpu.embedding_).all()
    # float arithmetic differs between the devices; on this input both find the planted split
    assert adjusted_rand_score(planted.labels, gpu.labels_) > 0.9
    assert adjusted_rand_score(cpu.labels_, gpu.labels_) > 0.9


def test_cuda_fit_is_deterministic(planted):
    a = make_estimator("unidhc", 3, random_state=1, device="cuda").fit(planted)
    b = make_estimator("unidhc", 3, random_state=1, device="cuda").fit(planted)
    assert adjusted_rand_score(a.labels_, b.labels_) == 1.0
    np.testing.assert_allclose(a.coefficients_, b.coefficients_, atol=1e-5)
