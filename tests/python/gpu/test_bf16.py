#!/usr/bin/env python3
"""bfloat16 through the package: hgemm.matmul (layouts nn and tn) and hgemm.linear against
torch.matmul in fp32 of the same bf16 inputs, for a decode, an odd, a misaligned and a square
shape; hgemm.nn.Linear against torch.nn.Linear and hgemm.patch on a bf16 model; the ops under
torch.library.opcheck and autograd; the dtype errors with real tensors; and a plain bf16 product
on the dispatch path (the tuned kernels' bf16 twins), not the safety net.

The tolerance, per element, against the fp32 reference: one bf16 rounding of the result,
2^-8 |ref| (bf16 has 8 significant bits), plus the fp32 accumulation error of both sides, each
at most K * 2^-24 * (|A| |B|) for rounded sums; hgemm's counts twice, since tensor cores may
truncate where they would round, and one more covers the bf16 rounding of that error."""

import copy
import unittest

from gpu_common import GpuTest, hgemm, randn, torch
from hgemm import _hgemm

BF16 = torch.bfloat16
BF16_UNIT = 2.0 ** -8
FP32_UNIT = 2.0 ** -24
# (M, N, K): decode; odd M; N and K off the sm90 kernels' multiple of 8 (the safety net runs it);
# square.
SHAPES = [(1, 1024, 4096), (77, 768, 1024), (200, 100, 333), (1024, 1024, 1024)]


def bf16_randn(*shape, seed):
    return randn(*shape, seed=seed, dtype=BF16)


class Bf16Test(GpuTest):
    def setUp(self):
        # The references must be fp32 throughout: TF32 (10 bits) and bf16 split-K reductions
        # are coarser than the error under test.
        matmul = torch.backends.cuda.matmul
        self._saved = (matmul.allow_tf32, matmul.allow_bf16_reduced_precision_reduction)
        matmul.allow_tf32 = False
        matmul.allow_bf16_reduced_precision_reduction = False

    def tearDown(self):
        matmul = torch.backends.cuda.matmul
        matmul.allow_tf32, matmul.allow_bf16_reduced_precision_reduction = self._saved

    def assertBf16Close(self, got, a, b_kn, what, bias=None, roundings=1):
        """got (bf16) against a @ b_kn (+ bias) in fp32, a [M, K] and b_kn [K, N] bf16; roundings
        is 2 where the bias is added to the rounded product, as hgemm.linear does."""
        self.assertEqual(got.dtype, BF16, what)
        af, bf = a.float(), b_kn.float()
        product = torch.matmul(af, bf)
        ref = product if bias is None else product + bias.float()
        rounded = ref.abs() if roundings == 1 else ref.abs() + product.abs()
        k = a.shape[1]
        tol = BF16_UNIT * rounded + 4 * k * FP32_UNIT * torch.matmul(af.abs(), bf.abs())
        err = (got.float().reshape(ref.shape) - ref).abs()
        self.assertTrue(torch.isfinite(got).all().item(), f"{what}: non-finite output")
        bad = err > tol
        worst = (err - tol).max().item()
        self.assertFalse(bad.any().item(),
                         f"{what}: {int(bad.sum().item())} of {bad.numel()} elements beyond the "
                         f"bf16 tolerance, the worst by {worst:.3e}")


