"""Every candidate source rewrite runs in worker processes (`hgemm variants try`), never in the
caller: a compiler that hangs, a kernel that never returns, a crash or a CUDA context left
unusable costs that candidate a recorded failure with its reason, and the caller goes on.

Each worker starts in a session of its own; at its wall-clock limit, or when the session's
resident memory passes its limit, every process of the session is killed with SIGKILL, compiler
children included (the JIT runs nvcc in a process group of its own, which stays in the worker's
session, so the session and not the group is what the sandbox watches and kills). The memory
limit is watched rather than set with RLIMIT_AS: the CUDA driver reserves far more address space
than it uses, so an address-space limit low enough to matter would stop every CUDA program (the
compiler alone gets RLIMIT_AS, from `hgemm variants try`).

A candidate takes up to three workers: `--compile-only` (the source rules and the build; no GPU),
then `--verify-only` under compute-sanitizer memcheck with a time limit of its own (required by
default: a missing sanitizer is an error, not a skipped check; memcheck="auto" runs it only where
it is installed, False never), then the full run (verifier, timing against cublaslt-best, the
recheck on fresh buffers). The JIT cache carries the build from one to the next. Memcheck may run
on shapes of its own (memcheck_shapes): what it is for is the kernel's code paths (residues in M,
N and K, more k-blocks than stages, more tiles than CTAs), which a small shape reaches at a
fraction of a large one's cost under the sanitizer."""

import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field

EXIT_VERDICTS = {3: "rejected_by_rules", 4: "compile_failed", 5: "verify_failed"}
MEMCHECK_EXIT = 7


@dataclass
class WorkerResult:
    argv: list
    returncode: object  # int, or None when the sandbox killed the worker
    killed: str         # why the sandbox killed it, or ""
    seconds: float
    stdout: str
    stderr: str

    @property
    def last_stage(self):
        stages = [l[7:] for l in self.stderr.splitlines() if l.startswith("stage: ")]
        return stages[-1] if stages else "start"

    def describe(self):
        if self.killed:
            return f"{self.killed} (during {self.last_stage})"
        if self.returncode is not None and self.returncode < 0:
            return (f"the worker died of signal {-self.returncode} (during {self.last_stage}): "
                    f"{_tail(self.stderr, 300)}")
        return f"exit code {self.returncode}: {_tail(self.stderr or self.stdout, 300)}"


def _tail(text, n):
    text = text.strip()
    return text if len(text) <= n else "..." + text[-n:]


def _session_stats(sid):
    """{pid: resident bytes} of every live process in session `sid` (Linux /proc)."""
    page = os.sysconf("SC_PAGE_SIZE")
    try:
        pids = [int(p) for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return {}
    out = {}
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                stat = f.read().decode("ascii", "replace")
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2:].split()
        # After the command: state, ppid, pgrp, session, ..., rss is the 22nd of these.
        # Zombies hold no memory and cannot be killed again; their parents reap them.
        if len(fields) > 21 and int(fields[3]) == sid and fields[0] not in ("Z", "X"):
            out[pid] = int(fields[21]) * page
    return out


def _session_rss_mib(sid):
    """Resident memory of every process in the session, in MiB."""
    return sum(_session_stats(sid).values()) / 2**20


