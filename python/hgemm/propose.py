"""python -m hgemm.propose: asks a language model for kernel configs per shape, keeps those the
library's rules accept, and tunes them first (`hgemm tune --include`, with `--jit` for legal
configs the catalog lacks). With --rewrite it asks instead for rewrites of the sm90 kernel header,
runs each in the sandbox (`hgemm variants try` in worker processes: source rules, a limited
build, the verifier, timing against cublaslt-best, the recheck on fresh buffers) and stores the
first one whose reward reaches --min-reward under --variants. With --dry-run, or with no GPU
visible, it stops after writing the candidates (rewrites: after the rules and the build).
Without --llm-url nothing is sent, written or run.

    HGEMM_LLM_API_KEY=... python -m hgemm.propose --shape 4096x4096x4096 \\
        --llm-url https://api.example.com/v1 --llm-model some-model --dry-run

Files in --out: transcript.jsonl (every request and response, secrets redacted) and
candidates.jsonl (one line per checked proposal: shape, name, legal, jit, why, violations), or
with --rewrite, rewrites.jsonl (one line per candidate: round, verdict, reasons, its files)."""

import argparse
import json
import os
import shutil
import subprocess
import sys

from .llm.client import KEY_ENV, Budget, ChatClient, Transcript
from .llm.proposals import (Problem, default_databases, load_records, load_vocabulary,
                            read_hardware_facts)
from .llm.rewrites import family_text
from .llm.session import propose_for_problem, rewrite_for_problems


def _shapes(args):
    shapes = []
    if args.shape:
        for item in args.shape.split(","):
            parts = item.split("x")
            if len(parts) != 3 or not all(p.isdigit() and int(p) > 0 for p in parts):
                raise SystemExit(f"propose: --shape expects MxNxK with positive integers, "
                                 f"got {item!r}")
            shapes.append(tuple(int(p) for p in parts))
    else:
        try:
            with open(args.suite, encoding="utf-8") as f:
                lines = f.readlines()
        except OSError as e:
            raise SystemExit(f"propose: cannot read --suite {args.suite!r}: {e.strerror}")
        for number, line in enumerate(lines, 1):
            words = line.split("#", 1)[0].split()
            if not words:
                continue
            if len(words) != 3 or not all(w.isdigit() and int(w) > 0 for w in words):
                raise SystemExit(f"propose: {args.suite}:{number}: expected 'M N K', got "
                                 f"{line.strip()!r}")
            shapes.append(tuple(int(w) for w in words))
    if not shapes:
        raise SystemExit("propose: no shapes")
    return shapes


