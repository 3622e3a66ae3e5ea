#!/bin/bash
# The tanh GELU on C's rounded pairs (working tree) against main c2fe8ed (ref): builds side by
# side; test_gemm_general (+ its memcheck, --quick), test_sm90_family; verify with bias + GELU;
# MUFU.TANH counts in both builds' SASS; fused/plain over issue 20's twelve shapes, builds
# alternated, fp16 twice then bf16 once.
set -u
o=/tmp/o; rm -rf $o; mkdir -p $o; t0=$(date +%s)
export HGEMM_USER_TABLE=/tmp/absent-user.table
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $o/gpu.txt 2>&1
rm -rf /tmp/ref; mkdir -p /tmp/ref && tar xzf scratch/ab/ref.tar.gz -C /tmp/ref
( cmake -S /tmp/ref -B /tmp/ref/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=c2fe8ed > $o/build-ref.log 2>&1 &&
  cmake --build /tmp/ref/b -j 8 --target hgemm_cli >> $o/build-ref.log 2>&1 || echo "REF BUILD FAILED" >> $o/progress ) &
cmake -S . -B b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=ON -DHGEMM_GIT_HASH=c2fe8ed+gelu-pairs > $o/build.log 2>&1 &&
  cmake --build b -j 10 --target hgemm_cli test_gemm_general test_sm90_family test_jit >> $o/build.log 2>&1 || { echo "BUILD FAILED" >> $o/progress; tail -30 $o/build.log; }
wait
echo "built $(( $(date +%s)-t0 )) s" >> $o/progress
# Steps start only while there is time to archive after them (the call's limit is 600 s).
go() { [ $(( $(date +%s)-t0 )) -lt ${1:-480} ] && [ -x b/hgemm ] && [ -x /tmp/ref/b/hgemm ]; }
S=bench/results/2026-11-28-h200-api-bars/epilogue-shapes.txt
ab() {  # round dtype
  for side in ref new; do
    bin=b/hgemm; [ $side = ref ] && bin=/tmp/ref/b/hgemm
    $bin bench --suite $S --impl hgemm,hgemm-plain,cublaslt-best --modes graph --layout tn --acc f32 \
      --dtype $2 --epilogue bias_gelu --out $o/epi-$side-$1-$2.csv > $o/epi-$side-$1-$2.log 2>&1
    echo "$side $1 $2 rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
  done
}
go && ab 1 f16
go 380 && timeout 150 b/test_gemm_general > $o/test_gemm_general.log 2>&1; echo "test_gemm_general rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
go && timeout 60 compute-sanitizer --tool memcheck --error-exitcode 1 b/test_gemm_general --quick > $o/memcheck_gemm_general.log 2>&1; echo "memcheck_gemm_general rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
go && timeout 60 b/test_sm90_family > $o/test_sm90_family.log 2>&1; echo "test_sm90_family rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
go && timeout 60 b/test_jit > $o/test_jit.log 2>&1; echo "test_jit rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
for dt in f16 bf16; do
  go && timeout 60 b/hgemm verify --suite $S --acc f32 --dtype $dt --epilogue bias_gelu --out $o/verify-$dt.csv > $o/verify-$dt.log 2>&1
  echo "verify $dt rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
done
go 420 && ab 2 f16
go 420 && ab 1 bf16
go 470 && b/hgemm bench --suite $S --impl hgemm,hgemm-plain,cublaslt-best --modes graph --layout tn --acc f32 \
  --epilogue bias --out $o/epi-new-1-f16-bias.csv > $o/epi-new-1-f16-bias.log 2>&1
echo "new bias rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
for side in ref new; do
  bin=b/hgemm; [ $side = ref ] && bin=/tmp/ref/b/hgemm
  cuobjdump -sass $bin 2>/dev/null | grep -oE "MUFU\.TANH[.A-Z0-9]*" | sort | uniq -c > $o/mufu-$side.txt
done
echo "sass $(( $(date +%s)-t0 )) s" >> $o/progress
gzip -9 -n $o/*.log $o/*.csv; tar czf $OUT/all.tgz -C $o .
cat $o/progress