class Matmul(Bf16Test):
    def test_against_torch_fp32(self):
        for m, n, k in SHAPES:
            name = f"{m}x{n}x{k}"
            a, b, w = bf16_randn(m, k, seed=1), bf16_randn(k, n, seed=2), bf16_randn(n, k, seed=3)
            self.assertBf16Close(hgemm.matmul(a, b), a, b, f"matmul nn {name}")
            self.assertBf16Close(hgemm.matmul(a, w.t()), a, w.t(), f"matmul tn {name}")
            self.assertBf16Close(hgemm.linear(a, w), a, w.t(), f"linear {name}")
            out = torch.full((m, n), float("nan"), device="cuda", dtype=BF16)
            self.assertIs(hgemm.matmul(a, b, out=out), out)
            self.assertBf16Close(out, a, b, f"matmul nn out= {name}")
            torch.cuda.synchronize()

    def test_linear_leading_dims_and_bias(self):
        x, w, bias = bf16_randn(2, 3, 5, 96, seed=4), bf16_randn(80, 96, seed=5), \
            bf16_randn(80, seed=6)
        got = hgemm.linear(x, w, bias)
        self.assertEqual(tuple(got.shape), (2, 3, 5, 80))
        self.assertBf16Close(got, x.reshape(30, 96), w.t(), "linear with bias", bias=bias,
                             roundings=2)
        # A weight stored transposed (a column-major [N, K]) runs as layout nn.
        wt = w.t().contiguous().t()
        self.assertBf16Close(hgemm.linear(x, wt), x.reshape(30, 96), w.t(), "linear, weight nn")

    def test_dispatch_path(self):
        """A plain bf16 product is exactly one hgemmRun: on sm90 it runs a tuned kernel's bf16
        twin. The explanation is asked for the pointers hgemm.matmul hands over."""
        a, b, w = bf16_randn(1024, 1024, seed=7), bf16_randn(1024, 1024, seed=8), \
            bf16_randn(1024, 1024, seed=9)
        out = torch.empty(1024, 1024, device="cuda", dtype=BF16)
        sm90 = torch.cuda.get_device_capability() >= (9, 0)
        for layout, stored in ((_hgemm.LAYOUT_NN, b), (_hgemm.LAYOUT_TN, w)):
            status, plan = _hgemm.gemm_explain(a.data_ptr(), stored.data_ptr(), out.data_ptr(),
                                               1024, 1024, 1024, layout, _hgemm.DTYPE_BF16,
                                               _hgemm.ACC_F32)
            self.assertEqual(status, _hgemm.SUCCESS, _hgemm.last_error())
            if sm90:
                self.assertEqual(plan["path"], "dispatch", plan)
                self.assertTrue(plan["kernel"].endswith("_bf16"), plan)
                self.assertFalse(plan["transposed"], plan)
                self.assertNotEqual(plan["source"], "safety net", plan)
            else:
                # The bf16 twins are sm90 kernels: elsewhere the safety net runs the call.
                self.assertEqual(plan["path"], "safety net", plan)
            self.assertTrue(plan["reason"], plan)
        # Misaligned K (333) cannot use the sm90 kernels: the explanation says safety net.
        a_odd, b_odd = bf16_randn(64, 333, seed=10), bf16_randn(333, 64, seed=11)
        out_odd = torch.empty(64, 64, device="cuda", dtype=BF16)
        status, plan = _hgemm.gemm_explain(a_odd.data_ptr(), b_odd.data_ptr(), out_odd.data_ptr(),
                                           64, 64, 333, _hgemm.LAYOUT_NN, _hgemm.DTYPE_BF16,
                                           _hgemm.ACC_F32)
        self.assertEqual((status, plan["path"]), (_hgemm.SUCCESS, "safety net"), plan)

    def test_errors_with_real_tensors(self):
        a, b = bf16_randn(8, 16, seed=12), bf16_randn(16, 4, seed=13)
        with self.assertRaises(TypeError) as cm:
            hgemm.matmul(a, b.half())
        for words in ("b (float16", "a (bfloat16", "differ in dtype"):
            self.assertIn(words, str(cm.exception))
        with self.assertRaisesRegex(ValueError, "bf16 accumulates in fp32 only"):
            hgemm.matmul(a, b, acc="f16")
        with self.assertRaisesRegex(ValueError, "bf16 accumulates in fp32 only"):
            hgemm.linear(a, b.t(), acc="f16")
        with self.assertRaisesRegex(TypeError, "out \\(float16"):
            hgemm.matmul(a, b, out=torch.empty(8, 4, device="cuda", dtype=torch.float16))
        # The raw op skips the Python checks: the library refuses, with its own message.
        with self.assertRaisesRegex(RuntimeError, "HGEMM_ERROR_DTYPE_ACCUM"):
            torch.ops.hgemm.mm(a, b, "nn", "f16")


