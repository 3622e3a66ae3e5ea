"""hgemm: half-precision GEMM for NVIDIA GPUs, with PyTorch ops.

    import hgemm
    y = hgemm.matmul(a, b)            # a [M, K], b [K, N], CUDA tensors, float16 or bfloat16
    y = hgemm.linear(x, weight, bias) # as torch.nn.functional.linear
    report = hgemm.patch(model)       # every eligible nn.Linear -> hgemm.nn.Linear

The operands of one call share a dtype, which the output takes; bfloat16 accumulates in fp32
only (acc='f16' is for float16).

The extension links libhgemm and the CUDA runtime only; PyTorch is imported when present, and
matmul, linear, nn and patch need it. info, explain, set_table, reload_tables and tune(shapes)
do not.
"""

from ._library import (HgemmError, cli_path, explain, info, library_version, reload_tables,
                       set_table)
from ._tune import tune

__version__ = library_version()

try:
    import torch as _torch  # noqa: F401
except ImportError:
    _torch = None

if _torch is not None:
    from . import nn
    from ._ops import linear, matmul
    from .nn import PatchReport, patch
else:
    def _needs_torch(name):
        def missing(*args, **kwargs):
            raise ImportError(f"hgemm.{name} needs PyTorch, which is not installed")
        missing.__name__ = name
        return missing

    matmul = _needs_torch("matmul")
    linear = _needs_torch("linear")
    patch = _needs_torch("patch")

__all__ = ["HgemmError", "cli_path", "explain", "info", "library_version", "linear", "matmul",
           "patch", "reload_tables", "set_table", "tune", "__version__"]
