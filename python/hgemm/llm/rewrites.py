"""Source rewrites from a language model: the prompt (the family header as the library embeds it,
the problems' features, the fastest measured configs of similar shapes, the failures so far,
hardware facts and the accepted rewrites of similar shapes as diffs, within a token budget), the
strict parse of the reply (one fenced block holding the whole file), and the store of accepted
rewrites under variants/NAME/ with their provenance.
The rules a rewrite must keep are the library's (`hgemm variants check`), not a copy of them."""

import datetime
import difflib
import hashlib
import json
import math
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass

from .proposals import (Blocks, ProposalError, context_sections, fit_sections, log_distance,
                        problem_features)

FAMILY_HEADER = "kernels/sm90/sm90_ws.cuh"
SOURCE_FILE = "source.cuh"
# Diffs are long, so fewer than the config prompt's eight similar shapes.
SIMILAR_REWRITES = 3
MAX_SOURCE_BYTES = 256 * 1024  # the source rules' limit (src/tuner/variants/source_rules.hpp)
NAME = re.compile(r"^[a-z][a-z0-9_]{0,63}$")

SOURCE_SYSTEM_PROMPT = (
    "You rewrite the kernel header kernels/sm90/sm90_ws.cuh of hgemm, a half-precision GEMM "
    "library for the H100 (TMA loads, WGMMA, warp-specialized persistent kernel), to make it "
    "faster: a different pipeline schedule, epilogue or tile order, for example. Answer with "
    "exactly one fenced code block (```cuda) holding the complete new file and nothing else. "
    "The library's launcher runs your file, so keep namespace hgemm::sm90, struct Params token "
    "for token, template <Sm90Variant kVariant> struct Traits, and the kernel template "
    "sm90_ws_gemm_kernel<Traits>(__grid_constant__ Params const). Rules, checked before "
    "compiling: device code only (every function __device__, __global__ or constexpr); include "
    "only the library's kernels/, ptx/, core/ and hgemm/ headers and <cstdint>, <cstddef>, "
    "<cstdio>, <climits>, <cfloat>, <cmath>, <limits>, <type_traits>, <utility>, <cuda.h>, "
    "<cuda_fp16.h>, <cuda_bf16.h>; no inline asm (use the ptx:: wrappers); no streams, "
    "launches, CUDA API calls, threads, other libraries, files, heap, atomics; no variable at "
    "namespace scope unless constexpr, no __device__, __managed__ or __constant__ globals, no "
    "static variable unless constexpr; no token pasting, no #define before an #include. Every candidate is compiled, verified "
    "(random and exact inputs, guard bands, NaN/Inf, again on fresh buffers after timing) and "
    "timed against cuBLASLt; the reward is the mean speedup minus penalties for error and for "
    "lines changed.")


def family_text(cli):
    """The header a rewrite replaces, as the library embeds it (`hgemm variants family`)."""
    try:
        result = subprocess.run([cli, "variants", "family"], capture_output=True, text=True,
                                timeout=60)
    except FileNotFoundError:
        raise RuntimeError(f"no hgemm command at {cli!r} (set HGEMM_CLI)") from None
    if result.returncode != 0 or not result.stdout:
        raise RuntimeError(f"{cli} variants family failed (exit code {result.returncode}): "
                           f"{result.stderr.strip()[-300:]}")
    return result.stdout


def build_source_prompt(family, config, problems, similar, failures, hardware, *,
                        rewrites=(), token_budget=40000):
    """The chat messages of one rewrite request. The task, the config the rewrite is instantiated
    as, the problems and the whole family file are always there (ValueError when they do not fit
    `token_budget`); hardware facts, similar shapes' best configs, the failures so far and the
    accepted `rewrites` (SimilarRewrite, nearest first) as diffs against `family` follow as far
    as they fit."""
    fixed = [f"Rewrite {FAMILY_HEADER} to run these problems faster than cuBLASLt.",
             f"It is instantiated as {config} (the config's tile, stages, cluster and epilogue "
             "become Traits<kVariant>) and measured on:"]
    fixed += [f"  {problem_features(p)}" for p in problems]
    fixed += [f"The current {FAMILY_HEADER}:", "```cuda", family.rstrip("\n"), "```"]
    optional = context_sections(
        hardware, similar, failures,
        similar_head=["Fastest measured configs of similar shapes (speedup over cuBLASLt):"],
        failures_head="Earlier candidates and why they failed (do not repeat them):")
    # Last, so that the examples never crowd out what the prompt carried before there were any.
    optional += [_rewrite_section(family, r) for r in rewrites]
    return fit_sections(SOURCE_SYSTEM_PROMPT, fixed, optional, token_budget)


@dataclass(frozen=True)
class SimilarRewrite:
    """An accepted rewrite from variants/ and its measurement nearest the problems at hand."""
    name: str
    config: str
    source: str
    problem: str         # that measurement's problem, e.g. 4096x4096x4096_tn_f32
    speedup: float       # over cuBLASLt on it
    mean_speedup: float  # over every shape the rewrite was measured on
    shapes: int
    distance: float      # log-distance to the nearest problem at hand


