"""Configuration proposals from a language model: the prompt (the problem, the search space's
vocabulary, the best measured configs of similar shapes, the failures so far, hardware facts),
the strict parse of the reply, and the legality check, which is the library's own
(`hgemm space check`), not a copy of its rules."""

import glob
import gzip
import json
import math
import os
import re
import subprocess
from dataclasses import dataclass, field

from .client import estimate_tokens

HARDWARE_FACTS = os.path.join(os.path.dirname(__file__), "hardware-h100.md")
FAILED_DISPOSITIONS = ("incorrect", "launch_failed", "not_supported")


class ProposalError(ValueError):
    """A reply that does not match the proposal schema as a whole (not JSON, wrong envelope)."""


@dataclass(frozen=True)
class Problem:
    m: int
    n: int
    k: int
    layout: str = "tn"
    acc: str = "f32"

    def __post_init__(self):
        for name in ("m", "n", "k"):
            v = getattr(self, name)
            if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
                raise ValueError(f"{name.upper()} must be a positive int, got {v!r}")
        if self.layout not in ("tn", "nn"):
            raise ValueError(f"layout must be 'tn' or 'nn', got {self.layout!r}")
        if self.acc not in ("f32", "f16"):
            raise ValueError(f"acc must be 'f32' or 'f16', got {self.acc!r}")

    @property
    def shape(self):
        return f"{self.m}x{self.n}x{self.k}"


@dataclass
class Proposal:
    fields: dict
    why: str = ""


@dataclass
class Checked:
    """One proposal after `hgemm space check`: its config name, whether it runs as compiled
    (legal) or after a JIT build (jit), and the rules it breaks otherwise."""
    proposal: Proposal
    name: str = ""
    legal: bool = False
    jit: bool = False
    violations: list = field(default_factory=list)
    error: str = ""

    @property
    def usable(self):
        return self.legal or self.jit

    def reason(self):
        if self.error:
            return self.error
        return "; ".join(f"{v['rule']}: {v['message']}" for v in self.violations)


def _run_cli(cli, args, stdin=None):
    try:
        result = subprocess.run([cli] + args, input=stdin, capture_output=True, text=True,
                                timeout=120)
    except FileNotFoundError:
        raise RuntimeError(f"no hgemm command at {cli!r} (set HGEMM_CLI)") from None
    if result.returncode != 0:
        raise RuntimeError(f"{cli} {' '.join(args)} failed (exit code {result.returncode}): "
                           f"{result.stderr.strip()[-500:]}")
    return result.stdout


def load_vocabulary(cli):
    """{family: {"axes": {axis: [values]}, "runtime": [axis, ...]}} from `hgemm space axes`."""
    vocab = {}
    for line in _run_cli(cli, ["space", "axes"]).splitlines():
        if line.strip():
            d = json.loads(line)
            vocab[d["family"]] = {"axes": d["axes"], "runtime": d["runtime"]}
    if not vocab:
        raise RuntimeError("hgemm space axes printed no families")
    return vocab


def _no_duplicate_keys(pairs):
    keys = [k for k, _ in pairs]
    dup = sorted({k for k in keys if keys.count(k) > 1})
    if dup:
        raise ProposalError(f"duplicate key(s) {', '.join(dup)}")
    return dict(pairs)


_FENCE = re.compile(r"^```(?:json)?\s*\n(.*)\n```$", re.S)


