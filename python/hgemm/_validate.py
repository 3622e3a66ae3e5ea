"""Argument checks for hgemm.matmul and hgemm.linear, done before anything reaches the GPU.

They read only what every tensor exposes (shape, dtype, device, stride()), never import torch,
and so are tested on small stand-in objects on machines without PyTorch. Each failure names the
argument and the problem: TypeError for what is not a tensor, has a dtype other than float16 or
bfloat16, or does not share the other operands' dtype; ValueError for the wrong device, shape or
layout, or for fp16 accumulation of bfloat16.
"""

NN = "nn"
TN = "tn"
ACCUMULATIONS = ("f32", "f16")
_TENSOR_ATTRIBUTES = ("shape", "dtype", "device", "stride", "data_ptr")

# Set by use_torch(): isinstance and dtype comparisons, which torch.compile traces without a
# graph break where it might not trace hasattr() and str().
_tensor_type = None
_float16 = None
_bfloat16 = None


def use_torch(tensor_type, float16, bfloat16=None):
    global _tensor_type, _float16, _bfloat16
    _tensor_type = tensor_type
    _float16 = float16
    _bfloat16 = bfloat16


def _dtype_name(t):
    return str(t.dtype).replace("torch.", "")


def _is_tensor(t):
    if _tensor_type is not None:
        return isinstance(t, _tensor_type)
    return all(hasattr(t, attr) for attr in _TENSOR_ATTRIBUTES)


def _is_float16(t):
    if _float16 is not None:
        return t.dtype == _float16
    return _dtype_name(t) == "float16"


def _is_bfloat16(t):
    if _bfloat16 is not None:
        return t.dtype == _bfloat16
    return _dtype_name(t) == "bfloat16"


def _same_dtype_as(t, first):
    # Without torch, dtypes are duck-typed like the tensors: compared by the name they print.
    if _float16 is not None:
        return t.dtype == first.dtype
    return _dtype_name(t) == _dtype_name(first)


def _describe(name, t):
    return f"{name} ({_dtype_name(t)} {tuple(t.shape)} on {t.device})"


def _check_tensor(name, t):
    if not _is_tensor(t):
        raise TypeError(f"{name} must be a torch.Tensor, not {type(t).__name__}")
    if not (_is_float16(t) or _is_bfloat16(t)):
        raise TypeError(f"{_describe(name, t)}: hgemm takes bfloat16 or float16 only, got "
                        f"{_dtype_name(t)} (convert with .half() or .bfloat16())")
    if t.device.type != "cuda":
        raise ValueError(f"{_describe(name, t)}: must be a CUDA tensor, got a {t.device.type} "
                         f"tensor (move it with .cuda())")


# An empty matrix holds nothing to lay out, and a dimension of size 1 takes any stride.
def _row_major(shape, stride):
    rows, cols = shape
    return rows == 0 or cols == 0 or (
        (cols == 1 or stride[1] == 1) and (rows == 1 or stride[0] == cols))


def _column_major(shape, stride):
    rows, cols = shape
    return rows == 0 or cols == 0 or (
        (rows == 1 or stride[0] == 1) and (cols == 1 or stride[1] == rows))


def storage_order(t):
    """'row' or 'column': how the 2-D t is stored, or None when it is neither."""
    shape, stride = t.shape, t.stride()
    if _row_major(shape, stride):
        return "row"
    if _column_major(shape, stride):
        return "column"
    return None


def row_major(t):
    return _row_major(t.shape, t.stride())


def _major(name, t):
    """'row' or 'column': how the 2-D t is stored, which must be one of the two."""
    order = storage_order(t)
    if order is not None:
        return order
    raise ValueError(f"{_describe(name, t)}: must be row-major or column-major contiguous, got "
                     f"strides {tuple(t.stride())} (pass {name}.contiguous())")


def _same_dtype(pairs):
    first_name, first = pairs[0]
    for name, t in pairs[1:]:
        if not _same_dtype_as(t, first):
            raise TypeError(f"{_describe(name, t)} and {_describe(first_name, first)} differ in "
                            f"dtype: hgemm takes one dtype, float16 or bfloat16, for all of them "
                            f"(convert with {name}.to({first_name}.dtype))")


def _same_device(pairs):
    first_name, first = pairs[0]
    for name, t in pairs[1:]:
        if t.device != first.device:
            raise ValueError(f"{name} is on {t.device} but {first_name} is on {first.device}: "
                             f"all tensors must be on one device")


