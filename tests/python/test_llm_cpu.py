#!/usr/bin/env python3
"""The LLM proposer (python/hgemm/llm, python -m hgemm.propose) against a scripted
OpenAI-compatible server on loopback: the protocol (retries, back-off, time-outs, budget,
redaction), the strict parse of proposals and the library's legality check (`hgemm space check`,
$HGEMM_CLI). No GPU, no PyTorch, no real model. Every server is shut down by its `with`."""

import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from hgemm import llm, propose
from hgemm.llm import proposals as props
from hgemm.llm.session import propose_for_problem

CLI = os.environ.get("HGEMM_CLI", "")
KEY = "sk-test-Secret-4242"
GOOD = {"family": "sm90", "block_m": 128, "block_n": 256, "block_k": 64, "num_stages": 4,
        "num_consumer_wgs": 2, "schedule": "cooperative", "cluster_m": 2, "cluster_n": 1,
        "epilogue": "tma_store", "swap_ab": 0, "why": "large square: big tiles, 2-CTA multicast"}
GOOD_NAME = "sm90_ws_128x256x64_s4_c2x1_w2_m8_tma_sk1_f32_tn"
# In the vocabulary but over the register and shared-memory budgets.
ILLEGAL = dict(GOOD, block_m=256, num_stages=16, why="deep pipeline")


def completion(content, total_tokens=None):
    doc = {"id": "x", "object": "chat.completion",
           "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                        "finish_reason": "stop"}]}
    if total_tokens is not None:
        doc["usage"] = {"total_tokens": total_tokens}
    return json.dumps(doc)


def reply(content, **kw):
    return (200, {}, completion(content, **kw), 0)


class ScriptedServer:
    """Answers the n-th POST with script[n] = (status, headers, body, delay_s); a request past
    the script gets a 500 and is still recorded, so a test that counts requests notices it."""

    def __init__(self, script):
        self.script = list(script)
        self.requests = []
        self.release = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers.get("Content-Length", 0))
                body = self.rfile.read(length).decode("utf-8")
                index = len(server.requests)
                server.requests.append({"path": self.path, "headers": dict(self.headers),
                                        "body": json.loads(body)})
                status, headers, text, delay = (server.script[index] if index <
                                                len(server.script) else
                                                (500, {}, "unexpected request", 0))
                if callable(text):
                    text = text(server.requests[-1])
                if delay:
                    server.release.wait(delay)
                    if server.release.is_set():
                        return
                data = text.encode("utf-8")
                try:
                    self.send_response(status)
                    for k, v in headers.items():
                        self.send_header(k, v)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=10)
        return False


