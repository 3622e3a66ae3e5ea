#!/usr/bin/env python3
"""The HTML report (python/hgemm_report.py) on tests/data/report-small.csv.gz: its tables carry
the numbers worked out by hand in tests/unit/test_report.cpp (the same definitions as the
Markdown report), and every figure it names exists and is a non-empty PNG. CPU only."""

import math
import os
import re
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "python"))

import hgemm_report  # noqa: E402

DATA = os.path.join(REPO, "tests", "data")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def write_ablation(path):
    with open(path, "w") as f:
        f.write("policy,n,geomean_speedup,geomean_ratio,frac_within_2pct\n")
        for policy, base in (("random", 0.8), ("rl cold", 0.9)):
            for n in range(1, 9):
                f.write(f"{policy},{n},{base + 0.01 * n:.6f},{base + 0.012 * n:.6f},0.5\n")


def write_db(path):
    import gzip
    lines = ['{"type":"header","schema":1,"gpu":"Test GPU"}']
    # 64^3: the 64x128 config has the higher mean reward (0.9 vs 0.8) and wins.
    for config, reward in (("sm90_ws_64x128x64_s6_c1x1_w1_m16_st_sk1_f32_tn", 0.9),
                           ("sm90_pp_128x128x64_s5_c1x2_w2_m16_tma_sk1_f32_tn", 0.8),
                           ("sm80_mma_64x64x32_s3_w2x2_sk16_f32_tn", 0.1)):
        lines.append('{"type":"measurement","m":64,"n":64,"k":64,"layout":"tn","acc":"f32",'
                     f'"config":"{config}","disposition":"passed","median_us":3.0,'
                     f'"reward":{reward}}}')
    lines.append('{"type":"measurement","m":4096,"n":4096,"k":4096,"layout":"tn","acc":"f32",'
                 '"config":"sm90_ws_128x256x64_s4_c2x1_w2_m8_tma_sk1_f32_tn",'
                 '"disposition":"passed","median_us":200.0,"reward":1.1}')
    with gzip.open(path, "wt") as f:
        f.write("\n".join(lines) + "\n")


