"""The CPU Adam of Uni-DHC's training: torch.optim.Adam's update bit for bit, without the
import of ``torch._dynamo`` that torch's optimizers pay."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import hyperclust  # noqa: E402
from hyperclust.models import unidhc as unidhc_models  # noqa: E402
from hyperclust.models.adam import CpuAdam, adam  # noqa: E402


def _params(seed):
    gen = torch.Generator().manual_seed(seed)
    return [torch.nn.Parameter(torch.randn(5, 3, generator=gen)),
            torch.nn.Parameter(torch.randn(4, generator=gen)),
            torch.nn.Parameter(torch.randn(3, generator=gen))]


def _run(make, steps=40):
    """Params and moments after ``steps`` updates with seeded gradients; the third
    parameter (its own group, lr 0 as Uni-DHC's gamma at gamma_lr = 0) gets a gradient only
    on every third step and the second none on step 7."""
    params = _params(0)
    opt = make([{"params": params[:2]}, {"params": params[2:], "lr": 0.0}])
    gen = torch.Generator().manual_seed(1)
    for step in range(steps):
        opt.zero_grad()
        for i, p in enumerate(params):
            grad = torch.randn(p.shape, generator=gen) * 10.0 ** (i - 1)
            if (i == 2 and step % 3) or (i == 1 and step == 7):
                continue
            p.grad = grad
        opt.step()
    moments = [opt.state[p][key] for p in params for key in ("exp_avg", "exp_avg_sq")]
    return [p.detach() for p in params] + moments + [opt.state[params[0]]["step"]]


def test_cpu_adam_is_torch_adam_bit_for_bit():
    ours = _run(lambda groups: CpuAdam(groups, lr=1e-2))
    torchs = _run(lambda groups: torch.optim.Adam(groups, lr=1e-2))
    assert all(torch.equal(a, b) for a, b in zip(ours, torchs))
    assert ours[0].dtype == torch.float32 and float(ours[-1]) == 40.0


def test_zero_lr_group_keeps_its_parameter_and_the_others_move():
    params = _params(0)
    start = [p.detach().clone() for p in params]
    opt = CpuAdam([{"params": params[:2]}, {"params": params[2:], "lr": 0.0}], lr=0.1)
    for p in params:
        p.grad = torch.ones_like(p)
    opt.step()
    assert torch.equal(params[2].detach(), start[2])
    assert torch.allclose(params[0].detach(), start[0] - 0.1)  # first step: lr * sign(grad)
    opt.zero_grad()
    assert all(p.grad is None for p in params)


def test_adam_picks_the_cpu_class_only_on_cpu():
    params = _params(0)
    assert isinstance(adam([{"params": params}], 1e-3, "cpu"), CpuAdam)
    assert isinstance(adam([{"params": params}], 1e-3, torch.device("cpu")), CpuAdam)


def test_training_with_cpu_adam_equals_training_with_torch_adam(monkeypatch):
    rng = np.random.default_rng(0)
    basis = rng.normal(size=(3, 60, 6)).astype(np.float32)
    incidence = (rng.random((60, 20)) < 0.15).astype(float)
    options = dict(hidden_dim=8, epochs=3, batch_size=16, gamma_lr=1e-2, random_state=3)
    ours, _ = unidhc_models.train_unidhc(basis, incidence, [0.2, 0.5, 0.3], **options)
    monkeypatch.setattr(unidhc_models, "adam",
                        lambda groups, lr, device: torch.optim.Adam(groups, lr=lr))
    theirs, _ = unidhc_models.train_unidhc(basis, incidence, [0.2, 0.5, 0.3], **options)
    for (name, a), (_, b) in zip(ours.state_dict().items(), theirs.state_dict().items()):
        assert torch.equal(a, b), name
    assert not torch.equal(ours.filter.gamma.detach(), torch.tensor([0.2, 0.5, 0.3]))


FIT = """
import sys
import numpy as np
from hyperclust.cluster.unidhc import UniDHC
from hyperclust.datasets.synthetic import hypergraph_sbm
hg = hypergraph_sbm(200, 2, homophily=0.9, n_features=8, random_state=0)
UniDHC(2, epochs=2, hidden_dim=8, gamma_lr=1e-3, random_state=0).fit(hg)
print("torch" in sys.modules, "torch._dynamo" in sys.modules)
"""


def test_a_cpu_fit_does_not_import_the_torch_compiler():
    src = str(Path(hyperclust.__file__).resolve().parents[1])
    out = subprocess.run([sys.executable, "-c", FIT], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=src), timeout=300, check=True)
    assert out.stdout.split() == ["True", "False"]
