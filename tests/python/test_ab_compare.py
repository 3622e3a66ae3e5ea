"""scripts/ab-compare on hand-made A/B files: its ratios, the changed calls, the faster layout,
and its refusals (a row that did not pass, a folder with no pairs)."""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "scripts", "ab-compare")
HEADER = "m,n,k,layout,acc,impl,mode,disposition,ms,detail\n"


def write(folder, side, rnd, rows):
    """rows: (m, n, k, layout, impl, ms, pick[, disposition])."""
    with open(os.path.join(folder, f"ab-run-toy-{side}-{rnd}-f32.csv"), "w") as f:
        f.write("# gpu=test\n" + HEADER)
        for r in rows:
            disposition = r[7] if len(r) > 7 else "passed"
            f.write(f'{r[0]},{r[1]},{r[2]},{r[3]},f32,{r[4]},graph,{disposition},{r[5]},'
                    f'"{r[6]}, PDL"\n')


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)


class AbCompare(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        d = self.dir.name
        # Shape A: the pick changes (TN), hgemm 10 -> 8 ms, cuBLASLt 9 ms in both trees.
        # Shape A NN and shape B: the same pick, the same times.
        def rows(changed):
            return [(100, 200, 300, "tn", "hgemm", 8.0 if changed else 10.0,
                     "tile_b" if changed else "tile_a"),
                    (100, 200, 300, "tn", "cublaslt-best", 9.0, "x"),
                    (100, 200, 300, "nn", "hgemm", 12.0, "tile_c"),
                    (100, 200, 300, "nn", "cublaslt-best", 12.0, "x"),
                    (400, 200, 300, "tn", "hgemm", 4.0, "tile_b"),
                    (400, 200, 300, "tn", "cublaslt-best", 4.0, "x"),
                    (400, 200, 300, "nn", "hgemm", 5.0, "tile_c"),
                    (400, 200, 300, "nn", "cublaslt-best", 4.5, "x")]
        for rnd in (1, 2):
            write(d, "ref", rnd, rows(False))
            write(d, "new", rnd, rows(True))

    def tearDown(self):
        self.dir.cleanup()

    def test_ratios(self):
        r = run(self.dir.name, "--picks")
        self.assertEqual(r.returncode, 0, r.stderr)
        out = r.stdout
        self.assertIn("run-toy f32: 4 calls, 1 with another pick, rounds 1,2", out)
        # The changed call: 9/10 -> 9/8, hgemm 10/8 = 1.25 faster, cuBLASLt level.
        self.assertIn("changed (1): ref 0.900 0.900 -> new 1.125 1.125; new/ref speed hgemm "
                      "1.250 1.250, cublaslt-best 1.000 1.000", out)
        self.assertIn("unchanged (3): ref", out)
        # Faster layout of shape A: min(9, 12) / min(10, 12) = 0.9 -> 9 / 8; of B: 4 / 4 = 1.
        self.assertIn(f"faster layout, ref (2 shapes): {0.9 ** 0.5:.3f}", out)
        self.assertIn(f"faster layout, new (2 shapes): {(9 / 8) ** 0.5:.3f}", out)
        self.assertIn("100x200x300 tn: 0.900 -> 1.125; hgemm 1.250 (cublaslt-best 1.000); "
                      "tile_a -> tile_b", out)

    def test_a_row_that_did_not_pass_is_an_error(self):
        write(self.dir.name, "new", 2, [(100, 200, 300, "tn", "hgemm", 8.0, "tile_b", "failed")])
        r = run(self.dir.name)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("100x200x300 tn hgemm: failed", r.stderr)

    def test_no_pairs_is_an_error(self):
        with tempfile.TemporaryDirectory() as empty:
            r = run(empty)
            self.assertNotEqual(r.returncode, 0)
            self.assertIn("no ab-*-{ref,new}-ROUND-f32.csv pairs", r.stderr)


if __name__ == "__main__":
    unittest.main()
