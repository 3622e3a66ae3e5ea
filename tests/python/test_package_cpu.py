#!/usr/bin/env python3
"""The Python package without a GPU and without PyTorch: argument validation (hgemm._validate) on
small stand-in tensors, the float16 / bfloat16 dtype rules among it, and the extension's calls that
need no device. Run with build/python on PYTHONPATH and CUDA_VISIBLE_DEVICES empty
(tests/CMakeLists.txt), so that the answers are the same on a CPU-only and a GPU machine."""

import os
import unittest

import hgemm
from hgemm import _hgemm, _validate
from torch_standins import Device, Dtype


# One object per name, as torch's dtypes are: with use_torch(), hgemm compares them by ==.
DTYPES = {name: Dtype(name) for name in ("float16", "bfloat16", "float32")}


class Tensor:
    """What the checks read of a tensor: shape, dtype, device, stride(), data_ptr."""

    def __init__(self, shape, dtype="float16", device=None, strides=None):
        self.shape = tuple(shape)
        self.dtype = DTYPES[dtype]
        self.device = device or Device()
        if strides is None:
            strides, step = [], 1
            for d in reversed(self.shape):
                strides.insert(0, step)
                step *= d
        self._strides = tuple(strides)

    def stride(self):
        return self._strides

    def data_ptr(self):
        return 0x1000

    def t(self):
        return Tensor(self.shape[::-1], self.dtype.name, self.device, self._strides[::-1])


