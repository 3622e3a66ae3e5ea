#!/usr/bin/env python3
"""Source rewrites on the H100 (issue 22): the run-time defences behind the source rules, each
shown on a planted hack with the rules switched off (the test-only --no-source-rules) so that
the defence alone decides, the sandbox surviving a hanging and a crashing kernel, a correct
rewrite verified, measured, stored with its provenance, listed and promoted, and the rewrite
session against the scripted server answering every canned candidate of the issue. Needs the
GPU and compute-sanitizer; PyTorch is not used. A failure, never a skip, without them."""

import json
import os
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
# set's pointers, which is what the pointer cache feeds on.
SHAPE = "2048x2048x2048"

if not CLI or not os.access(CLI, os.X_OK):
    sys.exit("FAIL: HGEMM_CLI must name the built hgemm command (tests/CMakeLists.txt sets it)")
_info = subprocess.run([CLI, "info"], capture_output=True, text=True, timeout=120).stdout
if "device: none" in _info or "device:" not in _info:
    sys.exit("FAIL: no CUDA device visible to hgemm; the GPU tests need one\n" + _info[:400])
if not sandbox.find_sanitizer():
    sys.exit("FAIL: compute-sanitizer is not on PATH nor in $CUDA_HOME/bin")

STOCK = rewrites.family_text(CLI)
CACHE = tempfile.mkdtemp(prefix="hgemm-variants-gpu-cache-")


def tearDownModule():
    shutil.rmtree(CACHE, ignore_errors=True)


class Base(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def path(self, *parts):
        return os.path.join(self.tmp.name, *parts)

    def run_kind(self, kind, work=None, **kw):
        kw.setdefault("memcheck", False)
        kw.setdefault("timeout_s", 600)
        return sandbox.try_candidate(vs.make(kind, STOCK), CONFIG, [SHAPE],
                                     self.path(work or kind), cli=CLI, cache_dir=CACHE, **kw)

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

    def test_write_past_c_meets_the_guard_band(self):
        out = self.run_kind("writes_past")
        self.assertEqual(out.verdict, "verify_failed", out.reasons)
        self.assertIn("wrote outside C", " ".join(out.reasons))

    def test_wrong_product(self):
        out = self.run_kind("wrong")
        self.assertEqual(out.verdict, "verify_failed", out.reasons)
        self.assertIn("INCORRECT", " ".join(out.reasons))


class Survival(Base):
    def test_hang_and_crash_cost_only_their_candidates(self):
        hang = self.run_kind("hang", timeout_s=120)
        self.assertEqual(hang.verdict, "timeout", hang.reasons)
        self.assertIn("killed after 120 s", hang.reasons[0])
        crash = self.run_kind("crash")
        self.assertEqual(crash.verdict, "verify_failed", crash.reasons)
        self.assertRegex(" ".join(crash.reasons), "(?i)launch|illegal|unusable")
        after = self.run_kind("correct", work="after")
        self.assertEqual(after.verdict, "accepted", after.reasons)


class Accepted(Base):
    def test_correct_rewrite_is_measured_stored_listed_and_promoted(self):
        out = self.run_kind("correct", memcheck=True)
        self.assertEqual(out.verdict, "accepted", out.reasons)
        self.assertEqual([stage for stage, _ in out.workers], ["compile", "memcheck", "full"])
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
        kinds = ["does_not_compile", "wrong", "writes_past", "hang", "slow", "pointer_cache",
                 "content_cache", "side_stream", "cublas", "reads_past", "correct"]
        with ScriptedServer([reply(vs.fenced(vs.make(k, STOCK))) for k in kinds]) as s:
            client = llm.ChatClient(s.url, "test-model", transcript=self.path("t.jsonl"),
                                    sleep=lambda x: None, budget=llm.Budget(20, 2_000_000))
            out = rewrite_for_problems(
                client, CLI, CONFIG, [props.Problem(2048, 2048, 2048)], STOCK, [], "",
                self.path("rewrites"), self.path("variants"), rounds=len(kinds),
                prompt_tokens=60000, min_reward=0.5,
                sandbox={"memcheck": False, "timeout_s": 180, "cache_dir": CACHE},
                log=print)
        verdicts = [c.verdict for _, c in out.tried]
        self.assertEqual(verdicts, ["compile_failed", "verify_failed", "verify_failed", "timeout",
                                    "accepted", "rejected_by_rules", "rejected_by_rules",
                                    "rejected_by_rules", "rejected_by_rules", "verify_failed",
                                    "accepted"], [c.summary() for _, c in out.tried])
        self.assertEqual(len(out.stored), 1)
        with open(os.path.join(out.stored[0], "record.json")) as f:
            record = json.load(f)
        with open(os.path.join(out.stored[0], "source.cuh")) as f:
            self.assertEqual(f.read(), vs.make("correct", STOCK))
        self.assertEqual(record["model"], "test-model")
        self.assertEqual(record["prompt_sha256"],
                         rewrites.prompt_sha256(s.requests[-1]["body"]["messages"]))
        self.assertEqual(record["shapes"][0]["recheck"]["disposition"], "passed")
        last_prompt = s.requests[-1]["body"]["messages"][1]["content"]
        for words in ("compile_failed", "verify_failed", "timeout", "too slow", "global-state",
                      "streams", "libraries"):
            self.assertIn(words, last_prompt)


if __name__ == "__main__":
    unittest.main()
