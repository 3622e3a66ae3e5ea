#!/usr/bin/env python3
"""Source rewrites on the H100 (issue 22): the run-time defences behind the source rules, each
shown on a planted hack with the rules switched off (the test-only --no-source-rules) so that
the defence alone decides, a correct rewrite verified under memcheck, measured, stored with its
provenance, listed and promoted, and the rewrite session against the scripted server answering
every canned candidate of the issue, a hanging and a crashing kernel among them, which cost only
their own candidates. Needs the GPU and compute-sanitizer; PyTorch is not used. A failure, never
a skip, without them.

Time (the whole GPU suite must fit in one 10-minute call of the GPU machine): every kind is built
once, all at once, before the tests (a build is ~2 s of nvcc; the cache key is the source text,
so each test's compile worker finds its own kind's build); memcheck runs on MEMCHECK_SHAPE, not
on the timing shape; the one hang is killed at HANG_TIMEOUT_S, the sandbox's own limit as the
session passes it, not at production's 900 s."""

import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import variant_sources as vs  # noqa: E402
from test_llm_cpu import ScriptedServer, reply  # noqa: E402

from hgemm import llm  # noqa: E402
from hgemm.llm import proposals as props  # noqa: E402
from hgemm.llm import rewrites, sandbox  # noqa: E402
from hgemm.llm.session import rewrite_for_problems  # noqa: E402

CLI = os.environ.get("HGEMM_CLI", "")
CONFIG = "sm90_ws_128x128x64_s4_c1x1_w2_m8_tma_sk1_f32_tn"
# 2048^3: six rotated buffer sets on an H100 (50 MB of L2), so the timed calls revisit each
# set's pointers, which is what the pointer cache feeds on (it remembers 16). And a product of
# ~30 us for cuBLASLt, far from launch-bound: the speedups asserted below are ratios of device
# times in graph mode, 128x128 configs of this family measured 0.90-0.95 of cuBLASLt-best here
# (data/tuned), the pointer cache's timed calls return at once, the slow rewrite spins 200000
# cycles per tile (cuBLASLt's whole product is ~60000).
SHAPE = "2048x2048x2048"
# Memcheck covers code paths, not size. With CONFIG's 128x128x64 tiles and 4 stages: residues in
# M (37 rows, not a multiple of 8), N (72) and K (56), 5 k-blocks around the 4-stage ring, and
# 14 x 11 = 154 tiles, more than the CTAs of the persistent grid (one per SM), so that some CTAs
# run a second tile (the deferred epilogue stored during the next tile's mainloop). N and K are
# multiples of 8, as TMA needs. (The timing shape, memcheck's before, has no residue at all.)
# test_correct_rewrite_... checks all of this against CONFIG and the device.
MEMCHECK_SHAPE = "1701x1352x312"
# The session's worker limit, which kills its hanging candidate: every other candidate's full run
# (process and CUDA start, the verifier, cuBLASLt's choice, timing, the recheck) takes a few
# seconds at SHAPE.
HANG_TIMEOUT_S = 30

if not CLI or not os.access(CLI, os.X_OK):
    sys.exit("FAIL: HGEMM_CLI must name the built hgemm command (tests/CMakeLists.txt sets it)")
_info = subprocess.run([CLI, "info"], capture_output=True, text=True, timeout=120).stdout
# "device 0: NAME, sm_90, 132 SMs, ..." where there is one, "device: none (why)" where not.
_device = re.search(r"^device \d+: .*?, (\d+) SMs", _info, re.M)
if not _device:
    sys.exit("FAIL: no CUDA device visible to hgemm; the GPU tests need one\n" + _info[:400])
NUM_SMS = int(_device.group(1))
if not sandbox.find_sanitizer():
    sys.exit("FAIL: compute-sanitizer is not on PATH nor in $CUDA_HOME/bin")

STOCK = rewrites.family_text(CLI)
CACHE = tempfile.mkdtemp(prefix="hgemm-variants-gpu-cache-")
# Every kind that a test below builds.
BUILT = ("correct", "slow", "wrong", "writes_past", "reads_past", "hang", "crash",
         "pointer_cache", "content_cache")


def _build(kind, workdir):
    return sandbox.try_candidate(vs.make(kind, STOCK), CONFIG, [], os.path.join(workdir, kind),
                                 cli=CLI, cache_dir=CACHE, stop="compile", source_rules=False,
                                 memcheck=False)


def setUpModule():
    # The builds in parallel, into the cache the tests share: a test's own compile worker (the
    # rules, then the build) finds its kind's cubin there. The rules are off here only because
    # two of the kinds are for tests that switch them off; the tests' own workers apply them.
    work = tempfile.mkdtemp(prefix="hgemm-variants-gpu-build-")
    try:
        with concurrent.futures.ThreadPoolExecutor(min(len(BUILT), os.cpu_count() or 1)) as pool:
            built = list(pool.map(lambda kind: _build(kind, work), BUILT))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    failed = [f"{k}: {o.summary()}" for k, o in zip(BUILT, built) if o.verdict != "compiled"]
    if failed:
        raise RuntimeError("the canned rewrites must build:\n" + "\n".join(failed))


