"""Source rewrites from a language model: the prompt (the family header as the library embeds it,
the problems' features, the fastest measured configs of similar shapes, the failures so far and
hardware facts, within a token budget), the strict parse of the reply (one fenced block holding
the whole file), and the store of accepted rewrites under variants/NAME/ with their provenance.
The rules a rewrite must keep are the library's (`hgemm variants check`), not a copy of them."""

import datetime
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile

from .proposals import ProposalError, context_sections, fit_sections, problem_features

FAMILY_HEADER = "kernels/sm90/sm90_ws.cuh"
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
                        token_budget=40000):
    """The chat messages of one rewrite request. The task, the config the rewrite is instantiated
    as, the problems and the whole family file are always there (ValueError when they do not fit
    `token_budget`); hardware facts, similar shapes' best configs and the failures so far follow
    as far as they fit."""
    fixed = [f"Rewrite {FAMILY_HEADER} to run these problems faster than cuBLASLt.",
             f"It is instantiated as {config} (the config's tile, stages, cluster and epilogue "
             "become Traits<kVariant>) and measured on:"]
    fixed += [f"  {problem_features(p)}" for p in problems]
    fixed += [f"The current {FAMILY_HEADER}:", "```cuda", family.rstrip("\n"), "```"]
    optional = context_sections(
        hardware, similar, failures,
        similar_head=["Fastest measured configs of similar shapes (speedup over cuBLASLt):"],
        failures_head="Earlier candidates and why they failed (do not repeat them):")
    return fit_sections(SOURCE_SYSTEM_PROMPT, fixed, optional, token_budget)


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
    rules = record.get("rules")
    if not (isinstance(rules, dict) and rules.get("checked") is True
            and rules.get("passed") is True):
        raise ValueError("only a rewrite that passed the source rules is stored (a record made "
                         "with --no-source-rules, for the tests of the run-time defences, is not)")
    name = name or variant_name(record)
    if not NAME.match(name):
        raise ValueError(f"{name!r} is not a variant name (lower-case letters, digits and _, "
                         "starting with a letter, at most 64)")
    path = os.path.join(variants_dir, name)
    if os.path.isdir(path):
        with open(os.path.join(path, "source.cuh"), encoding="utf-8") as f:
            if f.read() == source:
                return path
        raise FileExistsError(f"{path} holds another source")
    os.makedirs(variants_dir, exist_ok=True)
    full = dict(record)
    full.update({"name": name, "model": model, "prompt_sha256": prompt_hash,
                 "source_file": "source.cuh",
                 "created": datetime.datetime.now(datetime.timezone.utc)
                 .strftime("%Y-%m-%dT%H:%M:%SZ")})
    tmp = tempfile.mkdtemp(prefix=f".{name}-", dir=variants_dir)
    try:
        with open(os.path.join(tmp, "source.cuh"), "w", encoding="utf-8") as f:
            f.write(source)
        with open(os.path.join(tmp, "record.json"), "w", encoding="utf-8") as f:
            json.dump(full, f, indent=1)
            f.write("\n")
        os.rename(tmp, path)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return path