class HtmlReport(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.out = os.path.join(cls.tmp.name, "nested", "html")
        ablation = os.path.join(cls.tmp.name, "ablation.csv")
        db = os.path.join(cls.tmp.name, "db.jsonl.gz")
        write_ablation(ablation)
        write_db(db)
        cls.figures = hgemm_report.write_report(
            cls.out, [os.path.join(DATA, "report-small.csv.gz")], "hgemm", db, ablation)
        with open(os.path.join(cls.out, "index.html"), encoding="utf-8") as f:
            cls.page = f.read()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def assertIn_(self, needle):
        self.assertIn(needle, self.page)

    def row(self, *cells):
        return "<tr>" + "".join(f'<td class="{"num" if i >= 1 else ""}">{c}</td>'
                                for i, c in enumerate(cells)) + "</tr>"

    def test_headline_matches_hand_computation(self):
        page = self.page
        self.assertLess(page.index("<h2>Headline"), page.index("<h2>Tables per mode"))
        # Headline cells start numeric at column 4.
        def head(*cells):
            return "<tr>" + "".join(f'<td class="{"num" if i >= 4 else ""}">{c}</td>'
                                    for i, c in enumerate(cells)) + "</tr>"
        self.assertIn_(head("device time", "graph", "f32", "hgemm", "1.089 (2/4)", "1.245 (2/4)"))
        self.assertIn_(head("device time", "graph", "f32", "hgemm-nopdl", "1.017 (2/4)",
                            "1.163 (2/4)"))
        self.assertIn_(head("call latency", "latency", "f32", "hgemm", "1.072 (2/4)",
                            "1.348 (3/4)"))
        self.assertIn_(head("offline", "offline", "f32", "hgemm", "1.192 (3/4)", "-"))
        self.assertIn_("launched with it in 24 of 24 rows")

    def test_tables_match_hand_computation(self):
        # Table 1 and 2, cublaslt-best-max, graph: gains [0.3, -0.1, 0.2, 0], clipped [0.3, 0, 0.2, 0].
        self.assertIn_(self.row("cublaslt-best-max", 4, "+10.0%", "+10.0%", "18.3%", "2/4", 1))
        self.assertIn_(self.row("cublaslt-best-max", 4, "+12.5%", "+10.0%", "15.0%", "2/4", 1))
        self.assertIn_(self.row("cublaslt-best-max", "1.300 (0/1)", "0.900 (1/1)", "-",
                                "1.200 (0/1)", "1.000 (0/1)", "1.089 (1/4)"))

    def test_arithmetic_agrees_with_the_definitions(self):
        env, rows = hgemm_report.read_results(os.path.join(DATA, "report-small.csv"))
        res = hgemm_report.Results(rows)
        shapes, missing = res.compare("hgemm", "cublaslt-best", "max", "graph", "f32")
        self.assertEqual(missing, 1)
        self.assertEqual([round(s[5], 12) for s in shapes], [1.3, 0.9, 1.2, 1.0])
        nn, _ = res.compare("hgemm", "cublaslt-best", "nn", "graph", "f32")
        self.assertAlmostEqual(nn[0][5], 0.006 / 0.004)
        self.assertEqual(hgemm_report.flop_bucket(1e9), 1)
        self.assertEqual(hgemm_report.flop_bucket(math.nextafter(1e9, 0)), 0)
        self.assertEqual(dict(env)["gpu"], "NVIDIA H100 80GB HBM3")
        plain = hgemm_report.read_results(os.path.join(DATA, "report-small.csv"))
        packed = hgemm_report.read_results(os.path.join(DATA, "report-small.csv.gz"))
        self.assertEqual(repr(plain), repr(packed))  # repr: the failed row has ms NaN

    def test_every_figure_is_a_non_empty_png(self):
        names = set(self.figures)
        for expected in ("speedup-graph-f32.png", "speedup-latency-f32.png",
                         "speedup-offline-f32.png", "heatmap-graph-f32.png", "roofline-f32.png",
                         "tuner-choices.png", "ablation.png"):
            self.assertIn(expected, names)
        for name in names:
            self.assertIn(f'<img src="{name}"', self.page)
            with open(os.path.join(self.out, name), "rb") as f:
                data = f.read()
            self.assertTrue(data.startswith(PNG_MAGIC), name)
            self.assertGreater(len(data), 1000, name)
        for src in re.findall(r'<img src="([^"]+)"', self.page):
            self.assertIn(src, names)

    def test_roofline_and_environment(self):
        self.assertIn_("not measured")
        self.assertIn_("989")
        self.assertIn_("3.35")
        for value in ("NVIDIA H100 80GB HBM3", "580.159.04 (CUDA 13.0)", "13.1.0", "0123abc",
                      "2026-11-24T00:00:00Z", "1980"):
            self.assertIn_(value)

    def test_tuner_winner_is_the_highest_mean_reward(self):
        import gzip  # noqa: F401
        db = os.path.join(self.tmp.name, "db.jsonl.gz")
        winners = hgemm_report.db_winners(db)
        self.assertEqual(winners[(64, 64, 64, "tn", "f32")],
                         "sm90_ws_64x128x64_s6_c1x1_w1_m16_st_sk1_f32_tn")
        p = hgemm_report.parse_config("sm80_mma_64x64x32_s3_w2x2_sk16_f32_tn")
        self.assertEqual((p["block_m"], p["block_n"], p["stages"], p["split_k"], p["cluster"]),
                         (64, 64, 3, 16, 1))
        p = hgemm_report.parse_config("sm90_pp_128x128x64_s5_c1x2_w2_m16_tma_sk1_f32_tn")
        self.assertEqual((p["stages"], p["cluster"], p["split_k"]), (5, 2, 1))


if __name__ == "__main__":
    unittest.main()
