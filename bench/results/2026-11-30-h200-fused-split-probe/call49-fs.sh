#!/bin/bash
# Run 2026-11-30 at 084bf3d (branch fused-split, first version). (split-K reduced in the GEMM's own launch): memcheck of the sm90 family split
# 2 and 4 ways, dispatch verified on the split calls, then those calls timed against cublaslt-best
# (graph), one run, to set beside the same day's suite run at b699064 (not an interleaved A/B).
set -u
o=/tmp/o; rm -rf $o; mkdir -p $o; t0=$(date +%s); unset HGEMM_JIT
cmake -S . -B /tmp/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=$HASH > $o/build.log 2>&1 &&
  cmake --build /tmp/b -j 16 --target hgemm_cli >> $o/build.log 2>&1 || { echo BUILD FAILED; tail -20 $o/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader > $o/env.txt
for s in 2 4; do
  timeout 60 compute-sanitizer --tool memcheck --error-exitcode 1 /tmp/b/hgemm verify --suite bench/suites/memcheck.txt \
    --impl family:sm90 --split-k $s --quick > $o/memcheck-sk$s.log 2>&1; echo "memcheck split $s rc=$?"
done
S=300x2560x9728,20x4096x12288,12x3072x8192,96x5120x27648,40x5120x32768,256x4096x14336
timeout 60 /tmp/b/hgemm verify --suite scratch/ab/fs-shapes.txt > $o/verify.log 2>&1; echo "verify rc=$?"; tail -2 $o/verify.log
timeout 30 /tmp/b/hgemm verify --suite scratch/ab/fs-shapes.txt --acc f32 --epilogue bias_gelu > $o/verify-gelu.log 2>&1; echo "verify gelu rc=$?"; tail -2 $o/verify-gelu.log
echo "checks $(( $(date +%s) - t0 )) s"
timeout 90 /tmp/b/hgemm bench --shape $S --layout tn,nn --acc f32,f16 --modes graph --impl hgemm,cublaslt-best --out $o/split-calls.csv > $o/bench.log 2>&1; echo "bench rc=$?"
echo "done $(( $(date +%s) - t0 )) s"
rm -f $o/build.log; tar czf $OUT/all.tgz -C $o .