def _rewrite_section(family, rewrite):
    head = (f"An accepted rewrite for a similar shape, {rewrite.name}, instantiated as "
            f"{rewrite.config}: {rewrite.speedup:.3f}x cuBLASLt on {rewrite.problem}, "
            f"{rewrite.mean_speedup:.3f}x mean over the {rewrite.shapes} shape(s) it was "
            f"measured on. Its diff against the current {FAMILY_HEADER}:", "```diff")
    return Blocks(head, diff_hunks(family, rewrite.source), ("```",))


def diff_hunks(family, source):
    """The unified diff of `source` against `family` as a tuple of hunks (tuples of lines), the
    file names with the first; () when they are the same."""
    lines = list(difflib.unified_diff(family.splitlines(), source.splitlines(),
                                      f"a/{FAMILY_HEADER}", f"b/{FAMILY_HEADER}", lineterm=""))
    # Every other diff line starts with " ", "+" or "-", so "@@" starts a hunk.
    starts = [i for i, line in enumerate(lines) if line.startswith("@@")]
    bounds = [0] + starts[1:] + [len(lines)]
    return tuple(tuple(lines[a:b]) for a, b in zip(bounds, bounds[1:])) if starts else ()


def stored_rewrites(variants_dir):
    """[(name, record, source)] of the accepted rewrites of FAMILY_HEADER that store_variant left
    under `variants_dir`, by name. Anything else there (a record of a failed candidate, the
    variant database, a half-written or unreadable entry) is passed over; no directory: []."""
    try:
        names = sorted(n for n in os.listdir(variants_dir) if NAME.match(n))
    except OSError:
        return []
    found = []
    for name in names:
        try:
            with open(os.path.join(variants_dir, name, "record.json"), encoding="utf-8") as f:
                record = json.load(f)
            with open(os.path.join(variants_dir, name, SOURCE_FILE), encoding="utf-8") as f:
                source = f.read()
        except (OSError, ValueError):
            continue
        if _is_example(record):
            found.append((name, record, source))
    return found


def _is_example(record):
    return (isinstance(record, dict) and record.get("verdict") == "accepted"
            and _passed_rules(record) and _finite(record.get("mean_speedup"))
            and record.get("family_path", FAMILY_HEADER) == FAMILY_HEADER)


def _passed_rules(record):
    rules = record.get("rules")
    return isinstance(rules, dict) and rules.get("checked") is True and rules.get("passed") is True