def _kill_session(sid):
    """SIGKILL to every process of the session: its leader's group and any group made inside it
    (nvcc's, by the JIT), until none is left or a second has passed."""
    deadline = time.monotonic() + 1.0
    while True:
        try:
            os.killpg(sid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        pids = [p for p in _session_stats(sid) if p != os.getpid()]
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        if not pids or time.monotonic() > deadline:
            return
        time.sleep(0.01)


def run_worker(argv, *, timeout_s, memory_mib=None, env=None, cwd=None, poll_s=0.05):
    """Runs argv in a session of its own and returns a WorkerResult. Never raises for what
    the worker does; raises OSError when it cannot start at all."""
    if not (isinstance(timeout_s, (int, float)) and timeout_s > 0):
        raise ValueError(f"timeout_s must be a positive number, got {timeout_s!r}")
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.monotonic()
        proc = subprocess.Popen(argv, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                                env=env, cwd=cwd, start_new_session=True)
        killed = ""
        while True:
            try:
                proc.wait(timeout=poll_s)
                break
            except subprocess.TimeoutExpired:
                pass
            elapsed = time.monotonic() - start
            if elapsed > timeout_s:
                killed = f"killed after {timeout_s:g} s (wall-clock limit)"
            elif memory_mib and _session_rss_mib(proc.pid) > memory_mib:
                killed = f"killed above {memory_mib} MiB of resident memory"
            if killed:
                _kill_session(proc.pid)
                proc.wait()
                break
        # Whatever the worker left behind in its session goes with it.
        _kill_session(proc.pid)
        seconds = time.monotonic() - start
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode("utf-8", "replace")
        stderr = err.read().decode("utf-8", "replace")
    return WorkerResult(list(argv), None if killed else proc.returncode, killed, seconds,
                        stdout[-20000:], stderr[-20000:])


def find_sanitizer():
    found = shutil.which("compute-sanitizer")
    if found:
        return found
    for root in (os.environ.get("CUDA_HOME"), "/usr/local/cuda"):
        if root and os.access(os.path.join(root, "bin", "compute-sanitizer"), os.X_OK):
            return os.path.join(root, "bin", "compute-sanitizer")
    return None


@dataclass
class CandidateOutcome:
    """What became of one candidate. verdict: accepted, compiled (stopped after the build),
    verified (stopped after the verifier), rejected_by_rules, compile_failed, memcheck_failed,
    verify_failed, recheck_failed, timeout, out_of_memory, crashed or error; reasons say why;
    record is the last worker's record.json, if any."""
    verdict: str
    reasons: list = field(default_factory=list)
    record: dict = None
    workers: list = field(default_factory=list)

    @property
    def accepted(self):
        return self.verdict == "accepted"

    def summary(self):
        if self.accepted and self.record:
            return (f"accepted: {self.record.get('mean_speedup', 0):.4f}x mean speedup, reward "
                    f"{self.record.get('reward', 0):.4f}")
        if not self.reasons:
            return self.verdict
        return f"{self.verdict}: " + "; ".join(self.reasons)[:600]


def _read_record(out_dir):
    try:
        with open(os.path.join(out_dir, "record.json"), encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def _failure(worker, record, stage):
    """The CandidateOutcome for a worker that did not succeed, or None when it did."""
    if worker.killed:
        verdict = "timeout" if "wall-clock" in worker.killed else "out_of_memory"
        return CandidateOutcome(verdict, [f"{stage}: {worker.describe()}"], record)
    rc = worker.returncode
    if rc == 0:
        return None
    if rc < 0:
        return CandidateOutcome("crashed", [f"{stage}: {worker.describe()}"], record)
    if rc == MEMCHECK_EXIT and stage == "memcheck":
        return CandidateOutcome("memcheck_failed",
                                [f"memcheck: {_tail(worker.stdout, 1200)}"], record)
    if record and record.get("verdict") not in (None, "accepted", "compiled", "verified"):
        # The first worker's verdicts (the rules', the build's) need no stage to be read right.
        prefix = "" if stage == "compile" else f"{stage}: "
        return CandidateOutcome(record["verdict"], [prefix + r for r in
                                                    record.get("reasons", [])], record)
    return CandidateOutcome(EXIT_VERDICTS.get(rc, "error"), [f"{stage}: {worker.describe()}"],
                            record)


def try_candidate(source, config, shapes, workdir, *, cli, timeout_s=900.0,
                  compile_timeout_s=300.0, memory_mib=16384, memcheck=True,
                  memcheck_timeout_s=1800.0, memcheck_shapes=None, stop=None, source_rules=True,
                  cache_dir=None, recheck_seed=None, env=None):
    """Runs one rewrite (`source`, the whole text of kernels/sm90/sm90_ws.cuh) instantiated as
    `config` on `shapes` ("MxNxK" strings) through the workers, with files under `workdir`.
    memcheck: True (the default; an error when compute-sanitizer is missing), "auto" (only when
    it is found) or False; memcheck_shapes: what the memcheck worker verifies on (default:
    `shapes`). stop: None, "compile" or "verify". source_rules=False is for tests of the run-time
    defences only. Returns a CandidateOutcome; never raises for what the candidate does."""
    if stop not in (None, "compile", "verify"):
        raise ValueError(f"stop must be None, 'compile' or 'verify', got {stop!r}")
    os.makedirs(workdir, exist_ok=True)
    source_path = os.path.join(workdir, "source.cuh")
    with open(source_path, "w", encoding="utf-8") as f:
        f.write(source)
    base = [cli, "variants", "try", "--source", source_path, "--config", config,
            "--compile-timeout-s", f"{compile_timeout_s:g}"]
    if cache_dir:
        base += ["--cache", cache_dir]
    if not source_rules:
        base.append("--no-source-rules")
    if recheck_seed is not None:
        base += ["--recheck-seed", str(recheck_seed)]

    def shape_args(stage_shapes):
        return ["--shape", ",".join(stage_shapes)] if stage_shapes else []

    workers = []

    def run(stage, argv, limit):
        out_dir = os.path.join(workdir, stage)
        shutil.rmtree(out_dir, ignore_errors=True)
        w = run_worker(argv + ["--out", out_dir], timeout_s=limit, memory_mib=memory_mib,
                       env=env)
        workers.append((stage, w))
        record = _read_record(out_dir)
        outcome = _failure(w, record, stage)
        if outcome:
            outcome.workers = workers
        return outcome, record

    outcome, record = run("compile", base + shape_args(shapes) + ["--compile-only"],
                          compile_timeout_s + 60)
    if outcome or stop == "compile":
        return outcome or CandidateOutcome("compiled", [], record, workers)

    sanitizer = find_sanitizer() if memcheck else None
    if memcheck is True and not sanitizer:
        return CandidateOutcome("error", ["memcheck was asked for but compute-sanitizer is not "
                                          "on PATH nor in $CUDA_HOME/bin"], record, workers)
    if sanitizer:
        outcome, record = run("memcheck", [sanitizer, "--tool", "memcheck", "--error-exitcode",
                                           str(MEMCHECK_EXIT)] + base +
                              shape_args(memcheck_shapes or shapes) + ["--verify-only"],
                              memcheck_timeout_s)
        if outcome:
            return outcome
    if stop == "verify":
        outcome, record = run("verify", base + shape_args(shapes) + ["--verify-only"], timeout_s)
        return outcome or CandidateOutcome("verified", [], record, workers)
    outcome, record = run("full", base + shape_args(shapes), timeout_s)
    if outcome:
        return outcome
    if not record or record.get("verdict") != "accepted":
        return CandidateOutcome("error", ["the worker exited 0 without an accepted record"],
                                record, workers)
    return CandidateOutcome("accepted", [], record, workers)