class Validation(unittest.TestCase):
    def setUp(self):
        # Duck typing, as on a machine without PyTorch: with it, hgemm checks isinstance.
        _validate.use_torch(None, None)

    def raises(self, exc, words, fn, *args, **kwargs):
        with self.assertRaises(exc) as cm:
            fn(*args, **kwargs)
        for w in words:
            self.assertIn(w, str(cm.exception))

    def test_matmul_layouts(self):
        a = Tensor((8, 16))
        self.assertEqual(_validate.check_matmul(a, Tensor((16, 4))), (8, 4, 16, "nn"))
        self.assertEqual(_validate.check_matmul(a, Tensor((4, 16)).t()), (8, 4, 16, "tn"))
        out = Tensor((8, 4))
        self.assertEqual(_validate.check_matmul(a, Tensor((16, 4)), out, "f16"), (8, 4, 16, "nn"))
        # Empty matrices take any strides (PyTorch gives a [5, 0] tensor strides (1, 1)).
        self.assertEqual(_validate.check_matmul(Tensor((5, 0), strides=(1, 1)), Tensor((0, 7))),
                         (5, 7, 0, "nn"))
        self.assertEqual(_validate.check_linear(Tensor((0, 3, 16), strides=(1, 1, 1)),
                                                Tensor((32, 16))), (0, 32, 16, "tn"))
        # Size-1 dimensions carry any stride.
        self.assertEqual(_validate.check_matmul(Tensor((1, 16), strides=(99, 1)), Tensor((16, 4))),
                         (1, 4, 16, "nn"))

    def test_matmul_rejects(self):
        a, b = Tensor((8, 16)), Tensor((16, 4))
        self.raises(TypeError, ["a must be a torch.Tensor", "list"], _validate.check_matmul,
                    [[1.0]], b)
        self.raises(TypeError, ["b (float32", "float16 only", ".bfloat16()"],
                    _validate.check_matmul, a, Tensor((16, 4), dtype="float32"))
        self.raises(TypeError, ["a (bfloat16"], _validate.check_matmul,
                    Tensor((8, 16), dtype="bfloat16"), b)
        self.raises(ValueError, ["a (", "CUDA tensor", "cpu"], _validate.check_matmul,
                    Tensor((8, 16), device=Device("cpu", None)), b)
        self.raises(ValueError, ["inner dimensions", "(8, 16)", "(15, 4)"],
                    _validate.check_matmul, a, Tensor((15, 4)))
        self.raises(ValueError, ["b is on cuda:1", "a is on cuda:0"], _validate.check_matmul,
                    a, Tensor((16, 4), device=Device("cuda", 1)))
        self.raises(ValueError, ["a (", "2-D"], _validate.check_matmul, Tensor((2, 8, 16)), b)
        self.raises(ValueError, ["a (", "row-major", "(1, 8)"], _validate.check_matmul,
                    Tensor((16, 8)).t(), b)
        self.raises(ValueError, ["b (", "strides (8, 2)"], _validate.check_matmul,
                    a, Tensor((16, 4), strides=(8, 2)))
        self.raises(ValueError, ["acc must be", "'bf16'"], _validate.check_matmul, a, b,
                    acc="bf16")

    def test_matmul_out(self):
        a, b = Tensor((8, 16)), Tensor((16, 4))
        self.raises(ValueError, ["out (", "shape (8, 4)"], _validate.check_matmul, a, b,
                    Tensor((4, 8)))
        self.raises(TypeError, ["out (float32"], _validate.check_matmul, a, b,
                    Tensor((8, 4), dtype="float32"))
        self.raises(ValueError, ["out is on cuda:1"], _validate.check_matmul, a, b,
                    Tensor((8, 4), device=Device("cuda", 1)))
        self.raises(ValueError, ["out (", "row-major"], _validate.check_matmul, a, b,
                    Tensor((4, 8)).t())

    def test_linear(self):
        w = Tensor((32, 16))
        self.assertEqual(_validate.check_linear(Tensor((2, 3, 16)), w), (6, 32, 16, "tn"))
        self.assertEqual(_validate.check_linear(Tensor((16,)), w, Tensor((32,))), (1, 32, 16, "tn"))
        self.assertEqual(_validate.check_linear(Tensor((5, 16)), Tensor((16, 32)).t()),
                         (5, 32, 16, "nn"))
        self.raises(ValueError, ["inner dimensions", "(2, 3, 15)"], _validate.check_linear,
                    Tensor((2, 3, 15)), w)
        self.raises(ValueError, ["bias (", "shape (32,)"], _validate.check_linear,
                    Tensor((2, 16)), w, Tensor((16,)))
        self.raises(TypeError, ["bias (float32"], _validate.check_linear, Tensor((2, 16)), w,
                    Tensor((32,), dtype="float32"))
        self.raises(ValueError, ["weight (", "2-D"], _validate.check_linear, Tensor((2, 16)),
                    Tensor((32, 16, 1)))
        self.raises(ValueError, ["x (", "flatten without a copy"], _validate.check_linear,
                    Tensor((3, 2, 16), strides=(16, 48, 1)), w)
        self.raises(ValueError, ["weight is on cuda:1", "x is on cuda:0"], _validate.check_linear,
                    Tensor((2, 16)), Tensor((32, 16), device=Device("cuda", 1)))
        self.raises(ValueError, ["weight (", "CUDA tensor"], _validate.check_linear,
                    Tensor((2, 16)), Tensor((32, 16), device=Device("cpu", None)))


