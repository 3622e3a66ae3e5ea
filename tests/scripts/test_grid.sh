#!/usr/bin/env bash
# scripts/grid on the CPU: bad arguments exit 2 with a message before anything runs; --dry-run
# creates the output folders, prints the bench and report commands (the short settings by
# default, the full run with FULL=1) and touches no GPU.
set -uo pipefail
repo=$1
grid=$repo/scripts/grid
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() {  # check NAME CONDITION...
  local name=$1; shift
  if "$@"; then echo "ok   $name"; else echo "FAIL $name"; fail=1; fi
}
expect_exit2() {  # expect_exit2 NEEDLE ARGS...
  local needle=$1; shift
  local out rc
  out=$("$@" 2>&1); rc=$?
  check "exit 2: $*" [ "$rc" -eq 2 ]
  check "message '$needle'" grep -q -- "$needle" <<<"$out"
}
expect_exit2 "unknown argument '--bogus'" "$grid" --bogus
expect_exit2 "--loops must be at least 5" "$grid" --loops 3 --dry-run
expect_exit2 "--loops expects a positive integer" "$grid" --loops x --dry-run
expect_exit2 "--loop-ms expects a positive number" "$grid" --loop-ms 0 --dry-run
expect_exit2 "--out needs a value" "$grid" --out
expect_exit2 "ACC must be f32 or f16" env ACC=f64 "$grid" --dry-run
expect_exit2 "FULL must be 0 or 1" env FULL=yes "$grid" --dry-run

out=$("$grid" --dry-run --no-torch --out "$tmp/a/b" --loops 7 --loop-ms 0.5 --latency-calls 12 \
      --resume 2>&1); rc=$?
check "dry run exits 0" [ "$rc" -eq 0 ]
check "creates the output folder" [ -d "$tmp/a/b" ]
check "creates the HTML folder" [ -d "$tmp/a/b/report-grid-f32" ]
check "writes no results" [ ! -e "$tmp/a/b/bench-grid-f32.csv" ]
check "builds first" grep -q -- "+ cmake --build" <<<"$out"
bench_line=$(grep -- " bench " <<<"$out")
check "bench: hgemm and cublaslt-best" grep -q -- "--impl hgemm.*cublaslt-best" <<<"$bench_line"
check "bench: graph and latency" grep -q -- "--modes graph.*latency " <<<"$bench_line"
check "bench: settings passed on" grep -q -- "--loops 7 --loop-ms 0.5 --latency-calls 12" <<<"$bench_line"
check "bench: resumes" grep -q -- "--resume" <<<"$bench_line"
check "report: html and db" grep -q -- "report .*--html $tmp/a/b/report-grid-f32 --db data/tuned/" <<<"$out"
check "prints where the report is" grep -q -- "html:     $tmp/a/b/report-grid-f32/index.html" <<<"$out"

out=$(FULL=1 ACC=f16 "$grid" --dry-run --no-build --no-torch --out "$tmp/full" 2>&1); rc=$?
check "full dry run exits 0" [ "$rc" -eq 0 ]
check "full: no build with --no-build" bash -c '! grep -q "cmake" <<<"$1"' _ "$out"
check "full: every impl, four modes" grep -q -- "--impl all --modes offline.*graph.*latency.*server --layout nn.*tn --acc f16" <<<"$out"
check "full: bench's own repetitions" bash -c '! grep -q -- "--loops" <<<"$1"' _ "$out"
check "help exits 0" bash -c '"$1" --help >/dev/null' _ "$grid"
exit $fail