class Base(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.sleeps = []
        self.saved_key = os.environ.pop(llm.KEY_ENV, None)
        self.addCleanup(self.restore_key)

    def restore_key(self):
        os.environ.pop(llm.KEY_ENV, None)
        if self.saved_key is not None:
            os.environ[llm.KEY_ENV] = self.saved_key

    def client(self, server, **kw):
        kw.setdefault("transcript", os.path.join(self.tmp.name, "transcript.jsonl"))
        kw.setdefault("sleep", self.sleeps.append)
        return llm.ChatClient(server.url, "test-model", **kw)

    def transcript(self):
        with open(os.path.join(self.tmp.name, "transcript.jsonl"), encoding="utf-8") as f:
            return f.read()


class Protocol(Base):
    def test_request_shape(self):
        with ScriptedServer([reply("hello")]) as s:
            self.assertEqual(self.client(s).chat([{"role": "user", "content": "hi"}]), "hello")
        self.assertEqual(len(s.requests), 1)
        self.assertEqual(s.requests[0]["path"], "/v1/chat/completions")
        self.assertEqual(s.requests[0]["body"]["model"], "test-model")
        self.assertNotIn("Authorization", s.requests[0]["headers"])

    def test_429_then_success_honours_retry_after(self):
        with ScriptedServer([(429, {"Retry-After": "2"}, '{"error":"slow down"}', 0),
                             reply("ok")]) as s:
            self.assertEqual(self.client(s).chat([{"role": "user", "content": "x"}]), "ok")
        self.assertEqual(len(s.requests), 2)
        self.assertEqual(self.sleeps, [2.0])

    def test_retry_after_over_the_limit_ends_the_call(self):
        with ScriptedServer([(429, {"Retry-After": "3600"}, "{}", 0)]) as s:
            with self.assertRaisesRegex(llm.LLMError, "asks to wait 3600 s"):
                self.client(s, max_wait=60).chat([{"role": "user", "content": "x"}])
        self.assertEqual(len(s.requests), 1)
        self.assertEqual(self.sleeps, [])

    def test_5xx_exhausts_retries_with_exponential_backoff(self):
        with ScriptedServer([(503, {}, "down", 0)] * 4) as s:
            with self.assertRaises(llm.LLMHTTPError) as e:
                self.client(s, max_retries=3, backoff=0.5).chat([{"role": "user", "content": "x"}])
        self.assertEqual(e.exception.status, 503)
        self.assertIn("after 3 retries", str(e.exception))
        self.assertEqual(len(s.requests), 4)
        self.assertEqual(self.sleeps, [0.5, 1.0, 2.0])

    def test_other_4xx_is_not_retried(self):
        with ScriptedServer([(400, {}, '{"error":"bad model"}', 0)]) as s:
            with self.assertRaisesRegex(llm.LLMHTTPError, "HTTP 400.*bad model"):
                self.client(s).chat([{"role": "user", "content": "x"}])
        self.assertEqual(len(s.requests), 1)

    def test_response_that_never_arrives_times_out(self):
        with ScriptedServer([(200, {}, completion("late"), 30)] * 2) as s:
            start = time.monotonic()
            with self.assertRaisesRegex(llm.LLMTimeout, "within 0.3 s"):
                self.client(s, timeout=0.3, max_retries=1, backoff=0.1).chat(
                    [{"role": "user", "content": "x"}])
            elapsed = time.monotonic() - start
        self.assertLess(elapsed, 5)
        self.assertEqual(len(s.requests), 2)
        self.assertEqual(self.sleeps, [0.1])

    def test_body_that_is_not_a_completion(self):
        with ScriptedServer([(200, {}, "<html>gateway</html>", 0)]) as s:
            with self.assertRaisesRegex(llm.LLMError, "not a chat completion"):
                self.client(s).chat([{"role": "user", "content": "x"}])

    def test_unreachable_endpoint_is_a_clear_error(self):
        with ScriptedServer([]) as s:
            url = s.url
        with self.assertRaisesRegex(llm.LLMError, "cannot reach"):
            llm.ChatClient(url, "m", timeout=2, transcript=None).chat(
                [{"role": "user", "content": "x"}])

    def test_request_budget(self):
        with ScriptedServer([reply("a"), reply("b"), reply("c")]) as s:
            c = self.client(s, budget=llm.Budget(requests=2))
            c.chat([{"role": "user", "content": "x"}])
            c.chat([{"role": "user", "content": "x"}])
            with self.assertRaisesRegex(llm.BudgetExhausted, "2 of 2 requests"):
                c.chat([{"role": "user", "content": "x"}])
        self.assertEqual(len(s.requests), 2)

    def test_retries_count_toward_the_request_budget(self):
        with ScriptedServer([(503, {}, "down", 0)] * 3) as s:
            with self.assertRaises(llm.BudgetExhausted):
                self.client(s, budget=llm.Budget(requests=2), max_retries=5).chat(
                    [{"role": "user", "content": "x"}])
        self.assertEqual(len(s.requests), 2)

    def test_token_budget(self):
        with ScriptedServer([reply("a", total_tokens=900), reply("b")]) as s:
            c = self.client(s, budget=llm.Budget(tokens=1000))
            c.chat([{"role": "user", "content": "x"}])
            self.assertEqual(c.budget.tokens_used, 900)
            with self.assertRaisesRegex(llm.BudgetExhausted, "900 of 1000 tokens"):
                c.chat([{"role": "user", "content": "y" * 800}])
        self.assertEqual(len(s.requests), 1)

    def test_key_is_sent_but_redacted_from_the_transcript_and_errors(self):
        os.environ[llm.KEY_ENV] = KEY
        echo = lambda req: completion("you sent Authorization: " + req["headers"]["Authorization"])
        with ScriptedServer([(200, {}, echo, 0),
                             (401, {}, '{"error":"bad key Bearer ' + KEY + '"}', 0)]) as s:
            c = self.client(s)
            text = c.chat([{"role": "user", "content": "x"}])
            self.assertIn(KEY, text)  # the server did get the key: the client used it
            with self.assertRaises(llm.LLMHTTPError) as e:
                c.chat([{"role": "user", "content": "x"}])
        self.assertEqual(s.requests[0]["headers"]["Authorization"], "Bearer " + KEY)
        self.assertNotIn("Secret-4242", str(e.exception))
        log = self.transcript()
        self.assertNotIn("Secret-4242", log)
        self.assertIn("[REDACTED]", log)
        events = [json.loads(line)["event"] for line in log.splitlines()]
        self.assertEqual(events, ["request", "response", "request", "response"])

    def test_redact_header_shapes_without_a_known_key(self):
        for text in ('{"Authorization": "Bearer abc.def"}', "authorization: Basic dXNlcjpw",
                     "x-api-key=zzz123", "token Bearer qq-11"):
            self.assertNotRegex(llm.redact(text), "abc.def|dXNlcjpw|zzz123|qq-11", text)

    def test_arguments_are_checked(self):
        with self.assertRaisesRegex(ValueError, "http"):
            llm.ChatClient("ftp://x", "m")
        with self.assertRaisesRegex(ValueError, "model"):
            llm.ChatClient("http://x", "")
        with self.assertRaisesRegex(ValueError, "budget"):
            llm.Budget(requests=0)


def vocabulary():
    return props.load_vocabulary(CLI)


class Proposals(Base):
    def setUp(self):
        super().setUp()
        if not CLI:
            self.fail("HGEMM_CLI must name the hgemm command (tests/CMakeLists.txt sets it)")
        self.vocab = vocabulary()
        self.problem = props.Problem(4096, 4096, 4096, "tn", "f32")
        self.log = []

    def run_rounds(self, script, rounds=1, **kw):
        with ScriptedServer(script) as s:
            outcome = propose_for_problem(self.client(s, **kw.pop("client", {})), CLI,
                                          self.problem, self.vocab, [], "facts", rounds=rounds,
                                          log=self.log.append, **kw)
        return s, outcome

    def test_malformed_json_is_rejected_and_fed_back(self):
        s, outcome = self.run_rounds([reply('{"configs": [ {"family": "sm90",'),
                                      reply(json.dumps({"configs": [GOOD]}))], rounds=2)
        self.assertEqual(len(s.requests), 2)
        self.assertIn("not valid JSON", outcome.rejected[0][1])
        second_prompt = s.requests[1]["body"]["messages"][1]["content"]
        self.assertIn("round 1 reply rejected: the reply is not valid JSON", second_prompt)
        self.assertEqual([c.name for c in outcome.usable], [GOOD_NAME])

    def test_illegal_config_is_checked_by_the_library(self):
        s, outcome = self.run_rounds([reply(json.dumps({"configs": [ILLEGAL]}))])
        self.assertEqual(len(outcome.checked), 1)
        c = outcome.checked[0]
        self.assertFalse(c.legal)
        self.assertFalse(c.jit)
        self.assertIn("structure", [v["rule"] for v in c.violations])
        self.assertEqual(outcome.usable, [])

    def test_legal_good_config(self):
        s, outcome = self.run_rounds([reply("```json\n" + json.dumps({"configs": [GOOD]}) +
                                            "\n```")])
        self.assertEqual(len(outcome.usable), 1)
        self.assertTrue(outcome.usable[0].legal)
        self.assertEqual(outcome.usable[0].name, GOOD_NAME)
        prompt = s.requests[0]["body"]["messages"][1]["content"]
        self.assertIn("M=4096 N=4096 K=4096", prompt)
        self.assertIn('"block_m":[32,40,48,64,72,80,104,112,128,136,144,160,168,176,192,208,224,256]', prompt)

    def test_uncompiled_but_declared_config_is_usable_through_the_jit(self):
        jit = dict(GOOD, block_m=64, block_n=64, block_k=32, num_stages=3, num_consumer_wgs=1,
                   cluster_m=1, cluster_n=1, epilogue="direct")
        s, outcome = self.run_rounds([reply(json.dumps({"configs": [jit]}))])
        c = outcome.checked[0]
        self.assertEqual(c.name, "sm90_ws_64x64x32_s3_c1x1_w1_m8_st_sk1_f32_tn")
        self.assertFalse(c.legal)
        self.assertTrue(c.jit)
        self.assertEqual([v["rule"] for v in c.violations], ["compiled"])

    def test_schema_violations(self):
        cases = {"unknown key": dict(GOOD, warps=4),
                 "must be an integer": dict(GOOD, block_m=True),
                 "out of range": dict(GOOD, block_m=100),
                 "must be a string": dict(GOOD, schedule=1),
                 "missing num_stages": {k: v for k, v in GOOD.items() if k != "num_stages"},
                 "family must be": dict(GOOD, family="sm100")}
        for reason, item in cases.items():
            proposals, rejections = props.parse_proposals(json.dumps({"configs": [item, GOOD]}),
                                                          self.vocab)
            self.assertEqual(len(proposals), 1, reason)
            self.assertEqual(len(rejections), 1, reason)
            self.assertIn(reason, rejections[0][1])
        for bad, reason in (('[1]', "single key"), ('{"configs": [], "x": 1}', "single key"),
                            ('{"configs": []}', "non-empty"),
                            ('{"configs": [{"family": "sm90", "family": "sm80"}]}', "duplicate"),
                            ("Sure! Here are configs: ...", "not valid JSON")):
            with self.assertRaisesRegex(props.ProposalError, reason):
                props.parse_proposals(bad, self.vocab)

    def test_space_check_rejects_what_the_parse_let_through(self):
        out = subprocess.run([CLI, "space", "check", "--shape", "64x64x64"], text=True,
                             capture_output=True,
                             input='{"family":"sm80","block_m":64}\n{"family":"sm90","x":1}\n')
        self.assertEqual(out.returncode, 0, out.stderr)
        lines = [json.loads(line) for line in out.stdout.splitlines()]
        self.assertIn("missing 'block_n'", lines[0]["error"])
        self.assertIn("unknown key 'x'", lines[1]["error"])

    def test_budget_ends_the_rounds(self):
        s, outcome = self.run_rounds([reply('{"configs": "no"}')] * 3, rounds=3,
                                     client={"budget": llm.Budget(requests=1)})
        self.assertEqual(len(s.requests), 1)
        self.assertIn("budget spent", outcome.stopped)

    def test_prompt_stays_within_its_token_budget(self):
        similar = [(f"{i}x4096x4096", GOOD_NAME, 1.01) for i in range(1, 400)]
        messages = props.build_prompt(self.problem, self.vocab, similar, ["f"] * 200,
                                      "x" * 2000, token_budget=1200)
        total = sum(llm.estimate_tokens(m["content"]) for m in messages)
        self.assertLessEqual(total, 1200)
        self.assertIn("1x4096x4096", messages[1]["content"])
        with self.assertRaisesRegex(ValueError, "over the budget"):
            props.build_prompt(self.problem, self.vocab, [], [], "", token_budget=100)

    def test_similar_shapes_from_the_database(self):
        records = [{"type": "measurement", "m": m, "n": 4096, "k": 4096, "layout": "tn",
                    "acc": "f32", "config": cfg, "disposition": d, "speedup": x}
                   for m, cfg, d, x in ((4000, "a", "passed", 1.1), (4000, "b", "passed", 1.2),
                                        (64, "c", "passed", 2.0), (4000, "d", "incorrect", None))]
        self.assertEqual(props.similar_best(records, self.problem, limit=1),
                         [("4000x4096x4096", "b", 1.2)])
        self.assertEqual(props.database_failures(records, self.problem)[0][:3],
                         ("4000x4096x4096", "d", "incorrect"))


class FitSections(unittest.TestCase):
    """Blocks, the sections a rewrite prompt's diffs go in: whole hunks or none, and a cut is
    always said."""
    HUNKS = (("--- a/f", "+++ b/f", "@@ -1 +1 @@", "-a", "+b"),
             ("@@ -9 +9 @@", "-c", "+" + "d" * 80), ("@@ -20 +20 @@", "-e", "+f"))

    def fitted(self, budget):
        section = props.Blocks(("head", "```diff"), self.HUNKS, ("```",))
        messages = props.fit_sections("system", ["fixed"], [section], budget)
        self.assertLessEqual(sum(llm.estimate_tokens(m["content"]) for m in messages), budget)
        return messages[1]["content"].split("\n")

    def test_hunks_go_in_whole_and_a_cut_is_said(self):
        forms = {0: ["fixed"]}
        for kept in range(1, len(self.HUNKS) + 1):
            hunks = [line for hunk in self.HUNKS[:kept] for line in hunk]
            forms[kept] = (["fixed", "head", "```diff"] + hunks + ["```"]
                           + (["(truncated)"] if kept < len(self.HUNKS) else []))
        whole = llm.estimate_tokens("system") + llm.estimate_tokens("\n".join(forms[3]))
        seen = set()
        for budget in range(llm.estimate_tokens("system") + 2, whole + 1):
            lines = self.fitted(budget)
            self.assertIn(lines, list(forms.values()), budget)
            seen.add(next(k for k, form in forms.items() if form == lines))
        self.assertEqual(seen, {0, 1, 2, 3})

    def test_no_blocks_add_nothing(self):
        messages = props.fit_sections("system", ["fixed"], [props.Blocks(("head",), ())], 1000)
        self.assertEqual(messages[1]["content"], "fixed")


class Command(Base):
    def run_main(self, argv):
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            code = propose.main(argv)
        return code, out.getvalue()

    def test_no_endpoint_sends_nothing_and_changes_nothing(self):
        out_dir = os.path.join(self.tmp.name, "out")
        with ScriptedServer([reply(json.dumps({"configs": [GOOD]}))]) as s:
            code, text = self.run_main(["--shape", "4096x4096x4096", "--out", out_dir,
                                        "--llm-model", "test-model"])
            outcome = propose_for_problem(None, CLI, props.Problem(64, 64, 64), {}, [], "")
        self.assertEqual(code, 0)
        self.assertIn("no LLM endpoint configured", text)
        self.assertEqual(s.requests, [])
        self.assertFalse(os.path.exists(out_dir))
        self.assertEqual((outcome.checked, outcome.rejected), ([], []))

    def test_dry_run_writes_candidates_and_the_tune_command(self):
        out_dir = os.path.join(self.tmp.name, "out")
        os.environ[llm.KEY_ENV] = KEY
        db = os.path.join(self.tmp.name, "db.jsonl")
        with open(db, "w") as f:
            f.write(json.dumps({"type": "measurement", "m": 4096, "n": 4096, "k": 2048,
                                "layout": "tn", "acc": "f32", "config": GOOD_NAME,
                                "disposition": "passed", "speedup": 1.05}) + "\n")
        with ScriptedServer([reply(json.dumps({"configs": [GOOD, ILLEGAL]}))]) as s:
            code, text = self.run_main(["--shape", "4096x4096x4096", "--out", out_dir,
                                        "--llm-url", s.url, "--llm-model", "test-model",
                                        "--db", db, "--rounds", "1", "--dry-run"])
        self.assertEqual(code, 0, text)
        self.assertEqual(len(s.requests), 1)
        self.assertIn("4096x4096x2048  " + GOOD_NAME + "  1.050x",
                      s.requests[0]["body"]["messages"][1]["content"])
        self.assertIn("--include " + GOOD_NAME, text)
        with open(os.path.join(out_dir, "candidates.jsonl")) as f:
            rows = [json.loads(line) for line in f]
        self.assertEqual([(r["name"], r["legal"]) for r in rows],
                         [(GOOD_NAME, True), ("sm90_ws_256x256x64_s16_c2x1_w2_m8_tma_sk1_f32_tn",
                                              False)])
        with open(os.path.join(out_dir, "transcript.jsonl")) as f:
            self.assertNotIn("Secret-4242", f.read())


class NoTorch(unittest.TestCase):
    def test_llm_modules_import_without_torch(self):
        code = ("import sys; sys.modules['torch'] = None\n"
                "import hgemm.llm, hgemm.propose\n"
                "assert sys.modules['torch'] is None\n")
        result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        self.assertEqual(result.returncode, 0, result.stderr)


if __name__ == "__main__":
    unittest.main()