class Bfloat16(unittest.TestCase):
    """The dtype rules, with duck-typed stand-ins and with use_torch()'s dtype objects: float16 or
    bfloat16, one dtype for every operand, and bfloat16 with fp32 accumulation only."""

    def each_mode(self):
        for typed in (False, True):
            if typed:
                _validate.use_torch(Tensor, DTYPES["float16"], DTYPES["bfloat16"])
            else:
                _validate.use_torch(None, None)
            yield "typed" if typed else "duck-typed"

    def tearDown(self):
        _validate.use_torch(None, None)

    def raises(self, exc, words, fn, *args, **kwargs):
        with self.assertRaises(exc) as cm:
            fn(*args, **kwargs)
        for w in words:
            self.assertIn(w, str(cm.exception))
        return str(cm.exception)

    def test_accepted(self):
        for mode in self.each_mode():
            with self.subTest(mode):
                a = Tensor((8, 16), dtype="bfloat16")
                b = Tensor((16, 4), dtype="bfloat16")
                w = Tensor((4, 16), dtype="bfloat16")
                self.assertEqual(_validate.check_matmul(a, b), (8, 4, 16, "nn"))
                self.assertEqual(_validate.check_matmul(a, w.t()), (8, 4, 16, "tn"))
                self.assertEqual(_validate.check_matmul(a, b, Tensor((8, 4), dtype="bfloat16")),
                                 (8, 4, 16, "nn"))
                self.assertEqual(_validate.check_linear(Tensor((2, 3, 16), dtype="bfloat16"), w,
                                                        Tensor((4,), dtype="bfloat16")),
                                 (6, 4, 16, "tn"))
                # fp16 keeps both accumulations.
                self.assertEqual(_validate.check_matmul(Tensor((8, 16)), Tensor((16, 4)),
                                                        acc="f16"), (8, 4, 16, "nn"))
                self.assertEqual(_validate.check_linear(Tensor((8, 16)), Tensor((4, 16)),
                                                        acc="f16"), (8, 4, 16, "tn"))

    def test_mixed_dtypes(self):
        for mode in self.each_mode():
            with self.subTest(mode):
                a16, b16 = Tensor((8, 16)), Tensor((16, 4))
                a_bf, b_bf = Tensor((8, 16), dtype="bfloat16"), Tensor((16, 4), dtype="bfloat16")
                text = self.raises(TypeError, ["b (bfloat16 (16, 4)", "a (float16 (8, 16)",
                                               "differ in dtype", "b.to(a.dtype)"],
                                   _validate.check_matmul, a16, b_bf)
                self.assertIn("float16 or bfloat16", text)
                self.raises(TypeError, ["b (float16", "a (bfloat16", "differ in dtype"],
                            _validate.check_matmul, a_bf, b16)
                self.raises(TypeError, ["out (float16 (8, 4)", "a (bfloat16", "differ in dtype"],
                            _validate.check_matmul, a_bf, b_bf, Tensor((8, 4)))
                self.raises(TypeError, ["weight (bfloat16", "x (float16", "differ in dtype"],
                            _validate.check_linear, Tensor((2, 16)),
                            Tensor((4, 16), dtype="bfloat16"))
                self.raises(TypeError, ["bias (float16 (4,)", "x (bfloat16", "differ in dtype"],
                            _validate.check_linear, Tensor((2, 16), dtype="bfloat16"),
                            Tensor((4, 16), dtype="bfloat16"), Tensor((4,)))
                # A dtype hgemm does not take at all is named as such, not as a mix.
                self.raises(TypeError, ["b (float32", "bfloat16 or float16 only"],
                            _validate.check_matmul, a_bf, Tensor((16, 4), dtype="float32"))

    def test_bf16_accumulates_in_fp32_only(self):
        for mode in self.each_mode():
            with self.subTest(mode):
                a_bf, b_bf = Tensor((8, 16), dtype="bfloat16"), Tensor((16, 4), dtype="bfloat16")
                self.raises(ValueError, ["a (bfloat16", "acc='f16'",
                                         "bf16 accumulates in fp32 only", "acc='f32'"],
                            _validate.check_matmul, a_bf, b_bf, acc="f16")
                self.raises(ValueError, ["x (bfloat16", "bf16 accumulates in fp32 only"],
                            _validate.check_linear, Tensor((2, 16), dtype="bfloat16"),
                            Tensor((4, 16), dtype="bfloat16"), acc="f16")
                # An unknown acc is still named as such first.
                self.raises(ValueError, ["acc must be", "'f64'"], _validate.check_matmul,
                            a_bf, b_bf, acc="f64")
                self.raises(ValueError, ["acc must be", "'f64'"], _validate.check_linear,
                            Tensor((2, 16), dtype="bfloat16"), Tensor((4, 16), dtype="bfloat16"),
                            acc="f64")