class Ops(Bf16Test):
    def test_opcheck(self):
        a, b, w = bf16_randn(64, 96, seed=20), bf16_randn(96, 48, seed=21), \
            bf16_randn(48, 96, seed=22)
        ops = torch.ops.hgemm
        cases = [(ops.mm, (a, b, "nn", "f32")), (ops.mm, (a, w, "tn", "f32")),
                 (ops.mm, (a.clone().requires_grad_(), w.clone().requires_grad_(), "tn", "f32")),
                 (ops.mm_out, (a, b, torch.empty(64, 48, device="cuda", dtype=BF16), "nn",
                               "f32"))]
        for op, args in cases:
            torch.library.opcheck(op, args)

    def test_linear_grads(self):
        x = bf16_randn(24, 48, seed=23).requires_grad_()
        w = bf16_randn(32, 48, seed=24).requires_grad_()
        g = bf16_randn(24, 32, seed=25)
        hgemm.linear(x, w).backward(g)
        self.assertEqual((x.grad.dtype, w.grad.dtype), (BF16, BF16))
        # dX = dY W runs through hgemm (layout nn); dW through torch.matmul.
        self.assertBf16Close(x.grad, g, w.detach(), "dX")
        self.assertBf16Close(w.grad, g.t(), x.detach(), "dW")


class Modules(Bf16Test):
    def test_linear_module_against_torch(self):
        torch.manual_seed(0)
        ref = torch.nn.Linear(512, 384).cuda().bfloat16()
        mine = hgemm.nn.Linear.from_linear(ref)
        self.assertIs(mine.weight, ref.weight)
        x = bf16_randn(3, 50, 512, seed=30)
        with torch.no_grad():
            got, want = mine(x), ref(x)
        self.assertEqual((got.dtype, tuple(got.shape)), (BF16, (3, 50, 384)))
        x2, wt, bias = x.reshape(150, 512), ref.weight.detach().t(), ref.bias.detach()
        self.assertBf16Close(got, x2, wt, "hgemm.nn.Linear vs fp32", bias=bias, roundings=2)
        # torch's own bf16 Linear is within the same bound of the fp32 result, so the two lie
        # within twice the bound of each other.
        product = torch.matmul(x2.float(), wt.float())
        ref32 = product + bias.float()
        tol = 2 * (BF16_UNIT * (ref32.abs() + product.abs()) +
                   4 * 512 * FP32_UNIT * torch.matmul(x2.float().abs(), wt.float().abs()))
        diff = (got.float() - want.float()).reshape(ref32.shape).abs()
        self.assertFalse((diff > tol).any().item(),
                         f"hgemm.nn.Linear vs torch.nn.Linear: worst excess "
                         f"{(diff - tol).max().item():.3e}")

    def test_module_init_and_patch(self):
        lin = hgemm.nn.Linear(64, 32, device="cuda", dtype=BF16)
        self.assertEqual(lin.weight.dtype, BF16)
        x = bf16_randn(5, 64, seed=31)
        with torch.no_grad():
            self.assertBf16Close(lin(x), x, lin.weight.t(), "hgemm.nn.Linear(dtype=bf16)",
                                 bias=lin.bias, roundings=2)

        model = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.ReLU(),
                                    torch.nn.Linear(512, 128)).cuda().bfloat16()
        reference = copy.deepcopy(model).float()
        report = hgemm.patch(model)
        self.assertEqual(report.swapped, ["0", "2"])
        self.assertTrue(all(isinstance(model[i], hgemm.nn.Linear) for i in (0, 2)))
        x = bf16_randn(33, 256, seed=32)
        with torch.no_grad():
            got = model(x)
            want = reference(x.float())
        self.assertEqual(got.dtype, BF16)
        # Two layers of bf16 roundings (a few 2^-9 each, relative) against the same parameters
        # in fp32; a wrong layout or dtype would be off by order 1.
        rel = (torch.linalg.vector_norm(got.float() - want) /
               torch.linalg.vector_norm(want)).item()
        self.assertLess(rel, 2e-2, f"patched bf16 model vs fp32: relative error {rel:.2e}")


if __name__ == "__main__":
    unittest.main()
