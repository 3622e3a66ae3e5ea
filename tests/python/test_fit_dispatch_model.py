#!/usr/bin/env python3
"""scripts/fit-dispatch-model end to end, without a GPU: a synthetic history whose swap-AB
configs are fast at small M fits a model that the built command loads (its parser re-computes
every prediction the script wrote, so writer and reader agree on features and walk), the same
history fits the same bytes, and histories the script cannot fit are refused. Run as the other
CPU Python tests are (tests/CMakeLists.txt: $HGEMM_CLI, $HGEMM_SOURCE_DIR)."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

CLI = os.environ.get("HGEMM_CLI", "")
SCRIPT = os.path.join(os.environ.get("HGEMM_SOURCE_DIR", ""), "scripts", "fit-dispatch-model")

CONFIGS = ["sm90_ws_128x128x64_s6_c1x1_w2_m8_st_sk1_f32_{l}",
           "sm90_ws_64x128x64_s6_c1x1_w1_m8_st_sk1_f32_{l}",
           "sm90_ws_128x256x64_s4_c2x1_w2_m8_tma_sk1_f32_{l}",
           "sm90_ws_80x128x64_s8_c1x1_w2_m8_st_sk1_f32_{l}_swap",
           "sm90_ws_48x64x64_s12_c1x1_w2_m8_st_sk1_f32_{l}_swap",
           "sm90_ws_64x128x64_s6_c1x1_w1_m8_st_sk2_f32_{l}"]


def history(path, acc="f32"):
    """100 shapes x 6 configs x 2 layouts; swap-AB wins below M = 256, the wide tile above."""
    lines = [json.dumps({"type": "header", "schema": 1, "gpu": "NVIDIA H100 80GB HBM3",
                         "sm_count": "132"})]
    for i in range(100):
        m, n, k = 24 + 40 * i, 1024 * (1 + i % 7), 512 * (1 + i % 5)
        for layout in ("tn", "nn"):
            for j, config in enumerate(CONFIGS):
                swap = config.endswith("_swap")
                speedup = (1.2 if swap else 0.8) if m < 256 else (0.7 if swap else 1.0 + 0.05 * j)
                lines.append(json.dumps({
                    "type": "measurement", "m": m, "n": n, "k": k, "layout": layout, "acc": acc,
                    "config": config.format(l=layout).replace("_f32_", f"_{acc}_"),
                    "disposition": "passed", "median_us": 10.0 / speedup, "reference_us": 10.0,
                    "speedup": speedup, "policy": "rl", "timestamp": "2026-11-29T00:00:00Z"}))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def fit(db, out):
    return subprocess.run([sys.executable, SCRIPT, db, out], text=True, capture_output=True)


class FitDispatchModel(unittest.TestCase):
    def setUp(self):
        if not CLI or not os.path.exists(SCRIPT):
            self.fail("HGEMM_CLI and HGEMM_SOURCE_DIR must name the command and the source tree")
        self.dir = tempfile.TemporaryDirectory()
        self.db = os.path.join(self.dir.name, "h.jsonl")
        history(self.db)

    def tearDown(self):
        self.dir.cleanup()

    def test_the_command_loads_what_the_script_fits(self):
        out = os.path.join(self.dir.name, "h.model")
        r = fit(self.db, out)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(out) as f:
            text = f.read()
        self.assertIn("layout tn trees 150 depth 6", text)
        self.assertIn("layout nn trees 150 depth 6", text)
        self.assertGreaterEqual(text.count("\ncheck "), 24)
        self.assertIn(f"source_bytes {os.path.getsize(self.db)}\n", text)
        # Trees that learned something: some node splits.
        trees = [line for line in text.splitlines() if " | " in line]
        self.assertTrue(any(int(f) >= 0 for line in trees for f in line.split(" | ")[0].split()))
        r = subprocess.run([CLI, "db", "loo", self.db, "--rule", "transfer", "--model", out],
                           text=True, capture_output=True)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("dispatch model h.jsonl", r.stdout)
        # The same history fits the same bytes.
        again = os.path.join(self.dir.name, "again.model")
        self.assertEqual(fit(self.db, again).returncode, 0)
        with open(again) as f:
            self.assertEqual(f.read(), text)
        # A changed prediction is refused by the command's parser.
        first_check = text.index("\ncheck ")
        line_end = text.index("\n", first_check + 1)
        words = text[first_check + 1:line_end].split()
        words[-1] = repr(float(words[-1]) + 0.5)
        with open(out, "w") as f:
            f.write(text[:first_check + 1] + " ".join(words) + text[line_end:])
        r = subprocess.run([CLI, "db", "loo", self.db, "--model", out], text=True,
                           capture_output=True)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("where the fit computed", r.stdout + r.stderr)

    def test_refuses_a_history_of_two_accumulations(self):
        other = os.path.join(self.dir.name, "f16.jsonl")
        history(other, "f16")
        with open(self.db, "a") as f, open(other) as g:
            f.writelines(g.readlines()[1:])
        r = fit(self.db, os.path.join(self.dir.name, "x.model"))
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("several accumulations", r.stderr)

    def test_usage(self):
        r = subprocess.run([sys.executable, SCRIPT], text=True, capture_output=True)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("fit-dispatch-model DB.jsonl.gz OUT.model", r.stderr)


if __name__ == "__main__":
    unittest.main()
