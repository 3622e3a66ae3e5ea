#!/usr/bin/env python3
"""bfloat16 through hgemm.matmul, hgemm.linear, hgemm.nn.Linear and hgemm.patch without a GPU:
the dtype rules as the public calls apply them (the eager path included, which skips the full
checks when it can), and which library call each dtype reaches: float16 hgemmRun (_hgemm.run),
bfloat16 the general call (_hgemm.gemm). PyTorch is replaced by a stand-in that holds only what
the package touches, so the test runs, and means the same, with or without torch installed; the
extension's two launches are recorded instead of run. Run as python_package_cpu is
(tests/CMakeLists.txt)."""

import contextlib
import itertools
import sys
import types
import unittest

from torch_standins import Device, Dtype


def _packed_strides(shape):
    strides, step = [], 1
    for d in reversed(shape):
        strides.insert(0, step)
        step *= max(d, 1)
    return tuple(strides)


_addresses = itertools.count(0x100000, 0x100000)


class Tensor:
    """What the package reads of a tensor, with a distinct data pointer per allocation."""

    def __init__(self, shape, dtype, device=None, strides=None, ptr=None, requires_grad=False):
        self.shape = tuple(shape)
        self.dtype = dtype
        self.device = device or Device()
        self._strides = tuple(strides) if strides is not None else _packed_strides(self.shape)
        self._ptr = ptr if ptr is not None else next(_addresses)
        self.requires_grad = requires_grad

    def stride(self):
        return self._strides

    def data_ptr(self):
        return self._ptr

    def dim(self):
        return len(self.shape)

    def numel(self):
        n = 1
        for d in self.shape:
            n *= d
        return n

    @property
    def is_cuda(self):
        return self.device.type == "cuda"

    def get_device(self):
        return self.device.index if self.is_cuda else -1

    def is_contiguous(self):
        return all(size == 1 or stride == packed for size, stride, packed in
                   zip(self.shape, self._strides, _packed_strides(self.shape)))

    def t(self):
        return Tensor(self.shape[::-1], self.dtype, self.device, self._strides[::-1], self._ptr)

    def new_empty(self, shape):
        return Tensor(shape, self.dtype, self.device)

    def reshape(self, *shape):
        if len(shape) == 1 and isinstance(shape[0], tuple):
            shape = shape[0]
        assert self.is_contiguous(), "the package reshapes only contiguous tensors"
        return Tensor(shape, self.dtype, self.device, ptr=self._ptr)

    def contiguous(self):
        return self if self.is_contiguous() else Tensor(self.shape, self.dtype, self.device)

    def __add__(self, other):
        # The bias that linear adds in PyTorch: the test's tensors never mix dtypes here.
        assert other.dtype is self.dtype, (self.dtype, other.dtype)
        return Tensor(self.shape, self.dtype, self.device)


class Module:
    def __init__(self):
        object.__setattr__(self, "_modules", {})
        self._forward_hooks = {}
        self._forward_pre_hooks = {}
        self.training = True

    def __setattr__(self, name, value):
        if isinstance(value, Module):
            self._modules[name] = value
        object.__setattr__(self, name, value)

    def named_children(self):
        return iter(list(self._modules.items()))

    def named_modules(self, prefix=""):
        yield prefix, self
        for name, child in self._modules.items():
            yield from child.named_modules(f"{prefix}.{name}" if prefix else name)

    def train(self, mode=True):
        self.training = mode
        return self

    def __call__(self, *args):
        return self.forward(*args)


def _fake_torch():
    torch = types.ModuleType("torch")
    torch.float16, torch.bfloat16, torch.float32 = (Dtype(n) for n in
                                                    ("float16", "bfloat16", "float32"))
    torch.Tensor = Tensor

    def empty(shape, dtype, device):
        return Tensor(shape, dtype, device)

    torch.empty = empty
    torch.is_grad_enabled = lambda: True

    class Op:
        """torch.library.custom_op's result: callable as the function, here without dispatch."""

        def __init__(self, fn):
            self.fn = fn

        def __call__(self, *args):
            return self.fn(*args)

        def register_fake(self, fn):
            return fn

    torch.library = types.SimpleNamespace(
        custom_op=lambda name, mutates_args: Op,
        register_autograd=lambda name, backward, setup_context: None)
    torch._C = types.SimpleNamespace(_cuda_getCurrentRawStream=lambda index: 0x57,
                                     _len_torch_dispatch_stack=lambda: 0,
                                     _is_torch_function_mode_enabled=lambda: False)
    torch.compiler = types.SimpleNamespace(is_compiling=lambda: False)
    torch.cuda = types.SimpleNamespace(current_device=lambda: 0,
                                       device=lambda index: contextlib.nullcontext())

    class Linear(Module):
        def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
            super().__init__()
            place = Device("cuda", 0) if device == "cuda" else Device("cpu", None)
            dtype = dtype or torch.float32
            self.in_features = in_features
            self.out_features = out_features
            self.weight = Tensor((out_features, in_features), dtype, place)
            self.bias = Tensor((out_features,), dtype, place) if bias else None

    torch.nn = types.SimpleNamespace(Module=Module, Linear=Linear)
    return torch


