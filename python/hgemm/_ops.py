"""The PyTorch ops: hgemm::mm and hgemm::mm_out, registered with torch.library.custom_op so that
torch.compile, torch.export and CUDA graphs see them as ordinary ops, and hgemm.matmul and
hgemm.linear on top of them.

Both ops take b in its stored, row-major form and a layout that says what it is: 'nn', b is
[K, N]; 'tn', b is [N, K] (a Linear weight), and the product is a @ b.T. They run on the current
CUDA stream of the inputs' device. Tensors are float16 or bfloat16, one dtype per call, and the
output has theirs: float16 runs through hgemmRun, bfloat16 through the general call hgemmGemm,
which sends these layouts to the same tuned kernels (their bf16 twins).
"""

import torch

from . import _hgemm, _validate
from ._library import ACCS, LAYOUTS, raise_last_error

_validate.use_torch(torch.Tensor, torch.float16, torch.bfloat16)

_float16 = torch.float16
_bfloat16 = torch.bfloat16
_DTYPES = {torch.float16: _hgemm.DTYPE_F16, torch.bfloat16: _hgemm.DTYPE_BF16}

try:
    # The raw handle, without building a torch.cuda.Stream object per call.
    _current_stream = torch._C._cuda_getCurrentRawStream
except AttributeError:
    def _current_stream(index):
        return torch.cuda.current_stream(index).cuda_stream


def _product_shape(a, b, layout):
    return a.shape[0], (b.shape[1] if layout == "nn" else b.shape[0]), a.shape[1]


def _launch(a, b, out, layout, acc):
    m, n, k = _product_shape(a, b, layout)
    if m == 0 or n == 0:
        return
    if k == 0:
        out.zero_()
        return
    # The ops' contract is row-major operands; a compiled graph may hand over others.
    a = a if a.is_contiguous() else a.contiguous()
    b = b if b.is_contiguous() else b.contiguous()
    _run(a, b.data_ptr(), out, m, n, k, layout, acc, a.dtype)


def _call(a_ptr, b_ptr, c_ptr, m, n, k, layout, acc, dtype, stream):
    """The library call for one product of `dtype` (a torch dtype); returns its status."""
    if dtype is _float16:
        return _hgemm.run(a_ptr, b_ptr, c_ptr, m, n, k, LAYOUTS[layout], ACCS[acc], stream)
    code = _DTYPES.get(dtype)
    if code is None:
        # Only the raw ops get here with another dtype: hgemm.matmul and linear check first.
        raise TypeError(f"hgemm's ops take float16 or bfloat16 tensors, got {dtype}")
    return _hgemm.gemm(a_ptr, b_ptr, c_ptr, m, n, k, LAYOUTS[layout], code, ACCS[acc], stream)


def _run(a, b_ptr, out, m, n, k, layout, acc, dtype):
    """hgemmRun (float16) or hgemmGemm (bfloat16) on a's device and its current stream; b_ptr is
    the stored operand's data, dtype that of a, b and out."""
    index = a.get_device()
    if index != torch.cuda.current_device():
        with torch.cuda.device(index):
            status = _call(a.data_ptr(), b_ptr, out.data_ptr(), m, n, k, layout, acc, dtype,
                           _current_stream(index))
    elif dtype is _float16:
        # Inline rather than through _call: the fp16 eager path is counted in tenths of a
        # microsecond, and bf16's arrival must not add a Python call to it.
        status = _hgemm.run(a.data_ptr(), b_ptr, out.data_ptr(), m, n, k, LAYOUTS[layout],
                            ACCS[acc], _current_stream(index))
    else:
        status = _call(a.data_ptr(), b_ptr, out.data_ptr(), m, n, k, layout, acc, dtype,
                       _current_stream(index))
    if status != _hgemm.SUCCESS:
        raise_last_error(status)


def _mm(a, b, layout, acc):
    m, n, _ = _product_shape(a, b, layout)
    out = torch.empty((m, n), dtype=a.dtype, device=a.device)
    _launch(a, b, out, layout, acc)
    return out


def _check_op_dtypes(*tensors):
    # The ops trust their callers' shapes and layouts, as hgemm.matmul has checked them; a mix of
    # dtypes, though, would run on memory read as the wrong type, without an error.
    dtype = tensors[0].dtype
    if any(t.dtype != dtype for t in tensors[1:]):
        raise TypeError(f"hgemm's ops take tensors of one dtype, got "
                        f"{', '.join(str(t.dtype) for t in tensors)}")


