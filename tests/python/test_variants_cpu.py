#!/usr/bin/env python3
"""Source rewrites on the CPU (issue 22, items 2-7): the source rules against the planted hacks
(through the built `hgemm variants`, $HGEMM_CLI), the build as the second line behind them, the
strict parse of replies and the prompt's budget, the sandbox's worker processes (a hang killed
with its whole process group, a crash, a memory limit, memcheck's verdict) on fake workers, and
the rewrite session against a scripted OpenAI-compatible server on loopback: every failure fed
back into the next prompt, the accepted rewrite stored with its provenance, listed and promoted.
No GPU: the real worker stops after the build (stop="compile"); where a test needs a verdict past
the build, a fake worker gives it, and the test says so. Every server is shut down by its
`with`."""

import contextlib
import io
import json
import os
import signal
import stat
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import variant_sources as vs  # noqa: E402
from test_llm_cpu import KEY, ScriptedServer, reply  # noqa: E402

from hgemm import llm, propose  # noqa: E402
from hgemm.llm import proposals as props  # noqa: E402
from hgemm.llm import rewrites, sandbox  # noqa: E402
from hgemm.llm.session import rewrite_for_problems  # noqa: E402

CLI = os.environ.get("HGEMM_CLI", "")
CONFIG = "sm90_ws_128x128x64_s4_c1x1_w2_m8_tma_sk1_f32_tn"

# Stands in for `hgemm` where a test needs a verdict past the build without a GPU: `variants
# family` and `--compile-only` go to the real command (the real rules, the real build), and the
# full or verify-only run does what a marker comment in the source says. Its accepted records
# carry made-up times: they test the bookkeeping, not a kernel.
FAKE_WORKER = r'''#!/usr/bin/env python3
import json, os, signal, subprocess, sys, time
REAL = os.environ["FAKE_WORKER_REAL_CLI"]
argv = sys.argv[1:]
if argv[:2] != ["variants", "try"] or "--compile-only" in argv:
    os.execv(REAL, [REAL] + argv)
opt = lambda name: argv[argv.index(name) + 1]
source = open(opt("--source")).read()
out = opt("--out")
os.makedirs(out, exist_ok=True)
mode = [l.split(":", 1)[1].strip() for l in source.splitlines() if l.startswith("// FAKE-WORKER:")]
mode = mode[0] if mode else "accept 1.25"
sys.stderr.write("stage: verify and time 256x256x256\n")
sys.stderr.flush()
if mode == "hang":
    # One child in the worker's group, one in a group of its own (as the JIT starts nvcc).
    child = subprocess.Popen(["sleep", "600"])
    grouped = subprocess.Popen(["sleep", "600"], preexec_fn=lambda: os.setpgid(0, 0))
    with open(os.path.join(out, "child.pid"), "w") as f:
        f.write(f"{child.pid} {grouped.pid}")
    time.sleep(600)
if mode == "crash":
    os.kill(os.getpid(), signal.SIGSEGV)
if mode == "memory":
    hog = b"x" * (400 << 20)
    time.sleep(600)
compiled = json.load(open(os.path.join(os.path.dirname(out), "compile", "record.json")))
record = dict(compiled, reasons=[], device="fake", shapes=[])
if mode == "verify_failed":
    record.update(verdict="verify_failed",
                  reasons=["256x256x256: incorrect: INCORRECT random_normal: planted"])
    json.dump(record, open(os.path.join(out, "record.json"), "w"))
    sys.exit(5)
speedup = float(mode.split()[1])
record.update(verdict="accepted", mean_speedup=speedup, error_term=0.1,
              reward=speedup - 0.05 * 0.1 - 0.1 * min(1, record["lines_changed"] / 1000),
              shapes=[{"shape": "256x256x256", "problem": "256x256x256_tn_f32",
                       "disposition": "passed", "speedup": speedup, "median_us": 10.0,
                       "reference_us": 10.0 * speedup, "verifier": {"disposition": "passed"},
                       "recheck": {"disposition": "passed"}}])
json.dump(record, open(os.path.join(out, "record.json"), "w"))
'''