torch = _fake_torch()
# hgemm imports torch when it is first imported: it must find the stand-in, not a real torch.
sys.modules["torch"] = torch

import hgemm  # noqa: E402
from hgemm import _hgemm, _ops  # noqa: E402

F16, BF16, F32 = torch.float16, torch.bfloat16, torch.float32


class Recorder:
    """The extension, with run and gemm recorded (and answering success) instead of launched."""

    def __init__(self, real):
        self.real = real
        self.calls = []

    def run(self, *args):
        self.calls.append(("run",) + args)
        return self.real.SUCCESS

    def gemm(self, *args):
        self.calls.append(("gemm",) + args)
        return self.real.SUCCESS

    def __getattr__(self, name):
        return getattr(self.real, name)


class Case(unittest.TestCase):
    def setUp(self):
        self.ext = Recorder(_hgemm)
        _ops._hgemm = self.ext

    def tearDown(self):
        _ops._hgemm = _hgemm

    def raises(self, exc, words, fn, *args, **kwargs):
        before = list(self.ext.calls)
        with self.assertRaises(exc) as cm:
            fn(*args, **kwargs)
        for w in words:
            self.assertIn(w, str(cm.exception))
        self.assertEqual(self.ext.calls, before, "a refused call must launch nothing")

    def bf16_call(self, a, b, out, m, n, k, layout):
        return ("gemm", a.data_ptr(), b.data_ptr(), out.data_ptr(), m, n, k, layout,
                _hgemm.DTYPE_BF16, _hgemm.ACC_F32, 0x57)


class Matmul(Case):
    def test_bf16_runs_the_general_call(self):
        a, b, w = Tensor((8, 16), BF16), Tensor((16, 4), BF16), Tensor((4, 16), BF16)
        y = hgemm.matmul(a, b)
        self.assertEqual((y.shape, y.dtype), ((8, 4), BF16))
        y_tn = hgemm.matmul(a, w.t())
        self.assertEqual(y_tn.dtype, BF16)
        self.assertEqual(self.ext.calls, [
            self.bf16_call(a, b, y, 8, 4, 16, _hgemm.LAYOUT_NN),
            self.bf16_call(a, w, y_tn, 8, 4, 16, _hgemm.LAYOUT_TN)])

    def test_bf16_full_checks_and_op_path(self):
        # M = 1 is not the eager path's; requires_grad sends the call through the op.
        a, b = Tensor((1, 16), BF16), Tensor((16, 4), BF16)
        y = hgemm.matmul(a, b)
        grad_a = Tensor((8, 16), BF16, requires_grad=True)
        y_op = hgemm.matmul(grad_a, b)
        out = Tensor((8, 4), BF16)
        self.assertIs(hgemm.matmul(Tensor((8, 16), BF16), b, out=out), out)
        self.assertEqual((y.dtype, y_op.dtype), (BF16, BF16))
        self.assertEqual([c[0] for c in self.ext.calls], ["gemm"] * 3)
        self.assertEqual([c[8] for c in self.ext.calls], [_hgemm.DTYPE_BF16] * 3)
        self.assertEqual(self.ext.calls[2][3], out.data_ptr())

    def test_fp16_still_runs_hgemm_run(self):
        a, b = Tensor((8, 16), F16), Tensor((16, 4), F16)
        for acc, code in (("f32", _hgemm.ACC_F32), ("f16", _hgemm.ACC_F16)):
            y = hgemm.matmul(a, b, acc=acc)
            self.assertEqual(y.dtype, F16)
            self.assertEqual(self.ext.calls[-1], ("run", a.data_ptr(), b.data_ptr(),
                                                  y.data_ptr(), 8, 4, 16, _hgemm.LAYOUT_NN,
                                                  code, 0x57))
        hgemm.matmul(Tensor((1, 16), F16), b)
        self.assertEqual(self.ext.calls[-1][0], "run")

    def test_mixed_dtypes_refused(self):
        a16, b16 = Tensor((8, 16), F16), Tensor((16, 4), F16)
        a_bf, b_bf = Tensor((8, 16), BF16), Tensor((16, 4), BF16)
        self.raises(TypeError, ["b (bfloat16 (16, 4) on cuda:0)", "a (float16 (8, 16) on cuda:0)",
                                "differ in dtype"], hgemm.matmul, a16, b_bf)
        self.raises(TypeError, ["b (float16", "a (bfloat16", "differ in dtype"],
                    hgemm.matmul, a_bf, b16)
        self.raises(TypeError, ["out (float16", "a (bfloat16"], hgemm.matmul, a_bf, b_bf,
                    out=Tensor((8, 4), F16))
        self.raises(TypeError, ["a (float32", "bfloat16 or float16 only"], hgemm.matmul,
                    Tensor((8, 16), F32), b_bf)

    def test_bf16_with_f16_accumulation_refused(self):
        a, b = Tensor((8, 16), BF16), Tensor((16, 4), BF16)
        for kwargs in ({}, {"out": Tensor((8, 4), BF16)}):
            self.raises(ValueError, ["a (bfloat16", "bf16 accumulates in fp32 only"],
                        hgemm.matmul, a, b, acc="f16", **kwargs)

    def test_raw_ops_refuse_other_and_mixed_dtypes(self):
        a, b = Tensor((8, 16), F32), Tensor((16, 4), F32)
        self.raises(TypeError, ["float16 or bfloat16", "torch.float32"], _ops.mm, a, b, "nn",
                    "f32")
        a_bf, b_bf = Tensor((8, 16), BF16), Tensor((16, 4), BF16)
        self.raises(TypeError, ["one dtype", "torch.bfloat16, torch.float16"], _ops.mm, a_bf,
                    Tensor((16, 4), F16), "nn", "f32")
        self.raises(TypeError, ["one dtype", "torch.bfloat16, torch.bfloat16, torch.float16"],
                    _ops.mm_out, a_bf, b_bf, Tensor((8, 4), F16), "nn", "f32")


