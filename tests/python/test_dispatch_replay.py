"""scripts/dispatch-replay on hand-made explain outputs and results files: the changed calls it
finds, the speeds it reads (dispatch's rows and config: rows, each over the same file's
baseline), the median over files, the GPU filter, the rows it must not use (not passed, another
mode), and --regret's list of calls where another config measured faster than the pick."""
import gzip
import math
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "scripts", "dispatch-replay")
HEADER = "m,n,k,layout,acc,impl,mode,disposition,ms,detail\n"


def write_results(path, gpu, rows):
    """rows: (m, layout, impl, ms, detail[, mode[, disposition]]); N = K = 512, fp32."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "wt") as f:
        f.write(f"# gpu={gpu}\n" + HEADER)
        for r in rows:
            mode = r[5] if len(r) > 5 else "graph"
            disposition = r[6] if len(r) > 6 else "passed"
            f.write(f'{r[0]},512,512,{r[1]},f32,{r[2]},{mode},{disposition},{r[3]},"{r[4]}"\n')


def write_explain(path, picks):
    """picks: (m, layout, config)."""
    with open(path, "w") as f:
        for m, layout, config in picks:
            f.write(f"{m} 512 512 {layout} f32 {config} neighbours\n")


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)


class DispatchReplay(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        d = self.dir.name
        self.before = os.path.join(d, "before.txt")
        self.after = os.path.join(d, "after.txt")
        # M = 100 changes A -> B (measured), M = 200 changes A -> C (C never measured),
        # M = 300 keeps A (not a change).
        write_explain(self.before, [(100, "tn", "A"), (200, "tn", "A"), (300, "tn", "A")])
        write_explain(self.after, [(100, "tn", "B"), (200, "tn", "C"), (300, "tn", "A")])
        # File 1: dispatch ran A (baseline 2.0 / 4.0 = 0.5), config:B 2.5 (0.8); a latency row
        # and a failed row that must not count (C would make M = 200 measured both ways).
        write_results(os.path.join(d, "one.csv"), "NVIDIA H200", [
            (100, "tn", "cublaslt-best", 2.0, "x"),
            (100, "tn", "hgemm", 4.0, "A, PDL"),
            (100, "tn", "config:B", 2.5, "B"),
            (100, "tn", "config:B", 0.1, "B", "latency"),
            (200, "tn", "config:C", 0.1, "C", "graph", "failed"),
            (200, "tn", "hgemm", 2.0, "A, PDL"),
            (200, "tn", "cublaslt-best", 1.0, "x")])
        # File 2 (gzip, one folder down): A 0.7, B 1.4 at M = 100.
        os.makedirs(os.path.join(d, "sub"))
        write_results(os.path.join(d, "sub", "two.csv.gz"), "NVIDIA H200", [
            (100, "tn", "cublaslt-best", 7.0, "x"),
            (100, "tn", "config:A", 10.0, "A"),
            (100, "tn", "hgemm", 5.0, "B, PDL")])
        # File 3: another GPU, B far slower: only counted without --gpu.
        write_results(os.path.join(d, "h100.csv"), "NVIDIA H100 80GB HBM3", [
            (100, "tn", "cublaslt-best", 1.0, "x"),
            (100, "tn", "config:B", 100.0, "B")])
        self.glob = os.path.join(d, "**", "*.csv*")

    def tearDown(self):
        self.dir.cleanup()

    def test_medians_over_files_of_one_gpu(self):
        r = run(self.before, self.after, "--results", self.glob, "--gpu", "H200")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertEqual(len(lines), 2, r.stdout)
        # A: median(0.5, 0.7) = 0.6; B: median(0.8, 1.4) = 1.1; after/before 1.1 / 0.6.
        self.assertIn("100x512x512 tn f32: A 0.600 -> B 1.100", lines[0])
        self.assertIn(f"{1.1 / 0.6:.3f}", lines[0])
        self.assertEqual(lines[1],
                         f"2 calls changed, 1 measured both ways: after/before {1.1 / 0.6:.3f}, "
                         "0 more than 2% slower")

    def test_every_gpu_without_the_filter(self):
        r = run(self.before, self.after, "--results", self.glob)
        self.assertEqual(r.returncode, 0, r.stderr)
        # B also 0.01 on the H100 file: median(0.8, 1.4, 0.01) = 0.8.
        ratio = 0.8 / 0.6
        self.assertIn(f"A 0.600 -> B 0.800  {ratio:.3f}", r.stdout)

    def test_nothing_measured(self):
        r = run(self.before, self.after, "--results", os.path.join(self.dir.name, "none*.csv"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.strip(), "2 calls changed, 0 measured both ways")

    def test_regret_lists_a_faster_measured_config(self):
        # The picks of `before`: A at M = 100 (0.6, B measured 1.1), A at M = 200 (0.5, C's row
        # failed, so nothing else measured), A at M = 300 (never measured).
        r = run(self.before, "--regret", "--results", self.glob, "--gpu", "H200")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertEqual(len(lines), 2, r.stdout)
        self.assertEqual(lines[0], f"100x512x512 tn f32: A 0.600 -> B 1.100  {1.1 / 0.6:.3f}")
        self.assertEqual(lines[1], "3 calls, 2 of their picks measured, 1 with a config measured"
                                   " 1.03x faster or more")

    def test_regret_below_the_least_ratio_lists_nothing(self):
        r = run(self.before, "--regret", "--min", "2", "--results", self.glob, "--gpu", "H200")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.strip(), "3 calls, 2 of their picks measured, 0 with a config"
                                           " measured 2.00x faster or more")

    def test_regret_takes_one_explain_output(self):
        for args in ((self.before, self.after, "--regret"), (self.before,)):
            r = run(*args, "--results", self.glob)
            self.assertEqual(r.returncode, 2, args)
            self.assertIn("give BEFORE and AFTER, or one explain output with --regret", r.stderr)

    def test_refuses_a_file_without_picks(self):
        empty = os.path.join(self.dir.name, "empty.txt")
        open(empty, "w").close()
        r = run(empty, self.after, "--results", self.glob)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("no 'M N K layout acc config' lines", r.stderr)


if __name__ == "__main__":
    unittest.main()
