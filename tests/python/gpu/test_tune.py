#!/usr/bin/env python3
"""hgemm.tune: a model's Linear shapes recorded by hooks, a short real tuning run through the
hgemm command into a user table of our own, and dispatch answering from it at once."""

import os
import tempfile
import unittest

from gpu_common import GpuTest, hgemm, randn, torch
from hgemm._tune import model_shapes


class Tune(GpuTest):
    def test_model_shapes(self):
        model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(),
                                    torch.nn.Linear(128, 32)).cuda().half()
        self.assertEqual(model_shapes(model, randn(2, 3, 64)), [(6, 32, 128), (6, 128, 64)])

    def test_tune_into_user_table(self):
        with tempfile.TemporaryDirectory() as tmp:
            table = os.path.join(tmp, "user.table")
            shapes = hgemm.tune([(2048, 2048, 512)], layouts="tn", acc="f32", budget=2,
                                user_table=table, db=os.path.join(tmp, "db.jsonl"))
            self.assertEqual(shapes, [(2048, 2048, 512)])
            self.assertTrue(os.path.isfile(table))
            info = hgemm.info("f32")
            self.assertEqual(info["user_table_path"], table)
            self.assertEqual(info["user_status"], "loaded", info)
            self.assertGreaterEqual(info["user_entries"], 1)
            e = hgemm.explain(2048, 2048, 512, "tn", "f32")
            self.assertEqual(e["rule"], "user table", e)
            a, w = randn(2048, 512), randn(2048, 512, seed=1)
            self.assertClose(hgemm.linear(a, w), a.double() @ w.double().t(), 512)
            hgemm.set_table(None)
            self.assertNotEqual(hgemm.info("f32")["user_table_path"], table)


if __name__ == "__main__":
    unittest.main()