class Linear(Case):
    def test_bf16(self):
        x, w, bias = Tensor((2, 3, 16), BF16), Tensor((4, 16), BF16), Tensor((4,), BF16)
        y = hgemm.linear(x, w)
        self.assertEqual((y.shape, y.dtype), ((2, 3, 4), BF16))
        self.assertEqual(self.ext.calls, [self.bf16_call(x, w, y, 6, 4, 16, _hgemm.LAYOUT_TN)])
        y_bias = hgemm.linear(x, w, bias)
        self.assertEqual((y_bias.shape, y_bias.dtype), ((2, 3, 4), BF16))
        self.assertEqual(self.ext.calls[-1][0], "gemm")

    def test_refused(self):
        x, w = Tensor((2, 16), BF16), Tensor((4, 16), BF16)
        self.raises(TypeError, ["weight (float16", "x (bfloat16", "differ in dtype"],
                    hgemm.linear, x, Tensor((4, 16), F16))
        self.raises(TypeError, ["bias (float16 (4,)", "x (bfloat16"], hgemm.linear, x, w,
                    Tensor((4,), F16))
        self.raises(ValueError, ["x (bfloat16", "bf16 accumulates in fp32 only"], hgemm.linear,
                    x, w, acc="f16")


class Modules(Case):
    def test_bf16_linear_module(self):
        lin = hgemm.nn.Linear(16, 4, device="cuda", dtype=BF16)
        y = lin(Tensor((5, 16), BF16))
        self.assertEqual((y.shape, y.dtype), ((5, 4), BF16))
        self.assertEqual(self.ext.calls[-1][0], "gemm")
        self.raises(TypeError, ["x (float16", "weight (bfloat16"], lin, Tensor((5, 16), F16))

    def test_patch(self):
        model = Module()
        model.fp16 = torch.nn.Linear(8, 8, device="cuda", dtype=F16)
        model.bf16 = torch.nn.Linear(8, 8, device="cuda", dtype=BF16)
        model.fp32 = torch.nn.Linear(8, 8, device="cuda")
        model.mixed = torch.nn.Linear(8, 8, device="cuda", dtype=BF16)
        model.mixed.bias = Tensor((8,), F16)
        model.host = torch.nn.Linear(8, 8, dtype=BF16)
        report = hgemm.patch(model)
        self.assertEqual(report.swapped, ["fp16", "bf16"])
        self.assertIsInstance(model.bf16, hgemm.nn.Linear)
        self.assertIs(model.bf16.weight.dtype, BF16)
        skipped = dict(report.skipped)
        self.assertEqual(sorted(skipped), ["fp32", "host", "mixed"])
        self.assertIn("weight is torch.float32, hgemm takes torch.float16 or torch.bfloat16",
                      skipped["fp32"])
        self.assertIn("bias is torch.float16 on cuda:0, not bfloat16 beside the weight",
                      skipped["mixed"])
        self.assertIn("CUDA", skipped["host"])
        with self.assertRaisesRegex(ValueError, "cannot convert this Linear: weight is "
                                                "torch.float32"):
            hgemm.nn.Linear.from_linear(torch.nn.Linear(4, 4, device="cuda"))


if __name__ == "__main__":
    unittest.main()