@torch.library.custom_op("hgemm::mm", mutates_args=())
def mm(a: torch.Tensor, b: torch.Tensor, layout: str, acc: str) -> torch.Tensor:
    """a [M, K] times b ([K, N] for layout 'nn', [N, K] transposed for 'tn'): a new [M, N] of
    their dtype (float16 or bfloat16; bfloat16 takes acc 'f32' only)."""
    _check_op_dtypes(a, b)
    return _mm(a, b, layout, acc)


@mm.register_fake
def _mm_fake(a, b, layout, acc):
    m, n, _ = _product_shape(a, b, layout)
    return a.new_empty((m, n))


@torch.library.custom_op("hgemm::mm_out", mutates_args=("out",))
def mm_out(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor, layout: str, acc: str) -> None:
    """mm written into out ([M, N], row-major, of a's and b's dtype)."""
    _check_op_dtypes(a, b, out)
    _launch(a, b, out, layout, acc)


@mm_out.register_fake
def _mm_out_fake(a, b, out, layout, acc):
    return None


def _setup_context(ctx, inputs, output):
    a, b, layout, acc = inputs
    ctx.save_for_backward(a, b)
    ctx.layout = layout
    ctx.acc = acc


def _backward(ctx, grad):
    # C = A B (nn) or A W^T (tn), with A [M, K] row-major. dA = dC B^T is hgemm's tn with B as the
    # stored [K, N] operand, and dC W is its nn with W [N, K]. dB needs A transposed, a layout
    # hgemm does not take, so torch.matmul computes it.
    a, b = ctx.saved_tensors
    grad = grad.contiguous()
    grad_a = grad_b = None
    if ctx.needs_input_grad[0]:
        grad_a = mm(grad, b, "tn" if ctx.layout == "nn" else "nn", ctx.acc)
    if ctx.needs_input_grad[1]:
        grad_b = torch.matmul(a.t(), grad) if ctx.layout == "nn" else torch.matmul(grad.t(), a)
    return grad_a, grad_b, None, None


torch.library.register_autograd("hgemm::mm", _backward, setup_context=_setup_context)

_dispatch_stack_depth = getattr(torch._C, "_len_torch_dispatch_stack", None)
_function_mode_enabled = getattr(torch._C, "_is_torch_function_mode_enabled", None)


def _direct(*tensors):
    """Whether an eager call can skip the PyTorch dispatcher (the op's cost, several microseconds,
    is as long as a decode-sized GEMM): plain tensors, nothing to differentiate, and no tracing,
    compiling or dispatch or function mode that has to see the op."""
    if _dispatch_stack_depth is None or _function_mode_enabled is None:
        return False
    if torch.compiler.is_compiling() or _dispatch_stack_depth() or _function_mode_enabled():
        return False
    grad = torch.is_grad_enabled()
    for t in tensors:
        if type(t) is not torch.Tensor or (grad and t.requires_grad):
            return False
    return True


_Tensor = torch.Tensor
_ACCUMULATIONS = _validate.ACCUMULATIONS


def _eager(a, w, acc):
    """a's dtype when a call on a and the 2-D w can launch at once, else None: plain CUDA tensors
    on one device, both float16 or both bfloat16, a known acc that the dtype takes (bfloat16:
    'f32'), and nothing to differentiate or trace (what _direct asks). Otherwise the call goes
    through the full checks, which also raise the errors. Each attribute read costs about 0.2 us,
    a tenth of a decode-sized GEMM, so the common call reads few and builds no message; the
    stride rules are the full checks' own (_validate)."""
    if type(a) is not _Tensor or type(w) is not _Tensor or acc not in _ACCUMULATIONS:
        return None
    dtype = a.dtype
    if ((dtype is _float16 or (dtype is _bfloat16 and acc == "f32")) and w.dtype is dtype
            and a.is_cuda and w.dim() == 2 and a.device == w.device and _direct(a, w)):
        return dtype
    return None


# The layout of the stored operand, by how matmul's b ([K, N]) or linear's weight ([N, K]) is
# stored.
_MATMUL_LAYOUT = {"row": "nn", "column": "tn", None: None}
_LINEAR_LAYOUT = {"row": "tn", "column": "nn", None: None}