def parse_proposals(text, vocab, max_configs=8):
    """(proposals, rejections) from a reply's text. The reply must be one JSON object
    {"configs": [...]} (one ```json fence around it is tolerated: models add it unasked); a
    reply that is not raises ProposalError. Each config is an object with "family", every
    non-runtime axis of that family, optionally runtime axes and "why" (a string); a config with
    an unknown key, a missing axis, a value of the wrong type or one outside its axis's values is
    rejected with the reason, and the others are kept."""
    if not isinstance(text, str):
        raise ProposalError("the reply is not text")
    body = text.strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1).strip()
    try:
        doc = json.loads(body, object_pairs_hook=_no_duplicate_keys)
    except json.JSONDecodeError as e:
        raise ProposalError(f"the reply is not valid JSON ({e.msg} at line {e.lineno} column "
                            f"{e.colno})") from None
    if not isinstance(doc, dict) or set(doc) != {"configs"}:
        raise ProposalError('the reply must be an object with the single key "configs"')
    configs = doc["configs"]
    if not isinstance(configs, list) or not configs:
        raise ProposalError('"configs" must be a non-empty list')
    if len(configs) > max_configs:
        raise ProposalError(f'"configs" holds {len(configs)} entries, at most {max_configs} '
                            "were asked for")
    proposals, rejections = [], []
    for i, item in enumerate(configs):
        try:
            proposals.append(_parse_one(item, vocab))
        except ProposalError as e:
            rejections.append((i, str(e)))
    return proposals, rejections


def _parse_one(item, vocab):
    if not isinstance(item, dict):
        raise ProposalError("a config must be a JSON object")
    family = item.get("family")
    if not isinstance(family, str) or family not in vocab:
        raise ProposalError(f"family must be one of {', '.join(sorted(vocab))}, got {family!r}")
    axes = vocab[family]["axes"]
    fields = {"family": family}
    why = item.get("why", "")
    if not isinstance(why, str) or len(why) > 500:
        raise ProposalError('"why" must be a string of at most 500 characters')
    for key, value in item.items():
        if key in ("family", "why"):
            continue
        if key not in axes:
            raise ProposalError(f"unknown key {key!r} for family {family}")
        allowed = axes[key]
        if isinstance(allowed[0], str):
            ok_type = isinstance(value, str)
        else:
            ok_type = isinstance(value, int) and not isinstance(value, bool)
        if not ok_type:
            kind = "a string" if isinstance(allowed[0], str) else "an integer"
            raise ProposalError(f"{key} must be {kind}, got {value!r}")
        if value not in allowed:
            raise ProposalError(f"{key} = {value!r} is out of range (one of {allowed})")
        fields[key] = value
    missing = [a for a in axes if a not in fields and a not in vocab[family]["runtime"]]
    if missing:
        raise ProposalError(f"missing {', '.join(missing)} for family {family}")
    return Proposal(fields, why)


def check_legality(cli, problem, proposals):
    """Each proposal through `hgemm space check` for `problem`: a Checked per proposal."""
    if not proposals:
        return []
    lines = "".join(json.dumps(p.fields) + "\n" for p in proposals)
    out = _run_cli(cli, ["space", "check", "--shape", problem.shape, "--layout", problem.layout,
                         "--acc", problem.acc], stdin=lines)
    results = [json.loads(line) for line in out.splitlines() if line.strip()]
    if len(results) != len(proposals):
        raise RuntimeError(f"hgemm space check answered {len(results)} of {len(proposals)} "
                           "configs")
    return [Checked(p, name=r.get("name", ""), legal=bool(r.get("legal")),
                    jit=bool(r.get("jit")), violations=r.get("violations", []),
                    error=r.get("error", ""))
            for p, r in zip(proposals, results)]


def default_databases(acc):
    """The tuner's shipped databases for `acc` in the source tree ($HGEMM_SOURCE_DIR, else the
    working directory), if there is one."""
    roots = [os.environ.get("HGEMM_SOURCE_DIR"), os.getcwd()]
    for root in roots:
        if root:
            found = sorted(glob.glob(os.path.join(root, "data", "tuned", f"*-{acc}.jsonl*")))
            if found:
                return found
    return []


def load_records(paths):
    """The measurement records of tuning databases (JSON Lines, optionally gzipped; schema in
    docs/tuner.md). Unreadable lines are skipped, as the tuner does."""
    records = []
    for path in paths:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8") as f:
            for line in f:
                try:
                    r = json.loads(line)
                except ValueError:
                    continue
                if isinstance(r, dict) and r.get("type") == "measurement":
                    records.append(r)
    return records