def check_acc(acc):
    if acc not in ACCUMULATIONS:
        raise ValueError(f"acc must be 'f32' or 'f16', got {acc!r}")


def _check_acc_for_dtype(name, t, acc):
    """acc is known-good; bfloat16, whose range fp16 cannot hold, takes fp32 accumulation only."""
    if acc == "f16" and _is_bfloat16(t):
        raise ValueError(f"{_describe(name, t)}: bf16 accumulates in fp32 only, so acc='f16' is "
                         f"not available for bfloat16 (pass acc='f32')")


def check_matmul(a, b, out=None, acc="f32"):
    """Checks hgemm.matmul(a, b, out=out, acc=acc) and returns (m, n, k, layout): a is [M, K]
    row-major; b is [K, N] row-major (layout nn) or column-major, that is the transpose of a
    row-major [N, K] tensor such as a Linear weight's .t() (layout tn). a, b and out share one
    dtype, float16 or bfloat16; bfloat16 takes acc 'f32' only. Nothing is copied."""
    check_acc(acc)
    _check_tensor("a", a)
    _check_tensor("b", b)
    if len(a.shape) != 2:
        raise ValueError(f"{_describe('a', a)}: must be 2-D [M, K]; hgemm.linear flattens "
                         f"leading dimensions")
    if len(b.shape) != 2:
        raise ValueError(f"{_describe('b', b)}: must be 2-D [K, N]")
    m, k = a.shape
    if b.shape[0] != k:
        raise ValueError(f"inner dimensions differ: a is {tuple(a.shape)} and b is "
                         f"{tuple(b.shape)} (a's columns must equal b's rows)")
    n = b.shape[1]
    pairs = [("a", a), ("b", b)]
    if out is not None:
        _check_tensor("out", out)
        pairs.append(("out", out))
    _same_dtype(pairs)
    _check_acc_for_dtype("a", a, acc)
    _same_device(pairs)
    if not _row_major(a.shape, a.stride()):
        raise ValueError(f"{_describe('a', a)}: must be row-major contiguous, got strides "
                         f"{tuple(a.stride())} (hgemm does not copy: pass a.contiguous())")
    layout = NN if _major("b", b) == "row" else TN
    if out is not None:
        if tuple(out.shape) != (m, n):
            raise ValueError(f"{_describe('out', out)}: must have shape {(m, n)}, the product's")
        if not _row_major(out.shape, out.stride()):
            raise ValueError(f"{_describe('out', out)}: must be row-major contiguous, got strides "
                             f"{tuple(out.stride())}")
    return m, n, k, layout


def check_linear(x, weight, bias=None, acc="f32"):
    """Checks hgemm.linear(x, weight, bias, acc=acc) and returns (m, n, k, layout): x is [..., K]
    whose leading dimensions flatten without a copy (row-major contiguous), weight [N, K]
    row-major (layout tn) or the transpose of a row-major [K, N] (layout nn), bias [N] or None.
    x, weight and bias share one dtype, float16 or bfloat16; bfloat16 takes acc 'f32' only."""
    _check_tensor("x", x)
    _check_tensor("weight", weight)
    if len(x.shape) < 1:
        raise ValueError(f"{_describe('x', x)}: must have at least one dimension [..., K]")
    if len(weight.shape) != 2:
        raise ValueError(f"{_describe('weight', weight)}: must be 2-D [N, K]")
    n, k = weight.shape
    if x.shape[-1] != k:
        raise ValueError(f"inner dimensions differ: x is {tuple(x.shape)} and weight is "
                         f"{tuple(weight.shape)} (x's last dimension must equal weight's second)")
    pairs = [("x", x), ("weight", weight)]
    if bias is not None:
        _check_tensor("bias", bias)
        if tuple(bias.shape) != (n,):
            raise ValueError(f"{_describe('bias', bias)}: must have shape ({n},), the weight's "
                             f"output features")
        pairs.append(("bias", bias))
    _same_dtype(pairs)
    _same_device(pairs)
    m = 1
    for d in x.shape[:-1]:
        m *= d
    expected = 1
    for size, stride in reversed(list(zip(x.shape, x.stride()))):
        if m * k and size != 1 and stride != expected:
            raise ValueError(f"{_describe('x', x)}: must be row-major contiguous so that its "
                             f"leading dimensions flatten without a copy, got strides "
                             f"{tuple(x.stride())} (pass x.contiguous())")
        expected *= size
    layout = TN if _major("weight", weight) == "row" else NN
    check_acc(acc)
    _check_acc_for_dtype("x", x, acc)
    return m, n, k, layout
