#!/usr/bin/env python3
"""hgemm.matmul and hgemm.linear against a float64 reference within the verifier's tolerance, and
torch.matmul / F.linear within the same, over the smoke suite, both layouts, both accumulations;
out=, empty and K = 0 products, and linear's leading dimensions and bias."""

import unittest

import torch.nn.functional as F

from gpu_common import GpuTest, hgemm, load_shapes, randn, torch


class SmokeSuite(GpuTest):
    def test_smoke_suite(self):
        shapes = load_shapes("smoke")
        self.assertGreaterEqual(len(shapes), 10)
        for m, n, k in shapes:
            a = randn(m, k, seed=1)
            b = randn(k, n, seed=2)
            w = randn(n, k, seed=3)
            ref_nn = a.double() @ b.double()
            ref_tn = a.double() @ w.double().t()
            self.assertClose(torch.matmul(a, b), ref_nn, k, "f32", f"torch.matmul {m}x{n}x{k}")
            for acc in ("f32", "f16"):
                name = f"{m}x{n}x{k} {acc}"
                self.assertClose(hgemm.matmul(a, b, acc=acc), ref_nn, k, acc, f"matmul nn {name}")
                self.assertClose(hgemm.matmul(a, w.t(), acc=acc), ref_tn, k, acc,
                                 f"matmul tn {name}")
                self.assertClose(hgemm.linear(a, w, acc=acc), ref_tn, k, acc, f"linear {name}")
            torch.cuda.synchronize()

    def test_out(self):
        a, b = randn(300, 200, seed=4), randn(200, 100, seed=5)
        out = torch.full((300, 100), float("nan"), device="cuda", dtype=torch.float16)
        got = hgemm.matmul(a, b, out=out)
        self.assertIs(got, out)
        self.assertClose(out, a.double() @ b.double(), 200)

    def test_empty_and_zero_k(self):
        a, b = randn(0, 64), randn(64, 32)
        self.assertEqual(hgemm.matmul(a, b).shape, (0, 32))
        z = hgemm.matmul(randn(5, 0), randn(0, 7))
        self.assertEqual(z.shape, (5, 7))
        self.assertEqual(z.abs().max().item(), 0.0)

    def test_linear_leading_dims_and_bias(self):
        x, w, bias = randn(2, 3, 5, 96, seed=6), randn(80, 96, seed=7), randn(80, seed=8)
        got = hgemm.linear(x, w, bias)
        self.assertEqual(got.shape, (2, 3, 5, 80))
        ref = F.linear(x.double(), w.double(), bias.double())
        self.assertClose(got.reshape(-1, 80), ref.reshape(-1, 80), 96)
        # A weight stored transposed (a column-major [N, K]) runs as layout nn.
        wt = w.t().contiguous().t()
        self.assertClose(hgemm.linear(x, wt).reshape(-1, 80),
                         F.linear(x.double(), w.double()).reshape(-1, 80), 96)


if __name__ == "__main__":
    unittest.main()