def _parser():
    p = argparse.ArgumentParser(prog="python -m hgemm.propose", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--suite", help='a file of "M N K" lines')
    src.add_argument("--shape", help="MxNxK[,MxNxK...]")
    p.add_argument("--layout", choices=("tn", "nn"), default="tn")
    p.add_argument("--acc", choices=("f32", "f16"), default="f32")
    p.add_argument("--llm-url", help="OpenAI-compatible endpoint, e.g. https://host/v1 "
                   f"(the key comes from ${KEY_ENV})")
    p.add_argument("--llm-model", help="the model name the endpoint expects")
    p.add_argument("--budget-requests", type=int, default=20,
                   help="HTTP requests this run may send, retries included (default 20)")
    p.add_argument("--budget-tokens", type=int, default=200_000,
                   help="tokens this run may spend (default 200000)")
    p.add_argument("--prompt-tokens", type=int,
                   help="the most tokens (chars/4) one prompt may take (default 6000, with "
                        "--rewrite 40000: the prompt holds the whole kernel header)")
    p.add_argument("--rounds", type=int, default=2, help="requests per shape at most (default 2)")
    p.add_argument("--configs", type=int, default=4, help="configs asked for per shape (default 4)")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds per request (default 60)")
    p.add_argument("--max-retries", type=int, default=3,
                   help="retries after 429, 5xx or a time-out (default 3)")
    p.add_argument("--db", action="append",
                   help="tuning database(s) for similar shapes and failures (default: "
                        "data/tuned/*-<acc>.jsonl.gz of the source tree)")
    p.add_argument("--out", default="llm-proposals", help="folder for transcript.jsonl and "
                   "candidates.jsonl (default ./llm-proposals)")
    p.add_argument("--dry-run", action="store_true",
                   help="stop after writing the candidates: no tuning, no GPU")
    r = p.add_argument_group("source rewrites")
    r.add_argument("--rewrite", action="store_true",
                   help="ask for rewrites of kernels/sm90/sm90_ws.cuh instead of configs")
    r.add_argument("--rewrite-config",
                   help="the config a rewrite is instantiated as (default "
                        "sm90_ws_128x256x64_s4_c2x1_w2_m8_tma_sk1_<acc>_<layout>)")
    r.add_argument("--variants", default="variants",
                   help="where accepted rewrites are stored (default ./variants)")
    r.add_argument("--variant-db",
                   help="the plain .jsonl tuning database that receives a stored rewrite's "
                        "measurements with its provenance as \"variant\" lines (default "
                        "VARIANTS/variants.jsonl; dispatch never runs them)")
    r.add_argument("--min-reward", type=float, default=1.0,
                   help="the reward a rewrite must reach to be stored (default 1.0: faster than "
                        "cublaslt-best after the penalties)")
    r.add_argument("--worker-timeout", type=float, default=900.0,
                   help="seconds a candidate's verification and timing may take (default 900)")
    r.add_argument("--compile-timeout", type=float, default=300.0,
                   help="seconds a candidate's build may take (default 300)")
    r.add_argument("--memcheck", choices=("on", "auto", "off"), default="on",
                   help="verify under compute-sanitizer memcheck first (default on: a candidate "
                        "errs when it is missing; auto: only where installed)")
    p.add_argument("tune_args", nargs="*", help="after --: more `hgemm tune` options")
    return p


def _has_gpu():
    if os.environ.get("CUDA_VISIBLE_DEVICES") in ("", "-1"):
        return False
    return shutil.which("nvidia-smi") is not None


def main(argv=None):
    args = _parser().parse_args(argv)
    if not args.llm_url:
        print("propose: no LLM endpoint configured (--llm-url): nothing sent, nothing changed",
              file=sys.stderr)
        return 0
    if not args.llm_model:
        raise SystemExit("propose: --llm-url needs --llm-model")
    if args.prompt_tokens is None:
        args.prompt_tokens = 40000 if args.rewrite else 6000
    for name in ("budget_requests", "budget_tokens", "prompt_tokens", "rounds", "configs"):
        if getattr(args, name) < 1:
            raise SystemExit(f"propose: --{name.replace('_', '-')} must be >= 1")
    shapes = _shapes(args)
    from ._library import cli_path
    cli = cli_path()
    vocab = load_vocabulary(cli)
    databases = args.db or default_databases(args.acc)
    records = load_records(databases)
    hardware = read_hardware_facts()
    os.makedirs(args.out, exist_ok=True)
    transcript_path = os.path.join(args.out, "transcript.jsonl")
    key = os.environ.get(KEY_ENV)
    client = ChatClient(args.llm_url, args.llm_model, timeout=args.timeout,
                        max_retries=args.max_retries,
                        budget=Budget(args.budget_requests, args.budget_tokens),
                        transcript=Transcript(transcript_path, [key] if key else []))
    print(f"propose: {len(shapes)} shape(s), {args.layout} {args.acc}, model {args.llm_model}; "
          f"{len(records)} measurements from {len(databases)} database(s)")
    if args.rewrite:
        return _rewrite(args, shapes, cli, client, records, hardware)
    plans = []
    with open(os.path.join(args.out, "candidates.jsonl"), "w", encoding="utf-8") as out:
        for m, n, k in shapes:
            problem = Problem(m, n, k, args.layout, args.acc)
            print(f"{problem.shape} {args.layout} {args.acc}:")
            outcome = propose_for_problem(client, cli, problem, vocab, records, hardware,
                                          rounds=args.rounds, configs=args.configs,
                                          prompt_tokens=args.prompt_tokens,
                                          log=lambda s: print(s))
            for c in outcome.checked:
                out.write(json.dumps({"shape": problem.shape, "layout": args.layout,
                                      "acc": args.acc, "name": c.name, "legal": c.legal,
                                      "jit": c.jit, "why": c.proposal.why,
                                      "fields": c.proposal.fields,
                                      "violations": c.violations, "error": c.error}) + "\n")
            usable = outcome.usable
            print(f"  {len(usable)} usable of {len(outcome.checked)} checked, "
                  f"{len(outcome.rejected)} rejected")
            if outcome.stopped:
                print(f"  stopped: {outcome.stopped}")
            if usable:
                cmd = [cli, "tune", "--shape", problem.shape, "--layout", args.layout,
                       "--acc", args.acc, "--include", ",".join(c.name for c in usable)]
                jit = [c.name for c in usable if c.jit]
                if jit:
                    cmd += ["--jit", ",".join(jit)]
                cmd += args.tune_args
                plans.append(cmd)
                print("  tune: " + " ".join(cmd))
    print(f"propose: {client.budget.requests_used} request(s), about "
          f"{client.budget.tokens_used} tokens; transcript {transcript_path}")
    if args.dry_run or not plans:
        return 0
    if not _has_gpu():
        print("propose: no GPU visible: stopping after the candidates, as with --dry-run")
        return 0
    worst = 0
    for cmd in plans:
        code = subprocess.run(cmd).returncode
        if code not in (0, 3):
            worst = max(worst, code)
    return worst


def _rewrite(args, shapes, cli, client, records, hardware):
    config = args.rewrite_config or \
        f"sm90_ws_128x256x64_s4_c2x1_w2_m8_tma_sk1_{args.acc}_{args.layout}"
    problems = [Problem(m, n, k, args.layout, args.acc) for m, n, k in shapes]
    stop = None
    if args.dry_run or not _has_gpu():
        stop = "compile"
        print("propose: dry run or no GPU visible: candidates stop after the rules and the build")
    sandbox = {"timeout_s": args.worker_timeout, "compile_timeout_s": args.compile_timeout,
               "memcheck": {"auto": "auto", "on": True, "off": False}[args.memcheck],
               "stop": stop}
    outcome = rewrite_for_problems(client, cli, config, problems, family_text(cli), records,
                                   hardware, os.path.join(args.out, "rewrites"), args.variants,
                                   rounds=args.rounds, prompt_tokens=args.prompt_tokens,
                                   min_reward=args.min_reward, sandbox=sandbox,
                                   variant_db=args.variant_db, log=lambda s: print(s))
    with open(os.path.join(args.out, "rewrites.jsonl"), "w", encoding="utf-8") as out:
        for r, reason in outcome.rejected:
            out.write(json.dumps({"round": r, "verdict": "reply_rejected", "reasons": [reason]})
                      + "\n")
        for r, c in outcome.tried:
            out.write(json.dumps({"round": r, "config": config, "verdict": c.verdict,
                                  "reasons": c.reasons,
                                  "files": os.path.join(args.out, "rewrites", f"round-{r}")})
                      + "\n")
    print(f"propose: {len(outcome.tried)} rewrite(s) tried, {len(outcome.rejected)} "
          f"unreadable repl{'y' if len(outcome.rejected) == 1 else 'ies'}, "
          f"{len(outcome.stored)} stored" +
          (f" ({', '.join(outcome.stored)})" if outcome.stored else ""))
    if outcome.stopped:
        print(f"propose: stopped: {outcome.stopped}")
    print(f"propose: {client.budget.requests_used} request(s), about "
          f"{client.budget.tokens_used} tokens; transcript "
          f"{os.path.join(args.out, 'transcript.jsonl')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
