#!/bin/bash
# The tanh GELU in the producer's idle warps (new: the working tree with gelu-worker.patch
# applied) against main (ref): both CLIs built side by side; hgemm verify with bias + GELU over
# the twelve epilogue shapes (fp16) on new; the twelve shapes with bias + GELU, hgemm,
# hgemm-plain and cublaslt-best interleaved, ref and new alternated, two rounds; then verify in
# bf16 and over llm-heldout (TN). Needs REF=<main's short hash> and, in scratch/ (carried):
# ref.tar.gz (git archive of main without bench/results, data, docs, examples) and
# epilogue-shapes.txt (../2026-11-28-h200-api-bars/epilogue-shapes.txt). Then test_gemm_general
# and its memcheck on the new build. About 520 s with the machine's start; run the whole GPU
# suite (scripts/gpu-check OUT tests) on the tree before landing.
set -u
: "${REF:?set REF to the short hash of main}"
o=/tmp/o3; rm -rf $o; mkdir -p $o; t0=$(date +%s); unset HGEMM_JIT
el() { echo $(( $(date +%s) - t0 )); }
export HGEMM_USER_TABLE=/tmp/absent-user.table
( while true; do sleep 10; tar czf $OUT/all.tgz.tmp -C $o . 2>/dev/null && mv $OUT/all.tgz.tmp $OUT/all.tgz; done ) &
arch=$!
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
rm -rf /tmp/ref; mkdir -p /tmp/ref && tar xzf scratch/ref.tar.gz -C /tmp/ref && ln -s $PWD/data /tmp/ref/data
( cmake -S /tmp/ref -B build-ref -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=$REF > $o/build-ref.log 2>&1 &&
  cmake --build build-ref -j 8 --target hgemm_cli >> $o/build-ref.log 2>&1 || echo "REF BUILD FAILED" >> $o/progress ) &
refpid=$!
cmake -S . -B build-ab -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=ON -DHGEMM_PTXAS_VERBOSE=ON -DHGEMM_GIT_HASH=$REF+worker > $o/build.log 2>&1 &&
  cmake --build build-ab -j 8 --target hgemm_cli >> $o/build.log 2>&1 || { echo "BUILD FAILED" >> $o/progress; grep -A8 -m3 "error" $o/build.log >> $o/progress; }
echo "built new $(el) s" >> $o/progress
S=scratch/epilogue-shapes.txt
timeout 25 build-ab/hgemm verify --suite $S --acc f32 --epilogue bias_gelu --out $o/verify-f16.csv > $o/verify-f16.log 2>&1; echo "verify f16 rc=$? $(el) s" >> $o/progress
wait $refpid
echo "built ref $(el) s" >> $o/progress
for r in 1 2; do
  for side in ref new; do
    bin=build-ab/hgemm; [ $side = ref ] && bin=build-ref/hgemm
    [ $(el) -lt 250 ] && timeout 20 $bin bench --suite $S --impl hgemm,hgemm-plain,cublaslt-best --epilogue bias_gelu --modes graph --layout tn --acc f32 \
      --out $o/bg-$side-$r.csv > $o/bg-$side-$r.log 2>&1
    echo "bias_gelu $side $r rc=$? $(el) s" >> $o/progress
  done
done
[ $(el) -lt 260 ] && timeout 20 build-ab/hgemm verify --suite $S --acc f32 --dtype bf16 --epilogue bias_gelu --out $o/verify-bf16.csv > $o/verify-bf16.log 2>&1; echo "verify bf16 rc=$? $(el) s" >> $o/progress
[ $(el) -lt 265 ] && timeout 25 build-ab/hgemm verify --suite llm-heldout --layout tn --acc f32 --epilogue bias_gelu --out $o/verify-heldout.csv > $o/verify-heldout.log 2>&1; echo "verify heldout rc=$? $(el) s" >> $o/progress
# The tests that run every instance with a bias and the GELU, and the memcheck of the general test.
[ $(el) -lt 300 ] && cmake --build build-ab -j 16 --target test_gemm_general >> $o/build.log 2>&1 &&
  timeout 150 build-ab/tests/test_gemm_general > $o/test_gemm_general.log 2>&1; echo "test_gemm_general rc=$? $(el) s" >> $o/progress
[ $(el) -lt 480 ] && timeout 60 compute-sanitizer --tool memcheck --error-exitcode 1 build-ab/tests/test_gemm_general --quick > $o/memcheck_gemm_general.log 2>&1; echo "memcheck rc=$? $(el) s" >> $o/progress
grep -B1 -E "[1-9][0-9]* bytes spill stores" $o/build.log | c++filt > $o/spills-new.txt
kill $arch; gzip -9 -n $o/*.log $o/*.csv 2>/dev/null; tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz
cat $o/progress