class Extension(unittest.TestCase):
    def test_versions(self):
        self.assertEqual(hgemm.__version__, os.environ["HGEMM_EXPECTED_VERSION"])
        self.assertEqual(_hgemm.library_version(), _hgemm.HEADER_VERSION)

    def test_status_strings(self):
        self.assertEqual(_hgemm.status_string(0), "HGEMM_SUCCESS")
        self.assertTrue(_hgemm.status_string(_hgemm.ERROR_NO_DEVICE).startswith(
            "HGEMM_ERROR_NO_DEVICE"))
        self.assertTrue(_hgemm.status_string(999).startswith("HGEMM_ERROR_UNKNOWN_STATUS"))

    def test_no_device(self):
        # CUDA_VISIBLE_DEVICES is empty: the library says so, as an exception with its message.
        with self.assertRaises(hgemm.HgemmError) as cm:
            hgemm.explain(128, 256, 512)
        self.assertEqual(cm.exception.status, _hgemm.ERROR_NO_DEVICE)
        self.assertIn("HGEMM_ERROR_NO_DEVICE", str(cm.exception))
        self.assertIsInstance(cm.exception, RuntimeError)
        with self.assertRaises(hgemm.HgemmError) as cm:
            hgemm.info("f16")
        self.assertEqual(cm.exception.status, _hgemm.ERROR_NO_DEVICE)

    def test_argument_errors(self):
        with self.assertRaisesRegex(ValueError, "k must be a positive int"):
            hgemm.explain(1, 2, 0)
        with self.assertRaisesRegex(ValueError, "layout must be 'nn' or 'tn'"):
            hgemm.explain(1, 2, 3, layout="tt")
        with self.assertRaisesRegex(ValueError, "acc must be"):
            hgemm.info("f64")
        with self.assertRaisesRegex(FileNotFoundError, "no table file"):
            hgemm.set_table("/nonexistent/hgemm.table")
        with self.assertRaisesRegex(ValueError, r"tune: a shape is \(M, N, K\)"):
            hgemm.tune([(1, 2)])
        with self.assertRaisesRegex(ValueError, "tune: N of shape"):
            hgemm.tune([(1, -2, 3)])

    def test_general_call(self):
        """The general call the ops use for bf16 reaches the library: argument checks that need
        no device answer first, then the missing device (CUDA_VISIBLE_DEVICES is empty)."""
        self.assertNotEqual(_hgemm.DTYPE_F16, _hgemm.DTYPE_BF16)
        ptrs = (0x10000, 0x20000, 0x30000)
        for layout in (_hgemm.LAYOUT_NN, _hgemm.LAYOUT_TN):
            status = _hgemm.gemm(*ptrs, 64, 32, 16, layout, _hgemm.DTYPE_BF16, _hgemm.ACC_F32, 0)
            self.assertEqual(status, _hgemm.ERROR_NO_DEVICE)
            status, plan = _hgemm.gemm_explain(*ptrs, 64, 32, 16, layout, _hgemm.DTYPE_BF16,
                                               _hgemm.ACC_F32)
            self.assertEqual((status, plan), (_hgemm.ERROR_NO_DEVICE, {}))
        status = _hgemm.gemm(*ptrs, 64, 32, 16, _hgemm.LAYOUT_NN, _hgemm.DTYPE_BF16,
                             _hgemm.ACC_F16, 0)
        self.assertTrue(_hgemm.status_string(status).startswith("HGEMM_ERROR_DTYPE_ACCUM"))
        self.assertIn("fp32 only", _hgemm.last_error())
        status = _hgemm.gemm(0, *ptrs[1:], 64, 32, 16, _hgemm.LAYOUT_NN, _hgemm.DTYPE_F16,
                             _hgemm.ACC_F16, 0)
        self.assertTrue(_hgemm.status_string(status).startswith("HGEMM_ERROR_NULL_POINTER"))
        with self.assertRaisesRegex(ValueError, "layout must be LAYOUT_NN or LAYOUT_TN, got 7"):
            _hgemm.gemm(*ptrs, 64, 32, 16, 7, _hgemm.DTYPE_BF16, _hgemm.ACC_F32, 0)
        with self.assertRaisesRegex(ValueError, "layout must be"):
            _hgemm.gemm_explain(*ptrs, 64, 32, 16, -1, _hgemm.DTYPE_BF16, _hgemm.ACC_F32)

    def test_set_table_and_reload(self):
        hgemm.set_table(__file__)  # any existing file: the library reads it on the next call
        hgemm.set_table(None)
        hgemm.reload_tables()

    def test_cli_found(self):
        path = hgemm.cli_path()
        self.assertTrue(os.access(path, os.X_OK), path)


if __name__ == "__main__":
    unittest.main()