def setUpModule():
    if not CLI or not os.access(CLI, os.X_OK):
        raise RuntimeError("HGEMM_CLI must name the built hgemm command (tests/CMakeLists.txt "
                           "sets it)")


STOCK = None


def stock():
    global STOCK
    if STOCK is None:
        STOCK = rewrites.family_text(CLI)
    return STOCK


def check(source, tmp):
    path = os.path.join(tmp, "source.cuh")
    with open(path, "w", encoding="utf-8") as f:
        f.write(source)
    result = subprocess.run([CLI, "variants", "check", "--source", path], capture_output=True,
                            text=True, timeout=120)
    return result.returncode, json.loads(result.stdout)


class Base(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.cache = os.path.join(self.tmp.name, "jit-cache")

    def path(self, *parts):
        return os.path.join(self.tmp.name, *parts)

    def fake_cli(self):
        path = self.path("fake-hgemm")
        with open(path, "w", encoding="utf-8") as f:
            f.write(FAKE_WORKER)
        os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
        os.environ["FAKE_WORKER_REAL_CLI"] = CLI
        self.addCleanup(os.environ.pop, "FAKE_WORKER_REAL_CLI", None)
        return path

    def run_candidate(self, source, cli=None, **kw):
        kw.setdefault("memcheck", False)
        kw.setdefault("cache_dir", self.cache)
        return sandbox.try_candidate(source, CONFIG, ["256x256x256"], self.path("work"),
                                     cli=cli or CLI, **kw)


class Rules(Base):
    def test_family_header_passes(self):
        code, doc = check(stock(), self.tmp.name)
        self.assertEqual((code, doc["violations"]), (0, []))

    def test_planted_hacks_are_refused_by_name(self):
        for kind, rule in vs.RULE.items():
            with self.subTest(kind=kind):
                code, doc = check(vs.make(kind, stock()), self.tmp.name)
                self.assertEqual(code, 3, doc)
                self.assertIn(rule, [v["rule"] for v in doc["violations"]], doc)
                self.assertTrue(all(v["line"] > 0 for v in doc["violations"]
                                    if v["rule"] == rule), doc)

    def test_reading_past_the_inputs_is_for_the_run_time_defences(self):
        # Indexing past C is ordinary code to a token rule: the verifier's guard bands (and
        # memcheck) are what catch it, on the GPU (tests/python/gpu/test_variants_gpu.py).
        code, doc = check(vs.make("reads_past", stock()), self.tmp.name)
        self.assertEqual(code, 0, doc)
        out = self.run_candidate(vs.make("reads_past", stock()), stop="compile")
        self.assertEqual(out.verdict, "compiled", out.reasons)

    def test_the_build_is_a_second_line_behind_the_rules(self):
        # With the rules off (tests only), a side stream and cuBLAS cannot even be built: device
        # code has neither.
        for kind, words in (("side_stream", "separate compilation"), ("cublas", "__host__")):
            with self.subTest(kind=kind):
                out = self.run_candidate(vs.make(kind, stock()), stop="compile",
                                         source_rules=False)
                self.assertEqual(out.verdict, "compile_failed", out.reasons)
                self.assertIn(words, " ".join(out.reasons))
        for kind in ("pointer_cache", "content_cache"):
            with self.subTest(kind=kind):
                out = self.run_candidate(vs.make(kind, stock()), stop="compile",
                                         source_rules=False)
                self.assertEqual(out.verdict, "compiled", out.reasons)

    def test_every_canned_candidate_builds_or_fails_as_planned(self):
        for kind in ("correct", "wrong", "slow", "hang", "crash", "writes_past"):
            with self.subTest(kind=kind):
                out = self.run_candidate(vs.make(kind, stock()), stop="compile")
                self.assertEqual(out.verdict, "compiled", out.reasons)
        out = self.run_candidate(vs.make("does_not_compile", stock()), stop="compile")
        self.assertEqual(out.verdict, "compile_failed")
        self.assertIn("not_declared_anywhere", " ".join(out.reasons))
        self.assertEqual(out.record["verdict"], "compile_failed")

    def test_anchor_that_moved_is_named(self):
        with self.assertRaises(vs.AnchorError):
            vs.make("pointer_cache", stock().replace(vs.ROLE_SPLIT, ""))


class Parsing(unittest.TestCase):
    def test_one_fenced_block_is_the_source(self):
        self.assertEqual(rewrites.parse_source_reply("```cuda\nint x;\n```"), "int x;\n")
        self.assertEqual(rewrites.parse_source_reply("Sure:\n```cpp\na\nb\n```\nDone."),
                         "a\nb\n")
        self.assertEqual(rewrites.parse_source_reply("```\nraw\n```"), "raw\n")

    def test_replies_that_are_not_one_whole_file(self):
        for text, words in (("no code at all", "holds 0"),
                            ("```cuda\na\n```\n```cuda\nb\n```", "holds 2"),
                            ("```python\nprint(1)\n```", "'python'"),
                            ("```cuda\n   \n```", "empty"),
                            ("```cuda\n" + "x" * (300 * 1024) + "\n```", "bytes"),
                            (None, "not text")):
            with self.subTest(words=words):
                with self.assertRaises(props.ProposalError) as e:
                    rewrites.parse_source_reply(text)
                self.assertIn(words, str(e.exception))

    def test_prompt_holds_the_family_and_keeps_its_budget(self):
        family = "// the family header\n" + "int line;\n" * 2000
        problems = [props.Problem(4096, 4096, 4096), props.Problem(128, 8192, 1024)]
        similar = [("4096x4096x2048", "sm90_ws_128x256x64_s4_c2x1_w2_m8_tma_sk1_f32_tn", 1.02)]
        failures = [f"round {i}: verify_failed: planted reason {i} " + "x" * 150
                    for i in range(200)]
        messages = rewrites.build_source_prompt(family, CONFIG, problems, similar, failures,
                                                "H100: 132 SMs", token_budget=8000)
        text = messages[1]["content"]
        self.assertIn(family.rstrip("\n"), text)
        self.assertIn(CONFIG, text)
        self.assertIn("M=128 N=8192 K=1024", text)
        self.assertIn("planted reason 0", text)
        self.assertNotIn("planted reason 199", text)
        total = sum(llm.estimate_tokens(m["content"]) for m in messages)
        self.assertLessEqual(total, 8000)
        with self.assertRaises(ValueError):
            rewrites.build_source_prompt(family, CONFIG, problems, [], [], "",
                                         token_budget=2000)
        self.assertIn("struct Params token", messages[0]["content"])


class Sandbox(Base):
    def test_worker_that_hangs_is_killed_with_its_group(self):
        out = self.run_candidate(vs.make("correct", stock()) + "// FAKE-WORKER: hang\n",
                                 cli=self.fake_cli(), timeout_s=3)
        self.assertEqual(out.verdict, "timeout", out.reasons)
        self.assertIn("killed after 3 s", out.reasons[0])
        self.assertIn("during verify and time 256x256x256", out.reasons[0])
        with open(self.path("work", "full", "child.pid")) as f:
            children = [int(pid) for pid in f.read().split()]
        self.assertEqual(len(children), 2)
        deadline = time.time() + 5
        while time.time() < deadline and any(_alive(pid) for pid in children):
            time.sleep(0.05)
        self.assertFalse(_alive(children[0]), "the worker's child outlived the kill")
        self.assertFalse(_alive(children[1]), "a child in a process group of its own (as nvcc "
                                              "is) outlived the kill of the worker's session")

    def test_crash_and_memory_cost_the_candidate_only(self):
        fake = self.fake_cli()
        crashed = self.run_candidate(vs.make("correct", stock()) + "// FAKE-WORKER: crash\n",
                                     cli=fake)
        self.assertEqual(crashed.verdict, "crashed", crashed.reasons)
        self.assertIn(f"signal {int(signal.SIGSEGV)}", crashed.reasons[0])
        hog = self.run_candidate(vs.make("correct", stock()) + "// FAKE-WORKER: memory\n",
                                 cli=fake, memory_mib=150, timeout_s=60)
        self.assertEqual(hog.verdict, "out_of_memory", hog.reasons)
        self.assertIn("150 MiB", hog.reasons[0])
        failed = self.run_candidate(vs.make("correct", stock()) +
                                    "// FAKE-WORKER: verify_failed\n", cli=fake)
        self.assertEqual(failed.verdict, "verify_failed")
        self.assertIn("full: 256x256x256: incorrect", failed.reasons[0])

    def test_memcheck_runs_first_with_its_own_limit_and_shapes(self):
        bindir = self.path("bin")
        os.makedirs(bindir)
        sanitizer = os.path.join(bindir, "compute-sanitizer")
        with open(sanitizer, "w") as f:
            f.write("#!/bin/sh\necho '========= Invalid __global__ read of size 2 bytes'\n"
                    "echo \"$@\" > \"$(dirname \"$0\")/args\"\nexit ${FAKE_SANITIZER_EXIT:-7}\n")
        os.chmod(sanitizer, 0o755)
        saved = os.environ["PATH"]
        os.environ["PATH"] = bindir + os.pathsep + saved
        self.addCleanup(os.environ.__setitem__, "PATH", saved)
        out = self.run_candidate(vs.make("correct", stock()), memcheck="auto")
        self.assertEqual(out.verdict, "memcheck_failed", out.reasons)
        self.assertIn("Invalid __global__ read", out.reasons[0])
        with open(os.path.join(bindir, "args")) as f:
            args = f.read().split()
        self.assertEqual(args[:4], ["--tool", "memcheck", "--error-exitcode", "7"])
        self.assertIn("--verify-only", args)
        self.assertEqual(args[args.index("--shape") + 1], "256x256x256")
        self.assertEqual([stage for stage, _ in out.workers], ["compile", "memcheck"])
        # Shapes of its own (a sanitizer that passes, then the fake worker's full run): memcheck
        # verifies on those alone, the full run on the candidate's.
        os.environ["FAKE_SANITIZER_EXIT"] = "0"
        self.addCleanup(os.environ.pop, "FAKE_SANITIZER_EXIT", None)
        out = self.run_candidate(vs.make("correct", stock()), cli=self.fake_cli(),
                                 memcheck="auto", memcheck_shapes=["136x264x72", "17x33x64"])
        self.assertEqual(out.verdict, "accepted", out.reasons)
        shapes = {stage: w.argv[w.argv.index("--shape") + 1] for stage, w in out.workers}
        self.assertEqual(shapes, {"compile": "256x256x256", "memcheck": "136x264x72,17x33x64",
                                  "full": "256x256x256"})

    def test_memcheck_asked_for_but_missing(self):
        saved = sandbox.find_sanitizer
        sandbox.find_sanitizer = lambda: None
        self.addCleanup(setattr, sandbox, "find_sanitizer", saved)
        out = self.run_candidate(vs.make("correct", stock()), memcheck=True)
        self.assertEqual(out.verdict, "error")
        self.assertIn("compute-sanitizer", out.reasons[0])

    def test_run_worker_arguments(self):
        with self.assertRaises(ValueError):
            sandbox.run_worker(["true"], timeout_s=0)
        with self.assertRaises(ValueError):
            sandbox.try_candidate("x", CONFIG, [], self.path("w"), cli=CLI, stop="later")
        done = sandbox.run_worker([sys.executable, "-c", "print('hi')"], timeout_s=30)
        self.assertEqual((done.returncode, done.killed, done.stdout), (0, "", "hi\n"))


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


class Session(Base):
    def client(self, server, **kw):
        kw.setdefault("transcript", self.path("transcript.jsonl"))
        kw.setdefault("sleep", lambda s: None)
        # Each prompt carries the family header (about 21k tokens since the last round's split):
        # the default 200k would stop a scripted session of six rounds after five.
        kw.setdefault("budget", llm.Budget(tokens=1_000_000))
        return llm.ChatClient(server.url, "test-model", **kw)

    def session(self, server, cli, **kw):
        kw.setdefault("rounds", 8)
        sandbox_options = {"memcheck": False, "cache_dir": self.cache}
        sandbox_options.update(kw.pop("sandbox", {}))
        return rewrite_for_problems(
            self.client(server), cli, CONFIG, [props.Problem(256, 256, 256)], stock(), [], "",
            self.path("rewrites"), self.path("variants"), sandbox=sandbox_options,
            log=lambda s: None, **kw)

    def test_every_failure_is_fed_back_and_nothing_unmeasured_is_stored(self):
        script = [reply("I cannot help with that."),
                  reply(vs.fenced(vs.make("does_not_compile", stock()))),
                  reply(vs.fenced(vs.make("pointer_cache", stock()))),
                  reply(vs.fenced(vs.make("side_stream", stock()))),
                  reply(vs.fenced(vs.make("cublas", stock()))),
                  reply(vs.fenced(vs.make("correct", stock())))]
        with ScriptedServer(script) as s:
            out = self.session(s, CLI, rounds=6, sandbox={"stop": "compile"})
        self.assertEqual(len(s.requests), 6)
        self.assertEqual([r for r, _ in out.rejected], [1])
        self.assertEqual([(r, c.verdict) for r, c in out.tried],
                         [(2, "compile_failed"), (3, "rejected_by_rules"),
                          (4, "rejected_by_rules"), (5, "rejected_by_rules"), (6, "compiled")])
        last_prompt = s.requests[-1]["body"]["messages"][1]["content"]
        for words in ("round 1: reply rejected", "round 2: compile_failed",
                      "not_declared_anywhere", "round 3: rejected_by_rules", "global-state",
                      "streams", "libraries"):
            self.assertIn(words, last_prompt)
        self.assertEqual(out.stored, [])
        self.assertFalse(os.path.exists(self.path("variants")))
        # Each reply was asked for whole: the reply budget covers the file.
        self.assertGreaterEqual(s.requests[0]["body"]["max_tokens"], 16000)

    def test_accepted_rewrite_lands_with_provenance_and_promotes(self):
        fake = self.fake_cli()
        slow = vs.make("correct", stock()) + "// FAKE-WORKER: accept 0.4\n"
        hang = vs.make("correct", stock()) + "// FAKE-WORKER: hang\n"
        good = vs.make("correct", stock()) + "// FAKE-WORKER: accept 1.3\n"
        with ScriptedServer([reply(vs.fenced(slow)), reply(vs.fenced(hang)),
                             reply(vs.fenced(good))]) as s:
            out = self.session(s, fake, sandbox={"timeout_s": 3})
        self.assertEqual([c.verdict for _, c in out.tried], ["accepted", "timeout", "accepted"])
        prompts = [r["body"]["messages"][1]["content"] for r in s.requests]
        self.assertIn("correct but too slow", prompts[1])
        self.assertIn("timeout", prompts[2])
        self.assertEqual(len(out.stored), 1)
        path = out.stored[0]
        with open(os.path.join(path, "source.cuh")) as f:
            self.assertEqual(f.read(), good)
        with open(os.path.join(path, "record.json")) as f:
            record = json.load(f)
        self.assertEqual(record["verdict"], "accepted")
        self.assertEqual(record["model"], "test-model")
        self.assertEqual(record["name"], os.path.basename(path))
        self.assertEqual(record["config"], CONFIG)
        self.assertEqual(record["mean_speedup"], 1.3)
        self.assertEqual(record["rules"]["passed"], True)
        sent = s.requests[2]["body"]["messages"]
        self.assertEqual(record["prompt_sha256"], rewrites.prompt_sha256(sent))
        self.assertRegex(record["git_hash"], r"^[0-9a-f]{7,}|unknown")

        # Its measurements land in the database as "variant" lines with the provenance, which
        # the C++ reader accepts (and never dispatches).
        db = os.path.join(self.path("variants"), "variants.jsonl")
        with open(db) as f:
            lines = [json.loads(line) for line in f]
        self.assertEqual([(v["type"], v["name"], v["config"], v["m"], v["layout"], v["acc"])
                          for v in lines],
                         [("variant", record["name"], CONFIG, 256, "tn", "f32")])
        self.assertEqual((lines[0]["model"], lines[0]["prompt_sha256"], lines[0]["speedup"]),
                         ("test-model", record["prompt_sha256"], 1.3))
        stats = subprocess.run([CLI, "db", "stats", db], capture_output=True, text=True,
                               timeout=120)
        self.assertEqual(stats.returncode, 0, stats.stdout + stats.stderr)
        self.assertIn("1 variant lines", stats.stdout)
        self.assertIn("0 unreadable lines", stats.stdout)

        listed = subprocess.run([CLI, "variants", "list", "--json", "--dir",
                                 self.path("variants")], capture_output=True, text=True,
                                timeout=120)
        self.assertEqual(listed.returncode, 0, listed.stderr)
        rows = [json.loads(line) for line in listed.stdout.splitlines()]
        self.assertEqual([(r["name"], r["verdict"], r["model"]) for r in rows],
                         [(record["name"], "accepted", "test-model")])

        root = self.path("root")
        os.makedirs(os.path.join(root, "src", "kernels", "sm90"))
        with open(os.path.join(root, "src", "kernels", "sm90", "sm90_ws.cuh"), "w") as f:
            f.write(stock())
        promoted = subprocess.run([CLI, "variants", "promote", record["name"], "--dir",
                                   self.path("variants"), "--source-root", root],
                                  capture_output=True, text=True, timeout=120)
        self.assertEqual(promoted.returncode, 0, promoted.stdout + promoted.stderr)
        with open(os.path.join(root, "src", "kernels", "sm90", "variants",
                               record["name"] + ".cuh")) as f:
            self.assertEqual(f.read(), good)
        with open(os.path.join(root, "src", "kernels", "sm90", "variants",
                               "promoted.list")) as f:
            self.assertIn(f"{record['name']} {CONFIG} {record['source_hash']}\n", f.read())

    def test_store_refuses_what_was_not_accepted(self):
        with self.assertRaises(ValueError):
            rewrites.store_variant(self.path("v"), "x", {"verdict": "verify_failed"},
                                   model="m", prompt_hash="h")
        # Accepted with the source rules off (the test-only switch): never stored.
        unchecked = {"verdict": "accepted", "source_hash": "ab" * 16,
                     "rules": {"checked": False, "passed": False, "violations": []}}
        with self.assertRaises(ValueError) as e:
            rewrites.store_variant(self.path("v"), "x\n", unchecked, model="m", prompt_hash="h")
        self.assertIn("source rules", str(e.exception))
        self.assertFalse(os.path.exists(self.path("v")))
        record = dict(unchecked, rules={"checked": True, "passed": True, "violations": []})
        first = rewrites.store_variant(self.path("v"), "x\n", record, model="m", prompt_hash="h")
        self.assertEqual(rewrites.store_variant(self.path("v"), "x\n", record, model="m",
                                                prompt_hash="h"), first)
        with self.assertRaises(FileExistsError):
            rewrites.store_variant(self.path("v"), "y\n", record, model="m", prompt_hash="h")
        with self.assertRaises(ValueError):
            rewrites.store_variant(self.path("v"), "x\n", record, model="m", prompt_hash="h",
                                   name="../out")

    def test_transport_errors_end_the_rounds(self):
        with ScriptedServer([(429, {"Retry-After": "0"}, "{}", 0), reply("no fence"),
                             (500, {}, "boom", 0), (500, {}, "boom", 0)]) as s:
            out = self.session(s, CLI, rounds=3, sandbox={"stop": "compile"})
        self.assertEqual([r for r, _ in out.rejected], [1])
        self.assertIn("round 2: HTTP 500", out.stopped)
        self.assertEqual(out.tried, [])

    def test_no_client_sends_nothing(self):
        out = rewrite_for_problems(None, CLI, CONFIG, [props.Problem(64, 64, 64)], "x", [], "",
                                   self.path("r"), self.path("v"))
        self.assertEqual((out.tried, out.stored, out.stopped), ([], [], ""))


class SimilarRewrites(Base):
    """The accepted rewrites under variants/ go into the rewrite prompt as diffs against the
    family header, nearest first with their speedups; a failed one never does."""
    FAMILY = "// the family header\n" + "".join(f"int line_{i};\n" for i in range(300))
    PROBLEMS = [props.Problem(4096, 4096, 4096)]

    def edit(self, *changes):
        source = self.FAMILY
        for line, new in changes:
            source = source.replace(f"int line_{line};\n", new + "\n")
        return source

    def record(self, speedup, problem, verdict="accepted"):
        return {"verdict": verdict, "config": CONFIG, "family_path": rewrites.FAMILY_HEADER,
                "source_hash": "ab" * 32, "mean_speedup": speedup,
                "rules": {"checked": True, "passed": True, "violations": []},
                "shapes": [{"shape": problem.split("_")[0], "problem": problem,
                            "disposition": "passed" if verdict == "accepted" else "incorrect",
                            "speedup": speedup if verdict == "accepted" else None}]}

    def store(self, name, source, record):
        if record["verdict"] == "accepted":
            rewrites.store_variant(self.path("variants"), source, record, model="m",
                                   prompt_hash="h", name=name)
            return
        # store_variant refuses a failed candidate, so this one is put there by hand, as a
        # record from an older tool or a person would be.
        os.makedirs(self.path("variants", name))
        with open(self.path("variants", name, "record.json"), "w", encoding="utf-8") as f:
            json.dump(dict(record, name=name), f)
        with open(self.path("variants", name, "source.cuh"), "w", encoding="utf-8") as f:
            f.write(source)

    def setUp(self):
        super().setUp()
        # near's two hunks lie far apart, so that a budget can take the first without the second.
        self.near = self.edit((10, "int near_change;"),
                              (200, "\n".join(f"int near_block_{i};" for i in range(40))))
        self.far = self.edit((50, "int far_change;"))
        self.store("rw_near", self.near, self.record(1.31, "4096x4096x2048_tn_f32"))
        self.store("rw_far", self.far, self.record(1.12, "256x256x256_tn_f32"))
        self.store("rw_failed", self.edit((20, "int failed_change;")),
                   self.record(3.0, "4096x4096x4096_tn_f32", verdict="verify_failed"))
        self.store("rw_other_layout", self.edit((30, "int nn_change;")),
                   self.record(2.0, "4096x4096x4096_nn_f32"))

    def prompt(self, examples, token_budget=40000):
        messages = rewrites.build_source_prompt(
            self.FAMILY, CONFIG, self.PROBLEMS, [("4096x4096x2048", CONFIG, 0.97)],
            ["round 1: planted failure"], "H100: 132 SMs", rewrites=examples,
            token_budget=token_budget)
        self.assertLessEqual(sum(llm.estimate_tokens(m["content"]) for m in messages),
                             token_budget)
        return messages[1]["content"]

    def examples(self):
        return rewrites.similar_rewrites(rewrites.stored_rewrites(self.path("variants")),
                                         self.PROBLEMS)

    def diff(self, source):
        return "\n".join(line for hunk in rewrites.diff_hunks(self.FAMILY, source)
                         for line in hunk)

    def test_accepted_ones_nearest_first_with_their_speedups(self):
        examples = self.examples()
        self.assertEqual([(e.name, e.problem, e.speedup) for e in examples],
                         [("rw_near", "4096x4096x2048_tn_f32", 1.31),
                          ("rw_far", "256x256x256_tn_f32", 1.12)])
        text = self.prompt(examples)
        before = self.prompt([])
        self.assertTrue(text.startswith(before + "\n"), "the examples come after all else")
        near, far = text.index(self.diff(self.near)), text.index(self.diff(self.far))
        self.assertLess(near, far)
        self.assertIn("+int near_change;", text)
        self.assertIn("-int line_10;", text)
        self.assertIn(f"--- a/{rewrites.FAMILY_HEADER}", text)
        self.assertIn("1.310x cuBLASLt on 4096x4096x2048_tn_f32", text)
        self.assertIn("1.120x cuBLASLt on 256x256x256_tn_f32", text)
        for absent in ("rw_failed", "failed_change", "3.000x", "rw_other_layout", "nn_change",
                       "(truncated)"):
            self.assertNotIn(absent, text)
        # The whole file is what the fixed part carries; an example is only what it changed.
        self.assertEqual(text.count("int line_150;"), 1)

    def test_budget_cuts_at_a_hunk_or_drops_the_diffs(self):
        examples = self.examples()
        before = self.prompt([])
        fixed_tokens = (llm.estimate_tokens(rewrites.SOURCE_SYSTEM_PROMPT)
                        + llm.estimate_tokens(before))
        self.assertEqual(self.prompt(examples, token_budget=fixed_tokens + 5), before)
        head = self.prompt(examples)[len(before) + 1:].split("\n")[0]
        first, second = rewrites.diff_hunks(self.FAMILY, self.near)
        kept = [head, "```diff", *first, "```", "(truncated)"]
        budget = fixed_tokens + llm.estimate_tokens("\n" + "\n".join(kept))
        cut = self.prompt(examples, token_budget=budget)
        self.assertTrue(cut.startswith(before + "\n"))
        self.assertEqual(cut[len(before) + 1:].split("\n"), kept)
        self.assertNotIn(second[0], cut)

    def test_no_accepted_variants_leave_the_prompt_as_it_was(self):
        self.assertEqual(rewrites.stored_rewrites(self.path("missing")), [])
        for name in ("rw_near", "rw_far", "rw_other_layout"):
            with open(self.path("variants", name, "record.json"), "w", encoding="utf-8") as f:
                json.dump(self.record(1.5, "4096x4096x4096_tn_f32", "recheck_failed"), f)
        self.assertEqual(self.examples(), [])
        messages = rewrites.build_source_prompt(
            self.FAMILY, CONFIG, self.PROBLEMS, [("4096x4096x2048", CONFIG, 0.97)],
            ["round 1: planted failure"], "H100: 132 SMs")
        self.assertEqual(self.prompt(self.examples()), messages[1]["content"])

    def test_session_shows_them_from_its_variants_directory(self):
        prompts = {}
        for variants in (self.path("variants"), self.path("missing")):
            with ScriptedServer([reply("no code block")]) as s:
                rewrite_for_problems(
                    llm.ChatClient(s.url, "test-model", sleep=lambda _: None,
                                   transcript=self.path("transcript.jsonl")), CLI, CONFIG,
                    self.PROBLEMS, self.FAMILY, [], "", self.path("rewrites"), variants,
                    rounds=1, log=lambda _: None)
            prompts[variants] = s.requests[0]["body"]["messages"][1]["content"]
        self.assertIn(self.diff(self.near), prompts[self.path("variants")])
        self.assertNotIn("failed_change", prompts[self.path("variants")])
        unchanged = rewrites.build_source_prompt(self.FAMILY, CONFIG, self.PROBLEMS, [], [], "")
        self.assertEqual(prompts[self.path("missing")], unchanged[1]["content"])


class Command(Base):
    def test_propose_rewrite_dry_run(self):
        os.environ[llm.KEY_ENV] = KEY
        self.addCleanup(os.environ.pop, llm.KEY_ENV, None)
        with ScriptedServer([reply(vs.fenced(vs.make("correct", stock())))]) as s:
            stdout = io.StringIO()
            with contextlib.redirect_stdout(stdout):
                code = propose.main(["--shape", "256x256x256", "--llm-url", s.url,
                                     "--llm-model", "test-model", "--rewrite", "--rounds", "1",
                                     "--rewrite-config", CONFIG, "--out", self.path("out"),
                                     "--variants", self.path("variants"), "--memcheck", "off",
                                     "--dry-run"])
        self.assertEqual(code, 0, stdout.getvalue())
        with open(self.path("out", "rewrites.jsonl")) as f:
            rows = [json.loads(line) for line in f]
        self.assertEqual([(r["round"], r["verdict"]) for r in rows], [(1, "compiled")])
        self.assertIn("1 rewrite(s) tried", stdout.getvalue())
        with open(self.path("out", "transcript.jsonl")) as f:
            transcript = f.read()
        self.assertNotIn(KEY, transcript)
        self.assertFalse(os.path.exists(self.path("variants")))


if __name__ == "__main__":
    unittest.main()
