"""scripts/suite-groups on hand-made suite runs: each side's faster layout, the token groups, the
count below the bar, the lowest shapes, and its refusals (a row that did not pass, a shape
without its baseline)."""
import gzip
import math
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "scripts", "suite-groups")
HEADER = "m,n,k,layout,acc,impl,mode,disposition,ms,detail\n"


def write(path, rows):
    """rows: (m, layout, impl, ms[, disposition]); N = K = 256, graph mode."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "wt") as f:
        f.write("# gpu=test\n" + HEADER)
        for r in rows:
            disposition = r[4] if len(r) > 4 else "passed"
            f.write(f'{r[0]},256,256,{r[1]},f32,{r[2]},graph,{disposition},{r[3]},'
                    f'"tile_{r[0]}_{r[1]}, PDL"\n')
            f.write(f'{r[0]},256,256,{r[1]},f32,{r[2]},latency,{disposition},1.0,"x"\n')


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)


class SuiteGroups(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.csv = os.path.join(self.dir.name, "run.csv.gz")
        # M = 8: hgemm's faster layout NN (2 ms) against cuBLASLt's faster TN (3 ms): 1.5.
        # M = 200: 0.9 (TN only). M = 2000: 0.8 and 1.25 in the two layouts; faster sides 4 vs 5.
        write(self.csv, [(8, "tn", "hgemm", 4.0), (8, "tn", "cublaslt-best", 3.0),
                         (8, "nn", "hgemm", 2.0), (8, "nn", "cublaslt-best", 6.0),
                         (200, "tn", "hgemm", 10.0), (200, "tn", "cublaslt-best", 9.0),
                         (2000, "tn", "hgemm", 5.0), (2000, "tn", "cublaslt-best", 4.0),
                         (2000, "nn", "hgemm", 4.0), (2000, "nn", "cublaslt-best", 5.0)])

    def tearDown(self):
        self.dir.cleanup()

    def test_groups_and_lowest(self):
        r = run(self.csv, "--list", "2")
        self.assertEqual(r.returncode, 0, r.stderr)
        head, first, second = r.stdout.splitlines()
        total = math.exp((math.log(1.5) + math.log(0.9) + math.log(1.0)) / 3)
        self.assertIn(f"3 shapes {total:.3f}", head)
        self.assertIn("<=16 1.500", head)
        self.assertIn("129-400 0.900", head)
        self.assertIn(">=1024 1.000", head)
        self.assertNotIn("17-128", head)
        self.assertIn("below 0.95: 1", head)
        self.assertIn("256x256", first)
        self.assertTrue(first.split()[0].startswith("200x") and "0.900 tn tile_200_tn" in first,
                        first)
        self.assertTrue(second.split()[0].startswith("2000x") and "nn tile_2000_nn" in second,
                        second)

    def test_bar_and_baseline_are_arguments(self):
        r = run(self.csv, "--below", "1.05", "--baseline", "hgemm", "--impl", "cublaslt-best")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("<=16 0.667", r.stdout)
        self.assertIn("below 1.05: 2", r.stdout)

    def test_a_failed_row_is_an_error(self):
        bad = os.path.join(self.dir.name, "bad.csv")
        write(bad, [(8, "tn", "hgemm", 4.0, "failed"), (8, "tn", "cublaslt-best", 3.0)])
        r = run(bad)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("8x256x256 tn hgemm: failed", r.stderr)

    def test_a_shape_without_its_baseline_is_an_error(self):
        bad = os.path.join(self.dir.name, "half.csv")
        write(bad, [(8, "tn", "hgemm", 4.0)])
        r = run(bad)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("8x256x256 lacks cublaslt-best", r.stderr)


if __name__ == "__main__":
    unittest.main()
