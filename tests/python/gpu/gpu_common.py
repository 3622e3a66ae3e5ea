"""Shared by the Python GPU tests: they run only where a CUDA device and PyTorch are, and fail,
never skip, where one is missing."""

import os
import sys
import unittest

import torch

import hgemm
from hgemm.bench import compare, load_shapes

if not torch.cuda.is_available():
    sys.exit("FAIL: no CUDA device visible to PyTorch; the GPU tests need one")

SOURCE_DIR = os.environ.get("HGEMM_SOURCE_DIR", os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))


def randn(*shape, seed=0, dtype=torch.float16):
    gen = torch.Generator(device="cuda").manual_seed(seed)
    return torch.randn(shape, device="cuda", dtype=dtype, generator=gen)


class GpuTest(unittest.TestCase):
    def assertClose(self, got, ref, k, acc="f32", what=""):
        ok, text = compare(got, ref, k, acc)
        self.assertTrue(ok, f"{what}: {text}")


__all__ = ["GpuTest", "SOURCE_DIR", "compare", "hgemm", "load_shapes", "randn", "torch"]