def _eager_layout(a, b, acc):
    """(layout, dtype), layout 'nn' or 'tn', when hgemm.matmul(a, b, acc=acc) can launch at once
    (_eager), a [M, K] row-major and b [K, N] row- or column-major, none of M, N, K below 2;
    else None."""
    dtype = _eager(a, b, acc)
    if dtype is None or a.dim() != 2:
        return None
    (m, k), (kb, n) = a.shape, b.shape
    if kb != k or not (m > 1 and n > 1 and k > 1) or not _validate.row_major(a):
        return None
    layout = _MATMUL_LAYOUT[_validate.storage_order(b)]
    return None if layout is None else (layout, dtype)


def _eager_linear_layout(x, weight, acc):
    """What _eager_layout is to matmul, for linear(x, weight) without bias: x [..., K] with at
    least two dimensions and contiguous, weight [N, K] row-major ('tn') or the transpose of a
    row-major [K, N] ('nn'); no views are made."""
    dtype = _eager(x, weight, acc)
    if dtype is None or x.dim() < 2 or not x.is_contiguous():
        return None
    n, k = weight.shape
    if x.shape[-1] != k or not (n > 1 and k > 1 and x.numel() > k):
        return None
    layout = _LINEAR_LAYOUT[_validate.storage_order(weight)]
    return None if layout is None else (layout, dtype)


def matmul(a, b, *, out=None, acc="f32"):
    """a @ b for CUDA tensors a [M, K] and b [K, N], on the current CUDA stream.

    a and b are both float16 or both bfloat16 (a mix raises TypeError), and the product has their
    dtype. a must be row-major contiguous; b row-major ([K, N], layout nn) or column-major (the
    .t() of a row-major [N, K], layout tn). Nothing is copied: other layouts raise ValueError.
    acc 'f32' accumulates in fp32, 'f16' in fp16; bfloat16 accumulates in fp32 only, and
    acc='f16' with it raises ValueError. With out ([M, N] of the inputs' dtype, row-major), the
    product is written there and out is returned; out does not support autograd."""
    if out is None:
        eager = _eager_layout(a, b, acc)
        if eager is not None:
            layout, dtype = eager
            # b's data pointer is the stored operand's for both layouts (b.t() is a view).
            m, k = a.shape
            n = b.shape[1]
            result = a.new_empty((m, n))
            _run(a, b.data_ptr(), result, m, n, k, layout, acc, dtype)
            return result
    m, n, k, layout = _validate.check_matmul(a, b, out, acc)
    stored = b if layout == "nn" else b.t()
    if out is None:
        if _direct(a, b):
            return _mm(a, stored, layout, acc)
        return mm(a, stored, layout, acc)
    if torch.is_grad_enabled() and (a.requires_grad or b.requires_grad):
        raise RuntimeError("hgemm.matmul with out= does not support autograd, and a or b "
                           "requires grad")
    if _direct(a, b, out):
        _launch(a, stored, out, layout, acc)
    else:
        mm_out(a, stored, out, layout, acc)
    return out


def linear(x, weight, bias=None, *, acc="f32"):
    """x @ weight.T + bias, as torch.nn.functional.linear, for CUDA tensors of one dtype, float16
    or bfloat16 (the output's too): x [..., K] row-major contiguous, weight [N, K] (row-major, or
    the .t() of a row-major [K, N]), bias [N] or None. The leading dimensions of x are flattened
    into M; the bias is added by PyTorch. acc as matmul's: bfloat16 takes 'f32' only."""
    if bias is None:
        eager = _eager_linear_layout(x, weight, acc)
        if eager is not None:
            layout, dtype = eager
            n, k = weight.shape
            y = x.new_empty(x.shape[:-1] + (n,))
            _run(x, weight.data_ptr(), y, x.numel() // k, n, k, layout, acc, dtype)
            return y
    m, n, k, layout = _validate.check_linear(x, weight, bias, acc)
    x2 = x.reshape(m, k)
    stored = weight if layout == "tn" else weight.t()
    if _direct(x, weight):
        y = _mm(x2, stored, layout, acc)
    else:
        y = mm(x2, stored, layout, acc)
    y = y.reshape(*x.shape[:-1], n)
    if bias is not None:
        y = y + bias
    return y