def tearDownModule():
    shutil.rmtree(CACHE, ignore_errors=True)


def memcheck_paths_missed(shape, config):
    """What MEMCHECK_SHAPE's comment promises and `shape` does not give for `config`."""
    m, n, k = (int(x) for x in shape.split("x"))
    bm, bn, bk, stages = (int(x) for x in
                          re.search(r"_(\d+)x(\d+)x(\d+)_s(\d+)_", config).groups())
    tiles = -(-m // bm) * -(-n // bn)
    missed = [f"no residue in {d}" for d, size, block in (("M", m, bm), ("N", n, bn), ("K", k, bk))
              if size % block == 0]
    if m % 8 == 0:
        missed.append("M a multiple of 8")
    if n % 8 or k % 8:
        missed.append("N or K not a multiple of 8 (TMA refuses)")
    if -(-k // bk) <= stages:
        missed.append(f"{-(-k // bk)} k-blocks do not wrap the {stages}-stage ring")
    if tiles <= NUM_SMS:
        missed.append(f"{tiles} tiles do not exceed the device's {NUM_SMS} SMs")
    return missed


class Base(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def path(self, *parts):
        return os.path.join(self.tmp.name, *parts)

    def run_kind(self, kind, **kw):
        kw.setdefault("memcheck", False)
        # Limits for a failure to end at, not costs: a full run takes seconds.
        kw.setdefault("timeout_s", 120)
        kw.setdefault("memcheck_timeout_s", 300)
        return sandbox.try_candidate(vs.make(kind, STOCK), CONFIG, [SHAPE], self.path(kind),
                                     cli=CLI, cache_dir=CACHE, memcheck_shapes=[MEMCHECK_SHAPE],
                                     **kw)

    def shape_record(self, outcome):
        self.assertIsNotNone(outcome.record, outcome.reasons)
        self.assertEqual(len(outcome.record["shapes"]), 1, outcome.record)
        return outcome.record["shapes"][0]


class Defences(Base):
    def test_pointer_cache_fools_the_timer_not_the_recheck(self):
        out = self.run_kind("pointer_cache", source_rules=False)
        self.assertEqual(out.verdict, "recheck_failed", out.reasons)
        shape = self.shape_record(out)
        self.assertEqual(shape["verifier"]["disposition"], "passed",
                         "the hack waits 64 calls, past the first verifier")
        # The timed calls on the rotated sets returned at once, C still holding the product:
        # timing alone would have reported this speedup.
        self.assertGreater(shape["speedup"], 2.0, shape)
        self.assertNotEqual(shape["recheck"]["disposition"], "passed")
        self.assertIn("after timing, on fresh inputs in fresh buffers", out.reasons[0])

    def test_content_cache_is_caught_by_the_repeated_call(self):
        out = self.run_kind("content_cache", source_rules=False)
        self.assertEqual(out.verdict, "recheck_failed", out.reasons)
        shape = self.shape_record(out)
        self.assertEqual(shape["verifier"]["disposition"], "passed")
        self.assertNotEqual(shape["recheck"]["disposition"], "passed")

    def test_read_past_the_inputs_meets_the_guard_band(self):
        # The row after C lies in the verifier's guard band, inside its allocation: the NaN read
        # there reaches every output, so the verifier refuses it even where memcheck, which
        # runs it first, sees an access inside an allocation and says nothing.
        out = self.run_kind("reads_past", memcheck=True)
        self.assertIn(out.verdict, ("verify_failed", "memcheck_failed"), out.reasons)
        self.assertTrue(out.reasons[0].startswith("memcheck: "), out.reasons)
        if out.verdict == "verify_failed":
            self.assertIn(MEMCHECK_SHAPE, out.reasons[0])

    def test_write_past_c_meets_the_guard_band(self):
        out = self.run_kind("writes_past")
        self.assertEqual(out.verdict, "verify_failed", out.reasons)
        self.assertIn("wrote outside C", " ".join(out.reasons))

    def test_wrong_product(self):
        out = self.run_kind("wrong")
        self.assertEqual(out.verdict, "verify_failed", out.reasons)
        self.assertIn("INCORRECT", " ".join(out.reasons))


class Accepted(Base):
    def test_correct_rewrite_is_measured_stored_listed_and_promoted(self):
        self.assertEqual(memcheck_paths_missed(MEMCHECK_SHAPE, CONFIG), [])
        out = self.run_kind("correct", memcheck=True)
        self.assertEqual(out.verdict, "accepted", out.reasons)
        self.assertEqual([stage for stage, _ in out.workers], ["compile", "memcheck", "full"])
        with open(self.path("correct", "memcheck", "record.json")) as f:
            checked = json.load(f)
        self.assertEqual(checked["verdict"], "verified", checked)
        self.assertEqual([s["shape"] for s in checked["shapes"]], [MEMCHECK_SHAPE])
        self.assertEqual(checked["shapes"][0]["verifier"]["disposition"], "passed")
        record = out.record
        shape = self.shape_record(out)
        self.assertEqual(shape["verifier"]["disposition"], "passed")
        self.assertEqual(shape["recheck"]["disposition"], "passed")
        self.assertEqual(shape["repeat_mismatch"], "")
        self.assertGreater(shape["speedup"], 0.5, shape)
        self.assertEqual(record["lines_changed"], 1)
        self.assertAlmostEqual(record["reward"], record["mean_speedup"] - record["alpha"] *
                               record["error_term"] - record["beta"] * 0.001, places=9)
        path = rewrites.store_variant(self.path("variants"), vs.make("correct", STOCK), record,
                                      model="test-model", prompt_hash="0" * 64)
        listed = subprocess.run([CLI, "variants", "list", "--json", "--dir",
                                 self.path("variants")], capture_output=True, text=True,
                                timeout=120)
        self.assertIn('"verdict":"accepted"', listed.stdout)
        root = self.path("root")
        os.makedirs(os.path.join(root, "src", "kernels", "sm90"))
        with open(os.path.join(root, "src", "kernels", "sm90", "sm90_ws.cuh"), "w") as f:
            f.write(STOCK)
        promoted = subprocess.run([CLI, "variants", "promote", os.path.basename(path), "--dir",
                                   self.path("variants"), "--source-root", root],
                                  capture_output=True, text=True, timeout=120)
        self.assertEqual(promoted.returncode, 0, promoted.stdout + promoted.stderr)

    def test_slow_rewrite_is_measured_as_slow(self):
        out = self.run_kind("slow")
        self.assertEqual(out.verdict, "accepted", out.reasons)
        self.assertLess(out.record["mean_speedup"], 0.7, out.record["shapes"])


class Session(Base):
    def test_every_canned_candidate_and_the_good_one_lands(self):
        # The hang and the crash cost only their own candidates: the sandbox's limit kills the
        # first while its kernel runs, the second's sticky error ends its worker, and the
        # session goes on to measure and store the candidates after them.
        kinds = ["does_not_compile", "wrong", "writes_past", "hang", "crash", "slow",
                 "pointer_cache", "content_cache", "side_stream", "cublas", "reads_past",
                 "correct"]
        with ScriptedServer([reply(vs.fenced(vs.make(k, STOCK))) for k in kinds]) as s:
            client = llm.ChatClient(s.url, "test-model", transcript=self.path("t.jsonl"),
                                    sleep=lambda x: None, budget=llm.Budget(20, 2_000_000))
            out = rewrite_for_problems(
                client, CLI, CONFIG, [props.Problem(2048, 2048, 2048)], STOCK, [], "",
                self.path("rewrites"), self.path("variants"), rounds=len(kinds),
                prompt_tokens=60000, min_reward=0.5,
                sandbox={"memcheck": False, "timeout_s": HANG_TIMEOUT_S, "cache_dir": CACHE},
                log=print)
        verdicts = [c.verdict for _, c in out.tried]
        self.assertEqual(verdicts, ["compile_failed", "verify_failed", "verify_failed", "timeout",
                                    "verify_failed", "accepted", "rejected_by_rules",
                                    "rejected_by_rules", "rejected_by_rules", "rejected_by_rules",
                                    "verify_failed", "accepted"],
                         [c.summary() for _, c in out.tried])
        hang, crash = out.tried[3][1], out.tried[4][1]
        self.assertIn(f"killed after {HANG_TIMEOUT_S} s (wall-clock limit) (during verify and "
                      f"time {SHAPE})", hang.reasons[0])
        self.assertRegex(" ".join(crash.reasons), "(?i)launch|illegal|unusable")
        self.assertEqual(len(out.stored), 1)
        with open(os.path.join(out.stored[0], "record.json")) as f:
            record = json.load(f)
        with open(os.path.join(out.stored[0], "source.cuh")) as f:
            self.assertEqual(f.read(), vs.make("correct", STOCK))
        self.assertEqual(record["model"], "test-model")
        self.assertEqual(record["prompt_sha256"],
                         rewrites.prompt_sha256(s.requests[-1]["body"]["messages"]))
        self.assertEqual(record["shapes"][0]["recheck"]["disposition"], "passed")
        # Its measurement is in the database with the provenance, and the C++ reader takes it.
        db = os.path.join(self.path("variants"), "variants.jsonl")
        with open(db) as f:
            lines = [json.loads(line) for line in f]
        self.assertEqual([(v["name"], v["m"], v["model"], v["prompt_sha256"]) for v in lines],
                         [(record["name"], 2048, "test-model", record["prompt_sha256"])])
        self.assertAlmostEqual(lines[0]["median_us"], record["shapes"][0]["median_us"])
        stats = subprocess.run([CLI, "db", "stats", db], capture_output=True, text=True,
                               timeout=120)
        self.assertIn("1 variant lines", stats.stdout, stats.stdout + stats.stderr)
        last_prompt = s.requests[-1]["body"]["messages"][1]["content"]
        for words in ("compile_failed", "verify_failed", "timeout", "too slow", "global-state",
                      "streams", "libraries"):
            self.assertIn(words, last_prompt)


if __name__ == "__main__":
    unittest.main()
