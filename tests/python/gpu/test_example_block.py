#!/usr/bin/env python3
"""examples/llama_block.py end to end at a few token counts: hgemm.patch swaps the block's seven
Linear layers, the patched block's outputs are within tolerance of the unpatched block's (the
example exits 1 otherwise), and eager and CUDA graph timings come out."""

import os
import subprocess
import sys
import tempfile
import unittest

from gpu_common import SOURCE_DIR, GpuTest


class ExampleBlock(GpuTest):
    def test_llama_block(self):
        with tempfile.TemporaryDirectory() as tmp:
            csv_path = os.path.join(tmp, "block.csv")
            run = subprocess.run([sys.executable, os.path.join(SOURCE_DIR, "examples",
                                                               "llama_block.py"),
                                  "--tokens", "1,16,128", "--repeats", "3", "--csv", csv_path],
                                 capture_output=True, text=True)
            print(run.stdout, run.stderr)
            self.assertEqual(run.returncode, 0)
            self.assertIn("swapped 7 Linear modules", run.stdout)
            self.assertEqual(run.stdout.count("\nok   tokens"), 3)
            with open(csv_path) as f:
                rows = [line for line in f if line[0].isdigit()]
            self.assertEqual([r.split(",")[0] for r in rows], ["1", "16", "128"])
            for r in rows:
                self.assertTrue(all(float(v) > 0 for v in r.split(",")[1:]), r)


if __name__ == "__main__":
    unittest.main()
