#!/usr/bin/env python3
"""Bad input with real tensors: each raises the documented exception naming the argument and the
problem before anything runs, and the library's own refusals arrive as hgemm.HgemmError with its
message."""

import unittest

from gpu_common import GpuTest, hgemm, randn, torch


class Errors(GpuTest):
    def check(self, exc, words, fn, *args, **kwargs):
        with self.assertRaises(exc) as cm:
            fn(*args, **kwargs)
        for w in words:
            self.assertIn(w, str(cm.exception))

    def test_matmul(self):
        a, b = randn(8, 16), randn(16, 4)
        self.check(ValueError, ["a (", "CUDA tensor", "cpu"], hgemm.matmul, a.cpu(), b)
        self.check(ValueError, ["b (", "CUDA tensor"], hgemm.matmul, a, b.cpu())
        self.check(TypeError, ["a (float32", "float16 only"], hgemm.matmul, a.float(), b)
        self.check(TypeError, ["b (bfloat16"], hgemm.matmul, a, b.bfloat16())
        self.check(TypeError, ["a must be a torch.Tensor"], hgemm.matmul, [[1.0]], b)
        self.check(ValueError, ["inner dimensions"], hgemm.matmul, a, randn(15, 4))
        self.check(ValueError, ["a (", "row-major", "a.contiguous()"], hgemm.matmul,
                   randn(16, 8).t(), b)
        self.check(ValueError, ["b (", "strides"], hgemm.matmul, a, randn(16, 8)[:, ::2])
        self.check(ValueError, ["2-D"], hgemm.matmul, randn(2, 8, 16), b)
        self.check(ValueError, ["acc must be"], hgemm.matmul, a, b, acc="f64")
        self.check(ValueError, ["out (", "shape (8, 4)"], hgemm.matmul, a, b,
                   out=torch.empty(4, 8, device="cuda", dtype=torch.float16))
        self.check(TypeError, ["out (float32"], hgemm.matmul, a, b,
                   out=torch.empty(8, 4, device="cuda"))
        self.check(ValueError, ["out (", "CUDA tensor"], hgemm.matmul, a, b,
                   out=torch.empty(8, 4, dtype=torch.float16))
        self.check(RuntimeError, ["autograd"], hgemm.matmul, a.clone().requires_grad_(), b,
                   out=torch.empty(8, 4, device="cuda", dtype=torch.float16))

    def test_linear(self):
        x, w = randn(3, 16), randn(4, 16)
        self.check(ValueError, ["inner dimensions"], hgemm.linear, x, randn(4, 15))
        self.check(ValueError, ["bias (", "shape (4,)"], hgemm.linear, x, w, randn(5))
        self.check(ValueError, ["x (", "flatten without a copy"], hgemm.linear,
                   randn(4, 3, 16).transpose(0, 1), w)
        self.check(ValueError, ["weight (", "CUDA tensor"], hgemm.linear, x, w.cpu())

    def test_library_error(self):
        # out aliasing an input is the library's check (HGEMM_ERROR_ALIASING), not Python's.
        a = randn(64, 64)
        with self.assertRaises(hgemm.HgemmError) as cm:
            hgemm.matmul(a, randn(64, 64), out=a)
        self.assertEqual(cm.exception.status_name, "HGEMM_ERROR_ALIASING")
        self.assertIn("C overlaps A", str(cm.exception))
        self.assertIsInstance(cm.exception, RuntimeError)
        # The same through the op that torch.compile and autograd use.
        with self.assertRaisesRegex(RuntimeError, "HGEMM_ERROR_ALIASING"):
            torch.ops.hgemm.mm_out(a, randn(64, 64), a, "nn", "f32")

    def test_explain_and_info(self):
        e = hgemm.explain(4096, 4096, 4096, "tn", "f32")
        self.assertTrue(e["config"].endswith("_f32_tn"), e)
        self.assertIn(e["rule"], ("user table", "shipped table", "neighbours", "heuristic",
                                  "safety net", "decode rule"))
        self.assertTrue(e["reason"])
        info = hgemm.info("f16")
        self.assertEqual(info["device_gpu"], torch.cuda.get_device_name())
        self.assertEqual(info["device_sm_count"],
                         torch.cuda.get_device_properties(0).multi_processor_count)
        self.assertTrue(info["library_path"])


if __name__ == "__main__":
    unittest.main()
