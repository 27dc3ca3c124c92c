"""Uni-DHC's fit gives the same result with any thread count: the training on one torch
thread whatever torch was set to, the sums thread-invariant."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
import torch

from hyperclust.models import unidhc as unidhc_module
from hyperclust.models.losses import thread_invariant_sum
from hyperclust.models.unidhc import train_unidhc


def _training_input(n=4096, d=128, seed=0):
    """A small random basis (shape (3, n, d)) and incidence."""
    rng = np.random.default_rng(seed)
    basis = rng.normal(size=(3, n, d)).astype(np.float32)
    H = sp.random(n, n // 4, density=8 / n, random_state=seed, format="csr")
    H.data[:] = 1
    return basis, H


def _train(n_threads, basis, H, gamma=(0.0, 1.0, 0.0), epochs=2, hidden_dim=256):
    before = torch.get_num_threads()
    torch.set_num_threads(n_threads)
    try:
        net, history = train_unidhc(basis, H, list(gamma), epochs=epochs, random_state=0,
                                    hidden_dim=hidden_dim)
        assert torch.get_num_threads() == n_threads  # restored on return
    finally:
        torch.set_num_threads(before)
    return [p.detach().clone() for p in net.parameters()], history


def test_training_is_bit_identical_whatever_threads_torch_was_given():
    # A 6 x 16 output layer over a batch of 300 rows: torch splits the weight gradient's sum
    # over the batch between threads, so training on 2 threads gave that layer other bits
    # than on 1 (the training now runs on TRAINING_THREADS whatever torch was set to).
    basis, H = _training_input(n=300, d=6)
    one, h1 = _train(1, basis, H, hidden_dim=16)
    two, h2 = _train(2, basis, H, hidden_dim=16)
    assert [h["threads"] for h in h1] == [h["threads"] for h in h2] == \
        [unidhc_module.TRAINING_THREADS] * 2
    assert all(torch.equal(a, b) for a, b in zip(one, two))
    assert h1 == h2


@pytest.mark.parametrize("shape", [(70_001,), (1536, 256), (300, 300), (7,), ()])
def test_thread_invariant_sum_is_the_sum_and_does_not_depend_on_threads(shape):
    x = torch.as_tensor(np.random.default_rng(0).normal(size=shape).astype(np.float32))
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        one = thread_invariant_sum(x)
        torch.set_num_threads(2)
        two = thread_invariant_sum(x)
    finally:
        torch.set_num_threads(before)
    assert torch.equal(one, two) and one.shape == ()
    assert float(one) == pytest.approx(float(x.double().sum()), rel=1e-5, abs=1e-4)


def test_thread_invariant_sum_passes_the_gradient_of_a_sum():
    x = torch.randn(40_000, requires_grad=True)
    thread_invariant_sum(x * 3).backward()
    assert torch.equal(x.grad, torch.full_like(x, 3.0))


def test_torch_threads_are_restored_when_training_fails():
    basis, H = _training_input(n=256, d=8)

    class Failing(unidhc_module.ArrayBatches):
        def nodes(self, idx):
            raise RuntimeError("disk gone")

    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        with pytest.raises(RuntimeError, match="disk gone"):
            unidhc_module.train_on_batches(Failing(basis, H, "cpu"), [0.0, 1.0, 0.0],
                                           epochs=1)
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


_FIT_DIGEST = """
import hashlib, numpy as np, scipy.sparse as sp
from hyperclust.datasets import hypergraph_sbm
from hyperclust.cluster.unidhc import UniDHC
hg = hypergraph_sbm(2708, 7, homophily=0.8, n_features=0, isolated_fraction=0.2, random_state=0)
F = sp.random(2708, 1433, density=0.013, random_state=0, format="csr")
F.data[:] = 1
est = UniDHC(7, epochs=1, hidden_dim=32, random_state=0).fit(hg.replace(features=F))
print(hashlib.sha256(np.ascontiguousarray(est.embedding_).tobytes()).hexdigest())
"""


def test_fit_is_bit_identical_for_any_thread_count():
    """End to end: the seeded SVD of sparse features (> 256 columns) and the isolated nodes'
    neighbour search ran their dense products on every BLAS thread, and the rounding of a
    product depends on how many threads split it (cora-sized input: 2.5e-4 apart with 2
    threads before they were pinned to one)."""
    import os
    import subprocess
    import sys

    # both fits at once: a fresh process each (the thread counts are read at import), and
    # the two share the wall time instead of adding it up
    procs = [subprocess.Popen([sys.executable, "-c", _FIT_DIGEST], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True,
                              env=dict(os.environ, HYPERCLUST_NUM_THREADS=n, OMP_NUM_THREADS="2",
                                       OPENBLAS_NUM_THREADS="2", MKL_NUM_THREADS="2"))
             for n in ("1", "2")]
    digests = []
    for proc in procs:
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err[-2000:]
        digests.append(out.strip().splitlines()[-1])
    assert digests[0] == digests[1]
