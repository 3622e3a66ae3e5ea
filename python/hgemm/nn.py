"""hgemm.nn.Linear, a drop-in for torch.nn.Linear in float16 or bfloat16 on CUDA, and
hgemm.patch(model)."""

from dataclasses import dataclass, field

import torch

from ._ops import linear

_DTYPES = (torch.float16, torch.bfloat16)


def ineligible(module):
    """Why `module` cannot become an hgemm.nn.Linear, or None when it can."""
    if isinstance(module, Linear):
        return "already an hgemm.nn.Linear"
    if type(module) is not torch.nn.Linear:
        # Subclasses (MultiheadAttention's out_proj, parametrized or quantized Linears) may use
        # their weight outside forward, which a swap would not follow.
        return f"a {type(module).__module__}.{type(module).__qualname__}, not a torch.nn.Linear"
    w = module.weight
    if w.dtype not in _DTYPES:
        return f"weight is {w.dtype}, hgemm takes torch.float16 or torch.bfloat16"
    if w.device.type != "cuda":
        return f"weight is on {w.device}, hgemm needs a CUDA device"
    if module.bias is not None and (module.bias.dtype != w.dtype or
                                    module.bias.device != w.device):
        wanted = str(w.dtype).replace("torch.", "")
        return (f"bias is {module.bias.dtype} on {module.bias.device}, not {wanted} beside the "
                f"weight")
    if not (w.is_contiguous() or w.t().is_contiguous()):
        return f"weight has strides {tuple(w.stride())}, neither row- nor column-major"
    if module._forward_hooks or module._forward_pre_hooks:
        return "has forward hooks, which the swapped module would not keep"
    return None


class Linear(torch.nn.Linear):
    """torch.nn.Linear whose forward runs hgemm.linear: float16 (the default) or bfloat16 weight
    on a CUDA device, input [..., in_features] row-major contiguous and of the weight's dtype.
    Parameters, state_dict keys and autograd are torch.nn.Linear's."""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=torch.float16):
        super().__init__(in_features, out_features, bias=bias, device=device, dtype=dtype)

    def forward(self, x):
        return linear(x, self.weight, self.bias)

    @classmethod
    def from_linear(cls, module):
        """An hgemm.nn.Linear sharing `module`'s parameters (no copy). ValueError when the module
        is not eligible (see hgemm.patch)."""
        why = ineligible(module)
        if why:
            raise ValueError(f"cannot convert this Linear: {why}")
        new = cls.__new__(cls)
        torch.nn.Module.__init__(new)
        new.in_features = module.in_features
        new.out_features = module.out_features
        new.weight = module.weight
        new.bias = module.bias
        new.train(module.training)
        return new


@dataclass
class PatchReport:
    """What hgemm.patch did: the qualified names of the Linears it swapped, and of those it left,
    each with why."""
    swapped: list = field(default_factory=list)
    skipped: list = field(default_factory=list)

    def __str__(self):
        lines = [f"hgemm.patch: swapped {len(self.swapped)} Linear modules, "
                 f"left {len(self.skipped)}"]
        lines += [f"  swapped {name}" for name in self.swapped]
        lines += [f"  left    {name}: {why}" for name, why in self.skipped]
        return "\n".join(lines)


def patch(model):
    """Replaces, in place, every eligible torch.nn.Linear inside `model` (float16 or bfloat16
    weight, a bias of the same dtype or none, on a CUDA device, no hooks) by an hgemm.nn.Linear
    sharing its parameters, and returns a PatchReport naming what was swapped and what was not,
    and why. The model itself, if a Linear, cannot be replaced in place: use
    hgemm.nn.Linear.from_linear."""
    report = PatchReport()
    if isinstance(model, torch.nn.Linear):
        report.skipped.append(("", "the model itself is a Linear: use "
                                   "hgemm.nn.Linear.from_linear(model)"))
        return report
    for parent_name, parent in list(model.named_modules()):
        for child_name, child in list(parent.named_children()):
            if not isinstance(child, torch.nn.Linear):
                continue
            name = f"{parent_name}.{child_name}" if parent_name else child_name
            why = ineligible(child)
            if why:
                report.skipped.append((name, why))
            else:
                setattr(parent, child_name, Linear.from_linear(child))
                report.swapped.append(name)
    return report