def log_distance(problem, r):
    """How far the measured shape `r` (a dict with m, n and k) lies from `problem`: the sum over
    M, N and K of |log(ratio)|, so that halving and doubling a size weigh the same."""
    return sum(abs(math.log(max(r[d], 1) / v)) for d, v in
               (("m", problem.m), ("n", problem.n), ("k", problem.k)))


def similar_best(records, problem, limit=8):
    """[(shape, config, speedup over cublaslt-best)] of the measured shapes nearest `problem`
    (log-distance over M, N, K) with its layout and accumulation: each shape's fastest passing
    config."""
    best = {}
    for r in records:
        if (r.get("layout"), r.get("acc")) != (problem.layout, problem.acc):
            continue
        if r.get("disposition") != "passed" or not isinstance(r.get("speedup"), (int, float)):
            continue
        key = (r["m"], r["n"], r["k"])
        if key not in best or r["speedup"] > best[key]["speedup"]:
            best[key] = r
    ranked = sorted(best.values(), key=lambda r: (log_distance(problem, r), -r["speedup"]))
    return [(f"{r['m']}x{r['n']}x{r['k']}", r["config"], r["speedup"]) for r in ranked[:limit]]


def database_failures(records, problem, limit=8):
    """[(shape, config, disposition, detail)] of failed measurements nearest `problem`."""
    failed = [r for r in records
              if (r.get("layout"), r.get("acc")) == (problem.layout, problem.acc)
              and r.get("disposition") in FAILED_DISPOSITIONS]
    failed.sort(key=lambda r: log_distance(problem, r))
    return [(f"{r['m']}x{r['n']}x{r['k']}", r["config"], r["disposition"],
             str(r.get("detail", ""))[:160]) for r in failed[:limit]]


SYSTEM_PROMPT = (
    "You propose kernel configurations for hgemm, a half-precision GEMM library for NVIDIA "
    "GPUs. Every proposal is measured against cuBLASLt and verified; illegal ones are rejected "
    "by the library's rules. Answer with exactly one JSON object and nothing else: "
    '{"configs": [{"family": ..., <every axis of that family>: <one of its values>, '
    '"why": "<one sentence>"}]}. Runtime axes may be left out.')

NAME_LEGEND = (
    "Config names read: sm90_ws (cooperative) / sm90_pp (ping_pong) _<block_m>x<block_n>x"
    "<block_k>_s<num_stages>_c<cluster_m>x<cluster_n>_w<num_consumer_wgs>_<raster m|n>"
    "<group_size>_<epilogue st=direct|tma=tma_store>_sk<split_k>_<acc>_<layout>[_swap: "
    "swap_ab 1, C^T = B^T A^T with M on wgmma's N, block_m any multiple of 16, block_n 64, 128 "
    "or 256]; "
    "sm80_mma_<tile>_s<stages>_w<warps_m>x<warps_n>_sk<split_k>; "
    "decode_n<block_n>_k<block_k>_s<stages>_w<num_warps>.")


def problem_features(problem):
    """One line: the problem's sizes, layout, accumulation and arithmetic intensity."""
    intensity = 2.0 * problem.m * problem.n * problem.k / (
        2.0 * (problem.m * problem.k + problem.k * problem.n + problem.m * problem.n))
    storage = "B stored N x K" if problem.layout == "tn" else "B stored K x N"
    acc = "FP32" if problem.acc == "f32" else "FP16"
    return (f"C[M,N] = A[M,K] * B, M={problem.m} N={problem.n} K={problem.k}, layout "
            f"{problem.layout} ({storage}), FP16 inputs, {acc} accumulation; "
            f"arithmetic intensity {intensity:.0f} FLOP/byte.")


