#!/bin/bash
# The tanh GELU on C's rounded pairs and the bias prefetched into L1 (working tree) against main
# c2fe8ed (ref): builds side by side; the GPU tests that touch the epilogue; fused/plain over
# issue 20's twelve shapes (bias + GELU, bias, GELU; fp16, and bf16 bias + GELU), builds
# alternated three rounds; llm-heldout plain (both layouts) and with bias + GELU (TN), alternated.
set -u
o=/tmp/o; rm -rf $o; mkdir -p $o; t0=$(date +%s)
export HGEMM_USER_TABLE=/tmp/absent-user.table
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $o/gpu.txt 2>&1
rm -rf /tmp/ref; mkdir -p /tmp/ref && tar xzf scratch/ab/ref.tar.gz -C /tmp/ref
( cmake -S /tmp/ref -B /tmp/ref/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=c2fe8ed > $o/build-ref.log 2>&1 &&
  cmake --build /tmp/ref/b -j 7 --target hgemm_cli >> $o/build-ref.log 2>&1 || echo "REF BUILD FAILED" >> $o/progress ) &
cmake -S . -B b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=ON -DHGEMM_GIT_HASH=c2fe8ed+epilogue > $o/build.log 2>&1 &&
  cmake --build b -j 11 --target hgemm_cli test_gemm_general test_sm90_family test_jit >> $o/build.log 2>&1 || { echo "BUILD FAILED" >> $o/progress; tail -30 $o/build.log; }
wait
echo "built $(( $(date +%s)-t0 )) s" >> $o/progress
go() { [ $(( $(date +%s)-t0 )) -lt ${1:-480} ] && [ -x b/hgemm ] && [ -x /tmp/ref/b/hgemm ]; }
S=bench/results/2026-11-28-h200-api-bars/epilogue-shapes.txt
ab() {  # round dtype epilogue suite layouts tag
  for side in ref new; do
    bin=b/hgemm; [ $side = ref ] && bin=/tmp/ref/b/hgemm
    impls=hgemm,hgemm-plain,cublaslt-best; [ $3 = none ] && impls=hgemm,cublaslt-best
    $bin bench --suite $4 --impl $impls --modes graph --layout $5 --acc f32 \
      --dtype $2 --epilogue $3 --out $o/$6-$side-$1-$2-$3.csv > $o/$6-$side-$1-$2-$3.log 2>&1
    echo "$6 $side $1 $2 $3 rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
  done
}
for r in 1 2 3; do
  for e in bias_gelu bias gelu; do go && ab $r f16 $e $S tn epi; done
  go && ab $r bf16 bias_gelu $S tn epi
done
for r in 1 2; do
  go && ab $r f16 none llm-heldout tn,nn heldout
  go && ab $r f16 bias_gelu llm-heldout tn heldout
done
t=$(ls b/tests/test_gemm_general 2>/dev/null || ls b/test_gemm_general); d=$(dirname $t)
go 380 && timeout 150 $d/test_gemm_general > $o/test_gemm_general.log 2>&1; echo "test_gemm_general rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
go && timeout 60 compute-sanitizer --tool memcheck --error-exitcode 1 $d/test_gemm_general --quick > $o/memcheck_gemm_general.log 2>&1; echo "memcheck_gemm_general rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
go && timeout 60 $d/test_sm90_family > $o/test_sm90_family.log 2>&1; echo "test_sm90_family rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
go && timeout 60 $d/test_jit > $o/test_jit.log 2>&1; echo "test_jit rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
for dt in f16 bf16; do
  go 520 && timeout 60 b/hgemm verify --suite llm-heldout --acc f32 --dtype $dt --epilogue bias_gelu --out $o/verify-$dt.csv > $o/verify-$dt.log 2>&1
  echo "verify $dt rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
done
gzip -9 -n $o/*.log $o/*.csv; tar czf $OUT/all.tgz -C $o .
cat $o/progress
