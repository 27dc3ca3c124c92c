"""Adam on CPU without ``torch.optim``, bit-identical to ``torch.optim.Adam`` there.

``torch.optim`` imports ``torch._dynamo`` at construction and at each step (over a second of a
Uni-DHC fit's set-up); ``tests/test_unidhc_adam.py`` checks the equality.
"""

from __future__ import annotations

import torch

__all__ = ["CpuAdam", "adam"]


class CpuAdam:
    """``torch.optim.Adam(param_groups, lr, betas, eps)`` on CPU tensors, other options default.

    ``param_groups`` is a list of ``{"params": [tensors], "lr": float (optional)}``.

    Examples
    --------
    >>> w = torch.nn.Parameter(torch.tensor([1.0, -2.0]))
    >>> opt = CpuAdam([{"params": [w]}], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()  # the first step moves each entry by lr against its gradient's sign
    >>> [round(v, 6) for v in w.detach().tolist()]
    [0.9, -1.9]
    """

    def __init__(self, param_groups, lr: float, betas=(0.9, 0.999), eps: float = 1e-8):
        self.param_groups = [{"params": list(g["params"]), "lr": float(g.get("lr", lr))}
                             for g in param_groups]
        self.beta1, self.beta2 = (float(b) for b in betas)
        self.eps = float(eps)
        self.state = {}

    def zero_grad(self):
        """Drop the gradients (``set_to_none=True``, torch's default)."""
        for group in self.param_groups:
            for p in group["params"]:
                p.grad = None

    @torch.no_grad()
    def step(self):
        """One Adam update of every parameter that has a gradient."""
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    self._update(p, p.grad, group["lr"])

    def _update(self, param, grad, lr):
        # torch.optim.adam._single_tensor_adam with capturable=differentiable=False
        state = self.state.get(param)
        if state is None:
            state = self.state[param] = {
                "step": torch.tensor(0.0, dtype=_scalar_dtype()),
                "exp_avg": torch.zeros_like(param, memory_format=torch.preserve_format),
                "exp_avg_sq": torch.zeros_like(param, memory_format=torch.preserve_format)}
        beta1, beta2 = self.beta1, self.beta2
        state["step"] += 1
        state["exp_avg"].lerp_(grad, 1 - beta1)
        state["exp_avg_sq"].mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        step = state["step"].item()
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        step_size = lr / bias_correction1
        bias_correction2_sqrt = bias_correction2 ** 0.5
        denom = (state["exp_avg_sq"].sqrt() / bias_correction2_sqrt).add_(self.eps)
        param.addcdiv_(state["exp_avg"], denom, value=-step_size)


def _scalar_dtype():
    """The dtype of torch's step counter (``torch.optim.optimizer._get_scalar_dtype``)."""
    return torch.float64 if torch.get_default_dtype() == torch.float64 else torch.float32


def adam(param_groups, lr: float, device):
    """:class:`CpuAdam` over ``param_groups`` on a CPU ``device``, else ``torch.optim.Adam``.

    Examples
    --------
    >>> w = torch.nn.Parameter(torch.zeros(2))
    >>> type(adam([{"params": [w]}], lr=0.01, device="cpu")).__name__
    'CpuAdam'
    """
    if torch.device(device).type == "cpu":
        return CpuAdam(param_groups, lr=lr)
    return torch.optim.Adam(param_groups, lr=lr)