@dataclass(frozen=True)
class Blocks:
    """An optional section whose blocks of lines (a diff's hunks) go in whole or not at all, in
    order, between `head` and `tail`: where one does not fit, `cut` follows the tail to say so,
    and its room is held back while blocks remain, so that a cut is never silent. The section is
    left out whole when not even its first block fits."""
    head: tuple
    blocks: tuple
    tail: tuple = ()
    cut: str = "(truncated)"


def _fit_lines(section, fits):
    lines = []
    for line in section:
        if not fits(lines + [line]):
            break
        lines.append(line)
    return lines if len(lines) > 1 or (lines and len(section) == 1) else []


def _fit_blocks(section, fits):
    kept = list(section.head)
    for i, block in enumerate(section.blocks):
        ending = list(section.tail) + ([section.cut] if i + 1 < len(section.blocks) else [])
        if not fits(kept + list(block) + ending):
            return (kept + list(section.tail) + [section.cut]) if i else []
        kept += block
    return (kept + list(section.tail)) if section.blocks else []


def fit_sections(system, fixed, optional, token_budget):
    """The chat messages: `system`, then a user message of the `fixed` lines (which must fit
    `token_budget`, else ValueError) followed by as much of each `optional` section as still
    fits, in order. A section is a list of lines, its heading first, dropped whole when not even
    its heading and first line fit, or a Blocks."""
    system_tokens = estimate_tokens(system)
    text = "\n".join(fixed)
    if system_tokens + estimate_tokens(text) > token_budget:
        raise ValueError(f"the prompt's fixed part needs about "
                         f"{system_tokens + estimate_tokens(text)} tokens, over the budget of "
                         f"{token_budget}")

    def fits(lines):
        return system_tokens + estimate_tokens("\n".join([text] + lines)) <= token_budget

    for section in optional:
        fit = _fit_blocks if isinstance(section, Blocks) else _fit_lines
        text = "\n".join([text] + fit(section, fits))
    return [{"role": "system", "content": system}, {"role": "user", "content": text}]


def context_sections(hardware, similar, failures, *, similar_head, failures_head):
    """The optional sections both kinds of prompt carry, in the order fit_sections adds them while
    they fit: the hardware facts, the fastest measured configs of similar shapes ((shape, config,
    speedup) triples, under the lines `similar_head`) and the failures so far (under
    `failures_head`)."""
    sections = []
    if hardware:
        sections.append(["Hardware:", hardware.strip()])
    if similar:
        sections.append(list(similar_head) + [f"  {s}  {c}  {x:.3f}x" for s, c, x in similar])
    if failures:
        sections.append([failures_head] + [f"  {f}" for f in failures])
    return sections


def build_prompt(problem, vocab, similar, failures, hardware, *, token_budget=6000,
                 max_configs=4):
    """The chat messages for one request. The problem, the vocabulary and the answer format are
    always there; hardware facts, then similar shapes, then failures are added while the whole
    stays within `token_budget` (chars/4). Raises ValueError when even the fixed part does not
    fit."""
    fixed = [
        "Problem: " + problem_features(problem),
        "Search space (family -> axis -> allowed values; runtime axes: "
        + "; ".join(f"{f}: {', '.join(v['runtime']) or 'none'}" for f, v in vocab.items())
        + "):",
        json.dumps({f: v["axes"] for f, v in vocab.items()}, separators=(",", ":")),
        f"Propose up to {max_configs} configs likely to beat the best below for this problem.",
    ]
    optional = context_sections(
        hardware, similar, failures,
        similar_head=["Fastest measured configs of similar shapes (speedup over cuBLASLt):",
                      NAME_LEGEND],
        failures_head="Failures so far (do not repeat them):")
    return fit_sections(SYSTEM_PROMPT, fixed, optional, token_budget)


def read_hardware_facts(path=HARDWARE_FACTS):
    with open(path, encoding="utf-8") as f:
        return f.read()