def _finite(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def similar_rewrites(stored, problems, limit=SIMILAR_REWRITES):
    """The SimilarRewrite of each of `stored` (stored_rewrites) with a passing measurement of
    `problems`' layout and accumulation (where its record names them), nearest first by the
    config prompt's log-distance over M, N and K, the faster first at equal distance."""
    found = []
    for name, record, source in stored:
        shapes = record.get("shapes")
        shapes = shapes if isinstance(shapes, list) else []
        nearest = min((match for entry in shapes for match in _matches(entry, problems)),
                      default=None)
        if nearest is not None:
            distance, minus_speedup, problem = nearest
            found.append(SimilarRewrite(name, str(record.get("config", "")), source, problem,
                                        -minus_speedup, record["mean_speedup"], len(shapes),
                                        distance))
    found.sort(key=lambda r: (r.distance, -r.speedup, r.name))
    return found[:limit]


# A record's problem names its layout and accumulation; its bare shape, where that is all it has,
# does not. Any other problem (bf16) is not one a prompt's Problem can be.
_MEASURED = re.compile(r"^(\d+)x(\d+)x(\d+)(?:_(nn|tn)_(f32|f16))?$")


def _matches(entry, problems):
    """(distance, -speedup, problem name) of a record's shape entry for each of `problems` it may
    stand for: a passing measurement with a speedup, of the same layout and accumulation."""
    if not (isinstance(entry, dict) and entry.get("disposition") == "passed"
            and _finite(entry.get("speedup"))):
        return []
    label = str(entry.get("problem") or entry.get("shape") or "")
    found = _MEASURED.match(label)
    if not found:
        return []
    m, n, k, layout, acc = found.groups()
    sizes = {"m": int(m), "n": int(n), "k": int(k)}
    return [(log_distance(p, sizes), -entry["speedup"], label) for p in problems
            if layout in (None, p.layout) and acc in (None, p.acc)]


_FENCE = re.compile(r"```([A-Za-z0-9_+.-]*)[ \t]*\r?\n(.*?)\r?\n[ \t]*```", re.S)
_LANGUAGES = ("", "cuda", "cu", "cuh", "cpp", "c++", "cxx", "c", "hpp")


def parse_source_reply(text):
    """The source in a reply, which must hold exactly one fenced code block (the whole file; text
    around it is allowed). Raises ProposalError naming what is wrong."""
    if not isinstance(text, str):
        raise ProposalError("the reply is not text")
    blocks = _FENCE.findall(text)
    if len(blocks) != 1:
        raise ProposalError(f"the reply must hold exactly one fenced code block with the whole "
                            f"file; it holds {len(blocks)}")
    language, body = blocks[0]
    if language.lower() not in _LANGUAGES:
        raise ProposalError(f"the code block is marked {language!r}, not CUDA or C++")
    if not body.strip():
        raise ProposalError("the code block is empty")
    if len(body.encode("utf-8")) > MAX_SOURCE_BYTES:
        raise ProposalError(f"the source has {len(body.encode('utf-8'))} bytes, at most "
                            f"{MAX_SOURCE_BYTES} are accepted")
    return body if body.endswith("\n") else body + "\n"


def prompt_sha256(messages):
    """The hash a variant's provenance names its prompt by."""
    canonical = json.dumps(messages, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def variant_name(record):
    return "rw_" + record["source_hash"][:12]


_PROBLEM = re.compile(r"^(\d+)x(\d+)x(\d+)_(nn|tn)_(f32|f16)$")


def variant_db_lines(name, record, *, model, prompt_hash):
    """The tuning database's "variant" lines for a stored rewrite: one per problem it was timed
    on, with its time, cuBLASLt's and the provenance (model, prompt and source hashes). The
    database keeps them as written and never dispatches them (docs/tuner.md)."""
    lines = []
    for shape in record.get("shapes", []):
        found = _PROBLEM.match(shape.get("problem", ""))
        if not found or shape.get("disposition") != "passed":
            continue
        m, n, k, layout, acc = found.groups()
        lines.append(json.dumps({
            "type": "variant", "name": name, "config": record["config"],
            "m": int(m), "n": int(n), "k": int(k), "layout": layout, "acc": acc,
            "median_us": shape["median_us"], "reference_us": shape["reference_us"],
            "speedup": shape["speedup"], "reward": record["reward"], "model": model,
            "prompt_sha256": prompt_hash, "source_sha256": record["source_hash"],
            "record": os.path.join(name, "record.json"),
            "timestamp": datetime.datetime.now(datetime.timezone.utc)
            .strftime("%Y-%m-%dT%H:%M:%SZ")}, separators=(",", ":")))
    return lines


def append_variant_lines(db_path, lines):
    """Appends `lines` to the plain JSON Lines database `db_path` (created if missing), after a
    newline if its last line lacks one; a gzip-compressed shipped database is refused."""
    if db_path.endswith(".gz"):
        raise ValueError(f"{db_path} is gzip-compressed (a shipped database); variant lines go to "
                         "a plain .jsonl database")
    needs_newline = False
    if os.path.exists(db_path) and os.path.getsize(db_path) > 0:
        with open(db_path, "rb") as f:
            f.seek(-1, os.SEEK_END)
            needs_newline = f.read(1) != b"\n"
    with open(db_path, "a", encoding="utf-8") as f:
        f.write(("\n" if needs_newline else "") + "".join(line + "\n" for line in lines))
        f.flush()
        os.fsync(f.fileno())


def store_variant(variants_dir, source, record, *, model, prompt_hash, name=None):
    """Stores an accepted rewrite that passed the source rules as variants_dir/NAME/source.cuh and
    record.json: the worker's record (verdict, per-shape times, speedups and verifier reports, the
    source rules' verdict, the reward, the build's git hash) with the model, the prompt's hash and
    the time added. Returns the directory. The same source stored twice is one variant."""
    if not isinstance(record, dict) or record.get("verdict") != "accepted":
        raise ValueError("only an accepted rewrite is stored (its record's verdict is "
                         f"{record.get('verdict') if isinstance(record, dict) else None!r})")
    if not _passed_rules(record):
        raise ValueError("only a rewrite that passed the source rules is stored (a record made "
                         "with --no-source-rules, for the tests of the run-time defences, is not)")
    name = name or variant_name(record)
    if not NAME.match(name):
        raise ValueError(f"{name!r} is not a variant name (lower-case letters, digits and _, "
                         "starting with a letter, at most 64)")
    path = os.path.join(variants_dir, name)
    if os.path.isdir(path):
        with open(os.path.join(path, SOURCE_FILE), encoding="utf-8") as f:
            if f.read() == source:
                return path
        raise FileExistsError(f"{path} holds another source")
    os.makedirs(variants_dir, exist_ok=True)
    full = dict(record)
    full.update({"name": name, "model": model, "prompt_sha256": prompt_hash,
                 "source_file": SOURCE_FILE,
                 "created": datetime.datetime.now(datetime.timezone.utc)
                 .strftime("%Y-%m-%dT%H:%M:%SZ")})
    tmp = tempfile.mkdtemp(prefix=f".{name}-", dir=variants_dir)
    try:
        with open(os.path.join(tmp, SOURCE_FILE), "w", encoding="utf-8") as f:
            f.write(source)
        with open(os.path.join(tmp, "record.json"), "w", encoding="utf-8") as f:
            json.dump(full, f, indent=1)
            f.write("\n")
        os.rename(tmp, path)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return path
