#!/usr/bin/env python3
"""python -m hgemm.bench writes the harness's CSV: every implementation, layout and mode gets a
passed, timed row, and `hgemm report` reads the file."""

import csv
import os
import subprocess
import sys
import tempfile
import unittest

from gpu_common import GpuTest


class BenchReport(GpuTest):
    def test_bench_and_report(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "py.csv")
            run = subprocess.run([sys.executable, "-m", "hgemm.bench", "--shape",
                                  "256x512x1024,1x4096x4096", "--modes", "offline,graph,latency",
                                  "--acc", "f32,f16", "--out", out, "--loop-ms", "0.2",
                                  "--latency-calls", "5"], capture_output=True, text=True)
            print(run.stdout, run.stderr)
            self.assertEqual(run.returncode, 0)
            with open(out) as f:
                lines = f.readlines()
            env = [line for line in lines if line.startswith("# ")]
            self.assertTrue(any(line.startswith("# gpu=") for line in env))
            rows = list(csv.DictReader([line for line in lines if not line.startswith("#")]))
            self.assertEqual(len(rows), 2 * 2 * 2 * 2 * 3)
            keys = {(r["m"], r["layout"], r["acc"], r["impl"], r["mode"]) for r in rows}
            self.assertEqual(len(keys), len(rows))
            for r in rows:
                self.assertEqual(r["disposition"], "passed", r)
                self.assertGreater(float(r["ms"]), 0.0, r)
                self.assertIn(r["impl"], ("hgemm-python", "torch"))
            # hgemm report merges the file: both shapes compared with torch in every mode.
            cli = os.environ["HGEMM_CLI"]
            report = subprocess.run([cli, "report", out, "--candidate", "hgemm-python"],
                                    capture_output=True, text=True)
            print(report.stdout[-3000:], report.stderr[-2000:])
            self.assertEqual(report.returncode, 0)
            for layout in ("nn", "tn"):
                for mode in ("offline", "graph", "latency"):
                    for acc in ("f32", "f16"):
                        self.assertIn(f"| torch-{layout} | {mode} | {acc} | 2 |", report.stdout)


if __name__ == "__main__":
    unittest.main()
